//! The robustness invariants, in one place: the fuzz targets (`fuzz/fuzz_targets/*.rs`), the
//! property tests (`tests/properties.rs`) and the replay of fuzz regressions
//! (`tests/fuzz_regressions.rs`) all include this file, so they guard exactly the same promises.
//!
//! - `check` never panics, and every range it reports (primary span, labels, fix edits) lies inside
//!   the file and on character boundaries; a fix's edits do not overlap; every output format renders.
//! - `fix` either returns text that parses and that a second `fix` leaves unchanged, or refuses the
//!   file and returns it byte for byte.
//!
//! Checks run with explicit crate contexts (no manifest lookup on disk), so a fuzzer's working
//! folder never leaks into the result.

#![allow(dead_code)] // each includer uses a part

// `cargo fuzz run` without `--no-cfg-fuzzing` builds proc-macro2 under `cfg(fuzzing)`, where it records
// no span locations: every Rust span is `0..0`, and the Rust targets would fuzz a linter that cannot
// locate anything (and stop on what that breaks, not on bugs).
#[allow(unexpected_cfgs)] // only cargo-fuzz sets it
mod spans_have_locations {
    #[cfg(fuzzing)]
    compile_error!("build the fuzz targets with `cargo fuzz run --no-cfg-fuzzing` (docs/testing.md)");
}

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use mcp_lint::context::{CrateContext, Era, EraDecision, Sdk, SdkDependency};
use mcp_lint::diagnostic::Diagnostic;
use mcp_lint::engine::{FileReport, RunResult, check_file};
use mcp_lint::fix::{Mode, fix_text};
use mcp_lint::json::parse::parse_json_file;
use mcp_lint::prefilter::Prefilter;
use mcp_lint::rules;
use mcp_lint::rust::parse::parse_rust;
use mcp_lint::source::{FileKind, SourceFile};

/// The crate contexts every input is checked under: none (a lone file) and an rmcp crate that
/// serves both eras, which turns on SDK-specific paths and warning severities.
pub fn contexts() -> Vec<CrateContext> {
    let rmcp = SdkDependency { sdk: Sdk::Rmcp, crate_name: "rmcp".into(), version: Some("0.8.5".into()), via: None };
    vec![
        CrateContext::default(),
        CrateContext {
            name: Some("fuzzed".into()),
            sdks: vec![rmcp],
            era: EraDecision { era: Era::Dual, reason: "fuzzing".into() },
            ..CrateContext::default()
        },
    ]
}

/// What the fuzz target `name` does with one input: `fuzz/fuzz_targets/<name>.rs` calls the same
/// function, and the tests replay inputs through it (`tests/fuzz_regressions.rs`: the seeds and what
/// the fuzzers found). The targets read bytes lossily (non-UTF-8 files are skipped before parsing).
pub fn target(name: &str) -> fn(&str) {
    match name {
        "check_rust" => check_rust,
        "check_json" => check_json,
        "fix_rust" => fix_rust,
        "fix_json" => fix_json,
        _ => panic!("no fuzz target named {name}"),
    }
}

/// The file names a JSON input is read as: each picks a parser.
const JSON_NAMES: [&str; 3] = ["fuzz.json", "fuzz.jsonc", "fuzz.jsonl"];

/// Rust source → `check`, in every context.
pub fn check_rust(text: &str) {
    for ctx in contexts() {
        check_invariants("fuzz.rs", text, &ctx);
    }
}

/// JSON, JSONC and JSON Lines text → `check`, each input read as all three kinds, in every context.
pub fn check_json(text: &str) {
    for ctx in contexts() {
        for name in JSON_NAMES {
            check_invariants(name, text, &ctx);
        }
    }
}

/// Rust source → `fix` (safe and unsafe fixes), in every context.
pub fn fix_rust(text: &str) {
    for ctx in contexts() {
        fix_invariants("fuzz.rs", text, &ctx, Mode::Unsafe);
    }
}

/// JSON, JSONC and JSON Lines text → `fix`, in a lone file (JSON findings do not depend on the crate).
pub fn fix_json(text: &str) {
    let ctx = &contexts()[0];
    for name in JSON_NAMES {
        fix_invariants(name, text, ctx, Mode::Unsafe);
    }
}

/// Checks `text` as the file `name` (its extension picks the parser) with every rule and returns
/// the findings, after asserting every invariant of `check` on them.
pub fn check_invariants(name: &str, text: &str, ctx: &CrateContext) -> Vec<Diagnostic> {
    let path = Path::new(name);
    let scan = Prefilter::new(rules::ALL, false).scan(text.as_bytes(), FileKind::of(path));
    let file = SourceFile::new(path.to_path_buf(), name.to_owned(), text.to_owned());
    let diagnostics = check_file(&file, ctx, &scan.active, scan.role);
    if let Err(why) = ranges_are_sound(text, &diagnostics) {
        panic!("{name}: {why}\n--- input ({} bytes) ---\n{}", text.len(), preview(text));
    }
    render_all(file, ctx, diagnostics.clone());
    diagnostics
}

