//! `--format cargo-json`: what `cargo check --message-format=json` prints, one JSON object per line:
//! a `compiler-message` record per finding, then `build-finished`. rust-analyzer (through
//! `rust-analyzer.check.overrideCommand`) reads these like rustc's own diagnostics: the primary
//! span underlines the finding, labels become related information, and each fix is a `help` child
//! whose spans carry the replacement, which rust-analyzer offers as a quick fix.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use codespan_reporting::term::termcolor::NoColor;
use serde_json::{Value, json};

use crate::context::CrateContext;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::engine::RunResult;
use crate::source::SourceFile;

/// Writes one line per finding and a closing `build-finished` record with `success`.
pub fn write(out: &mut dyn Write, result: &RunResult, success: bool) -> std::io::Result<()> {
    let mut packages: HashMap<Option<PathBuf>, Package> = HashMap::new();
    for (report, d) in result.diagnostics() {
        let package = packages
            .entry(report.crate_ctx.manifest.clone())
            .or_insert_with(|| Package::of(&report.crate_ctx, &report.file.path));
        let record = json!({
            "reason": "compiler-message",
            "package_id": package.id,
            "manifest_path": package.manifest_path,
            "target": package.target,
            "message": message(&report.file, d),
        });
        serde_json::to_writer(&mut *out, &record).map_err(super::output::io_error)?;
        writeln!(out)?;
    }
    writeln!(out, "{}", json!({"reason": "build-finished", "success": success}))
}

/// rustc's JSON diagnostic for one finding.
pub fn message(file: &SourceFile, d: &Diagnostic) -> Value {
    let mut spans = vec![span(file, &d.range, true, Some(&d.label), None)];
    spans.extend(d.labels.iter().map(|l| span(file, &l.range, false, Some(&l.message), None)));
    let mut children = Vec::new();
    if let Some(help) = &d.help {
        children.push(child("help", help, Vec::new()));
    }
    if let Some(fix) = &d.fix {
        let applicability = suggestion_applicability(fix.applicability);
        let spans = fix
            .edits
            .iter()
            .map(|e| span(file, &e.byte_range, true, None, Some((&e.replacement, applicability))))
            .collect();
        children.push(child("help", &format!("{} ({} fix)", fix.title, fix.applicability.as_str()), spans));
    }
    if let Some(note) = &d.note {
        children.push(child("note", note, Vec::new()));
    }
    let mut rendered = NoColor::new(Vec::new());
    // Rendering into memory cannot fail; an empty `rendered` is better than no record.
    let _ = super::human::write_diagnostic(&mut rendered, file, d, None);
    json!({
        "$message_type": "diagnostic",
        "message": d.shown_message(),
        "code": {"code": format!("mcp_lint::{}", d.rule), "explanation": null},
        "level": match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "spans": spans,
        "children": children,
        "rendered": String::from_utf8_lossy(&rendered.into_inner()),
    })
}

/// rustc's names: only `MachineApplicable` and `MaybeIncorrect` become quick fixes in
/// rust-analyzer, and only `MachineApplicable` is a preferred one.
pub fn suggestion_applicability(a: Applicability) -> &'static str {
    match a {
        Applicability::Safe => "MachineApplicable",
        Applicability::Unsafe => "MaybeIncorrect",
        Applicability::DisplayOnly => "Unspecified",
    }
}

fn child(level: &str, message: &str, spans: Vec<Value>) -> Value {
    json!({"message": message, "code": null, "level": level, "spans": spans, "children": [], "rendered": null})
}

