//! The roots codemod on the fixture crates (`fixtures/crates/<name>`), as users run it: the fixed
//! sources equal the snapshots in `fixtures/crates/<name>.fixed/` byte for byte, parse, and a second
//! `fix` changes nothing; `--diff` prints exactly what `fix` writes; dirty and read-only files are
//! refused and every file is left as it was. `UPDATE_SNAPSHOTS=1 cargo test --test codemod`
//! rewrites the snapshots.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

use assert_cmd::Command;
use predicates::prelude::*;

const CRATES: &[&str] = &[
    "workspace-tools",
    "project-notes",
    "file-index",
    "text-stats",
    "sandbox-files",
    "folder-stats",
    "doc-search",
    "log-viewer",
    "todo-scan",
];

/// What the summary says of the crate's migration: a new tool parameter, or (`sandbox-files`, whose
/// roots extend an allow-list) the configured list kept.
fn applied_words(name: &str) -> &'static str {
    if name == "sandbox-files" { "stays server configuration" } else { "changes the tool's public input schema" }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/crates")
}

fn mcp_lint(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

/// The crate's Rust and JSON files by path relative to `root`.
fn sources(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !matches!(path.file_name().and_then(|n| n.to_str()), Some("target" | ".git")) {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs" || e == "json") {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// A copy of the crate in a temporary folder (without any `target/`).
fn copy_crate(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = fixtures().join(name);
    let mut stack = vec![from.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(&from).unwrap();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    std::fs::create_dir_all(dir.path().join(rel)).unwrap();
                    stack.push(path);
                }
            } else {
                std::fs::copy(&path, dir.path().join(rel)).unwrap();
            }
        }
    }
    dir
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

/// The snapshot: the files the codemod changes, as it must write them.
fn snapshot(name: &str) -> BTreeMap<String, String> {
    sources(&fixtures().join(format!("{name}.fixed")))
}

#[test]
fn fixed_sources_match_the_snapshots_and_a_second_fix_is_a_no_op() {
    for name in CRATES {
        let dir = copy_crate(name);
        let before = sources(dir.path());
        mcp_lint(dir.path())
            .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "."])
            .assert()
            // `sandbox-files` keeps an `on_initialized` that does other work: `removed-method` stays.
            .code(if *name == "sandbox-files" { 1 } else { 0 })
            .stderr(predicate::str::contains(applied_words(name)));
        let after = sources(dir.path());
        let changed: BTreeMap<String, String> =
            after.iter().filter(|(k, v)| before.get(*k) != Some(*v)).map(|(k, v)| (k.clone(), v.clone())).collect();
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            let root = fixtures().join(format!("{name}.fixed"));
            let _ = std::fs::remove_dir_all(&root);
            for (rel, text) in &changed {
                std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
                std::fs::write(root.join(rel), text).unwrap();
            }
        }
        let want = snapshot(name);
        assert_eq!(changed.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "{name}: changed files");
        for (rel, text) in &changed {
            assert_eq!(text, &want[rel], "{name}/{rel} differs from its snapshot");
            if rel.ends_with(".rs") {
                syn::parse_file(text).unwrap_or_else(|e| panic!("{name}/{rel} does not parse: {e}"));
            } else {
                serde_json::from_str::<serde_json::Value>(text).unwrap_or_else(|e| panic!("{name}/{rel}: {e}"));
            }
        }
        // Nothing is left to fix, and the roots are gone.
        mcp_lint(dir.path())
            .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--diff", "."])
            .assert()
            .code(0)
            .stdout(predicate::str::is_empty());
        mcp_lint(dir.path()).args(["check", "--select", "server-roots-request", "."]).assert().code(0);
        assert_eq!(sources(dir.path()), after, "{name}: the second run changed something");
    }
}

#[test]
fn diff_shows_exactly_what_fix_writes() {
    for name in CRATES {
        let dir = copy_crate(name);
        let before = sources(dir.path());
        let out = mcp_lint(dir.path()).args(["fix", "--unsafe-fixes", "--diff", "."]).assert().code(1);
        let diff = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(sources(dir.path()), before, "{name}: --diff wrote something");
        // The same unified diff, computed from the snapshots.
        let mut want = String::new();
        for (rel, fixed) in snapshot(name) {
            let text = similar::TextDiff::from_lines(&before[&rel], &fixed);
            want.push_str(&text.unified_diff().header(&format!("a/{rel}"), &format!("b/{rel}")).to_string());
        }
        assert_eq!(diff, want, "{name}: --diff differs from what fix writes");
    }
}

#[test]
fn dirty_files_are_refused_and_nothing_is_written() {
    for name in CRATES {
        let dir = copy_crate(name);
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-qm", "init"]);
        // An uncommitted change in one of the files the codemod would rewrite.
        let (rel, _) = snapshot(name).into_iter().find(|(r, _)| r.ends_with(".rs")).unwrap();
        let path = dir.path().join(&rel);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("// work in progress\n");
        std::fs::write(&path, &text).unwrap();
        let before = sources(dir.path());
        mcp_lint(dir.path())
            .args(["fix", "--unsafe-fixes", "."])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("uncommitted changes").and(predicate::str::contains(rel.as_str())));
        assert_eq!(sources(dir.path()), before, "{name}: a refused fix wrote something");
    }
}

#[test]
fn read_only_files_are_refused_and_nothing_is_written() {
    use std::os::unix::fs::PermissionsExt;
    for name in CRATES {
        let dir = copy_crate(name);
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-qm", "init"]);
        // The last file the codemod changes is read-only: the others must not be written either.
        let (rel, _) = snapshot(name).into_iter().next_back().unwrap();
        let path = dir.path().join(&rel);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let before = sources(dir.path());
        mcp_lint(dir.path())
            .args(["fix", "--unsafe-fixes", "."])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("read-only").and(predicate::str::contains(rel.as_str())));
        assert_eq!(sources(dir.path()), before, "{name}: a refused fix wrote something");
    }
}

#[test]
fn without_unsafe_fixes_the_codemod_is_only_offered() {
    let dir = copy_crate("workspace-tools");
    let before = sources(dir.path());
    mcp_lint(dir.path())
        .args(["fix", "--allow-no-vcs", "--select", "server-roots-request", "."])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("pass --unsafe-fixes to give the tool a directory parameter"));
    assert_eq!(sources(dir.path()), before);
}

/// A `roots/list` request the codemod never looks at (rmcp's typed `send_request`, not
/// `Peer::list_roots()`): plain `fix` must not offer it an unsafe fix that `--unsafe-fixes` would
/// then refuse; both say the same reason, in the code's terms.
#[test]
fn a_request_the_codemod_does_not_rewrite_is_never_offered_its_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let code = r#"use rmcp::model::{ListRootsRequest, ServerRequest};
use rmcp::service::{Peer, RoleServer};

pub struct Explorer;

impl Explorer {
    pub async fn reload_folders(&self, peer: &Peer<RoleServer>) -> usize {
        match peer.send_request(ServerRequest::ListRootsRequest(ListRootsRequest::default())).await {
            Ok(_) => 1,
            Err(_) => 0,
        }
    }
}
"#;
    std::fs::write(dir.path().join("src/lib.rs"), code).unwrap();
    let reason = "sends rmcp's typed `roots/list` request through `send_request`";
    for unsafe_fixes in [false, true] {
        let mut args = vec!["fix", "--allow-no-vcs", "--select", "server-roots-request", "."];
        if unsafe_fixes {
            args.insert(1, "--unsafe-fixes");
        }
        let out = mcp_lint(dir.path()).args(&args).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(reason), "{stderr}");
        assert!(!stderr.contains("pass --unsafe-fixes"), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(), code);
}

const MANIFEST: &str = "[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nrmcp = \"3.11\"\nserde = \"1\"\nschemars = \"1\"\n\n[workspace]\n";

/// A crate with one tool the codemod can rewrite and one it cannot: the second is left as it was,
/// with the reason in the summary; the first is still rewritten.
#[test]
fn what_cannot_be_rewritten_is_left_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let code = r#"use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, tool, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NameArgs {
    /// A name.
    pub name: String,
}

pub struct Srv;

