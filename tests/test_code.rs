//! Findings in test code, as users see them: `in_test` in JSON and SARIF, "(test code)" in the
//! messages people read, the reason a test finding has no fix, and the `tests` level of the
//! configuration.

use std::path::Path;

use serde_json::Value;

#[path = "support/cli.rs"]
mod cli;
use cli::{mcp_lint, write};

/// A crate that declares the removed `roots.listChanged` flag three times: in its code, in a
/// `#[cfg(test)]` module and in an integration test.
fn crate_with_tests(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut manifest = "[package]\nname = \"flags\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                        [dependencies]\nrmcp = \"0.8\"\n"
        .to_owned();
    if let Some(config) = config {
        manifest.push_str(&format!("\n[package.metadata.mcp-lint]\n{config}\n"));
    }
    write(p, "Cargo.toml", &manifest);
    write(
        p,
        "src/lib.rs",
        "use rmcp::model::RootsCapabilities;\n\
         \n\
         pub fn caps() -> RootsCapabilities {\n    RootsCapabilities { list_changed: Some(true) }\n}\n\
         \n\
         #[cfg(test)]\n\
         mod tests {\n    use super::*;\n\n    #[test]\n    fn declares_the_flag() {\n        \
         assert_eq!(caps(), RootsCapabilities { list_changed: Some(true) });\n    }\n}\n",
    );
    write(
        p,
        "tests/client.rs",
        "use rmcp::model::RootsCapabilities;\n\n#[test]\nfn client() {\n    \
         let _ = RootsCapabilities { list_changed: Some(true) };\n}\n",
    );
    dir
}

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = mcp_lint().current_dir(dir).arg("check").args(args).arg(".").output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

fn json(dir: &Path) -> Vec<Value> {
    let (_, stdout) = run(dir, &["--format", "json"]);
    serde_json::from_str::<Value>(&stdout).unwrap().as_array().unwrap().clone()
}

/// (path, line, in_test, severity, has a fix) of each finding.
fn summary(findings: &[Value]) -> Vec<(String, u64, bool, String, bool)> {
    findings
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["range"]["start"]["line"].as_u64().unwrap(),
                f["in_test"].as_bool().expect("in_test is always written"),
                f["severity"].as_str().unwrap().to_owned(),
                !f["fix"].is_null(),
            )
        })
        .collect()
}

#[test]
fn json_marks_test_code_and_says_why_it_has_no_fix() {
    let dir = crate_with_tests(None);
    let findings = json(dir.path());
    let error = || "error".to_owned();
    assert_eq!(
        summary(&findings),
        [
            ("src/lib.rs".to_owned(), 4, false, error(), true),
            ("src/lib.rs".to_owned(), 13, true, error(), false),
            ("tests/client.rs".to_owned(), 5, true, error(), false),
        ]
    );
    // The message is the same everywhere (scripts match on it); the reason is the note.
    assert_eq!(findings[0]["message"], findings[1]["message"]);
    assert!(findings[0].get("note").is_none());
    for f in &findings[1..] {
        assert!(f["note"].as_str().unwrap().starts_with("no fix in test code"), "{f}");
    }
}

#[test]
fn human_messages_say_test_code() {
    let dir = crate_with_tests(None);
    let (code, stdout) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    let headers: Vec<&str> = stdout.lines().filter(|l| l.starts_with("error[")).collect();
    assert_eq!(headers.len(), 3, "{stdout}");
    assert!(!headers[0].ends_with("(test code)"), "{stdout}");
    assert!(headers[1].ends_with("(test code)") && headers[2].ends_with("(test code)"), "{stdout}");
    assert_eq!(stdout.matches("= note: no fix in test code").count(), 2, "{stdout}");

    let (_, annotations) = run(dir.path(), &["--format", "github"]);
    let marked = annotations.lines().filter(|l| l.contains("(test code)%0Ahelp:")).count();
    assert_eq!(marked, 2, "{annotations}");
    assert_eq!(annotations.matches("%0Anote: no fix in test code").count(), 2, "{annotations}");

    let (_, summary) = run(dir.path(), &["--format", "summary"]);
    assert!(summary.contains("| of them in test code | 2 |"), "{summary}");
}

#[test]
fn sarif_results_carry_in_test_in_their_property_bag() {
    let dir = crate_with_tests(None);
    let (_, stdout) = run(dir.path(), &["--format", "sarif"]);
    let log: Value = serde_json::from_str(&stdout).unwrap();
    let marks: Vec<bool> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["properties"]["in_test"].as_bool().unwrap())
        .collect();
    assert_eq!(marks, [false, true, true]);
}

#[test]
fn the_tests_level_sets_or_drops_test_findings() {
    let levels = |config: &str| {
        let dir = crate_with_tests(Some(config));
        summary(&json(dir.path()))
            .into_iter()
            .map(|(_, line, in_test, severity, _)| (line, in_test, severity))
            .collect::<Vec<_>>()
    };
    let s = |s: &str| s.to_owned();
    assert_eq!(
        levels("tests = \"warning\""),
        vec![(4, false, s("error")), (13, true, s("warning")), (5, true, s("warning"))]
    );
    // Over a rule's own `[severity]`, in test code only.
    assert_eq!(
        levels("tests = \"error\"\n[package.metadata.mcp-lint.severity]\nroots-list-changed = \"warning\""),
        vec![(4, false, s("warning")), (13, true, s("error")), (5, true, s("error"))]
    );
    assert_eq!(levels("tests = \"off\""), vec![(4, false, s("error"))]);

    // Off, a suppression comment in a test still counts as used.
    let dir = crate_with_tests(Some("tests = \"off\""));
    write(
        dir.path(),
        "tests/client.rs",
        "use rmcp::model::RootsCapabilities;\n\n#[test]\nfn client() {\n    \
         // mcp-lint: allow(roots-list-changed) the test client declares it\n    \
         let _ = RootsCapabilities { list_changed: Some(true) };\n}\n",
    );
    assert_eq!(summary(&json(dir.path())).len(), 1);
}

#[test]
fn a_bad_tests_level_is_located() {
    let dir = crate_with_tests(Some("tests = \"warn\""));
    let out = mcp_lint().current_dir(dir.path()).args(["check", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Cargo.toml:10:9") && stderr.contains("`warn`"), "{stderr}");
}

#[test]
fn fix_says_why_a_test_finding_is_left() {
    let dir = crate_with_tests(None);
    let out = mcp_lint().current_dir(dir.path()).args(["fix", "--allow-no-vcs", "--diff", "."]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let left: Vec<&str> = stderr.lines().filter(|l| l.starts_with("left: ")).collect();
    assert_eq!(left.len(), 3, "{stderr}");
    assert!(left[0].ends_with("(unsafe fix: pass --unsafe-fixes to apply it)"), "{stderr}");
    assert!(left[1..].iter().all(|l| l.contains("roots-list-changed (no fix in test code: ")), "{stderr}");
}
