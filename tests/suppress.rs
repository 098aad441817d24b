//! Suppression comments as users write them: on the line, on the line above (the whole next
//! statement), for the whole file, in JSONC; and `unused-suppression` findings with their fixes.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn mcp_lint() -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A server whose `list` body is `body`: every `context.peer.list_roots()` in it is a
/// `server-roots-request` finding.
fn server(body: &str) -> String {
    format!(
        "use rmcp::{{RoleServer, service::RequestContext}};\n\nstruct Files;\n\nimpl Files {{\n    async fn list(&self, context: RequestContext<RoleServer>) -> usize {{\n{body}        0\n    }}\n}}\n"
    )
}

/// The rules these tests suppress; other rules' findings on the same code are not their concern.
const UNDER_TEST: &[&str] = &["server-roots-request", "roots-list-changed", "unused-suppression"];

/// `check --format json` of one file: the findings of the rules under test.
fn check(dir: &Path, file: &str, extra: &[&str]) -> Vec<Value> {
    let out = mcp_lint().current_dir(dir).args(["check", "--format", "json"]).args(extra).arg(file).output().unwrap();
    assert!(out.status.code().unwrap() < 2, "{}", String::from_utf8_lossy(&out.stderr));
    let all = serde_json::from_slice::<Value>(&out.stdout).unwrap();
    all.as_array().unwrap().iter().filter(|f| UNDER_TEST.contains(&f["rule"].as_str().unwrap())).cloned().collect()
}

/// (rule, line) of each finding.
fn rules_and_lines(findings: &[Value]) -> Vec<(String, u64)> {
    findings
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_owned(), f["range"]["start"]["line"].as_u64().unwrap()))
        .collect()
}

