//! Rust source → `fix` (safe and unsafe fixes): the output parses and is a fixed point of a second
//! `fix`, or the file is refused and returned unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_lint::fix::Mode;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for ctx in invariants::contexts() {
        invariants::fix_invariants("fuzz.rs", &text, &ctx, Mode::Unsafe);
    }
});
