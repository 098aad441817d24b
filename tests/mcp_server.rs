//! `mcp-lint mcp` as coding agents drive it: MCP over the binary's stdin/stdout, one JSON-RPC message
//! per line. Raw JSON-RPC first (a 2026-07-28 client that sends its version and capabilities with every
//! request and never initializes, and a legacy client that does), so `cargo test` checks the protocol
//! without any other tool; then the real clients, installed from their registries by `.ci/run`: the
//! official Python SDK (PyPI `mcp` 2.x, `tests/mcp_client.py`) and the MCP Inspector's CLI mode (npm
//! `@modelcontextprotocol/inspector`). Without them those tests say they skipped and why; with
//! MCP_LINT_REQUIRE_PYTHON_MCP=1 / MCP_LINT_REQUIRE_MCP_INSPECTOR=1 (as `.ci/run` sets) they fail instead.
//!
//! Also: the server's own module passes mcp-lint, and the setup snippets in README.md and docs/*.md parse
//! and start `mcp-lint mcp`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/skip.rs"]
mod skip;

const DEADLINE: Duration = Duration::from_secs(60);
const MODERN: &str = "2026-07-28";
const FIXTURE_CRATE: &str = "fixtures/crates/doc-search";

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Every message the server wrote, for the no-server-requests check.
    seen: Vec<Value>,
    /// Set for a 2026-07-28 client: the `_meta` every request carries.
    modern: bool,
}

impl Client {
    fn start(dir: &Path, args: &[&str], modern: bool) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
            .arg("mcp")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("mcp-lint mcp starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (sender, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let message: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("the server wrote a line that is not JSON ({e}): {line}"));
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, incoming, next_id: 1, seen: Vec::new(), modern }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The `_meta` a 2026-07-28 client sends with every request.
    fn meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-lint-tests", "version": "0"},
        })
    }

    /// Sends a request and waits for its response (the whole message: `result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = params;
        if self.modern {
            params.as_object_mut().expect("params are an object").insert("_meta".into(), Self::meta());
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let until = Instant::now() + DEADLINE;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let message = self
                .incoming
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no response to {method} within {DEADLINE:?}; seen: {:#?}", self.seen));
            self.seen.push(message.clone());
            // The server never sends a request: every message is a response (or a notification).
            assert!(message.get("method").is_none() || message.get("id").is_none(), "a server request: {message}");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// Closes stdin, as a client that is done does, and waits for the server to exit.
    fn finish(mut self) {
        drop(self.stdin.take());
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "the server exited with {status}");
                return;
            }
            assert!(Instant::now() < until, "the server did not exit after stdin closed");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn tool_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {result}"))
}

