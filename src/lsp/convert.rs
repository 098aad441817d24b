//! Our findings and fixes in LSP's terms: diagnostics with ranges in the negotiated encoding, and
//! code actions whose workspace edits carry the fixes' text edits.

use std::collections::HashMap;
use std::ops::Range;

use lsp_types::{
    CodeAction, CodeActionKind, CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentChanges,
    Location, NumberOrString, OneOf, OptionalVersionedTextDocumentIdentifier, TextDocumentEdit, TextEdit, Uri,
    WorkspaceEdit,
};

use super::document::Document;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};

pub const SOURCE: &str = "mcp-lint";

/// The kind of the action that applies every safe fix of a document.
pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.mcp-lint")
}

pub fn diagnostic(d: &Diagnostic, uri: &Uri, doc: &Document) -> lsp_types::Diagnostic {
    let range = |r: &Range<usize>| doc.lines.range(&doc.text, r);
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .map(|label| DiagnosticRelatedInformation {
            location: Location { uri: uri.clone(), range: range(&label.range) },
            message: label.message.clone(),
        })
        .collect();
    let mut message = d.shown_message().into_owned();
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    if let Some(note) = &d.note {
        message.push_str(&format!("\nnote: {note}"));
    }
    lsp_types::Diagnostic {
        range: range(&d.range),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.rule.to_owned())),
        code_description: rule_page(d.rule).map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// A link to the rule's page, `rules/<rule>.md`, when the package declares a repository to link
/// into; without one there is no stable address and the diagnostic goes without a link.
fn rule_page(rule: &str) -> Option<Uri> {
    let repository = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    if repository.is_empty() {
        return None;
    }
    format!("{repository}/blob/main/rules/{rule}.md").parse().ok()
}

/// The quick fix for one finding, unless its fix is only a suggestion: preferred when it is safe,
/// marked in its title when it is not.
pub fn quick_fix(d: &Diagnostic, uri: &Uri, doc: &Document, versioned: bool) -> Option<CodeAction> {
    let fix: &Fix = d.fix.as_ref()?;
    let (title, preferred) = match fix.applicability {
        Applicability::Safe => (fix.title.clone(), true),
        Applicability::Unsafe => (format!("{} (unsafe)", fix.title), false),
        Applicability::DisplayOnly => return None,
    };
    Some(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic(d, uri, doc)]),
        edit: Some(workspace_edit(uri, doc, text_edits(doc, &fix.edits), versioned)),
        command: None,
        is_preferred: Some(preferred),
        disabled: None,
        data: None,
    })
}

/// The action that turns the document into `fixed` (every safe fix applied): one edit per changed
/// run of lines, so the rest of the buffer (cursor, marks, folds) stays as it is.
pub fn fix_all(uri: &Uri, doc: &Document, fixed: &str, versioned: bool) -> Option<CodeAction> {
    let edits = line_edits(&doc.text, fixed);
    if edits.is_empty() {
        return None;
    }
    Some(CodeAction {
        title: "Fix all safely fixable mcp-lint problems".into(),
        kind: Some(fix_all_kind()),
        diagnostics: None,
        edit: Some(workspace_edit(uri, doc, text_edits(doc, &edits), versioned)),
        command: None,
        is_preferred: None,
        disabled: None,
        data: None,
    })
}

/// Edits in LSP ranges. Inserted line breaks follow the document's line endings, as `fix` does.
pub(super) fn text_edits(doc: &Document, edits: &[Edit]) -> Vec<TextEdit> {
    let crlf = doc.text.contains("\r\n");
    edits
        .iter()
        .map(|e| TextEdit {
            range: doc.lines.range(&doc.text, &e.byte_range),
            new_text: if crlf {
                e.replacement.replace("\r\n", "\n").replace('\n', "\r\n")
            } else {
                e.replacement.clone()
            },
        })
        .collect()
}

/// A workspace edit of one document: tied to the version it was computed for when the client
/// supports that (it then refuses to apply the edit to a changed buffer), else a plain change map.
fn workspace_edit(uri: &Uri, doc: &Document, edits: Vec<TextEdit>, versioned: bool) -> WorkspaceEdit {
    if versioned {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri: uri.clone(), version: Some(doc.version) },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            }])),
            ..Default::default()
        }
    } else {
        WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..Default::default() }
    }
}

