//! The CI and editor formats as their consumers read them: SARIF against the official 2.1.0 schema
//! (every SARIF document these tests produce goes through `validated_sarif`), GitHub workflow
//! commands through the runner's own unescaping, cargo-json against what `cargo check` itself
//! prints, the Markdown summary's tables; and the CLI conventions around them (`--output-file`,
//! `--statistics`, `--quiet`, `--exit-zero`, `--fail-on`, `-` with `--stdin-filename`), the GitHub
//! Action and the pre-commit hook.
//!
//! Expected values come from another output of the same run (the JSON format, `mcp-lint fix`) or
//! from the input text, never from a copy of the output.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use serde_json::Value;

fn mcp_lint() -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[path = "support/samples.rs"]
mod samples;
use samples::SERVER_WITH_ROOTS;

/// A client capability declaration with the removed flag: one finding with a safe fix. The `é`
/// before it makes columns in code points differ from bytes.
const CAPS_WITH_LIST_CHANGED: &str = "{\"name\": \"café\", \"capabilities\": {\"roots\": {\"listChanged\": true}}}\n";

/// Runs `check` with these arguments in `dir` and returns (exit code, stdout, stderr).
fn check(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = mcp_lint().current_dir(dir).arg("check").args(args).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The JSON format's findings for the same arguments: the reference the other formats must agree with.
fn json_findings(dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let (_, stdout, stderr) = check(dir, &all);
    serde_json::from_str::<Value>(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"))
        .as_array()
        .unwrap()
        .clone()
}

fn line_col(f: &Value, end: &str) -> (u64, u64) {
    (f["range"][end]["line"].as_u64().unwrap(), f["range"][end]["column"].as_u64().unwrap())
}

// ---------------------------------------------------------------- SARIF

fn sarif_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let text = std::fs::read_to_string(repo().join("tests/data/sarif-schema-2.1.0.json")).unwrap();
        // The official schema's two `language` patterns have a stray `]`, a literal in ECMA-262 regexes
        // (Annex B) that the validator's stricter `regex` format check refuses. Escaping it is the
        // same pattern; the rest of the schema is used as published.
        let stray = r#""pattern": "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
        assert_eq!(text.matches(stray).count(), 2, "the schema changed: revisit this workaround");
        let text = text.replace(stray, r#""pattern": "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#);
        let schema: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
        jsonschema::draft7::options().should_validate_formats(true).build(&schema).unwrap()
    })
}

