//! The CLI as users run it: exit codes, the JSON format's fields, bad input, discovery.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn mcp_lint() -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

#[path = "support/samples.rs"]
mod samples;
use samples::SERVER_WITH_ROOTS;

const CLEAN: &str = "fn main() {\n    println!(\"hello\");\n}\n";

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn clean_tree_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/main.rs", CLEAN);
    mcp_lint().arg("check").arg(dir.path()).assert().code(0).stdout(predicate::str::contains("no findings"));
}

#[test]
fn findings_exit_one_with_a_code_frame() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    mcp_lint()
        .arg("check")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error[server-roots-request]"))
        .stdout(predicate::str::contains("src/tools.rs:7:"))
        .stdout(predicate::str::contains("list_roots()"))
        .stdout(predicate::str::contains("help:"));
}

#[test]
fn json_format_has_the_contract_fields() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "src"]).assert().code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let findings = findings.as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    let f = &findings[0];
    assert_eq!(f["rule"], "server-roots-request");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["path"], "src/tools.rs");
    assert!(f["message"].as_str().unwrap().contains("2026-07-28"));
    assert!(f["help"].is_string());
    let start = SERVER_WITH_ROOTS.find("list_roots").unwrap();
    let end = start + "list_roots()".len();
    assert_eq!(f["byte_range"], serde_json::json!([start, end]));
    assert_eq!(f["range"]["start"], serde_json::json!({"line": 7, "column": 34}));
    assert_eq!(f["range"]["end"], serde_json::json!({"line": 7, "column": 46}));
    assert!(f["fix"].is_null() || f["fix"]["edits"].is_array());
    // No crate around the file: nothing tells the era, so it is checked as a migration.
    assert_eq!(f["era"]["assumed"], "unknown");
    assert!(f["era"]["reason"].as_str().unwrap().contains("no protocol version"));
}

/// `client_version()` is rust-mcp-sdk's `initialize` snapshot only where that SDK is in use. The
/// file names nothing of MCP, so only its crate's dependency makes it worth parsing; the same
/// file in a crate without an SDK (TLS code has `client_version` too) is not even parsed.
#[test]
fn mcp_only_words_count_where_the_crate_has_an_sdk() {
    let source = "pub fn describe(runtime: &Runtime) -> String {\n    format!(\"{:?}\", runtime.client_version())\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let manifest =
        |name: &str, deps: &str| format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n[dependencies]\n{deps}");
    write(dir.path(), "server/Cargo.toml", &manifest("server", "rust-mcp-sdk = \"0.7\"\n"));
    write(dir.path(), "server/src/lib.rs", source);
    write(dir.path(), "tls/Cargo.toml", &manifest("tls", ""));
    write(dir.path(), "tls/src/lib.rs", source);
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).assert().code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let found: Vec<(&str, &str)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(found, [("inferred-client-capabilities", "server/src/lib.rs")]);
    mcp_lint()
        .current_dir(dir.path())
        .args(["check", "."])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("2 files checked, 1 parsed"));
}

#[test]
fn dual_era_crates_get_warnings_for_removed_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"srv\"\nversion = \"0.1.0\"\n[dependencies]\nrmcp = \"3.11\"\n",
    );
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "src"]).assert().code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(findings[0]["severity"], "warning");
    assert_eq!(findings[0]["era"]["assumed"], "dual-era");
    mcp_lint()
        .current_dir(dir.path())
        .args(["check", "src"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("era assumed: dual-era: rmcp 3.11 serves both"));
}

#[test]
fn json_fix_field_carries_edits() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "caps.json", "{\"capabilities\": {\"roots\": {\"listChanged\": true}}}\n");
    let flag_finding = || {
        let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "caps.json"]).assert().code(1);
        let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        // `"roots"` itself gets `deprecated-feature` too; the flag's finding carries the fix.
        findings.as_array().unwrap().iter().find(|f| f["rule"] == "roots-list-changed").unwrap().clone()
    };
    // Nothing tells the era: legacy peers may still read the flag, so the fix needs a review.
    let f = flag_finding();
    assert_eq!(f["era"]["assumed"], "unknown");
    assert_eq!(f["fix"]["applicability"], "unsafe");
    assert!(f["fix"]["title"].as_str().unwrap().contains("nothing tells whether"), "{f}");
    // Its configuration says it targets 2026-07-28 alone: the same fix is safe.
    write(dir.path(), "mcp-lint.toml", "era = \"2026-07-28\"\n");
    let f = flag_finding();
    assert_eq!(f["fix"]["applicability"], "safe");
    let edit = &f["fix"]["edits"][0];
    let (s, e) = (edit["byte_range"][0].as_u64().unwrap() as usize, edit["byte_range"][1].as_u64().unwrap() as usize);
    let text = "{\"capabilities\": {\"roots\": {\"listChanged\": true}}}\n";
    let fixed = format!("{}{}{}", &text[..s], edit["replacement"].as_str().unwrap(), &text[e..]);
    let v: Value = serde_json::from_str(&fixed).unwrap();
    assert_eq!(v["capabilities"]["roots"], serde_json::json!({}));
}

#[test]
fn missing_path_exits_two_and_still_checks_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    mcp_lint()
        .arg("check")
        .arg(dir.path().join("no-such-folder"))
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-folder"))
        .stdout(predicate::str::contains("server-roots-request"));
}

#[test]
fn parse_errors_are_findings_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/broken.rs", "fn list_roots( {\n");
    write(dir.path(), "b/broken.json", "{\"roots\": {\"listChanged\": tru}}\n");
    write(dir.path(), "c/tools.rs", SERVER_WITH_ROOTS);
    let out = mcp_lint().arg("check").arg("--format").arg("json").arg(dir.path()).assert().code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let rules: Vec<&str> = findings.as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["parse-error", "parse-error", "server-roots-request"], "{findings:#}");
}

