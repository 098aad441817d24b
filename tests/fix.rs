//! `mcp-lint fix` as users run it: what it writes, what it refuses, and that a second run is a no-op.

use std::path::Path;
use std::process::Command as Std;

use assert_cmd::Command;
use predicates::prelude::*;

#[path = "support/skip.rs"]
mod skip;

fn mcp_lint(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Std::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// Says the code around it targets MCP 2026-07-28 alone. Without it nothing would tell (no
/// crate, no protocol version), and fixes that change what older peers see would be unsafe.
const TARGETS_2026: (&str, &str) = ("mcp-lint.toml", "era = \"2026-07-28\"\n");

/// A git work tree with these files committed, and `TARGETS_2026`.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files.iter().chain([&TARGETS_2026]) {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "init"]);
    dir
}

const CAPS: &str = "{\n  \"capabilities\": {\n    \"roots\": { \"listChanged\": true },\n    \"tools\": { \"listChanged\": true }\n  }\n}\n";

const CLIENT: &str = r#"use rmcp::model::{ClientCapabilities, ClientInfo};

fn client_info() -> ClientInfo {
    let capabilities = ClientCapabilities::builder()
        .enable_roots()
        .enable_roots_list_changed()
        .build();
    ClientInfo { capabilities, ..Default::default() }
}
"#;

#[test]
fn fixes_json_and_rust_then_is_a_no_op() {
    let dir = repo(&[("client-capabilities.json", CAPS), ("src/client.rs", CLIENT)]);
    // Roots stay declared (deprecated, but only a person can decide to drop them): reported as left.
    mcp_lint(dir.path()).args(["fix", "."]).assert().code(1).stderr(
        predicate::str::contains("fixed 2 findings in 2 files")
            .and(predicate::str::contains("left: client-capabilities.json:3:"))
            .and(predicate::str::contains("deprecated-feature (no automatic fix; needs a person)")),
    );
    let json = std::fs::read_to_string(dir.path().join("client-capabilities.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["capabilities"]["roots"], serde_json::json!({}));
    assert_eq!(v["capabilities"]["tools"]["listChanged"], true);
    let rust = std::fs::read_to_string(dir.path().join("src/client.rs")).unwrap();
    assert!(!rust.contains("enable_roots_list_changed"));
    assert!(rust.contains(".enable_roots()\n        .build()"), "{rust}");
    syn::parse_file(&rust).unwrap();

    git(dir.path(), &["commit", "-qam", "fixed"]);
    mcp_lint(dir.path()).args(["fix", "."]).assert().code(1).stderr(predicate::str::contains("fixed 0 findings"));
    mcp_lint(dir.path()).args(["check", "--select", "roots-list-changed", "."]).assert().code(0);
}

#[test]
fn diff_shows_exactly_what_fix_writes_and_writes_nothing() {
    let dir = repo(&[("src/client.rs", CLIENT)]);
    let out = mcp_lint(dir.path()).args(["fix", "--select", "roots-list-changed", "--diff", "."]).assert().code(1);
    let diff = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(diff.contains("--- a/src/client.rs") && diff.contains("-        .enable_roots_list_changed()"), "{diff}");
    assert_eq!(std::fs::read_to_string(dir.path().join("src/client.rs")).unwrap(), CLIENT);

    // Applying the diff's one removed line is what `fix` writes.
    mcp_lint(dir.path()).args(["fix", "--select", "roots-list-changed", "."]).assert().code(0);
    let fixed = std::fs::read_to_string(dir.path().join("src/client.rs")).unwrap();
    assert_eq!(fixed, CLIENT.replace("        .enable_roots_list_changed()\n", ""));
    mcp_lint(dir.path())
        .args(["fix", "--select", "roots-list-changed", "--diff", "."])
        .assert()
        .code(0)
        .stdout(predicate::str::is_empty());
}

/// Where nothing tells which revisions the code serves, dropping the flag is no safe fix: a legacy
/// client's servers would no longer be told that roots change. `--unsafe-fixes` applies it.
#[test]
fn no_safe_fix_older_peers_would_see_where_nothing_tells_the_era() {
    let dir = repo(&[("src/client.rs", CLIENT)]);
    std::fs::remove_file(dir.path().join(TARGETS_2026.0)).unwrap();
    git(dir.path(), &["commit", "-qam", "era unknown"]);
    mcp_lint(dir.path())
        .args(["fix", "--select", "roots-list-changed", "."])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("fixed 0 findings").and(predicate::str::contains("--unsafe-fixes")));
    assert_eq!(std::fs::read_to_string(dir.path().join("src/client.rs")).unwrap(), CLIENT);
    mcp_lint(dir.path()).args(["fix", "--select", "roots-list-changed", "--unsafe-fixes", "."]).assert().code(0);
    assert!(!std::fs::read_to_string(dir.path().join("src/client.rs")).unwrap().contains("enable_roots_list_changed"));
}

#[test]
fn dirty_files_are_refused_unless_allowed() {
    let dir = repo(&[("caps.json", "{}\n")]);
    std::fs::write(dir.path().join("caps.json"), CAPS).unwrap();
    mcp_lint(dir.path())
        .args(["fix", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("uncommitted changes").and(predicate::str::contains("caps.json")));
    assert_eq!(std::fs::read_to_string(dir.path().join("caps.json")).unwrap(), CAPS);
    mcp_lint(dir.path()).args(["fix", "--select", "roots-list-changed", "--allow-dirty", "."]).assert().code(0);
    assert!(!std::fs::read_to_string(dir.path().join("caps.json")).unwrap().contains("\"listChanged\": true },"));
}

#[test]
fn files_outside_version_control_need_allow_no_vcs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("caps.json"), CAPS).unwrap();
    std::fs::write(dir.path().join(TARGETS_2026.0), TARGETS_2026.1).unwrap();
    mcp_lint(dir.path())
        .args(["fix", "caps.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not in a git work tree").and(predicate::str::contains("caps.json")));
    assert_eq!(std::fs::read_to_string(dir.path().join("caps.json")).unwrap(), CAPS);
    mcp_lint(dir.path())
        .args(["fix", "--select", "roots-list-changed", "--allow-no-vcs", "caps.json"])
        .assert()
        .code(0);
}

