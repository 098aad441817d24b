//! `cargo mcp-lint …`: the `cargo-mcp-lint` binary as cargo runs it (with `mcp-lint` as its first argument),
//! as a user runs it directly, and through the real `cargo` finding it on PATH.

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
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(findings[0]["rule"], "legacy-protocol-version");
}