#[tool_router]
impl Srv {
    #[allow(deprecated)]
    #[tool(description = "Show the first root's name")]
    async fn root_name(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let name = listed.roots.first().and_then(|r| r.name.clone()).unwrap_or_default();
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(name)]))
    }

    #[allow(deprecated)]
    #[tool(description = "Greet in the first root")]
    async fn greet(&self, Parameters(args): Parameters<NameArgs>, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let dir = listed.roots.first().map(|r| r.uri.clone()).ok_or_else(|| ErrorData::invalid_request("no roots", None))?;
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(format!("{} in {dir}", args.name))]))
    }
}
"#;
    std::fs::write(dir.path().join("src/lib.rs"), code).unwrap();
    // `roots-to` of the configuration forces the migration (the roots here are only printed).
    std::fs::write(dir.path().join("mcp-lint.toml"), "roots-to = \"param\"\n").unwrap();
    mcp_lint(dir.path())
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--select", "server-roots-request", "."])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("tool `greet` takes the directory as a parameter")
                .and(predicate::str::contains("left: src/lib.rs:21:"))
                .and(predicate::str::contains("the roots codemod left it: the tool `root_name`: uses its `name`")),
        );
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    syn::parse_file(&fixed).unwrap();
    assert!(fixed.contains("let dir = args.path.clone();"), "{fixed}");
    assert!(fixed.contains("let name = listed.roots.first().and_then(|r| r.name.clone())"), "{fixed}");
    assert!(fixed.contains("async fn root_name(&self, context: RequestContext<RoleServer>)"), "{fixed}");
    // The context import stays: the refused tool still uses it.
    assert!(fixed.contains("use rmcp::service::{RequestContext, RoleServer};"), "{fixed}");
}

/// Roots that `on_initialized` stores through a copy of a field, in a task it spawns, into a value
/// the server holds (`self.library.folders`): the model knows where they went, the cache rewrite
/// does not take that shape, and the reason says so in the code's terms. Nothing is written.
#[test]
fn roots_stored_inside_another_value_are_left_naming_the_place() {
    let dir = copy_crate("../rust/first-root-as-workspace/spawned_roots_task");
    let before = sources(dir.path());
    mcp_lint(dir.path())
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--select", "server-roots-request", "."])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "the roots are requested in `on_initialized` and stored in `folders` of `Library`",
        ));
    assert_eq!(sources(dir.path()), before);
}

/// A crate with one file, `src/lib.rs`, fixed with `--unsafe-fixes`: the exit code, the summary and
/// the file afterwards.
fn fix_one_file(code: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), code).unwrap();
    let out = mcp_lint(dir.path())
        // The roots here are only printed: the model does not know them as working directories,
        // so the rewrite mechanics are tested with the migration forced.
        .args([
            "fix",
            "--unsafe-fixes",
            "--roots-to",
            "param",
            "--allow-no-vcs",
            "--select",
            "server-roots-request",
            ".",
        ])
        .output()
        .unwrap();
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    if fixed != code {
        syn::parse_file(&fixed).unwrap_or_else(|e| panic!("the fixed file does not parse ({e}):\n{fixed}"));
        // A second run changes nothing.
        mcp_lint(dir.path())
            .args([
                "fix",
                "--unsafe-fixes",
                "--roots-to",
                "param",
                "--allow-no-vcs",
                "--diff",
                "--select",
                "server-roots-request",
                ".",
            ])
            .assert()
            .stdout(predicate::str::is_empty());
    }
    (out.status.code().unwrap(), String::from_utf8(out.stderr).unwrap(), fixed)
}

