//! `--format sarif`: one SARIF 2.1.0 log, as GitHub code scanning accepts it. Rules come from the
//! rule pages, locations are relative to the current folder (`%SRCROOT%`, the repository root when
//! run from it), columns are Unicode code points, and each result carries a line-hash fingerprint so
//! an alert survives unrelated edits above it.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};

use crate::context::CrateContext;
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::RunResult;
use crate::rules::{self, RuleMeta};
use crate::source::SourceFile;

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The base every artifact URI is relative to: the folder mcp-lint ran in.
pub const SRCROOT: &str = "%SRCROOT%";

pub fn to_value(result: &RunResult) -> Value {
    let cwd = std::env::current_dir().ok();
    let metas: Vec<&'static RuleMeta> = rules::all_meta().collect();
    let rule_index: HashMap<&str, usize> = metas.iter().enumerate().map(|(i, m)| (m.name, i)).collect();

    let mut results = Vec::new();
    for report in &result.reports {
        let file = &report.file;
        let location = artifact_location(Path::new(&file.display), cwd.as_deref());
        // Occurrences of the same (rule, line text) in one file, for the fingerprint's counter.
        let mut seen: HashMap<u64, usize> = HashMap::new();
        for d in &report.diagnostics {
            let hash = line_hash(d.rule, file, d.range.start);
            let occurrence = seen.entry(hash).or_insert(0);
            *occurrence += 1;
            let mut result = result_value(file, d, &location, &rule_index, format!("{hash:016x}:{occurrence}"));
            add_changes_elsewhere(&mut result, d, cwd.as_deref());
            results.push(result);
        }
    }

    let mut notifications: Vec<Value> = Vec::new();
    for (level, notes) in [("error", &result.unreadable), ("note", &result.notes)] {
        for note in notes.iter() {
            let mut notification = json!({
                "level": level,
                "message": {"text": format!("{}: {}", note.path, note.message)},
            });
            let location = artifact_location(Path::new(&note.path), cwd.as_deref());
            // The current folder itself has no useful artifact location.
            if location["uri"] != "" {
                notification["locations"] = json!([{"physicalLocation": {"artifactLocation": location}}]);
            }
            notifications.push(notification);
        }
    }

    let mut run = json!({
        "tool": {"driver": {
            "name": "mcp-lint",
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "version": env!("CARGO_PKG_VERSION"),
            "rules": metas.iter().map(|m| rule_descriptor(m)).collect::<Vec<_>>(),
        }},
        "invocations": [{
            "executionSuccessful": result.unreadable.is_empty(),
            "toolExecutionNotifications": notifications,
        }],
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    // SARIF and GitHub allow a driver without `informationUri`; better none than a dead link.
    if let Some(uri) = super::information_uri() {
        run["tool"]["driver"]["informationUri"] = json!(uri);
    }
    if let Some(root) = cwd.as_deref().and_then(|d| file_uri(d, true)) {
        run["originalUriBaseIds"] = json!({ SRCROOT: {"uri": root} });
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [run],
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn rule_descriptor(meta: &RuleMeta) -> Value {
    let default_level = level(CrateContext::default().severity_for(meta.impact));
    let mut rule = json!({
        "id": meta.name,
        "name": pascal_case(meta.name),
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": first_paragraph(meta.doc)},
        "help": {"text": meta.doc, "markdown": meta.doc},
        "defaultConfiguration": {"level": default_level},
        "properties": {"tags": ["mcp", "mcp-2026-07-28", "migration"], "precision": "high"},
    });
    if let Some(uri) = super::rule_page_uri(meta.name) {
        rule["helpUri"] = Value::String(uri);
    }
    rule
}

fn result_value(
    file: &SourceFile,
    d: &Diagnostic,
    location: &Value,
    rule_index: &HashMap<&str, usize>,
    fingerprint: String,
) -> Value {
    let mut text = d.shown_message().into_owned();
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    if let Some(note) = &d.note {
        text.push_str("\nnote: ");
        text.push_str(note);
    }
    let mut result = json!({
        "ruleId": d.rule,
        "level": level(d.severity),
        "message": {"text": text},
        "locations": [{"physicalLocation": {
            "artifactLocation": location,
            "region": region(file, &d.range),
        }}],
        "partialFingerprints": {"primaryLocationLineHash": fingerprint},
        // Always written, as in `--format json`: a SARIF viewer's filter can rely on it.
        "properties": {"in_test": d.in_test},
    });
    if let Some(&i) = rule_index.get(d.rule) {
        result["ruleIndex"] = json!(i);
    }
    if !d.labels.is_empty() {
        result["relatedLocations"] = d
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                json!({
                    "id": i,
                    "message": {"text": l.message},
                    "physicalLocation": {"artifactLocation": location, "region": region(file, &l.range)},
                })
            })
            .collect();
    }
    if let Some(fix) = &d.fix {
        result["fixes"] = json!([{
            "description": {"text": fix.title},
            "artifactChanges": [{
                "artifactLocation": location,
                "replacements": fix.edits.iter().map(|e| json!({
                    "deletedRegion": region(file, &e.byte_range),
                    "insertedContent": {"text": e.replacement},
                })).collect::<Vec<_>>(),
            }],
            "properties": {"applicability": fix.applicability.as_str()},
        }]);
    }
    result
}

/// A fix that edits other files too (the roots codemod rewrites a crate): one more artifact change
/// per file. Those files' texts are not at hand here, so their regions are given in bytes alone,
/// which SARIF allows (`byteOffset`, `byteLength`).
fn add_changes_elsewhere(result: &mut Value, d: &Diagnostic, cwd: Option<&Path>) {
    let Some(changes) = result.pointer_mut("/fixes/0/artifactChanges").and_then(Value::as_array_mut) else { return };
    if d.fix.as_ref().is_some_and(|f| f.edits.is_empty()) {
        // No edit in the finding's own file: its change would be empty.
        changes.clear();
    }
    for other in &d.fix_elsewhere {
        changes.push(json!({
            "artifactLocation": artifact_location(Path::new(&other.display), cwd),
            "replacements": other.edits.iter().map(|e| json!({
                "deletedRegion": {"byteOffset": e.byte_range.start, "byteLength": e.byte_range.len()},
                "insertedContent": {"text": e.replacement},
            })).collect::<Vec<_>>(),
        }));
    }
}

/// Lines and columns (code points, end exclusive as SARIF's `endColumn` is), plus the bytes.
fn region(file: &SourceFile, range: &std::ops::Range<usize>) -> Value {
    let (start, end) = super::line_cols(file, range);
    json!({
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": end.column,
        "byteOffset": range.start,
        "byteLength": range.end.saturating_sub(range.start),
    })
}

/// Like GitHub's `primaryLocationLineHash`: the rule and the trimmed text of the finding's first
/// line, so moving the line keeps the alert; FNV-1a because it must not change between builds.
fn line_hash(rule: &str, file: &SourceFile, offset: usize) -> u64 {
    let line = file.lines.line_col(&file.text, offset).line;
    let text = super::line_text(file, line).trim();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in rule.bytes().chain([0]).chain(text.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// A file's location: relative to the current folder under `%SRCROOT%` when it lies inside it, else
/// an absolute `file:` URI.
fn artifact_location(path: &Path, cwd: Option<&Path>) -> Value {
    if let Some(relative) = relative_to(path, cwd) {
        return json!({"uri": encode_path(&relative), "uriBaseId": SRCROOT});
    }
    let absolute = match cwd {
        Some(cwd) if path.is_relative() => cwd.join(path),
        _ => path.to_path_buf(),
    };
    match file_uri(&absolute, false) {
        Some(uri) => json!({ "uri": uri }),
        None => json!({"uri": encode_path(&path.to_string_lossy())}),
    }
}

/// `path` relative to `cwd` with `/` separators, when it is inside it.
fn relative_to(path: &Path, cwd: Option<&Path>) -> Option<String> {
    // A relative path that never climbs out is already relative to the current folder (this is
    // also how a `--stdin-filename` that does not exist on disk is placed).
    if path.is_relative() && path.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Some(slashes(path));
    }
    let cwd = std::fs::canonicalize(cwd?).ok()?;
    let absolute = std::fs::canonicalize(path).ok()?;
    absolute.strip_prefix(&cwd).ok().map(slashes)
}

fn slashes(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts.join("/")
}

/// `file:///abs/path` (with a trailing `/` for a folder), for absolute paths only.
pub(crate) fn file_uri(path: &Path, folder: bool) -> Option<String> {
    if !path.is_absolute() {
        return None;
    }
    let absolute: PathBuf = path.components().collect();
    let mut text = absolute.to_string_lossy().replace('\\', "/");
    if !text.starts_with('/') {
        // A Windows drive path: `file:///C:/…`.
        text.insert(0, '/');
    }
    if folder && !text.ends_with('/') {
        text.push('/');
    }
    Some(format!("file://{}", encode_path(&text)))
}

/// Percent-encodes everything but RFC 3986's unreserved characters and `/`, so spaces, `%`, `#`,
/// `?` and non-ASCII names survive, and a `:` in a first segment is never read as a scheme.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `server-roots-request` → `ServerRootsRequest`, the form SARIF suggests for a rule's `name`.
fn pascal_case(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// The page's first paragraph after its title, on one line.
fn first_paragraph(doc: &str) -> String {
    doc.lines()
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_encoded_and_relative() {
        assert_eq!(encode_path("src/a b/ü%#?.rs"), "src/a%20b/%C3%BC%25%23%3F.rs");
        assert_eq!(encode_path("c:d.rs"), "c%3Ad.rs");
        let loc = artifact_location(Path::new("./src/main.rs"), None);
        assert_eq!(loc, json!({"uri": "src/main.rs", "uriBaseId": SRCROOT}));
        let loc = artifact_location(Path::new("/nowhere/x y.rs"), Some(Path::new("/also-nowhere")));
        assert_eq!(loc, json!({"uri": "file:///nowhere/x%20y.rs"}));
        assert_eq!(file_uri(Path::new("/a/b"), true).as_deref(), Some("file:///a/b/"));
    }

    #[test]
    fn names_and_descriptions() {
        assert_eq!(pascal_case("server-roots-request"), "ServerRootsRequest");
        assert_eq!(first_paragraph("# t\n\nOne\ntwo.\n\nThree"), "One two.");
    }

    #[test]
    fn line_hash_ignores_indentation_and_position() {
        let a = SourceFile::new("a.rs".into(), "a.rs".into(), "fn f() {\n    x.list_roots();\n}\n".into());
        let b = SourceFile::new("b.rs".into(), "b.rs".into(), "\n\nx.list_roots();\n".into());
        let at_a = a.text.find("list_roots").unwrap();
        let at_b = b.text.find("list_roots").unwrap();
        assert_eq!(line_hash("r", &a, at_a), line_hash("r", &b, at_b));
        assert_ne!(line_hash("r", &a, at_a), line_hash("other", &a, at_a));
        assert_ne!(line_hash("r", &a, at_a), line_hash("r", &a, 0));
    }
}
