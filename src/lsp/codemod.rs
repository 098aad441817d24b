//! The roots codemod as a code action: on a `server-roots-request` finding that
//! `fix --unsafe-fixes` rewrites, "take the directory as a parameter (…) (unsafe)" applies the
//! crate's whole change, a workspace edit with the edits of every file it touches (open documents
//! by their editor text and version, other files as they are on disk). Where the codemod leaves
//! the finding, the action is offered disabled, with the codemod's reason, to clients that show
//! disabled actions.
//!
//! The codemod runs when an editor asks for the actions of such a finding, not on every change:
//! once per crate, with the open documents' texts, until a document changes. Files that were
//! `rustfmt`-clean are laid out again, as `fix` does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::{
    CodeAction, CodeActionDisabled, CodeActionKind, DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier,
    TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};

use super::convert;
use super::document::Document;
use super::position::Encoding;
use crate::diagnostic::{Diagnostic, FileEdits};
use crate::fix::codemod::visible::{self, CratePlan, Planned, key};

/// The title of the action where the codemod leaves the finding.
const TITLE: &str = "take the directory as a parameter (unsafe)";

/// The codemod's plans, per crate manifest, for the documents as they are now.
#[derive(Default)]
pub struct Codemods {
    plans: HashMap<PathBuf, CratePlan>,
}

/// What the actions need to know about the client and the documents.
pub struct Editor<'a> {
    pub documents: &'a HashMap<Uri, Document>,
    pub encoding: Encoding,
    pub versioned: bool,
    pub disabled_support: bool,
}

impl Codemods {
    /// Forgets every plan: a document changed.
    pub fn clear(&mut self) {
        self.plans.clear();
    }

    /// The codemod's actions for the findings of `uri` the editor asked about.
    pub fn actions(
        &mut self,
        workspace: &crate::engine::Workspace,
        editor: &Editor,
        uri: &Uri,
        findings: &[&Diagnostic],
    ) -> Vec<CodeAction> {
        let Some(doc) = editor.documents.get(uri) else { return Vec::new() };
        let wanted: Vec<&Diagnostic> =
            findings.iter().copied().filter(|d| d.fix.is_none() && visible::wanted(d, &doc.text)).collect();
        if wanted.is_empty() {
            return Vec::new();
        }
        let Some(manifest) = workspace.manifest_of(&doc.path) else { return Vec::new() };
        let plan = self.plans.entry(manifest.clone()).or_insert_with(|| {
            let known = editor.documents.values().map(|d| (key(&d.path), d.text.as_str())).collect();
            let files = visible::load(&manifest, &known, 10 * 1024 * 1024);
            visible::plan(&files, &manifest, true, workspace.roots_to_for(&manifest))
        });
        let file = key(&doc.path);
        let mut actions = Vec::new();
        for d in wanted {
            match plan.for_finding(&file, &d.range) {
                Some(Planned::Rewrite(fix, elsewhere)) => {
                    let own = FileEdits { path: doc.path.clone(), display: String::new(), edits: fix.edits.clone() };
                    let Some(edit) = workspace_edit(editor, uri, std::iter::once(&own).chain(&elsewhere)) else {
                        continue;
                    };
                    actions.push(action(format!("{} (unsafe)", fix.title), d, uri, doc, Some(edit), None));
                }
                Some(Planned::Left(why)) if editor.disabled_support => {
                    actions.push(action(TITLE.into(), d, uri, doc, None, Some(why)));
                }
                _ => {}
            }
        }
        actions
    }
}

fn action(
    title: String,
    d: &Diagnostic,
    uri: &Uri,
    doc: &Document,
    edit: Option<WorkspaceEdit>,
    disabled: Option<String>,
) -> CodeAction {
    CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![convert::diagnostic(d, uri, doc)]),
        edit,
        command: None,
        is_preferred: Some(false),
        disabled: disabled.map(|reason| CodeActionDisabled { reason }),
        data: None,
    }
}

/// One workspace edit over every file of the change: an open document's edits in its editor
/// positions (tied to its version when the client supports that), another file's in the
/// positions of its text on disk. `None` if a file cannot be read or named by a URI.
// `WorkspaceEdit::changes` is lsp-types' `HashMap<Uri, _>`; its `Uri` caches parsed parts inside,
// never changed once made, so the key's hash cannot change.
#[allow(clippy::mutable_key_type)]
fn workspace_edit<'a>(editor: &Editor, own: &Uri, files: impl Iterator<Item = &'a FileEdits>) -> Option<WorkspaceEdit> {
    let mut changes: Vec<(Uri, Option<i32>, Vec<TextEdit>)> = Vec::new();
    for (i, file) in files.enumerate() {
        let open = if i == 0 {
            editor.documents.get_key_value(own)
        } else {
            let wanted = key(&file.path);
            editor.documents.iter().find(|(_, d)| key(&d.path) == wanted)
        };
        let (uri, version, edits) = match open {
            Some((uri, doc)) => (uri.clone(), Some(doc.version), convert::text_edits(doc, &file.edits)),
            None => {
                let text = std::fs::read_to_string(&file.path).ok()?;
                let doc = Document::new(file.path.clone(), 0, text, editor.encoding);
                (file_uri(&file.path)?, None, convert::text_edits(&doc, &file.edits))
            }
        };
        if !edits.is_empty() {
            changes.push((uri, version, edits));
        }
    }
    if changes.is_empty() {
        return None;
    }
    Some(if editor.versioned {
        let edits = changes
            .into_iter()
            .map(|(uri, version, edits)| TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            })
            .collect();
        WorkspaceEdit { document_changes: Some(DocumentChanges::Edits(edits)), ..Default::default() }
    } else {
        let map = changes.into_iter().map(|(uri, _, edits)| (uri, edits)).collect();
        WorkspaceEdit { changes: Some(map), ..Default::default() }
    })
}

/// The `file:` URI of a path (made absolute), with the bytes URIs do not allow percent-encoded.
fn file_uri(path: &Path) -> Option<Uri> {
    let absolute = std::fs::canonicalize(path).ok()?;
    let text = absolute.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/'); // `C:/…` on Windows
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_encode_what_uris_do_not_allow() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("my crate é.rs");
        std::fs::write(&path, "").unwrap();
        let uri = file_uri(&path).unwrap();
        assert!(uri.as_str().starts_with("file:///"), "{}", uri.as_str());
        assert!(uri.as_str().ends_with("/my%20crate%20%C3%A9.rs"), "{}", uri.as_str());
        assert_eq!(super::super::document::document_path(&uri), Some(std::fs::canonicalize(&path).unwrap()));
    }
}