/// The hand-written forms beyond the `text-stats` fixture: a `JsonObject` bound before the
/// `match`, every root in a loop, a `json!` schema without `properties`, an argument struct the arm
/// parses (it gets the field, and its `json!` schema the property), a helper called from an arm
/// (inlined, then removed), and a method that still uses the context (it gets one more argument).
/// The fixed crate builds (checked against rmcp 3.11 when this test was written); here it must
/// parse and be stable.
#[test]
fn hand_written_handler_forms_are_rewritten() {
    let code = r#"use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams, Tool};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

#[derive(serde::Deserialize)]
struct GrepArgs {
    query: String,
}

#[allow(deprecated)]
async fn project_dir(peer: &Peer<RoleServer>) -> Result<PathBuf, ErrorData> {
    let listed = peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let first = listed.roots.first().ok_or_else(|| ErrorData::invalid_request("no roots", None))?;
    Ok(PathBuf::from(first.uri.trim_start_matches("file://")))
}

pub struct Srv;

impl Srv {
    #[allow(deprecated)]
    async fn tree(&self, depth: u64, context: &RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        if context.ct.is_cancelled() {
            return Err(ErrorData::internal_error("cancelled", None));
        }
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let dir = listed.roots.first().map(|r| r.uri.clone()).ok_or_else(|| ErrorData::invalid_request("no roots", None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{dir} {depth}"))]))
    }
}

impl ServerHandler for Srv {
    async fn list_tools(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListToolsResult, ErrorData> {
        let schema = |v: serde_json::Value| Arc::new(v.as_object().cloned().unwrap_or_default());
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("roots_count", "Count the workspace folders", schema(serde_json::json!({"type": "object"}))),
            Tool::new(
                "grep",
                "Search",
                schema(serde_json::json!({
                    "type": "object",
                    "properties": {"query": {"type": "string"}},
                })),
            ),
            Tool::new("where", "Project folder", schema(serde_json::json!({"type": "object", "properties": {}, "required": []}))),
            Tool::new("tree", "Tree", schema(serde_json::json!({"type": "object", "properties": {"depth": {"type": "integer"}}}))),
        ]))
    }

    #[allow(deprecated)]
    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.clone().unwrap_or_default();
        let result = match &*request.name {
            "roots_count" => {
                let roots = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?.roots;
                let mut names = Vec::new();
                for root in &roots {
                    names.push(root.uri.trim_start_matches("file://").to_owned());
                }
                CallToolResult::success(vec![ContentBlock::text(format!("{} {}", roots.len(), names.join(",")))])
            }
            "grep" => {
                let args: GrepArgs = serde_json::from_value(serde_json::Value::Object(arguments))
                    .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
                let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                let root = listed.roots.first().and_then(|r| r.uri.strip_prefix("file://")).ok_or_else(|| ErrorData::invalid_request("no roots", None))?;
                CallToolResult::success(vec![ContentBlock::text(format!("{} in {root}", args.query))])
            }
            "where" => CallToolResult::success(vec![ContentBlock::text(project_dir(&context.peer).await?.display().to_string())]),
            "tree" => {
                let depth = request.arguments.as_ref().and_then(|a| a.get("depth")).and_then(|v| v.as_u64()).unwrap_or(1);
                return self.tree(depth, &context).await.map(Into::into);
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(result.into())
    }
}
"#;
    let (code_out, summary, fixed) = fix_one_file(code);
    assert_eq!(code_out, 0, "{summary}");
    for tool in ["roots_count", "grep", "where", "tree"] {
        assert!(summary.contains(&format!("tool `{tool}` takes the directory as a parameter")), "{summary}");
    }
    assert!(summary.contains("changes the tool's public input schema"), "{summary}");
    let expected = [
        // The `JsonObject` bound before the `match` is read; every root becomes `paths`.
        "let paths = arguments\n                    .get(\"paths\")\n                    .and_then(|v| v.as_array())",
        "for root in &paths {\n                    names.push(root.as_str().to_owned());",
        "format!(\"{} {}\", paths.len(), names.join(\",\"))",
        // A schema without `properties` gets them, and `required`.
        "json!({\"type\": \"object\", \"properties\": {\"paths\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, \
         \"description\": \"Absolute paths of the directories to work in.\"}}, \"required\": [\"paths\"]})",
        // The parsed struct gets the field; its `json!` schema the property (after a trailing comma).
        "    query: String,\n    /// Absolute path of the directory to work in.\n    path: String,\n}",
        "let root = args.path.as_str();",
        "\"properties\": {\"query\": {\"type\": \"string\"}, \"path\": {\"type\": \"string\", \"description\": \
         \"Absolute path of the directory to work in.\"}},\n                    \"required\": [\"path\"],",
        // The helper is inlined into the arm, which becomes a block reading the argument.
        "\"where\" => {\n                let path = arguments\n",
        "CallToolResult::success(vec![ContentBlock::text(PathBuf::from(path.as_str()).display().to_string())])\n            }",
        "\"properties\": {\"path\": {\"type\": \"string\", \"description\": \"Absolute path of the directory to work in.\"}}, \
         \"required\": [\"path\"]",
        // The method keeps the context it still uses and takes the directory as one more argument.
        "async fn tree(&self, depth: u64, context: &RequestContext<RoleServer>, path: String)",
        "let dir = path.clone();",
        "return self.tree(depth, &context, path).await.map(Into::into);",
        // The context is still used, so `call_tool` keeps its name.
        "context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData>",
    ];
    for e in expected {
        assert!(fixed.contains(e), "missing {e:?} in:\n{fixed}");
    }
    for gone in ["list_roots", "fn project_dir", "#[allow(deprecated)]", "Peer"] {
        assert!(!fixed.contains(gone), "{gone} is still in:\n{fixed}");
    }
}

/// Hand-written handlers the codemod cannot rewrite safely are left as they were, every arm of
/// them, with the reason in the summary.
#[test]
fn hand_written_handlers_it_cannot_rewrite_are_left_whole() {
    let handler = |list_tools_body: &str, call_tool_body: &str| {
        format!(
            r#"use std::sync::Arc;
use rmcp::model::{{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams, Tool}};
use rmcp::service::{{RequestContext, RoleServer}};
use rmcp::{{ErrorData as McpError, ServerHandler}};

pub struct Srv;

impl ServerHandler for Srv {{
    async fn list_tools(&self, _r: Option<PaginatedRequestParams>, _c: RequestContext<RoleServer>) -> Result<ListToolsResult, McpError> {{
        {list_tools_body}
    }}

    #[allow(deprecated)]
    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {{
        {call_tool_body}
    }}
}}
"#
        )
    };
    let tools = r#"let schema = |v: serde_json::Value| Arc::new(v.as_object().cloned().unwrap_or_default());
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("first", "d", schema(serde_json::json!({"type": "object", "properties": {}}))),
            Tool::new("name", "d", schema(serde_json::json!({"type": "object", "properties": {}}))),
        ]))"#;
    let first_arm = r#"let listed = context.peer.list_roots().await.map_err(|e| McpError::internal_error(e.to_string(), None))?;
                let dir = listed.roots.first().map(|r| r.uri.clone()).ok_or_else(|| McpError::invalid_request("no roots", None))?;
                Ok(CallToolResult::success(vec![ContentBlock::text(dir)]).into())"#;
    let cases = [
        (
            // One arm uses a root's name: the other arm is not rewritten either.
            handler(
                tools,
                &format!(
                    r#"match request.name.as_ref() {{
            "first" => {{
                {first_arm}
            }}
            "name" => {{
                let listed = context.peer.list_roots().await.map_err(|e| McpError::internal_error(e.to_string(), None))?;
                let name = listed.roots.first().and_then(|r| r.name.clone()).unwrap_or_default();
                Ok(CallToolResult::success(vec![ContentBlock::text(name)]).into())
            }}
            _ => Err(McpError::invalid_params("no such tool", None)),
        }}"#
                ),
            ),
            "its arm for the tool `name`: uses its `name`",
        ),
        (
            // The roots are requested for every tool, before the dispatch.
            handler(
                tools,
                r#"let listed = context.peer.list_roots().await.map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let dir = listed.roots.first().map(|r| r.uri.clone()).unwrap_or_default();
        match request.name.as_ref() {
            "first" => Ok(CallToolResult::success(vec![ContentBlock::text(dir)]).into()),
            _ => Err(McpError::invalid_params("no such tool", None)),
        }"#,
            ),
            "the roots are requested outside the arms of the `match` on `request.name`",
        ),
        (
            // No `match` on the name.
            handler(
                tools,
                &format!(
                    r#"if request.name == "first" {{
            {first_arm}
        }} else {{
            Err(McpError::invalid_params("no such tool", None))
        }}"#
                ),
            ),
            "it does not dispatch with one `match` on `request.name`",
        ),
        (
            // The schema is not written out where the codemod can edit it.
            handler(
                r#"let schema: Arc<rmcp::model::JsonObject> = Arc::new(serde_json::from_str(include_str!("first.json")).unwrap());
        Ok(ListToolsResult::with_all_items(vec![Tool::new("first", "d", schema)]))"#,
                &format!(
                    r#"match request.name.as_ref() {{
            "first" => {{
                {first_arm}
            }}
            _ => Err(McpError::invalid_params("no such tool", None)),
        }}"#
                ),
            ),
            "its arm for the tool `first`: its input schema is neither one `json!` object nor derived from one struct",
        ),
        (
            // No `Tool::new("first", …)` at all.
            handler(
                "Ok(ListToolsResult::default())",
                &format!(
                    r#"match request.name.as_ref() {{
            "first" => {{
                {first_arm}
            }}
            _ => Err(McpError::invalid_params("no such tool", None)),
        }}"#
                ),
            ),
            "no `Tool::new(\"first\", …)` in the crate describes its input schema",
        ),
        (
            // One arm for two tools.
            handler(
                tools,
                &format!(
                    r#"match request.name.as_ref() {{
            "first" | "name" => {{
                {first_arm}
            }}
            _ => Err(McpError::invalid_params("no such tool", None)),
        }}"#
                ),
            ),
            "is not the arm of one tool named by a string",
        ),
    ];
    for (code, reason) in cases {
        let (exit, summary, fixed) = fix_one_file(&code);
        assert_eq!(fixed, code, "a refused handler was changed:\n{summary}");
        assert_eq!(exit, 1, "{summary}");
        assert!(summary.contains("the roots codemod left it: the hand-written `call_tool` handler"), "{summary}");
        assert!(summary.contains(reason), "{reason}\n{summary}");
        assert!(summary.contains("left: src/lib.rs:"), "{summary}");
    }
}

/// A one-file crate with the given manifest, fixed with `--unsafe-fixes` and `extra` flags.
fn fix_crate(manifest: &str, code: &str, extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), code).unwrap();
    let out = mcp_lint(dir.path())
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--select", "server-roots-request"])
        .args(extra)
        .arg(".")
        .output()
        .unwrap();
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    (String::from_utf8(out.stderr).unwrap(), fixed)
}

/// A sandbox: `new` seeds the allow-list from the command line, the roots extend it, the tool
/// checks its `path` against it. `{init}` is how `new` fills the list.
fn sandbox(init: &str) -> String {
    format!(
        r#"use std::path::PathBuf;
use std::sync::Arc;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{{NotificationContext, Peer, RoleServer}};
use rmcp::{{ErrorData, ServerHandler, tool, tool_router}};
use tokio::sync::RwLock;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct ReadArgs {{
    /// The file.
    pub path: String,
}}

#[derive(Clone)]
pub struct Srv {{
    allowed: Arc<RwLock<Vec<PathBuf>>>,
}}

impl Srv {{
    pub fn new(dirs: Vec<PathBuf>) -> Self {{
        Self {{ allowed: {init} }}
    }}

    #[allow(deprecated)]
    async fn refresh(&self, peer: &Peer<RoleServer>) {{
        if let Ok(listed) = peer.list_roots().await {{
            let mut allowed = self.allowed.write().await;
            allowed.extend(listed.roots.iter().map(|r| PathBuf::from(r.uri.trim_start_matches("file://"))));
        }}
    }}
}}

#[tool_router]
impl Srv {{
    #[tool(description = "Read a file")]
    async fn read(&self, Parameters(args): Parameters<ReadArgs>) -> Result<CallToolResult, ErrorData> {{
        let path = PathBuf::from(&args.path);
        if !self.allowed.read().await.iter().any(|d| path.starts_with(d)) {{
            return Err(ErrorData::invalid_params("outside the allowed directories", None));
        }}
        Ok(CallToolResult::success(vec![]))
    }}
}}

impl ServerHandler for Srv {{
    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {{
        self.refresh(&context.peer).await;
    }}
}}
"#
    )
}

