//! The documentation is part of the spec: README.md and docs/*.md are read here, and what they claim is
//! checked against the built binary and the repository.
//!
//! - Every fenced block is checked by its language: `sh` (`bash`, `shell`) command lines run against the
//!   built binary, `json`/`toml`/`yaml` parse, `lua` blocks are tests/editors.rs's (each after its marker).
//!   `rust`, `text`, `console`, `diff` and unlabelled blocks are illustrations (the rule pages' Rust
//!   examples run in tests/rule_pages.rs); any other language fails until a check for it is added here.
//! - A block that cannot run (it installs something, needs an editor or the network, or is this very test)
//!   says so on the line before its fence: `<!-- tests/docs.rs: not run: REASON -->`. Skipping is written in
//!   the docs, never an accident: a command line the test cannot run fails it.
//! - `mcp-lint …` (and `cargo mcp-lint …`) lines run in a fresh git repository holding a copy of `fixtures/demo`, one copy per line
//!   (a block marked `<!-- tests/docs.rs: in sequence -->` shares one copy, for commands that build on each
//!   other); `cargo run --release -- …` runs the binary from the repository root. Each must exit 0 or 1
//!   (2 is a usage or configuration error: the documented line is wrong), or what `EXPECTED_EXIT` says.
//! - Relative links and anchors resolve; repository paths named in backticks exist; the README's rule table
//!   is exactly the rules `mcp-lint rules` lists; the option tables are exactly the options `--help` lists;
//!   copied figures match the files they are copied from.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-lint");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Exit codes the documentation states for a command line; any other line must exit 0 or 1.
const EXPECTED_EXIT: &[(&str, i32)] = &[
    // README: the demo exits 1 on purpose.
    ("cargo run --release -- check fixtures/demo", 1),
    // "exit 1 if anything would change" (the demo has safe fixes).
    ("mcp-lint fix --diff", 1),
    // "records every finding, exits 0, reports nothing"; then only new findings, of which there are none.
    ("mcp-lint check --write-baseline mcp-lint-baseline.json", 0),
    ("mcp-lint check --baseline mcp-lint-baseline.json", 0),
];

// ---------------------------------------------------------------- reading the docs

/// README.md and docs/*.md, as (path relative to the repository, text).
fn pages() -> Vec<(PathBuf, String)> {
    let mut paths = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(repo()).unwrap().to_path_buf())
        .collect();
    docs.sort();
    paths.extend(docs);
    paths.into_iter().map(|p| (p.clone(), std::fs::read_to_string(repo().join(&p)).unwrap())).collect()
}

fn page(name: &str) -> String {
    std::fs::read_to_string(repo().join(name)).unwrap()
}

/// A fenced code block.
struct Block {
    /// `path:line` of its opening fence.
    at: String,
    lang: String,
    /// Its text, without the fence's indentation.
    body: String,
    /// The `<!-- … -->` comment on the line right before the fence, if any.
    marker: Option<String>,
}

impl Block {
    /// What `<!-- tests/docs.rs: WHAT -->` says, if the block has such a marker.
    fn docs_marker(&self) -> Option<&str> {
        self.marker.as_deref()?.strip_prefix("<!-- tests/docs.rs: ")?.strip_suffix(" -->")
    }

    fn not_run(&self) -> bool {
        self.docs_marker().is_some_and(|m| m.starts_with("not run: ") && m.len() > "not run: ".len())
    }
}

fn blocks(path: &Path, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        if let Some(lang) = trimmed.strip_prefix("```") {
            let indent = lines[i].len() - trimmed.len();
            let marker = i.checked_sub(1).map(|p| lines[p].trim()).filter(|l| l.starts_with("<!--"));
            let start = i;
            i += 1;
            let mut body = String::new();
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                body.push_str(lines[i].get(indent..).unwrap_or_else(|| lines[i].trim_start()));
                body.push('\n');
                i += 1;
            }
            out.push(Block {
                at: format!("{}:{}", path.display(), start + 1),
                lang: lang.trim().to_owned(),
                body,
                marker: marker.map(str::to_owned),
            });
        }
        i += 1;
    }
    out
}

fn all_blocks() -> Vec<Block> {
    pages().iter().flat_map(|(path, text)| blocks(path, text)).collect()
}

/// The block that follows `<!-- tests/docs.rs: NAME -->` in the page `name`.
fn marked_block(name: &str, marker: &str) -> Block {
    let blocks = blocks(Path::new(name), &page(name));
    blocks.into_iter().find(|b| b.docs_marker() == Some(marker)).unwrap_or_else(|| panic!("{name}: no {marker} block"))
}

