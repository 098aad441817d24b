//! `mcp-lint server` as an editor drives it: LSP over the binary's stdin/stdout with
//! `Content-Length` framing. Every read has a deadline, so a hung server fails the test instead of
//! hanging it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(30);

/// A client builder chain with a safe fix, after non-ASCII text on the same line: `ë` is 2 bytes
/// and 1 UTF-16 unit, `🦀` is 4 bytes and 2 UTF-16 units (a surrogate pair).
const CLIENT: &str = "use rmcp::model::ClientCapabilities;

pub fn capabilities() -> (&'static str, ClientCapabilities) {
    (\"Zoë 🦀\", ClientCapabilities::builder().enable_roots_list_changed().enable_elicitation().build())
}
";

const MANIFEST: &str = "[package]
name = \"desktop\"
version = \"0.1.0\"
edition = \"2021\"

[dependencies]
rmcp = { version = \"2.0\", features = [\"client\"] }
";

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    /// Messages read while waiting for something else (a response while diagnostics arrive).
    held: Vec<Value>,
    next_id: i64,
}

impl Client {
    fn start(dir: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("mcp-lint server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_frame(&mut reader) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, incoming, held: Vec::new(), next_id: 1 }
    }

    fn write_frame(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        self.write_frame(&body);
    }

    /// Sends a request and waits for its response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.write_frame(&body);
        self.wait_for(&format!("the response to {method}"), |m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// The first message (held or new) that `wanted` accepts; the others are held for later.
    fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.held.iter().position(&wanted) {
            return self.held.remove(i);
        }
        let until = Instant::now() + DEADLINE;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.held.push(message),
                Err(_) => panic!("no {what} within {DEADLINE:?}; other messages: {:#?}", self.held),
            }
        }
    }

    fn diagnostics(&mut self, uri: &str) -> Value {
        let message = self.wait_for(&format!("diagnostics for {uri}"), |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        message["params"].clone()
    }

    fn initialize(&mut self, encodings: &[&str]) -> Value {
        let response = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": {"general": {"positionEncodings": encodings}},
            }),
        );
        self.notify("initialized", json!({}));
        response
    }

    fn shutdown_and_exit(mut self) -> ExitStatus {
        let response = self.request("shutdown", Value::Null);
        assert_eq!(response["result"], Value::Null, "{response}");
        assert!(response.get("error").is_none(), "{response}");
        self.notify("exit", Value::Null);
        self.wait_for_exit()
    }

    fn wait_for_exit(&mut self) -> ExitStatus {
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < until, "the server did not exit within {DEADLINE:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One `Content-Length`-framed message, or `None` at the end of the output.
fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.strip_suffix("\r\n").expect("header lines end with CRLF");
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = Some(value.parse::<usize>().expect("a numeric Content-Length"));
        }
    }
    let mut body = vec![0; length.expect("a Content-Length header")];
    reader.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("a JSON body"))
}

/// The UTF-16 position of a byte offset, counted independently of the server.
fn utf16_position(text: &str, offset: usize) -> Value {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..line_start].matches('\n').count();
    json!({"line": line, "character": text[line_start..offset].encode_utf16().count()})
}

/// The byte offset of a UTF-16 position.
fn utf16_offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let line_start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[line_start..].char_indices() {
        if units >= character || c == '\n' {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// Applies LSP text edits (UTF-16 ranges) to `text`, last first so earlier ranges stay valid.
fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut ranges: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            let start = utf16_offset(text, &e["range"]["start"]);
            let end = utf16_offset(text, &e["range"]["end"]);
            (start, end, e["newText"].as_str().unwrap())
        })
        .collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut out = text.to_string();
    for (start, end, new_text) in ranges {
        out.replace_range(start..end, new_text);
    }
    out
}

fn file_uri(path: &Path) -> String {
    let path = path.to_str().unwrap();
    let mut uri = String::from("file://");
    for b in path.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => uri.push(b as char),
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri
}

/// A crate in a temporary folder with `src/client.rs` holding `CLIENT`.
fn client_crate() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    // A client of 2026-07-28 alone: there dropping `listChanged` is a safe fix (for rmcp 2's
    // older revisions alone it would be unsafe).
    std::fs::write(dir.path().join("mcp-lint.toml"), "era = \"2026-07-28\"\n").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let file = dir.path().join("src/client.rs");
    std::fs::write(&file, CLIENT).unwrap();
    (dir, file)
}