/// A rustc span: 1-based lines, 1-based columns in characters with an exclusive end, and the text
/// of every line it covers with the highlighted part.
fn span(
    file: &SourceFile,
    range: &std::ops::Range<usize>,
    is_primary: bool,
    label: Option<&str>,
    suggestion: Option<(&str, &str)>,
) -> Value {
    let (start, end) = super::line_cols(file, range);
    let text: Vec<Value> = (start.line..=end.line)
        .map(|line| {
            let text = super::line_text(file, line);
            let highlight_start = if line == start.line { start.column } else { 1 };
            let highlight_end = if line == end.line { end.column } else { text.chars().count() + 1 };
            json!({"text": text, "highlight_start": highlight_start, "highlight_end": highlight_end})
        })
        .collect();
    json!({
        "file_name": file.display,
        "byte_start": range.start,
        "byte_end": range.end,
        "line_start": start.line,
        "line_end": end.line,
        "column_start": start.column,
        "column_end": end.column,
        "is_primary": is_primary,
        "text": text,
        "label": label,
        "suggested_replacement": suggestion.map(|(r, _)| r),
        "suggestion_applicability": suggestion.map(|(_, a)| a),
        "expansion": null,
    })
}

/// The package and target a record names, as cargo would: from the crate's manifest, or
/// placeholders for files outside any crate.
struct Package {
    id: String,
    manifest_path: String,
    target: Value,
}

impl Package {
    fn of(cx: &CrateContext, file: &Path) -> Package {
        let manifest = cx.manifest.as_deref().map(|m| std::fs::canonicalize(m).unwrap_or_else(|_| m.to_path_buf()));
        let doc: toml::Table = manifest
            .as_deref()
            .and_then(|m| std::fs::read_to_string(m).ok())
            .and_then(|t| t.parse().ok())
            .unwrap_or_default();
        let package = doc.get("package");
        let field = |key: &str| package.and_then(|p| p.get(key)).and_then(|v| v.as_str()).map(str::to_owned);
        let cwd = std::env::current_dir().unwrap_or_default();
        let dir = manifest.as_deref().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_else(|| cwd.clone());
        let dir_name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let name = cx.name.clone().or_else(|| field("name")).unwrap_or_else(|| "no-crate".to_owned());
        // `version.workspace = true` is not a string: cargo would resolve it; 0.0.0 is cargo's default.
        let version = field("version").unwrap_or_else(|| "0.0.0".to_owned());
        let edition = field("edition").unwrap_or_else(|| "2015".to_owned());
        let dir_uri = super::sarif::file_uri(&dir, false).unwrap_or_else(|| format!("file://{}", dir.display()));
        // cargo's package id spec: the name is left out when it is the folder's name.
        let id = if name == dir_name {
            format!("path+{dir_uri}#{version}")
        } else {
            format!("path+{dir_uri}#{name}@{version}")
        };
        let lib = dir.join("src/lib.rs");
        let (kind, target_name, src_path, doctest) = if manifest.is_some() && lib.is_file() {
            ("lib", name.replace('-', "_"), lib, true)
        } else if manifest.is_some() {
            ("bin", name.clone(), dir.join("src/main.rs"), false)
        } else {
            ("bin", name.clone(), cwd.join(file), false)
        };
        Package {
            id,
            manifest_path: manifest.unwrap_or_else(|| dir.join("Cargo.toml")).to_string_lossy().into_owned(),
            target: json!({
                "kind": [kind],
                "crate_types": [kind],
                "name": target_name,
                "src_path": src_path.to_string_lossy(),
                "edition": edition,
                "doc": true,
                "doctest": doctest,
                "test": true,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_line_span_text() {
        let file = SourceFile::new("a.rs".into(), "a.rs".into(), "let a = f(\n    1,\n);\n".into());
        let range = file.text.find('f').unwrap()..file.text.find(')').unwrap() + 1;
        let s = span(&file, &range, true, None, None);
        assert_eq!(s["line_start"], 1);
        assert_eq!(s["line_end"], 3);
        assert_eq!(s["column_start"], 9);
        assert_eq!(s["column_end"], 2);
        assert_eq!(
            s["text"],
            json!([
                {"text": "let a = f(", "highlight_start": 9, "highlight_end": 11},
                {"text": "    1,", "highlight_start": 1, "highlight_end": 7},
                {"text": ");", "highlight_start": 1, "highlight_end": 2},
            ])
        );
    }
}
