//! The roots codemod where findings are (`check --format json` and `summary`), and `fix` keeping
//! `rustfmt`-clean files clean. Each test works on a copy of a fixture crate
//! (`fixtures/crates/<name>`) in a temporary folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[path = "support/skip.rs"]
mod skip;

const CRATES: &[&str] = &[
    "workspace-tools",
    "project-notes",
    "file-index",
    "text-stats",
    "word-finder",
    "folder-stats",
    "doc-search",
    "log-viewer",
    "todo-scan",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/crates")
}

fn mcp_lint(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-lint")).args(args).current_dir(dir).output().unwrap()
}

/// A copy of the fixture crate (without `target/`).
fn copy_crate(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = fixtures().join(name);
    let mut stack = vec![from.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let to = dir.path().join(path.strip_prefix(&from).unwrap());
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    std::fs::create_dir_all(&to).unwrap();
                    stack.push(path);
                }
            } else {
                std::fs::copy(&path, &to).unwrap();
            }
        }
    }
    dir
}

/// Every Rust and JSON file under `root`, by relative path.
fn sources(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "json") {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// `fix --unsafe-fixes` over `dir` with `extra` arguments, where `RUSTFMT` names no program, so
/// the text stays as the fixes wrote it.
fn fix_without_rustfmt(dir: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .args(["fix", "--unsafe-fixes", "--allow-no-vcs"])
        .args(extra)
        .arg(".")
        .current_dir(dir)
        .env("RUSTFMT", dir.join("no-rustfmt-here"))
        .output()
        .unwrap()
}

fn findings(dir: &Path) -> Vec<Value> {
    let out = mcp_lint(dir, &["check", "--format", "json", "."]);
    serde_json::from_slice::<Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

/// Applies a JSON fix's edits (byte ranges) to the files under `dir`.
fn apply(dir: &Path, finding: &Value) {
    let fix = &finding["fix"];
    let files: Vec<(String, Vec<Value>)> = match fix.get("files") {
        Some(files) => files
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["path"].as_str().unwrap().to_owned(), f["edits"].as_array().unwrap().clone()))
            .collect(),
        None => vec![(finding["path"].as_str().unwrap().to_owned(), fix["edits"].as_array().unwrap().clone())],
    };
    for (path, edits) in files {
        let path = dir.join(path);
        let mut text = std::fs::read_to_string(&path).unwrap();
        let mut edits: Vec<(usize, usize, &str)> = edits
            .iter()
            .map(|e| {
                let r = e["byte_range"].as_array().unwrap();
                (r[0].as_u64().unwrap() as usize, r[1].as_u64().unwrap() as usize, e["replacement"].as_str().unwrap())
            })
            .collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (start, end, with) in edits {
            text.replace_range(start..end, with);
        }
        std::fs::write(&path, text).unwrap();
    }
}

/// On every fixture crate, each `server-roots-request` finding the codemod rewrites carries the
/// crate's change as its unsafe fix, with the edits of every file, and applying it gives what
/// `fix --unsafe-fixes` writes for that rule, byte for byte, before `fix` lays out rustfmt-clean
/// files (`check` does not run rustfmt: here `fix` finds none, `RUSTFMT` names no program).
#[test]
fn json_fixes_of_roots_findings_are_what_fix_writes() {
    for name in CRATES {
        let by_json = copy_crate(name);
        let found = findings(by_json.path());
        let roots: Vec<&Value> = found.iter().filter(|f| f["rule"] == "server-roots-request").collect();
        let fixed: Vec<&&Value> = roots.iter().filter(|f| !f["fix"].is_null()).collect();
        assert!(!fixed.is_empty(), "{name}: no roots finding has a fix: {roots:#?}");
        for f in &fixed {
            assert_eq!(f["fix"]["applicability"], "unsafe", "{name}: {f:#}");
            let title = f["fix"]["title"].as_str().unwrap();
            assert!(title.starts_with("take the directory as a parameter"), "{name}: {title}");
            // One change for the crate: every finding's fix is the same.
            assert_eq!(f["fix"], fixed[0]["fix"], "{name}");
        }
        let files = fixed[0]["fix"].get("files").and_then(Value::as_array);
        if let Some(files) = files {
            assert!(files.len() >= 2, "{name}: `files` lists more than the finding's file: {files:#?}");
            assert_eq!(files[0]["path"], fixed[0]["path"], "{name}: the finding's file comes first");
            assert_eq!(files[0]["edits"], fixed[0]["fix"]["edits"], "{name}");
        }
        apply(by_json.path(), fixed[0]);

        let by_fix = copy_crate(name);
        let out = fix_without_rustfmt(by_fix.path(), &["--select", "server-roots-request"]);
        assert!(out.status.code() != Some(2), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(sources(by_json.path()), sources(by_fix.path()), "{name}");
    }
}

/// A crate whose roots lookups span files gets `files` with each file's edits.
#[test]
fn a_crate_wide_fix_names_every_file() {
    let dir = copy_crate("workspace-tools");
    let found = findings(dir.path());
    let f = found.iter().find(|f| f["rule"] == "server-roots-request" && !f["fix"].is_null()).unwrap();
    let paths: Vec<&str> = f["fix"]["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(paths.contains(&"src/params.rs") && paths.contains(&"tools.json"), "{paths:?}");
    // Other rules' fixes keep their one-file form: no `files`.
    for other in found.iter().filter(|f| f["rule"] != "server-roots-request" && !f["fix"].is_null()) {
        assert!(other["fix"].get("files").is_none(), "{other:#}");
    }
}

const MANIFEST: &str = "[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nrmcp = \"3.11\"\nserde = \"1\"\nschemars = \"1\"\n\n[workspace]\n";

/// One tool the codemod rewrites and one it leaves (it uses the root's name).
const TWO_TOOLS: &str = r#"use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, tool, tool_router};

pub struct Srv;

#[tool_router]
impl Srv {
    #[tool(description = "Show the first root's name")]
    async fn root_name(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let name = listed.roots.first().and_then(|r| r.name.clone()).unwrap_or_default();
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(name)]))
    }

    #[tool(description = "Count the files of the first root")]
    async fn count(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let dir = listed.roots.first().map(|r| r.uri.clone()).ok_or_else(|| ErrorData::invalid_request("no roots", None))?;
        let n = std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0);
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(n.to_string())]))
    }
}
"#;