/// What `mcp-lint check --format json` reports for the file: the reference the editor must match.
fn cli_findings(dir: &Path, file: &Path) -> Vec<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .args(["check", "--format", "json"])
        .arg(file)
        .current_dir(dir)
        .output()
        .unwrap();
    serde_json::from_slice::<Value>(&output.stdout).unwrap().as_array().unwrap().clone()
}

#[test]
fn diagnostics_in_utf16_then_the_quick_fix_clears_them() {
    let (dir, file) = client_crate();
    let uri = file_uri(&file);
    let mut client = Client::start(dir.path());

    let init = client.initialize(&["utf-16"]);
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(capabilities["positionEncoding"], "utf-16", "{init}");
    assert_eq!(capabilities["textDocumentSync"]["openClose"], true, "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "mcp-lint");
    let kinds = capabilities["codeActionProvider"]["codeActionKinds"].as_array().unwrap();
    assert!(kinds.contains(&json!("quickfix")) && kinds.contains(&json!("source.fixAll.mcp-lint")), "{init}");

    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": CLIENT}}),
    );
    let published = client.diagnostics(&uri);
    assert_eq!(published["version"], 1);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    let expected = cli_findings(dir.path(), &file);
    assert_eq!(diagnostics.len(), expected.len(), "{published:#}\nCLI: {expected:#?}");
    assert_eq!(expected.len(), 1, "{expected:#?}");
    let (diagnostic, finding) = (&diagnostics[0], &expected[0]);

    // The range: the CLI's byte range, in UTF-16 units. On this line bytes, scalar values and
    // UTF-16 units all differ before the finding, so only a UTF-16 count passes.
    let start = finding["byte_range"][0].as_u64().unwrap() as usize;
    let end = finding["byte_range"][1].as_u64().unwrap() as usize;
    assert!(CLIENT[start..end].contains("enable_roots_list_changed"), "{:?}", &CLIENT[start..end]);
    assert_eq!(diagnostic["range"]["start"], utf16_position(CLIENT, start), "{diagnostic:#}");
    assert_eq!(diagnostic["range"]["end"], utf16_position(CLIENT, end), "{diagnostic:#}");
    let line_start = CLIENT[..start].rfind('\n').unwrap() + 1;
    let character = diagnostic["range"]["start"]["character"].as_u64().unwrap() as usize;
    assert_eq!(character + 3, start - line_start, "three bytes more than UTF-16 units before it");
    assert_eq!(character, CLIENT[line_start..start].chars().count() + 1, "one unit more than scalar values");
    assert_eq!(diagnostic["range"]["start"]["line"], 3);

    assert_eq!(diagnostic["code"], "roots-list-changed");
    assert_eq!(diagnostic["source"], "mcp-lint");
    let severity = if finding["severity"] == "error" { 1 } else { 2 };
    assert_eq!(diagnostic["severity"], severity, "{diagnostic:#} vs {finding:#}");
    let message = diagnostic["message"].as_str().unwrap();
    assert!(message.starts_with(finding["message"].as_str().unwrap()), "{message}");
    assert!(message.contains(&format!("help: {}", finding["help"].as_str().unwrap())), "{message}");

    // The quick fix for that range: preferred (it is safe), one edit of this document.
    let response = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": diagnostic["range"],
            "context": {"diagnostics": [diagnostic]},
        }),
    );
    let actions = response["result"].as_array().expect("a list of code actions");
    let quick_fixes: Vec<&Value> = actions.iter().filter(|a| a["kind"] == "quickfix").collect();
    assert_eq!(quick_fixes.len(), 1, "{response:#}");
    let action = quick_fixes[0];
    assert_eq!(action["isPreferred"], true, "{action:#}");
    assert_eq!(action["title"], finding["fix"]["title"], "{action:#}");
    assert_eq!(action["diagnostics"][0]["range"], diagnostic["range"]);
    let edits = action["edit"]["changes"][&uri].as_array().expect("edits of this document");
    let fixed = apply_edits(CLIENT, edits);
    assert_eq!(fixed, CLIENT.replace(".enable_roots_list_changed()", ""));

    // The editor applies it and sends the new text: the finding is gone.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let published = client.diagnostics(&uri);
    assert_eq!(published["version"], 2, "{published:#}");
    assert_eq!(published["diagnostics"], json!([]), "{published:#}");

    let status = client.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn the_buffer_is_checked_not_the_file_and_close_clears() {
    let (dir, file) = client_crate();
    std::fs::write(&file, "// nothing here yet\n").unwrap();
    let uri = file_uri(&file);
    let mut client = Client::start(dir.path());
    client.initialize(&["utf-8", "utf-16"]);

    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 7, "text": CLIENT}}),
    );
    let published = client.diagnostics(&uri);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{published:#}");
    // UTF-8 was offered, so columns are bytes: those of the CLI's finding in the same text.
    let copy = dir.path().join("src/copy.rs");
    std::fs::write(&copy, CLIENT).unwrap();
    let finding = &cli_findings(dir.path(), &copy)[0];
    for (end, at) in [("start", &finding["byte_range"][0]), ("end", &finding["byte_range"][1])] {
        let at = at.as_u64().unwrap() as usize;
        let line_start = CLIENT[..at].rfind('\n').unwrap() + 1;
        assert_eq!(diagnostics[0]["range"][end]["character"], at - line_start, "{published:#}");
    }

    // An edit typed after the finding keeps it, at the same place.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri, "version": 8},
            "contentChanges": [{"range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 0}},
                                "text": "// more\n"}],
        }),
    );
    let published = client.diagnostics(&uri);
    assert_eq!(published["version"], 8);
    assert_eq!(published["diagnostics"][0]["range"], diagnostics[0]["range"], "{published:#}");

    // Save runs a check too.
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    assert_eq!(client.diagnostics(&uri)["diagnostics"].as_array().unwrap().len(), 1);

    client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    let published = client.diagnostics(&uri);
    assert_eq!(published["diagnostics"], json!([]), "{published:#}");

    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}

