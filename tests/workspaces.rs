//! Cargo workspaces as users check them (`fixtures/workspaces/<name>`, copied to a temporary
//! folder so no lock file or configuration of this repository is above them): the SDK's version
//! comes from the root's `[workspace.dependencies]` or its lock file, sibling crates are the
//! project's own code and no SDK, and no safe fix changes what the older peers of a legacy or
//! dual-era crate see.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

#[path = "support/copy.rs"]
mod copy;
use copy::copy_dir;

fn mcp_lint(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

/// A copy of `fixtures/workspaces/<name>`; the workspace is `<tempdir>/<name>`.
fn copy_workspace(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/workspaces").join(name), &dir.path().join(name));
    dir
}

fn json_findings(dir: &Path) -> Vec<Value> {
    let out = mcp_lint(dir).args(["check", "--format", "json", "."]).assert().code(1);
    serde_json::from_slice::<Value>(&out.get_output().stdout).unwrap().as_array().unwrap().clone()
}

fn summary(dir: &Path) -> String {
    let out = mcp_lint(dir).args(["check", "--format", "summary", "."]).assert().code(1);
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// The summary's row for a crate.
fn crate_row<'s>(summary: &'s str, name: &str) -> &'s str {
    let start = format!("| `{name}` |");
    summary.lines().find(|l| l.starts_with(&start)).unwrap_or_else(|| panic!("no row for {name}:\n{summary}"))
}

/// Reading a file leaves it as it was.
fn snapshot(dir: &Path, files: &[&str]) -> Vec<String> {
    files.iter().map(|f| std::fs::read_to_string(dir.join(f)).unwrap()).collect()
}

#[test]
fn without_a_lock_file_members_take_the_sdk_version_of_the_workspace() {
    let tmp = copy_workspace("ledger");
    let dir = tmp.path().join("ledger");
    assert!(!dir.join("Cargo.lock").exists() && !tmp.path().join("Cargo.lock").exists());

    let findings = json_findings(&dir);
    assert!(!findings.is_empty());
    for f in &findings {
        // rmcp 1.3.0, from `rmcp = { workspace = true }`; the "2026-07-28" of the member's test
        // says nothing where the SDK's version tells.
        assert_eq!(f["era"]["assumed"], "legacy", "{f}");
        assert!(f["era"]["reason"].as_str().unwrap().contains("rmcp 1.3.0"), "{f}");
    }

    let summary = summary(&dir);
    assert!(crate_row(&summary, "ledger-mcp").contains("| rmcp 1.3.0 |"), "{summary}");
    // The command line uses rmcp through its sibling, which is no SDK of its own.
    let server = crate_row(&summary, "ledger-server");
    assert!(server.contains("| rmcp 1.3.0 (through `ledger-mcp`) |"), "{server}");
    assert!(!summary.contains("version unknown"), "{summary}");
    assert!(!summary.contains("ledger-mcp 0.3") && !summary.contains("ledger-store"), "{summary}");
}

/// The case: `mcp-lint fix` without `--unsafe-fixes` must not drop `listChanged` from a
/// client of a legacy-only rmcp, whose servers would no longer be told that roots change.
#[test]
fn fix_changes_nothing_older_peers_see_in_a_legacy_workspace() {
    let tmp = copy_workspace("ledger");
    let dir = tmp.path().join("ledger");
    let files = ["crates/ledger-mcp/src/lib.rs", "crates/ledger-server/src/main.rs"];
    let before = snapshot(&dir, &files);
    let out = mcp_lint(&dir).args(["fix", "--allow-no-vcs", "."]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("fixed 0 findings"), "{stderr}");
    assert_eq!(snapshot(&dir, &files), before);

    mcp_lint(&dir)
        .args(["fix", "--allow-no-vcs", "--unsafe-fixes", "--select", "roots-list-changed", "."])
        .assert()
        .success();
    let after = snapshot(&dir, &files);
    assert!(!after[0].contains("enable_roots_list_changed"), "{}", after[0]);
    assert!(after[1].contains("list_changed: None"), "{}", after[1]);
}

#[test]
fn with_its_lock_file_a_workspace_takes_the_locked_version() {
    let tmp = copy_workspace("relay");
    let dir = tmp.path().join("relay");
    let findings = json_findings(&dir);
    let flag = findings.iter().find(|f| f["rule"] == "roots-list-changed").unwrap();
    assert_eq!(flag["era"]["assumed"], "dual-era", "{flag}");
    assert!(flag["era"]["reason"].as_str().unwrap().contains("rmcp 3.11.0"), "{flag}");
    // A dual-era client's older servers still read the flag.
    assert_eq!(flag["fix"]["applicability"], "unsafe", "{flag}");
    assert!(crate_row(&summary(&dir), "relay-mcp").contains("| rmcp 3.11.0 |"));

    // Without the lock, the requirement of `[workspace.dependencies]`.
    std::fs::remove_file(dir.join("Cargo.lock")).unwrap();
    assert!(crate_row(&summary(&dir), "relay-mcp").contains("| rmcp 3 |"));
}
