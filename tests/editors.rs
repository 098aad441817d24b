//! The documented editor setups, read from the docs (each after its `<!-- tests/editors.rs: NAME -->` marker,
//! in docs/editors.md today; README.md and any docs/*.md page are searched) so the text users copy is the
//! text tested. Helix's `languages.toml` is parsed; each Neovim snippet runs as
//! `init.lua` in `nvim --headless` on every Neovim found whose version it is for, against the freshly built
//! `mcp-lint server`, and each kind of file must get the CLI's findings as diagnostics.
//!
//! Neovims: `nvim` on PATH and those in MCP_LINT_NVIM (paths separated by `:`). `.ci/run` installs Debian's
//! (0.7 on bookworm) and sets MCP_LINT_REQUIRE_NVIM=1, so there a missing `nvim` fails instead of skipping.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/skip.rs"]
mod skip;

/// README.md and every docs/*.md page, in that order.
fn doc_pages() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .map(|dir| dir.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect())
        .unwrap_or_default();
    paths.sort();
    paths.insert(0, root.join("README.md"));
    paths.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
}

fn doc_snippet(name: &str) -> String {
    let marker = format!("<!-- tests/editors.rs: {name} -->\n");
    let pages = doc_pages();
    let (page, at) = pages
        .iter()
        .find_map(|page| page.find(&marker).map(|at| (page, at)))
        .unwrap_or_else(|| panic!("no page has {marker:?}"));
    let after = &page[at + marker.len()..];
    let fence_line = after.lines().next().unwrap();
    assert!(fence_line.starts_with("```"), "{name}: the marker is followed by a fenced block");
    let body = &after[fence_line.len() + 1..];
    body[..body.find("\n```").expect("a closing fence") + 1].to_owned()
}

// ---------------------------------------------------------------- Helix

#[test]
fn helix_languages_toml_runs_the_server_for_every_kind() {
    let config: toml::Table = toml::from_str(&doc_snippet("helix")).expect("valid TOML");
    let server = &config["language-server"]["mcp-lint"];
    assert_eq!(server["command"].as_str(), Some("mcp-lint"));
    assert_eq!(server["args"].as_array().unwrap(), &[toml::Value::from("server")]);

    // Helix's own file types of the languages the snippet extends (its languages.toml); the snippet's
    // `file-types` add to them.
    let builtin_file_types = |language: &str| -> &[&str] {
        match language {
            "rust" => &["rs"],
            "json" => &["json", "jsonl"],
            "jsonc" => &["jsonc"],
            _ => &[],
        }
    };
    let mut served = BTreeSet::new();
    for language in config["language"].as_array().unwrap() {
        let name = language["name"].as_str().unwrap();
        let servers: Vec<&str> =
            language["language-servers"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
        assert!(servers.contains(&"mcp-lint"), "{name}");
        served.extend(builtin_file_types(name).iter().map(|t| t.to_string()));
        if let Some(types) = language.get("file-types") {
            // A language of its own needs what Helix requires of one.
            assert!(language["scope"].is_str() && language["grammar"].is_str(), "{name}");
            served.extend(types.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_owned()));
        }
    }
    let kinds = ["rs", "json", "jsonc", "jsonl", "ndjson"].map(String::from);
    assert_eq!(served, BTreeSet::from(kinds));
}

// ---------------------------------------------------------------- Neovim

/// Neovim's (major, minor).
type Version = (u32, u32);

/// A documented Neovim snippet and the versions it is for: `from` up to, not including, `until`.
struct NeovimSnippet {
    name: &'static str,
    from: Version,
    until: Option<Version>,
}

const NEOVIM_SNIPPETS: &[NeovimSnippet] = &[
    NeovimSnippet { name: "nvim-0.7", from: (0, 7), until: Some((0, 10)) },
    NeovimSnippet { name: "nvim-0.10", from: (0, 10), until: None },
    NeovimSnippet { name: "nvim-0.11", from: (0, 11), until: None },
];

/// A repository with a crate and, outside it, client configs and transcripts: a finding in each.
const FILES: &[(&str, &str)] = &[
    ("crate/Cargo.toml", "[package]\nname = \"files\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    (
        "crate/src/server.rs",
        "use rmcp::{RoleServer, service::RequestContext};\n\nstruct Files;\n\nimpl Files {\n    \
         async fn list(&self, context: RequestContext<RoleServer>) -> usize {\n        \
         context.peer.list_roots().await.unwrap().roots.len()\n    }\n}\n",
    ),
    ("config/mcp.json", PINNED_HEADER),
    (
        "config/cursor.jsonc",
        "// Cursor's config\n{\n  \"mcpServers\": {\n    \"billing\": {\n      \"url\": \"https://billing.example.com/mcp\",\n      \"headers\": { \"MCP-Protocol-Version\": \"2025-06-18\" },\n    },\n  },\n}\n",
    ),
    ("config/session.jsonl", OLD_VERSION_IN_META),
    ("config/session.ndjson", OLD_VERSION_IN_META),
];

const PINNED_HEADER: &str = "{\n  \"mcpServers\": {\n    \"billing\": {\n      \"url\": \"https://billing.example.com/mcp\",\n      \"headers\": { \"MCP-Protocol-Version\": \"2025-06-18\" }\n    }\n  }\n}\n";

const OLD_VERSION_IN_META: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";

/// Opens each file, waits for its diagnostics and writes `path<TAB>line:rule ...` per file to $RESULT.
const DRIVER: &str = r#"
local out = assert(io.open(vim.env.RESULT, 'w'))
for _, file in ipairs(vim.split(vim.env.FILES, ',')) do
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(found, (d.lnum + 1) .. ':' .. tostring(code))
  end
  out:write(file, '\t', table.concat(found, ' '), '\n')
