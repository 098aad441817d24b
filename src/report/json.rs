//! `--format json`: a JSON array, one object per finding. The field names are a contract with
//! users' scripts: add fields, never rename or remove one.
//!
//! The report is written straight from these borrowed records (no `serde_json::Value` built in
//! between: on a tree with many findings that was most of the rendering). Each record's fields
//! are declared in alphabetical order, the order the report has always had (a `Value` object
//! sorts its keys); a test holds them so. With the `mcp-server` feature the same records give the
//! MCP server's `check` tool its output schema.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Edit, FileEdits, Fix, Label};
use crate::engine::{FileReport, RunResult};
use crate::source::SourceFile;

/// One record per finding, in the run's order.
pub fn findings(result: &RunResult) -> Vec<Finding<'_>> {
    result.diagnostics().map(|(report, d)| Finding::new(report, d)).collect()
}

#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
pub struct Finding<'a> {
    byte_range: [usize; 2],
    earliest_removal: Option<&'static str>,
    era: Era<'a>,
    fix: Option<FixRecord<'a>>,
    help: Option<&'a str>,
    /// Always written: `true` for a finding in test code (`#[cfg(test)]`, `#[test]`, the
    /// crate's `tests/` or `benches/`).
    in_test: bool,
    labels: Vec<LabelRecord<'a>>,
    message: &'a str,
    /// Why there is no automatic fix, when a fixer looked and declined; written only then.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    path: &'a str,
    range: LineColRange,
    rule: &'static str,
    severity: &'static str,
}

#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
struct Era<'a> {
    assumed: &'static str,
    reason: &'a str,
}

#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
struct FixRecord<'a> {
    applicability: &'static str,
    /// The edits in the finding's file.
    edits: Vec<EditRecord<'a>>,
    /// Written only for a fix that edits other files too (the roots codemod): every file it
    /// edits, the finding's first, each with its edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Vec<FileRecord<'a>>>,
    title: &'a str,
}

#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
struct FileRecord<'a> {
    edits: Vec<EditRecord<'a>>,
    path: &'a str,
}

#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
struct EditRecord<'a> {
    byte_range: [usize; 2],
    replacement: &'a str,
}

#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
struct LabelRecord<'a> {
    byte_range: [usize; 2],
    message: &'a str,
    range: LineColRange,
}

/// 1-based lines and columns (Unicode scalar values), end exclusive.
#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
struct LineColRange {
    end: Position,
    start: Position,
}

#[derive(Serialize)]
#[cfg_attr(feature = "mcp-server", derive(schemars::JsonSchema))]
struct Position {
    column: usize,
    line: usize,
}

impl<'a> Finding<'a> {
    fn new(report: &'a FileReport, d: &'a Diagnostic) -> Finding<'a> {
        let file = &report.file;
        Finding {
            byte_range: [d.range.start, d.range.end],
            earliest_removal: crate::rules::all_meta()
                .find(|m| m.name == d.rule)
                .and_then(|m| m.impact.earliest_removal()),
            era: Era { assumed: report.crate_ctx.era.era.as_str(), reason: &report.crate_ctx.era.reason },
            fix: d.fix.as_ref().map(|f| FixRecord::new(f, &file.display, &d.fix_elsewhere)),
            help: d.help.as_deref(),
            in_test: d.in_test,
            labels: d.labels.iter().map(|l| LabelRecord::new(file, l)).collect(),
            message: &d.message,
            note: d.note.as_deref(),
            path: &file.display,
            range: LineColRange::new(file, &d.range),
            rule: d.rule,
            severity: d.severity.as_str(),
        }
    }
}

impl<'a> FixRecord<'a> {
    fn new(f: &'a Fix, path: &'a str, elsewhere: &'a [FileEdits]) -> FixRecord<'a> {
        let edits = || f.edits.iter().map(EditRecord::new).collect();
        let files = (!elsewhere.is_empty()).then(|| {
            let own = (!f.edits.is_empty()).then(|| FileRecord { edits: edits(), path });
            let others = elsewhere
                .iter()
                .map(|c| FileRecord { edits: c.edits.iter().map(EditRecord::new).collect(), path: &c.display });
            own.into_iter().chain(others).collect()
        });
        FixRecord { applicability: f.applicability.as_str(), edits: edits(), files, title: &f.title }
    }
}

impl<'a> EditRecord<'a> {
    fn new(e: &'a Edit) -> EditRecord<'a> {
        EditRecord { byte_range: [e.byte_range.start, e.byte_range.end], replacement: &e.replacement }
    }
}

impl<'a> LabelRecord<'a> {
    fn new(file: &SourceFile, l: &'a Label) -> LabelRecord<'a> {
        LabelRecord {
            byte_range: [l.range.start, l.range.end],
            message: &l.message,
            range: LineColRange::new(file, &l.range),
        }
    }
}

impl LineColRange {
    fn new(file: &SourceFile, r: &std::ops::Range<usize>) -> LineColRange {
        let (start, end) = super::line_cols(file, r);
        LineColRange {
            end: Position { column: end.column, line: end.line },
            start: Position { column: start.column, line: start.line },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::context::CrateContext;
    use crate::diagnostic::{Applicability, Severity};

    /// Every record's fields are in alphabetical order, as a `Value` object would write them:
    /// the report's bytes stay what users' scripts (and diffs of saved reports) have seen.
    #[test]
    fn fields_are_written_in_the_order_a_value_object_sorts_them() {
        let text = "fn f() {\n    é(list_roots());\n}\n";
        let file = SourceFile::new("a.rs".into(), "a.rs".into(), text.to_string());
        let d = Diagnostic {
            rule: "server-roots-request",
            severity: Severity::Error,
            range: 17..29,
            message: "a message".into(),
            label: "a label".into(),
            labels: vec![Label { range: 15..16, message: "a label's message".into() }],
            help: Some("a help line".into()),
            fix: Some(Fix {
                title: "a fix".into(),
                applicability: Applicability::Safe,
                edits: vec![Edit::replace(17..29, "x")],
            }),
            fix_elsewhere: vec![FileEdits {
                path: "b.rs".into(),
                display: "b.rs".into(),
                edits: vec![Edit::replace(0..0, "y")],
            }],
            note: Some("a note".into()),
            in_test: true,
        };
        let result = RunResult {
            reports: vec![FileReport {
                file: Arc::new(file),
                crate_ctx: Arc::new(CrateContext::default()),
                diagnostics: vec![d],
            }],
            ..RunResult::default()
        };
        let direct = serde_json::to_string_pretty(&findings(&result)).unwrap();
        let through_value = serde_json::to_value(findings(&result)).unwrap();
        assert_eq!(direct, serde_json::to_string_pretty(&through_value).unwrap());
        assert!(direct.contains("\"column\": 6") && direct.contains("\"in_test\": true"), "{direct}");
        assert!(direct.contains("\"path\": \"b.rs\"") && direct.contains("\"note\": \"a note\""), "{direct}");
    }
}