/// The text after applying a finding's fix.
fn apply_fix(text: &str, finding: &Value) -> String {
    let mut edits: Vec<(usize, usize, String)> = finding["fix"]["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let r = e["byte_range"].as_array().unwrap();
            (
                r[0].as_u64().unwrap() as usize,
                r[1].as_u64().unwrap() as usize,
                e["replacement"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_owned();
    for (s, e, r) in edits {
        out.replace_range(s..e, &r);
    }
    out
}

#[test]
fn on_the_line_and_on_the_line_above_covering_the_statement() {
    let dir = tempfile::tempdir().unwrap();
    let body = concat!(
        "        let a = context.peer.list_roots().await; // mcp-lint: allow(server-roots-request) reviewed: legacy path\n",
        "        // mcp-lint: allow(server-roots-request) the whole chain below\n",
        "        // (another comment between is fine)\n",
        "        let b = context\n",
        "            .peer\n",
        "            .list_roots()\n",
        "            .await;\n",
        "        let c = context.peer.list_roots().await;\n",
        "        let s = \"// mcp-lint: allow(server-roots-request)\"; let d = context.peer.list_roots().await;\n",
        "        let e = r#\"\n",
        "// mcp-lint: allow(server-roots-request)\n",
        "\"#; let f = context.peer.list_roots().await;\n",
    );
    write(dir.path(), "src/tools.rs", &server(body));
    let found = check(dir.path(), "src/tools.rs", &[]);
    // Lines 7 (trailing) and 8–13 (the statement after the comment) are covered; a comment
    // inside a string literal or raw string is no suppression.
    assert_eq!(
        rules_and_lines(&found),
        [
            ("server-roots-request".to_owned(), 14),
            ("server-roots-request".to_owned(), 15),
            ("server-roots-request".to_owned(), 18),
        ]
    );
}

#[test]
fn the_line_above_an_item_covers_the_item() {
    let dir = tempfile::tempdir().unwrap();
    let text = "use rmcp::{RoleServer, service::RequestContext};\n\nstruct Files;\n\n// mcp-lint: allow(server-roots-request) this impl is only built for legacy clients\n#[allow(dead_code)]\nimpl Files {\n    async fn list(&self, context: RequestContext<RoleServer>) -> usize {\n        context.peer.list_roots().await.unwrap().roots.len()\n    }\n}\n\nimpl Files {\n    async fn other(&self, context: RequestContext<RoleServer>) {\n        let _ = context.peer.list_roots().await;\n    }\n}\n";
    write(dir.path(), "src/tools.rs", text);
    assert_eq!(rules_and_lines(&check(dir.path(), "src/tools.rs", &[])), [("server-roots-request".to_owned(), 15)]);
}

#[test]
fn file_level_suppression() {
    let dir = tempfile::tempdir().unwrap();
    let body = "        let a = context.peer.list_roots().await;\n        let b = context.peer.list_roots().await;\n";
    let text = format!(
        "// mcp-lint: allow-file(server-roots-request, roots-list-changed) generated by an old SDK\n{}",
        server(body)
    );
    write(dir.path(), "src/tools.rs", &text);
    // Both findings are suppressed; `roots-list-changed` matched nothing in the file.
    let found = check(dir.path(), "src/tools.rs", &[]);
    assert_eq!(rules_and_lines(&found), [("unused-suppression".to_owned(), 1)]);
    assert!(found[0]["message"].as_str().unwrap().contains("no `roots-list-changed` finding in this file"));
    let fixed = apply_fix(&text, &found[0]);
    assert!(fixed.starts_with("// mcp-lint: allow-file(server-roots-request) generated by an old SDK\n"), "{fixed}");
}

#[test]
fn jsonc_comments_suppress_like_rust_ones() {
    let dir = tempfile::tempdir().unwrap();
    let text = concat!(
        "{\n",
        "  \"clients\": [\n",
        "    // mcp-lint: allow(roots-list-changed) this entry configures a legacy client\n",
        "    {\n",
        "      \"capabilities\": {\n",
        "        \"roots\": {\n",
        "          \"listChanged\": true\n",
        "        }\n",
        "      }\n",
        "    },\n",
        "    {\"capabilities\": {\"roots\": {\"listChanged\": true}}}, // mcp-lint: allow(roots-list-changed)\n",
        "    {\"capabilities\": {\"roots\": {\"listChanged\": true}}, \"url\": \"http://x// mcp-lint: allow(roots-list-changed)\"}\n",
        "  ]\n",
        "}\n",
    );
    write(dir.path(), "clients.jsonc", text);
    assert_eq!(rules_and_lines(&check(dir.path(), "clients.jsonc", &[])), [("roots-list-changed".to_owned(), 12)]);
}

#[test]
fn unused_and_unknown_suppressions_are_reported_with_a_safe_fix() {
    let dir = tempfile::tempdir().unwrap();
    let body = concat!(
        "        // mcp-lint: allow(server-roots-request) nothing below asks for roots\n",
        "        let a = 1;\n",
        "        let b = 2; // mcp-lint: allow(server-roots-request)\n",
        "        let c = context.peer.list_roots().await; // mcp-lint: allow(server-roots-request, no-such-rule)\n",
        "        // mcp-lint: allow server-roots-request\n",
    );
    let text = server(body);
    write(dir.path(), "src/tools.rs", &text);
    let found = check(dir.path(), "src/tools.rs", &[]);
    assert_eq!(
        rules_and_lines(&found),
        [
            ("unused-suppression".to_owned(), 7),
            ("unused-suppression".to_owned(), 9),
            ("unused-suppression".to_owned(), 10),
            ("unused-suppression".to_owned(), 11),
        ]
    );
    assert!(found.iter().all(|f| f["severity"] == "warning"));
    assert!(found[0]["message"].as_str().unwrap().contains("no `server-roots-request` finding in the next statement"));
    // Own line: the whole line goes.
    assert_eq!(found[0]["fix"]["applicability"], "safe");
    assert_eq!(apply_fix(&text, &found[0]), text.replace(&format!("{}\n", body.lines().next().unwrap()), ""));
    // Trailing: the comment and the spaces before it go.
    assert!(apply_fix(&text, &found[1]).contains("        let b = 2;\n"));
    // Unknown name: only it leaves the list.
    assert!(found[2]["message"].as_str().unwrap().contains("unknown rule `no-such-rule`"));
    assert!(apply_fix(&text, &found[2]).contains("// mcp-lint: allow(server-roots-request)\n"));
    // Unreadable: reported, no fix.
    assert!(found[3]["message"].as_str().unwrap().contains("cannot read this suppression"));
    assert!(found[3]["fix"].is_null());
}

#[test]
fn suppressions_of_rules_that_are_off_are_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let text = server("        let a = 1; // mcp-lint: allow(server-roots-request)\n");
    write(dir.path(), "src/tools.rs", &text);
    assert_eq!(check(dir.path(), "src/tools.rs", &[]).len(), 1);
    assert_eq!(check(dir.path(), "src/tools.rs", &["--select", "roots-list-changed"]).len(), 0);
    assert_eq!(check(dir.path(), "src/tools.rs", &["--ignore", "unused-suppression"]).len(), 0);
    write(dir.path(), "mcp-lint.toml", "[severity]\nunused-suppression = \"error\"\n");
    assert_eq!(check(dir.path(), "src/tools.rs", &[])[0]["severity"], "error");
    write(dir.path(), "mcp-lint.toml", "ignore = [\"unused-suppression\"]\n");
    assert_eq!(check(dir.path(), "src/tools.rs", &[]).len(), 0);
}

#[test]
fn fix_removes_unused_suppressions_and_leaves_suppressed_findings() {
    let dir = tempfile::tempdir().unwrap();
    let text = concat!(
        "{\n",
        "  // mcp-lint: allow(roots-list-changed) kept for a legacy client\n",
        "  \"legacy\": {\"roots\": {\"listChanged\": true}},\n",
        "  // mcp-lint: allow(roots-list-changed) stale\n",
        "  \"modern\": {\"roots\": {}},\n",
        "  \"other\": {\"roots\": {\"listChanged\": true}}\n",
        "}\n",
    );
    write(dir.path(), "caps.jsonc", text);
    // Said to target 2026-07-28 alone: dropping the flag is then a safe fix.
    write(dir.path(), "mcp-lint.toml", "era = \"2026-07-28\"\n");
    mcp_lint()
        .current_dir(dir.path())
        .args(["fix", "--allow-no-vcs", "--select", "roots-list-changed", "caps.jsonc"])
        .assert()
        .code(0);
    let fixed = std::fs::read_to_string(dir.path().join("caps.jsonc")).unwrap();
    assert_eq!(
        fixed,
        concat!(
            "{\n",
            "  // mcp-lint: allow(roots-list-changed) kept for a legacy client\n",
            "  \"legacy\": {\"roots\": {\"listChanged\": true}},\n",
            "  \"modern\": {\"roots\": {}},\n",
            "  \"other\": {\"roots\": {}}\n",
            "}\n",
        )
    );
}
