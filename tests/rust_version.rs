//! `rust-version` in Cargo.toml is the oldest compiler that builds mcp-lint. Only one toolchain
//! can be tested here, so it is kept honest from what decides it: the edition, every locked
//! dependency's own `rust-version`, and the language features the code uses. Standard library
//! APIs newer than it are clippy's `incompatible_msrv` lint (on by default, `-D warnings` in CI).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap_or_else(|_| panic!("not a version: {text}")));
    (parts.next().unwrap(), parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

fn declared() -> (u64, u64, u64) {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let manifest: toml::Table = manifest.parse().unwrap();
    version(manifest["package"]["rust-version"].as_str().expect("Cargo.toml sets package.rust-version"))
}

#[test]
fn is_at_least_what_the_edition_needs() {
    assert_eq!(env!("CARGO_PKG_RUST_VERSION"), format!("{}.{}", declared().0, declared().1));
    assert!(declared() >= (1, 85, 0), "edition 2024 needs Rust 1.85");
}

#[test]
fn is_at_least_every_locked_dependency_s() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = declared();
    let newer: Vec<String> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| Some((p["name"].as_str()?, p["version"].as_str()?, p["rust_version"].as_str()?)))
        .filter(|(_, _, needs)| version(needs) > ours)
        .map(|(name, v, needs)| format!("{name} {v} needs Rust {needs}"))
        .collect();
    assert!(newer.is_empty(), "raise rust-version in Cargo.toml: {newer:?}");
}

#[test]
fn is_at_least_what_the_language_features_need() {
    fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut files);
    }
    let uses = |needle: &str| {
        files.iter().find(|f| std::fs::read_to_string(f).unwrap().lines().any(|l| l.trim_start().starts_with(needle)))
    };
    // `if let … && let …` chains: Rust 1.88 in edition 2024.
    if let Some(file) = uses("&& let ") {
        assert!(declared() >= (1, 88, 0), "{} uses let chains, which need Rust 1.88", file.display());
    }
    // `cfg_select!`: Rust 1.95.
    if let Some(file) = uses("cfg_select!") {
        assert!(declared() >= (1, 95, 0), "{} uses cfg_select!, which needs Rust 1.95", file.display());
    }
}
