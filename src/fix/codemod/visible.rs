//! The roots codemod where findings are: a `server-roots-request` finding that
//! `fix --unsafe-fixes` rewrites carries that rewrite as its unsafe fix (`check --format json`
//! and `summary`, the language server's code action), and one it leaves carries the reason.
//!
//! The codemod rewrites a crate at once (a tool, its `Parameters<T>` struct in another file, the
//! roots capability, the imports left unused), never one lookup alone, so the fix of each finding
//! it rewrites is the crate's whole change, with the edits of every file it touches: applying one
//! applies them all, as `fix` does. The change is `fix`'s own plan; the language server also lays
//! out the files that were `rustfmt`-clean as `fix` does (`rustfmt::tidy`), while `check` shows
//! the codemod's text as it wrote it: two `rustfmt` processes per changed file would cost `check`
//! more than the codemod itself.
//!
//! Cost: the codemod runs only for crates with a `server-roots-request` finding on a
//! `list_roots()` call (the only spelling it rewrites), once per crate, with the texts the run
//! already read (so the ranges are those of the findings); other crates cost nothing. It parses
//! every Rust file of such a crate, as `fix` does: the trees of the run are gone by then (their
//! spans live in the worker threads that made them).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{CrateFile, CrateOutcome, NewParam, crate_files, lookup::Need, plan_crate_with};
use crate::config::RootsTo;
use crate::context::Sdk;
use crate::diagnostic::{Applicability, Diagnostic, Edit, FileEdits, Fix};
use crate::engine::RunResult;
use crate::source::FileKind;

const RULE: &str = "server-roots-request";

/// What `fix --unsafe-fixes` does to one crate, by finding.
#[derive(Debug, Default)]
pub struct CratePlan {
    /// Each file of the crate, by the index the codemod used: its key (`key`).
    keys: Vec<PathBuf>,
    /// The crate's change, per changed file, in file order.
    pub changes: Vec<FileEdits>,
    /// The fix's title: which tools get which parameter.
    pub title: String,
    /// Each `list_roots()` call looked at: file index, range, and the reason when it is left.
    calls: Vec<(usize, Range<usize>, Option<String>)>,
    /// Why nothing of the crate is rewritten, when the result would not parse.
    dropped: Option<String>,
}

/// What the plan says about one finding.
#[derive(Debug, PartialEq, Eq)]
pub enum Planned {
    /// Rewritten: the fix, and its edits in other files.
    Rewrite(Fix, Vec<FileEdits>),
    /// Left as it is, for this reason.
    Left(String),
}

/// A path as the plan knows it: canonical where it exists, so `./src/a.rs` and `src/a.rs` agree.
pub fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Plans the codemod for a crate's files (with the texts the caller has for them: the run's, or
/// an editor's open documents) as `fix --unsafe-fixes` would apply it; with `format`, files that
/// were `rustfmt`-clean are laid out again, as `fix` does. `roots_to`: the migration the
/// configuration forces, as for `fix`.
pub fn plan(files: &[CrateFile], manifest: &Path, format: bool, roots_to: Option<RootsTo>) -> CratePlan {
    let outcome = plan_crate_with(files, Some(manifest), roots_to);
    let texts = if format { formatted(files, &outcome) } else { outcome.texts.clone() };
    let mut plan = CratePlan {
        keys: files.iter().map(|f| key(&f.path)).collect(),
        title: title(&outcome.params),
        dropped: outcome.dropped.clone(),
        ..CratePlan::default()
    };
    for (i, text) in &texts {
        let f = &files[*i];
        let edits = text_edits(&f.text, text);
        if !edits.is_empty() {
            plan.changes.push(FileEdits { path: f.path.clone(), display: f.display.clone(), edits });
        }
    }
    for (file, range) in &outcome.calls {
        let why = outcome.refused.iter().find(|(f, r, _)| f == file && r == range).map(|(_, _, why)| why.clone());
        plan.calls.push((*file, range.clone(), why));
    }
    plan
}

/// The codemod's texts, each Rust file that was `rustfmt`-clean formatted again, in parallel.
pub fn formatted(files: &[CrateFile], outcome: &CrateOutcome) -> BTreeMap<usize, String> {
    outcome
        .texts
        .par_iter()
        .map(|(i, text)| {
            let f = &files[*i];
            let tidy = (FileKind::of(&f.path) == FileKind::Rust).then(|| super::rustfmt::tidy(&f.path, &f.text, text));
            (*i, tidy.flatten().unwrap_or_else(|| text.clone()))
        })
        .collect()
}

