//! Configuration files as users write them: discovery upward (nearest wins), `Cargo.toml` metadata,
//! precedence of command-line flags, excludes, per-path ignores, severities, and errors that name
//! the file, line and key.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn mcp_lint() -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

#[path = "support/samples.rs"]
mod samples;
use samples::SERVER_WITH_ROOTS;

/// A client capability declaration with the removed flag: one `roots-list-changed` finding.
const CAPS_JSON: &str = "{\"capabilities\": {\"roots\": {\"listChanged\": true}}}\n";

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The rules these tests configure; other rules' findings on the same code are not their concern.
const UNDER_TEST: &[&str] = &["server-roots-request", "roots-list-changed", "unused-suppression"];

/// `check --format json` in `dir` on `args`: (exit code, findings of the rules under test as
/// (path, rule, severity)).
fn findings(dir: &Path, args: &[&str]) -> (i32, Vec<(String, String, String)>) {
    let out = mcp_lint().current_dir(dir).args(["check", "--format", "json"]).args(args).output().unwrap();
    let code = out.status.code().unwrap();
    assert!(code < 2, "exit {code}: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut list: Vec<(String, String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| UNDER_TEST.contains(&f["rule"].as_str().unwrap()))
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["rule"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    list.sort();
    (code, list)
}

fn found(list: &[(String, String, String)]) -> Vec<(&str, &str)> {
    list.iter().map(|(p, r, _)| (p.as_str(), r.as_str())).collect()
}

#[test]
fn the_nearest_configuration_wins() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "mcp-lint.toml", "ignore = [\"server-roots-request\"]\n");
    write(d, "a/tools.rs", SERVER_WITH_ROOTS);
    write(d, "a/caps.json", CAPS_JSON);
    // A nearer file replaces the outer one whole: nothing is ignored below `sub/`.
    write(d, "sub/.mcp-lint.toml", "select = [\"server-roots-request\"]\n");
    write(d, "sub/deep/tools.rs", SERVER_WITH_ROOTS);
    write(d, "sub/deep/caps.json", CAPS_JSON);
    let (_, list) = findings(d, &["."]);
    assert_eq!(found(&list), [("a/caps.json", "roots-list-changed"), ("sub/deep/tools.rs", "server-roots-request")]);
    // A file named on the command line finds its configuration upward too.
    let (_, list) = findings(&d.join("a"), &["tools.rs"]);
    assert_eq!(list, []);
}

#[test]
fn command_line_flags_override_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "mcp-lint.toml", "ignore = [\"server-roots-request\"]\n");
    write(d, "src/tools.rs", SERVER_WITH_ROOTS);
    write(d, "caps.json", CAPS_JSON);
    assert_eq!(found(&findings(d, &["."]).1), [("caps.json", "roots-list-changed")]);
    // `--select` replaces the file's selection, and a rule it names runs even if the file ignores it.
    assert_eq!(
        found(&findings(d, &["--select", "server-roots-request", "."]).1),
        [("src/tools.rs", "server-roots-request")]
    );
    // `--ignore` adds to the file's.
    assert_eq!(findings(d, &["--ignore", "roots-list-changed", "."]).1, []);
    // `--config` replaces the search: the nearby file is not read.
    write(d, "other/strict.toml", "select = [\"server-roots-request\"]\n");
    assert_eq!(
        found(&findings(d, &["--config", "other/strict.toml", "."]).1),
        [("src/tools.rs", "server-roots-request")]
    );
    mcp_lint()
        .current_dir(d)
        .args(["check", "--config", "no-such.toml", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such.toml"));
}

#[test]
fn cargo_toml_metadata_package_and_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "Cargo.toml",
        "[workspace]\nmembers = [\"member\"]\n\n[workspace.metadata.mcp-lint]\nignore = [\"roots-list-changed\"]\n",
    );
    write(d, "member/Cargo.toml", "[package]\nname = \"member\"\nversion = \"0.1.0\"\n");
    write(d, "member/src/tools.rs", SERVER_WITH_ROOTS);
    write(d, "member/caps.json", CAPS_JSON);
    write(
        d,
        "server/Cargo.toml",
        "[package]\nname = \"server\"\nversion = \"0.1.0\"\n\n[package.metadata.mcp-lint]\nignore = [\"server-roots-request\"]\n",
    );
    write(d, "server/src/tools.rs", SERVER_WITH_ROOTS);
    write(d, "server/caps.json", CAPS_JSON);
    let (_, list) = findings(d, &["."]);
    assert_eq!(
        found(&list),
        [
            // The member's manifest says nothing: the workspace's table applies.
            ("member/src/tools.rs", "server-roots-request"),
            // The package's own table is the nearest configuration.
            ("server/caps.json", "roots-list-changed"),
        ]
    );
}

