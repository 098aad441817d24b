//! Hostile input, run through the binary as CI runs it: each case gets a clear per-file finding or
//! note, the rest of the run completes (a witness file's finding is still reported), the exit code
//! keeps its meaning, and memory stays bounded.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

#[path = "support/skip.rs"]
mod skip;

fn mcp_lint() -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    // A hang is a failure too, not a stuck test run.
    cmd.env("NO_COLOR", "1").timeout(Duration::from_secs(300));
    cmd
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// A client capability file with one `roots-list-changed` finding: it proves the run went on.
/// A file with exactly one finding, whose presence shows the run went on past the hostile input.
const WITNESS: &str = "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/roots/list_changed\"}\n";

fn with_witness() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "witness/caps.json", WITNESS);
    dir
}

fn findings(out: &Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    v.as_array().unwrap().clone()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn by_path<'a>(findings: &'a [Value], suffix: &str) -> Vec<&'a Value> {
    findings.iter().filter(|f| f["path"].as_str().unwrap().ends_with(suffix)).collect()
}

fn assert_witness(findings: &[Value]) {
    let w = by_path(findings, "witness/caps.json");
    assert_eq!(w.len(), 1, "the witness finding is missing: the run did not complete: {findings:#?}");
    assert_eq!(w[0]["rule"], "roots-list-changed");
}

fn byte_range(f: &Value) -> std::ops::Range<usize> {
    f["byte_range"][0].as_u64().unwrap() as usize..f["byte_range"][1].as_u64().unwrap() as usize
}

/// Runs `mcp-lint args…` under `/usr/bin/time -v` when it exists, returning the output and the
/// peak resident set size in KiB.
fn run_measured(dir: &Path, args: &[&str]) -> (Output, Option<u64>) {
    let bin = assert_cmd::cargo::cargo_bin("mcp-lint");
    let time = Path::new("/usr/bin/time");
    let out = if time.exists() {
        std::process::Command::new(time).arg("-v").arg(&bin).args(args).current_dir(dir).output().unwrap()
    } else {
        std::process::Command::new(&bin).args(args).current_dir(dir).output().unwrap()
    };
    let peak = stderr(&out)
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): ").map(|n| n.parse().unwrap()));
    (out, peak)
}