impl CratePlan {
    /// What `fix --unsafe-fixes` does with the finding at `range` of the file with key `file`;
    /// `None` when the codemod did not look at it (another spelling, another SDK's call).
    pub fn for_finding(&self, file: &Path, range: &Range<usize>) -> Option<Planned> {
        let (index, _, why) = self.calls.iter().find(|(f, r, _)| r == range && self.keys[*f] == file)?;
        if let Some(why) = &self.dropped {
            return Some(Planned::Left(format!("the roots codemod is not applied to this crate: {why}")));
        }
        if let Some(why) = why {
            return Some(Planned::Left(left(why)));
        }
        if self.changes.is_empty() {
            return None;
        }
        let own = &self.keys[*index];
        let (mine, others): (Vec<&FileEdits>, Vec<&FileEdits>) =
            self.changes.iter().partition(|c| key(&c.path) == *own);
        let fix = Fix {
            title: self.title.clone(),
            applicability: Applicability::Unsafe,
            edits: mine.into_iter().flat_map(|c| c.edits.iter().cloned()).collect(),
        };
        Some(Planned::Rewrite(fix, others.into_iter().cloned().collect()))
    }

    /// Gives a finding the plan's fix, or its reason as the finding's note.
    pub fn apply_to(&self, file: &Path, d: &mut Diagnostic) {
        match self.for_finding(file, &d.range) {
            Some(Planned::Rewrite(fix, elsewhere)) => {
                d.fix = Some(fix);
                d.fix_elsewhere = elsewhere;
            }
            Some(Planned::Left(why)) if d.fix.is_none() => d.note = Some(why),
            _ => {}
        }
    }
}

/// Whether the finding is one the codemod looks at: `server-roots-request` on a `list_roots()`
/// call (the codemod's only spelling).
pub fn wanted(d: &Diagnostic, text: &str) -> bool {
    d.rule == RULE && text.get(d.range.clone()).is_some_and(|t| t.starts_with("list_roots"))
}

/// `check`: gives the run's `server-roots-request` findings the codemod's fixes and reasons. Only
/// crates with such a finding are planned, each once, crates in parallel.
pub fn attach(result: &mut RunResult, opts: &crate::engine::Options) {
    let mut crates: BTreeMap<PathBuf, Vec<(usize, usize)>> = BTreeMap::new();
    for (ri, report) in result.reports.iter().enumerate() {
        let Some(manifest) = &report.crate_ctx.manifest else { continue };
        // The codemod rewrites rmcp servers only: a crate that does not depend on rmcp (another
        // SDK's server, or an SDK's own sources) is never planned, which would read all its files.
        if !report.crate_ctx.sdks.iter().any(|s| s.sdk == crate::context::Sdk::Rmcp) {
            continue;
        }
        for (di, d) in report.diagnostics.iter().enumerate() {
            if wanted(d, &report.file.text) {
                crates.entry(manifest.clone()).or_default().push((ri, di));
            }
        }
    }
    if crates.is_empty() {
        explain_unplanned(result, opts);
        return;
    }
    // The texts the run read, so the codemod sees what the findings' ranges are ranges of.
    let known: BTreeMap<PathBuf, &str> = result
        .reports
        .iter()
        .filter(|r| r.crate_ctx.manifest.as_ref().is_some_and(|m| crates.contains_key(m)))
        .map(|r| (key(&r.file.path), r.file.text.as_str()))
        .collect();
    let crates: Vec<(PathBuf, Vec<(usize, usize)>)> = crates.into_iter().collect();
    let max = opts.max_file_size;
    let plans: Vec<(CratePlan, Vec<(usize, usize)>)> = crate::engine::thread_pool(opts).install(|| {
        crates
            .into_par_iter()
            .with_max_len(1)
            .map(|(manifest, findings)| {
                let roots_to = opts.settings.roots_to_for(&manifest);
                (plan(&load(&manifest, &known, max), &manifest, false, roots_to), findings)
            })
            .collect()
    });
    for (plan, findings) in plans {
        for (ri, di) in findings {
            let report = &mut result.reports[ri];
            let file = key(&report.file.path);
            plan.apply_to(&file, &mut report.diagnostics[di]);
        }
    }
    explain_unplanned(result, opts);
}