/// The text right after `<!-- tests/docs.rs: NAME -->` in the page `name`, up to the next blank line.
fn marked_paragraph(name: &str, marker: &str) -> String {
    let text = page(name);
    let tag = format!("<!-- tests/docs.rs: {marker} -->\n");
    let after = &text[text.find(&tag).unwrap_or_else(|| panic!("{name}: no {tag:?}")) + tag.len()..];
    after[..after.find("\n\n").unwrap_or(after.len())].to_owned()
}

/// Words in backticks, outside fenced blocks.
fn backticked(text: &str) -> Vec<String> {
    prose(text).split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The text without its fenced blocks.
fn prose(text: &str) -> String {
    let mut fence = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

// ---------------------------------------------------------------- running commands

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

fn git(dir: &Path, args: &[&str]) {
    let out = run(Command::new("git")
        .args(["-c", "user.name=docs", "-c", "user.email=docs@example.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir));
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A user's project as the docs' commands expect one: the demo, committed in a git repository.
fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/demo"), dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "demo"]);
    dir
}

fn git_available() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// A documented command line, without its trailing `# comment`.
fn command_lines(body: &str) -> Vec<String> {
    body.lines()
        .map(|line| line.split(" #").next().unwrap().trim())
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Runs one documented command line in `dir`; `None` when the test does not know how to run it.
fn run_documented(line: &str, dir: &Path) -> Option<Output> {
    if line.contains(['"', '\'', '<', '>', '|', '&', ';', '$', '\\']) {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let (program, args, cwd) = match words.as_slice() {
        ["cargo", "run", "--release", "--", args @ ..] => (BIN, args, repo()),
        ["mcp-lint", args @ ..] => (BIN, args, dir),
        // As cargo runs the subcommand: its name first.
        ["cargo", args @ ..] if args.first() == Some(&"mcp-lint") => (env!("CARGO_BIN_EXE_cargo-mcp-lint"), args, dir),
        _ => return None,
    };
    Some(run(Command::new(program).args(args).current_dir(cwd).env("NO_COLOR", "1")))
}

fn check_exit(at: &str, line: &str, out: &Output, failures: &mut Vec<String>) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    let expected = EXPECTED_EXIT.iter().find(|(l, _)| *l == line).map(|&(_, c)| c);
    let ok = match expected {
        Some(want) => code == Some(want),
        None => matches!(code, Some(0 | 1)),
    };
    if !ok || stderr.contains("panicked") {
        failures.push(format!("{at}: `{line}` exited {code:?} (expected {expected:?}, else 0 or 1):\n{stderr}"));
    }
}

// ---------------------------------------------------------------- the blocks

#[test]
fn every_block_is_checked_or_marked_not_run() {
    let mut failures = Vec::new();
    for block in all_blocks() {
        if block.not_run() {
            continue;
        }
        if let Some(marker) = block.docs_marker()
            && !["in sequence", "demo-json-finding", "results-targets", "demo-rules"].contains(&marker)
        {
            failures.push(format!("{}: unknown marker {marker:?}", block.at));
        }
        let parsed: Result<(), String> = match block.lang.as_str() {
            "sh" | "bash" | "shell" => Ok(()), // run by `sh_command_lines_run_as_documented`
            "json" => serde_json::from_str::<Value>(&block.body).map(drop).map_err(|e| e.to_string()),
            "toml" => toml::from_str::<toml::Table>(&block.body).map(drop).map_err(|e| e.to_string()),
            "yaml" => serde_norway::from_str::<serde_norway::Value>(&block.body).map(drop).map_err(|e| e.to_string()),
            "lua" if block.marker.as_deref().is_some_and(|m| m.starts_with("<!-- tests/editors.rs: ")) => Ok(()),
            "lua" => Err("a Neovim setup no test runs: give it a `<!-- tests/editors.rs: NAME -->` marker".into()),
            // Illustrations: Rust sketches, before/after layouts, terminal transcripts, diffs.
            "rust" | "text" | "console" | "diff" | "" => Ok(()),
            other => Err(format!("no check for ```{other} blocks: add one here, or mark the block not run")),
        };
        if let Err(e) = parsed {
            failures.push(format!("{}: {e}", block.at));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sh_command_lines_run_as_documented() {
    if !git_available() {
        eprintln!("skipped: git is not installed (the documented `fix` commands need a git work tree)");
        return;
    }
    let mut failures = Vec::new();
    let mut ran = 0;
    for block in all_blocks().into_iter().filter(|b| ["sh", "bash", "shell"].contains(&b.lang.as_str()) && !b.not_run())
    {
        let shared = (block.docs_marker() == Some("in sequence")).then(sandbox);
        for line in command_lines(&block.body) {
            let fresh = shared.is_none().then(sandbox);
            let dir = shared.as_ref().or(fresh.as_ref()).unwrap().path();
            match run_documented(&line, dir) {
                Some(out) => {
                    check_exit(&block.at, &line, &out, &mut failures);
                    ran += 1;
                }
                None => failures.push(format!(
                    "{}: `{line}`: the test cannot run this line; write it as `mcp-lint …` with plain \
                     arguments, or mark the block `<!-- tests/docs.rs: not run: REASON -->`",
                    block.at
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 10, "only {ran} documented commands ran");
}

/// A `# mcp-lint.toml` snippet is a whole configuration: `check --config` must accept it.
#[test]
fn configuration_snippets_are_accepted() {
    let mut checked = 0;
    for block in all_blocks().into_iter().filter(|b| b.lang == "toml" && b.body.starts_with("# mcp-lint.toml")) {
        let dir = sandbox_without_git();
        std::fs::write(dir.path().join("mcp-lint.toml"), &block.body).unwrap();
        let out = run(Command::new(BIN).args(["check", "--config", "mcp-lint.toml", "."]).current_dir(dir.path()));
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}: the configuration is refused:\n{}",
            block.at,
            String::from_utf8_lossy(&out.stderr)
        );
        checked += 1;
    }
    assert!(checked >= 1, "no `# mcp-lint.toml` snippet found");
}

fn sandbox_without_git() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/demo"), dir.path());
    dir
}

/// The GitHub Action's inputs the workflow snippets set exist in action.yml, and the pre-commit snippet's
/// hook id exists in .pre-commit-hooks.yaml.
#[test]
fn action_and_hook_snippets_name_what_exists() {
    let action: serde_norway::Value = serde_norway::from_str(&page("action.yml")).unwrap();
    let inputs: BTreeSet<String> =
        action["inputs"].as_mapping().unwrap().keys().map(|k| k.as_str().unwrap().to_owned()).collect();
    let hooks: serde_norway::Value = serde_norway::from_str(&page(".pre-commit-hooks.yaml")).unwrap();
    let hook_ids: BTreeSet<&str> = hooks.as_sequence().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();

    fn walk<'v>(v: &'v serde_norway::Value, out: &mut Vec<&'v serde_norway::Mapping>) {
        match v {
            serde_norway::Value::Mapping(m) => {
                out.push(m);
                m.values().for_each(|v| walk(v, out));
            }
            serde_norway::Value::Sequence(s) => s.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let (mut uses, mut hook_refs) = (0, 0);
    for block in all_blocks().into_iter().filter(|b| b.lang == "yaml") {
        let value: serde_norway::Value = serde_norway::from_str(&block.body).unwrap();
        let mut maps = Vec::new();
        walk(&value, &mut maps);
        for map in maps {
            let get = |k: &str| map.get(serde_norway::Value::from(k));
            if get("uses").and_then(|u| u.as_str()).is_some_and(|u| u.starts_with("OWNER/mcp-lint@")) {
                uses += 1;
                for key in get("with").and_then(|w| w.as_mapping()).into_iter().flat_map(|w| w.keys()) {
                    let key = key.as_str().unwrap();
                    assert!(inputs.contains(key), "{}: the action has no input `{key}` ({inputs:?})", block.at);
                }
            }
            if get("repo").and_then(|r| r.as_str()).is_some_and(|r| r.ends_with("/mcp-lint")) {
                for hook in get("hooks").and_then(|h| h.as_sequence()).unwrap() {
                    hook_refs += 1;
                    let id = hook["id"].as_str().unwrap();
                    assert!(hook_ids.contains(id), "{}: no pre-commit hook `{id}`", block.at);
                }
            }
        }
    }
    assert!(uses >= 2 && hook_refs >= 1, "the Action and pre-commit snippets are missing");
    // docs/ci.md names every input.
    let ci = page("docs/ci.md");
    for input in &inputs {
        assert!(ci.contains(input.as_str()), "docs/ci.md does not mention the input `{input}`");
    }
}

// ---------------------------------------------------------------- the README's claims

#[test]
fn the_demo_shows_what_the_readme_says() {
    let out = run(Command::new(BIN).args(["check", "--format", "json", "fixtures/demo"]).current_dir(repo()));
    assert_eq!(out.status.code(), Some(1), "the demo exits 1: it has findings");
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let shown: BTreeSet<&str> = findings.iter().map(|f| f["rule"].as_str().unwrap()).collect();

    let paragraph = marked_paragraph("README.md", "demo-rules");
    let rules = rule_names();
    let every: BTreeSet<&str> = rules.iter().map(String::as_str).collect();
    assert_eq!(shown, every, "README says the demo shows every rule");
    let said = format!("It prints {} findings, at least one of each of the {} rules", findings.len(), rules.len());
    assert!(paragraph.replace('\n', " ").contains(&said), "README should say {said:?}:\n{paragraph}");

    // The demo's code shows no fixture markers (its expectations are in sidecar files).
    let human = run(Command::new(BIN).args(["check", "fixtures/demo"]).current_dir(repo()));
    assert!(!String::from_utf8_lossy(&human.stdout).contains("//~"), "fixture markers in the demo's output");
}

/// The README's two commands open it: within its first 40 lines.
#[test]
fn the_two_commands_are_on_the_first_screen() {
    let readme = page("README.md");
    let first: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    for command in ["cargo run --release -- check fixtures/demo", "cargo test"] {
        assert!(first.contains(&format!("```sh\n{command}\n```")), "{command:?} is not on README's first screen");
    }
    assert!(first.contains("exits with status 1 on purpose"), "README does not say the demo exits 1 on purpose");
}

fn rule_names() -> Vec<String> {
    let out = run(Command::new(BIN).arg("rules"));
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().lines().map(|l| l.split_whitespace().next().unwrap().to_owned()).collect()
}

#[test]
fn the_rule_table_lists_every_rule_and_only_rules() {
    let readme = page("README.md");
    let table = &readme[readme.find("| rule | finds |").expect("README's rule table")..];
    let rows: Vec<&str> = table.lines().skip(2).take_while(|l| l.starts_with('|')).collect();
    let in_table: Vec<String> = rows
        .iter()
        .map(|row| backticked(row.split('|').nth(1).unwrap()).into_iter().next().expect("a rule name in backticks"))
        .collect();
    assert_eq!(in_table, rule_names(), "README's rule table, in `mcp-lint rules` order");
}

// ---------------------------------------------------------------- links and paths

/// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn relative_links_and_anchors_resolve() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut pages = pages();
    pages.push((PathBuf::from("editors/vscode/README.md"), page("editors/vscode/README.md")));
    for entry in std::fs::read_dir(repo().join("rules")).unwrap() {
        let path = entry.unwrap().path().strip_prefix(repo()).unwrap().to_path_buf();
        let text = std::fs::read_to_string(repo().join(&path)).unwrap();
        pages.push((path, text));
    }
    let mut failures = Vec::new();
    for (path, text) in &pages {
        for target in link.captures_iter(text).map(|c| c.get(1).unwrap().as_str()) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').map_or((target, None), |(f, a)| (f, Some(a)));
            let resolved =
                if file.is_empty() { repo().join(path) } else { repo().join(path).parent().unwrap().join(file) };
            if !resolved.exists() {
                failures.push(format!("{}: `{target}`: no such file", path.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                let text = std::fs::read_to_string(&resolved).unwrap_or_default();
                if !anchors(&text).contains(anchor) {
                    failures.push(format!("{}: `{target}`: no heading with that anchor", path.display()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Paths of this repository named in backticks (`src/engine.rs`, `tests/lsp.rs`, `benches/run.sh`) exist.
#[test]
fn repository_paths_named_in_the_docs_exist() {
    let path =
        regex::Regex::new(r"^(\.ci|src|tests|benches|fixtures|scripts|editors|rules|docs|fuzz)/[A-Za-z0-9_./-]*$")
            .unwrap();
    // Made by tools, never committed.
    let generated = ["editors/vscode/node_modules", "fuzz/corpus", "fuzz/artifacts"];
    let mut failures = Vec::new();
    for (page, text) in pages() {
        for word in backticked(&text) {
            let made = generated.iter().any(|g| word.trim_end_matches('/').starts_with(g));
            if path.is_match(&word) && !made && !repo().join(&word).exists() {
                failures.push(format!("{}: `{word}` does not exist", page.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------- option tables

/// The long options a verb's `--help` lists (`--help` itself aside).
fn help_options(verb: &str) -> BTreeSet<String> {
    let out = run(Command::new(BIN).args([verb, "--help"]));
    let option = regex::Regex::new(r"^\s+(?:-\w, )?(--[a-z-]+)").unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| option.captures(l).map(|c| c[1].to_owned()))
        .filter(|o| o != "--help")
        .collect()
}

/// The long options in the first column of the table after `heading` in `page`.
fn table_options(page_name: &str, heading: &str) -> BTreeSet<String> {
    let text = page(page_name);
    let after = &text[text.find(heading).unwrap_or_else(|| panic!("{page_name}: no {heading:?}"))..];
    let table = &after[after.find("| option |").unwrap()..];
    let option = regex::Regex::new(r"--[a-z-]+").unwrap();
    table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|row| {
            option.find_iter(row.split(" | ").next().unwrap()).map(|m| m.as_str().to_owned()).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn option_tables_are_the_options_help_lists() {
    assert_eq!(table_options("docs/cli.md", "## Options of `check`"), help_options("check"), "docs/cli.md");
    assert_eq!(table_options("docs/fixing.md", "# Fixing"), help_options("fix"), "docs/fixing.md");
}

// ---------------------------------------------------------------- copied output and figures

/// The JSON finding shown in docs/output-formats.md is the demo's, as `check --format json` prints it now.
#[test]
fn the_documented_json_finding_is_real_output() {
    let shown: Value = serde_json::from_str(&marked_block("docs/output-formats.md", "demo-json-finding").body).unwrap();
    let out = run(Command::new(BIN)
        .args(["check", "--format", "json", "--select", "first-root-as-workspace", "fixtures/demo"])
        .current_dir(repo()));
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown, findings[0], "update docs/output-formats.md with the current output");
}

/// The baseline file format shown in docs/suppressions-and-baseline.md has the keys a written baseline has.
#[test]
fn the_documented_baseline_has_the_real_keys() {
    let docs = page("docs/suppressions-and-baseline.md");
    let shown = blocks(Path::new("docs/suppressions-and-baseline.md"), &docs)
        .into_iter()
        .find(|b| b.lang == "json" && b.body.contains("\"findings\""))
        .expect("the baseline example");
    let shown: Value = serde_json::from_str(&shown.body).unwrap();
    let dir = sandbox_without_git();
    let out = run(Command::new(BIN).args(["check", "--write-baseline", "b.json", "."]).current_dir(dir.path()));
    assert_eq!(out.status.code(), Some(0));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("b.json")).unwrap()).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(keys(&shown), keys(&written));
    assert_eq!(shown["version"], written["version"]);
    assert_eq!(keys(&shown["findings"][0]), keys(&written["findings"][0]));
}

/// docs/benchmarks.md's table of targets is benches/RESULTS.md's, as the harness last wrote it.
#[test]
fn benchmark_targets_are_the_last_results() {
    let docs = marked_paragraph("docs/benchmarks.md", "results-targets");
    let results = page("benches/RESULTS.md");
    let table: String = results[results.find("| target | met | measured |").unwrap()..]
        .lines()
        .take_while(|l| l.starts_with('|'))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(docs, table, "copy benches/RESULTS.md's target table into docs/benchmarks.md");
}

/// The ecosystem check's counts in docs/benchmarks.md are those of benches/ecosystem/SUMMARY.md.
#[test]
fn ecosystem_counts_are_the_last_summary() {
    let summary = page("benches/ecosystem/SUMMARY.md");
    let counts = regex::Regex::new(r"(\d+) crates, \d+ Rust files, (\d+) findings: (\d+) true, (\d+) false").unwrap();
    let c = counts.captures(&summary).expect("SUMMARY.md's counts line");
    let said = format!("{} crates, {} findings, {} judged true and {} false", &c[1], &c[2], &c[3], &c[4]);
    let docs = page("docs/benchmarks.md").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(docs.contains(&said), "docs/benchmarks.md should say {said:?}");
}

/// The VS Code settings docs/editors.md lists are the extension's.
#[test]
fn vscode_settings_are_the_extensions() {
    let package: Value = serde_json::from_str(&page("editors/vscode/package.json")).unwrap();
    let declared: BTreeSet<String> =
        package["contributes"]["configuration"]["properties"].as_object().unwrap().keys().cloned().collect();
    let docs = page("docs/editors.md");
    let documented: BTreeSet<String> =
        backticked(&docs).into_iter().filter(|w| w.starts_with("mcpLint.") && !w.contains(' ')).collect();
    assert_eq!(documented, declared);
}
