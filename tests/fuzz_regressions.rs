//! The fuzz targets' invariants (`tests/support/invariants.rs`), run by `cargo test` on the inputs the
//! fuzzers start from and on what they found, so a change that breaks one fails here, not minutes
//! into a fuzzing run:
//!
//! - every file under `fixtures/` (the seed corpus: libFuzzer reads its folders recursively, so each
//!   target gets every file, whatever its kind), through every target;
//! - every file under `tests/data/fuzz-regressions/<target>/` (a sample of each target's minimized
//!   corpus, and any crash reproducer), through the target `<target>`.

#[path = "support/invariants.rs"]
mod invariants;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// The files under `dir`, recursively, in a stable order.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no inputs in {}", dir.display());
    files
}

/// Runs the fuzz target `target` on each file, as libFuzzer hands it the bytes, and fails naming
/// every file that broke an invariant (each one's panic message is above, in the captured output).
fn run_target(target: &str, files: &[PathBuf]) {
    let body = invariants::target(target);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
            catch_unwind(AssertUnwindSafe(|| body(&text))).is_err()
        })
        .map(|path| path.strip_prefix(root).unwrap_or(path).display().to_string())
        .collect();
    assert!(failed.is_empty(), "{target} breaks an invariant on {} file(s):\n  {}", failed.len(), failed.join("\n  "));
}

fn seeds() -> Vec<PathBuf> {
    files_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
}

fn found_by(target: &str) -> Vec<PathBuf> {
    files_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-regressions").join(target))
}

#[test]
fn check_rust_inputs() {
    run_target("check_rust", &found_by("check_rust"));
}

#[test]
fn check_json_inputs() {
    run_target("check_json", &found_by("check_json"));
}

#[test]
fn fix_rust_inputs() {
    run_target("fix_rust", &found_by("fix_rust"));
}

#[test]
fn fix_json_inputs() {
    run_target("fix_json", &found_by("fix_json"));
}

#[test]
fn check_rust_seeds() {
    run_target("check_rust", &seeds());
}

#[test]
fn check_json_seeds() {
    run_target("check_json", &seeds());
}

#[test]
fn fix_rust_seeds() {
    run_target("fix_rust", &seeds());
}

#[test]
fn fix_json_seeds() {
    run_target("fix_json", &seeds());
}