#[test]
fn nesting_100_000_deep_is_a_parse_error_not_a_crash() {
    let dir = with_witness();
    let n = 100_000;
    // Each names a trigger word, so the prefilter hands it to the parser.
    write(dir.path(), "deep/blocks.rs", format!("fn list_roots() {}{}\n", "{".repeat(n), "}".repeat(n)));
    let parens = format!("fn f() {{ let x = list_roots{}1{}; }}\n", "(".repeat(n), ")".repeat(n));
    write(dir.path(), "deep/parens.rs", parens);
    write(dir.path(), "deep/unclosed.rs", format!("fn list_roots() {}\n", "{[(".repeat(n)));
    let (out, peak) = run_measured(dir.path(), &["check", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    assert_witness(&all);
    for name in ["blocks.rs", "parens.rs", "unclosed.rs"] {
        let f = by_path(&all, name);
        assert_eq!(f.len(), 1, "{name}: {all:#?}");
        assert_eq!(f[0]["rule"], "parse-error");
        let text = std::fs::read_to_string(dir.path().join("deep").join(name)).unwrap();
        let r = byte_range(f[0]);
        assert!(r.end <= text.len() && r.start <= r.end, "{name}: {r:?}");
        let message = f[0]["message"].as_str().unwrap();
        assert!(message.contains("nested more than") || message.contains("cannot lex"), "{name}: {message}");
    }
    if let Some(kb) = peak {
        assert!(kb < 512 * 1024, "peak RSS {kb} KiB for three 300 KB files");
    }
    // The human format renders the same findings.
    let out = mcp_lint().current_dir(dir.path()).args(["check", "deep/blocks.rs"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nested more than 256 levels deep"));
}

/// 50 MB: mostly one block comment (cheap to parse, so the test stays fast in a debug build), with
/// a finding on the first and on the last line.
fn fifty_megabytes() -> String {
    let finding = "fn caps() { let c = ClientCapabilities::builder().enable_roots_list_changed().build(); }\n";
    let filler = "filler: listChanged, list_roots(), é 日本語 🦀 \r\n".repeat(1000);
    let mut text = format!("use rmcp::model::ClientCapabilities;\n{finding}/*\n");
    while text.len() < 50_000_000 {
        text.push_str(&filler);
    }
    text.push_str("*/\n");
    text.push_str(finding);
    text
}

#[test]
fn a_50_mb_file_is_skipped_by_default_and_checked_in_bounded_memory_when_allowed() {
    let dir = with_witness();
    let text = fifty_megabytes();
    write(dir.path(), "big/huge.rs", &text);

    let (out, peak) = run_measured(dir.path(), &["check", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    assert_witness(&all);
    assert!(by_path(&all, "huge.rs").is_empty());
    let note = format!("note: big/huge.rs: larger than 10485760 bytes ({} bytes); skipped", text.len());
    assert!(stderr(&out).contains(&note), "{}", stderr(&out));
    if let Some(kb) = peak {
        assert!(kb < 64 * 1024, "a skipped file must not be read: peak RSS {kb} KiB");
    }

    let (out, peak) = run_measured(dir.path(), &["check", "--format", "json", "--max-file-size", "60000000", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    assert_witness(&all);
    let huge = by_path(&all, "huge.rs");
    assert_eq!(huge.len(), 2, "{huge:#?}");
    let last = byte_range(huge[1]);
    assert_eq!(&text[last.clone()], "enable_roots_list_changed()");
    assert!(last.start > 50_000_000);
    if let Some(kb) = peak {
        let ratio = kb as f64 * 1024.0 / text.len() as f64;
        assert!(ratio < 8.0, "peak RSS {kb} KiB is {ratio:.1} times the file");
    }
}

#[test]
fn binary_content_and_invalid_utf8_are_skipped_with_a_note() {
    let dir = with_witness();
    // Every byte value, as a compiled object or an image would have them.
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 256) as u8).collect();
    write(dir.path(), "bin/object.rs", &binary);
    let mut latin1 = b"fn main() { let s = \"caf".to_vec();
    let bad_at = latin1.len();
    latin1.extend_from_slice(b"\xe9\"; peer.list_roots(); }\n");
    write(dir.path(), "bin/latin1.rs", &latin1);
    write(dir.path(), "bin/latin1.json", b"{\"roots\": {\"listChanged\": \"\xe9\"}}\n");
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "notes do not change the exit code: {}", stderr(&out));
    assert_witness(&findings(&out));
    assert_eq!(findings(&out).len(), 1);
    let err = stderr(&out);
    let first_invalid = std::str::from_utf8(&binary).unwrap_err().valid_up_to();
    assert!(err.contains(&format!("note: bin/object.rs: not valid UTF-8 (at byte {first_invalid}); skipped")), "{err}");
    assert!(err.contains(&format!("note: bin/latin1.rs: not valid UTF-8 (at byte {bad_at}); skipped")), "{err}");
    assert!(err.contains("note: bin/latin1.json: not valid UTF-8"), "{err}");
}

#[test]
fn control_characters_in_valid_utf8_are_a_located_parse_error() {
    let dir = with_witness();
    let text = "fn main() {\n    let roots = peer.list_roots\u{0}\u{1}\u{7f};\n}\n";
    write(dir.path(), "ctl.rs", text);
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let all = findings(&out);
    assert_witness(&all);
    let f = by_path(&all, "ctl.rs");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["rule"], "parse-error");
    let r = byte_range(f[0]);
    assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end) && r.end <= text.len());
    assert_eq!(f[0]["range"]["start"]["line"], 2, "{:#}", f[0]);
}

#[test]
fn crlf_and_bom_keep_spans_exact() {
    let dir = with_witness();
    let rust = "\u{feff}use rmcp::model::ClientCapabilities;\r\n\r\n// é日本\r\nfn caps() {\r\n    let c = ClientCapabilities::builder()\r\n        .enable_roots()\r\n        .enable_roots_list_changed()\r\n        .build();\r\n}\r\n";
    let json = "\u{feff}{\r\n  \"note\": \"日本\",\r\n  \"clientCapabilities\": {\r\n    \"roots\": { \"listChanged\": true }\r\n  }\r\n}\r\n";
    write(dir.path(), "crlf/caps.rs", rust);
    write(dir.path(), "crlf/caps.json", json);
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "crlf"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    for (name, text, primary) in
        [("caps.rs", rust, "enable_roots_list_changed()"), ("caps.json", json, "\"listChanged\": true")]
    {
        let f: Vec<&Value> = by_path(&all, name).into_iter().filter(|f| f["rule"] == "roots-list-changed").collect();
        assert_eq!(f.len(), 1, "{name}: {all:#?}");
        let r = byte_range(f[0]);
        assert_eq!(&text[r.clone()], primary, "{name}");
        // Lines count CRLF once; columns count characters (the BOM is a character of line 1, but
        // neither finding is on line 1).
        let (before, line) = (&text[..r.start], text[..r.start].matches('\n').count() + 1);
        let column = before[before.rfind('\n').map_or(0, |i| i + 1)..].chars().count() + 1;
        assert!(line > 1, "{name}");
        assert_eq!(f[0]["range"]["start"], serde_json::json!({"line": line, "column": column}), "{name}");
        let end_column = column + primary.chars().count();
        assert_eq!(f[0]["range"]["end"], serde_json::json!({"line": line, "column": end_column}), "{name}");
    }
}

#[test]
fn empty_files_are_checked_and_clean() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["empty.rs", "empty.json", "empty.jsonc", "empty.jsonl"] {
        write(dir.path(), name, "");
    }
    write(dir.path(), "bom-only.rs", "\u{feff}");
    write(dir.path(), "blank.jsonl", "\n\r\n  \n");
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--no-prefilter", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no findings (6 files checked, 6 parsed)"));
}

