//! What each tool does, without the protocol: arguments in, a structured answer and its short
//! text out, or an error message for the client. Every tool runs the engine as the CLI does
//! (`Options::selected`, `engine::check_paths`, `fix::fix_paths`), returns the CLI's records
//! (`report::json` findings, `fix::outcome`, `report::summary`), and touches only paths that
//! `Folders` let through.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::confine::Folders;
use crate::diagnostic::{Note, Severity};
use crate::engine::{self, Options, RunResult};
use crate::fix::outcome::{self, FixSummary};
use crate::fix::{FileFix, Mode};
use crate::report::json::Finding;
use crate::rules::{self, RuleMeta};
use crate::words::count;

/// Findings returned when a call does not say (`max_findings`); the rest are counted.
pub const DEFAULT_MAX_FINDINGS: usize = 200;
/// The most a call may ask for.
pub const MOST_FINDINGS: usize = 5000;
/// Diffs and reports longer than this are cut at a line, with a note.
pub const MAX_TEXT_BYTES: usize = 200_000;

/// A tool's answer: `structuredContent` and the short text beside it.
pub struct Reply {
    pub structured: Value,
    pub text: String,
}

/// The scheme of the rule pages as resources.
pub const RULE_URI_PREFIX: &str = "mcp-lint://rules/";