/// The security case (issue #17): an allow-list is never turned into a tool parameter. By default
/// it stays server configuration; forcing `param` is refused with the reason; a list that only the
/// client fills is left, since without the roots every path would be rejected.
#[test]
fn allow_lists_stay_server_configuration_and_never_become_a_parameter() {
    let code = sandbox("Arc::new(RwLock::new(dirs))");
    let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
    assert!(summary.contains("the allow-list `self.allowed` stays server configuration"), "{summary}");
    assert!(summary.contains("`new` seeds it with `Arc::new(RwLock::new(dirs))`"), "{summary}");
    syn::parse_file(&fixed).unwrap();
    assert!(!fixed.contains("list_roots") && !fixed.contains("fn refresh") && !fixed.contains("on_roots_list_changed"));
    assert!(fixed.contains("Self { allowed: Arc::new(RwLock::new(dirs)) }"), "the seeding stays:\n{fixed}");
    assert!(fixed.contains(".any(|d| path.starts_with(d))"), "the check stays:\n{fixed}");
    assert!(!fixed.contains("pub paths") && !fixed.contains("args.paths"), "no parameter:\n{fixed}");
    assert!(!fixed.contains("Peer"), "the unused import goes:\n{fixed}");

    for forced in [&["--roots-to", "param"][..], &[]] {
        let manifest = if forced.is_empty() {
            MANIFEST.replace("[workspace]", "[workspace]\n\n[package.metadata.mcp-lint]\nroots-to = \"param\"")
        } else {
            MANIFEST.to_owned()
        };
        let (summary, fixed) = fix_crate(&manifest, &code, forced);
        assert_eq!(fixed, code, "a forced `param` changed an allow-list:\n{summary}");
        assert!(summary.contains("`--roots-to param` would let every client choose any directory"), "{summary}");
    }

    // `--roots-to config` on a tool that asks for its working directory itself: no list to keep.
    let workdir = r#"use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, tool, tool_router};
pub struct Srv;
#[tool_router]
impl Srv {
    #[allow(deprecated)]
    #[tool(description = "List the workspace")]
    async fn ls(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let root = listed.roots.first().ok_or_else(|| ErrorData::invalid_request("no roots", None))?;
        let n = std::fs::read_dir(root.uri.trim_start_matches("file://")).map(|d| d.count()).unwrap_or(0);
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(n.to_string())]))
    }
}
"#;
    let (summary, fixed) = fix_crate(MANIFEST, workdir, &["--roots-to", "config"]);
    assert_eq!(fixed, workdir, "{summary}");
    assert!(
        summary.contains("`--roots-to config` asks to keep the directories in server configuration, but"),
        "{summary}"
    );
    let (summary, fixed) = fix_crate(MANIFEST, workdir, &[]);
    assert!(summary.contains("tool `ls` takes the directory as a parameter"), "{summary}");
    assert!(fixed.contains("pub path: String"), "a working directory becomes a parameter:\n{fixed}");

    // Only the client filled the list: without clap, an environment variable becomes its source
    // (documented on the field, said in the summary); with clap, the codemod leaves it.
    let only_client = sandbox("Arc::new(RwLock::new(Vec::new()))");
    let (summary, fixed) = fix_crate(MANIFEST, &only_client, &[]);
    assert!(summary.contains("seeded from the new environment variable `SRV_ALLOWED`"), "{summary}");
    assert!(summary.contains("set `SRV_ALLOWED` to the directories the tools may read"), "{summary}");
    assert!(fixed.contains("/// Seeded from the environment variable `SRV_ALLOWED`"), "{fixed}");
    assert!(fixed.contains("RwLock::new(std::env::var_os(\"SRV_ALLOWED\").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default())"), "{fixed}");
    assert!(fixed.contains(".any(|d| path.starts_with(d))") && !fixed.contains("list_roots"), "{fixed}");
    let with_clap = MANIFEST.replace("schemars = \"1\"\n", "schemars = \"1\"\nclap = \"4\"\n");
    let (summary, fixed) = fix_crate(&with_clap, &only_client, &[]);
    assert_eq!(fixed, only_client);
    assert!(summary.contains("nothing but the client ever fills `self.allowed`"), "{summary}");
    assert!(summary.contains("the crate parses its command line with clap"), "{summary}");
}

/// `--roots-to config` where the roots are kept for later but are no allow-list (a starting
/// folder with a fallback of the server's own): the client's refresh goes, and the summary says
/// what is left (the field's initial value), never "allow-list" or a source the seed does not use.
#[test]
fn forced_config_on_roots_that_are_no_allow_list_says_what_it_does() {
    let code = r#"use std::path::PathBuf;
use std::sync::Arc;
use rmcp::model::Root;
use rmcp::service::{NotificationContext, RoleServer};
use rmcp::ServerHandler;
use tokio::sync::RwLock;

pub struct Srv {
    seen_roots: Arc<RwLock<Option<Vec<Root>>>>,
    home: PathBuf,
}

impl Srv {
    pub fn new(home: PathBuf) -> Self {
        Self { seen_roots: Arc::new(RwLock::new(None)), home }
    }

    pub async fn start_folder(&self) -> PathBuf {
        match &*self.seen_roots.read().await {
            Some(roots) if !roots.is_empty() => PathBuf::from(roots[0].uri.clone()),
            _ => self.home.clone(),
        }
    }
}

impl ServerHandler for Srv {
    #[allow(deprecated)]
    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        if let Ok(listed) = context.peer.list_roots().await {
            *self.seen_roots.write().await = Some(listed.roots);
        }
    }
}
"#;
    let (summary, fixed) = fix_crate(MANIFEST, code, &["--roots-to", "config"]);
    assert!(
        summary.contains(
            "`self.seen_roots` keeps only what the server puts there itself (the constructor starts it empty)"
        ),
        "{summary}"
    );
    assert!(summary.contains("review what it does without the client's roots"), "{summary}");
    assert!(!summary.contains("allow-list") && !summary.contains("from its argument"), "{summary}");
    syn::parse_file(&fixed).unwrap();
    assert!(!fixed.contains("list_roots") && !fixed.contains("on_roots_list_changed"), "{fixed}");
    assert!(fixed.contains("_ => self.home.clone()"), "the reader stays:\n{fixed}");
    // Without the flag: left, naming the flag that applies (`param` does not: the list holds `Root`s).
    let (summary, fixed) = fix_crate(MANIFEST, code, &[]);
    assert_eq!(fixed, code, "{summary}");
    assert!(
        summary.contains("pass `--roots-to config` to stop filling `self.seen_roots` from the client"),
        "{summary}"
    );
    assert!(!summary.contains("pass `--roots-to param`"), "{summary}");
}

/// Every refusal says why in the code's terms: a test, the list passed on whole (to what), a
/// function called only from `on_initialized` storing a global, a macro body, another SDK.
#[test]
fn refusals_say_why_in_the_code_s_terms() {
    let header =
        "use rmcp::service::{NotificationContext, Peer, RoleServer};\nuse rmcp::ServerHandler;\npub struct Srv;\n";
    let cases = [
        (
            "#[tokio::test]\n#[allow(deprecated)]\nasync fn lists_roots() { let peer: Peer<RoleServer> = todo!(); let _ = peer.list_roots().await; }\n",
            "it is in the test `lists_roots`",
        ),
        (
            "impl Srv {\n#[allow(deprecated)]\n#[rmcp::tool(description = \"d\")]\nasync fn load(&self, peer: Peer<RoleServer>) -> String { let listed = peer.list_roots().await.unwrap(); plugins::configure(listed.roots); String::new() }\n}\n",
            "the roots list is passed on whole (to `plugins::configure`)",
        ),
        (
            "static ROOTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();\nimpl Srv {\n#[allow(deprecated)]\nasync fn remember(&self, peer: &Peer<RoleServer>) { let listed = peer.list_roots().await.unwrap(); let _ = ROOTS.set(listed.roots.iter().map(|r| r.uri.clone()).collect()); }\n}\nimpl ServerHandler for Srv {\nasync fn on_initialized(&self, context: NotificationContext<RoleServer>) { self.remember(&context.peer).await; }\n}\n",
            "`remember` is called only from `on_initialized` and stores them in the global `ROOTS`",
        ),
        (
            "mod globals {\npub static WORKSPACE: std::sync::OnceLock<String> = std::sync::OnceLock::new();\npub fn adopt(dir: String) { let _ = WORKSPACE.set(dir); }\npub fn configure(dir: String) { let _ = WORKSPACE.set(dir); }\n}\nfn main() { globals::configure(std::env::args().nth(1).unwrap_or_default()); }\nimpl Srv {\n#[allow(deprecated)]\nasync fn adopt_first(&self, peer: &Peer<RoleServer>) { let listed = peer.list_roots().await.unwrap(); if let Some(r) = listed.roots.first() { globals::adopt(r.uri.clone()); } }\n}\nimpl ServerHandler for Srv {\nasync fn on_initialized(&self, context: NotificationContext<RoleServer>) { self.adopt_first(&context.peer).await; }\n}\n",
            "`adopt_first` is called only from `on_initialized` and stores them in the global `WORKSPACE` (through \
             `globals::adopt`), which `configure` (from `main`) also sets",
        ),
        (
            "impl Srv {\n#[allow(deprecated)]\n#[rmcp::tool(description = \"d\")]\nasync fn pick(&self, peer: Peer<RoleServer>) -> String { tokio::select! { r = peer.list_roots() => format!(\"{r:?}\"), _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => String::new() } }\n}\n",
            "is inside the body of the macro `tokio::select!`",
        ),
        (
            // The helper parses each root's URI (a shape the helper inlining refuses), and its caller
            // keeps paths inside the roots: the allow-list is the reason, not the parsing.
            "impl Srv {\n#[allow(deprecated)]\nasync fn granted(peer: &Peer<RoleServer>) -> Vec<std::path::PathBuf> { let listed = peer.list_roots().await.unwrap(); listed.roots.iter().filter_map(|r| url::Url::parse(&r.uri).ok()?.to_file_path().ok()).collect() }\n#[rmcp::tool(description = \"d\")]\nasync fn open(&self, path: String, peer: Peer<RoleServer>) -> String { let granted = Self::granted(&peer).await; let p = std::path::PathBuf::from(path); if !granted.iter().any(|g| p.starts_with(g)) { return String::new(); } std::fs::read_to_string(p).unwrap_or_default() }\n}\n",
            "the helper `granted`: paths are compared against the roots (read as an allow-list",
        ),
        (
            // Stored behind a setter of another type: where they went is said, not that they went nowhere.
            "pub struct Book { dirs: Vec<String> }\nimpl Book { pub fn set_dirs(&mut self, dirs: Vec<String>) { self.dirs = dirs; } }\npub struct Host { book: tokio::sync::Mutex<Book> }\nimpl ServerHandler for Host {\n#[allow(deprecated)]\nasync fn on_initialized(&self, context: NotificationContext<RoleServer>) { let Ok(listed) = context.peer.list_roots().await else { return }; let uris: Vec<String> = listed.roots.into_iter().map(|r| r.uri).collect(); self.book.lock().await.set_dirs(uris); }\n}\n",
            "the roots are requested in `on_initialized` and handed on whole to `set_dirs`",
        ),
    ];
    for (body, reason) in cases {
        let code = format!("{header}{body}");
        let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
        assert_eq!(fixed, code, "{summary}");
        assert!(summary.contains(reason), "{reason}\n{summary}");
        assert!(
            !summary.contains("needs a person)") || !summary.contains("server-roots-request (no automatic"),
            "{summary}"
        );
        assert!(!summary.contains("the helper `lists_roots`"), "{summary}");
    }
    let other_sdk = "[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nrust-mcp-sdk = \"0.8\"\n\n[workspace]\n";
    let code = "use rust_mcp_sdk::McpServer;\npub async fn ask(runtime: &dyn McpServer) { let _ = runtime.request_root_list(None).await; }\n";
    let (summary, fixed) = fix_crate(other_sdk, code, &[]);
    assert_eq!(fixed, code);
    assert!(summary.contains("the crate uses `rust-mcp-sdk`, which the roots codemod does not rewrite"), "{summary}");
}

