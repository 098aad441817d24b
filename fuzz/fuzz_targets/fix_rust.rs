//! Rust source → `fix` (safe and unsafe fixes): the output parses and is a fixed point of a second
//! `fix`, or the file is refused and returned unchanged.
//! The body is `tests/support/invariants.rs`'s `fix_rust`, which `cargo test` runs on the seeds too.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    // Files that are not UTF-8 are skipped before parsing; the lossy text keeps mutated inputs useful.
    invariants::fix_rust(&String::from_utf8_lossy(data));
});