#[test]
fn unknown_keys_and_rules_exit_two_naming_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "a/mcp-lint.toml", "select = [\"server-roots-request\"]\nexlcude = [\"generated\"]\n");
    for i in 0..3 {
        write(d, &format!("a/tools{i}.rs"), SERVER_WITH_ROOTS);
    }
    let out = mcp_lint().current_dir(d).args(["check", "a"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("a/mcp-lint.toml:2:1:"), "{stderr}");
    assert!(stderr.contains("`exlcude`"), "{stderr}");
    assert_eq!(stderr.matches("exlcude").count(), 1, "reported once per file, not per checked file: {stderr}");
    assert!(out.get_output().stdout.is_empty(), "nothing is checked with a broken configuration");

    write(
        d,
        "b/mcp-lint.toml",
        "# rules\n\n[severity]\nserver-roots-request = \"warning\"\nretry-reuse-request-id = \"off\"\n",
    );
    write(d, "b/tools.rs", SERVER_WITH_ROOTS);
    mcp_lint()
        .current_dir(d)
        .args(["check", "b"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("b/mcp-lint.toml:5:1: unknown rule `retry-reuse-request-id` in `severity`"));

    write(
        d,
        "c/Cargo.toml",
        "[package]\nname = \"c\"\n\n[package.metadata.mcp-lint]\nignore = [\"server-roots-requests\"]\n",
    );
    write(d, "c/src/tools.rs", SERVER_WITH_ROOTS);
    mcp_lint()
        .current_dir(d)
        .args(["check", "c"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("c/Cargo.toml:5:11: unknown rule `server-roots-requests` in `ignore`"));

    write(d, "e/mcp-lint.toml", "era = \"2025\"\n");
    write(d, "e/tools.rs", SERVER_WITH_ROOTS);
    mcp_lint()
        .current_dir(d)
        .args(["check", "e"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("e/mcp-lint.toml:1:7: unknown era `2025`"));

    write(d, "f/mcp-lint.toml", "");
    write(d, "f/.mcp-lint.toml", "");
    write(d, "f/tools.rs", SERVER_WITH_ROOTS);
    mcp_lint().current_dir(d).args(["check", "f"]).assert().code(2).stderr(predicate::str::contains("keep one"));
}

#[test]
fn the_configured_era_replaces_the_detected_one() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    for (era, assumed) in [("2026-07-28", "2026-07-28"), ("dual", "dual-era"), ("legacy", "legacy")] {
        write(dir.path(), "mcp-lint.toml", &format!("era = \"{era}\"\n"));
        let out = mcp_lint().current_dir(dir.path()).args(["check", "--format", "json", "."]).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = &v.as_array().unwrap()[0];
        assert_eq!(f["era"]["assumed"], assumed, "{f:#}");
        assert_eq!(f["era"]["reason"], "set by `era` in mcp-lint.toml", "{f:#}");
    }
}

#[test]
fn exclude_globs_are_relative_to_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The era said, so dropping `listChanged` is a safe fix that `fix --diff` shows.
    write(
        d,
        "proj/mcp-lint.toml",
        "era = \"2026-07-28\"\nexclude = [\"generated\", \"fixtures/*.json\", \"vendor/**/tools.rs\"]\n",
    );
    write(d, "proj/generated/deep/tools.rs", SERVER_WITH_ROOTS);
    write(d, "proj/src/generated/tools.rs", SERVER_WITH_ROOTS);
    write(d, "proj/fixtures/caps.json", CAPS_JSON);
    write(d, "proj/fixtures/nested/caps.json", CAPS_JSON);
    write(d, "proj/vendor/a/b/tools.rs", SERVER_WITH_ROOTS);
    write(d, "proj/src/tools.rs", SERVER_WITH_ROOTS);
    let (_, list) = findings(d, &["proj"]);
    assert_eq!(
        found(&list),
        [("proj/fixtures/nested/caps.json", "roots-list-changed"), ("proj/src/tools.rs", "server-roots-request"),]
    );
    // A file named on the command line is excluded too, with a note (pre-commit passes names).
    mcp_lint()
        .current_dir(d)
        .args(["check", "proj/generated/deep/tools.rs"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("excluded by `generated` in proj/mcp-lint.toml"));
    // `fix` honours excludes as well: the excluded JSON is left alone.
    let out = mcp_lint().current_dir(d).args(["fix", "--diff", "proj"]).assert().code(1);
    let diff = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(diff.contains("proj/fixtures/nested/caps.json"), "{diff}");
    assert!(!diff.contains("proj/fixtures/caps.json"), "{diff}");
}

#[test]
fn per_path_ignores_for_rust_and_plain_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "mcp-lint.toml",
        "[per-path-ignores]\n\"tests/**\" = [\"server-roots-request\"]\n\"*.json\" = [\"roots-list-changed\"]\n",
    );
    write(d, "tests/it.rs", SERVER_WITH_ROOTS);
    write(d, "src/tools.rs", SERVER_WITH_ROOTS);
    write(d, "config/caps.json", CAPS_JSON);
    write(d, "config/caps.jsonc", CAPS_JSON);
    let (_, list) = findings(d, &["."]);
    assert_eq!(found(&list), [("config/caps.jsonc", "roots-list-changed"), ("src/tools.rs", "server-roots-request")]);
}