#[test]
fn json_nested_100_000_levels_is_a_parse_error_and_the_rest_is_checked() {
    let dir = with_witness();
    let n = 100_000;
    // Each names a trigger word, so the prefilter hands it to the parser.
    write(dir.path(), "deep/arrays.json", format!("{}\"roots/list\"{}", "[".repeat(n), "]".repeat(n)));
    write(dir.path(), "deep/objects.jsonc", format!("{}1{}", "{\"listChanged\": ".repeat(n), "}".repeat(n)));
    // One deep line in a transcript: that line is refused, the next one still read.
    write(dir.path(), "deep/session.jsonl", format!("{}\n{WITNESS}", "[".repeat(n)));
    let (out, peak) = run_measured(dir.path(), &["check", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    assert_witness(&all);
    for name in ["arrays.json", "objects.jsonc"] {
        let f = by_path(&all, name);
        assert_eq!(f.len(), 1, "{name}: {f:#?}");
        assert_eq!(f[0]["rule"], "parse-error");
        assert!(f[0]["message"].as_str().unwrap().contains("nested more than 512 levels deep"));
    }
    let session = by_path(&all, "session.jsonl");
    let rules: Vec<&str> = session.iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["parse-error", "roots-list-changed"], "{session:#?}");
    assert_eq!(session[1]["range"]["start"]["line"], 2);
    if let Some(kb) = peak {
        assert!(kb < 512 * 1024, "peak RSS {kb} KiB");
    }
}

#[test]
fn json_duplicate_keys_and_huge_numbers() {
    let dir = tempfile::tempdir().unwrap();
    // Both copies of a duplicated key are seen: the `true` one is reported, wherever it is.
    let dup = "{\"clientCapabilities\": {\"roots\": {\"listChanged\": false, \"listChanged\": true}}}\n";
    write(dir.path(), "dup.json", dup);
    // Ids beyond f64 precision: the two ids differ in their last digit, so the retry uses a new id.
    let request = |id: &str, state: &str| {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"rm\"{state}}}}}\n")
    };
    let input_required = |id: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"resultType\":\"input_required\",\"requestState\":\"s\"}}}}\n"
        )
    };
    let (a, b) = ("123456789012345678901234567890", "123456789012345678901234567891");
    let fresh = format!("{}{}{}", request(a, ""), input_required(a), request(b, ",\"requestState\":\"s\""));
    let reused = format!("{}{}{}", request(a, ""), input_required(a), request(a, ",\"requestState\":\"s\""));
    write(dir.path(), "fresh.jsonl", &fresh);
    write(dir.path(), "reused.jsonl", &reused);
    write(
        dir.path(),
        "numbers.json",
        "{\"id\": 1e999999, \"n\": -1e-999999, \"big\": 123456789012345678901234567890123456789}\n",
    );
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    let d: Vec<&Value> = by_path(&all, "dup.json").into_iter().filter(|f| f["rule"] != "deprecated-feature").collect();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["rule"], "roots-list-changed");
    let second = dup.rfind("\"listChanged\"").unwrap();
    assert!(byte_range(d[0]).contains(&second) || byte_range(d[0]).start >= second, "{:#}", d[0]);
    assert!(by_path(&all, "fresh.jsonl").is_empty(), "ids that differ beyond f64 precision are different: {all:#?}");
    let r = by_path(&all, "reused.jsonl");
    assert_eq!(r.len(), 1, "{all:#?}");
    assert_eq!(r[0]["rule"], "retry-reuses-request-id");
    assert!(by_path(&all, "numbers.json").is_empty());
}