fn two_tools() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), TWO_TOOLS).unwrap();
    dir
}

/// The finding the codemod leaves has no fix and says why (`note`); the other has the fix.
#[test]
fn a_finding_the_codemod_leaves_says_why() {
    let dir = two_tools();
    let found = findings(dir.path());
    let roots: Vec<&Value> = found.iter().filter(|f| f["rule"] == "server-roots-request").collect();
    assert_eq!(roots.len(), 2, "{found:#?}");
    let (left, rewritten) = (roots[0], roots[1]);
    assert!(left["fix"].is_null(), "{left:#}");
    let note = left["note"].as_str().unwrap();
    // The reason is the codemod's own (its wording is the codemod's business; here: it names the tool).
    assert!(note.starts_with("the roots codemod leaves it: ") && note.contains("`root_name`"), "{note}");
    assert!(rewritten.get("note").is_none(), "{rewritten:#}");
    let title = rewritten["fix"]["title"].as_str().unwrap();
    assert!(title.contains("tool `count` gets `path`, a required string"), "{title}");
    // Findings of other rules carry no `note` at all (the field is written only when set).
    assert!(found.iter().filter(|f| f["rule"] != "server-roots-request").all(|f| f.get("note").is_none()));
}

/// The codemod rewrites rmcp servers only, so `check` never plans a crate that does not depend on
/// rmcp (which would read every file of it): its findings carry no fix, and a note that says why,
/// from the finding's file planned alone.
#[test]
fn a_crate_without_rmcp_is_not_planned() {
    let dir = two_tools();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST.replace("rmcp = \"3.11\"\n", "")).unwrap();
    let found = findings(dir.path());
    let roots: Vec<&Value> = found.iter().filter(|f| f["rule"] == "server-roots-request").collect();
    assert_eq!(roots.len(), 2, "{found:#?}");
    assert!(roots.iter().all(|f| f["fix"].is_null()), "{roots:#?}");
    let notes: Vec<&str> = roots.iter().map(|f| f["note"].as_str().unwrap()).collect();
    assert!(notes[0].contains("`root_name`"), "{notes:?}");
    assert!(
        notes[1].ends_with("`check` plans it for crates that depend on rmcp, and this file's crate does not"),
        "{notes:?}"
    );
}

/// In an SDK's own sources the note says so, without reading the (large) file again.
#[test]
fn an_sdk_s_own_sources_say_they_are_the_sdk() {
    let dir = two_tools();
    let manifest = "[package]\nname = \"rmcp\"\nversion = \"3.11.0\"\nedition = \"2021\"\n";
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    let found = findings(dir.path());
    let roots: Vec<&Value> = found.iter().filter(|f| f["rule"] == "server-roots-request").collect();
    assert!(!roots.is_empty(), "{found:#?}");
    for f in roots {
        let note = f["note"].as_str().unwrap();
        assert!(note.contains("the source of the MCP SDK `rmcp` itself"), "{note}");
    }
}

