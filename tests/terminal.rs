//! The human report as a terminal shows it: long lines shortened to the width (`COLUMNS` here,
//! the terminal's own on a pseudo-terminal) with the carets under their text, and colour as
//! `--color`, NO_COLOR, CLICOLOR, CLICOLOR_FORCE and FORCE_COLOR say.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use unicode_width::UnicodeWidthStr;

#[path = "support/skip.rs"]
mod skip;

const COLOR_VARS: [&str; 5] = ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "COLUMNS"];

fn mcp_lint() -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    for var in COLOR_VARS {
        cmd.env_remove(var);
    }
    cmd
}

/// A client request first (so the transcript's direction is known), then a server request whose
/// `method` sits far into a long line: one `server-initiated-request` finding on line 2.
fn transcript(dir: &Path, before: &str, between: &str, after: &str) -> (PathBuf, String) {
    let first = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"summarize","arguments":{}}}"#;
    let second = format!(
        r#"{{"jsonrpc":"2.0","params":{{"messages":[{{"role":"user","content":{{"type":"text","text":"{before}"}}}}]}},"id":"s-1",{between}"method":"sampling/createMessage","tail":"{after}"}}"#
    );
    let path = dir.join("session.jsonl");
    std::fs::write(&path, format!("{first}\n{second}\n")).unwrap();
    (path, second)
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Checks one finding's frame: rows of the frame within `columns`, the locus column the original
/// one, and the primary carets exactly under `"sampling/createMessage"` (the secondary dashes under
/// `"id":"s-1"`), counted in display columns.
fn assert_frame_fits(report: &str, line: &str, columns: usize) {
    let frame: Vec<&str> =
        report.lines().filter(|l| l.starts_with("2 │") || l.trim_start().starts_with(['│', '┌'])).collect();
    for row in &frame {
        assert!(row.width() <= columns, "{} columns > {columns}:\n{row}\n{report}", row.width());
    }
    let method = "\"sampling/createMessage\"";
    let column = line[..line.find(method).unwrap()].chars().count() + 1;
    assert!(report.contains(&format!("session.jsonl:2:{column}\n")), "{report}");

    let source = frame.iter().position(|r| r.starts_with("2 │")).expect("the source row");
    let (source_row, carets) = (frame[source], frame[source + 1]);
    assert!(source_row.starts_with("2 │ ...") && source_row.ends_with("..."), "cut on both sides:\n{report}");
    let under = |text: &str, mark: char| {
        let at = source_row.find(text).unwrap_or_else(|| panic!("{text} shown:\n{report}"));
        let col = source_row[..at].width();
        let marked = carets;
        let start = marked.find(mark).unwrap_or_else(|| panic!("{mark} under it:\n{report}"));
        assert_eq!(marked[..start].width(), col, "{mark} starts under {text}:\n{report}");
        let run = marked[start..].chars().take_while(|&c| c == mark).count();
        assert_eq!(run, text.width(), "as many {mark} as {text} is wide:\n{report}");
    };
    under(method, '^');
    under("\"id\":\"s-1\"", '-');
}

#[test]
fn a_300_column_line_fits_100_columns_with_the_carets_under_the_span() {
    let dir = tempfile::tempdir().unwrap();
    let (path, line) = transcript(dir.path(), &"x".repeat(150), "", &"y".repeat(60));
    assert!(line.len() >= 300 && line.find("sampling").unwrap() > 200, "{}", line.len());
    let out = mcp_lint().env("COLUMNS", "100").args(["check", "-q"]).arg(&path).output().unwrap();
    let report = stdout(&out);
    assert!(report.contains("server-initiated-request"), "{report}");
    assert_frame_fits(&report, &line, 100);
}

#[test]
fn wide_and_multi_byte_characters_keep_the_carets_aligned() {
    let dir = tempfile::tempdir().unwrap();
    // CJK and an emoji (two columns each) before and between the labels, `é` (two bytes) after.
    let (path, line) =
        transcript(dir.path(), &"日本語のテキスト🙂".repeat(12), r#""note":"日本語🙂","#, &"é".repeat(80));
    for columns in 112..=124 {
        let out = mcp_lint().env("COLUMNS", columns.to_string()).args(["check", "-q"]).arg(&path).output().unwrap();
        assert_frame_fits(&stdout(&out), &line, columns);
    }
}

#[test]
fn a_line_that_fits_is_printed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (path, line) = transcript(dir.path(), "short", "", "");
    let out = mcp_lint().env("COLUMNS", "200").args(["check", "-q"]).arg(&path).output().unwrap();
    assert!(stdout(&out).contains(&format!("2 │ {line}\n")), "{}", stdout(&out));
}

