//! An open document: the editor's text (not the file on disk), its version, and the findings of
//! that text once checked.

use std::path::PathBuf;

use lsp_types::{TextDocumentContentChangeEvent, Uri};

use super::position::{Encoding, LineMap};
use crate::diagnostic::Diagnostic;
use crate::source::FileKind;

pub struct Document {
    /// Where the document lives, for its kind (by extension) and its crate (manifests around it).
    pub path: PathBuf,
    pub version: i32,
    pub text: String,
    pub lines: LineMap,
    /// The findings of `text`; `None` until it has been checked since its last change.
    pub diagnostics: Option<Vec<Diagnostic>>,
}

impl Document {
    pub fn new(path: PathBuf, version: i32, text: String, encoding: Encoding) -> Document {
        let lines = LineMap::new(&text, encoding);
        Document { path, version, text, lines, diagnostics: None }
    }

    /// Applies the changes of one `didChange`, in order: a change with a range replaces that range
    /// (positions refer to the text as left by the previous change), one without replaces it all.
    pub fn apply(&mut self, version: i32, changes: Vec<TextDocumentContentChangeEvent>, encoding: Encoding) {
        for change in changes {
            match change.range {
                Some(range) => {
                    let bytes = self.lines.byte_range(&self.text, range);
                    self.text.replace_range(bytes, &change.text);
                }
                None => self.text = change.text,
            }
            self.lines = LineMap::new(&self.text, encoding);
        }
        self.version = version;
        self.diagnostics = None;
    }
}

/// The path a document's URI stands for, when it is a kind of file mcp-lint reads. `file:` URIs
/// give the file's path, so the crate context comes from the manifests around it; other schemes
/// (unsaved buffers) give their last segment, read relative to the server's working folder.
pub fn document_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let text = text.split(['?', '#']).next().unwrap_or(text);
    let path = match text.strip_prefix("file://") {
        // The authority (`localhost` or empty) ends at the path's first `/`.
        Some(rest) => {
            let path = percent_decode(&rest[rest.find('/')?..])?;
            PathBuf::from(windows_drive(&path).unwrap_or(&path))
        }
        None => {
            let (_, rest) = text.split_once(':')?;
            let name = rest.rsplit('/').next().unwrap_or(rest);
            PathBuf::from(percent_decode(name)?)
        }
    };
    FileKind::is_scanned(&path).then_some(path)
}

/// `/C:/src/x.rs` → `C:/src/x.rs` (a Windows path in a `file:` URI).
fn windows_drive(path: &str) -> Option<&str> {
    let b = path.as_bytes();
    (cfg!(windows) && b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':').then(|| &path[1..])
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    #[test]
    fn file_uris_become_paths_and_other_kinds_are_skipped() {
        assert_eq!(
            document_path(&uri("file:///home/ana/my%20crate/src/main.rs")),
            Some("/home/ana/my crate/src/main.rs".into())
        );
        assert_eq!(document_path(&uri("file://localhost/srv/caps.jsonc")), Some("/srv/caps.jsonc".into()));
        assert_eq!(document_path(&uri("file:///srv/t%C3%A9st.jsonl")), Some("/srv/tést.jsonl".into()));
        assert_eq!(document_path(&uri("untitled:scratch.json")), Some("scratch.json".into()));
        assert_eq!(document_path(&uri("file:///srv/Cargo.toml")), None);
        assert_eq!(document_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(percent_decode("bad%zz.rs"), None);
        assert_eq!(percent_decode("%FF.rs"), None);
    }

    #[test]
    fn changes_apply_in_order_with_positions_of_the_text_so_far() {
        let mut doc = Document::new("a.rs".into(), 1, "fn 🦀() {}\n".into(), Encoding::Utf16);
        let at = |line, character| Position { line, character };
        let changes = vec![
            // Replace the crab (2 UTF-16 units) with `crab`.
            TextDocumentContentChangeEvent {
                range: Some(Range::new(at(0, 3), at(0, 5))),
                range_length: None,
                text: "crab".into(),
            },
            // Then insert at the end of the new text's first line.
            TextDocumentContentChangeEvent {
                range: Some(Range::new(at(0, 12), at(0, 12))),
                range_length: None,
                text: " // é".into(),
            },
        ];
        doc.apply(2, changes, Encoding::Utf16);
        assert_eq!(doc.text, "fn crab() {} // é\n");
        assert_eq!(doc.version, 2);
        doc.apply(
            3,
            vec![TextDocumentContentChangeEvent { range: None, range_length: None, text: "x".into() }],
            Encoding::Utf16,
        );
        assert_eq!(doc.text, "x");
    }
}