fn cli_json(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-lint")).args(args).current_dir(dir).output().unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn a_2026_07_28_client_discovers_lists_and_calls_without_initialize() {
    let mut client = Client::start(repo_root(), &[], true);

    let discover = client.result("server/discover", json!({}));
    assert!(discover["supportedVersions"].as_array().unwrap().contains(&json!(MODERN)), "{discover}");
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mcp-lint");
    assert!(discover["capabilities"]["tools"].is_object() && discover["capabilities"]["resources"].is_object());

    let tools = client.result("tools/list", json!({}));
    assert_eq!(tools["resultType"], "complete");
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["check", "explain", "fix", "rules", "summary"]);
    for tool in tools["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["outputSchema"].is_object(), "{tool}");
        assert!(!tool["description"].as_str().unwrap().is_empty());
    }

    // `check` answers what `mcp-lint check --format json` prints, as structured content.
    let result = client.call("check", json!({"paths": [FIXTURE_CRATE]}));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["isError"], false);
    let expected = cli_json(repo_root(), &["check", "--format", "json", FIXTURE_CRATE]);
    assert!(!expected.as_array().unwrap().is_empty());
    assert_eq!(result["structuredContent"]["findings"], expected);
    assert_eq!(result["structuredContent"]["total"], expected.as_array().unwrap().len());
    assert!(tool_text(&result).contains("server-roots-request"), "{result}");
    assert_valid(&tools, "check", &result["structuredContent"]);
    // A long answer is cut, with a count.
    let cut = client.call("check", json!({"paths": [FIXTURE_CRATE], "max_findings": 1}));
    assert_eq!(cut["structuredContent"]["findings"].as_array().unwrap().len(), 1);
    assert_eq!(cut["structuredContent"]["truncated"]["total"], expected.as_array().unwrap().len());
    assert!(cut["structuredContent"]["truncated"]["note"].as_str().unwrap().contains("more not shown"));

    // An inline text, checked as the file it names (which need not exist).
    let text = "use rmcp::model::ClientCapabilities;\npub fn caps() -> ClientCapabilities {\n    ClientCapabilities::builder().enable_roots_list_changed().build()\n}\n";
    let result =
        client.call("check", json!({"text": text, "file_name": "scratch/client.rs", "select": ["roots-list-changed"]}));
    let findings = result["structuredContent"]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{result}");
    assert_eq!(findings[0]["rule"], "roots-list-changed");
    assert_eq!(findings[0]["path"], "scratch/client.rs");

    let rules = client.call("rules", json!({}));
    let listed = rules["structuredContent"]["rules"].as_array().unwrap();
    assert!(
        listed
            .iter()
            .any(|r| r["name"] == "server-roots-request" && r["resource"] == "mcp-lint://rules/server-roots-request")
    );
    assert_valid(&tools, "rules", &rules["structuredContent"]);

    let page = client.call("explain", json!({"rule": "server-roots-request"}));
    assert!(tool_text(&page).starts_with('#'), "{page}");
    assert_eq!(page["structuredContent"]["page"], tool_text(&page));
    assert_valid(&tools, "explain", &page["structuredContent"]);

    let summary = client.call("summary", json!({"paths": [FIXTURE_CRATE]}));
    assert!(tool_text(&summary).contains("server-roots-request"), "{summary}");
    assert_valid(&tools, "summary", &summary["structuredContent"]);

    // The roots codemod's preview: a diff and its notes, nothing written.
    let before = std::fs::read_to_string(repo_root().join(FIXTURE_CRATE).join("src/server.rs")).unwrap();
    let preview = client.call("fix", json!({"paths": [FIXTURE_CRATE], "unsafe": true}));
    let out = &preview["structuredContent"];
    assert_eq!(out["wrote"], false);
    assert!(out["diff"].as_str().unwrap().contains("+++ b/fixtures/crates/doc-search/src/server.rs"), "{out}");
    assert!(out["unsafe_fixes"][0].as_str().unwrap().contains("takes the directory as a parameter"), "{out}");
    assert!(out["left"].as_array().unwrap().iter().all(|l| l["why"].is_string()));
    assert_valid(&tools, "fix", out);
    assert_eq!(std::fs::read_to_string(repo_root().join(FIXTURE_CRATE).join("src/server.rs")).unwrap(), before);

    // Rule pages as resources.
    let resources = client.result("resources/list", json!({}));
    let page_resource = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "mcp-lint://rules/roots-list-changed")
        .unwrap_or_else(|| panic!("{resources}"));
    assert_eq!(page_resource["mimeType"], "text/markdown");
    let read = client.result("resources/read", json!({"uri": "mcp-lint://rules/roots-list-changed"}));
    assert_eq!(read["resultType"], "complete");
    assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
    assert!(read["contents"][0]["text"].as_str().unwrap().contains("roots-list-changed"));
    let missing = client.request("resources/read", json!({"uri": "mcp-lint://rules/nope"}));
    assert_eq!(missing["error"]["code"], -32602, "{missing}");

    client.finish();
}

/// The output schemas the server lists accept what it answers.
fn assert_valid(tools: &Value, name: &str, structured: &Value) {
    let tool = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
    let validator = jsonschema::validator_for(&tool["outputSchema"]).unwrap_or_else(|e| panic!("{name}: {e}"));
    let errors: Vec<String> =
        validator.iter_errors(structured).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}");
}