#[test]
fn symlink_loops_end_and_are_not_followed() {
    let dir = with_witness();
    let root = dir.path();
    std::fs::create_dir_all(root.join("tree/sub")).unwrap();
    std::os::unix::fs::symlink("..", root.join("tree/sub/up")).unwrap();
    std::os::unix::fs::symlink(root.join("tree"), root.join("tree/sub/again")).unwrap();
    std::os::unix::fs::symlink("self.rs", root.join("tree/self.rs")).unwrap();
    std::os::unix::fs::symlink("b.json", root.join("tree/a.json")).unwrap();
    std::os::unix::fs::symlink("a.json", root.join("tree/b.json")).unwrap();
    write(root, "tree/sub/caps.json", WITNESS);
    let out = mcp_lint().current_dir(root).args(["check", "--format", "json", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    assert_witness(&all);
    // Each real file once, under its real path: links were not walked.
    assert_eq!(all.len(), 2, "{all:#?}");
    assert_eq!(by_path(&all, "tree/sub/caps.json").len(), 1);
    let err = stderr(&out);
    for link in ["tree/sub/up", "tree/sub/again", "tree/self.rs", "tree/a.json", "tree/b.json"] {
        assert!(err.contains(&format!("note: {link}: symbolic link; not followed")), "{link}: {err}");
    }
}

#[test]
fn symlinks_to_outside_the_scanned_root_are_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret/caps.json", WITNESS);
    let dir = with_witness();
    std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("linked-dir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret/caps.json"), dir.path().join("linked.json")).unwrap();
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    assert_witness(&all);
    assert_eq!(all.len(), 1, "files outside the root were reported: {all:#?}");
    let err = stderr(&out);
    assert!(err.contains("note: linked-dir: symbolic link; not followed"), "{err}");
    assert!(err.contains("note: linked.json: symbolic link; not followed"), "{err}");
    // Named on the command line, a link is read like any file the user names.
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "linked.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(findings(&out).len(), 1);
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

/// The binary, run as an unprivileged user when the tests run as root: root reads files whatever
/// their permission bits say, so "permission denied" can only be seen as someone else. `None` when
/// that is impossible here.
fn as_unprivileged_user(dir: &Path) -> Option<std::process::Command> {
    let bin = assert_cmd::cargo::cargo_bin("mcp-lint");
    let mut cmd = if running_as_root() {
        let setpriv = Path::new("/usr/bin/setpriv");
        if !setpriv.exists() {
            return None;
        }
        let drop_to_nobody = |c: &mut std::process::Command| {
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(&bin);
        };
        // The build folder may not be open to other users (a checkout under /root).
        let mut probe = std::process::Command::new(setpriv);
        drop_to_nobody(&mut probe);
        if !probe.arg("--version").output().is_ok_and(|o| o.status.success()) {
            return None;
        }
        let mut c = std::process::Command::new(setpriv);
        drop_to_nobody(&mut c);
        c
    } else {
        std::process::Command::new(bin)
    };
    cmd.current_dir(dir).env("NO_COLOR", "1");
    Some(cmd)
}

#[test]
fn unreadable_files_and_folders_get_a_note_or_an_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = with_witness();
    let root = dir.path();
    // Everyone may walk the tree, except where the test says otherwise.
    std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(root.join("witness"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(root.join("witness/caps.json"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let secret = write(root, "locked/secret.rs", "fn main() { peer.list_roots(); }\n");
    std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::create_dir(root.join("closed")).unwrap();
    write(root, "closed/inner.json", WITNESS);
    std::fs::set_permissions(root.join("closed"), std::fs::Permissions::from_mode(0o000)).unwrap();

    let Some(mut cmd) = as_unprivileged_user(root) else {
        skip::skipped(
            "running as root, and the binary cannot be run as another user here (no /usr/bin/setpriv, or its folder is closed to others)",
        );
        return;
    };
    let out = cmd.args(["check", "--format", "json", "."]).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "an unreadable file in a folder is a note: {err}");
    let all = findings(&out);
    assert_witness(&all);
    assert_eq!(all.len(), 1, "{all:#?}");
    assert!(err.contains("note: locked/secret.rs: cannot read: permission denied"), "{err}");
    assert!(err.contains("closed") && err.to_lowercase().contains("permission denied"), "{err}");

    // Named on the command line, an unreadable file is an error (exit 2); the rest is still checked.
    let mut cmd = as_unprivileged_user(root).unwrap();
    let out = cmd.args(["check", "--format", "json", "locked/secret.rs", "witness"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("error: locked/secret.rs: cannot read: permission denied"), "{}", stderr(&out));
    assert_witness(&findings(&out));
}

#[test]
fn fifos_and_other_special_files_never_block_the_run() {
    let dir = with_witness();
    let fifo = dir.path().join("pipe.rs");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    if !made {
        skip::skipped("mkfifo is not available");
        return;
    }
    // Walked: not a regular file, so not opened (opening a FIFO blocks until a writer comes).
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_witness(&findings(&out));
    // Named: an error that says what it is, and the rest is checked.
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "pipe.rs", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("error: pipe.rs: not a regular file or folder"), "{}", stderr(&out));
    assert_witness(&findings(&out));
}

#[test]
fn a_file_deleted_between_discovery_and_reading_gets_a_note() {
    use mcp_lint::engine::{Options, check_discovered};
    let dir = with_witness();
    let doomed = write(dir.path(), "doomed.rs", "fn main() { peer.list_roots(); }\n");
    let found = mcp_lint::discover::discover(&[dir.path().to_path_buf()]);
    assert_eq!(found.files.len(), 2, "{:?}", found.files);
    std::fs::remove_file(&doomed).unwrap();
    let result = check_discovered(found, &Options { threads: Some(2), ..Options::default() });
    assert!(result.unreadable.is_empty(), "a file found by walking is not a command-line path");
    let note = result.notes.iter().find(|n| n.path.ends_with("doomed.rs")).expect("a note for the vanished file");
    assert_eq!(note.message, "cannot read: no such file or folder");
    let rules: Vec<&str> = result.diagnostics().map(|(_, d)| d.rule).collect();
    assert_eq!(rules, ["roots-list-changed"], "the rest of the run completes");
}

#[test]
fn paths_with_spaces_and_non_ascii_names() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "my project/sérvér tools/caps 日本.json", WITNESS);
    write(
        dir.path(),
        "my project/naïve client.rs",
        "fn caps() { ClientCapabilities::builder().enable_roots_list_changed(); }\n",
    );
    let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "my project"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = findings(&out);
    let paths: Vec<&str> = all.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["my project/naïve client.rs", "my project/sérvér tools/caps 日本.json"]);
    let out =
        mcp_lint().current_dir(dir.path()).args(["check", "my project/sérvér tools/caps 日本.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("my project/sérvér tools/caps 日本.json:1:"));
}
