//! The proof that the roots codemod migrates real servers: per fixture crate, copy it to a temporary
//! folder, run `mcp-lint fix --unsafe-fixes`, `cargo build` the result (one target folder shared by
//! every crate and every run, under this repository's `target/`), start the server over stdio and,
//! as an MCP 2026-07-28 client does (no `initialize`; protocol version and capabilities in each
//! request's `_meta`), list its tools and call the rewritten ones with folders prepared here.
//!
//! Dependencies must be fetched first (`.ci/run` does: `cargo fetch --locked --manifest-path
//! fixtures/crates/<name>/Cargo.toml`). Every read from the server is bounded by a timeout, so a
//! hung server fails the test instead of hanging CI.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

#[path = "support/copy.rs"]
mod copy;
use copy::copy_dir;

const READ_TIMEOUT: Duration = Duration::from_secs(60);

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/crates")
}

/// One target folder for all fixture builds, kept between runs (`CODEMOD_E2E_TARGET_DIR` moves it,
/// e.g. to measure a cold build).
fn shared_target() -> PathBuf {
    match std::env::var_os("CODEMOD_E2E_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("codemod-e2e"),
    }
}

/// Builds the crate as written, before any fix (in a copy, so no `target/` lands in the fixtures);
/// returns what the build printed on stderr (its warnings).
fn builds_as_written(name: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join(name);
    copy_dir(&fixtures().join(name), &krate);
    let build = Command::new(env!("CARGO"))
        .current_dir(&krate)
        .args(["build", "--locked", "--quiet"])
        .env("CARGO_TARGET_DIR", shared_target())
        .output()
        .unwrap();
    assert!(build.status.success(), "{name} as written does not build:\n{}", String::from_utf8_lossy(&build.stderr));
    String::from_utf8_lossy(&build.stderr).into_owned()
}

/// Copies the crate, fixes it, builds it; returns the folder and the server binary.
fn fixed_and_built(name: &str) -> (tempfile::TempDir, PathBuf) {
    let applied =
        if name == "sandbox-files" { "stays server configuration" } else { "changes the tool's public input schema" };
    fixed_with_and_built(name, &[], applied)
}

/// `fixed_and_built` with more `fix` arguments, checking the fix says `applied`; the build must
/// not warn.
fn fixed_with_and_built(name: &str, args: &[&str], applied: &str) -> (tempfile::TempDir, PathBuf) {
    fix_and_build(name, args, applied, !args.is_empty())
}

/// A crate that builds warning-free as written builds warning-free after `fix --unsafe-fixes`
/// (no unused variable, import, field or argument left), and says `applied`.
fn fixed_and_built_warning_free(name: &str, applied: &str) -> (tempfile::TempDir, PathBuf) {
    let before = builds_as_written(name);
    assert!(!before.contains("warning"), "{name} as written warns:\n{before}");
    fix_and_build(name, &[], applied, true)
}

fn fix_and_build(name: &str, args: &[&str], applied: &str, warning_free: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join(name);
    copy_dir(&fixtures().join(name), &krate);
    let fix = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .current_dir(&krate)
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs"])
        .args(args)
        .arg(".")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&fix.stderr);
    assert!(matches!(fix.status.code(), Some(0 | 1)), "fix failed: {stderr}");
    assert!(stderr.contains(applied), "{stderr}");
    let target = shared_target();
    // Two tests may build two fixes of one crate into the shared target, and so to one binary
    // path: each takes its binary out of the target before the next build can replace it.
    static BUILDS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let guard = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    let build = Command::new(env!("CARGO"))
        .current_dir(&krate)
        .args(["build", "--locked", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    let build_err = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "the fixed {name} does not build:\n{build_err}");
    // The opt-in migrations are held to it; the default ones keep the crate's own warnings.
    assert!(!warning_free || !build_err.contains("warning"), "the fixed {name} warns:\n{build_err}");
    let binary = dir.path().join(format!("{name}-server"));
    std::fs::copy(target.join("debug").join(name), &binary).unwrap();
    drop(guard);
    (dir, binary)
}

