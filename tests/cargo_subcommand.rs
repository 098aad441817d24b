//! `cargo mcp-lint …`: the `cargo-mcp-lint` binary as cargo runs it (with `mcp-lint` as its first argument),
//! as a user runs it directly, and through the real `cargo` finding it on PATH; with no path it
//! checks the package of the current folder, as `cargo clippy` does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SUBCOMMAND: &str = env!("CARGO_BIN_EXE_cargo-mcp-lint");

/// A config pinning the header to an older revision: one `legacy-protocol-version` finding.
const PINNED_CONFIG: &str = r#"{ "mcpServers": { "billing": { "url": "https://billing.example.com/mcp", "headers": { "MCP-Protocol-Version": "2025-06-18" } } } }
"#;

fn run(program: &Path, args: &[&str], dir: &Path) -> Output {
    Command::new(program).args(args).current_dir(dir).env("NO_COLOR", "1").output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A client capability declaration with the removed flag: one `roots-list-changed` finding.
const CAPS_JSON: &str = "{\"capabilities\": {\"roots\": {\"listChanged\": true}}}\n";

fn workspace_with_finding() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mcp.json"), PINNED_CONFIG).unwrap();
    dir
}

#[test]
fn checks_as_cargo_runs_it_and_directly() {
    let dir = workspace_with_finding();
    let as_cargo = run(Path::new(SUBCOMMAND), &["mcp-lint", "check", "mcp.json"], dir.path());
    let direct = run(Path::new(SUBCOMMAND), &["check", "mcp.json"], dir.path());
    let plain = run(Path::new(env!("CARGO_BIN_EXE_mcp-lint")), &["check", "mcp.json"], dir.path());
    for out in [&as_cargo, &direct] {
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout(out).contains("legacy-protocol-version"), "{}", stdout(out));
        assert_eq!(stdout(out), stdout(&plain), "the same CLI as `mcp-lint`");
    }
}

#[test]
fn help_and_usage_errors_name_cargo_mcp_lint() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["mcp-lint", "--help"][..], &["--help"], &["mcp-lint", "check", "--help"]] {
        let out = run(Path::new(SUBCOMMAND), args, dir.path());
        assert_eq!(out.status.code(), Some(0));
        assert!(stdout(&out).contains("Usage: cargo mcp-lint "), "{args:?}: {}", stdout(&out));
    }
    let out = run(Path::new(SUBCOMMAND), &["mcp-lint", "no-such-verb"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: cargo mcp-lint <COMMAND>"));
}

/// A package (`server`) with a finding in `src/lib.rs` and one in `caps.json`, in a workspace
/// with another member that has one too.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(p, "Cargo.toml", "[workspace]\nmembers = [\"server\", \"other\"]\nresolver = \"2\"\n");
    let lib = "pub fn caps() -> serde_json::Value {\n    serde_json::json!({\"roots\": {\"listChanged\": true}})\n}\n";
    for member in ["server", "other"] {
        write(
            p,
            &format!("{member}/Cargo.toml"),
            &format!(
                "[package]\nname = \"{member}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde_json = \"1\"\n"
            ),
        );
        write(p, &format!("{member}/src/lib.rs"), lib);
    }
    write(p, "server/caps.json", CAPS_JSON);
    dir
}

fn paths_found(out: &Output) -> Vec<String> {
    let findings: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(out)));
    let mut paths: Vec<String> =
        findings.as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_owned()).collect();
    paths.sort();
    paths
}

#[test]
fn cargo_mcp_lint_checks_the_package_of_the_current_folder() {
    let dir = workspace();
    let src = dir.path().join("server/src");
    let subcommand = PathBuf::from(SUBCOMMAND);
    let in_src = |program: &Path, args: &[&str]| run(program, args, &src);
    // As `cargo clippy`: the package, with paths from where it ran.
    let json = ["--format", "json", "--select", "roots-list-changed"];
    let package = in_src(&subcommand, &[&["mcp-lint", "check"][..], &json].concat());
    assert_eq!(package.status.code(), Some(1), "{}", stderr(&package));
    assert_eq!(paths_found(&package), ["../caps.json", "../src/lib.rs"]);
    let workspace = in_src(&subcommand, &[&["mcp-lint", "check", "--workspace"][..], &json].concat());
    assert_eq!(
        paths_found(&workspace),
        ["../../other/src/lib.rs", "../../server/caps.json", "../../server/src/lib.rs"]
    );
    // A path given is what is checked.
    let named = in_src(&subcommand, &[&["mcp-lint", "check", "lib.rs"][..], &json].concat());
    assert_eq!(paths_found(&named), ["lib.rs"]);
    // `mcp-lint check` keeps checking the current folder.
    let plain = in_src(Path::new(env!("CARGO_BIN_EXE_mcp-lint")), &[&["check"][..], &json].concat());
    assert_eq!(paths_found(&plain), ["lib.rs"]);
    // `fix` reads the same package (nothing tells this crate's era, so dropping `listChanged` is unsafe).
    let fix = in_src(&subcommand, &["mcp-lint", "fix", "--diff", "--unsafe-fixes", "--select", "roots-list-changed"]);
    let diff = stdout(&fix);
    assert!(diff.contains("caps.json") && !diff.contains("other/"), "{diff}");

    // Outside any package: say so, and how to go on.
    let outside = tempfile::tempdir().unwrap();
    let out = run(&subcommand, &["mcp-lint", "check"], outside.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Cargo.toml") && stderr(&out).contains("name the paths to check"),
        "{}",
        stderr(&out)
    );
}

/// The real cargo: it finds `cargo-mcp-lint` on PATH, as after `cargo install`.
#[test]
fn real_cargo_runs_the_subcommand_from_path() {
    let cargo = PathBuf::from(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let bin_dir = Path::new(SUBCOMMAND).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let dir = workspace_with_finding();
    let out = Command::new(cargo)
        .args(["mcp-lint", "check", "mcp.json", "--format", "json"])
        .current_dir(dir.path())
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(findings[0]["rule"], "legacy-protocol-version");

    // From a package's `src/`, with no path: the package, as `cargo clippy` checks it.
    let dir = workspace();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["mcp-lint", "check", "--format", "json", "--select", "roots-list-changed"])
        .current_dir(dir.path().join("server/src"))
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(paths_found(&out), ["../caps.json", "../src/lib.rs"]);
}