fn coloured(configure: impl FnOnce(&mut Command) -> &mut Command) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = transcript(dir.path(), "short", "", "");
    let mut cmd = mcp_lint();
    cmd.arg("check");
    configure(&mut cmd);
    let out = cmd.arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    stdout(&out).contains('\u{1b}')
}

#[test]
fn a_pipe_gets_colour_only_when_asked() {
    assert!(!coloured(|c| c));
    assert!(coloured(|c| c.args(["--color", "always"])));
    assert!(coloured(|c| c.args(["--color", "always"]).env("NO_COLOR", "1").env("CLICOLOR", "0")));
    assert!(!coloured(|c| c.args(["--color", "never"]).env("FORCE_COLOR", "1").env("CLICOLOR_FORCE", "1")));
    assert!(coloured(|c| c.env("FORCE_COLOR", "1")));
    assert!(coloured(|c| c.env("CLICOLOR_FORCE", "1")));
    assert!(!coloured(|c| c.env("CLICOLOR_FORCE", "0")));
    assert!(!coloured(|c| c.env("FORCE_COLOR", "")));
}

#[test]
fn no_color_counts_only_when_not_empty() {
    assert!(coloured(|c| c.env("FORCE_COLOR", "1").env("NO_COLOR", "")));
    assert!(!coloured(|c| c.env("FORCE_COLOR", "1").env("NO_COLOR", "1")));
}

#[test]
fn the_machine_formats_and_report_files_never_get_colour() {
    assert!(!coloured(|c| c.args(["--color", "always", "--format", "json"])));
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = transcript(dir.path(), "short", "", "");
    let report = dir.path().join("report.txt");
    mcp_lint().args(["check", "--color", "always", "-o"]).arg(&report).arg(&path).assert().code(1);
    assert!(!std::fs::read_to_string(&report).unwrap().contains('\u{1b}'));
}

#[test]
fn a_bad_color_value_is_a_usage_error() {
    let out = mcp_lint().args(["check", "--color", "sometimes", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("auto"), "{out:?}");
}

/// Runs the check in a real pseudo-terminal of 100 columns through util-linux's `script`
/// (bsdutils, part of every Debian system), with `env` set in it first.
fn on_a_terminal(path: &Path, env: &str) -> Option<String> {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        skip::skipped("`script` (util-linux) is not installed, so no pseudo-terminal");
        return None;
    }
    let bin = assert_cmd::cargo::cargo_bin("mcp-lint");
    let inner = format!("stty rows 40 cols 100; {env} '{}' check '{}'", bin.display(), path.display());
    let mut cmd = std::process::Command::new("script");
    for var in COLOR_VARS {
        cmd.env_remove(var);
    }
    let out = cmd.env("TERM", "xterm-256color").args(["-qec", &inner, "/dev/null"]).output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"))
}

fn without_escapes(text: &str) -> String {
    regex::Regex::new("\u{1b}\\[[0-9;]*m").unwrap().replace_all(text, "").into_owned()
}

#[test]
fn on_a_real_terminal_the_width_is_the_terminals_and_colour_is_on() {
    let dir = tempfile::tempdir().unwrap();
    let (path, line) = transcript(dir.path(), &"x".repeat(150), "", &"y".repeat(60));
    let Some(screen) = on_a_terminal(&path, "") else { return };
    assert!(screen.contains('\u{1b}'), "colour on a terminal:\n{screen}");
    let plain = without_escapes(&screen);
    assert_frame_fits(&plain, &line, 100);
    // On a terminal the messages and notes are wrapped too: every row fits.
    for row in plain.lines() {
        assert!(row.width() <= 100, "{} columns:\n{row}\n{plain}", row.width());
    }
    let empty = on_a_terminal(&path, "NO_COLOR=").unwrap();
    assert!(empty.contains('\u{1b}'), "an empty NO_COLOR does not count:\n{empty}");
    for env in ["NO_COLOR=1", "CLICOLOR=0"] {
        let off = on_a_terminal(&path, env).unwrap();
        assert!(!off.contains('\u{1b}'), "{env}:\n{off}");
    }
}
