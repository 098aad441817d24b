//! `--format json`: a JSON array, one object per finding. The field names are a contract with
//! users' scripts: add fields, never rename or remove one.

use serde_json::{Value, json};

use crate::engine::{FileReport, RunResult};
use crate::source::SourceFile;

pub fn to_value(result: &RunResult) -> Value {
    Value::Array(result.diagnostics().map(|(report, d)| finding(report, d)).collect())
}

fn finding(report: &FileReport, d: &crate::diagnostic::Diagnostic) -> Value {
    let file = &report.file;
    json!({
        "rule": d.rule,
        "severity": d.severity.as_str(),
        "message": d.message,
        "help": d.help,
        "path": file.display,
        "range": range(file, &d.range),
        "byte_range": [d.range.start, d.range.end],
        "labels": d.labels.iter().map(|l| json!({
            "message": l.message,
            "range": range(file, &l.range),
            "byte_range": [l.range.start, l.range.end],
        })).collect::<Vec<_>>(),
        "earliest_removal": crate::rules::all_meta().find(|m| m.name == d.rule).and_then(|m| m.impact.earliest_removal()),
        "era": {
            "assumed": report.crate_ctx.era.era.as_str(),
            "reason": report.crate_ctx.era.reason,
        },
        "fix": d.fix.as_ref().map(|f| json!({
            "title": f.title,
            "applicability": f.applicability.as_str(),
            "edits": f.edits.iter().map(|e| json!({
                "byte_range": [e.byte_range.start, e.byte_range.end],
                "replacement": e.replacement,
            })).collect::<Vec<_>>(),
        })),
    })
}

/// 1-based lines and columns (Unicode scalar values), end exclusive.
fn range(file: &SourceFile, r: &std::ops::Range<usize>) -> Value {
    let start = file.lines.line_col(&file.text, r.start);
    let end = file.lines.line_col(&file.text, r.end);
    json!({
        "start": {"line": start.line, "column": start.column},
        "end": {"line": end.line, "column": end.column},
    })
}