/// An `on_initialized` that asks for the roots itself and does other work too: only the roots part
/// goes, with the `#[allow(deprecated)]` only it needed; the unused context is renamed, and a second
/// `fix` changes nothing.
#[test]
fn only_the_roots_part_of_on_initialized_goes() {
    let code = r#"use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{NotificationContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, tool, tool_router};
use tokio::sync::RwLock;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// The file.
    pub path: String,
}

#[derive(Clone)]
pub struct Files {
    dirs: Arc<RwLock<Vec<PathBuf>>>,
    started: Arc<AtomicBool>,
}

impl Files {
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs: Arc::new(RwLock::new(dirs)), started: Default::default() }
    }
}

#[tool_router]
impl Files {
    #[tool(description = "Read")]
    async fn read(&self, Parameters(a): Parameters<Args>) -> Result<CallToolResult, ErrorData> {
        let p = PathBuf::from(&a.path);
        if !self.dirs.read().await.iter().any(|d| p.starts_with(d)) {
            return Err(ErrorData::invalid_params("outside", None));
        }
        Ok(CallToolResult::success(vec![]))
    }
}

impl ServerHandler for Files {
    #[allow(deprecated)]
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.started.store(true, Ordering::SeqCst);
        // The client's folders are allowed too.
        if let Ok(listed) = context.peer.list_roots().await {
            self.dirs.write().await.extend(listed.roots.iter().map(|r| PathBuf::from(r.uri.trim_start_matches("file://"))));
        }
    }
}
"#;
    let want = code
        .replace("    #[allow(deprecated)]\n    async fn on_initialized(&self, context", "    async fn on_initialized(&self, _context")
        .replace(
            "        // The client's folders are allowed too.\n        if let Ok(listed) = context.peer.list_roots().await {\n            self.dirs.write().await.extend(listed.roots.iter().map(|r| PathBuf::from(r.uri.trim_start_matches(\"file://\"))));\n        }\n",
            "",
        );
    let (exit, summary, fixed) = fix_one_file_as_is(code);
    assert_eq!(fixed, want, "{summary}");
    assert!(summary.contains("removed the roots part of `on_initialized`"), "{summary}");
    assert_eq!(exit, 0, "{summary}");

    // The same file in no crate: nothing is rewritten, and the finding says why (the codemod
    // rewrites a crate at once), not a bare "needs a person"; so does another SDK's request.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("files.rs"), code).unwrap();
    let other = "use rust_mcp_sdk::McpServer;\n\
                 pub async fn folders(runtime: &dyn McpServer) {\n\
                     let listed = runtime.request_root_list(None).await;\n\
                     drop(listed);\n\
                 }\n";
    std::fs::write(dir.path().join("other_sdk.rs"), other).unwrap();
    let out = mcp_lint(dir.path())
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--diff", "--select", "server-roots-request", "."])
        .output()
        .unwrap();
    let summary = String::from_utf8(out.stderr).unwrap();
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!summary.contains("needs a person"), "{summary}");
    assert!(
        summary.contains("files.rs:45:42: server-roots-request (the roots codemod rewrites a whole crate at once, and this file is in none"),
        "{summary}"
    );
    assert!(summary.contains("is rust-mcp-sdk's request, which the roots codemod does not rewrite"), "{summary}");
    // `check --format json` carries the same reasons as notes.
    let out = mcp_lint(dir.path())
        .args(["check", "--format", "json", "--select", "server-roots-request", "."])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes: Vec<&str> = report
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["note"].as_str().unwrap_or_else(|| panic!("a finding without a note: {f}")))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("in none (no `Cargo.toml` above it)")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("is rust-mcp-sdk's request")), "{notes:?}");
}

/// `fix_one_file` without a forced migration.
fn fix_one_file_as_is(code: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), code).unwrap();
    let args = ["fix", "--unsafe-fixes", "--allow-no-vcs", "--select", "server-roots-request", "."];
    let out = mcp_lint(dir.path()).args(args).output().unwrap();
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    mcp_lint(dir.path())
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--diff", "--select", "server-roots-request", "."])
        .assert()
        .stdout(predicate::str::is_empty());
    (out.status.code().unwrap(), String::from_utf8(out.stderr).unwrap(), fixed)
}

/// A crate with one file, `src/lib.rs`, and the manifest `manifest`, fixed with `roots-to = "mrtr"`
/// in its configuration: the exit code, the summary and the file afterwards.
fn fix_one_file_mrtr(manifest: &str, code: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), code).unwrap();
    std::fs::write(dir.path().join("mcp-lint.toml"), "roots-to = \"mrtr\"\n").unwrap();
    let args = ["fix", "--unsafe-fixes", "--allow-no-vcs", "--select", "server-roots-request", "."];
    let out = mcp_lint(dir.path()).args(args).output().unwrap();
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    mcp_lint(dir.path())
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--diff", "--select", "server-roots-request", "."])
        .assert()
        .stdout(predicate::str::is_empty());
    (out.status.code().unwrap(), String::from_utf8(out.stderr).unwrap(), fixed)
}

const MRTR_CODE: &str = r#"use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, tool, tool_router};

pub struct Srv;

#[allow(deprecated)]
async fn first_root(peer: &rmcp::Peer<RoleServer>) -> Option<String> {
    peer.list_roots().await.ok()?.roots.into_iter().next().map(|r| r.uri)
}

#[tool_router]
impl Srv {
    #[tool(description = "Show the first root")]
    async fn first(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        if listed.roots.is_empty() {
            return Ok(CallToolResult::success(vec![ContentBlock::text("none")]));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(listed.roots[0].uri.clone())]))
    }

    #[tool(description = "Show the first root, through a helper")]
    async fn through_helper(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let uri = first_root(&context.peer).await.unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(uri)]))
    }
}
"#;