pub fn rule_uri(name: &str) -> String {
    format!("{RULE_URI_PREFIX}{name}")
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// The rule selection and configuration, as `check` and `fix` take them on the command line.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// Only these rules (names as `rules` lists them), as `--select`.
    #[serde(default)]
    pub select: Vec<String>,
    /// Not these rules, as `--ignore`.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// A configuration file for every file instead of the `mcp-lint.toml`, `.mcp-lint.toml` or
    /// `Cargo.toml` metadata found upward from each file, as `--config`.
    #[serde(default)]
    pub config: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckArgs {
    /// Files and folders to check: relative to the server's first allowed folder, or absolute inside
    /// an allowed folder. Folders are walked honouring .gitignore (never target/ or .git/). Default:
    /// every allowed folder (the server's working directory unless it was started with --allow),
    /// unless `text` is given.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
    /// Check this text instead of a file on disk (an unsaved buffer, a snippet). Needs `file_name`.
    #[serde(default)]
    pub text: Option<String>,
    /// The path `text` stands for (it need not exist): its extension decides Rust or JSON
    /// (`.rs`, `.json`, `.jsonc`, `.jsonl`), its folder the crate and its `Cargo.toml`.
    #[serde(default)]
    pub file_name: Option<String>,
    #[serde(flatten)]
    pub selection: Selection,
    /// At most this many findings are returned (default 200, at most 5000); the rest are counted.
    #[serde(default)]
    pub max_findings: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainArgs {
    /// A rule name, as `rules` lists them (e.g. `server-roots-request`).
    pub rule: String,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesArgs {}

/// The roots codemod's migration, as `fix --roots-to`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RootsTo {
    /// A documented tool parameter (refused for allow-lists).
    Param,
    /// Keep the server's configured list; drop the client's refresh.
    Config,
    /// The 2026-07-28 round trip: the tool asks for roots with an `input_required` result (rmcp >= 3.1.1).
    Mrtr,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixArgs {
    /// Files and folders to fix, as `check` takes them. Default: every allowed folder.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
    /// Also apply unsafe fixes, as `--unsafe-fixes`: they change behaviour or a public contract (the
    /// roots codemod moves tools off roots onto an explicit directory parameter). Review them.
    #[serde(default, rename = "unsafe")]
    pub unsafe_fixes: bool,
    /// Write the files. Without it (the default) nothing is written: the answer is the diff.
    #[serde(default)]
    pub write: bool,
    /// With `write`: also write files that have uncommitted changes in their git work tree, as `--allow-dirty`.
    #[serde(default)]
    pub allow_dirty: bool,
    /// With `write`: also write files outside any git work tree, as `--allow-no-vcs`.
    #[serde(default)]
    pub allow_no_vcs: bool,
    /// The roots codemod's migration for every roots use, as `--roots-to` (default: what the crate
    /// model finds each use does).
    #[serde(default)]
    pub roots_to: Option<RootsTo>,
    #[serde(flatten)]
    pub selection: Selection,
    /// At most this many findings left unfixed are listed (default 200, at most 5000).
    #[serde(default)]
    pub max_findings: Option<usize>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummaryArgs {
    /// Files and folders to audit, as `check` takes them. Default: every allowed folder.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
    #[serde(flatten)]
    pub selection: Selection,
}

// ---------------------------------------------------------------------------------------------
// Answers

/// A note about a path: a skipped file, an unreadable one, a fix that was dropped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PathNote {
    pub path: String,
    pub message: String,
}

impl From<&Note> for PathNote {
    fn from(n: &Note) -> PathNote {
        PathNote { path: n.path.clone(), message: n.message.clone() }
    }
}

/// What was left out of a long answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Truncated {
    /// How many were returned (findings, entries or bytes, as `unit` says).
    pub shown: usize,
    pub total: usize,
    pub unit: &'static str,
    pub note: String,
}

#[derive(Serialize, JsonSchema)]
pub struct CheckOutput<'a> {
    /// The findings, each as `mcp-lint check --format json` writes it: `rule`, `severity`, `path`,
    /// `range` (1-based lines and columns), `message`, `help`, `era` (the protocol era assumed for
    /// the crate, and why), and `fix` (null when no automatic fix exists; else its applicability,
    /// `safe` or `unsafe`, and edits).
    pub findings: Vec<Finding<'a>>,
    /// Findings in all, before any cut.
    pub total: usize,
    pub errors: usize,
    pub warnings: usize,
    pub files_scanned: usize,
    /// Files skipped, and why.
    pub notes: Vec<PathNote>,
    /// Named paths that could not be read.
    pub unreadable: Vec<PathNote>,
    /// Set when findings were left out (see `max_findings`).
    pub truncated: Option<Truncated>,
}

#[derive(Serialize, JsonSchema)]
pub struct RuleRecord {
    pub name: &'static str,
    pub summary: &'static str,
    /// Whether some of its findings carry an automatic fix.
    pub fixable: bool,
    /// For deprecations: the earliest date the feature may be removed from the protocol.
    pub earliest_removal: Option<&'static str>,
    /// The rule's page as a resource (`resources/read`).
    pub resource: String,
}

impl RuleRecord {
    fn of(meta: &'static RuleMeta) -> RuleRecord {
        RuleRecord {
            name: meta.name,
            summary: meta.summary,
            fixable: meta.fixable,
            earliest_removal: meta.impact.earliest_removal(),
            resource: rule_uri(meta.name),
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct RulesOutput {
    pub rules: Vec<RuleRecord>,
}

#[derive(Serialize, JsonSchema)]
pub struct ExplainOutput {
    #[serde(flatten)]
    pub rule: RuleRecord,
    /// The rule's page (Markdown): what it finds, why, a failing and a migrated example, the fix.
    pub page: &'static str,
}

#[derive(Serialize, JsonSchema)]
pub struct FixedCount {
    pub rule: &'static str,
    pub count: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct LeftRecord {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub rule: &'static str,
    /// Why it was left: no automatic fix, an unsafe fix not asked for, the roots codemod's reason.
    pub why: String,
}

#[derive(Serialize, JsonSchema)]
pub struct FixOutput {
    /// Whether files were written (`write: true`, and the guard let it).
    pub wrote: bool,
    /// The unified diff of every change (`a/` and `b/` prefixed, as `git diff` writes it).
    pub diff: String,
    pub files_changed: usize,
    /// Findings fixed (or that would be) per rule.
    pub fixed: Vec<FixedCount>,
    /// The titles of the unsafe fixes applied (the roots codemod's names the tools and parameters).
    pub unsafe_fixes: Vec<String>,
    /// Findings left after fixing, with why.
    pub left: Vec<LeftRecord>,
    /// Files whose fixes were dropped (the result did not parse, or the file has a syntax error).
    pub dropped: Vec<PathNote>,
    /// Files that could not be written.
    pub write_errors: Vec<PathNote>,
    /// Notes of the run, the roots codemod's among them.
    pub notes: Vec<PathNote>,
    pub unreadable: Vec<PathNote>,
    /// Set when the diff or the list of findings left was cut.
    pub truncated: Vec<Truncated>,
}

#[derive(Serialize, JsonSchema)]
pub struct SummaryOutput {
    /// The Markdown audit (`mcp-lint check --format summary`).
    pub markdown: String,
    pub findings: usize,
    pub errors: usize,
    pub warnings: usize,
    pub truncated: Option<Truncated>,
}

// ---------------------------------------------------------------------------------------------
// The tools

pub fn rules_list(_: RulesArgs) -> Result<Reply, String> {
    let rules: Vec<RuleRecord> = rules::all_meta().map(RuleRecord::of).collect();
    let width = rules.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let text = rules.iter().map(|r| format!("{:<width$}  {}\n", r.name, r.summary)).collect();
    Ok(Reply { structured: to_value(&RulesOutput { rules })?, text })
}

pub fn explain(args: ExplainArgs) -> Result<Reply, String> {
    let meta = find_rule(&args.rule)?;
    let out = ExplainOutput { rule: RuleRecord::of(meta), page: meta.doc };
    Ok(Reply { structured: to_value(&out)?, text: meta.doc.to_owned() })
}

/// A rule by name, or an error that says where the names are.
pub fn find_rule(name: &str) -> Result<&'static RuleMeta, String> {
    rules::all_meta()
        .find(|m| m.name == name)
        .ok_or_else(|| format!("unknown rule `{name}`; the `rules` tool lists them"))
}

pub fn check(folders: &Folders, args: CheckArgs) -> Result<Reply, String> {
    let limit = findings_limit(args.max_findings);
    let default_all = args.text.is_none();
    let result = run_check(
        folders,
        args.paths.as_deref(),
        default_all,
        inline(folders, args.text, args.file_name)?,
        &args.selection,
    )?;
    let all = crate::report::json::findings(&result);
    let total = all.len();
    let (errors, warnings) = severities(&result);
    let truncated = (total > limit).then(|| Truncated {
        shown: limit,
        total,
        unit: "findings",
        note: format!(
            "{} more not shown; ask for more with `max_findings`, or narrow `paths` or `select`",
            count(total - limit, "finding")
        ),
    });
    let mut text = format!(
        "{}: {}, {}, in {} scanned\n",
        count(total, "finding"),
        count(errors, "error"),
        count(warnings, "warning"),
        count(result.files_scanned, "file")
    );
    for (shown, (report, d)) in result.diagnostics().enumerate() {
        if shown == 20 {
            text.push_str(&format!("… and {} more (all in structuredContent, up to max_findings)\n", total - 20));
            break;
        }
        let (start, _) = crate::report::line_cols(&report.file, &d.range);
        let fix = d.fix.as_ref().map_or(String::new(), |f| format!(" [fix: {}]", f.applicability.as_str()));
        text.push_str(&format!(
            "{}:{}:{}: {} {}: {}{fix}\n",
            report.file.display,
            start.line,
            start.column,
            d.severity.as_str(),
            d.rule,
            d.message
        ));
    }
    for note in &result.unreadable {
        text.push_str(&format!("cannot read {}: {}\n", note.path, note.message));
    }
    let out = CheckOutput {
        findings: all.into_iter().take(limit).collect(),
        total,
        errors,
        warnings,
        files_scanned: result.files_scanned,
        notes: result.notes.iter().map(PathNote::from).collect(),
        unreadable: result.unreadable.iter().map(PathNote::from).collect(),
        truncated,
    };
    Ok(Reply { structured: to_value(&out)?, text })
}

pub fn summary(folders: &Folders, args: SummaryArgs) -> Result<Reply, String> {
    let result = run_check(folders, args.paths.as_deref(), true, None, &args.selection)?;
    let mut bytes = Vec::new();
    crate::report::summary::write(&mut bytes, &result).map_err(|e| format!("cannot write the summary: {e}"))?;
    let markdown = String::from_utf8_lossy(&bytes).into_owned();
    let (markdown, truncated) = cut_text(markdown, "report");
    let (errors, warnings) = severities(&result);
    let out = SummaryOutput { findings: errors + warnings, errors, warnings, truncated, markdown };
    Ok(Reply { text: out.markdown.clone(), structured: to_value(&out)? })
}

pub fn fix(folders: &Folders, args: FixArgs) -> Result<Reply, String> {
    let limit = findings_limit(args.max_findings);
    let paths = named_paths(folders, args.paths.as_deref(), true)?;
    let roots_to = args.roots_to.map(|r| match r {
        RootsTo::Param => crate::config::RootsTo::Param,
        RootsTo::Config => crate::config::RootsTo::Config,
        RootsTo::Mrtr => crate::config::RootsTo::Mrtr,
    });
    let opts = options(folders, &args.selection, roots_to)?;
    let mode = if args.unsafe_fixes { Mode::Unsafe } else { Mode::Safe };
    let run = crate::fix::fix_paths(&paths, &opts, mode);
    if !run.config_errors.is_empty() {
        return Err(run.config_errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"));
    }
    let changed: Vec<&FileFix> = run.files.iter().filter(|f| f.changed()).collect();
    // A fix can reach past the named paths (the roots codemod edits the whole crate): never
    // beyond the folders, not even in a preview, which would show those files' text.
    let outside: Vec<&str> = changed
        .iter()
        .filter(|f| !std::fs::canonicalize(&f.path).is_ok_and(|p| folders.contains(&p)))
        .map(|f| f.display.as_str())
        .collect();
    if !outside.is_empty() {
        return Err(format!(
            "the fixes would change files outside the folders this server may write ({}): {}; nothing was written (start the server with --allow naming the crate's folder)",
            folders.describe(),
            outside.join(", ")
        ));
    }
    let summary = FixSummary::of(&run.files);
    let mut wrote = false;
    let mut write_errors = Vec::new();
    if args.write && !changed.is_empty() {
        match outcome::write_changed(&changed, args.allow_dirty, args.allow_no_vcs) {
            Ok(written) => {
                wrote = true;
                for (path, result) in written {
                    if let Err(e) = result {
                        write_errors.push(PathNote { path, message: e.to_string() });
                    }
                }
            }
            Err(refused) => {
                let messages = refused.messages().into_iter().map(|m| {
                    m.replace("pass --allow-dirty", "pass `allow_dirty: true`")
                        .replace("pass --allow-no-vcs", "pass `allow_no_vcs: true`")
                });
                return Err(messages.chain(["nothing was written".to_owned()]).collect::<Vec<_>>().join("\n"));
            }
        }
    }
    let mut truncated = Vec::new();
    let (diff, cut) = cut_text(outcome::unified_diff(&changed), "diff");
    truncated.extend(cut);
    let left_total = summary.left.len();
    if left_total > limit {
        truncated.push(Truncated {
            shown: limit,
            total: left_total,
            unit: "findings left",
            note: format!(
                "{} more left not listed; ask for more with `max_findings`",
                count(left_total - limit, "finding")
            ),
        });
    }
    let verb = match (wrote, args.write) {
        (true, _) => "fixed",
        (false, true) => "nothing to write; would fix",
        (false, false) => "would fix (preview; pass `write: true` to write)",
    };
    let mut text =
        format!("{verb} {} in {}\n", count(summary.total_fixed(), "finding"), count(summary.files_changed, "file"));
    for (rule, n) in &summary.fixed {
        text.push_str(&format!("  {rule}: {n}\n"));
    }
    for title in &summary.unsafe_titles {
        text.push_str(&format!("  unsafe fix applied: {title} (changes behaviour or a public contract; review it)\n"));
    }
    text.push_str(&format!("{} left", count(left_total, "finding")));
    text.push_str(if changed.is_empty() { "\n" } else { "; the diff is in structuredContent.diff\n" });
    for e in &write_errors {
        text.push_str(&format!("error: {}: {}\n", e.path, e.message));
    }
    let out = FixOutput {
        wrote,
        diff,
        files_changed: summary.files_changed,
        fixed: summary.fixed.iter().map(|(rule, count)| FixedCount { rule, count: *count }).collect(),
        unsafe_fixes: summary.unsafe_titles.clone(),
        left: summary
            .left
            .into_iter()
            .take(limit)
            .map(|l| LeftRecord {
                path: l.path,
                line: l.line,
                column: l.column,
                rule: l.rule,
                why: l.why.replace("pass --unsafe-fixes", "pass `unsafe: true`"),
            })
            .collect(),
        dropped: run
            .files
            .iter()
            .filter_map(|f| f.dropped.as_ref().map(|why| PathNote { path: f.display.clone(), message: why.clone() }))
            .collect(),
        write_errors,
        notes: run.notes.iter().map(PathNote::from).collect(),
        unreadable: run.unreadable.iter().map(PathNote::from).collect(),
        truncated,
    };
    Ok(Reply { structured: to_value(&out)?, text })
}

// ---------------------------------------------------------------------------------------------
// Shared steps

/// The run of `check` and `summary`: the named paths (or every folder), and an inline text.
fn run_check(
    folders: &Folders,
    paths: Option<&[String]>,
    default_all: bool,
    inline: Option<(std::path::PathBuf, String)>,
    selection: &Selection,
) -> Result<RunResult, String> {
    let opts = options(folders, selection, None)?;
    let paths = named_paths(folders, paths, default_all)?;
    let mut result = if paths.is_empty() { RunResult::default() } else { engine::check_paths(&paths, &opts) };
    if let Some((path, text)) = inline {
        let shown = crate::discover::display_path(&path);
        result.merge(engine::check_source(&path, &shown, text, &opts));
    }
    if !result.config_errors.is_empty() {
        return Err(result.config_errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"));
    }
    crate::fix::codemod::visible::attach(&mut result, &opts);
    Ok(result)
}

/// The paths a call names, each confined; every folder when it names none and `default_all`.
fn named_paths(
    folders: &Folders,
    paths: Option<&[String]>,
    default_all: bool,
) -> Result<Vec<std::path::PathBuf>, String> {
    match paths {
        Some(paths) if !paths.is_empty() => paths.iter().map(|p| folders.existing(p)).collect(),
        _ if default_all => Ok(folders.dirs().to_vec()),
        _ => Ok(Vec::new()),
    }
}

/// The inline text and the path it stands for, confined (the path need not exist).
fn inline(
    folders: &Folders,
    text: Option<String>,
    file_name: Option<String>,
) -> Result<Option<(std::path::PathBuf, String)>, String> {
    match (text, file_name) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err("`file_name` names what `text` stands for; pass `text` too".into()),
        (Some(_), None) => {
            Err("`text` needs `file_name`: its extension decides Rust or JSON, its folder the crate".into())
        }
        (Some(text), Some(name)) => {
            let path = folders.confine(&name)?.path;
            if !crate::source::FileKind::is_scanned(&path) {
                return Err(format!("`{name}`: not a Rust or JSON file name (.rs, .json, .jsonc, .jsonl, .ndjson)"));
            }
            Ok(Some((path, text)))
        }
    }
}

/// The engine's options for a call: its rule selection, and its configuration file confined.
fn options(
    folders: &Folders,
    selection: &Selection,
    roots_to: Option<crate::config::RootsTo>,
) -> Result<Options, String> {
    let config = selection.config.as_deref().map(|c| folders.existing(c)).transpose()?;
    Options::selected(&selection.select, &selection.ignore, config.as_deref(), roots_to)
}

fn findings_limit(asked: Option<usize>) -> usize {
    asked.unwrap_or(DEFAULT_MAX_FINDINGS).min(MOST_FINDINGS)
}

fn severities(result: &RunResult) -> (usize, usize) {
    let errors = result.diagnostics().filter(|(_, d)| d.severity == Severity::Error).count();
    (errors, result.diagnostics().count() - errors)
}

/// A text cut at a line before `MAX_TEXT_BYTES`, with a note that says how much is left out.
fn cut_text(text: String, what: &str) -> (String, Option<Truncated>) {
    if text.len() <= MAX_TEXT_BYTES {
        return (text, None);
    }
    let mut end = MAX_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(end, |n| n + 1);
    let (total, lines_left) = (text.len(), text[end..].lines().count());
    let note = format!(
        "{} ({}) of the {what} not shown; narrow `paths` or `select`, or run mcp-lint in a shell for all of it",
        count(lines_left, "more line"),
        count(total - end, "byte")
    );
    let mut shown = text[..end].to_owned();
    shown.push_str(&format!("… cut here: {note}\n"));
    (shown, Some(Truncated { shown: end, total, unit: "bytes", note }))
}

fn to_value(value: &impl Serialize) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| format!("cannot encode the answer: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_at_a_line_with_a_count() {
        let text: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
        let (shown, cut) = cut_text(text.clone(), "diff");
        let cut = cut.unwrap();
        assert!(shown.len() < text.len() && shown.ends_with(&format!("… cut here: {}\n", cut.note)));
        assert_eq!(cut.total, text.len());
        assert!(text[..cut.shown].ends_with('\n'));
        assert!(cut.note.starts_with(&count(text[cut.shown..].lines().count(), "more line")));
        assert_eq!(cut_text("short\n".into(), "diff").0, "short\n");
    }

    #[test]
    fn unknown_rules_and_half_inline_input_are_errors() {
        let folders = Folders::new(&[]).unwrap();
        assert!(explain(ExplainArgs { rule: "no-such-rule".into() }).err().unwrap().contains("`rules` tool"));
        let args = CheckArgs { text: Some("fn main() {}".into()), ..CheckArgs::default() };
        assert!(check(&folders, args).err().unwrap().contains("needs `file_name`"));
        let args = CheckArgs {
            selection: Selection { select: vec!["nope".into()], ..Selection::default() },
            ..CheckArgs::default()
        };
        assert!(check(&folders, args).err().unwrap().contains("unknown rule `nope`"));
    }
}