end
out:close()
vim.cmd('qa!')
"#;

fn neovims() -> Vec<(PathBuf, Version)> {
    let candidates = [PathBuf::from("nvim")];
    let mut found: Vec<_> =
        candidates.into_iter().filter_map(|nvim| Some((nvim.clone(), nvim_version(&nvim)?))).collect();
    // Those named in MCP_LINT_NVIM must run.
    // (An unset or empty variable splits into one empty path: no Neovim.)
    for nvim in std::env::split_paths(&std::env::var_os("MCP_LINT_NVIM").unwrap_or_default()) {
        if nvim.as_os_str().is_empty() {
            continue;
        }
        let version = nvim_version(&nvim).unwrap_or_else(|| panic!("MCP_LINT_NVIM: {} does not run", nvim.display()));
        found.push((nvim, version));
    }
    found
}

/// `NVIM v0.7.2` → (0, 7).
fn nvim_version(nvim: &Path) -> Option<Version> {
    let out = Command::new(nvim).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.lines().next()?.strip_prefix("NVIM v")?.split(['.', '-']);
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// `(line, rule)` of each finding of the CLI, per file.
fn cli_findings(root: &Path, file: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .args(["check", "--format", "json", file])
        .current_dir(root)
        .output()
        .unwrap();
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    findings.iter().map(|f| format!("{}:{}", f["range"]["start"]["line"], f["rule"].as_str().unwrap())).collect()
}

/// Runs `init` as init.lua in a headless Neovim that opens every file; its diagnostics per file.
fn diagnostics_in_neovim(nvim: &Path, init: &str, root: &Path, files: &[&str]) -> Vec<(String, BTreeSet<String>)> {
    let home = root.join(".nvim-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("init.lua"), init).unwrap();
    std::fs::write(home.join("driver.lua"), DRIVER).unwrap();
    let result = home.join("result");
    // `mcp-lint` as the snippets name it: the binary under test, first on PATH.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mcp-lint")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut child = Command::new(nvim)
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(home.join("init.lua"))
        .arg("-c")
        .arg(format!("luafile {}", home.join("driver.lua").display()))
        .current_dir(root)
        .env("PATH", path)
        .env("FILES", files.join(","))
        .env("RESULT", &result)
        .env("XDG_CONFIG_HOME", &home)
        .env("XDG_DATA_HOME", &home)
        .env("XDG_STATE_HOME", &home)
        .env("XDG_CACHE_HOME", &home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{}: nvim did not finish in 180 s", nvim.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let text = std::fs::read_to_string(&result)
        .unwrap_or_else(|_| panic!("{}: no result ({status}); stderr: {stderr}", nvim.display()));
    text.lines()
        .map(|line| {
            let (file, found) = line.split_once('\t').unwrap();
            (file.to_owned(), found.split_whitespace().map(str::to_owned).collect())
        })
        .collect()
}

#[test]
fn neovim_snippets_publish_the_clis_findings_for_every_kind() {
    for NeovimSnippet { name, .. } in NEOVIM_SNIPPETS {
        assert!(doc_snippet(name).contains("'mcp-lint', 'server'"), "{name}");
    }
    let neovims = neovims();
    if neovims.is_empty() {
        skip::missing_tool(
            "MCP_LINT_REQUIRE_NVIM",
            "no nvim on PATH or in MCP_LINT_NVIM (Debian: apt-get install neovim)",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (path, text) in FILES {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let files: Vec<&str> = FILES.iter().map(|(p, _)| *p).filter(|p| !p.ends_with("Cargo.toml")).collect();
    let expected: Vec<(String, BTreeSet<String>)> =
        files.iter().map(|f| (f.to_string(), cli_findings(dir.path(), f))).collect();
    for (file, findings) in &expected {
        assert!(!findings.is_empty(), "the fixture {file} has a finding");
    }

    let mut ran = 0;
    let mut not_run: Vec<&str> = Vec::new();
    for NeovimSnippet { name, from, until } in NEOVIM_SNIPPETS {
        let mut ran_this = false;
        for (nvim, version) in &neovims {
            if version < from || until.is_some_and(|until| *version >= until) {
                continue;
            }
            let got = diagnostics_in_neovim(nvim, &doc_snippet(name), dir.path(), &files);
            assert_eq!(got, expected, "{name} on {} {version:?}", nvim.display());
            eprintln!("ran {name} on {} (v{}.{})", nvim.display(), version.0, version.1);
            ran += 1;
            ran_this = true;
        }
        if !ran_this {
            not_run.push(name);
        }
    }
    assert!(ran > 0, "a snippet for each Neovim found");
    // A snippet for a Neovim that is not here is at least read by the Lua of the one that is.
    let (nvim, _) = &neovims[0];
    for name in not_run {
        lua_parses(nvim, name, &doc_snippet(name));
        eprintln!("parsed {name} with {}'s Lua (no Neovim of its version here)", nvim.display());
    }
}

/// Compiles a snippet with Neovim's Lua (`loadstring`) without running it; panics on a syntax error.
fn lua_parses(nvim: &Path, name: &str, snippet: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snippet.lua");
    std::fs::write(&file, snippet).unwrap();
    let check = format!(
        "lua local f = assert(io.open([[{}]])); local ok, err = loadstring(f:read('*a')); f:close(); \
         if ok then vim.cmd('qall!') else io.stderr:write(err); vim.cmd('cquit 3') end",
        file.display()
    );
    let out = Command::new(nvim)
        .args(["--headless", "--clean", "-c", &check])
        .env("XDG_CONFIG_HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .env("XDG_STATE_HOME", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{name} does not parse: {}", String::from_utf8_lossy(&out.stderr));
}
