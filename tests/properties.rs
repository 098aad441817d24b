//! Property tests: the fuzzers' invariants (see `tests/support/invariants.rs`) on generated
//! programs, so `cargo test` keeps guarding them. Inputs are the fixtures, mutated: byte and token
//! ranges deleted, duplicated or moved, other fixtures spliced in, and text that trips up offset
//! arithmetic inserted (multi-byte characters, CRLF line ends, a BOM, stray quotes and brackets).

#[path = "support/invariants.rs"]
mod invariants;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use mcp_lint::fix::Mode;
use proptest::prelude::*;

/// Every Rust and JSON fixture: (file name, bytes).
fn fixtures() -> &'static [(String, Vec<u8>)] {
    static FIXTURES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let mut out = Vec::new();
        collect(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"), &mut out);
        out.sort();
        assert!(out.len() >= 20, "the fixtures are missing");
        out
    })
}

fn collect(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if mcp_lint::source::FileKind::is_scanned(&path) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read(&path).unwrap()));
        }
    }
}

fn fixtures_where(rust: bool) -> Vec<usize> {
    (0..fixtures().len()).filter(|&i| fixtures()[i].0.ends_with(".rs") == rust).collect()
}

/// Text inserted at random places: each breaks a naive byte/char or line computation somewhere.
const AWKWARD: &[&str] = &[
    "é",
    "日本語",
    "🦀",
    "\u{200b}",
    "\u{feff}",
    "\r\n",
    "\r",
    "\n\n",
    "\t",
    "\"",
    "'",
    "\\",
    "r#\"",
    "\"#",
    "/*",
    "*/",
    "//",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    "#[",
    "!",
    "json!({",
    "\"roots/list\"",
    "\"listChanged\": true",
    "list_roots()",
    ".enable_roots_list_changed()",
    "peer_info()",
    "\u{0}",
    // Suppression comments: their own parsing, extents and the fix that deletes unused ones.
    "// mcp-lint: allow(roots-list-changed)\n",
    "// mcp-lint: allow(server-roots-request, no-such-rule) because\n",
    " // mcp-lint: allow(roots-list-changed, retry-reuses-request-id)",
    "// mcp-lint: allow-file(inferred-client-capabilities)\r\n",
    "/* mcp-lint: allow(roots-list-changed) */",
    "// mcp-lint: allow(",
    "// mcp-lint: allow(é)\n",
];

#[derive(Debug, Clone)]
enum Mutation {
    /// Delete `len` bytes at a fraction of the text (may cut a character: the text is then read
    /// lossily, as the fuzzers do).
    DeleteBytes {
        at: f64,
        len: usize,
    },
    /// Copy a byte range to another place.
    DuplicateBytes {
        from: f64,
        len: usize,
        to: f64,
    },
    /// Delete a run of tokens (words, spaces, or single punctuation characters).
    DeleteTokens {
        at: f64,
        count: usize,
    },
    /// Repeat a run of tokens right after itself.
    DuplicateTokens {
        at: f64,
        count: usize,
    },
    Insert {
        at: f64,
        text: &'static str,
    },
    /// Insert a slice of another fixture.
    Splice {
        other: usize,
        from: f64,
        len: usize,
        to: f64,
    },
    /// Every line end becomes CRLF.
    Crlf,
    Bom,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let frac = 0.0..1.0f64;
    prop_oneof![
        (frac.clone(), 1..64usize).prop_map(|(at, len)| Mutation::DeleteBytes { at, len }),
        (frac.clone(), 1..256usize, frac.clone()).prop_map(|(from, len, to)| Mutation::DuplicateBytes {
            from,
            len,
            to
        }),
        (frac.clone(), 1..12usize).prop_map(|(at, count)| Mutation::DeleteTokens { at, count }),
        (frac.clone(), 1..12usize).prop_map(|(at, count)| Mutation::DuplicateTokens { at, count }),
        (frac.clone(), prop::sample::select(AWKWARD)).prop_map(|(at, text)| Mutation::Insert { at, text }),
        (0..1000usize, frac.clone(), 1..512usize, frac).prop_map(|(other, from, len, to)| Mutation::Splice {
            other,
            from,
            len,
            to
        }),
        Just(Mutation::Crlf),
        Just(Mutation::Bom),
    ]
}

fn offset(bytes: &[u8], at: f64) -> usize {
    ((bytes.len() as f64) * at) as usize
}

