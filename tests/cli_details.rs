//! Details of the CLI as users meet them: "did you mean" for a misspelt rule or key, no "no
//! findings" when a path failed, plurals, `explain` on a terminal, and `--statistics` counting
//! the fixes the report shows.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

#[path = "support/cli.rs"]
mod cli;
use cli::{mcp_lint, write};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A client capability declaration with the removed flag: one `roots-list-changed` finding.
const CAPS_JSON: &str = "{\"capabilities\": {\"roots\": {\"listChanged\": true}}}\n";

#[test]
fn misspelt_rule_names_get_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["check", "--select", "server-roots-requests", "."][..],
        &["check", "--ignore", "roots-listchanged", "."],
        &["fix", "--select", "server-roots-requests", "."],
        &["explain", "server-roots-requests"],
    ] {
        let out = mcp_lint().current_dir(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let meant = if args.contains(&"roots-listchanged") { "roots-list-changed" } else { "server-roots-request" };
        assert!(stderr(&out).contains(&format!("; did you mean `{meant}`?")), "{args:?}: {}", stderr(&out));
    }
    // Nothing close: the list is where to look.
    let out = mcp_lint().args(["explain", "frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`mcp-lint rules` lists them") && !stderr(&out).contains("did you mean"));
}

#[test]
fn misspelt_configuration_keys_rules_and_levels_get_a_suggestion() {
    for (config, expected) in [
        ("exlcude = [\"x\"]\n", "mcp-lint.toml:1:1: unknown field `exlcude`"),
        ("[severity]\nretry-reuse-request-id = \"warning\"\n", "did you mean `retry-reuses-request-id`?"),
        ("[severity]\nroots-list-changed = \"warn\"\n", "unknown variant `warn`"),
        ("tests = \"of\"\n", "unknown variant `of`"),
        ("era = \"duel\"\n", "did you mean `dual`?"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "mcp-lint.toml", config);
        write(dir.path(), "caps.json", CAPS_JSON);
        let out = mcp_lint().current_dir(dir.path()).args(["check", "."]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{config}");
        assert!(stderr(&out).contains(expected), "{config}: {}", stderr(&out));
        let meant = match config {
            c if c.starts_with("exlcude") => Some("exclude"),
            c if c.contains("\"warn\"") => Some("warning"),
            c if c.contains("\"of\"") => Some("off"),
            _ => None,
        };
        if let Some(meant) = meant {
            assert!(stderr(&out).contains(&format!("did you mean `{meant}`?")), "{config}: {}", stderr(&out));
        }
    }
}

#[test]
fn a_misspelt_rule_in_a_suppression_gets_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "caps.jsonc", &format!("// mcp-lint: allow(roots-list-chnaged) a test double\n{CAPS_JSON}"));
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).output().unwrap();
    let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unused = findings.as_array().unwrap().iter().find(|f| f["rule"] == "unused-suppression").unwrap();
    assert_eq!(
        unused["help"],
        "did you mean `roots-list-changed` for `roots-list-chnaged`? `mcp-lint rules` lists the rules"
    );
}

#[test]
fn a_path_that_failed_is_not_called_no_findings() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "clean.rs", "fn main() {}\n");
    for args in [&["check", "no-such-folder"][..], &["check", "no-such-folder", "clean.rs"]] {
        let out = mcp_lint().current_dir(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!stdout(&out).contains("no findings"), "{args:?}: {}", stdout(&out));
        assert!(stderr(&out).contains("no-such-folder: cannot read"), "{}", stderr(&out));
    }
    // Without a failed path the line is there.
    let out = mcp_lint().current_dir(dir.path()).args(["check", "clean.rs"]).output().unwrap();
    assert_eq!(stdout(&out), "mcp-lint: no findings (1 file checked, 0 parsed)\n");
}

