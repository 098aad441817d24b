//! Files as read from disk, and the line index that turns byte offsets into 1-based lines and columns.

use std::ops::Range;
use std::path::PathBuf;

/// One scanned file. `text` is the whole file as read (a BOM, if any, included), so every byte range
/// in a diagnostic or an edit indexes into it directly.
#[derive(Debug)]
pub struct SourceFile {
    /// The path used to read the file.
    pub path: PathBuf,
    /// The path as shown to users: as given on the command line, or relative to the current folder.
    pub display: String,
    pub text: String,
    pub lines: LineIndex,
}

impl SourceFile {
    pub fn new(path: PathBuf, display: String, text: String) -> Self {
        let lines = LineIndex::new(&text);
        SourceFile { path, display, text, lines }
    }

    /// What kind of file this is, by its name.
    pub fn kind(&self) -> FileKind {
        FileKind::of(&self.path)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Rust,
    Json,
    /// JSON with comments and trailing commas.
    Jsonc,
    /// JSON Lines: one message per line (recorded transcripts).
    Jsonl,
}

impl FileKind {
    pub fn of(path: &std::path::Path) -> FileKind {
        match path.extension().and_then(|e| e.to_str()) {
            Some("rs") => FileKind::Rust,
            Some("jsonc") => FileKind::Jsonc,
            Some("jsonl") | Some("ndjson") => FileKind::Jsonl,
            _ => FileKind::Json,
        }
    }

    /// Whether the walker picks up files with this name.
    pub fn is_scanned(path: &std::path::Path) -> bool {
        matches!(path.extension().and_then(|e| e.to_str()), Some("rs" | "json" | "jsonc" | "jsonl" | "ndjson"))
    }
}

/// A 1-based line and a 1-based column counted in Unicode scalar values (as rustc and SARIF's
/// `unicodeCodePoints` count them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// Byte offsets of line starts.
#[derive(Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// For each line, where its leading run of ASCII ends: the offset of its first non-ASCII
    /// byte, else of its `\n`, else the text's end. Up to there a column is a byte count. Empty
    /// when the whole text is ASCII (most files): then each line's run ends where the line does.
    ascii_ends: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        // Sized for lines of about 32 bytes: fewer regrowths than collecting from an iterator.
        let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        let ascii_ends = if text.is_ascii() {
            Vec::new()
        } else {
            (0..starts.len())
                .map(|line0| {
                    let (start, end) = (starts[line0], starts.get(line0 + 1).map_or(text.len(), |next| next - 1));
                    let line = &bytes[start..end];
                    if line.is_ascii() {
                        end
                    } else {
                        line.iter().position(|b| !b.is_ascii()).map_or(end, |i| start + i)
                    }
                })
                .collect()
        };
        LineIndex { starts, ascii_ends, len: text.len() }
    }

    /// The byte offset of a 0-based line's character column, when the line is ASCII up to it.
    pub fn ascii_offset(&self, line0: usize, column: usize) -> Option<usize> {
        let offset = self.starts.get(line0)? + column;
        let run_end = match self.ascii_ends.get(line0) {
            Some(&end) => end,
            None => self.starts.get(line0 + 1).map_or(self.len, |next| next - 1),
        };
        (offset <= run_end).then_some(offset)
    }

    /// Line and column of a byte offset. Offsets past the end or inside a character are clamped to
    /// the nearest valid position before them.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = text[self.starts[line]..offset].chars().count() + 1;
        LineCol { line: line + 1, column }
    }

    /// Byte range of a 0-based line, without its line terminator.
    pub fn line_range(&self, text: &str, line0: usize) -> Range<usize> {
        let start = self.starts[line0];
        let end = self.starts.get(line0 + 1).copied().unwrap_or(text.len());
        let mut end = end;
        let bytes = text.as_bytes();
        while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        start..end
    }

    /// Byte offset where a 0-based line starts.
    pub fn line_start(&self, line0: usize) -> Option<usize> {
        self.starts.get(line0).copied()
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_scalar_values() {
        let text = "ab\néé x\r\nz";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, column: 1 });
        let x = text.find('x').unwrap();
        assert_eq!(idx.line_col(text, x), LineCol { line: 2, column: 4 });
        let z = text.find('z').unwrap();
        assert_eq!(idx.line_col(text, z), LineCol { line: 3, column: 1 });
        assert_eq!(idx.line_col(text, text.len() + 5), LineCol { line: 3, column: 2 });
        assert_eq!(idx.line_range(text, 1), 3..9);
    }

    #[test]
    fn ascii_offsets_stop_at_the_first_non_ascii_byte_or_the_line_end() {
        let text = "ab\r\nxé y\n\nz";
        let idx = LineIndex::new(text);
        // Line 1 holds `ab\r`: its columns 0..=3 are bytes (3 is the `\n`'s place).
        assert_eq!(idx.ascii_offset(0, 3), Some(3));
        assert_eq!(idx.ascii_offset(0, 4), None);
        assert_eq!(idx.ascii_offset(1, 1), Some(5));
        assert_eq!(idx.ascii_offset(1, 2), None);
        assert_eq!((idx.ascii_offset(2, 0), idx.ascii_offset(2, 1)), (Some(10), None));
        assert_eq!((idx.ascii_offset(3, 1), idx.ascii_offset(3, 2)), (Some(12), None));
        assert_eq!(idx.ascii_offset(4, 0), None);
        let ascii = LineIndex::new("a\nbc\n");
        assert_eq!((ascii.ascii_offset(1, 2), ascii.ascii_offset(1, 3)), (Some(4), None));
        assert_eq!(ascii.ascii_offset(2, 0), Some(5));
    }
}