/// `roots-to = "mrtr"` on rmcp 3.11: the tool's awaited request becomes the round trip (the
/// extractor replaces the context, the result type becomes `CallToolResponse`, every `Ok` is
/// converted); the helper a tool awaits takes the answer the tool read in place of the peer.
#[test]
fn mrtr_turns_the_tools_request_into_an_input_required_result() {
    let (code, stderr, fixed) = fix_one_file_mrtr(MANIFEST, MRTR_CODE);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("the tool `first` asks for the roots through an `input_required` result"), "{stderr}");
    assert!(
        stderr.contains("the tool `through_helper` asks for the roots through an `input_required` result")
            && stderr.contains("`first_root` takes the answer in place of `peer`"),
        "{stderr}"
    );
    let expected = r#"    #[allow(deprecated)]
    #[tool(description = "Show the first root")]
    async fn first(&self, InputResponses(input_responses): InputResponses) -> Result<CallToolResponse, ErrorData> {
        // 2026-07-28: the roots come in the retry's `inputResponses`; the first call asks for them.
        let Some(roots_answer) = input_responses.as_ref().and_then(|answers| answers.get("roots")) else {
            let ask = InputRequest::ListRoots(rmcp::model::ListRootsRequest::default());
            return Ok(InputRequiredResult::from_input_requests([("roots".to_owned(), ask)].into()).into());
        };
        let listed = rmcp::serde_json::from_value::<rmcp::model::ListRootsResult>(roots_answer.clone()).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        if listed.roots.is_empty() {
            return Ok(CallToolResult::success(vec![ContentBlock::text("none")]).into());
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(listed.roots[0].uri.clone())]).into())
    }
"#;
    assert!(fixed.contains(expected), "{fixed}");
    let helper = r#"#[allow(deprecated)]
async fn first_root(roots_answer: &rmcp::serde_json::Value) -> Option<String> {
    rmcp::serde_json::from_value::<rmcp::model::ListRootsResult>(roots_answer.clone()).ok()?.roots.into_iter().next().map(|r| r.uri)
}
"#;
    assert!(fixed.contains(helper), "{fixed}");
    let through = r#"    #[allow(deprecated)]
    #[tool(description = "Show the first root, through a helper")]
    async fn through_helper(&self, InputResponses(input_responses): InputResponses) -> Result<CallToolResponse, ErrorData> {
        // 2026-07-28: the roots come in the retry's `inputResponses`; the first call asks for them.
        let Some(roots_answer) = input_responses.as_ref().and_then(|answers| answers.get("roots")) else {
            let ask = InputRequest::ListRoots(rmcp::model::ListRootsRequest::default());
            return Ok(InputRequiredResult::from_input_requests([("roots".to_owned(), ask)].into()).into());
        };
        let uri = first_root(roots_answer).await.unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(uri)]).into())
    }
"#;
    assert!(fixed.contains(through), "{fixed}");
    // The names join the file's `use rmcp::…::{…}` trees, in their order.
    assert!(
        fixed.contains(
            "use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, InputRequest, InputRequiredResult};\n\
             use rmcp::{ErrorData, handler::server::tool::InputResponses, tool, tool_router};\n"
        ),
        "{fixed}"
    );
    // No function takes a context or a peer any more, so their import goes.
    assert!(!fixed.contains("RequestContext") && !fixed.contains("RoleServer"), "{fixed}");
}

/// A helper method the tools await with their context: one whose context has another use takes
/// the answer beside it (and its tools keep the context), one under a timeout loses the timeout's
/// limit; each tool asks for the roots once, right before the statement that needed them.
#[test]
fn mrtr_hands_the_answer_to_the_helpers_the_tools_await() {
    let code = r#"use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, tool, tool_router};

pub struct Srv;

impl Srv {
    /// The first root, unless the call was cancelled.
    #[allow(deprecated)]
    async fn first_uri(&self, context: &RequestContext<RoleServer>) -> Result<String, ErrorData> {
        if context.ct.is_cancelled() {
            return Err(ErrorData::internal_error("cancelled", None));
        }
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(listed.roots.first().map(|r| r.uri.clone()).unwrap_or_default())
    }

    #[allow(deprecated)]
    async fn root_count(peer: Peer<RoleServer>) -> usize {
        let limit = Duration::from_secs(5);
        match tokio::time::timeout(limit, peer.list_roots()).await {
            Ok(Ok(listed)) => listed.roots.len(),
            _ => 0,
        }
    }
}

#[tool_router]
impl Srv {
    #[tool(description = "Show the first root")]
    async fn first(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let uri = self.first_uri(&context).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(uri)]))
    }

    #[tool(description = "Count the roots")]
    async fn count(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let mut n = 0;
        if !context.ct.is_cancelled() {
            n = Self::root_count(context.peer.clone()).await;
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(n.to_string())]))
    }
}
"#;
    let (code_out, stderr, fixed) = fix_one_file_mrtr(MANIFEST, code);
    assert_eq!(code_out, 0, "{stderr}");
    assert!(stderr.contains("`first_uri` takes the answer beside `context`"), "{stderr}");
    assert!(stderr.contains("`root_count` takes the answer in place of `peer`"), "{stderr}");
    assert!(stderr.contains("its `tokio::time::timeout` goes"), "{stderr}");
    for want in [
        "    async fn first_uri(&self, context: &RequestContext<RoleServer>, roots_answer: &rmcp::serde_json::Value) -> Result<String, ErrorData> {\n        if context.ct.is_cancelled() {",
        "let listed = rmcp::serde_json::from_value::<rmcp::model::ListRootsResult>(roots_answer.clone()).map_err(",
        "    async fn root_count(roots_answer: &rmcp::serde_json::Value) -> usize {\n        match Ok::<_, tokio::time::error::Elapsed>(rmcp::serde_json::from_value::<rmcp::model::ListRootsResult>(roots_answer.clone())) {",
        "    async fn first(&self, context: RequestContext<RoleServer>, InputResponses(input_responses): InputResponses) -> Result<CallToolResponse, ErrorData> {",
        "        let uri = self.first_uri(&context, roots_answer).await?;",
        "    async fn count(&self, context: RequestContext<RoleServer>, InputResponses(input_responses): InputResponses) -> Result<CallToolResponse, ErrorData> {",
        // Asked for in the branch that asked for them.
        "        let mut n = 0;\n        if !context.ct.is_cancelled() {\n            // 2026-07-28: the roots come in the retry's `inputResponses`; the first call asks for them.\n            let Some(roots_answer) = input_responses",
        "            };\n            n = Self::root_count(roots_answer).await;\n        }",
    ] {
        assert!(fixed.contains(want), "{want}\n{fixed}");
    }
    assert_eq!(fixed.matches("let Some(roots_answer) = input_responses").count(), 2, "{fixed}");
    // The limit and its import go; `Peer` is no longer named, `RequestContext` still is.
    assert!(!fixed.contains("Duration") && !fixed.contains("Peer"), "{fixed}");
    assert!(fixed.contains("use rmcp::service::{RequestContext, RoleServer};"), "{fixed}");
}