#[test]
fn counts_are_singular_for_one() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "caps.json", CAPS_JSON);
    let check = |args: &[&str]| {
        mcp_lint()
            .current_dir(dir.path())
            .args(["check", "--select", "roots-list-changed"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = check(&["caps.json"]);
    assert!(
        stdout(&out).ends_with("mcp-lint: 1 error, 0 warnings in 1 file (1 file checked, 1 parsed)\n"),
        "{}",
        stdout(&out)
    );

    let baseline = dir.path().join("baseline.json");
    let out = check(&["--write-baseline", baseline.to_str().unwrap(), "."]);
    assert!(stderr(&out).starts_with("wrote 1 finding to the baseline"), "{}", stderr(&out));
    let out = check(&["--baseline", baseline.to_str().unwrap(), "."]);
    assert!(stderr(&out).contains("note: 1 finding already in the baseline was not reported"), "{}", stderr(&out));

    // The fix is safe only where the era is known to be 2026-07-28 alone.
    write(dir.path(), "mcp-lint.toml", "era = \"2026-07-28\"\n");
    let fix = ["fix", "--allow-no-vcs", "--select", "roots-list-changed", "caps.json"];
    let out = mcp_lint().current_dir(dir.path()).args(fix).output().unwrap();
    assert!(stderr(&out).starts_with("fixed 1 finding in 1 file\n"), "{}", stderr(&out));
}

#[test]
fn explain_renders_for_reading_and_keeps_markdown_for_pipes() {
    // Into a pipe: the page as written.
    let raw = mcp_lint().args(["explain", "roots-list-changed"]).output().unwrap();
    assert!(stdout(&raw).starts_with("# roots-list-changed\n") && stdout(&raw).contains("```rust"));
    let markdown = mcp_lint().args(["explain", "roots-list-changed", "--format", "markdown"]).output().unwrap();
    assert_eq!(stdout(&markdown), stdout(&raw));

    let text =
        mcp_lint().env("COLUMNS", "72").args(["explain", "roots-list-changed", "--format", "text"]).output().unwrap();
    let text = stdout(&text);
    assert!(text.starts_with("roots-list-changed\n==================\n"), "{text}");
    assert!(text.contains("\nWhat it finds\n-------------\n") && !text.contains("```"), "{text}");
    assert!(text.contains("\n    use rmcp::ClientHandler;\n"), "code is indented: {text}");
    let prose = text.lines().filter(|l| !l.starts_with("    ") && !l.starts_with('|'));
    for line in prose {
        assert!(line.chars().count() <= 72 || !line.trim().contains(' '), "{line}");
    }
}

/// On a real terminal (a pseudo-terminal through util-linux's `script`), `explain` renders.
#[test]
fn explain_on_a_terminal_is_rendered() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed, so no pseudo-terminal");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("mcp-lint");
    let inner = format!("stty rows 40 cols 90; NO_COLOR=1 '{}' explain roots-list-changed", bin.display());
    let out =
        std::process::Command::new("script").env("TERM", "xterm").args(["-qec", &inner, "/dev/null"]).output().unwrap();
    let screen = stdout(&out).replace("\r\n", "\n");
    assert!(screen.starts_with("roots-list-changed\n=================="), "{screen}");
    assert!(!screen.contains("```") && !screen.contains("\n## "), "{screen}");
}

#[test]
fn statistics_count_the_fixes_the_report_shows() {
    let report = mcp_lint().current_dir(repo()).args(["check", "--format", "json", "fixtures/demo"]).output().unwrap();
    let findings: Value = serde_json::from_slice(&report.stdout).unwrap();
    let stats = mcp_lint()
        .current_dir(repo())
        .args(["check", "--statistics", "--format", "json", "fixtures/demo"])
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    for row in stats.as_array().unwrap() {
        let rule = row["rule"].as_str().unwrap();
        let fixes = |applicability: &str| {
            findings
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["rule"] == rule && f["fix"]["applicability"] == applicability)
                .count() as u64
        };
        assert_eq!(row["safe_fixes"].as_u64(), Some(fixes("safe")), "{rule}");
        assert_eq!(row["unsafe_fixes"].as_u64(), Some(fixes("unsafe")), "{rule}");
    }
    let roots = stats.as_array().unwrap().iter().find(|r| r["rule"] == "server-roots-request").unwrap();
    assert_eq!(roots["unsafe_fixes"], 1, "the roots codemod's fix is counted");
}
