//! Replays what the fuzzers found, so `cargo test` keeps guarding it: every file under
//! `tests/data/fuzz-regressions/<target>/` (a sample of each target's minimized corpus, and any crash
//! reproducer) goes through exactly what the fuzz target `<target>` in `fuzz/` does with it.

#[path = "support/invariants.rs"]
mod invariants;

use std::path::{Path, PathBuf};

use mcp_lint::fix::Mode;

fn inputs(target: &str) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-regressions").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no regression inputs in {}", dir.display());
    // The targets read bytes lossily, as here.
    files.into_iter().map(|p| (p.clone(), String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned())).collect()
}

#[test]
fn check_rust_inputs() {
    for (_, text) in inputs("check_rust") {
        for ctx in invariants::contexts() {
            invariants::check_invariants("fuzz.rs", &text, &ctx);
        }
    }
}

#[test]
fn check_json_inputs() {
    for (_, text) in inputs("check_json") {
        for ctx in invariants::contexts() {
            for name in ["fuzz.json", "fuzz.jsonc", "fuzz.jsonl"] {
                invariants::check_invariants(name, &text, &ctx);
            }
        }
    }
}

#[test]
fn fix_rust_inputs() {
    for (_, text) in inputs("fix_rust") {
        for ctx in invariants::contexts() {
            invariants::fix_invariants("fuzz.rs", &text, &ctx, Mode::Unsafe);
        }
    }
}

#[test]
fn fix_json_inputs() {
    for (_, text) in inputs("fix_json") {
        for name in ["fuzz.json", "fuzz.jsonc", "fuzz.jsonl"] {
            invariants::fix_invariants(name, &text, &invariants::contexts()[0], Mode::Unsafe);
        }
    }
}
