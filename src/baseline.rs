//! Baselines, to adopt mcp-lint on a large codebase: `--write-baseline FILE` records the current
//! findings; `--baseline FILE` then reports only findings that are not in it, and lists entries
//! that no longer match anything (stale) as notes.
//!
//! An entry is keyed so that unrelated edits and line shifts keep it: the rule, the file's path
//! relative to the baseline's folder, a hash of the trimmed text of the line the finding starts
//! on, a hash of the finding's own text (white space collapsed), and its occurrence index among
//! findings of that file with the same rule and hashes. Line numbers are recorded for people, never
//! matched. Editing the flagged line itself makes its finding new again, on purpose: someone
//! touched it.
//!
//! The file is JSON: `{"version": 1, "findings": [{"rule", "path", "line", "line_hash",
//! "span_hash", "occurrence", "message"}]}`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Note};
use crate::engine::RunResult;
use crate::source::SourceFile;

/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
struct BaselineFile {
    version: u32,
    findings: Vec<Entry>,
}

/// One recorded finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub rule: String,
    /// Relative to the baseline file's folder, `/`-separated.
    pub path: String,
    /// Where it was when recorded (for people; not matched).
    pub line: usize,
    pub line_hash: String,
    pub span_hash: String,
    pub occurrence: usize,
    /// What it said when recorded (for people; not matched).
    #[serde(default)]
    pub message: String,
}

impl Entry {
    fn key(&self) -> (String, String, String, String, usize) {
        (self.rule.clone(), self.path.clone(), self.line_hash.clone(), self.span_hash.clone(), self.occurrence)
    }
}

/// A baseline read from disk, with the folder its paths are relative to.
#[derive(Debug)]
pub struct Baseline {
    pub entries: Vec<Entry>,
    dir: PathBuf,
}

/// What applying a baseline did.
#[derive(Debug, Default)]
pub struct Applied {
    /// Findings hidden because the baseline has them.
    pub known: usize,
    /// Entries of checked files that matched no finding.
    pub stale: Vec<Entry>,
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let shown = crate::discover::display_path(path);
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{shown}: cannot read the baseline: {}", crate::discover::io_reason(&e)))?;
        let version = serde_json::from_str::<serde_json::Value>(&text)
            .map_err(|e| format!("{shown}: not a baseline (invalid JSON: {e})"))?
            .get("version")
            .and_then(|v| v.as_u64());
        if version != Some(u64::from(VERSION)) {
            let found = version.map_or("none".to_owned(), |v| v.to_string());
            return Err(format!(
                "{shown}: unsupported baseline version {found} (this mcp-lint reads version {VERSION})"
            ));
        }
        let file: BaselineFile =
            serde_json::from_str(&text).map_err(|e| format!("{shown}: not a baseline of version {VERSION}: {e}"))?;
        Ok(Baseline { entries: file.findings, dir: folder_of(path)? })
    }

    /// Removes the findings the baseline has from `result`. Entries of files that were checked
    /// (`checked`) with a rule that was on for them (`judged`), or of files that no longer exist,
    /// and that matched nothing, are stale: they are returned and added to the notes.
    pub fn apply(&self, result: &mut RunResult, checked: &[PathBuf], judged: &dyn Fn(&Path, &str) -> bool) -> Applied {
        let mut remaining: HashMap<(String, String, String, String, usize), usize> = HashMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            remaining.insert(e.key(), i);
        }
        let mut matched = vec![false; self.entries.len()];
        let mut applied = Applied::default();
        for report in &mut result.reports {
            let keys = keys_of(&report.file, &report.diagnostics, &self.dir);
            let mut kept = Vec::with_capacity(report.diagnostics.len());
            for (d, key) in report.diagnostics.drain(..).zip(keys) {
                match remaining.remove(&key.key()) {
                    Some(i) => {
                        matched[i] = true;
                        applied.known += 1;
                    }
                    None => kept.push(d),
                }
            }
            report.diagnostics = kept;
        }
        result.reports.retain(|r| !r.diagnostics.is_empty());
        let checked: HashMap<String, &PathBuf> = checked.iter().map(|p| (key_path(p, &self.dir), p)).collect();
        for (i, e) in self.entries.iter().enumerate() {
            if matched[i] {
                continue;
            }
            let stale = match checked.get(&e.path) {
                Some(path) => judged(path, &e.rule),
                None => !self.dir.join(&e.path).exists(),
            };
            if stale {
                result.notes.push(Note {
                    path: e.path.clone(),
                    message: format!(
                        "stale baseline entry: no `{}` finding matches it any more (recorded at line {}); `--write-baseline` drops it",
                        e.rule, e.line
                    ),
                });
                applied.stale.push(e.clone());
            }
        }
        applied
    }
}