#[test]
fn read_only_files_are_refused_and_left_unchanged() {
    use std::os::unix::fs::PermissionsExt;
    let dir = repo(&[("caps.json", CAPS)]);
    let path = dir.path().join("caps.json");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    mcp_lint(dir.path()).args(["fix", "."]).assert().code(2).stderr(predicate::str::contains("read-only"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CAPS);
}

#[test]
fn crlf_and_bom_survive() {
    let text = format!("\u{feff}{}", CLIENT.replace('\n', "\r\n"));
    let dir = repo(&[("src/client.rs", &text)]);
    mcp_lint(dir.path()).args(["fix", "--select", "roots-list-changed", "."]).assert().code(0);
    let fixed = std::fs::read_to_string(dir.path().join("src/client.rs")).unwrap();
    assert!(fixed.starts_with('\u{feff}'));
    assert!(!fixed.contains("enable_roots_list_changed"));
    assert!(!fixed.replace("\r\n", "").contains('\n'), "a bare LF crept in: {fixed:?}");
}

/// A crate file that is `rustfmt`-clean, where removing `.enable_roots_list_changed()` lets
/// rustfmt join the chain on one line: everything after it moves up a line, and on line 5 left.
const REFLOWED: &str = r#"use rmcp::model::{ClientCapabilities, ClientInfo};
use rmcp::{RoleServer, service::RequestContext};

fn client_info() -> ClientInfo {
    let capabilities = ClientCapabilities::builder()
        .enable_roots()
        .enable_roots_list_changed()
        .build();
    ClientInfo {
        capabilities,
        ..Default::default()
    }
}

async fn count_roots(context: RequestContext<RoleServer>) -> usize {
    let roots = dbg!(context.peer.list_roots().await.unwrap());
    roots.roots.len()
}
"#;

/// `fix`'s `left:` lines: (file:line:column, rule, why).
fn left_lines(stderr: &str) -> Vec<(String, String, String)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("left: "))
        .map(|l| {
            let (at_rule, why) = l.split_once(" (").unwrap();
            let (at, rule) = at_rule.rsplit_once(": ").unwrap();
            (at.to_owned(), rule.to_owned(), why.strip_suffix(')').unwrap().to_owned())
        })
        .collect()
}

/// Where an independent `check` of the written files finds each finding: (file:line:column, rule).
fn check_positions(dir: &Path) -> Vec<(String, String)> {
    let out = mcp_lint(dir).args(["check", "--format", "json", "."]).output().unwrap();
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut at: Vec<(String, String)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let start = &f["range"]["start"];
            (format!("{}:{}:{}", f["path"].as_str().unwrap(), start["line"], start["column"]), f["rule"].to_string())
        })
        .map(|(at, rule)| (at, rule.trim_matches('"').to_owned()))
        .collect();
    at.sort();
    at
}

/// What `fix` says is left, and why, is read in the text it wrote, laid out by rustfmt or not:
/// the positions are those an independent `check` of the written file reports, and the reasons
/// (which quote the code at a finding) are the same either way.
#[test]
fn leftovers_are_placed_in_the_written_text_with_and_without_rustfmt() {
    let rustfmt_runs =
        std::process::Command::new("rustfmt").arg("--version").output().is_ok_and(|o| o.status.success());
    if !rustfmt_runs {
        skip::skipped("rustfmt is not installed (rustup component add rustfmt): only the run without it is checked");
    }
    let manifest =
        "[package]\nname = \"roots-user\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nrmcp = \"0.8\"\n";
    let mut reasons = Vec::new();
    for with_rustfmt in [false, true].into_iter().filter(|on| !on || rustfmt_runs) {
        let dir = repo(&[("Cargo.toml", manifest), ("src/lib.rs", REFLOWED)]);
        let mut fix = mcp_lint(dir.path());
        if !with_rustfmt {
            fix.env("RUSTFMT", dir.path().join("no-rustfmt-here"));
        }
        let out = fix.args(["fix", "--unsafe-fixes", "."]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let written = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
        assert!(!written.contains("enable_roots_list_changed"), "{written}");
        // The case this test is for: rustfmt moved what is left.
        let joined = written.contains("ClientCapabilities::builder().enable_roots().build();");
        assert_eq!(joined, with_rustfmt, "{written}");

        let left = left_lines(&stderr);
        let mut left_at: Vec<(String, String)> = left.iter().map(|(at, rule, _)| (at.clone(), rule.clone())).collect();
        left_at.sort();
        assert_eq!(left_at, check_positions(dir.path()), "rustfmt {with_rustfmt}:\n{stderr}\n{written}");
        assert_eq!(left.len(), 2, "{stderr}");
        reasons.push(left.into_iter().map(|(_, rule, why)| (rule, why)).collect::<Vec<_>>());
    }
    if let [without, with] = &reasons[..] {
        assert_eq!(without, with, "the reasons depend on the layout");
    }
    assert!(
        reasons[0]
            .iter()
            .any(|(rule, why)| rule == "server-roots-request" && why.starts_with("the roots codemod left it"))
    );
}