#[test]
fn fix_all_applies_every_safe_fix_of_the_document() {
    let (dir, file) = client_crate();
    let uri = file_uri(&file);
    let text = format!(
        "{CLIENT}\npub fn again() -> ClientCapabilities {{\n    ClientCapabilities::builder().enable_roots_list_changed().build()\n}}\n"
    );
    let mut client = Client::start(dir.path());
    client.initialize(&["utf-16"]);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
    );
    assert_eq!(client.diagnostics(&uri)["diagnostics"].as_array().unwrap().len(), 2);

    let response = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll"]},
        }),
    );
    let actions = response["result"].as_array().unwrap();
    assert_eq!(actions.len(), 1, "only the fix-all action was asked for: {response:#}");
    assert_eq!(actions[0]["kind"], "source.fixAll.mcp-lint");
    let fixed = apply_edits(&text, actions[0]["edit"]["changes"][&uri].as_array().unwrap());
    assert_eq!(fixed, text.replace(".enable_roots_list_changed()", ""));

    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(client.diagnostics(&uri)["diagnostics"], json!([]));
    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}

/// A method typed into an rmcp server's `impl ServerHandler`, one character per `didChange`, with
/// no brackets or quotes closed ahead (a plain editor): after every change, each finding outside
/// the method being typed is still published, same rule, moved with the text.
#[test]
fn typing_a_method_never_drops_the_findings_around_it() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = MANIFEST.replace("\"client\"", "\"server\"");
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rust/removed-method/rmcp_legacy_server.rs");
    let original = std::fs::read_to_string(fixture).unwrap();
    let file = dir.path().join("src/server.rs");
    std::fs::write(&file, &original).unwrap();
    let uri = file_uri(&file);
    let mut client = Client::start(dir.path());
    client.initialize(&["utf-16"]);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": original}}),
    );
    // Each finding as (rule, byte range) in `text`.
    let findings = |text: &str, published: &Value| -> Vec<(String, usize, usize)> {
        let all = published["diagnostics"].as_array().unwrap().iter();
        all.map(|d| {
            let range = (utf16_offset(text, &d["range"]["start"]), utf16_offset(text, &d["range"]["end"]));
            (d["code"].as_str().unwrap().to_owned(), range.0, range.1)
        })
        .collect()
    };
    let before = findings(&original, &client.diagnostics(&uri));
    assert!(before.len() >= 5 && before.iter().all(|f| f.0 == "removed-method"), "{before:?}");

    // On the blank line before `on_initialized`.
    let at = original.find("\n    async fn on_initialized").unwrap();
    let method = "    /// Lists the client's roots.\n    #[tracing::instrument(skip(self, ctx))]\n    async fn roots_now(&self, ctx: RequestContext<RoleServer>) -> Result<(), ErrorData> {\n        let roots = ctx.peer.list_roots().await?;\n        tracing::info!(\"{} roots: {:?}\", roots.roots.len(), ['/', '{']);\n        Ok(())\n    }\n\n";
    let mut text = original.clone();
    let mut last = Vec::new();
    for (n, c) in method.char_indices() {
        let position = utf16_position(&text, at + n);
        text.insert(at + n, c);
        let version = n as i64 + 2;
        client.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": position, "end": position}, "text": c.to_string()}],
            }),
        );
        // Asking for code actions publishes this version's findings at once: no typing pause.
        client.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": position, "end": position},
                   "context": {"diagnostics": []}}),
        );
        let published = client.wait_for("the diagnostics of this version", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version
        });
        last = findings(&text, &published["params"]);
        let typed = n + c.len_utf8();
        for (rule, start, end) in &before {
            let moved =
                if *start >= at { (rule.clone(), start + typed, end + typed) } else { (rule.clone(), *start, *end) };
            assert!(last.contains(&moved), "after typing {:?}: {moved:?} is gone: {last:?}", &method[..typed]);
        }
        // A syntax error is reported in what is being typed, nowhere else.
        for (rule, start, _) in &last {
            let inside = (at..=at + typed).contains(start);
            assert!(rule != "parse-error" || inside, "after typing {:?}: {last:?}", &method[..typed]);
        }
    }
    // Typed out, the file parses again, and the new method has its own finding.
    assert!(last.iter().all(|f| f.0 != "parse-error"), "{last:?}");
    assert_eq!(last.len(), before.len() + 1, "{last:?}");
    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}