fn schema_errors(doc: &Value) -> Vec<String> {
    sarif_validator().iter_errors(doc).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

/// Parses a SARIF document, validates it against the official schema, and checks what GitHub code
/// scanning needs beyond the schema. Every SARIF document in these tests goes through here.
fn validated_sarif(text: &str) -> Value {
    let doc: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    let errors = schema_errors(&doc);
    assert!(errors.is_empty(), "SARIF does not match the 2.1.0 schema:\n{}", errors.join("\n"));

    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"].as_str().unwrap().starts_with("https://"));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "mcp-lint");
    assert_eq!(driver["semanticVersion"], env!("CARGO_PKG_VERSION"));
    // Only an address `Cargo.toml` names: mcp-lint is not published, so no other page exists.
    let named = [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")].into_iter().find(|u| !u.is_empty());
    assert_eq!(driver["informationUri"].as_str(), named);
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = driver["rules"].as_array().unwrap();
    for rule in rules {
        for key in ["id", "name", "shortDescription", "fullDescription", "help", "defaultConfiguration"] {
            assert!(!rule[key].is_null(), "rule without {key}: {rule}");
        }
        // GitHub refuses a rule whose descriptions or help text are empty (the multitool's GH2012).
        for text in [&rule["shortDescription"]["text"], &rule["fullDescription"]["text"], &rule["help"]["text"]] {
            assert!(!text.as_str().unwrap().trim().is_empty(), "rule with an empty text: {rule}");
        }
        assert!(!rule["help"]["markdown"].as_str().unwrap().is_empty());
        if let Some(uri) = rule.get("helpUri") {
            assert!(uri.as_str().unwrap().starts_with("https://"), "{uri}");
        }
        assert!(["error", "warning", "note"].contains(&rule["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "ruleIndex must point at the rule");
        assert!(["error", "warning"].contains(&result["level"].as_str().unwrap()));
        let fingerprint = result["partialFingerprints"]["primaryLocationLineHash"].as_str().unwrap();
        let (hash, occurrence) = fingerprint.split_once(':').unwrap();
        assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{fingerprint}");
        assert!(occurrence.parse::<u32>().unwrap() >= 1);
        let location = &result["locations"][0]["physicalLocation"];
        // Repository-relative, as code scanning wants: no scheme, no leading slash, no `..`.
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%", "{uri}");
        assert!(!uri.contains(':') && !uri.starts_with('/') && !uri.split('/').any(|s| s == ".."), "{uri}");
        let region = &location["region"];
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[key].as_u64().unwrap() >= 1, "{region}");
        }
    }
    doc
}

fn sarif_results(doc: &Value) -> &Vec<Value> {
    doc["runs"][0]["results"].as_array().unwrap()
}

/// RFC 3986 percent-decoding of a URI path.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&uri[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn the_validator_rejects_broken_sarif() {
    // Without this, a validator that accepts everything would make every SARIF test pass.
    let (_, stdout, _) = check(&repo().join("fixtures/demo"), &["--format", "sarif", "."]);
    let good: Value = serde_json::from_str(&stdout).unwrap();
    assert!(schema_errors(&good).is_empty());
    let mut bad = good.clone();
    bad["version"] = "2.0.0".into();
    assert!(!schema_errors(&bad).is_empty());
    let mut bad = good.clone();
    bad["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!schema_errors(&bad).is_empty());
    let mut bad = good;
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert!(!schema_errors(&bad).is_empty());
}

#[test]
fn sarif_for_the_demo_agrees_with_the_json_format() {
    let (code, stdout, _) = check(repo(), &["--format", "sarif", "fixtures/demo"]);
    assert_eq!(code, 1);
    let doc = validated_sarif(&stdout);
    let findings = json_findings(repo(), &["fixtures/demo"]);
    let results = sarif_results(&doc);
    assert_eq!(results.len(), findings.len());
    assert!(results.len() >= 4, "the demo shows every rule");
    for (r, f) in results.iter().zip(&findings) {
        assert_eq!(r["ruleId"], f["rule"]);
        assert_eq!(r["level"], f["severity"]);
        assert!(r["message"]["text"].as_str().unwrap().starts_with(f["message"].as_str().unwrap()));
        let location = &r["locations"][0]["physicalLocation"];
        assert_eq!(percent_decode(location["artifactLocation"]["uri"].as_str().unwrap()), f["path"].as_str().unwrap());
        let region = &location["region"];
        assert_eq!(
            (region["startLine"].as_u64().unwrap(), region["startColumn"].as_u64().unwrap()),
            line_col(f, "start")
        );
        assert_eq!((region["endLine"].as_u64().unwrap(), region["endColumn"].as_u64().unwrap()), line_col(f, "end"));
        assert_eq!(region["byteOffset"], f["byte_range"][0]);
    }

    // One rule descriptor per rule `mcp-lint rules` lists, its help the page `explain` prints.
    let rules = doc["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    let listed = mcp_lint().arg("rules").output().unwrap().stdout;
    let listed: Vec<String> =
        String::from_utf8(listed).unwrap().lines().map(|l| l.split_whitespace().next().unwrap().to_owned()).collect();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, listed);
    for rule in rules {
        let page = mcp_lint().args(["explain", rule["id"].as_str().unwrap()]).output().unwrap().stdout;
        assert_eq!(rule["help"]["markdown"].as_str().unwrap(), String::from_utf8(page).unwrap());
    }
}

#[test]
fn sarif_for_an_empty_run() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/main.rs", "fn main() {}\n");
    let (code, stdout, _) = check(dir.path(), &["--format", "sarif"]);
    assert_eq!(code, 0);
    let doc = validated_sarif(&stdout);
    assert!(sarif_results(&doc).is_empty());
    assert_eq!(doc["runs"][0]["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn sarif_for_parse_errors_and_unreadable_paths() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/broken.rs", "fn list_roots( {\n");
    write(dir.path(), "b/broken.json", "{\"roots\": {\"listChanged\": tru}}\n");
    let (code, stdout, _) = check(dir.path(), &["--format", "sarif", "a", "b", "missing"]);
    assert_eq!(code, 2);
    let doc = validated_sarif(&stdout);
    let results = sarif_results(&doc);
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["ruleId"] == "parse-error" && r["level"] == "error"));
    let invocation = &doc["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert!(notes.iter().any(|n| n["level"] == "error" && n["message"]["text"].as_str().unwrap().contains("missing")));
}

/// Applies replacements given as (byte offset, byte length, text), last first.
fn apply(text: &str, mut edits: Vec<(usize, usize, String)>) -> String {
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_owned();
    for (offset, length, replacement) in edits {
        out.replace_range(offset..offset + length, &replacement);
    }
    out
}

/// Says the code around it targets 2026-07-28 alone: dropping `listChanged` is then a safe fix
/// (where nothing tells the era, it is unsafe).
const TARGETS_2026: &str = "era = \"2026-07-28\"\n";

/// 1-based line and code-point column of a byte offset, computed here independently.
fn position(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap().chars().count() + 1;
    (line as u64, column as u64)
}

/// What `mcp-lint fix` writes for this file, from a copy, in code said to target 2026-07-28 alone
/// (as the tests that compare with it say).
fn fixed_by_mcp_lint(name: &str, text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), name, text);
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    mcp_lint().current_dir(dir.path()).args(["fix", "--allow-no-vcs", name]).output().unwrap();
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn sarif_fixes_do_what_mcp_lint_fix_does() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "caps.json", CAPS_WITH_LIST_CHANGED);
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    let (code, stdout, _) = check(dir.path(), &["--format", "sarif", "caps.json"]);
    assert_eq!(code, 1);
    let doc = validated_sarif(&stdout);
    let result = sarif_results(&doc).iter().find(|r| r["ruleId"] == "roots-list-changed").unwrap();
    let fix = &result["fixes"][0];
    assert_eq!(fix["properties"]["applicability"], "safe");
    let change = &fix["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "caps.json");
    let mut edits = Vec::new();
    for replacement in change["replacements"].as_array().unwrap() {
        let region = &replacement["deletedRegion"];
        let offset = region["byteOffset"].as_u64().unwrap() as usize;
        let length = region["byteLength"].as_u64().unwrap() as usize;
        // The line/column form of the region says the same as its bytes.
        assert_eq!(
            position(CAPS_WITH_LIST_CHANGED, offset),
            (region["startLine"].as_u64().unwrap(), region["startColumn"].as_u64().unwrap())
        );
        assert_eq!(
            position(CAPS_WITH_LIST_CHANGED, offset + length),
            (region["endLine"].as_u64().unwrap(), region["endColumn"].as_u64().unwrap())
        );
        edits.push((offset, length, replacement["insertedContent"]["text"].as_str().unwrap().to_owned()));
    }
    assert_eq!(apply(CAPS_WITH_LIST_CHANGED, edits), fixed_by_mcp_lint("caps.json", CAPS_WITH_LIST_CHANGED));
    // Columns count code points: `é` is two bytes but one column.
    let region = &result["locations"][0]["physicalLocation"]["region"];
    let offset = region["byteOffset"].as_u64().unwrap() as usize;
    assert_eq!(region["startColumn"].as_u64().unwrap(), position(CAPS_WITH_LIST_CHANGED, offset).1);
    assert_ne!(region["startColumn"].as_u64().unwrap() as usize, offset + 1);
}