/// Drops the findings in the baseline file itself (it is JSON and may be in a checked folder):
/// the messages it records must not become findings of their own.
pub fn drop_baseline_file(result: &mut RunResult, path: &Path) {
    let Ok(baseline) = std::fs::canonicalize(path) else { return };
    let is_baseline = |p: &Path| std::fs::canonicalize(p).is_ok_and(|c| c == baseline);
    result.reports.retain(|r| !is_baseline(&r.file.path));
    result.checked.retain(|p| !is_baseline(p));
}

/// Writes every finding of `result` to a baseline at `path`; returns how many.
pub fn write(path: &Path, result: &RunResult) -> Result<usize, String> {
    let dir = folder_of(path)?;
    let mut findings: Vec<Entry> = result.reports.iter().flat_map(|r| keys_of(&r.file, &r.diagnostics, &dir)).collect();
    findings.sort_by(|a, b| (&a.path, a.line, &a.rule, a.occurrence).cmp(&(&b.path, b.line, &b.rule, b.occurrence)));
    let count = findings.len();
    let mut text = serde_json::to_string_pretty(&BaselineFile { version: VERSION, findings })
        .map_err(|e| format!("cannot write the baseline: {e}"))?;
    text.push('\n');
    std::fs::write(path, text).map_err(|e| {
        format!(
            "{}: cannot write the baseline: {}",
            crate::discover::display_path(path),
            crate::discover::io_reason(&e)
        )
    })?;
    Ok(count)
}

/// The baseline entries of one file's findings, in the findings' order.
fn keys_of(file: &SourceFile, diagnostics: &[Diagnostic], dir: &Path) -> Vec<Entry> {
    let path = key_path(&file.path, dir);
    let mut seen: HashMap<(&str, String, String), usize> = HashMap::new();
    diagnostics
        .iter()
        .map(|d| {
            let at = file.lines.line_col(&file.text, d.range.start);
            let line_text = &file.text[file.lines.line_range(&file.text, at.line - 1)];
            let line_hash = hash(line_text.trim());
            let span = file.text.get(d.range.clone()).unwrap_or("");
            let span_hash = hash(&span.split_whitespace().collect::<Vec<_>>().join(" "));
            let n = seen.entry((d.rule, line_hash.clone(), span_hash.clone())).or_insert(0);
            let occurrence = *n;
            *n += 1;
            Entry {
                rule: d.rule.to_owned(),
                path: path.clone(),
                line: at.line,
                line_hash,
                span_hash,
                occurrence,
                message: d.message.clone(),
            }
        })
        .collect()
}

/// A file's path relative to the baseline's folder (both canonical), `/`-separated; the absolute
/// path when it is elsewhere.
fn key_path(path: &Path, dir: &Path) -> String {
    let full = std::fs::canonicalize(path).unwrap_or_else(|_| {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::canonicalize(parent)
            .unwrap_or_else(|_| parent.to_path_buf())
            .join(path.file_name().unwrap_or_default())
    });
    let rel = full.strip_prefix(dir).unwrap_or(&full);
    rel.to_string_lossy().replace('\\', "/")
}

/// The canonical folder of the baseline file (which need not exist yet).
fn folder_of(path: &Path) -> Result<PathBuf, String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::canonicalize(parent).map_err(|e| {
        format!(
            "{}: cannot use the baseline's folder: {}",
            crate::discover::display_path(path),
            crate::discover::io_reason(&e)
        )
    })
}

/// 64-bit FNV-1a as 16 hex digits: stable across platforms and Rust versions (std's hasher is not).
fn hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_the_standard_one() {
        assert_eq!(hash(""), "cbf29ce484222325");
        assert_eq!(hash("a"), "af63dc4c8601ec8c");
    }
}