#[test]
fn bad_input_gets_a_tool_error_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let inside = dir.path().join("project");
    std::fs::create_dir_all(inside.join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("project-old")).unwrap();
    std::fs::write(dir.path().join("project-old/secret.rs"), "fn main() {}\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("project-old"), inside.join("src/link")).unwrap();
    let mut client = Client::start(&inside, &[], true);
    let folder = std::fs::canonicalize(&inside).unwrap();

    let cases = [
        ("check", json!({"paths": ["../project-old/secret.rs"]}), "outside the folders"),
        ("check", json!({"paths": ["src/link/secret.rs"]}), "outside the folders"),
        ("check", json!({"paths": ["/etc/passwd"]}), "outside the folders"),
        ("check", json!({"paths": ["src/missing.rs"]}), "no such file or folder"),
        ("check", json!({"paths": "src"}), "invalid type"),
        ("check", json!({"pathz": ["src"]}), "unknown field `pathz`"),
        ("check", json!({"text": "fn main() {}"}), "needs `file_name`"),
        ("check", json!({"text": "{}", "file_name": "../outside.json"}), "outside the folders"),
        ("check", json!({"select": ["no-such-rule"]}), "unknown rule `no-such-rule`"),
        ("check", json!({"config": "../project-old/secret.rs"}), "outside the folders"),
        ("explain", json!({"rule": "no-such-rule"}), "unknown rule"),
        ("explain", json!({}), "missing field `rule`"),
        ("fix", json!({"paths": [".."], "write": true}), "outside the folders"),
        ("summary", json!({"paths": ["/"]}), "outside the folders"),
        ("fix", json!({"roots_to": "everywhere"}), "unknown variant"),
    ];
    for (tool, arguments, expected) in cases {
        let result = client.call(tool, arguments.clone());
        assert_eq!(result["isError"], true, "{tool} {arguments}: {result}");
        let text = tool_text(&result);
        assert!(text.contains(expected), "{tool} {arguments}: {text}");
        if expected == "outside the folders" {
            assert!(text.contains(&folder.display().to_string()), "the error names the allowed folders: {text}");
        }
    }
    let unknown = client.request("tools/call", json!({"name": "format_disk", "arguments": {}}));
    assert!(unknown.get("error").is_some(), "{unknown}");
    // A 2026-07-28 request without its `_meta` is malformed: -32602.
    client.modern = false;
    let bare = client.request("tools/list", json!({}));
    assert_eq!(bare["error"]["code"], -32602, "{bare}");
    client.modern = true;
    // Still serving.
    assert_eq!(client.call("rules", json!({}))["isError"], false);
    client.finish();
}

#[test]
fn a_legacy_client_initializes_first_and_is_served() {
    let mut client = Client::start(repo_root(), &[], false);
    let init = client.result(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "legacy-agent", "version": "1"},
        }),
    );
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "mcp-lint");
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let tools = client.result("tools/list", json!({}));
    assert_eq!(tools["tools"].as_array().unwrap().len(), 5);
    assert!(tools.get("resultType").is_none(), "legacy results keep their legacy shape: {tools}");
    let result = client.call("check", json!({"paths": [FIXTURE_CRATE], "select": ["server-roots-request"]}));
    assert!(result["structuredContent"]["total"].as_u64().unwrap() > 0, "{result}");
    client.finish();
}

#[test]
fn fix_previews_by_default_and_writes_only_when_told_under_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("client-capabilities.json");
    let original = "{\n  \"capabilities\": { \"roots\": { \"listChanged\": true }, \"elicitation\": {} }\n}\n";
    std::fs::write(&caps, original).unwrap();
    // Dropping `listChanged` is a safe fix only where the code is known to target 2026-07-28 alone.
    std::fs::write(dir.path().join("mcp-lint.toml"), "era = \"2026-07-28\"\n").unwrap();
    let mut client = Client::start(dir.path(), &[], true);

    let preview = client.call("fix", json!({}));
    let diff = preview["structuredContent"]["diff"].as_str().unwrap().to_owned();
    assert!(diff.contains("-  \"capabilities\": { \"roots\": { \"listChanged\": true }"), "{preview}");
    assert_eq!(preview["structuredContent"]["wrote"], false);
    assert_eq!(std::fs::read_to_string(&caps).unwrap(), original, "a preview writes nothing");
    let cli =
        Command::new(env!("CARGO_BIN_EXE_mcp-lint")).args(["fix", "--diff"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&cli.stdout), diff, "the preview is `mcp-lint fix --diff`'s diff");

    // Not in git: refused, as `mcp-lint fix` refuses, until the caller says so.
    let refused = client.call("fix", json!({"write": true}));
    assert_eq!(refused["isError"], true);
    assert!(
        tool_text(&refused).contains("not in a git work tree") && tool_text(&refused).contains("allow_no_vcs: true")
    );
    assert_eq!(std::fs::read_to_string(&caps).unwrap(), original);

    let written = client.call("fix", json!({"write": true, "allow_no_vcs": true}));
    assert_eq!(written["structuredContent"]["wrote"], true, "{written}");
    let now = std::fs::read_to_string(&caps).unwrap();
    assert!(!now.contains("listChanged") && now.contains("\"elicitation\": {}"), "{now}");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 2, "no temporary file left: {leftovers:?}");

    // In git: a committed file is written; one with uncommitted changes is refused.
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    std::fs::write(&caps, original).unwrap();
    git(&["init", "-q"]);
    git(&["add", "client-capabilities.json", "mcp-lint.toml"]);
    git(&["commit", "-qm", "caps"]);
    std::fs::write(&caps, original.replace("\"elicitation\": {}", "\"elicitation\": {}, \"sampling\": {}")).unwrap();
    let dirty = client.call("fix", json!({"write": true}));
    assert_eq!(dirty["isError"], true, "{dirty}");
    assert!(tool_text(&dirty).contains("uncommitted changes") && tool_text(&dirty).contains("allow_dirty: true"));
    assert!(std::fs::read_to_string(&caps).unwrap().contains("listChanged"));
    git(&["commit", "-qam", "sampling"]);
    let clean = client.call("fix", json!({"write": true}));
    assert_eq!(clean["structuredContent"]["wrote"], true, "{clean}");
    assert!(!std::fs::read_to_string(&caps).unwrap().contains("listChanged"));
    client.finish();
}

