//! A Rust file with a syntax error, checked as users run `mcp-lint check`: each broken item is a
//! `parse-error`, and every other item keeps its findings, at exactly the positions (bytes, lines,
//! columns) they have when the file parses. `fix` leaves such a file alone and says why.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

const MANIFEST: &str = "[package]
name = \"notes\"
version = \"0.1.0\"
edition = \"2021\"

[dependencies]
rmcp = { version = \"2.0\", features = [\"server\"] }
";

/// A method half typed inside the `impl ServerHandler` block, before `on_initialized`.
const BROKEN_METHOD: &str =
    "    async fn half_typed(&self) -> Result<(), ErrorData> {\n        let level = ;\n        Ok(())\n    }\n\n";

/// A last function whose parameter list and body are not closed yet.
const UNCLOSED_TAIL: &str = "\npub fn reset(notes: &Notes {\n    notes.watched.lock().unwrap().clear();\n";

fn server() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rust/removed-method/rmcp_legacy_server.rs");
    std::fs::read_to_string(path).unwrap()
}

fn check(dir: &Path) -> Vec<Value> {
    let out = Command::cargo_bin("mcp-lint")
        .unwrap()
        .current_dir(dir)
        .args(["check", "--format", "json", "src"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

fn of<'a>(findings: &'a [Value], file: &str) -> Vec<&'a Value> {
    findings.iter().filter(|f| f["path"].as_str().unwrap().ends_with(file)).collect()
}

fn byte_range(f: &Value) -> std::ops::Range<usize> {
    f["byte_range"][0].as_u64().unwrap() as usize..f["byte_range"][1].as_u64().unwrap() as usize
}

#[test]
fn a_broken_method_and_an_unclosed_last_fn_keep_every_other_finding_in_place() {
    // As written (LF), and with a BOM and CRLF line endings: offsets must hold in both.
    for crlf in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let clean = server();
        let at = clean.find("    async fn on_initialized").unwrap();
        let mut broken = format!("{}{BROKEN_METHOD}{}{UNCLOSED_TAIL}", &clean[..at], &clean[at..]);
        let mut clean = clean;
        let (mut at, mut shift) = (at, BROKEN_METHOD.len());
        if crlf {
            let convert = |t: &str| format!("\u{feff}{}", t.replace('\n', "\r\n"));
            at = convert(&clean[..at]).len();
            shift = BROKEN_METHOD.replace('\n', "\r\n").len();
            (clean, broken) = (convert(&clean), convert(&broken));
        }
        std::fs::write(dir.path().join("src/clean.rs"), &clean).unwrap();
        std::fs::write(dir.path().join("src/broken.rs"), &broken).unwrap();
        let all = check(dir.path());
        let before = of(&all, "clean.rs");
        let after = of(&all, "broken.rs");
        assert!(before.len() >= 5, "{before:#?}");
        assert!(before.iter().all(|f| f["rule"] != "parse-error"), "{before:#?}");

        let (errors, kept): (Vec<&Value>, Vec<&Value>) = after.iter().partition(|f| f["rule"] == "parse-error");
        let pointed: Vec<&str> = errors.iter().map(|f| &broken[byte_range(f)]).collect();
        // The `;` where an expression should be; the `{` of `reset` (empty: where the unclosed bracket opens).
        assert_eq!(pointed, [";", ""], "{errors:#?}");
        assert_eq!(byte_range(errors[1]).start, broken.rfind("{\r\n").or(broken.rfind("{\n")).unwrap());
        assert!(errors[0]["message"].as_str().unwrap().contains("expected"), "{errors:#?}");
        assert!(errors[1]["message"].as_str().unwrap().contains("`{` is never closed"), "{errors:#?}");

        // Every finding of the clean file, moved by the inserted method: same rule, message and
        // range; lines after it down by its four lines, columns unchanged.
        assert_eq!(kept.len(), before.len(), "{kept:#?}\n{before:#?}");
        for (old, new) in before.iter().zip(&kept) {
            let r = byte_range(old);
            let moved = if r.start >= at { r.start + shift..r.end + shift } else { r };
            assert_eq!(byte_range(new), moved, "{new:#}");
            assert_eq!(&broken[moved], &clean[byte_range(old)]);
            let lines = if byte_range(old).start >= at { 5 } else { 0 };
            for end in ["start", "end"] {
                let (o, n) = (&old["range"][end], &new["range"][end]);
                assert_eq!(n["line"].as_u64().unwrap(), o["line"].as_u64().unwrap() + lines, "{new:#}");
                assert_eq!(n["column"], o["column"], "{new:#}");
            }
            assert_eq!((&new["rule"], &new["message"]), (&old["rule"], &old["message"]));
        }
    }
}

#[test]
fn fix_leaves_a_file_with_a_syntax_error_unchanged_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    // An unused suppression has a safe fix; the syntax error below keeps it from being applied.
    let text = "// mcp-lint: allow(no-such-rule) nothing here\nfn a() {}\n\nfn b() {\n    let x = ;\n}\n";
    std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
    let out = Command::cargo_bin("mcp-lint")
        .unwrap()
        .current_dir(dir.path())
        .args(["fix", "--allow-no-vcs", "src"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(), text);
    assert!(
        stderr.contains("it does not parse (line 5: expected an expression); fix the syntax error first"),
        "{stderr}"
    );
}