#[test]
fn bad_messages_get_errors_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path());

    let early = client.request("textDocument/codeAction", json!({}));
    assert_eq!(early["error"]["code"], -32002, "not initialized yet: {early}");
    client.initialize(&[]);

    client.write_frame("{this is not json");
    let parse_error = client.wait_for("a parse error", |m| m["id"].is_null() && m.get("error").is_some());
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");

    let unknown = client.request("textDocument/hover", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let invalid = client.request("textDocument/codeAction", json!({"textDocument": 5}));
    assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
    client.notify("textDocument/didOpen", json!({"nonsense": true}));

    // A document the server does not read is ignored; one not open gets no actions.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///tmp/notes.md", "languageId": "markdown", "version": 1, "text": "# roots"}}),
    );
    let none = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": "file:///tmp/notes.md"},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "context": {"diagnostics": []},
        }),
    );
    assert_eq!(none["result"], json!([]), "{none}");

    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}

#[test]
fn exit_without_shutdown_is_status_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path());
    client.initialize(&["utf-16"]);
    client.notify("exit", Value::Null);
    assert_eq!(client.wait_for_exit().code(), Some(1));
}

#[test]
fn the_editor_follows_configuration_and_sees_it_change() {
    let (dir, file) = client_crate();
    // The crate turns the rule off: the editor must agree with `mcp-lint check`.
    std::fs::write(dir.path().join("mcp-lint.toml"), "ignore = [\"roots-list-changed\"]\n").unwrap();
    assert!(cli_findings(dir.path(), &file).iter().all(|f| f["rule"] != "roots-list-changed"));
    let uri = file_uri(&file);
    let mut client = Client::start(dir.path());
    client.initialize(&["utf-16"]);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": CLIENT}}),
    );
    let published = client.diagnostics(&uri);
    assert!(
        published["diagnostics"].as_array().unwrap().iter().all(|d| d["code"] != "roots-list-changed"),
        "{published:#}"
    );

    // Saving a changed configuration re-checks open documents with it.
    let config = dir.path().join("mcp-lint.toml");
    std::fs::write(&config, "select = [\"roots-list-changed\"]\n").unwrap();
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": file_uri(&config)}}));
    let published = client.diagnostics(&uri);
    let codes: Vec<&Value> = published["diagnostics"].as_array().unwrap().iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("roots-list-changed")], "{published:#}");
    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}