/// A `server-roots-request` finding no crate plan answered (another SDK's request, one built by
/// hand, in a macro body or a test, or an rmcp call in a file of no crate or of a crate without an
/// rmcp dependency) says why, as `fix` does: an rmcp call's file is planned alone for it.
fn explain_unplanned(result: &mut RunResult, opts: &crate::engine::Options) {
    let unexplained = |d: &Diagnostic| d.rule == RULE && d.fix.is_none() && d.note.is_none();
    for report in &mut result.reports {
        if !report.diagnostics.iter().any(unexplained) {
            continue;
        }
        // An SDK's own sources: said without reading the file again (they are large).
        let sdk = report.crate_ctx.name.as_deref().filter(|n| Sdk::from_crate_name(n).is_some_and(|s| s != Sdk::Other));
        let file = CrateFile {
            path: report.file.path.clone(),
            display: report.file.display.clone(),
            text: report.file.text.clone(),
        };
        let wants_plan = sdk.is_none() && report.diagnostics.iter().any(|d| unexplained(d) && wanted(d, &file.text));
        let alone = wants_plan.then(|| super::why::plan_alone(&file, &opts.settings));
        // Parsed once for all its findings (a file can have dozens).
        let parsed = sdk.is_none().then(|| super::why::parse_for_reasons(&file)).flatten();
        for d in report.diagnostics.iter_mut().filter(|d| unexplained(d)) {
            let refused = alone.as_ref().and_then(|o| o.refused.iter().find(|(_, r, _)| *r == d.range));
            let rewritten = alone.as_ref().is_some_and(|o| !o.applied.is_empty());
            let why = match (sdk, refused, &report.crate_ctx.manifest) {
                (Some(name), _, _) => format!(
                    "this is the source of the MCP SDK `{name}` itself, which the roots codemod does not rewrite (it \
                     rewrites servers built on rmcp)"
                ),
                (None, Some((_, _, why)), _) => why.clone(),
                (None, None, None) if rewritten => format!("it {}", super::why::IN_NO_CRATE),
                (None, None, Some(_)) if rewritten => {
                    "`check` plans it for crates that depend on rmcp, and this file's crate does not".into()
                }
                _ => super::why::unseen_parsed(&file, parsed.as_ref(), &d.range, &report.crate_ctx),
            };
            d.note = Some(left(&why));
        }
        drop(parsed);
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}

/// A finding's note for a reason the codemod leaves it.
fn left(why: &str) -> String {
    format!("the roots codemod leaves it: {why}")
}

/// A crate's files, with the texts in `known` where there is one, else read from disk.
pub fn load(manifest: &Path, known: &BTreeMap<PathBuf, &str>, max: u64) -> Vec<CrateFile> {
    crate_files(manifest)
        .into_iter()
        .filter_map(|path| {
            let display = crate::discover::display_path(&path);
            let text = match known.get(&key(&path)) {
                Some(text) => (*text).to_owned(),
                None => crate::engine::read_text(&path, &display, max).ok()?,
            };
            Some(CrateFile { path, display, text })
        })
        .collect()
}

/// The fix's title: what the rewritten tools take now.
fn title(params: &[NewParam]) -> String {
    let each: Vec<String> = params
        .iter()
        .map(|p| {
            let kind = match p.need {
                Need::First => "a required string",
                Need::FirstOptional => "an optional string",
                Need::All => "a required array of strings",
            };
            format!("tool `{}` gets `{}`, {kind}", p.tool, p.name)
        })
        .collect();
    if each.is_empty() {
        return "take the directory as a parameter".into();
    }
    let schemas = if params.len() == 1 { "its input schema changes" } else { "their input schemas change" };
    format!("take the directory as a parameter ({}; {schemas})", each.join("; "))
}

/// The edits that turn `old` into `new`: one per run of changed lines, trimmed to the bytes that
/// differ, so an edit covers what changed and little else.
pub fn text_edits(old: &str, new: &str) -> Vec<Edit> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let offset = |lines: &[&str], i: usize| lines[..i].iter().map(|l| l.len()).sum::<usize>();
    let mut edits = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines) {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        let (start, new_start) = (offset(&old_lines, o.start), offset(&new_lines, n.start));
        let (was, now) = (&old[start..offset(&old_lines, o.end)], &new[new_start..offset(&new_lines, n.end)]);
        let mut prefix = was.bytes().zip(now.bytes()).take_while(|(a, b)| a == b).count();
        while !was.is_char_boundary(prefix) || !now.is_char_boundary(prefix) {
            prefix -= 1;
        }
        let (was_rest, now_rest) = (&was[prefix..], &now[prefix..]);
        let mut suffix = was_rest.bytes().rev().zip(now_rest.bytes().rev()).take_while(|(a, b)| a == b).count();
        while !was_rest.is_char_boundary(was_rest.len() - suffix) || !now_rest.is_char_boundary(now_rest.len() - suffix)
        {
            suffix -= 1;
        }
        let range = start + prefix..start + was.len() - suffix;
        edits.push(Edit::replace(range, &now_rest[..now_rest.len() - suffix]));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_edits_cover_what_changed() {
        for (old, new) in [
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb", "a\nB"),
            ("é🦀\nx\n", "é🦁\nx\n"),
            ("x", ""),
            ("", "y\n"),
            ("1\n2\n3\n4\n5\n", "1\n2!\n3\n4\n5!\n"),
            ("fn f(ctx: C) {}\n", "fn f(p: P) {}\n"),
            ("aa\n", "aaa\n"),
        ] {
            let edits = text_edits(old, new);
            assert_eq!(crate::fix::apply_edits(old, &edits, "\n"), new, "{old:?} → {new:?}");
        }
        assert_eq!(text_edits("fn f(ctx: C) {}\n", "fn f(p: P) {}\n"), vec![Edit::replace(5..11, "p: P")]);
        assert!(text_edits("same\n", "same\n").is_empty());
    }
}
