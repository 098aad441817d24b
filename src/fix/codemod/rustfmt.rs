//! Fixed Rust files stay `rustfmt`-clean: a file that the user's `rustfmt` leaves unchanged before
//! a fix is run through it after the fix, so the lines a fix edited (a tool's new parameter, a
//! builder chain a fix shortened) are laid out as `cargo fmt` would. A file that was not clean
//! before is never formatted (that would rewrite lines no fix touched), and without `rustfmt` the
//! text stays as the fixes wrote it.
//!
//! The user's `rustfmt` is `$RUSTFMT` when set (as `cargo fmt` finds it), else `rustfmt` on `PATH`
//! (with rustup, the toolchain of the file's folder). It reads the text on standard input, in the file's folder, so it finds the crate's
//! `rustfmt.toml` / `.rustfmt.toml` as it would for the file, and gets the crate's edition from
//! `Cargo.toml` as `cargo fmt` passes it (`--edition`; the workspace's with `edition.workspace =
//! true`; 2015 when none is given, cargo's default). Input through standard input never follows
//! `mod name;` into other files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once `rustfmt` could not be started: later files do not try again.
static MISSING: AtomicBool = AtomicBool::new(false);

/// `fixed` laid out by `rustfmt`, when `original` was `rustfmt`-clean and `rustfmt` is there and
/// accepts the fixed text; `None` otherwise (keep the text as it is).
pub fn tidy(path: &Path, original: &str, fixed: &str) -> Option<String> {
    if original == fixed || MISSING.load(Ordering::Relaxed) {
        return None;
    }
    let edition = edition_for(path);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if run(dir, &edition, original)? != original {
        return None; // not clean before: never formatted
    }
    let formatted = run(dir, &edition, fixed)?;
    // `rustfmt` keeps the meaning; still, a text that does not parse is never handed on.
    let parses = crate::rust::parse::parse_rust(&formatted).is_ok();
    proc_macro2::extra::invalidate_current_thread_spans();
    parses.then_some(formatted)
}

/// Whether `rustfmt` can be started at all (for tests that need it).
pub fn available() -> bool {
    Command::new(program())
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The `rustfmt` to run: `$RUSTFMT`, else `rustfmt`.
fn program() -> std::ffi::OsString {
    std::env::var_os("RUSTFMT").filter(|p| !p.is_empty()).unwrap_or_else(|| "rustfmt".into())
}

/// `text` formatted by `rustfmt` in `dir`, or `None` when it cannot be started or refuses the
/// text (a syntax error, a toolchain without the component).
fn run(dir: &Path, edition: &str, text: &str) -> Option<String> {
    let child = Command::new(program())
        .args(["--edition", edition, "--emit", "stdout"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(_) => {
            MISSING.store(true, Ordering::Relaxed);
            return None;
        }
    };
    let mut stdin = child.stdin.take()?;
    let input = text.to_owned();
    // Written from another thread: a large file's output could fill the pipe while we write.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().ok()?;
    let wrote = writer.join().ok().is_some_and(|r| r.is_ok());
    if !wrote || !output.status.success() {
        return None;
    }
    String::from_utf8(output.stdout).ok()
}

/// The edition `cargo fmt` would pass for the file: its package's, else 2015.
fn edition_for(path: &Path) -> String {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let manifests: Vec<PathBuf> =
        absolute.ancestors().skip(1).map(|d| d.join("Cargo.toml")).filter(|m| m.is_file()).collect();
    let read = |m: &Path| std::fs::read_to_string(m).ok().and_then(|t| t.parse::<toml::Table>().ok());
    for (i, manifest) in manifests.iter().enumerate() {
        let Some(table) = read(manifest) else { continue };
        let Some(package) = table.get("package").and_then(|p| p.as_table()) else { continue };
        return match package.get("edition") {
            Some(toml::Value::String(e)) => e.clone(),
            // `edition.workspace = true`: the first manifest above with `[workspace.package]`.
            Some(toml::Value::Table(t)) if t.get("workspace").and_then(|w| w.as_bool()) == Some(true) => manifests[i..]
                .iter()
                .filter_map(|m| read(m))
                .find_map(|t| {
                    let e = t.get("workspace")?.get("package")?.get("edition")?.as_str()?.to_owned();
                    Some(e)
                })
                .unwrap_or_else(|| "2015".into()),
            _ => "2015".into(),
        };
    }
    "2015".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edition_comes_from_the_package_or_its_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"a\"]\n[workspace.package]\nedition = \"2024\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("a/src")).unwrap();
        std::fs::write(root.join("a/Cargo.toml"), "[package]\nname = \"a\"\nedition.workspace = true\n").unwrap();
        std::fs::write(root.join("a/src/lib.rs"), "").unwrap();
        assert_eq!(edition_for(&root.join("a/src/lib.rs")), "2024");
        std::fs::write(root.join("a/Cargo.toml"), "[package]\nname = \"a\"\nedition = \"2021\"\n").unwrap();
        assert_eq!(edition_for(&root.join("a/src/lib.rs")), "2021");
        std::fs::write(root.join("a/Cargo.toml"), "[package]\nname = \"a\"\n").unwrap();
        assert_eq!(edition_for(&root.join("a/src/lib.rs")), "2015");
    }

    #[test]
    fn only_clean_files_are_formatted() {
        if !available() {
            eprintln!("skipped: rustfmt is not installed");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"a\"\nedition = \"2021\"\n").unwrap();
        let path = dir.path().join("lib.rs");
        let clean = "fn f() -> u32 {\n    1\n}\n";
        let fixed = "fn f() -> u32 {\n    let x = 1; x\n}\n";
        assert_eq!(tidy(&path, clean, fixed).as_deref(), Some("fn f() -> u32 {\n    let x = 1;\n    x\n}\n"));
        let unclean = "fn f() -> u32 { 1 }\nfn  g() {}\n";
        assert_eq!(tidy(&path, unclean, "fn f() -> u32 { 2 }\nfn  g() {}\n"), None);
        // The crate's rustfmt.toml applies.
        std::fs::write(dir.path().join("rustfmt.toml"), "hard_tabs = true\n").unwrap();
        let tabbed = "fn f() -> u32 {\n\t1\n}\n";
        assert_eq!(tidy(&path, tabbed, fixed).as_deref(), Some("fn f() -> u32 {\n\tlet x = 1;\n\tx\n}\n"));
    }
}
