//! GitHub's SARIF ingestion rules, checked by the tool that implements them: Microsoft's SARIF
//! multitool (`validate --rule-kind "Gh;Ghas;Sarif"`, npm `@microsoft/sarif-multitool`), on the
//! logs of the fixtures and of files with a `parse-error`, an `unused-suppression` and an
//! unreadable path. Any error fails, and so does any warning or note that is not one of the
//! recommendations listed in `DECLINED`, each with why mcp-lint does not follow it.
//!
//! The multitool's bundled binary is run directly (not through the package's node wrapper). When it
//! is absent the test says so and passes, unless `MCP_LINT_REQUIRE_SARIF_MULTITOOL=1` (`.ci/run`
//! installs it and sets that). `MCP_LINT_SARIF_MULTITOOL` points at another copy of the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[path = "support/skip.rs"]
mod skip;

/// The version `.ci/run` installs; its rules are what this test was checked against.
const MULTITOOL_VERSION: &str = "5.7.0";

/// Recommendations the multitool makes that mcp-lint declines: (rule, level, why).
const DECLINED: &[(&str, &str, &str)] = &[
    ("SARIF2002", "note", "messages are text, not ids with arguments: each is written for its finding"),
    ("SARIF2003", "note", "no `versionControlProvenance`: GitHub's upload-sarif sends the commit and ref itself"),
    ("SARIF2006", "note", "a URI was not reachable: the machine is offline (the `$schema` is schemastore's)"),
    ("SARIF2009", "note", "rule ids are the rule names (`server-roots-request`), a contract, not `ML1001` codes"),
    ("SARIF2010", "note", "no snippets: GitHub shows the code of the analysed commit, and logs stay small"),
    ("SARIF2011", "note", "no context regions, for the same reasons as snippets"),
];

/// Declined while `Cargo.toml` names no repository: mcp-lint is not published, so no page exists
/// for `informationUri` or a rule's `helpUri`, and a made-up address would be a dead link.
const DECLINED_WITHOUT_REPOSITORY: &[(&str, &str, &str)] = &[
    ("SARIF2005", "warning", "no `informationUri`: no page about mcp-lint exists to point at"),
    ("SARIF2012", "note", "no `helpUri`: no public rule page exists; `help` carries the whole page"),
];