#[test]
fn severity_overrides_show_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/tools.rs", SERVER_WITH_ROOTS);
    write(d, "caps.json", CAPS_JSON);
    let (_, list) = findings(d, &["."]);
    assert!(list.iter().all(|(_, _, s)| s == "error"), "{list:?}");
    write(d, "mcp-lint.toml", "[severity]\nserver-roots-request = \"warning\"\nroots-list-changed = \"off\"\n");
    let (code, list) = findings(d, &["."]);
    assert_eq!(code, 1);
    assert_eq!(list, [("src/tools.rs".to_owned(), "server-roots-request".to_owned(), "warning".to_owned())]);
    mcp_lint()
        .current_dir(d)
        .args(["check", "."])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("warning[server-roots-request]"));
}

#[test]
fn standard_input_gets_the_configuration_of_its_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "mcp-lint.toml", "[per-path-ignores]\n\"tests/**\" = [\"server-roots-request\"]\n");
    let stdin = |name: &str| {
        mcp_lint()
            .current_dir(d)
            .args(["check", "--select", "server-roots-request", "-", "--stdin-filename", name])
            .write_stdin(SERVER_WITH_ROOTS)
            .assert()
    };
    stdin("tests/it.rs").code(0);
    stdin("src/tools.rs").code(1);
    write(d, "mcp-lint.toml", "[per-path-ignore]\n");
    stdin("src/tools.rs")
        .code(2)
        .stderr(predicate::str::contains("mcp-lint.toml:1:2: unknown field `per-path-ignore`"));
}