#[test]
fn sarif_fingerprints_survive_line_shifts_and_count_repeats() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    let doc = validated_sarif(&check(dir.path(), &["--format", "sarif"]).1);
    let of_rule = |doc: &Value| -> Vec<Value> {
        sarif_results(doc).iter().filter(|r| r["ruleId"] == "server-roots-request").cloned().collect()
    };
    let before = &of_rule(&doc)[0];

    // Three lines added above the finding, and the same line twice further down.
    let repeated = SERVER_WITH_ROOTS.replace(
        "        roots.roots.len()\n",
        "        let roots = context.peer.list_roots().await.unwrap();\n        roots.roots.len()\n",
    );
    write(dir.path(), "src/tools.rs", &format!("// one\n// two\n// three\n{repeated}"));
    let doc = validated_sarif(&check(dir.path(), &["--format", "sarif"]).1);
    let after = of_rule(&doc);
    assert_eq!(after.len(), 2);
    let line = |r: &Value| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap();
    assert_eq!(line(&after[0]), line(before) + 3);
    let fingerprint = |r: &Value| r["partialFingerprints"]["primaryLocationLineHash"].as_str().unwrap().to_owned();
    assert_eq!(fingerprint(&after[0]), fingerprint(before));
    let (hash0, n0) = fingerprint(&after[0]).split_once(':').map(|(a, b)| (a.to_owned(), b.to_owned())).unwrap();
    let (hash1, n1) = fingerprint(&after[1]).split_once(':').map(|(a, b)| (a.to_owned(), b.to_owned())).unwrap();
    assert_eq!((hash0 == hash1, n0.as_str(), n1.as_str()), (true, "1", "2"));
}

/// File names that break naive URI, workflow-command and Markdown writers.
const HOSTILE_NAMES: &[&str] = &["dir with space/a%20b#c?.json", "ünï/ça,va:oui.json", "new\nline,x.json"];

#[test]
fn sarif_uris_encode_hostile_paths() {
    let dir = tempfile::tempdir().unwrap();
    for name in HOSTILE_NAMES {
        write(dir.path(), name, CAPS_WITH_LIST_CHANGED);
    }
    let (code, stdout, _) = check(dir.path(), &["--format", "sarif"]);
    assert_eq!(code, 1);
    let doc = validated_sarif(&stdout);
    let decoded: BTreeSet<String> = sarif_results(&doc)
        .iter()
        .map(|r| {
            let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
            assert!(uri.bytes().all(|b| b.is_ascii_graphic()), "{uri:?}");
            percent_decode(uri)
        })
        .collect();
    let expected: BTreeSet<String> = HOSTILE_NAMES.iter().map(|s| s.to_string()).collect();
    assert_eq!(decoded, expected);
}

#[test]
fn sarif_outside_the_current_folder_is_an_absolute_file_uri() {
    let project = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let file = write(elsewhere.path(), "caps.json", CAPS_WITH_LIST_CHANGED);
    let (code, stdout, _) = check(project.path(), &["--format", "sarif", file.to_str().unwrap()]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert!(schema_errors(&doc).is_empty());
    let location = &sarif_results(&doc)[0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert!(location["uriBaseId"].is_null());
    let canonical = std::fs::canonicalize(&file).unwrap();
    assert_eq!(percent_decode(location["uri"].as_str().unwrap()), format!("file://{}", canonical.display()));
}

// ---------------------------------------------------------------- GitHub workflow commands

/// A workflow command parsed the way the Actions runner parses it.
#[derive(Debug)]
struct WorkflowCommand {
    command: String,
    properties: BTreeMap<String, String>,
    message: String,
}

fn parse_workflow_command(line: &str) -> WorkflowCommand {
    let rest = line.strip_prefix("::").unwrap_or_else(|| panic!("not a workflow command: {line:?}"));
    let (head, data) = rest.split_once("::").unwrap();
    let (command, props) = head.split_once(' ').unwrap_or((head, ""));
    let unescape_data = |s: &str| s.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%");
    let unescape_property = |s: &str| {
        s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")
    };
    let properties = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_owned(), unescape_property(v))
        })
        .collect();
    WorkflowCommand { command: command.to_owned(), properties, message: unescape_data(data) }
}