/// Token boundaries: runs of word characters, runs of whitespace, and single other characters.
fn token_starts(bytes: &[u8]) -> Vec<usize> {
    let class = |b: u8| {
        if b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 {
            0
        } else if b.is_ascii_whitespace() {
            1
        } else {
            2
        }
    };
    let mut starts = vec![0];
    for i in 1..bytes.len() {
        if class(bytes[i]) != class(bytes[i - 1]) || class(bytes[i]) == 2 {
            starts.push(i);
        }
    }
    starts.push(bytes.len());
    starts
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    match *m {
        Mutation::DeleteBytes { at, len } => {
            let start = offset(bytes, at);
            let end = (start + len).min(bytes.len());
            bytes.drain(start..end);
        }
        Mutation::DuplicateBytes { from, len, to } => {
            let start = offset(bytes, from);
            let piece = bytes[start..(start + len).min(bytes.len())].to_vec();
            let to = offset(bytes, to);
            bytes.splice(to..to, piece);
        }
        Mutation::DeleteTokens { at, count } | Mutation::DuplicateTokens { at, count } => {
            let starts = token_starts(bytes);
            let first = ((starts.len() - 1) as f64 * at) as usize;
            let last = (first + count).min(starts.len() - 1);
            let range = starts[first]..starts[last];
            if matches!(m, Mutation::DeleteTokens { .. }) {
                bytes.drain(range);
            } else {
                let piece = bytes[range.clone()].to_vec();
                bytes.splice(range.end..range.end, piece);
            }
        }
        Mutation::Insert { at, text } => {
            let at = offset(bytes, at);
            bytes.splice(at..at, text.bytes());
        }
        Mutation::Splice { other, from, len, to } => {
            let source = &fixtures()[other % fixtures().len()].1;
            let start = offset(source, from);
            let piece = &source[start..(start + len).min(source.len())];
            let to = offset(bytes, to);
            bytes.splice(to..to, piece.iter().copied());
        }
        Mutation::Crlf => {
            let text = String::from_utf8_lossy(bytes).replace("\r\n", "\n").replace('\n', "\r\n");
            *bytes = text.into_bytes();
        }
        Mutation::Bom => drop(bytes.splice(0..0, "\u{feff}".bytes())),
    }
}

/// A fixture with mutations applied, as the text a check sees (non-UTF-8 is read lossily).
fn mutated(rust: bool) -> impl Strategy<Value = (String, String)> {
    let pool = fixtures_where(rust);
    (prop::sample::select(pool), prop::collection::vec(mutation(), 1..6)).prop_map(|(i, mutations)| {
        let (name, original) = &fixtures()[i];
        let mut bytes = original.clone();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        (name.clone(), String::from_utf8_lossy(&bytes).into_owned())
    })
}

/// A folder with no `Cargo.toml` above it, so `check_text` sees a lone file.
fn lone_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

fn check_through_check_text(name: &str, text: &str) {
    let path: PathBuf = lone_dir().join(name);
    let diagnostics = mcp_lint::engine::check_text(&path, text.to_owned());
    if let Err(why) = invariants::ranges_are_sound(text, &diagnostics) {
        panic!("check_text({name}): {why}\n{text:?}");
    }
}

/// The JSON kinds a JSON fixture's text is also read as (a transcript line, a JSONC config).
fn json_names(name: &str) -> [String; 3] {
    let stem = name.split('.').next().unwrap_or("x");
    [format!("{stem}.json"), format!("{stem}.jsonc"), format!("{stem}.jsonl")]
}

/// Few cases by default so `cargo test` stays fast; `PROPTEST_CASES=5000` runs a deeper search.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    ProptestConfig { cases, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_rust_keeps_check_ranges_exact((name, text) in mutated(true)) {
        check_through_check_text(&name, &text);
        for ctx in invariants::contexts() {
            invariants::check_invariants(&name, &text, &ctx);
        }
    }

    #[test]
    fn mutated_rust_fix_parses_and_is_a_fixed_point((name, text) in mutated(true)) {
        let ctx = &invariants::contexts()[1];
        invariants::fix_invariants(&name, &text, ctx, Mode::Safe);
        invariants::fix_invariants(&name, &text, ctx, Mode::Unsafe);
    }

    #[test]
    fn mutated_json_keeps_check_ranges_exact((name, text) in mutated(false)) {
        for name in json_names(&name) {
            check_through_check_text(&name, &text);
            invariants::check_invariants(&name, &text, &invariants::contexts()[0]);
        }
    }

    #[test]
    fn mutated_json_fix_parses_and_is_a_fixed_point((name, text) in mutated(false)) {
        for name in json_names(&name) {
            invariants::fix_invariants(&name, &text, &invariants::contexts()[0], Mode::Unsafe);
        }
    }
}

/// The mutations do reach the fix engine: over a fixed sample, some inputs are still fixed (the
/// properties above would pass vacuously if every mutant were refused or left unchanged).
#[test]
fn mutants_still_exercise_fixes() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let ctx = &invariants::contexts()[1];
    let fixed = (0..400).any(|_| {
        let (name, text) = mutated(true).new_tree(&mut runner).unwrap().current();
        invariants::fix_invariants(&name, &text, ctx, Mode::Unsafe) == invariants::FixOutcome::Fixed
    });
    assert!(fixed, "none of 400 mutants of the Rust fixtures was fixed");
}