/// Every range a finding carries lies inside `text` on character boundaries; a fix's edits are
/// disjoint (the fix engine would otherwise drop some of them silently).
pub fn ranges_are_sound(text: &str, diagnostics: &[Diagnostic]) -> Result<(), String> {
    let sound = |what: &str, d: &Diagnostic, r: &Range<usize>| -> Result<(), String> {
        if r.start > r.end || r.end > text.len() {
            return Err(format!("{}: {what} {r:?} is outside the file (len {})", d.rule, text.len()));
        }
        if !text.is_char_boundary(r.start) || !text.is_char_boundary(r.end) {
            return Err(format!("{}: {what} {r:?} is not on character boundaries", d.rule));
        }
        Ok(())
    };
    for d in diagnostics {
        sound("primary range", d, &d.range)?;
        for l in &d.labels {
            sound("label range", d, &l.range)?;
        }
        if let Some(fix) = &d.fix {
            let mut edits: Vec<&Range<usize>> = fix.edits.iter().map(|e| &e.byte_range).collect();
            for r in &edits {
                sound("fix edit", d, r)?;
            }
            edits.sort_by_key(|r| (r.start, r.end));
            if let Some(w) = edits.windows(2).find(|w| w[0].end > w[1].start) {
                return Err(format!("{}: fix edits {:?} and {:?} overlap", d.rule, w[0], w[1]));
            }
        }
    }
    Ok(())
}

/// Renders the findings in every output format; a bad range panics in the renderer.
fn render_all(file: SourceFile, ctx: &CrateContext, diagnostics: Vec<Diagnostic>) {
    let result = RunResult {
        reports: vec![FileReport { file: Arc::new(file), crate_ctx: Arc::new(ctx.clone()), diagnostics }],
        files_scanned: 1,
        files_parsed: 1,
        ..RunResult::default()
    };
    // As into a file, and shortened to a narrow terminal (every range remapped).
    use mcp_lint::report::terminal::Width;
    for width in [Width::fallback(), Width { columns: 40, wrap_prose: true }] {
        let mut human = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
        mcp_lint::report::human::write(&mut human, &result, width).expect("the human report renders to memory");
    }
    serde_json::to_vec(&mcp_lint::report::json::findings(&result)).expect("the JSON report serializes");
}

/// What `fix` did with one input, for callers that count outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixOutcome {
    Unchanged,
    Fixed,
    Refused,
}

/// Fixes `text` as the file `name` and asserts the fix invariants: a refused file comes back byte
/// for byte; a changed file parses and is a fixed point of a second `fix` (which starts over from
/// the prefilter, as a second run of `mcp-lint fix` does).
pub fn fix_invariants(name: &str, text: &str, ctx: &CrateContext, mode: Mode) -> FixOutcome {
    let prefilter = Prefilter::new(rules::ALL, false);
    let fix = |input: &str| {
        let scan = prefilter.scan(input.as_bytes(), FileKind::of(Path::new(name)));
        fix_text(name.into(), name.to_owned(), input.to_owned(), ctx, &scan.active, scan.role, mode)
    };
    let fail = |why: String| -> ! { panic!("{name} ({mode:?}): {why}\n--- input ---\n{}", preview(text)) };
    let first = fix(text);
    if first.original != text {
        fail("the original text was not kept".into());
    }
    if first.dropped.is_some() {
        if first.fixed != text {
            fail("a refused fix changed the text".into());
        }
        return FixOutcome::Refused;
    }
    let remaining: Vec<Diagnostic> = first.remaining.iter().map(|(d, _)| d.clone()).collect();
    if let Err(why) = ranges_are_sound(&first.fixed, &remaining) {
        fail(format!("after fixing: {why}"));
    }
    if first.fixed == text {
        return FixOutcome::Unchanged;
    }
    if let Err(why) = parses(name, &first.fixed) {
        fail(format!("the fixed text does not parse: {why}\n--- fixed ---\n{}", preview(&first.fixed)));
    }
    let second = fix(&first.fixed);
    if second.dropped.is_some() || second.fixed != first.fixed {
        fail(format!(
            "a second fix changed the text again: {:?}\n--- first ---\n{}\n--- second ---\n{}",
            second.applied,
            preview(&first.fixed),
            preview(&second.fixed)
        ));
    }
    FixOutcome::Fixed
}

fn parses(name: &str, text: &str) -> Result<(), String> {
    match FileKind::of(Path::new(name)) {
        FileKind::Rust => {
            let r = parse_rust(text).map(|_| ()).map_err(|e| e.message);
            proc_macro2::extra::invalidate_current_thread_spans();
            r
        }
        kind => match parse_json_file(text, kind).errors.first() {
            Some(e) => Err(e.message.clone()),
            None => Ok(()),
        },
    }
}

/// The start of a failing input, enough to see it in a panic message.
fn preview(text: &str) -> String {
    let mut end = text.len().min(2000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}{}", &text[..end], if end < text.len() { " …" } else { "" })
}