fn declined() -> Vec<(&'static str, &'static str, &'static str)> {
    let mut declined = DECLINED.to_vec();
    if env!("CARGO_PKG_REPOSITORY").is_empty() {
        declined.extend_from_slice(DECLINED_WITHOUT_REPOSITORY);
    }
    declined
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The multitool's binary, or None (with the reason printed) when it is not installed.
fn multitool() -> Option<PathBuf> {
    let path = std::env::var_os("MCP_LINT_SARIF_MULTITOOL").map(PathBuf::from).unwrap_or_else(|| {
        repo().join("target/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
    });
    if path.is_file() {
        return Some(path);
    }
    let reason = format!("no SARIF multitool at {} (`.ci/run` installs it with npm)", path.display());
    skip::missing_tool("MCP_LINT_REQUIRE_SARIF_MULTITOOL", &reason);
    None
}

/// Runs the multitool with these arguments; .NET's ICU lookup is turned off so a machine without
/// libicu runs it too (it validates ASCII JSON keys, nothing culture-dependent).
fn run_multitool(tool: &Path, args: &[&str]) -> std::process::Output {
    Command::new(tool)
        .args(args)
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", tool.display()))
}

/// `mcp-lint check --format sarif ARGS` in `dir`, written to `out`.
fn sarif_log(dir: &Path, args: &[&str], out: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-lint"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(["check", "--format", "sarif"])
        .args(args)
        .output()
        .unwrap();
    // 1: findings; 2: an unreadable path, which the log reports as a notification.
    assert!(matches!(output.status.code(), Some(1 | 2)), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::write(out, &output.stdout).unwrap();
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// A finding of the multitool: (its rule, level, the log it is about).
struct Verdict {
    rule: String,
    level: String,
    log: String,
}

fn verdicts(validation: &Value) -> Vec<Verdict> {
    let run = &validation["runs"][0];
    assert_eq!(run["invocations"][0]["executionSuccessful"], true, "the multitool failed: {run}");
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Verdict {
            rule: r["ruleId"].as_str().unwrap().to_owned(),
            // SARIF's default level is `warning`.
            level: r["level"].as_str().unwrap_or("warning").to_owned(),
            log: r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap_or("").to_owned(),
        })
        .collect()
}

#[test]
fn github_accepts_the_sarif_of_the_fixtures_parse_errors_and_suppressions() {
    let Some(tool) = multitool() else { return };
    let version = run_multitool(&tool, &["--version"]);
    // It prints its version on stderr.
    let version = String::from_utf8_lossy(&version.stderr).into_owned() + &String::from_utf8_lossy(&version.stdout);
    assert!(version.contains(MULTITOOL_VERSION), "expected SARIF multitool {MULTITOOL_VERSION}, found {version}");

    let work = tempfile::tempdir().unwrap();
    let fixtures_log = work.path().join("fixtures.sarif");
    sarif_log(repo(), &["fixtures"], &fixtures_log);

    // What the fixtures lack: files that do not parse (Rust and JSON, each with a rule's trigger
    // word so they are parsed), a suppression that suppresses nothing, and a path that is missing.
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "broken.rs", "use rmcp::RoleServer;\n\nfn list_roots( {\n");
    write(project.path(), "broken.json", "{\"capabilities\": {\"roots\": \n");
    write(project.path(), "stale.rs", "fn f() -> u64 {\n    // mcp-lint: allow(server-roots-request) gone\n    1\n}\n");
    let edge_log = work.path().join("edge-cases.sarif");
    sarif_log(project.path(), &[".", "missing"], &edge_log);
    let edge: Value = serde_json::from_slice(&std::fs::read(&edge_log).unwrap()).unwrap();
    let mut rules: Vec<&str> =
        edge["runs"][0]["results"].as_array().unwrap().iter().map(|r| r["ruleId"].as_str().unwrap()).collect();
    rules.sort();
    assert_eq!(rules, ["parse-error", "parse-error", "unused-suppression"], "{edge:#}");
    assert_eq!(edge["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["level"], "error");

    // The control: the same log without `parse-error`'s full description, which GitHub refuses. Without
    // it, a multitool that ran no GitHub rules would make this test pass.
    let mut broken = edge.clone();
    let rules = broken["runs"][0]["tool"]["driver"]["rules"].as_array_mut().unwrap();
    let parse_error = rules.iter_mut().find(|r| r["id"] == "parse-error").unwrap();
    parse_error.as_object_mut().unwrap().remove("fullDescription");
    let control_log = work.path().join("control.sarif");
    std::fs::write(&control_log, serde_json::to_vec(&broken).unwrap()).unwrap();

    let validation_log = work.path().join("validation.sarif");
    let logs = [&fixtures_log, &edge_log, &control_log].map(|p| p.to_str().unwrap().to_owned());
    let mut args = vec!["validate", "--rule-kind", "Gh;Ghas;Sarif", "--level", "Error;Warning;Note"];
    args.extend(["--log", "ForceOverwrite", "--output", validation_log.to_str().unwrap()]);
    args.extend(logs.iter().map(String::as_str));
    let output = run_multitool(&tool, &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let validation: Value = serde_json::from_slice(&std::fs::read(&validation_log).unwrap()).unwrap();
    let verdicts = verdicts(&validation);

    let control: Vec<&Verdict> = verdicts.iter().filter(|v| v.log.ends_with("/control.sarif")).collect();
    assert!(
        control.iter().any(|v| v.rule == "GH2012" && v.level == "error"),
        "the multitool did not refuse a rule without fullDescription; did it run GitHub's rules?\n{stdout}"
    );

    let ours: Vec<&Verdict> = verdicts.iter().filter(|v| !v.log.ends_with("/control.sarif")).collect();
    assert!(ours.iter().any(|v| v.log.ends_with("/fixtures.sarif")), "nothing about the fixtures' log:\n{stdout}");
    let errors: Vec<&str> = stdout.lines().filter(|l| !l.contains("control.sarif") && l.contains(": error ")).collect();
    assert!(errors.is_empty(), "GitHub's rules refuse mcp-lint's SARIF:\n{}", errors.join("\n"));
    let declined = declined();
    let unexpected: Vec<String> = ours
        .iter()
        .filter(|v| !declined.iter().any(|(rule, level, _)| *rule == v.rule && *level == v.level))
        .map(|v| format!("{} {}", v.level, v.rule))
        .collect();
    assert!(unexpected.is_empty(), "new findings {unexpected:?}: fix them, or list why not in DECLINED\n{stdout}");
    let counts: Vec<String> = declined
        .iter()
        .map(|(rule, level, _)| (rule, level, ours.iter().filter(|v| v.rule == *rule).count()))
        .filter(|(_, _, n)| *n > 0)
        .map(|(rule, level, n)| format!("{n} {level} {rule}"))
        .collect();
    println!("SARIF multitool {MULTITOOL_VERSION}: no errors; declined: {}", counts.join(", "));
}