/// A JSON finding's message as formats for people show it: test code's says so.
fn shown_message(f: &serde_json::Value) -> String {
    let message = f["message"].as_str().unwrap();
    if f["in_test"].as_bool().expect("in_test is always written") {
        format!("{message} (test code)")
    } else {
        message.to_owned()
    }
}

fn github_commands(stdout: &str) -> Vec<WorkflowCommand> {
    stdout.lines().map(parse_workflow_command).collect()
}

#[test]
fn github_annotations_agree_with_the_json_format() {
    let (code, stdout, _) = check(repo(), &["--format", "github", "fixtures/demo"]);
    assert_eq!(code, 1);
    let commands = github_commands(&stdout);
    let findings = json_findings(repo(), &["fixtures/demo"]);
    assert_eq!(commands.len(), findings.len());
    for (c, f) in commands.iter().zip(&findings) {
        assert_eq!(c.command, f["severity"].as_str().unwrap());
        let p = &c.properties;
        assert_eq!(p["file"], f["path"].as_str().unwrap());
        let (start, end) = (line_col(f, "start"), line_col(f, "end"));
        assert_eq!(p["line"], start.0.to_string());
        assert_eq!(p["endLine"], end.0.to_string());
        assert_eq!(p["col"], start.1.to_string());
        assert_eq!(p["endColumn"], end.1.to_string());
        assert_eq!(p["title"], format!("mcp-lint ({})", f["rule"].as_str().unwrap()));
        let help = f["help"].as_str().unwrap();
        assert!(c.message.starts_with(&format!("{}\nhelp: {help}", shown_message(f))), "{c:?}");
    }
}

#[test]
fn github_escapes_hostile_paths_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    for name in HOSTILE_NAMES {
        write(dir.path(), name, CAPS_WITH_LIST_CHANGED);
    }
    // A transcript whose reused id (quoted in the message) holds every character that matters.
    let id = "50%,a:b::c%0A";
    let request = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "t"}});
    let input_required = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
        "resultType": "input_required",
        "inputRequests": {"c": {"method": "elicitation/create", "params": {"message": "ok?"}}},
    }});
    let retry = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "t", "inputResponses": {"c": {"action": "accept"}}}});
    write(dir.path(), "odd,dir:x/session.jsonl", &format!("{request}\n{input_required}\n{retry}\n"));

    let (code, stdout, _) = check(dir.path(), &["--format", "github"]);
    assert_eq!(code, 1);
    let commands = github_commands(&stdout);
    let findings = json_findings(dir.path(), &[]);
    assert_eq!(commands.len(), findings.len(), "one command per finding, each on one line");
    for (c, f) in commands.iter().zip(&findings) {
        assert_eq!(c.properties["file"], f["path"].as_str().unwrap());
        assert!(c.message.starts_with(f["message"].as_str().unwrap()), "{c:?}");
    }
    let retry_finding = commands.iter().find(|c| c.properties["file"] == "odd,dir:x/session.jsonl").unwrap();
    assert!(retry_finding.message.contains(id), "{retry_finding:?}");
    for name in HOSTILE_NAMES {
        assert!(commands.iter().any(|c| c.properties["file"] == *name), "{name:?}");
    }
}

#[test]
fn github_columns_only_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "caps.json", "{\"capabilities\": {\"roots\": {\"listChanged\":\n  true}}}\n");
    let findings = json_findings(dir.path(), &["caps.json"]);
    let flag = findings.iter().find(|f| f["rule"] == "roots-list-changed").unwrap();
    assert_ne!(line_col(flag, "start").0, line_col(flag, "end").0, "a range over two lines");
    let (_, stdout, _) = check(dir.path(), &["--format", "github", "caps.json"]);
    let commands = github_commands(&stdout);
    let c = commands.iter().find(|c| c.properties["title"].contains("roots-list-changed")).unwrap();
    assert_eq!(c.properties["line"], "1");
    assert_eq!(c.properties["endLine"], "2");
    assert!(!c.properties.contains_key("col") && !c.properties.contains_key("endColumn"), "{c:?}");
}

// ---------------------------------------------------------------- cargo-json

