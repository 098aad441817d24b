//! JSON, JSONC and JSON Lines text → `fix`: the same invariants as `fix_rust`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_lint::fix::Mode;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ctx = &invariants::contexts()[0];
    for name in ["fuzz.json", "fuzz.jsonc", "fuzz.jsonl"] {
        invariants::fix_invariants(name, &text, ctx, Mode::Unsafe);
    }
});
