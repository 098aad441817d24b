//! JSON, JSONC and JSON Lines text → `fix`: the same invariants as `fix_rust`.
//! The body is `tests/support/invariants.rs`'s `fix_json`, which `cargo test` runs on the seeds too.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    // Files that are not UTF-8 are skipped before parsing; the lossy text keeps mutated inputs useful.
    invariants::fix_json(&String::from_utf8_lossy(data));
});
