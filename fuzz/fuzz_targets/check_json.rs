//! JSON, JSONC and JSON Lines text → `check`: the same invariants as `check_rust`, each input read
//! as all three kinds.
//! The body is `tests/support/invariants.rs`'s `check_json`, which `cargo test` runs on the seeds too.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    // Files that are not UTF-8 are skipped before parsing; the lossy text keeps mutated inputs useful.
    invariants::check_json(&String::from_utf8_lossy(data));
});