/// cargo's JSON messages, field for field as `cargo_metadata::Message` reads them (what
/// rust-analyzer deserializes), refusing unknown fields so a typo cannot pass.
#[allow(dead_code)] // Deserializing checks every field is there; not every one is read after.
mod cargo {
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(tag = "reason", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Message {
        CompilerMessage { package_id: String, manifest_path: String, target: Target, message: Box<Diagnostic> },
        BuildFinished { success: bool },
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    pub struct Target {
        pub kind: Vec<String>,
        pub crate_types: Vec<String>,
        pub name: String,
        pub src_path: String,
        pub edition: String,
        pub doc: bool,
        pub doctest: bool,
        pub test: bool,
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    pub struct Diagnostic {
        #[serde(rename = "$message_type")]
        pub message_type: Option<String>,
        pub message: String,
        pub code: Option<DiagnosticCode>,
        pub level: String,
        pub spans: Vec<Span>,
        pub children: Vec<Diagnostic>,
        pub rendered: Option<String>,
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    pub struct DiagnosticCode {
        pub code: String,
        pub explanation: Option<String>,
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    pub struct Span {
        pub file_name: String,
        pub byte_start: u32,
        pub byte_end: u32,
        pub line_start: usize,
        pub line_end: usize,
        pub column_start: usize,
        pub column_end: usize,
        pub is_primary: bool,
        pub text: Vec<SpanLine>,
        pub label: Option<String>,
        pub suggested_replacement: Option<String>,
        pub suggestion_applicability: Option<String>,
        pub expansion: Option<serde_json::Value>,
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    pub struct SpanLine {
        pub text: String,
        pub highlight_start: usize,
        pub highlight_end: usize,
    }
}

fn cargo_messages(stdout: &str) -> Vec<cargo::Message> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a cargo message ({e}): {l}")))
        .collect()
}

#[test]
fn cargo_json_is_cargo_messages_that_agree_with_the_json_format() {
    let (code, stdout, _) = check(repo(), &["--format", "cargo-json", "fixtures/demo"]);
    assert_eq!(code, 1);
    let messages = cargo_messages(&stdout);
    let findings = json_findings(repo(), &["fixtures/demo"]);
    assert_eq!(messages.len(), findings.len() + 1);
    assert!(matches!(messages.last(), Some(cargo::Message::BuildFinished { success: false })));
    for (m, f) in messages.iter().zip(&findings) {
        let cargo::Message::CompilerMessage { message: d, manifest_path, target, package_id } = m else {
            panic!("{m:?}")
        };
        assert!(manifest_path.ends_with("fixtures/demo/Cargo.toml"), "{manifest_path}");
        assert!(package_id.starts_with("path+file:///") && package_id.contains("fixtures/demo#"), "{package_id}");
        assert_eq!(target.name, "demo-file-server");
        assert_eq!(d.message_type.as_deref(), Some("diagnostic"));
        assert_eq!(d.message, shown_message(f));
        assert_eq!(d.level, f["severity"].as_str().unwrap());
        assert_eq!(d.code.as_ref().unwrap().code, format!("mcp_lint::{}", f["rule"].as_str().unwrap()));
        let primary = d.spans.iter().find(|s| s.is_primary).unwrap();
        assert_eq!(primary.file_name, f["path"].as_str().unwrap());
        assert_eq!(
            (primary.byte_start as u64, primary.byte_end as u64),
            (f["byte_range"][0].as_u64().unwrap(), f["byte_range"][1].as_u64().unwrap())
        );
        assert_eq!((primary.line_start as u64, primary.column_start as u64), line_col(f, "start"));
        assert_eq!((primary.line_end as u64, primary.column_end as u64), line_col(f, "end"));
        // The span's text is the file's lines, highlighted where the finding is.
        let source = std::fs::read_to_string(repo().join(&primary.file_name)).unwrap();
        let lines: Vec<&str> = source.lines().collect();
        for (i, line) in primary.text.iter().enumerate() {
            assert_eq!(line.text, lines[primary.line_start - 1 + i]);
        }
        assert_eq!(primary.text[0].highlight_start, primary.column_start);
        assert_eq!(primary.text.last().unwrap().highlight_end, primary.column_end);
        assert_eq!(d.spans.len(), 1 + f["labels"].as_array().unwrap().len());
        assert!(d.children.iter().any(|c| c.level == "help" && c.message == f["help"].as_str().unwrap()));
        let rendered = d.rendered.as_deref().unwrap();
        assert!(rendered.starts_with(&format!(
            "{}[{}]: ",
            f["severity"].as_str().unwrap(),
            f["rule"].as_str().unwrap()
        )));
    }
}

#[test]
fn cargo_json_fixes_are_machine_applicable_suggestions() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "caps.json", CAPS_WITH_LIST_CHANGED);
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    let (_, stdout, _) = check(dir.path(), &["--format", "cargo-json", "caps.json"]);
    let messages = cargo_messages(&stdout);
    let d = messages
        .iter()
        .find_map(|m| match m {
            cargo::Message::CompilerMessage { message: d, .. } if d.children.iter().any(|c| !c.spans.is_empty()) => {
                Some(d)
            }
            _ => None,
        })
        .expect("the flag's finding with its fix");
    let suggestions: Vec<&cargo::Span> =
        d.children.iter().flat_map(|c| &c.spans).filter(|s| s.suggested_replacement.is_some()).collect();
    assert!(!suggestions.is_empty());
    let mut edits = Vec::new();
    for s in suggestions {
        // rust-analyzer turns only primary spans with these applicabilities into quick fixes.
        assert!(s.is_primary);
        assert_eq!(s.suggestion_applicability.as_deref(), Some("MachineApplicable"));
        assert_eq!(
            (s.line_start as u64, s.column_start as u64),
            position(CAPS_WITH_LIST_CHANGED, s.byte_start as usize)
        );
        assert_eq!((s.line_end as u64, s.column_end as u64), position(CAPS_WITH_LIST_CHANGED, s.byte_end as usize));
        let (start, end) = (s.byte_start as usize, s.byte_end as usize);
        edits.push((start, end - start, s.suggested_replacement.clone().unwrap()));
    }
    assert_eq!(apply(CAPS_WITH_LIST_CHANGED, edits), fixed_by_mcp_lint("caps.json", CAPS_WITH_LIST_CHANGED));
}

/// Every key path of a JSON value (`message.spans[].text[].highlight_start`), arrays merged.
fn key_paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let path = format!("{prefix}.{k}");
                out.insert(path.clone());
                key_paths(v, &path, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| key_paths(v, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

/// A crate with a compiler warning (and a suggestion) and an MCP finding (with a fix), checked
/// through `scripts/ra-check.sh` as rust-analyzer would run it.
#[test]
fn ra_check_script_merges_cargo_and_mcp_lint_in_cargo_s_exact_shape() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"ra-demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    write(dir.path(), "src/main.rs", "fn main() {\n    let unused = 1;\n}\n");
    write(dir.path(), "client-capabilities.json", CAPS_WITH_LIST_CHANGED);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new("sh")
        .arg(repo().join("scripts/ra-check.sh"))
        .current_dir(dir.path())
        .env("CARGO", &cargo)
        .env("MCP_LINT", assert_cmd::cargo::cargo_bin("mcp-lint"))
        .env("CARGO_TARGET_DIR", dir.path().join("target"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<Value> =
        stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect();
    // cargo's own lines must read with the same structs: they mirror the real format.
    for r in &records {
        if r["reason"] == "compiler-message" || r["reason"] == "build-finished" {
            serde_json::from_value::<cargo::Message>(r.clone()).unwrap_or_else(|e| panic!("{e}: {r}"));
        }
    }
    let code = |r: &Value| r["message"]["code"]["code"].as_str().map(str::to_owned);
    let rustc = records.iter().find(|r| code(r).as_deref() == Some("unused_variables")).expect("cargo's warning");
    let ours = records
        .iter()
        .find(|r| code(r).as_deref() == Some("mcp_lint::roots-list-changed"))
        .expect("mcp-lint's finding");
    assert_eq!(ours["message"]["spans"][0]["file_name"], "client-capabilities.json");
    assert_eq!(ours["manifest_path"], rustc["manifest_path"]);
    assert_eq!(ours["package_id"], rustc["package_id"]);
    assert_eq!(ours["target"], rustc["target"]);

    // Same keys at every level: record, target, message, spans, span lines, children and their spans.
    let (mut theirs, mut mine) = (BTreeSet::new(), BTreeSet::new());
    key_paths(rustc, "", &mut theirs);
    key_paths(ours, "", &mut mine);
    // rustc's explanation is null here and ours too; keys under children match when both have them.
    assert_eq!(mine, theirs, "mcp-lint's record differs from cargo's in its keys");
    assert!(records.iter().any(|r| r["reason"] == "build-finished"));
}

// ---------------------------------------------------------------- summary

/// The rows of the Markdown table under `heading`, as cells.
fn table(markdown: &str, heading: &str) -> Vec<Vec<String>> {
    let section = markdown.split(&format!("## {heading}\n")).nth(1).unwrap_or_else(|| panic!("no section {heading}"));
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_owned()).collect())
        .collect()
}

#[test]
fn summary_counts_agree_with_the_json_format() {
    let (code, markdown, _) = check(repo(), &["--format", "summary", "fixtures/demo"]);
    assert_eq!(code, 1);
    let findings = json_findings(repo(), &["fixtures/demo"]);
    assert!(markdown.starts_with("# "));

    let mut per_rule: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    for f in &findings {
        let entry = per_rule.entry(f["rule"].as_str().unwrap().to_owned()).or_default();
        entry.0 += 1;
        entry.1 += (f["fix"]["applicability"] == "safe") as usize;
        *per_file.entry(f["path"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    let rows = table(&markdown, "Findings per rule");
    let from_table: BTreeMap<String, (usize, usize)> = rows
        .iter()
        .map(|r| (r[0].trim_matches('`').to_owned(), (r[1].parse().unwrap(), r[4].parse().unwrap())))
        .collect();
    assert_eq!(from_table, per_rule);
    let rows = table(&markdown, "Findings per file");
    let from_table: BTreeMap<String, usize> =
        rows.iter().map(|r| (r[0].trim_matches('`').to_owned(), r[1].parse().unwrap())).collect();
    assert_eq!(from_table, per_file);

    // Every finding is either in what `fix` does or in the checklist for a person.
    let automatic = findings
        .iter()
        .filter(|f| ["safe", "unsafe"].contains(&f["fix"]["applicability"].as_str().unwrap_or("")))
        .count();
    // Beside them, findings on code the roots codemod rewrites away (no fix of their own; that they
    // go is `tests/codemod_visible.rs`'s to prove).
    let fix_section = markdown.split("## What `mcp-lint fix` does").nth(1).unwrap().split("\n## ").next().unwrap();
    let swept = fix_section.lines().filter(|l| l.contains("goes with the roots codemod's rewrite")).count();
    let checklist = markdown.lines().filter(|l| l.starts_with("- [ ] ")).count();
    assert_eq!(checklist, findings.len() - automatic - swept);
    let fix_items = fix_section.lines().filter(|l| l.starts_with("- ")).count();
    assert_eq!(fix_items, automatic + swept);

    // The era per crate, as the JSON findings report it.
    let crates = table(&markdown, "Crates and the era assumed");
    assert_eq!(crates.len(), 1);
    assert_eq!(crates[0][0], "`demo-file-server`");
    assert_eq!(crates[0][4], findings[0]["era"]["assumed"].as_str().unwrap());
    assert!(crates[0][2].starts_with("rmcp "), "{:?}", crates[0]);
}

#[test]
fn summary_of_a_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/main.rs", "fn main() {}\n");
    let (code, markdown, _) = check(dir.path(), &["--format", "summary"]);
    assert_eq!(code, 0);
    assert!(markdown.contains("| total | 0 (0 errors, 0 warnings) |"), "{markdown}");
    assert!(!markdown.contains("- [ ]"));
}

// ---------------------------------------------------------------- CLI conventions

#[test]
fn format_names() {
    let out = mcp_lint().args(["check", "--format", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("[possible values: human, json, sarif, github, cargo-json, summary]"), "{stderr}");
}

#[test]
fn output_file_gets_the_report_and_stdout_stays_empty() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    write(dir.path(), "out/report.sarif", "old contents");
    let (code, stdout, _) = check(dir.path(), &["--format", "sarif", "--output-file", "out/report.sarif"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    let doc = validated_sarif(&std::fs::read_to_string(dir.path().join("out/report.sarif")).unwrap());
    assert_eq!(sarif_results(&doc).len(), 1);
    let leftovers: Vec<_> =
        std::fs::read_dir(dir.path().join("out")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind: {leftovers:?}");

    // Human output in a file has no colour codes, even when colour is forced on the terminal.
    let out =
        mcp_lint().current_dir(dir.path()).env_remove("NO_COLOR").args(["check", "-o", "report.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(dir.path().join("report.txt")).unwrap();
    assert!(text.contains("error[server-roots-request]") && !text.contains('\x1b'));

    let (code, _, stderr) = check(dir.path(), &["--output-file", "no/such/folder/report.txt"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot write the report"), "{stderr}");
}

#[test]
fn statistics_count_per_rule() {
    let findings = json_findings(repo(), &["fixtures/demo"]);
    let mut expected: BTreeMap<String, usize> = BTreeMap::new();
    for f in &findings {
        *expected.entry(f["rule"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    let (code, stdout, _) = check(repo(), &["--statistics", "fixtures/demo"]);
    assert_eq!(code, 1);
    let mut counted: BTreeMap<String, usize> = BTreeMap::new();
    let mut total = None;
    for line in stdout.lines() {
        let mut words = line.split_whitespace();
        let n: usize = words.next().unwrap().parse().unwrap();
        let rule = words.next().unwrap();
        if rule == "total" {
            total = Some(n);
        } else {
            counted.insert(rule.to_owned(), n);
        }
    }
    assert_eq!(counted, expected);
    assert_eq!(total, Some(findings.len()));
    assert!(!stdout.contains("error["), "statistics replace the findings");

    let (_, stdout, _) = check(repo(), &["--statistics", "--format", "json", "fixtures/demo"]);
    let stats: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let counted: BTreeMap<String, usize> =
        stats.iter().map(|s| (s["rule"].as_str().unwrap().to_owned(), s["count"].as_u64().unwrap() as usize)).collect();
    assert_eq!(counted, expected);
    let counts: Vec<u64> = stats.iter().map(|s| s["count"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "most findings first: {counts:?}");

    // With --output-file, the report goes to the file and the statistics to the terminal.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.sarif");
    let (_, stdout, _) =
        check(repo(), &["--statistics", "--format", "sarif", "-o", report.to_str().unwrap(), "fixtures/demo"]);
    assert!(stdout.contains("total"));
    assert_eq!(sarif_results(&validated_sarif(&std::fs::read_to_string(report).unwrap())).len(), findings.len());
}

#[test]
fn quiet_prints_only_findings() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    std::fs::write(dir.path().join("bin.rs"), b"fn list_roots() {}\xff\n").unwrap();
    let (code, stdout, stderr) = check(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(stdout.contains("mcp-lint: 1 error") && stdout.contains("note: ") && stderr.contains("note: "));
    let (code, quiet_out, quiet_err) = check(dir.path(), &["--quiet"]);
    assert_eq!(code, 1);
    assert!(quiet_out.contains("error[server-roots-request]"));
    // Run notes go (a finding's own `= note:` line is part of the finding).
    assert!(!quiet_out.contains("mcp-lint: ") && !quiet_out.lines().any(|l| l.starts_with("note: ")), "{quiet_out}");
    assert_eq!(quiet_err, "");
    assert!(stdout.starts_with(&quiet_out), "the findings are the same");
}

#[test]
fn exit_zero_and_fail_on() {
    let dual = tempfile::tempdir().unwrap();
    // rmcp 3 serves both eras: removed behaviour is a warning there.
    write(
        dual.path(),
        "Cargo.toml",
        "[package]\nname = \"srv\"\nversion = \"0.1.0\"\n[dependencies]\nrmcp = \"3.11\"\n",
    );
    write(dual.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    assert_eq!(json_findings(dual.path(), &[])[0]["severity"], "warning");
    assert_eq!(check(dual.path(), &[]).0, 1, "by default any finding fails");
    assert_eq!(check(dual.path(), &["--fail-on", "warning"]).0, 1);
    assert_eq!(check(dual.path(), &["--fail-on", "error"]).0, 0);

    let legacy = tempfile::tempdir().unwrap();
    write(legacy.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    assert_eq!(json_findings(legacy.path(), &[])[0]["severity"], "error");
    assert_eq!(check(legacy.path(), &["--fail-on", "error"]).0, 1);
    assert_eq!(check(legacy.path(), &["--exit-zero"]).0, 0);
    assert_eq!(check(legacy.path(), &["--exit-zero", ".", "missing"]).0, 2, "errors still exit 2");
    assert_eq!(check(legacy.path(), &["--fail-on", "never"]).0, 2);

    // cargo-json's build-finished says the same as the exit code.
    let (_, stdout, _) = check(dual.path(), &["--format", "cargo-json", "--fail-on", "error"]);
    assert!(matches!(cargo_messages(&stdout).last(), Some(cargo::Message::BuildFinished { success: true })));
}

fn check_stdin(dir: &Path, args: &[&str], input: &[u8]) -> (i32, String, String) {
    let out = mcp_lint().current_dir(dir).arg("check").args(args).write_stdin(input).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn stdin_is_checked_as_the_named_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"srv\"\nversion = \"0.1.0\"\n[dependencies]\nrmcp = \"3.11\"\n",
    );
    write(dir.path(), "src/tools.rs", SERVER_WITH_ROOTS);
    let on_disk = json_findings(dir.path(), &["src/tools.rs"]);
    // The editor's unsaved buffer: what is on stdin counts, not the file on disk.
    write(dir.path(), "src/tools.rs", "fn main() {}\n");
    let (code, stdout, _) = check_stdin(
        dir.path(),
        &["--format", "json", "-", "--stdin-filename", "src/tools.rs"],
        SERVER_WITH_ROOTS.as_bytes(),
    );
    assert_eq!(code, 1);
    let from_stdin: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(from_stdin, Value::Array(on_disk), "same findings, path, and crate context (severity, era)");

    // The name decides the kind: the same text named .json is JSON (and a parse error).
    let (code, stdout, _) =
        check_stdin(dir.path(), &["--format", "json", "--stdin-filename", "x.json"], SERVER_WITH_ROOTS.as_bytes());
    assert_eq!(code, 1);
    let findings: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(findings[0]["rule"], "parse-error");
    assert_eq!(findings[0]["path"], "x.json");
}

#[test]
fn stdin_without_a_name_and_bad_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, _) = check_stdin(dir.path(), &["--format", "sarif", "-"], CAPS_WITH_LIST_CHANGED.as_bytes());
    assert_eq!(code, 1);
    let doc = validated_sarif(&stdout);
    let result = sarif_results(&doc).iter().find(|r| r["ruleId"] == "roots-list-changed").unwrap();
    assert_eq!(
        percent_decode(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap()),
        "<stdin>"
    );
    let (code, stdout, _) = check_stdin(dir.path(), &["-q", "-"], SERVER_WITH_ROOTS.as_bytes());
    assert_eq!(code, 1);
    assert!(stdout.contains("error[server-roots-request]") && stdout.contains("<stdin>:7:"), "{stdout}");

    let (code, _, stderr) = check_stdin(dir.path(), &["-"], b"fn list_roots() {}\xff\n");
    assert_eq!(code, 2);
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");
    let (code, _, stderr) = check_stdin(dir.path(), &["--stdin-filename", "a.rs", "src"], b"");
    assert_eq!(code, 2);
    assert!(stderr.contains("add `-`"), "{stderr}");
    // Standard input and paths together.
    write(dir.path(), "caps.json", CAPS_WITH_LIST_CHANGED);
    let (code, stdout, _) = check_stdin(
        dir.path(),
        &["--format", "json", "-", "caps.json", "--stdin-filename", "src/tools.rs"],
        SERVER_WITH_ROOTS.as_bytes(),
    );
    assert_eq!(code, 1);
    let paths: BTreeSet<String> = serde_json::from_str::<Vec<Value>>(&stdout)
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths, BTreeSet::from(["caps.json".to_owned(), "src/tools.rs".to_owned()]));
}

// ---------------------------------------------------------------- pre-commit (the GitHub Action: tests/action.rs)

fn yaml(path: &str) -> Value {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn pre_commit_hook() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_array().unwrap();
    let hook = hooks.iter().find(|h| h["id"] == "mcp-lint").unwrap();
    assert_eq!(hook["language"], "rust");
    assert_eq!(hook["entry"], "mcp-lint check");
    // Which files it gets: tests/precommit.rs, with the real pre-commit.
    assert_eq!(hook["types"], serde_json::json!(["file"]));
    // pre-commit runs the entry with the staged files as arguments.
    let entry: Vec<&str> = hook["entry"].as_str().unwrap().split_whitespace().collect();
    assert_eq!(entry[0], "mcp-lint");
    let run = |files: &[&str]| {
        mcp_lint()
            .current_dir(repo().join("fixtures/demo"))
            .args(&entry[1..])
            .args(files)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(run(&["src/main.rs", "client-capabilities.json"]), Some(1));
    assert_eq!(run(&["Cargo.toml"]), Some(0), "a file of another kind passes");
}

/// The roots codemod's crate-wide fix in SARIF: one artifact change per file, valid against the
/// schema (the other files' regions are given in bytes alone).
#[test]
fn sarif_of_a_crate_wide_fix_is_valid() {
    let (_, stdout, _) = check(&repo().join("fixtures/crates/word-finder"), &["--format", "sarif", "."]);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let roots = results.iter().find(|r| r["ruleId"] == "server-roots-request").unwrap();
    let changes = roots["fixes"][0]["artifactChanges"].as_array().unwrap();
    let uris: Vec<&str> = changes.iter().map(|c| c["artifactLocation"]["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["src/server.rs", "src/probe.rs"]);
}