#[test]
fn a_configuration_changed_on_disk_is_read_again() {
    let (dir, file) = client_crate();
    let uri = file_uri(&file);
    let mut client = Client::start(dir.path());
    client.initialize(&["utf-16"]);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": CLIENT}}),
    );
    let published = client.diagnostics(&uri);
    assert!(
        published["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "roots-list-changed"),
        "{published:#}"
    );

    // Another program rewrites the configuration; the editor's file watcher reports it (type 2 is
    // `Changed`), with no document of the editor saved.
    let config = dir.path().join("mcp-lint.toml");
    std::fs::write(&config, "era = \"2026-07-28\"\nignore = [\"roots-list-changed\"]\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": file_uri(&config), "type": 2}]}));
    let published = client.diagnostics(&uri);
    assert!(
        published["diagnostics"].as_array().unwrap().iter().all(|d| d["code"] != "roots-list-changed"),
        "{published:#}"
    );

    // A change elsewhere rereads nothing: no diagnostics are published for it.
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&dir.path().join("notes.txt")), "type": 2}]}),
    );
    let response = client.request("shutdown", Value::Null);
    assert_eq!(response["result"], Value::Null, "{response}");
    assert!(client.held.iter().all(|m| m["method"] != "textDocument/publishDiagnostics"), "{:#?}", client.held);
    client.notify("exit", Value::Null);
    assert_eq!(client.wait_for_exit().code(), Some(0));
}

/// A copy of `fixtures/crates/word-finder` (an rmcp server whose tool asks for the roots; its
/// client capabilities in another file): the folder and the canonical path of `src/server.rs`.
fn word_finder() -> (tempfile::TempDir, std::path::PathBuf) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/crates/word-finder");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    for rel in ["Cargo.toml", "rustfmt.toml", "src/main.rs", "src/probe.rs", "src/server.rs"] {
        std::fs::copy(from.join(rel), dir.path().join(rel)).unwrap();
    }
    let server = std::fs::canonicalize(dir.path().join("src/server.rs")).unwrap();
    (dir, server)
}

/// Initializes with versioned workspace edits and disabled code actions, as VS Code does.
fn initialize_like_vscode(client: &mut Client) {
    client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {
                "general": {"positionEncodings": ["utf-16"]},
                "workspace": {"workspaceEdit": {"documentChanges": true}},
                "textDocument": {"codeAction": {"disabledSupport": true}},
            },
        }),
    );
    client.notify("initialized", json!({}));
}

/// The code actions of the first finding of `rule` published for `uri`.
fn actions_of(client: &mut Client, uri: &str, rule: &str) -> Vec<Value> {
    let published = client.diagnostics(uri);
    let diagnostic = published["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == rule).cloned();
    let diagnostic = diagnostic.unwrap_or_else(|| panic!("no {rule} finding: {published:#}"));
    let response = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic]}}),
    );
    response["result"].as_array().unwrap().clone()
}

/// On a `server-roots-request` finding, the roots codemod is a quick fix whose workspace edit
/// changes every file the codemod changes: the open document (its editor text, at its version)
/// and a file that is not open (by its text on disk). Applied, it gives what
/// `fix --unsafe-fixes` writes.
#[test]
fn the_roots_codemod_is_a_workspace_edit_over_the_crate() {
    let (dir, server) = word_finder();
    let probe = std::fs::canonicalize(dir.path().join("src/probe.rs")).unwrap();
    // The editor's buffer differs from the file on disk: the action is computed on the buffer.
    let buffer = format!("// edited, not saved\n{}", std::fs::read_to_string(&server).unwrap());
    let uri = file_uri(&server);
    let mut client = Client::start(dir.path());
    initialize_like_vscode(&mut client);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 7, "text": buffer}}),
    );
    let actions = actions_of(&mut client, &uri, "server-roots-request");
    let codemod: Vec<&Value> = actions
        .iter()
        .filter(|a| a["title"].as_str().is_some_and(|t| t.starts_with("take the directory as a parameter")))
        .collect();
    assert_eq!(codemod.len(), 1, "{actions:#?}");
    let action = codemod[0];
    let title = action["title"].as_str().unwrap();
    assert!(title.ends_with("(unsafe)") && title.contains("tool `find_todos` gets `path`"), "{title}");
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["isPreferred"], false, "{action:#}");
    let changes = action["edit"]["documentChanges"].as_array().expect("versioned edits");
    let uris: Vec<&str> = changes.iter().map(|c| c["textDocument"]["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, [uri.as_str(), file_uri(&probe).as_str()], "{action:#}");
    assert_eq!(changes[0]["textDocument"]["version"], 7, "the open document at its version");
    assert_eq!(changes[1]["textDocument"]["version"], Value::Null, "a file that is not open: as on disk");

    // What `fix --unsafe-fixes` writes for the same texts.
    let (expected_dir, expected_server) = word_finder();
    std::fs::write(&expected_server, &buffer).unwrap();
    let fixed = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs", "--select", "server-roots-request", "."])
        .current_dir(expected_dir.path())
        .output()
        .unwrap();
    assert_ne!(fixed.status.code(), Some(2), "{}", String::from_utf8_lossy(&fixed.stderr));
    let server_fixed = apply_edits(&buffer, changes[0]["edits"].as_array().unwrap());
    let probe_fixed = apply_edits(&std::fs::read_to_string(&probe).unwrap(), changes[1]["edits"].as_array().unwrap());
    assert_eq!(server_fixed, std::fs::read_to_string(&expected_server).unwrap());
    assert_eq!(probe_fixed, std::fs::read_to_string(expected_dir.path().join("src/probe.rs")).unwrap());

    // Applied, the finding is gone.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 8}, "contentChanges": [{"text": server_fixed}]}),
    );
    let published = client.diagnostics(&uri);
    assert!(published["diagnostics"].as_array().unwrap().iter().all(|d| d["code"] != "server-roots-request"));
    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}

/// Where the codemod leaves a lookup, the action is offered disabled, with its reason.
#[test]
fn a_lookup_the_codemod_leaves_gets_a_disabled_action_with_the_reason() {
    let (dir, server) = word_finder();
    let text = std::fs::read_to_string(&server).unwrap();
    // The tool now shows the root's name: the codemod does not rewrite that.
    let text = text.replace(
        "let dir = root.uri.trim_start_matches(\"file://\").to_owned();",
        "let dir = root.uri.trim_start_matches(\"file://\").to_owned();\n        let _shown = root.name.clone();",
    );
    let uri = file_uri(&server);
    let mut client = Client::start(dir.path());
    initialize_like_vscode(&mut client);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
    );
    let actions = actions_of(&mut client, &uri, "server-roots-request");
    let action = actions.iter().find(|a| a["title"] == "take the directory as a parameter (unsafe)").expect("offered");
    let reason = action["disabled"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("the roots codemod leaves it: ") && reason.contains("`find_todos`"), "{reason}");
    assert!(action.get("edit").is_none_or(Value::is_null), "{action:#}");
    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}

