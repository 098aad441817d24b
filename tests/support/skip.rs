//! Tests that drive a real tool (pre-commit, shellcheck, Neovim, the SARIF multitool, VS Code in
//! code-server, rustfmt, ...) skip when the tool is not installed, and say so where a person running
//! `cargo test` sees it. libtest captures what a passing test prints (`eprintln!` included), so the
//! note goes straight to the process's standard error, one line per skip:
//!
//! ```text
//! SKIPPED tests/precommit.rs (a_commit_with_a_finding_in_any_kind_fails_and_a_clean_one_passes): pre-commit not found (...)
//! ```
//!
//! Where a tool is required, a missing one fails the test instead: `.ci/run` installs each tool and
//! sets `MCP_LINT_REQUIRE_<TOOL>=1`.
//!
//! Use: `#[path = "support/skip.rs"] mod skip;`, then where the tool turns out missing,
//! `skip::missing_tool("MCP_LINT_REQUIRE_<TOOL>", &reason); return;` (or `skip::skipped(&reason)`
//! for what nothing can require, such as running as root).

#![allow(dead_code)] // each includer uses a part

use std::io::Write;

/// Whether the environment variable `require` asks for the tool: set to anything but `` or `0`.
pub fn required(require: &str) -> bool {
    std::env::var_os(require).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The calling test cannot drive its tool, for `reason` (what is missing and how to get it): fails
/// when `require` (`MCP_LINT_REQUIRE_<TOOL>`) is set, else says the test was skipped; the caller
/// then returns.
#[track_caller]
pub fn missing_tool(require: &str, reason: &str) {
    if required(require) {
        panic!("{reason}, and {require} requires it");
    }
    skipped(reason);
}

/// Says, past libtest's capture, that the calling test did not run what it is for, and why.
#[track_caller]
pub fn skipped(reason: &str) {
    let file = std::panic::Location::caller().file();
    // libtest runs each test on a thread named after it (on `main` with `--test-threads=1` only
    // when it runs one at a time without threads).
    let test = std::thread::current().name().filter(|n| *n != "main").map(|n| format!(" ({n})")).unwrap_or_default();
    let line = format!("SKIPPED {file}{test}: {reason}\n");
    // One write of a whole line, so tests running in parallel do not cut into it.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