/// A server over stdio, killed when dropped.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(binary: &Path, cwd: &Path) -> Server {
        Server::start_with(binary, cwd, &[])
    }

    fn start_with(binary: &Path, cwd: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(binary)
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server { child, stdin, lines, next_id: 1 }
    }

    /// Sends a request with the 2026-07-28 `_meta` and returns its result (or fails on an error).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let reply = self.reply(method, params);
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        reply["result"].clone()
    }

    /// Sends a request with the 2026-07-28 `_meta` and returns the whole reply.
    fn reply(&mut self, method: &str, mut params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-lint-e2e", "version": "1.0.0"}
        });
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            let line = self
                .lines
                .recv_timeout(READ_TIMEOUT)
                .unwrap_or_else(|_| panic!("no answer to {method} within {READ_TIMEOUT:?}"));
            let reply: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if reply["id"] == json!(id) {
                return reply;
            }
        }
    }

    fn tools(&mut self) -> Vec<Value> {
        self.request("tools/list", json!({}))["tools"].as_array().unwrap().clone()
    }

    /// Calls a tool and returns its text content.
    fn call(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert_ne!(result["isError"], json!(true), "{tool} returned an error: {result}");
        result["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

/// The new property of a tool's input schema, and whether it is required.
fn property(tools: &[Value], name: &str, prop: &str) -> (Value, bool) {
    let schema = &tool(tools, name)["inputSchema"];
    let p = schema["properties"][prop].clone();
    assert!(!p.is_null(), "{name} has no `{prop}` property: {schema}");
    let required = schema["required"].as_array().is_some_and(|r| r.contains(&json!(prop)));
    (p, required)
}

fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

#[test]
fn shape_a_tools_ask_for_the_directory() {
    let (_keep, binary) = fixed_and_built("workspace-tools");
    let work = folder(&[("a.txt", "the needle is here"), ("b.txt", "nothing"), ("notes.md", "# notes")]);
    let other = folder(&[("c.txt", "more"), ("d.rs", "fn main() {}")]);
    let mut server = Server::start(&binary, other.path());
    let tools = server.tools();

    let (path, required) = property(&tools, "search", "path");
    assert_eq!(path["type"], "string");
    assert_eq!(path["description"], "Absolute path of the directory to work in.");
    assert!(required);
    let (paths, required) = property(&tools, "list_files", "paths");
    assert_eq!(paths["type"], "array");
    assert_eq!(paths["description"], "Absolute paths of the directories to work in.");
    assert!(required);
    let (optional, required) = property(&tools, "count_files", "path");
    assert!(optional["description"].as_str().unwrap().starts_with("Absolute path of the directory"));
    assert!(!required, "the fallback makes it optional");

    let dir = path_str(work.path());
    assert_eq!(server.call("search", json!({"path": dir, "query": "needle"})), "a.txt");
    let listed = server.call("list_files", json!({"paths": [dir, path_str(other.path())]}));
    assert_eq!(listed, "a.txt\nb.txt\nc.txt\nd.rs\nnotes.md");
    assert_eq!(server.call("count_files", json!({"extension": "md", "path": dir})), format!("1 .md file(s) in {dir}"));
    // Without the optional parameter, the server's own folder (its working directory).
    assert_eq!(server.call("count_files", json!({"extension": "txt"})), "1 .txt file(s) in .");
}

/// Requests whose failure the tool answers itself (`match`, `tokio::time::timeout`, `let … else`,
/// `if let`): the error arms go with the request, and so does the timeout's limit.
#[test]
fn tools_that_handled_a_failed_request_take_the_directory() {
    let (_keep, binary) = fixed_and_built("folder-stats");
    let work = folder(&[("a.txt", "one\ntwo\n"), ("b.txt", ""), ("c.md", "three\n")]);
    let elsewhere = folder(&[]);
    let mut server = Server::start(&binary, elsewhere.path());
    let tools = server.tools();
    for name in ["count_lines", "largest_file", "empty_files", "count_files", "newest_file"] {
        let (path, required) = property(&tools, name, "path");
        assert_eq!((path["type"].as_str(), required), (Some("string"), true), "{name}");
    }
    let dir = json!({"path": path_str(work.path())});
    assert_eq!(server.call("count_lines", dir.clone()), "3 line(s)");
    assert_eq!(server.call("largest_file", dir.clone()), "a.txt");
    assert_eq!(server.call("empty_files", dir.clone()), "b.txt");
    assert_eq!(server.call("count_files", dir.clone()), "3 file(s)");
    // Through the helper that returned a `match`: inlined into the tool, then removed.
    let newest = server.call("newest_file", dir);
    assert!(["a.txt", "b.txt", "c.md"].contains(&newest.as_str()), "{newest}");
}

#[test]
fn mrtr_tools_ask_for_the_roots_in_an_input_required_result_and_read_the_retry() {
    let (_keep, binary) = fixed_with_and_built(
        "workspace-tools",
        &["--roots-to", "mrtr"],
        "asks for the roots through an `input_required`",
    );
    let work = folder(&[("a.txt", "the needle is here"), ("b.txt", "nothing")]);
    let other = folder(&[("c.txt", "more")]);
    let mut server = Server::start(&binary, other.path());
    let uri = format!("file://{}", path_str(work.path()));

    // The input schema is the one of before: the roots still come from the client.
    let tools = server.tools();
    assert!(tool(&tools, "search")["inputSchema"]["properties"]["path"].is_null());

    let first = server.request("tools/call", json!({"name": "search", "arguments": {"query": "needle"}}));
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"]["roots"]["method"], "roots/list", "{first}");
    // The retry is a new request (a new JSON-RPC id) carrying the answer.
    let answer = json!({"roots": {"roots": [{"uri": uri}]}});
    let retry = server.request(
        "tools/call",
        json!({"name": "search", "arguments": {"query": "needle"}, "inputResponses": answer.clone()}),
    );
    assert_ne!(retry["isError"], json!(true), "{retry}");
    assert_eq!(retry["content"][0]["text"], "a.txt", "{retry}");
    let counted = server.request(
        "tools/call",
        json!({"name": "count_files", "arguments": {"extension": "txt"}, "inputResponses": answer}),
    );
    assert_eq!(counted["content"][0]["text"], format!("2 .txt file(s) in {}", path_str(work.path())), "{counted}");
}

#[test]
fn mrtr_reads_the_retry_in_tools_that_handled_a_failed_request_or_a_timeout() {
    // The fifth tool's request is in the helper `workspace_dir`, which now takes the answer the tool
    // read; nothing deprecated is left unallowed, so the fixed crate builds warning-free.
    let (keep, binary) =
        fix_and_build("folder-stats", &["--roots-to", "mrtr"], "its `tokio::time::timeout` goes", true);
    // A second fix changes nothing.
    let again = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .current_dir(keep.path().join("folder-stats"))
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--roots-to", "mrtr", "--diff", "."])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&again.stdout), "", "{}", String::from_utf8_lossy(&again.stderr));
    let work = folder(&[("a.txt", "one\ntwo\n"), ("b.txt", ""), ("c.md", "three\n")]);
    let elsewhere = folder(&[]);
    let mut server = Server::start(&binary, elsewhere.path());
    let answer = json!({"roots": {"roots": [{"uri": format!("file://{}", path_str(work.path()))}]}});
    // Under a timeout, in a `match`, with `let … else`, with `if let`: each ends in a helper's result.
    for (name, expected) in [
        ("largest_file", "a.txt"),
        ("count_lines", "3 line(s)"),
        ("empty_files", "b.txt"),
        ("count_files", "3 file(s)"),
    ] {
        let first = server.request("tools/call", json!({"name": name, "arguments": {}}));
        assert_eq!(first["resultType"], "input_required", "{name}: {first}");
        assert_eq!(first["inputRequests"]["roots"]["method"], "roots/list", "{name}: {first}");
        let retry = server.request("tools/call", json!({"name": name, "arguments": {}, "inputResponses": answer}));
        assert_eq!(retry["content"][0]["text"], expected, "{name}: {retry}");
    }
    // Through the helper the tool awaits: the tool asks, the helper reads the answer.
    let first = server.request("tools/call", json!({"name": "newest_file", "arguments": {}}));
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"]["roots"]["method"], "roots/list", "{first}");
    let retry = server.request("tools/call", json!({"name": "newest_file", "arguments": {}, "inputResponses": answer}));
    let newest = retry["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert!(["a.txt", "b.txt", "c.md"].contains(&newest.as_str()), "{retry}");
}

#[test]
fn shape_b_tools_read_the_parameter_instead_of_the_cache() {
    let (_keep, binary) = fixed_and_built("file-index");
    let one = folder(&[("a.md", "a"), ("b.md", "b"), ("c.txt", "c")]);
    let two = folder(&[("a.md", "another a")]);
    let mut server = Server::start(&binary, one.path());
    let tools = server.tools();
    let (path, required) = property(&tools, "count_files", "path");
    assert_eq!((path["type"].as_str(), required), (Some("string"), true));
    let (paths, required) = property(&tools, "find_file", "paths");
    assert_eq!((paths["type"].as_str(), required), (Some("array"), true));

    let dir = path_str(one.path());
    assert_eq!(server.call("count_files", json!({"path": dir})), format!("3 file(s) in {dir}"));
    let found = server.call("find_file", json!({"name": "a.md", "paths": [dir, path_str(two.path())]}));
    assert_eq!(found, format!("{}\n{}", one.path().join("a.md").display(), two.path().join("a.md").display()));
}

/// A cache the constructor seeds with the server's start-up folder and the roots handlers refresh:
/// the tools take an optional `path`, and without it work in the start-up folder, as they did for
/// a client that shared no roots.
#[test]
fn tools_of_a_seeded_cache_default_to_the_starting_directory() {
    let (_keep, binary) = fixed_and_built_warning_free("log-viewer", "the directory `new` seeded the cache with");
    let start = folder(&[("app.log", "one\ntwo\nthree"), ("db.log", "x"), ("notes.txt", "not a log")]);
    let other = folder(&[("web.log", "a\nb\nc\nd")]);
    let mut server = Server::start(&binary, start.path());
    let tools = server.tools();
    for name in ["list_logs", "tail_log"] {
        let (path, required) = property(&tools, name, "path");
        assert!(path["description"].as_str().unwrap().starts_with("Absolute path of the directory"), "{name}");
        assert!(!required, "{name}: the starting directory makes it optional");
    }
    assert_eq!(server.call("list_logs", json!({})), "app.log\ndb.log");
    assert_eq!(server.call("tail_log", json!({"name": "app.log", "lines": 2})), "two\nthree");
    let dir = path_str(other.path());
    assert_eq!(server.call("list_logs", json!({"path": dir})), "web.log");
    assert_eq!(server.call("tail_log", json!({"name": "web.log", "lines": 1, "path": dir})), "d");
}

/// A `OnceCell` an `ensure_*` method fills from the roots on first use: the tools take the
/// directory, and the cell and the method are gone.
#[test]
fn tools_reading_a_lazily_filled_cell_take_the_directory() {
    let (keep, binary) = fixed_and_built_warning_free("doc-search", "changes the tool's public input schema");
    let server_rs = std::fs::read_to_string(keep.path().join("doc-search/src/server.rs")).unwrap();
    assert!(!server_rs.contains("OnceCell") && !server_rs.contains("ensure_folders"), "{server_rs}");
    let docs = folder(&[("a.md", "the plan"), ("b.md", "no"), ("c.txt", "the plan")]);
    let elsewhere = folder(&[]);
    let mut server = Server::start(&binary, elsewhere.path());
    let tools = server.tools();
    for name in ["list_docs", "search_docs"] {
        let (path, required) = property(&tools, name, "path");
        assert_eq!((path["type"].as_str(), required), (Some("string"), true), "{name}");
    }
    let dir = path_str(docs.path());
    assert_eq!(server.call("list_docs", json!({"path": dir})), "a.md\nb.md");
    assert_eq!(server.call("search_docs", json!({"path": dir, "word": "plan"})), "a.md");
}

/// A `Mutex<Option<Vec<String>>>` that `ensure_roots` fills on first use, read by the methods a
/// hand-written `call_tool` dispatches to: each arm reads the directory from its arguments and
/// hands it to its method; the hand-written schemas get the property.
#[test]
fn call_tool_methods_reading_a_lazily_filled_cell_take_the_directory() {
    let (keep, binary) = fixed_and_built_warning_free("todo-scan", "changes the tool's public input schema");
    let server_rs = std::fs::read_to_string(keep.path().join("todo-scan/src/server.rs")).unwrap();
    assert!(!server_rs.contains("Mutex") && !server_rs.contains("ensure_roots"), "{server_rs}");
    let work = folder(&[("main.rs", "// TODO one\nfn main() {} // TODO two"), ("lib.rs", ""), ("notes.md", "TODO")]);
    let elsewhere = folder(&[]);
    let mut server = Server::start(&binary, elsewhere.path());
    let tools = server.tools();
    for name in ["count_todos", "list_sources"] {
        let (path, required) = property(&tools, name, "path");
        assert_eq!((path["type"].as_str(), required), (Some("string"), true), "{name}");
    }
    let dir = path_str(work.path());
    assert_eq!(server.call("count_todos", json!({"file": "main.rs", "path": dir})), "2 TODO(s) in main.rs");
    assert_eq!(server.call("list_sources", json!({"path": dir})), "lib.rs\nmain.rs");
    let reply = server.reply("tools/call", json!({"name": "list_sources", "arguments": {}}));
    assert_eq!(reply["error"]["code"], json!(-32602), "{reply}");
}

#[test]
fn shape_c_helper_callers_take_the_directory() {
    let (_keep, binary) = fixed_and_built("project-notes");
    let notes = folder(&[("todo.md", "- ship it"), ("ideas.md", "more"), ("data.csv", "1,2")]);
    let mut server = Server::start(&binary, notes.path());
    let tools = server.tools();
    for name in ["list_notes", "read_note"] {
        let (path, required) = property(&tools, name, "path");
        assert_eq!(path["description"], "Absolute path of the directory to work in.");
        assert!(required, "{name}");
    }
    let dir = path_str(notes.path());
    assert_eq!(server.call("list_notes", json!({"path": dir})), "ideas.md\ntodo.md");
    assert_eq!(server.call("read_note", json!({"path": dir, "name": "todo.md"})), "- ship it");
}

#[test]
fn hand_written_call_tool_arms_read_the_directory_from_their_arguments() {
    builds_as_written("text-stats");
    let (_keep, binary) = fixed_and_built("text-stats");
    let one = folder(&[("a.txt", "one two three"), ("b.md", "# notes\nmore text here")]);
    let two = folder(&[("c.txt", "x"), ("d.rs", "fn main() {}")]);
    let mut server = Server::start(&binary, two.path());
    let tools = server.tools();

    // The `json!` schemas written in `list_tools` got the property, with its description.
    let (path, required) = property(&tools, "word_count", "path");
    assert_eq!(path["type"], "string");
    assert_eq!(path["description"], "Absolute path of the directory to work in.");
    assert!(required);
    let (_, file_required) = property(&tools, "word_count", "file");
    assert!(file_required, "the tool's own property stays required");
    let (optional, required) = property(&tools, "line_stats", "path");
    assert_eq!(optional["type"], "string");
    assert!(optional["description"].as_str().unwrap().starts_with("Absolute path of the directory"));
    assert!(!required, "the fallback makes it optional");
    // The schema `schema_for!` derives from the argument struct has the new field.
    let (paths, required) = property(&tools, "list_texts", "paths");
    assert_eq!(paths["type"], "array");
    assert_eq!(paths["description"], "Absolute paths of the directories to work in.");
    assert!(required);
    assert_eq!(tool(&tools, "version")["inputSchema"], json!({"type": "object"}), "a tool without roots is untouched");

    let dir = path_str(one.path());
    assert_eq!(server.call("word_count", json!({"file": "a.txt", "path": dir})), "3 word(s) in a.txt");
    // The argument struct denies unknown fields: `paths` is one of its fields now.
    let listed = server.call("list_texts", json!({"extension": "txt", "paths": [dir, path_str(two.path())]}));
    assert_eq!(listed, "a.txt\nc.txt");
    assert_eq!(
        server.call("line_stats", json!({"path": dir})),
        format!("3 line(s), the longest 14 character(s), in {dir}")
    );
    // Without the optional argument, the server's own folder (its working directory).
    assert_eq!(server.call("line_stats", json!({})), "2 line(s), the longest 12 character(s), in .");
    // A required argument that is missing is an `invalid_params` error that names it.
    let reply = server.reply("tools/call", json!({"name": "word_count", "arguments": {"file": "a.txt"}}));
    assert_eq!(reply["error"]["code"], json!(-32602), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("missing `path`"), "{reply}");
}

/// The security case: roots that extend an allow-list seeded from `--allow`. After the fix the
/// configured list still confines every tool: a path outside it is rejected, one inside is served,
/// and no tool got a client-chosen directory parameter.
#[test]
fn sandbox_tools_still_reject_paths_outside_the_configured_list() {
    builds_as_written("sandbox-files");
    let (_keep, binary) = fixed_and_built("sandbox-files");
    let allowed = folder(&[("ok.txt", "inside")]);
    let secret = folder(&[("secret.txt", "outside")]);
    let mut server = Server::start_with(&binary, allowed.path(), &["--allow", &path_str(allowed.path())]);
    let tools = server.tools();
    for name in ["read_file", "list_dir"] {
        let props = tool(&tools, name)["inputSchema"]["properties"].as_object().unwrap().clone();
        assert_eq!(props.keys().collect::<Vec<_>>(), ["path"], "{name}: no new property");
    }
    let inside = allowed.path().join("ok.txt");
    assert_eq!(server.call("read_file", json!({"path": path_str(&inside)})), "inside");
    for path in [secret.path().join("secret.txt"), secret.path().to_path_buf()] {
        for name in ["read_file", "list_dir"] {
            let reply = server.reply("tools/call", json!({"name": name, "arguments": {"path": path_str(&path)}}));
            let text = reply.to_string();
            assert!(text.contains("outside the allowed directories"), "{name} served {}: {text}", path.display());
            assert!(!text.contains("\"outside\""), "{name} leaked the file: {text}");
        }
    }
}
