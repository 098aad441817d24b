//! No surprises at the edges: the same input gives the same output byte for byte, however many
//! threads check it and however the paths naming it overlap.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

#[path = "support/skip.rs"]
mod skip;

fn mcp_lint(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `--format` the binary accepts, read from its own usage error, so a format added later is
/// covered without touching this test.
fn formats() -> Vec<String> {
    let out = mcp_lint(manifest_dir()).args(["check", "--format", "no-such-format"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let list = err
        .split("[possible values: ")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("no list of formats in: {err}"));
    let formats: Vec<String> = list.split(", ").map(str::to_owned).collect();
    assert!(formats.contains(&"human".to_owned()) && formats.contains(&"json".to_owned()), "{formats:?}");
    formats
}

fn run(args: &[&str]) -> Output {
    mcp_lint(manifest_dir()).args(args).output().unwrap()
}

#[test]
fn output_is_the_same_with_one_thread_and_many_in_every_format() {
    let formats = formats();
    for format in &formats {
        let one = run(&["check", "--format", format, "--threads", "1", "fixtures"]);
        assert_eq!(one.status.code(), Some(1), "{format}: {}", String::from_utf8_lossy(&one.stderr));
        assert!(one.stdout.len() > 100, "{format}: the fixtures produce a report");
        for round in 0..2 {
            let many = run(&["check", "--format", format, "--threads", "8", "fixtures"]);
            assert_eq!(many.status, one.status, "{format}, round {round}");
            if many.stdout != one.stdout {
                let (a, b) = (String::from_utf8_lossy(&one.stdout), String::from_utf8_lossy(&many.stdout));
                let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
                panic!(
                    "{format}, round {round}: stdout differs from line {}:\n  1 thread:  {:?}\n  8 threads: {:?}",
                    line + 1,
                    a.lines().nth(line),
                    b.lines().nth(line)
                );
            }
            assert_eq!(
                String::from_utf8_lossy(&many.stderr),
                String::from_utf8_lossy(&one.stderr),
                "{format}, round {round}: notes differ"
            );
        }
    }
}

#[test]
fn statistics_are_the_same_with_one_thread_and_many() {
    let one = run(&["check", "--statistics", "--threads", "1", "fixtures"]);
    if one.status.code().is_none_or(|c| c >= 2) {
        skip::skipped("this build has no --statistics");
        return;
    }
    let many = run(&["check", "--statistics", "--threads", "8", "fixtures"]);
    assert_eq!(one.stdout, many.stdout);
}

const TOOLS: &str = r#"use rmcp::{RoleServer, service::RequestContext};

struct Files;

impl Files {
    async fn list(&self, context: RequestContext<RoleServer>) -> usize {
        context.peer.list_roots().await.unwrap().roots.len()
    }
}
"#;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("src/tools.rs", TOOLS),
        ("src/nested/more.rs", TOOLS),
        ("caps.json", "{\"clientCapabilities\": {\"roots\": {\"listChanged\": true}}}\n"),
    ] {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::os::unix::fs::symlink("src", dir.path().join("alias")).unwrap();
    dir
}

/// Each finding as (real file, rule, byte range): what must appear exactly once, whatever the
/// spelling of the paths that reached it.
fn findings(dir: &Path, args: &[String]) -> Vec<(PathBuf, String, String)> {
    let out = mcp_lint(dir).args(["check", "--format", "json"]).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let path = dir.join(f["path"].as_str().unwrap());
            (std::fs::canonicalize(path).unwrap(), f["rule"].to_string(), f["byte_range"].to_string())
        })
        .collect()
}

#[test]
fn overlapping_and_repeated_paths_are_scanned_once() {
    let dir = tree();
    let root = dir.path();
    let abs = |p: &str| root.join(p).to_string_lossy().into_owned();
    let whole = findings(root, &[".".into()]);
    // Two in the Rust files, two in caps.json (the flag and the deprecated roots).
    assert_eq!(whole.len(), 4, "{whole:#?}");
    let src = findings(root, &["src".into()]);
    assert_eq!(src.len(), 2, "{src:#?}");

    let same_as_src: Vec<Vec<String>> = vec![
        vec!["src".into(), "src".into()],
        vec!["./src".into(), "src".into()],
        vec!["src/".into(), "./src/".into()],
        vec!["src".into(), abs("src")],
        vec![abs("src"), "src".into(), "./src".into()],
        vec!["src/../src".into(), "src".into()],
        vec!["src".into(), "src/tools.rs".into(), "./src/nested/more.rs".into(), abs("src/tools.rs")],
        vec!["src/nested".into(), "src".into(), "src/nested/more.rs".into()],
        // A link named on the command line is read, and its files are the same files.
        vec!["alias".into(), "src".into()],
    ];
    for args in same_as_src {
        let got = findings(root, &args);
        assert_eq!(got.len(), src.len(), "{args:?}: a file was reported twice: {got:#?}");
        let unique: BTreeSet<_> = got.iter().collect();
        assert_eq!(unique, src.iter().collect(), "{args:?}");
    }
    let everything: Vec<Vec<String>> = vec![
        vec![".".into(), "src".into()],
        vec!["src".into(), ".".into(), "caps.json".into()],
        vec![abs("."), ".".into()],
    ];
    for args in everything {
        let got = findings(root, &args);
        assert_eq!(got.len(), whole.len(), "{args:?}: {got:#?}");
        let unique: BTreeSet<_> = got.iter().collect();
        assert_eq!(unique, whole.iter().collect(), "{args:?}");
    }
}

#[test]
fn a_path_is_shown_as_first_given() {
    let dir = tree();
    let out = mcp_lint(dir.path()).args(["check", "--format", "json", "./src/tools.rs", "src"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = v.as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["src/nested/more.rs", "src/tools.rs"]);
}