/// The audit summary counts a rewritten roots finding as fixed by `--unsafe-fixes`, and lists the
/// one left under "needs a person" with the codemod's reason.
#[test]
fn the_summary_counts_the_codemod() {
    let dir = two_tools();
    let out = mcp_lint(dir.path(), &["check", "--format", "summary", "."]);
    let summary = String::from_utf8(out.stdout).unwrap();
    let row = summary.lines().find(|l| l.starts_with("| `server-roots-request`")).expect(&summary);
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // rule, findings, errors, warnings, safe, unsafe, need a person
    assert_eq!(&cells[2..8], &["2", "0", "2", "0", "1", "1"], "{row}");
    assert!(
        summary.contains("`server-roots-request`: take the directory as a parameter (tool `count` gets `path`"),
        "{summary}"
    );
    let checklist = summary.lines().find(|l| l.starts_with("- [ ]") && l.contains("server-roots-request")).unwrap();
    assert!(checklist.contains("(the roots codemod leaves it: ") && checklist.contains("`root_name`"), "{checklist}");

    // On a fixture crate every roots finding is fixed by `--unsafe-fixes`: none needs a person.
    let dir = copy_crate("workspace-tools");
    let out = mcp_lint(dir.path(), &["check", "--format", "summary", "."]);
    let summary = String::from_utf8(out.stdout).unwrap();
    let row = summary.lines().find(|l| l.starts_with("| `server-roots-request`")).expect(&summary);
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!((cells[2], cells[6], cells[7]), ("3", "3", "0"), "{row}");
}

/// `rustfmt` on `text` as `cargo fmt --check` sees it in `dir` (edition 2024, the crate's
/// `rustfmt.toml`): whether it would change nothing.
fn rustfmt_clean(dir: &Path, text: &str) -> bool {
    use std::io::Write;
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout == text.as_bytes()
}