/// A helper's request becomes the tools' round trip only when every caller is a tool awaiting it
/// in its own body with its own context, and it keeps no cache: anything else is left with the
/// reason, naming the helper and the caller.
#[test]
fn mrtr_leaves_helpers_it_cannot_see_through_with_the_reason() {
    let header = "use rmcp::model::{CallToolResult, ContentBlock};\nuse rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};\nuse rmcp::{ErrorData, ServerHandler, tool, tool_router};\n\n#[derive(Clone)]\npub struct Srv { peer: Option<Peer<RoleServer>> }\n\n";
    let helper = "impl Srv {\n    #[allow(deprecated)]\n    async fn first_dir(&self, peer: &Peer<RoleServer>) -> String {\n        let listed = peer.list_roots().await.unwrap_or_default();\n        listed.roots.first().map(|r| r.uri.clone()).unwrap_or_default()\n    }\n}\n\n";
    let tool = |body: &str| {
        format!(
            "#[tool_router]\nimpl Srv {{\n    #[tool(description = \"d\")]\n    async fn show(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {{\n        {body}\n        Ok(CallToolResult::success(vec![ContentBlock::text(dir)]))\n    }}\n}}\n\n"
        )
    };
    let awaited = tool("let dir = self.first_dir(&context.peer).await;");
    let cases = [
        (
            format!(
                "{helper}{awaited}impl ServerHandler for Srv {{\n    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {{\n        let _ = self.first_dir(&context.peer).await;\n    }}\n}}\n"
            ),
            "the helper `first_dir` is called from `on_initialized`, which is not a `#[tool]` method",
        ),
        (
            format!(
                "{helper}impl Srv {{\n    async fn dir_len(&self, peer: &Peer<RoleServer>) -> usize {{\n        self.first_dir(peer).await.len()\n    }}\n}}\n\n{}",
                tool("let dir = self.dir_len(&context.peer).await.to_string();")
            ),
            "the helper `first_dir` is called from `dir_len`, which is not a `#[tool]` method",
        ),
        (
            format!(
                "{helper}{awaited}#[cfg(test)]\nmod tests {{\n    #[tokio::test]\n    async fn asks() {{\n        let srv = super::Srv {{ peer: None }};\n        let peer = srv.peer.clone().unwrap();\n        let _ = srv.first_dir(&peer).await;\n    }}\n}}\n"
            ),
            "the helper `first_dir` is also called from the test `asks`",
        ),
        (
            format!(
                "{helper}{}",
                tool(
                    "let me = self.clone();\n        let peer = context.peer.clone();\n        let dir = tokio::spawn(async move { me.first_dir(&peer).await }).await.unwrap_or_default();"
                )
            ),
            "the helper `first_dir`: the tool `show` calls `first_dir` inside a closure or an `async` block",
        ),
        (
            format!("{helper}{}", tool("let dir = format!(\"{}\", self.first_dir(&context.peer).await);")),
            "the helper `first_dir`: the tool `show` names `first_dir` where the rewrite cannot see a call of it (in a macro's body",
        ),
        (
            format!(
                "{helper}{}",
                tool("let peer = self.peer.clone().unwrap();\n        let dir = self.first_dir(&peer).await;")
            ),
            "the helper `first_dir`: the tool `show` passes `&peer` to `first_dir`, not its own `RequestContext` or `Peer` parameter",
        ),
        (
            format!(
                "impl Srv {{\n    #[allow(deprecated)]\n    async fn first_dir(&self, peer: &Peer<RoleServer>) -> String {{\n        let _ = peer.list_roots().await;\n        let listed = peer.list_roots().await.unwrap_or_default();\n        listed.roots.first().map(|r| r.uri.clone()).unwrap_or_default()\n    }}\n}}\n\n{awaited}"
            ),
            "the helper `first_dir` requests the roots 2 times; the codemod rewrites one request",
        ),
        (
            format!(
                "impl Srv {{\n    #[allow(deprecated)]\n    async fn first_dir(&self, peer: &Peer<RoleServer>) -> String {{\n        tokio::select! {{\n            r = peer.list_roots() => r.map(|l| l.roots.len().to_string()).unwrap_or_default(),\n        }}\n    }}\n}}\n\n{awaited}"
            ),
            "`list_roots()` in `first_dir` is inside the body of the macro `tokio::select!`",
        ),
        (
            format!("{helper}pub struct Other;\n\nimpl Other {{\n    pub fn first_dir(&self) -> String {{\n        String::new()\n    }}\n}}\n\n{awaited}"),
            "the crate has another function named `first_dir` (a method of `Other`), so the codemod cannot tell",
        ),
        (
            "pub struct Cached { dirs: tokio::sync::OnceCell<Vec<String>> }\n\nimpl Cached {\n    #[allow(deprecated)]\n    async fn ensure_dirs(&self, peer: &Peer<RoleServer>) -> Vec<String> {\n        self.dirs.get_or_init(|| async {\n            let listed = peer.list_roots().await.unwrap_or_default();\n            listed.roots.iter().map(|r| r.uri.clone()).collect()\n        }).await.clone()\n    }\n}\n\n#[tool_router]\nimpl Cached {\n    #[tool(description = \"d\")]\n    async fn count(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {\n        let dirs = self.ensure_dirs(&context.peer).await;\n        Ok(CallToolResult::success(vec![ContentBlock::text(dirs.len().to_string())]))\n    }\n}\n".to_owned(),
            "`ensure_dirs` is not a `#[tool]` method and keeps the roots in `self.dirs` (a roots cache)",
        ),
    ];
    for (body, reason) in cases {
        let code = format!("{header}{body}");
        let (code_out, stderr, fixed) = fix_one_file_mrtr(MANIFEST, &code);
        assert_eq!(code_out, 1, "{stderr}");
        assert_eq!(fixed, code, "{stderr}");
        assert!(stderr.contains(reason), "{reason}\n{stderr}");
    }
}

/// rmcp 2.x has no round trip: nothing is rewritten, and the reason names the version.
#[test]
fn mrtr_is_refused_before_rmcp_3_1_1() {
    let manifest = MANIFEST.replace("rmcp = \"3.11\"", "rmcp = \"2.2\"");
    let (code, stderr, fixed) = fix_one_file_mrtr(&manifest, MRTR_CODE);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(fixed, MRTR_CODE);
    assert!(stderr.contains("`--roots-to mrtr` needs rmcp >= 3.1.1"), "{stderr}");
    assert!(stderr.contains("the crate builds with rmcp 2.2"), "{stderr}");
}

/// Shapes `--roots-to mrtr` does not rewrite are left with the reason: a request in an `async`
/// block of a tool, and one in `on_initialized` (no tool result can carry it).
#[test]
fn mrtr_leaves_other_shapes_with_the_reason() {
    let code = r#"use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, tool, tool_router};

#[derive(Clone)]
pub struct Srv;

#[tool_router]
impl Srv {
    #[allow(deprecated)]
    #[tool(description = "Count the roots")]
    async fn count(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let listed = async { context.peer.list_roots().await }.await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(listed.roots.len().to_string())]))
    }
}

impl ServerHandler for Srv {
    #[allow(deprecated)]
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let _ = context.peer.list_roots().await;
    }
}
"#;
    let (code_out, stderr, fixed) = fix_one_file_mrtr(MANIFEST, code);
    assert_eq!(code_out, 1, "{stderr}");
    assert_eq!(fixed, code);
    assert!(stderr.contains("`list_roots()` is awaited inside a closure or an `async` block"), "{stderr}");
    assert!(stderr.contains("`on_initialized` is not a `#[tool]` method"), "{stderr}");
}

/// A request under a suppression comment is the user's decision to keep it: `fix --unsafe-fixes`
/// leaves that tool whole (and the roots capability with it) and rewrites the others.
#[test]
fn suppressed_requests_are_left_alone() {
    let code = "use rmcp::handler::server::wrapper::Parameters;\nuse rmcp::model::CallToolResult;\nuse rmcp::service::{RequestContext, RoleServer};\nuse rmcp::{ErrorData, tool, tool_router};\npub struct Srv;\n\
        #[tool_router]\nimpl Srv {\n\
        #[allow(deprecated)]\n#[tool(description = \"kept\")]\nasync fn legacy(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {\n    \
        let listed = context.peer.list_roots().await.unwrap_or_default(); // mcp-lint: allow(server-roots-request) legacy clients\n    \
        let n = listed.roots.len();\n    Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(format!(\"{n}\"))]))\n}\n\
        #[allow(deprecated)]\n#[tool(description = \"moved\")]\nasync fn count(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {\n    \
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;\n    \
        let dir = listed.roots.first().and_then(|r| r.uri.strip_prefix(\"file://\")).unwrap_or(\".\");\n    \
        let n = std::fs::read_dir(std::path::Path::new(dir)).map(|d| d.count()).unwrap_or(0);\n    \
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(format!(\"{n}\"))]))\n}\n}\n";
    let (summary, fixed) = fix_crate(MANIFEST, code, &[]);
    let legacy = &code[code.find("async fn legacy").unwrap()
        ..code.find("#[allow(deprecated)]\n#[tool(description = \"moved\")]").unwrap()];
    assert!(fixed.contains(legacy), "the suppressed tool changed:\n{fixed}\n{summary}");
    assert!(fixed.contains("async fn count(&self, Parameters("), "{fixed}\n{summary}");
    assert_eq!(fixed.matches("list_roots").count(), 1, "{fixed}");
}