#[test]
fn allow_names_the_folders_and_relative_paths_start_at_the_first() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("a")).unwrap();
    std::fs::create_dir_all(dir.path().join("b")).unwrap();
    std::fs::write(dir.path().join("b/caps.json"), "{\"capabilities\": {\"roots\": {\"listChanged\": true}}}\n")
        .unwrap();
    let mut client = Client::start(dir.path(), &["--allow", "b", "--allow", "a"], true);
    let result = client.call("check", json!({"paths": ["caps.json"], "select": ["roots-list-changed"]}));
    assert_eq!(result["structuredContent"]["total"], 1, "{result}");
    assert_eq!(result["structuredContent"]["findings"][0]["path"], "b/caps.json");
    let outside = client.call("check", json!({"paths": ["../"]}));
    assert!(tool_text(&outside).contains("outside the folders"), "{outside}");
    client.finish();

    let bad = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .args(["mcp", "--allow", "no-such-folder"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--allow no-such-folder"));
}

#[test]
fn the_server_module_passes_its_own_rules() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .args(["check", "--format", "json", "src/mcp_server"])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(findings, json!([]));
}

// ---------------------------------------------------------------------------------------------
// The setup snippets users paste

/// Every snippet after a `<!-- tests/mcp_server.rs: NAME -->` marker in README.md and docs/*.md.
fn snippets() -> Vec<(String, String, String)> {
    let mut files = vec![repo_root().join("README.md")];
    if let Ok(entries) = std::fs::read_dir(repo_root().join("docs")) {
        let mut docs: Vec<PathBuf> =
            entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
        docs.sort();
        files.extend(docs);
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("<!-- tests/mcp_server.rs: ") {
            rest = &rest[at + "<!-- tests/mcp_server.rs: ".len()..];
            let name = rest[..rest.find(" -->").unwrap()].to_owned();
            let fence =
                rest.find("```").unwrap_or_else(|| panic!("{}: no code block after marker {name}", file.display()));
            let body_start = fence + rest[fence..].find('\n').unwrap() + 1;
            let body_end = body_start + rest[body_start..].find("```").unwrap();
            out.push((file.display().to_string(), name, rest[body_start..body_end].to_owned()));
            rest = &rest[body_end..];
        }
    }
    out
}

/// A server entry's command and arguments run `mcp-lint mcp`.
fn assert_runs_the_server(what: &str, command: &str, args: &[String]) {
    assert_eq!(command, "mcp-lint", "{what}");
    assert_eq!(args.first().map(String::as_str), Some("mcp"), "{what}: {args:?}");
    // The arguments after `mcp` are ones the verb takes.
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        assert_eq!(arg, "--allow", "{what}: unexpected argument {arg}");
        assert!(rest.next().is_some(), "{what}: --allow needs a folder");
    }
}