fn rustfmt_installed() -> bool {
    Command::new("rustfmt").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Removes the fixture runner's `//~ rule` markers from the Rust files of a copied crate: they are
/// comments, and rustfmt never joins a chain across a comment, so a chain with a marker on each link
/// stays on its lines.
fn strip_markers(dir: &Path) {
    for (rel, text) in sources(dir).into_iter().filter(|(r, _)| r.ends_with(".rs")) {
        let stripped: String = text
            .split_inclusive('\n')
            .map(|l| match l.find(" //~") {
                Some(at) => format!("{}\n", &l[..at]),
                None => l.to_owned(),
            })
            .collect();
        std::fs::write(dir.join(rel), stripped).unwrap();
    }
}

/// A crate that is `rustfmt`-clean stays clean after `fix --unsafe-fixes`: the rewritten tool's
/// signature is laid out again and the builder chain the codemod shortened is joined on one line.
/// A file that was not clean is left as the fixes wrote it.
#[test]
fn a_rustfmt_clean_crate_stays_clean() {
    if !rustfmt_installed() {
        skip::skipped("rustfmt is not installed, so `fix` leaves the text as the codemod wrote it");
        return;
    }
    for markers in [true, false] {
        let dir = copy_crate("word-finder");
        if !markers {
            strip_markers(dir.path());
        }
        let src = dir.path().join("src");
        let before = sources(dir.path());
        for (rel, text) in before.iter().filter(|(r, _)| r.ends_with(".rs")) {
            assert!(rustfmt_clean(&src, text), "the fixture's {rel} is not rustfmt-clean (markers: {markers})");
        }
        let out = mcp_lint(dir.path(), &["fix", "--unsafe-fixes", "--allow-no-vcs", "."]);
        assert!(out.status.code() != Some(2), "{}", String::from_utf8_lossy(&out.stderr));
        let after = sources(dir.path());
        assert_ne!(before, after);
        for (rel, text) in after.iter().filter(|(r, _)| r.ends_with(".rs")) {
            assert!(rustfmt_clean(&src, text), "{rel} is not rustfmt-clean after fix (markers: {markers}):\n{text}");
        }
        // The tool's signature, longer now, is laid out on lines of its own.
        assert!(after["src/server.rs"].contains("    async fn find_todos(\n        &self,\n        Parameters(params): Parameters<FindTodosParams>,\n    ) -> Result<CallToolResult, ErrorData> {\n"), "{}", after["src/server.rs"]);
        if !markers {
            let probe = &after["src/probe.rs"];
            assert!(probe.contains("    ClientCapabilities::builder().build()\n"), "{probe}");
        }
        // A second run changes nothing.
        mcp_lint(dir.path(), &["fix", "--unsafe-fixes", "--allow-no-vcs", "."]);
        assert_eq!(sources(dir.path()), after);
    }

    // The same crate with a file that is not clean: that file is not formatted.
    let dir = copy_crate("word-finder");
    strip_markers(dir.path());
    let probe = dir.path().join("src/probe.rs");
    let unclean = std::fs::read_to_string(&probe).unwrap().replace("pub fn ", "pub  fn ");
    std::fs::write(&probe, &unclean).unwrap();
    mcp_lint(dir.path(), &["fix", "--unsafe-fixes", "--allow-no-vcs", "."]);
    let fixed = std::fs::read_to_string(&probe).unwrap();
    assert!(fixed.contains("pub  fn ") && fixed.contains("ClientCapabilities::builder()\n        .build()"), "{fixed}");

    // Without rustfmt (`RUSTFMT` names no program), the text stays as the codemod wrote it.
    let dir = copy_crate("word-finder");
    strip_markers(dir.path());
    let out = fix_without_rustfmt(dir.path(), &[]);
    assert!(out.status.code() != Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let fixed = std::fs::read_to_string(dir.path().join("src/probe.rs")).unwrap();
    assert!(fixed.contains("ClientCapabilities::builder()\n        .build()"), "{fixed}");
}

/// SARIF carries the same crate-wide change as JSON (one artifact change per file, the other
/// files' regions in bytes), and the terminal says the finding is fixable and what it is left for.
#[test]
fn sarif_and_the_terminal_show_the_codemod() {
    for name in ["word-finder", "project-notes"] {
        let by_sarif = copy_crate(name);
        let out = mcp_lint(by_sarif.path(), &["check", "--format", "sarif", "."]);
        let log: Value = serde_json::from_slice(&out.stdout).unwrap();
        let results = log["runs"][0]["results"].as_array().unwrap();
        let roots = results.iter().find(|r| r["ruleId"] == "server-roots-request").expect("a roots finding");
        let changes = roots["fixes"][0]["artifactChanges"].as_array().expect("the codemod's change");
        assert!(changes.len() >= 2, "{name}: {changes:#?}");
        for change in changes {
            let path = by_sarif.path().join(change["artifactLocation"]["uri"].as_str().unwrap());
            let mut text = std::fs::read_to_string(&path).unwrap();
            let mut edits: Vec<(usize, usize, &str)> = change["replacements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let start = r["deletedRegion"]["byteOffset"].as_u64().unwrap() as usize;
                    let len = r["deletedRegion"]["byteLength"].as_u64().unwrap() as usize;
                    (start, start + len, r["insertedContent"]["text"].as_str().unwrap())
                })
                .collect();
            edits.sort_by_key(|e| std::cmp::Reverse(e.0));
            for (start, end, with) in edits {
                text.replace_range(start..end, with);
            }
            std::fs::write(&path, text).unwrap();
        }
        let by_json = copy_crate(name);
        let found = findings(by_json.path());
        apply(
            by_json.path(),
            found.iter().find(|f| f["rule"] == "server-roots-request" && !f["fix"].is_null()).unwrap(),
        );
        assert_eq!(sources(by_sarif.path()), sources(by_json.path()), "{name}");
    }

    let dir = two_tools();
    let out = mcp_lint(dir.path(), &["check", "--color", "never", "."]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("= fix (unsafe): take the directory as a parameter (tool `count` gets `path`"), "{shown}");
    assert!(shown.contains("= note: the roots codemod leaves it: "), "{shown}");
}

/// The summary counts a finding on code the codemod rewrites away (`first()` of the list it no
/// longer requests, the `file://` cut it replaced) as fixed by `--unsafe-fixes`: on every fixture
/// crate, what it says needs a person is what `check` still finds after `fix --unsafe-fixes`.
#[test]
fn the_summary_counts_what_the_codemod_sweeps_away() {
    for name in CRATES.iter().chain(&["sandbox-files"]) {
        let dir = copy_crate(name);
        let summary = String::from_utf8(mcp_lint(dir.path(), &["check", "--format", "summary", "."]).stdout).unwrap();
        let manual: usize = summary
            .lines()
            .find_map(|l| l.strip_prefix("| need a person | "))
            .and_then(|rest| rest.trim_end_matches(" |").parse().ok())
            .unwrap_or_else(|| panic!("{name}: no total:\n{summary}"));
        let out = fix_without_rustfmt(dir.path(), &[]);
        assert!(out.status.code() != Some(2), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(findings(dir.path()).len(), manual, "{name}:\n{summary}");
    }
}