/// `check`'s findings in one file of the crate at `dir`, checked whole.
fn crate_findings_in(dir: &Path, relative: &str) -> Vec<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .args(["check", "--format", "json", "."])
        .current_dir(dir)
        .output()
        .unwrap();
    let all: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    all.into_iter().filter(|f| f["path"] == relative).collect()
}

#[test]
fn a_document_is_checked_with_the_other_files_of_its_crate() {
    // The client data is stored in `state.rs` during `initialize` and read by a tool in
    // `tools.rs`: only a model of the whole crate connects the two.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rust/inferred-client-capabilities/split_server");
    let dir = tempfile::tempdir().unwrap();
    for relative in ["Cargo.toml", "src/main.rs", "src/handler.rs", "src/state.rs", "src/tools.rs"] {
        std::fs::create_dir_all(dir.path().join(relative).parent().unwrap()).unwrap();
        std::fs::copy(fixture.join(relative), dir.path().join(relative)).unwrap();
    }
    let file = dir.path().join("src/tools.rs");
    let text = std::fs::read_to_string(&file).unwrap();
    let expected = crate_findings_in(dir.path(), "src/tools.rs");
    assert!(!expected.is_empty(), "the fixture's cross-file finding");
    assert_eq!(cli_findings(dir.path(), &file), Vec::<Value>::new(), "the file alone shows nothing");

    let uri = file_uri(&file);
    let mut client = Client::start(dir.path());
    client.initialize(&["utf-16"]);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
    );
    let published = client.diagnostics(&uri);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    let ranges = |d: &Value| (d["range"]["start"].clone(), d["range"]["end"].clone(), d["code"].clone());
    let got: Vec<_> = diagnostics.iter().map(ranges).collect();
    let want: Vec<_> = expected
        .iter()
        .map(|f| {
            let (start, end) =
                (f["byte_range"][0].as_u64().unwrap() as usize, f["byte_range"][1].as_u64().unwrap() as usize);
            (utf16_position(&text, start), utf16_position(&text, end), f["rule"].clone())
        })
        .collect();
    assert_eq!(got, want, "{published:#}");

    // The store is edited away on disk (the editor saved `state.rs`): the finding goes with it.
    let state = dir.path().join("src/state.rs");
    std::fs::write(&state, "pub struct Unrelated;\n").unwrap();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": format!("{text}\n")}]}),
    );
    let published = client.diagnostics(&uri);
    assert!(
        !published["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "inferred-client-capabilities"),
        "{published:#}"
    );
    assert_eq!(client.shutdown_and_exit().code(), Some(0));
}