#[test]
fn the_setup_snippets_parse_and_start_the_server() {
    let snippets = snippets();
    let names: Vec<&str> = snippets.iter().map(|(_, name, _)| name.as_str()).collect();
    for wanted in ["claude-code", "vscode", "mcp-servers"] {
        assert!(names.contains(&wanted), "no `{wanted}` snippet in README.md or docs/*.md (found {names:?})");
    }
    for (file, name, body) in &snippets {
        let what = format!("{file}: {name}");
        match name.as_str() {
            "claude-code" => {
                // `claude mcp add [options] <name> -- <command> [args...]`
                let words: Vec<String> = body.split_whitespace().map(str::to_owned).collect();
                assert_eq!(&words[..3], ["claude", "mcp", "add"], "{what}");
                let dashes = words.iter().position(|w| w == "--").unwrap_or_else(|| panic!("{what}: no `--`"));
                assert!(words[3..dashes].iter().any(|w| w == "mcp-lint"), "{what}: the server's name");
                assert_runs_the_server(&what, &words[dashes + 1], &words[dashes + 2..]);
            }
            "vscode" | "mcp-servers" => {
                let config: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{what}: {e}"));
                let key = if name == "vscode" { "servers" } else { "mcpServers" };
                let server = &config[key]["mcp-lint"];
                assert!(server.is_object(), "{what}: no `{key}.mcp-lint`");
                if name == "vscode" {
                    assert_eq!(server["type"], "stdio", "{what}");
                }
                let args: Vec<String> =
                    server["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_owned()).collect();
                assert_runs_the_server(&what, server["command"].as_str().unwrap(), &args);
            }
            other => panic!("{what}: unknown snippet kind {other}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real clients from the registries

/// A tool from `var`, else the one `.ci/run` installs, if it runs; `None` (a skip) unless required.
fn find_tool(var: &str, installed: &str, probe: &[&str], require: &str, how: &str) -> Option<PathBuf> {
    let candidates = [std::env::var_os(var).map(PathBuf::from), Some(repo_root().join(installed))];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|p| Command::new(p).args(probe).output().is_ok_and(|o| o.status.success()));
    if found.is_none() {
        // Shown in cargo test's own output (SKIPPED …); a failure where `require` is set.
        skip::missing_tool(require, &format!("not found ({how}, as .ci/run does, or set {var})"));
    }
    found
}

#[test]
fn the_python_sdk_client_drives_the_server() {
    let Some(python) = find_tool(
        "MCP_LINT_PYTHON_MCP",
        "target/mcp-python-venv/bin/python",
        &["-c", "import mcp.client.stdio"],
        "MCP_LINT_REQUIRE_PYTHON_MCP",
        "`python3 -m venv target/mcp-python-venv && target/mcp-python-venv/bin/pip install mcp==2.3.0`",
    ) else {
        return;
    };
    let expected = cli_json(repo_root(), &["check", "--format", "json", FIXTURE_CRATE]);
    let expected_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(expected_file.path(), expected.to_string()).unwrap();
    let out = Command::new(python)
        .arg(repo_root().join("tests/mcp_client.py"))
        .args([env!("CARGO_BIN_EXE_mcp-lint"), FIXTURE_CRATE])
        .arg(expected_file.path())
        .current_dir(repo_root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("all checks passed"), "{stdout}");
}

#[test]
fn the_inspector_cli_lists_the_tools_and_calls_check() {
    let Some(inspector) = find_tool(
        "MCP_LINT_MCP_INSPECTOR",
        "target/mcp-inspector/node_modules/.bin/mcp-inspector",
        &["--help"],
        "MCP_LINT_REQUIRE_MCP_INSPECTOR",
        "`npm install --prefix target/mcp-inspector @modelcontextprotocol/inspector@2.12.0`",
    ) else {
        return;
    };
    // The Inspector keeps a catalog of servers (in ~/.mcp-inspector unless told otherwise): a throwaway one.
    let catalog = tempfile::tempdir().unwrap();
    let inspect = |args: &[&str]| -> Value {
        let out = Command::new(&inspector)
            .env("MCP_CATALOG_PATH", catalog.path().join("mcp.json"))
            .args(["--cli", env!("CARGO_BIN_EXE_mcp-lint"), "mcp"])
            .args(args)
            .current_dir(repo_root())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
    };
    let listed = inspect(&["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["check", "explain", "fix", "rules", "summary"], "{listed}");
    let called = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "check",
        "--tool-arg",
        &format!("paths=[\"{FIXTURE_CRATE}\"]"),
    ]);
    let expected = cli_json(repo_root(), &["check", "--format", "json", FIXTURE_CRATE]);
    assert_eq!(called["structuredContent"]["findings"], expected, "{called}");
}
