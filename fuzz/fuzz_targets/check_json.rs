//! JSON, JSONC and JSON Lines text → `check`: the same invariants as `check_rust`, each input read
//! as all three kinds.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for ctx in invariants::contexts() {
        for name in ["fuzz.json", "fuzz.jsonc", "fuzz.jsonl"] {
            invariants::check_invariants(name, &text, &ctx);
        }
    }
});