#[test]
fn non_utf8_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bin.rs"), b"fn list_roots() {}\xff\xfe\n").unwrap();
    mcp_lint().arg("check").arg(dir.path()).assert().code(0).stderr(predicate::str::contains("not valid UTF-8"));
}

#[test]
fn deep_nesting_does_not_crash() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 50_000;
    write(dir.path(), "deep.rs", &format!("fn list_roots() {{ {}1{} }}\n", "(".repeat(depth), ")".repeat(depth)));
    write(dir.path(), "deep.json", &format!("{}\"roots/list\"{}\n", "[".repeat(depth), "]".repeat(depth)));
    let out = mcp_lint().arg("check").arg("--format").arg("json").arg(dir.path()).assert().code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(findings.as_array().unwrap().iter().all(|f| f["rule"] == "parse-error"));
    assert_eq!(findings.as_array().unwrap().len(), 2);
}

#[test]
fn gitignore_target_and_git_are_not_scanned() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".gitignore", "generated/\n");
    write(dir.path(), "generated/tools.rs", SERVER_WITH_ROOTS);
    write(dir.path(), "target/debug/tools.rs", SERVER_WITH_ROOTS);
    write(dir.path(), ".git/tools.rs", SERVER_WITH_ROOTS);
    write(dir.path(), "src/main.rs", CLEAN);
    mcp_lint().arg("check").arg(dir.path()).assert().code(0);
    // Named explicitly, an ignored file is checked.
    mcp_lint().arg("check").arg(dir.path().join("generated/tools.rs")).assert().code(1);
}

#[test]
fn the_same_file_twice_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    let out = mcp_lint()
        .args(["check", "--format", "json"])
        .arg(dir.path())
        .arg(dir.path().join("src"))
        .arg(dir.path().join("src/tools.rs"))
        .assert()
        .code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(findings.as_array().unwrap().len(), 1);
}

#[test]
fn rules_and_explain() {
    mcp_lint()
        .arg("rules")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("server-roots-request"))
        .stdout(predicate::str::contains("roots-list-changed"))
        .stdout(predicate::str::contains("inferred-client-capabilities"))
        .stdout(predicate::str::contains("retry-reuses-request-id"));
    mcp_lint()
        .args(["explain", "retry-reuses-request-id"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("# retry-reuses-request-id"));
    mcp_lint().args(["explain", "no-such-rule"]).assert().code(2);
}

#[test]
fn usage_errors_exit_two() {
    mcp_lint().args(["check", "--select", "no-such-rule", "."]).assert().code(2);
    mcp_lint().args(["check", "--format", "yaml"]).assert().code(2);
    mcp_lint().arg("frobnicate").assert().code(2);
}

#[test]
fn select_and_ignore() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    mcp_lint().args(["check", "--ignore", "server-roots-request"]).arg(dir.path()).assert().code(0);
    mcp_lint().args(["check", "--select", "roots-list-changed"]).arg(dir.path()).assert().code(0);
    mcp_lint().args(["check", "--select", "server-roots-request"]).arg(dir.path()).assert().code(1);
}

/// The bundled demo (README's first command) shows a finding of every rule.
#[test]
fn the_bundled_demo_shows_findings_of_every_rule() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    let out = mcp_lint().args(["check", "--format", "json"]).arg(&demo).assert().code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let shown: std::collections::BTreeSet<&str> =
        findings.as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    let every: std::collections::BTreeSet<&str> = mcp_lint::rules::all_meta().map(|m| m.name).collect();
    assert_eq!(shown, every);
}

/// A word that only makes a file feed the crate model (`method:` in a helper that builds requests)
/// gets the file parsed where another file of its crate has one of the rule's own words, and
/// nowhere else: an HTTP crate full of `method:` fields is read, never parsed.
#[test]
fn crate_words_count_only_in_crates_the_rule_is_in() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = |name: &str| format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n");
    write(dir.path(), "server/Cargo.toml", &manifest("server"));
    write(
        dir.path(),
        "server/src/main.rs",
        "mod tools;\nmod wire;\n\npub struct Conn { pub next: u64 }\n\nfn main() {\n    let mut c = Conn { next: 0 };\n    c.draft_reply();\n}\n",
    );
    write(
        dir.path(),
        "server/src/wire.rs",
        "//! What the server writes to the client.\n\npub struct Outgoing {\n    pub id: u64,\n    pub method: String,\n}\n\n\
         impl crate::Conn {\n    /// Sends a request whose method is `method`.\n    pub fn ask(&mut self, method: &str) -> u64 {\n        \
         self.next += 1;\n        let out = Outgoing { id: self.next, method: method.to_owned() };\n        \
         println!(\"{} {}\", out.id, out.method);\n        out.id\n    }\n}\n",
    );
    write(
        dir.path(),
        "server/src/tools.rs",
        "impl crate::Conn {\n    pub fn draft_reply(&mut self) {\n        self.ask(\"sampling/createMessage\");\n    }\n}\n",
    );
    write(dir.path(), "http/Cargo.toml", &manifest("http"));
    write(
        dir.path(),
        "http/src/lib.rs",
        "pub struct Request {\n    pub method: String,\n}\n\npub fn get() -> Request {\n    Request { method: \"GET\".into() }\n}\n",
    );
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).assert().code(1);
    let findings: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let found: Vec<(&str, &str)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(found, [("server-initiated-request", "server/src/tools.rs")]);
    // The server's files are parsed (the helper for the model), the HTTP crate's is not.
    mcp_lint()
        .current_dir(dir.path())
        .args(["check", "."])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("4 files checked, 2 parsed"));
}
