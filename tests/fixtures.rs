//! The fixture runner: every file under `fixtures/` is checked and its findings must match the
//! expectations written beside it, exactly (no missing and no extra finding).
//!
//! - Rust: `//~ rule-name` at the end of the line where a finding starts; one marker per finding
//!   (`//~ rule-a //~ rule-b` for two).
//! - JSON (`.json`, `.jsonc`, `.jsonl`): a sidecar `<file>.expected` with one `LINE rule-name` per
//!   finding (`#` comments allowed); no sidecar means no findings.
//! - A Rust file may have such a sidecar instead of markers: the bundled demo (`fixtures/demo`) does,
//!   so its output shows its code as a user's would look, without `//~` comments.
//!
//! Each file is checked twice, with the prefilter on and off, and both must agree: a trigger-word
//! list can never silently hide a finding.
//!
//! A folder under `fixtures/rust/<rule>/` with a `Cargo.toml` is one crate (its findings may span
//! files: the crate model): beside the run over the whole tree, it is checked alone, as a user
//! checks their crate, and must give its files' expected findings, prefilter on and off.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcp_lint::engine::{Options, check_paths};

fn fixture_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "target" {
                fixture_files(&path, out);
            }
        } else if mcp_lint::source::FileKind::is_scanned(&path) {
            out.push(path);
        }
    }
}

/// Expected findings as (line, rule) → count.
fn expected(path: &Path, text: &str) -> BTreeMap<(usize, String), usize> {
    let mut out = BTreeMap::new();
    let sidecar = PathBuf::from(format!("{}.expected", path.display()));
    if path.extension().is_some_and(|e| e == "rs") && !sidecar.is_file() {
        for (i, line) in text.lines().enumerate() {
            for part in line.split("//~").skip(1) {
                let rule = part.split_whitespace().next().expect("a rule name after //~");
                *out.entry((i + 1, rule.to_owned())).or_insert(0) += 1;
            }
        }
    } else if let Ok(s) = std::fs::read_to_string(&sidecar) {
        for line in s.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let mut words = line.split_whitespace();
            let n: usize = words.next().unwrap().parse().expect("LINE rule-name");
            let rule = words.next().expect("LINE rule-name");
            *out.entry((n, rule.to_owned())).or_insert(0) += 1;
        }
    }
    out
}

/// Findings per file, from one run over the whole fixtures tree (as users run it: crate contexts,
/// eras and configs are found once per crate).
fn actual(root: &Path, prefilter: bool) -> BTreeMap<PathBuf, BTreeMap<(usize, String), usize>> {
    let opts = Options { prefilter, ..Options::default() };
    let result = check_paths(&[root.to_path_buf()], &opts);
    assert!(result.unreadable.is_empty(), "{:?}", result.unreadable);
    let mut out: BTreeMap<PathBuf, BTreeMap<(usize, String), usize>> = BTreeMap::new();
    for (report, d) in result.diagnostics() {
        let line = report.file.lines.line_col(&report.file.text, d.range.start).line;
        *out.entry(report.file.path.clone()).or_default().entry((line, d.rule.to_owned())).or_insert(0) += 1;
    }
    out
}

/// The folders under `fixtures/rust/<rule>/` that are crates.
fn fixture_crates(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for rule in std::fs::read_dir(root.join("rust")).unwrap().map(|e| e.unwrap().path()) {
        if !rule.is_dir() {
            continue;
        }
        for dir in std::fs::read_dir(&rule).unwrap().map(|e| e.unwrap().path()) {
            if dir.join("Cargo.toml").is_file() {
                out.push(dir);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_crate_fixture_checked_alone_has_its_expected_findings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let crates = fixture_crates(&root);
    assert!(crates.iter().any(|c| c.ends_with("inferred-client-capabilities/split_server")), "{crates:?}");
    let mut failures = Vec::new();
    let none = BTreeMap::new();
    for dir in &crates {
        let mut files = Vec::new();
        fixture_files(dir, &mut files);
        for prefilter in [true, false] {
            let found = actual(dir, prefilter);
            for path in &files {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                let want = expected(path, &text);
                let got = found.get(path).unwrap_or(&none);
                if *got != want {
                    failures.push(format!(
                        "{} (checked alone, prefilter {}):\n  expected {want:?}\n  found    {got:?}",
                        path.display(),
                        if prefilter { "on" } else { "off" }
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} crate fixture file(s) differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_fixture_has_exactly_its_expected_findings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files = Vec::new();
    fixture_files(&root, &mut files);
    assert!(files.len() >= 10, "fixtures are missing");
    let mut failures = Vec::new();
    let (filtered, unfiltered) = (actual(&root, true), actual(&root, false));
    let none = BTreeMap::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let want = expected(path, &text);
        let got = filtered.get(path).unwrap_or(&none);
        if *got != want {
            failures.push(format!("{}:\n  expected {want:?}\n  found    {got:?}", path.display()));
        }
        let unfiltered = unfiltered.get(path).unwrap_or(&none);
        if unfiltered != got {
            failures.push(format!(
                "{}: the prefilter hides findings:\n  on  {got:?}\n  off {unfiltered:?}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{} fixture(s) differ:\n{}", failures.len(), failures.join("\n"));
}
