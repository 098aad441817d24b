//! Baselines as a team adopts them: write one, keep working (lines shift, other lines change), and
//! see only new findings; stale entries are listed.

use std::path::Path;

use serde_json::Value;

#[path = "support/cli.rs"]
mod cli;
use cli::{mcp_lint, write};

/// A server with one `server-roots-request` finding per line of `calls`.
fn server(calls: &[&str]) -> String {
    let mut body = String::new();
    for c in calls {
        body.push_str("        ");
        body.push_str(c);
        body.push('\n');
    }
    format!(
        "use rmcp::{{RoleServer, service::RequestContext}};\n\nstruct Files;\n\nimpl Files {{\n    async fn list(&self, context: RequestContext<RoleServer>) -> usize {{\n{body}        0\n    }}\n}}\n"
    )
}

const A: &str = "let a = context.peer.list_roots().await;";
const B: &str = "let b = context.peer.list_roots().await.unwrap();";
const C: &str = "let c = context.peer.list_roots().await.ok();";

/// `check --format json --baseline FILE .` in `dir`: (exit code, findings' lines, stderr).
fn check_with_baseline(dir: &Path, baseline: &str) -> (i32, Vec<u64>, String) {
    let out = mcp_lint()
        .current_dir(dir)
        .args(["check", "--select", "server-roots-request", "--format", "json", "--baseline", baseline, "."])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines = v.as_array().unwrap().iter().map(|f| f["range"]["start"]["line"].as_u64().unwrap()).collect();
    (out.status.code().unwrap(), lines, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn round_trip_survives_unrelated_edits_and_reports_only_new_findings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/tools.rs", &server(&[A, "let unrelated = 1;", B]));
    mcp_lint()
        .current_dir(d)
        .args(["check", "--select", "server-roots-request", "--write-baseline", "mcp-lint-baseline.json", "."])
        .assert()
        .code(0);
    let baseline: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("mcp-lint-baseline.json")).unwrap()).unwrap();
    assert_eq!(baseline["version"], 1);
    let entries = baseline["findings"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert!(entries.iter().all(|e| e["rule"] == "server-roots-request" && e["path"] == "src/tools.rs"));
    let (code, lines, stderr) = check_with_baseline(d, "mcp-lint-baseline.json");
    assert_eq!((code, lines), (0, vec![]));
    assert!(stderr.contains("2 findings already in the baseline were not reported"), "{stderr}");

    // Lines inserted above, an unrelated line changed: nothing new.
    let edited = server(&[A, "let unrelated = 2; // changed", B]).replacen(
        "struct Files;",
        "// a new comment\n\nstruct Files;\n",
        1,
    );
    write(d, "src/tools.rs", &edited);
    let (code, lines, _) = check_with_baseline(d, "mcp-lint-baseline.json");
    assert_eq!((code, lines), (0, vec![]));

    // A new finding: only it is reported, at its line.
    let added = server(&[A, "let unrelated = 2;", C, B]);
    write(d, "src/tools.rs", &added);
    let (code, lines, _) = check_with_baseline(d, "mcp-lint-baseline.json");
    assert_eq!((code, lines), (1, vec![9]));

    // One removed: its entry is listed as stale, and nothing is reported.
    write(d, "src/tools.rs", &server(&["let unrelated = 2;", B]));
    let (code, lines, stderr) = check_with_baseline(d, "mcp-lint-baseline.json");
    assert_eq!((code, lines), (0, vec![]));
    assert_eq!(stderr.matches("stale baseline entry").count(), 1, "{stderr}");
    assert!(stderr.contains("src/tools.rs: stale baseline entry: no `server-roots-request` finding"), "{stderr}");
    assert!(stderr.contains("recorded at line 7"), "{stderr}");
}

#[test]
fn equal_lines_are_counted_not_merged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/tools.rs", &server(&[A, A]));
    mcp_lint()
        .current_dir(d)
        .args(["check", "--select", "server-roots-request", "--write-baseline", "base.json", "src"])
        .assert()
        .code(0);
    // A third identical line is one new finding.
    write(d, "src/tools.rs", &server(&[A, A, A]));
    let (code, lines, _) = check_with_baseline(d, "base.json");
    assert_eq!((code, lines.len()), (1, 1));
    // Down to one: one stale entry.
    write(d, "src/tools.rs", &server(&[A]));
    let (code, lines, stderr) = check_with_baseline(d, "base.json");
    assert_eq!((code, lines.len()), (0, 0));
    assert_eq!(stderr.matches("stale baseline entry").count(), 1, "{stderr}");
}

#[test]
fn paths_are_relative_to_the_baseline_not_the_current_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "proj/src/tools.rs", &server(&[A]));
    write(d, "proj/other/more.rs", &server(&[B]));
    mcp_lint()
        .current_dir(d)
        .args(["check", "--select", "server-roots-request", "--write-baseline", "proj/base.json", "proj"])
        .assert()
        .code(0);
    // From inside the project, naming only one folder: still known, and the entry of the file that
    // was not checked is not called stale.
    let out = mcp_lint()
        .current_dir(d.join("proj"))
        .args(["check", "--select", "server-roots-request", "--baseline", "base.json", "src"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("stale"));
    // A deleted file's entries are stale.
    std::fs::remove_file(d.join("proj/other/more.rs")).unwrap();
    let out = mcp_lint()
        .current_dir(d.join("proj"))
        .args(["check", "--select", "server-roots-request", "--baseline", "base.json", "src"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("other/more.rs: stale baseline entry"));
}

#[test]
fn a_bad_baseline_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/tools.rs", &server(&[A]));
    write(d, "old.json", "{\"version\": 99, \"findings\": []}\n");
    write(d, "broken.json", "{\"version\": 1, \"findings\": [{\"rule\": 1}]}\n");
    for (file, says) in [
        ("old.json", "unsupported baseline version 99"),
        ("broken.json", "not a baseline"),
        ("none.json", "cannot read"),
    ] {
        let out = mcp_lint()
            .current_dir(d)
            .args(["check", "--select", "server-roots-request", "--baseline", file, "src"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    mcp_lint()
        .current_dir(d)
        .args([
            "check",
            "--select",
            "server-roots-request",
            "--baseline",
            "a.json",
            "--write-baseline",
            "b.json",
            "src",
        ])
        .assert()
        .code(2);
}