/// A server whose roots cache `new` starts as `{init}` and a refresh fills, read by the tool
/// `{read}` (a statement taking `dir` from `self.dirs`).
fn seeded(init: &str, ctor_args: &str, read: &str) -> String {
    format!(
        r#"use std::path::PathBuf;
use std::sync::Arc;
use rmcp::model::CallToolResult;
use rmcp::service::{{NotificationContext, Peer, RoleServer}};
use rmcp::{{ErrorData, ServerHandler, tool, tool_router}};
use tokio::sync::RwLock;

#[derive(Clone)]
pub struct Srv {{
    dirs: Arc<RwLock<Vec<PathBuf>>>,
}}

impl Srv {{
    pub fn new({ctor_args}) -> Self {{
        Self {{ dirs: Arc::new(RwLock::new({init})) }}
    }}

    #[allow(deprecated)]
    async fn refresh(&self, peer: &Peer<RoleServer>) {{
        if let Ok(listed) = peer.list_roots().await {{
            *self.dirs.write().await = listed.roots.iter().map(|r| PathBuf::from(r.uri.trim_start_matches("file://"))).collect();
        }}
    }}
}}

#[tool_router]
impl Srv {{
    #[tool(description = "Count")]
    async fn count(&self) -> Result<CallToolResult, ErrorData> {{
        {read}
        let _ = std::fs::read_dir(dir);
        Ok(CallToolResult::success(vec![]))
    }}
}}

impl ServerHandler for Srv {{
    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {{
        self.refresh(&context.peer).await;
    }}
}}
"#
    )
}

/// The cache kin of shape B: a seed of one directory becomes the default of an optional `path`;
/// a seed the codemod cannot move into the tools, or a tool that uses every directory of a seeded
/// cache, is refused with that reason; a lazily filled cell read by something other than a tool
/// (or filled right in the tool) is refused too.
#[test]
fn seeded_and_lazy_caches_are_rewritten_or_refused_with_the_reason() {
    let first = "let dirs = self.dirs.read().await;\n        let dir = dirs.first().ok_or_else(|| ErrorData::invalid_request(\"none\", None))?;";
    let (summary, fixed) = fix_crate(MANIFEST, &seeded("vec![PathBuf::from(\"/srv/data\")]", "", first), &[]);
    assert!(fixed.contains("pub path: Option<String>,"), "{summary}\n{fixed}");
    assert!(
        fixed
            .contains("let dir = &params.path.as_deref().map_or_else(|| PathBuf::from(\"/srv/data\"), PathBuf::from);"),
        "{fixed}"
    );
    assert!(!fixed.contains("list_roots") && !fixed.contains("RwLock"), "{fixed}");
    assert!(
        summary.contains("without it the tool works in `PathBuf::from(\"/srv/data\")`, the directory `new` seeded")
    );

    // From a local of `new` that only seeds it: the local's value, and the `let` goes.
    let code = seeded("vec![here]", "", first).replace(
        "    pub fn new() -> Self {\n",
        "    pub fn new() -> Self {\n        let here: PathBuf = std::env::temp_dir();\n",
    );
    let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
    assert!(fixed.contains("map_or_else(|| std::env::temp_dir(), PathBuf::from);"), "{summary}\n{fixed}");
    assert!(fixed.contains("    pub fn new() -> Self {\n        Self {}\n    }"), "{fixed}");

    let refusals = [
        (seeded("vec![dir]", "dir: PathBuf", first), "`new` seeds `self.dirs` from `dir`, a value of `new` itself"),
        (
            seeded("vec![PathBuf::from(\"a\"), PathBuf::from(\"b\")]", "", first),
            "`new` seeds `self.dirs` with `Arc::new(RwLock::new(vec![PathBuf::from(\"a\"), PathBuf::fr…`, not \
             with one starting directory",
        ),
        (
            seeded(
                "vec![PathBuf::from(\".\")]",
                "",
                "let all = self.dirs.read().await.clone();\n        let dir = &all[all.len() - 1];",
            ),
            "the tool `count` uses `self.dirs` other than by taking its first directory, and `new` seeds it with \
             `PathBuf::from(\".\")`",
        ),
    ];
    for (code, reason) in &refusals {
        let (summary, fixed) = fix_crate(MANIFEST, code, &[]);
        assert_eq!(&fixed, code, "{summary}");
        assert!(summary.contains(reason), "{reason}\n{summary}");
    }

    let lazy = |tool_body: &str| {
        format!(
            r#"use std::path::PathBuf;
use rmcp::model::CallToolResult;
use rmcp::service::{{Peer, RequestContext, RoleServer}};
use rmcp::{{ErrorData, tool, tool_router}};
use tokio::sync::OnceCell;

#[derive(Default)]
pub struct Srv {{
    dirs: OnceCell<Vec<PathBuf>>,
}}

impl Srv {{
    #[allow(deprecated)]
    async fn ensure_dirs(&self, peer: &Peer<RoleServer>) -> Vec<PathBuf> {{
        self.dirs
            .get_or_init(|| async {{
                let listed = peer.list_roots().await.unwrap_or_default();
                listed.roots.iter().map(|r| PathBuf::from(r.uri.trim_start_matches("file://"))).collect()
            }})
            .await
            .clone()
    }}

    async fn files_in_first(&self, peer: &Peer<RoleServer>) -> usize {{
        let dirs = self.ensure_dirs(peer).await;
        std::fs::read_dir(&dirs[0]).map(|d| d.count()).unwrap_or(0)
    }}
}}

#[tool_router]
impl Srv {{
    #[tool(description = "Count")]
    async fn count(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {{
        {tool_body}
        Ok(CallToolResult::success(vec![]))
    }}
}}
"#
        )
    };
    let tool = "let dirs = self.ensure_dirs(&context.peer).await;\n        let _ = std::fs::read_dir(&dirs[0]);";
    let code = lazy(tool);
    let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
    assert_eq!(fixed, code, "{summary}");
    assert!(
        summary.contains(
            "`ensure_dirs` is called from `files_in_first`, which is neither a `#[tool]` method nor a method"
        ),
        "{summary}"
    );
    // Without that method, the tool that reads the whole list gets `paths`, and the cell goes.
    let other = "    async fn files_in_first(&self, peer: &Peer<RoleServer>) -> usize {\n        let dirs = self.ensure_dirs(peer).await;\n        std::fs::read_dir(&dirs[0]).map(|d| d.count()).unwrap_or(0)\n    }\n";
    let code = lazy(tool).replace(other, "");
    let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
    assert!(fixed.contains("pub paths: Vec<String>,"), "{summary}\n{fixed}");
    assert!(fixed.contains("let dirs = params.paths.iter().map(PathBuf::from).collect::<Vec<_>>();"), "{fixed}");
    assert!(!fixed.contains("OnceCell") && !fixed.contains("ensure_dirs"), "{fixed}");
    // An allow-list filled on first use is never made a parameter; with no configured list to keep,
    // it is left with that reason.
    let guard = "let p = PathBuf::from(\"/etc/passwd\");\n        let allowed = self.ensure_dirs(&context.peer).await;\n        if !allowed.iter().any(|d| p.starts_with(d)) {\n            return Err(ErrorData::invalid_params(\"outside\", None));\n        }";
    let code = lazy(guard).replace(other, "");
    let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
    assert_eq!(fixed, code, "{summary}");
    assert!(
        summary
            .contains("(read as an allow-list, so server configuration), but nothing but the client fills `self.dirs`"),
        "{summary}"
    );
    let (summary, fixed) = fix_crate(MANIFEST, &code, &["--roots-to", "param"]);
    assert_eq!(fixed, code, "{summary}");
    assert!(summary.contains("`--roots-to param` would let every client choose any directory"), "{summary}");
    // A cell that starts filled: its starting value would be lost.
    let code = lazy(tool).replace(other, "").replace(
        "#[derive(Default)]\npub struct Srv {",
        "impl Srv {\n    pub fn new() -> Self {\n        Self { dirs: OnceCell::new_with(Some(vec![PathBuf::from(\".\")])) }\n    }\n}\n\npub struct Srv {",
    );
    let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
    assert_eq!(fixed, code, "{summary}");
    assert!(
        summary
            .contains("`new` starts `self.dirs` as `OnceCell::new_with(Some(vec![PathBuf::from(\".\")]))`, not empty"),
        "{summary}"
    );
    // Filled right in the tool: the lookup's own reason.
    let inline = "let dirs = self.dirs.get_or_init(|| async { let l = context.peer.list_roots().await.unwrap_or_default(); l.roots.iter().map(|r| PathBuf::from(&r.uri)).collect() }).await;\n        let _ = std::fs::read_dir(&dirs[0]);";
    let code = lazy(inline).replace(other, "");
    let (summary, fixed) = fix_crate(MANIFEST, &code, &[]);
    assert_eq!(fixed, code, "{summary}");
    assert!(summary.contains("filled once on first use (`get_or_init`) right where they are read"), "{summary}");
}
