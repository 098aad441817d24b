//! The pre-commit hook with the real `pre-commit` (from PyPI): a throwaway git repository whose
//! `.pre-commit-config.yaml` has a local hook with the file selection of `.pre-commit-hooks.yaml` (read from it,
//! so the two cannot drift) and the freshly built binary as entry. A commit with a finding in any kind of file
//! mcp-lint reads fails; a clean one passes.
//!
//! `.ci/run` installs pre-commit into target/pre-commit-venv and sets MCP_LINT_REQUIRE_PRE_COMMIT=1, so there
//! the test fails instead of skipping when pre-commit is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "support/skip.rs"]
mod skip;

/// A finding and a clean file of each kind mcp-lint reads, named by extension.
const KINDS: &[(&str, &str, &str)] = &[
    ("rs", SERVER_ASKING_FOR_ROOTS, "fn main() {}\n"),
    ("json", PINNED_HEADER, "{ \"hello\": \"world\" }\n"),
    ("jsonc", PINNED_HEADER_JSONC, "// comments and trailing commas\n{ \"hello\": \"world\", }\n"),
    ("jsonl", OLD_VERSION_IN_META, "{\"hello\":\"world\"}\n"),
    ("ndjson", OLD_VERSION_IN_META, "{\"hello\":\"world\"}\n"),
];

/// `server-roots-request`.
const SERVER_ASKING_FOR_ROOTS: &str = r#"use rmcp::{RoleServer, service::RequestContext};

struct Files;

impl Files {
    async fn list(&self, context: RequestContext<RoleServer>) -> usize {
        context.peer.list_roots().await.unwrap().roots.len()
    }
}
"#;

/// `legacy-protocol-version`, in a client config.
const PINNED_HEADER: &str = r#"{ "mcpServers": { "billing": { "url": "https://billing.example.com/mcp", "headers": { "MCP-Protocol-Version": "2025-06-18" } } } }
"#;

const PINNED_HEADER_JSONC: &str = r#"// Cursor's config
{ "mcpServers": { "billing": { "url": "https://billing.example.com/mcp", "headers": { "MCP-Protocol-Version": "2025-06-18" }, }, }, }
"#;

/// `legacy-protocol-version`, in a recorded transcript.
const OLD_VERSION_IN_META: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}
"#;

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pre-commit to run: MCP_LINT_PRE_COMMIT, the one .ci/run installs, or one on PATH.
fn find_pre_commit() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("MCP_LINT_PRE_COMMIT").map(PathBuf::from),
        Some(repo_root().join("target/pre-commit-venv/bin/pre-commit")),
        Some(PathBuf::from("pre-commit")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// The hook of `.pre-commit-hooks.yaml` as a local hook: the same keys (file selection included), but run as
/// the binary under test.
fn local_hook_config() -> String {
    let text = std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: Value = serde_norway::from_str(&text).unwrap();
    let mut hook = hooks.as_array().unwrap().iter().find(|h| h["id"] == "mcp-lint").unwrap().clone();
    let published_entry = hook["entry"].as_str().unwrap().to_owned();
    let args = published_entry.strip_prefix("mcp-lint").expect("the entry runs mcp-lint");
    hook["entry"] = format!("'{}'{args}", env!("CARGO_BIN_EXE_mcp-lint")).into();
    hook["language"] = "system".into();
    let config = serde_json::json!({ "repos": [{ "repo": "local", "hooks": [hook] }] });
    serde_norway::to_string(&config).unwrap()
}

struct Repo {
    dir: tempfile::TempDir,
    pre_commit: PathBuf,
}

impl Repo {
    fn command(&self, program: &Path, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .current_dir(self.dir.path().join("work"))
            // Nothing from the user's git or pre-commit setup, nor from a hook this test may run under.
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("PRE_COMMIT_HOME", self.dir.path().join("pre-commit-cache"))
            .env("PRE_COMMIT_COLOR", "never")
            .env("NO_COLOR", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_WORK_TREE")
            .output()
            .unwrap()
    }

    fn git(&self, args: &[&str]) -> Output {
        let out = self.command(Path::new("git"), args);
        assert!(out.status.success() || args[0] == "commit", "git {args:?}: {}", text(&out));
        out
    }

    fn write(&self, name: &str, contents: &str) {
        std::fs::write(self.dir.path().join("work").join(name), contents).unwrap();
    }

    /// `git commit` of the staged files, through the installed hook.
    fn commit(&self, message: &str) -> Output {
        self.git(&["commit", "-q", "-m", message])
    }
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn repo_with_hook_installed(pre_commit: PathBuf) -> Repo {
    let repo = Repo { dir: tempfile::tempdir().unwrap(), pre_commit };
    std::fs::create_dir(repo.dir.path().join("work")).unwrap();
    repo.git(&["init", "-q"]);
    repo.write(".pre-commit-config.yaml", &local_hook_config());
    let out = repo.command(&repo.pre_commit, &["install"]);
    assert!(out.status.success(), "pre-commit install: {}", text(&out));
    repo
}

#[test]
fn a_commit_with_a_finding_in_any_kind_fails_and_a_clean_one_passes() {
    let Some(pre_commit) = find_pre_commit() else {
        skip::missing_tool(
            "MCP_LINT_REQUIRE_PRE_COMMIT",
            "pre-commit not found (`python3 -m venv target/pre-commit-venv && \
             target/pre-commit-venv/bin/pip install pre-commit`, as .ci/run does, or set MCP_LINT_PRE_COMMIT)",
        );
        return;
    };
    let manifest = repo_root().join(".pre-commit-hooks.yaml");
    let out = Command::new(&pre_commit).arg("validate-manifest").arg(&manifest).output().unwrap();
    assert!(out.status.success(), "the published manifest: {}", text(&out));
    let repo = repo_with_hook_installed(pre_commit);

    for (ext, _, clean) in KINDS {
        repo.write(&format!("clean.{ext}"), clean);
    }
    repo.git(&["add", "-A"]);
    let out = repo.commit("clean files of every kind");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("mcp-lint") && text(&out).contains("Passed"), "the hook ran: {}", text(&out));

    // One kind at a time, so a kind the hook skips cannot hide behind another that fails.
    for (ext, finding, _) in KINDS {
        let name = format!("finding.{ext}");
        repo.write(&name, finding);
        repo.git(&["add", &name]);
        let out = repo.commit(&name);
        assert_ne!(out.status.code(), Some(0), "a finding in {name} must fail the commit: {}", text(&out));
        assert!(text(&out).contains("Failed") && text(&out).contains(&name), "{name}: {}", text(&out));
        repo.git(&["rm", "-q", "--cached", &name]);
    }

    // All of them in one commit: every file is passed to mcp-lint and reported.
    repo.git(&["add", "-A"]);
    let out = repo.commit("findings of every kind");
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    for (ext, _, _) in KINDS {
        assert!(text(&out).contains(&format!("finding.{ext}")), "{ext}: {}", text(&out));
    }
    let log = repo.git(&["log", "--format=%s"]);
    assert_eq!(String::from_utf8_lossy(&log.stdout), "clean files of every kind\n", "only the clean commit landed");
}