/// The edits that turn `old` into `new`: one per run of changed lines (a line diff).
fn line_edits(old: &str, new: &str) -> Vec<Edit> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let offset = |lines: &[&str], i: usize| lines[..i].iter().map(|l| l.len()).sum::<usize>();
    similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines)
        .into_iter()
        .filter_map(|op| {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            (tag != similar::DiffTag::Equal).then(|| {
                let start = offset(&old_lines, old_range.start);
                let end = start + old_lines[old_range].iter().map(|l| l.len()).sum::<usize>();
                Edit::replace(start..end, new_lines[new_range].concat())
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::position::Encoding;
    use lsp_types::Position;

    fn apply(old: &str, edits: &[Edit]) -> String {
        crate::fix::apply_edits(old, edits, "\n")
    }

    #[test]
    fn line_edits_cover_only_changed_lines() {
        for (old, new) in [
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb", "a\nB"),
            ("é🦀\nx\n", "é🦁\nx\n"),
            ("x", ""),
            ("", "y\n"),
            ("1\n2\n3\n4\n5\n", "1\n2!\n3\n4\n5!\n"),
        ] {
            assert_eq!(apply(old, &line_edits(old, new)), new, "{old:?} → {new:?}");
        }
        let edits = line_edits("1\n2\n3\n4\n5\n", "1\n2!\n3\n4\n5!\n");
        assert_eq!(edits, vec![Edit::replace(2..4, "2!\n"), Edit::replace(8..10, "5!\n")]);
        assert!(line_edits("same\n", "same\n").is_empty());
    }

    #[test]
    fn diagnostics_carry_rule_source_help_and_labels_in_utf16() {
        let text = "let s = \"🦀\"; x.y();\n".to_string();
        let doc = Document::new("a.rs".into(), 4, text.clone(), Encoding::Utf16);
        let at = text.find("x.y").unwrap();
        let d = Diagnostic {
            rule: "roots-list-changed",
            severity: Severity::Warning,
            range: at..at + 5,
            message: "m".into(),
            label: "l".into(),
            labels: vec![crate::diagnostic::Label { range: 0..3, message: "here".into() }],
            help: Some("h".into()),
            fix: Some(Fix {
                title: "t".into(),
                applicability: Applicability::Unsafe,
                edits: vec![Edit::replace(at..at + 1, "a\nb")],
            }),
            fix_elsewhere: Vec::new(),
            note: None,
            in_test: false,
        };
        let uri: Uri = "file:///a.rs".parse().unwrap();
        let lsp = diagnostic(&d, &uri, &doc);
        assert_eq!(lsp.range.start, Position { line: 0, character: 14 });
        assert_eq!(lsp.range.end, Position { line: 0, character: 19 });
        assert_eq!(lsp.severity, Some(DiagnosticSeverity::WARNING));
        assert_eq!(lsp.code, Some(NumberOrString::String("roots-list-changed".into())));
        assert_eq!(lsp.source.as_deref(), Some("mcp-lint"));
        assert_eq!(lsp.message, "m\nhelp: h");
        assert_eq!(lsp.related_information.unwrap()[0].message, "here");
        let in_test = Diagnostic { in_test: true, note: Some("n".into()), ..d.clone() };
        assert_eq!(diagnostic(&in_test, &uri, &doc).message, "m (test code)\nhelp: h\nnote: n");

        let action = quick_fix(&d, &uri, &doc, true).unwrap();
        assert_eq!(action.title, "t (unsafe)");
        assert_eq!(action.is_preferred, Some(false));
        let Some(DocumentChanges::Edits(edits)) = action.edit.unwrap().document_changes else { panic!() };
        assert_eq!(edits[0].text_document.version, Some(4));

        let crlf = Document::new("a.rs".into(), 1, text.replace('\n', "\r\n"), Encoding::Utf16);
        let edit = quick_fix(&d, &uri, &crlf, false).unwrap().edit.unwrap();
        let (changed, edits) = edit.changes.into_iter().flatten().next().unwrap();
        assert_eq!((changed, edits[0].new_text.as_str()), (uri.clone(), "a\r\nb"));

        let display_only = Diagnostic {
            fix: Some(Fix { title: "t".into(), applicability: Applicability::DisplayOnly, edits: vec![] }),
            ..d
        };
        assert!(quick_fix(&display_only, &uri, &doc, true).is_none());
    }
}
