//! `mcp-lint fix`: apply the rules' fixes without ever leaving a file broken or half-written.
//!
//! Per file: check, take the applicable fixes whose edits do not overlap, apply them, check again,
//! and repeat (bounded) until nothing more applies. The result must parse, or the file's whole
//! change is dropped and reported. Writes are atomic (`write`), and refused for files with
//! uncommitted changes unless told otherwise (`vcs`).

pub mod cli;
pub mod codemod;
pub mod outcome;
pub mod vcs;
pub mod write;

use std::ops::Range;
use std::path::PathBuf;

use crate::config::FileSettings;
use crate::context::{CrateContext, Role};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::check_file_with;
use crate::json::parse::parse_json_file;
use crate::rules::Rule;
use crate::rust::parse::parse_rust;
use crate::source::{FileKind, SourceFile};

/// How many check-and-apply rounds one file gets; fixes that keep producing new fixes stop here.
pub const MAX_PASSES: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Safe fixes only (the default).
    Safe,
    /// Safe and unsafe fixes (`--unsafe-fixes`).
    Unsafe,
}

impl Mode {
    fn applies(self, fix: &Fix) -> bool {
        match fix.applicability {
            Applicability::Safe => true,
            Applicability::Unsafe => self == Mode::Unsafe,
            Applicability::DisplayOnly => false,
        }
    }
}

/// What fixing one file produced, before anything is written.
#[derive(Debug)]
pub struct FileFix {
    pub path: PathBuf,
    pub display: String,
    pub original: String,
    pub fixed: String,
    /// The fixes applied: rule, title, applicability.
    pub applied: Vec<(&'static str, String, Applicability)>,
    /// Findings left after fixing, with why each was left.
    pub remaining: Vec<(Diagnostic, String)>,
    /// Set when the change was dropped because the result did not parse, or not made because the
    /// file has a syntax error.
    pub dropped: Option<String>,
}

impl FileFix {
    pub fn changed(&self) -> bool {
        self.dropped.is_none() && self.fixed != self.original
    }
}

/// Fixes one file's text in memory.
pub fn fix_text(
    path: PathBuf,
    display: String,
    original: String,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: Role,
    mode: Mode,
) -> FileFix {
    fix_text_with(path, display, original, crate_ctx, rules, role, mode, &FileSettings::only(rules))
}

/// `fix_text` with the file's settings: configuration and suppression comments decide what is a
/// finding, so a suppressed finding is never fixed and an unused suppression is removed.
#[allow(clippy::too_many_arguments)]
pub fn fix_text_with(
    path: PathBuf,
    display: String,
    original: String,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: Role,
    mode: Mode,
    settings: &FileSettings,
) -> FileFix {
    fix_and_lay_out(path, display, original, crate_ctx, rules, role, mode, settings, &|_| None)
}

/// `fix_text_with`, then `lay_out` on the text to be written (`None`: keep it as it is), before
/// the findings left are looked for: their positions and reasons are read in the written text.
#[allow(clippy::too_many_arguments)]
pub fn fix_and_lay_out(
    path: PathBuf,
    display: String,
    original: String,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: Role,
    mode: Mode,
    settings: &FileSettings,
    lay_out: &dyn Fn(&str) -> Option<String>,
) -> FileFix {
    let kind = FileKind::of(&path);
    let line_ending = if original.contains("\r\n") { "\r\n" } else { "\n" };
    let mut text = original.clone();
    let mut applied = Vec::new();
    let check = |text: &str| {
        check_file_with(
            &SourceFile::new(path.clone(), display.clone(), text.to_owned()),
            crate_ctx,
            rules,
            role,
            settings,
        )
    };
    let (mut dropped, mut syntax_error) = (None, false);
    for _ in 0..MAX_PASSES {
        let last = check(&text);
        // A file with a syntax error is still checked item by item, but not fixed: the result
        // could not be shown to parse, so `fix` never writes a file that parses worse.
        if let Some(error) = last.iter().find(|d| d.rule == crate::rules::PARSE_ERROR.name)
            && last.iter().any(|d| d.fix.as_ref().is_some_and(|f| mode.applies(f)))
        {
            let line = text[..error.range.start].matches('\n').count() + 1;
            syntax_error = true;
            dropped = Some(format!("it does not parse (line {line}: {}); fix the syntax error first", error.message));
            break;
        }
        let mut taken: Vec<Range<usize>> = Vec::new();
        let mut edits: Vec<Edit> = Vec::new();
        for d in &last {
            let Some(fix) = d.fix.as_ref().filter(|f| mode.applies(f)) else { continue };
            if fix.edits.iter().any(|e| taken.iter().any(|t| overlaps(t, &e.byte_range))) {
                continue; // the next pass gets it
            }
            taken.extend(fix.edits.iter().map(|e| e.byte_range.clone()));
            edits.extend(fix.edits.iter().cloned());
            applied.push((d.rule, fix.title.clone(), fix.applicability));
        }
        if edits.is_empty() {
            break;
        }
        let next = apply_edits(&text, &edits, line_ending);
        if next == text {
            break;
        }
        text = next;
    }
    if text != original
        && let Err(why) = still_parses(kind, &text)
    {
        dropped = Some(why);
        text = original.clone();
        applied.clear();
    }
    if let Some(laid_out) = lay_out(&text) {
        text = laid_out;
    }
    let remaining = check(&text)
        .into_iter()
        .map(|d| {
            let why = match &d.fix {
                // The rule's own reason, when it gave one ("no fix in test code: …").
                None if d.note.is_some() => d.note.as_deref().unwrap_or_default(),
                None => "no automatic fix; needs a person",
                Some(f) if f.applicability == Applicability::Unsafe && mode == Mode::Safe => {
                    "unsafe fix: pass --unsafe-fixes to apply it"
                }
                Some(f) if f.applicability == Applicability::DisplayOnly => "suggestion only; needs a person",
                Some(_) if syntax_error => "not fixed: the file has a syntax error",
                Some(_) if dropped.is_some() => "its fix was dropped: the result did not parse",
                Some(_) => "its fix did not converge within the pass limit",
            }
            .to_owned();
            (d, why)
        })
        .collect();
    FileFix { path, display, original, fixed: text, applied, remaining, dropped }
}

/// Two ranges overlap, or touch at an insertion point (two inserts at one offset would be ambiguous).
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end || (a.is_empty() || b.is_empty()) && a.start.max(b.start) <= a.end.min(b.end)
}

/// Applies non-overlapping edits to `text`; inserted line breaks follow the file's line endings.
pub fn apply_edits(text: &str, edits: &[Edit], line_ending: &str) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.byte_range.start, e.byte_range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in sorted {
        if e.byte_range.start < at || e.byte_range.end > text.len() {
            continue;
        }
        out.push_str(&text[at..e.byte_range.start]);
        if line_ending == "\r\n" {
            out.push_str(&e.replacement.replace("\r\n", "\n").replace('\n', "\r\n"));
        } else {
            out.push_str(&e.replacement);
        }
        at = e.byte_range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The fixed text must parse as what it is, or nothing of it is written.
fn still_parses(kind: FileKind, text: &str) -> Result<(), String> {
    match kind {
        FileKind::Rust => {
            let result =
                parse_rust(text).map(|_| ()).map_err(|e| format!("the fixed file does not parse: {}", e.message));
            proc_macro2::extra::invalidate_current_thread_spans();
            result
        }
        _ => match parse_json_file(text, kind).errors.first() {
            Some(e) => Err(format!("the fixed file does not parse: {}", e.message)),
            None => Ok(()),
        },
    }
}

/// The fixes of a whole run, computed in parallel, before anything is written.
pub struct FixRun {
    pub files: Vec<FileFix>,
    pub notes: Vec<crate::diagnostic::Note>,
    pub unreadable: Vec<crate::diagnostic::Note>,
    /// Configuration files that cannot be used: nothing was fixed.
    pub config_errors: Vec<crate::config::ConfigError>,
}

pub fn fix_paths(paths: &[PathBuf], opts: &crate::engine::Options, mode: Mode) -> FixRun {
    use rayon::prelude::*;

    let settings = opts.settings.clone();
    let exclude: crate::discover::Exclude = std::sync::Arc::new(move |p: &std::path::Path| settings.excluded(p));
    let found = crate::discover::discover_excluding(paths, Some(exclude));
    let config_errors = opts.settings.errors();
    if !config_errors.is_empty() {
        return FixRun { files: Vec::new(), notes: Vec::new(), unreadable: Vec::new(), config_errors };
    }
    let prefilter = crate::prefilter::Prefilter::new(&opts.rules, opts.prefilter);
    let contexts = crate::context::CrateContexts::default();
    // The roots codemod works per crate, before the per-file loop (`--unsafe-fixes` only).
    let codemods = crate::engine::thread_pool(opts).install(|| {
        codemod::run::prepare(&found.files, &opts.rules, mode, &contexts, opts.max_file_size, &opts.settings)
    });
    let results: Vec<Result<Option<FileFix>, crate::diagnostic::Note>> =
        crate::engine::thread_pool(opts).install(|| {
            found
                .files
                .par_iter()
                .with_max_len(1)
                .map(|(path, shown)| {
                    let mut text = crate::engine::read_text(path, shown, opts.max_file_size)?;
                    // The roots codemod's result, when it rewrote this file, is where fixing starts.
                    let start = codemods.start(path);
                    if let Some(start) = start {
                        text = start.text.clone();
                    }
                    let scan = prefilter.scan(text.as_bytes(), crate::source::FileKind::of(path));
                    let mut settings = opts.settings.for_file(path);
                    settings.restrict_to(&opts.rules);
                    let role = scan.role;
                    let active = settings.rules_among(&scan.rules_for(path, &contexts));
                    // A file with suppressions is fixed even without active rules: its unused
                    // suppressions are findings with a fix.
                    if active.is_empty() && !crate::suppress::may_have_directives(&text) && start.is_none() {
                        return Ok(None);
                    }
                    let crate_ctx = crate::engine::crate_context(&contexts, path, &settings);
                    // Files that were `rustfmt`-clean (as read from disk) stay clean: the fixes'
                    // lines laid out as `cargo fmt` would.
                    let on_disk = start.map_or(text.as_str(), |s| s.original.as_str()).to_owned();
                    let tidy = |fixed: &str| match FileKind::of(path) {
                        FileKind::Rust => codemod::rustfmt::tidy(path, &on_disk, fixed),
                        _ => None,
                    };
                    let (path, shown) = (path.clone(), shown.clone());
                    let mut fixed =
                        fix_and_lay_out(path, shown, text, &crate_ctx, &active, role, mode, &settings, &tidy);
                    codemods.patch(&mut fixed);
                    Ok(Some(fixed))
                })
                .collect()
        });
    let mut run = FixRun { files: Vec::new(), notes: found.notes, unreadable: found.unreadable, config_errors };
    for r in results {
        match r {
            Ok(Some(f)) => run.files.push(f),
            Ok(None) => {}
            Err(note) => run.notes.push(note),
        }
    }
    crate::engine::thread_pool(opts).install(|| codemods.add_missing(&mut run.files));
    run.notes.extend(codemods.notes);
    run.files.sort_by(|a, b| a.display.cmp(&b.display));
    codemod::run::explain_remaining(&mut run.files, mode, &contexts, opts.max_file_size, &opts.settings);

    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_order_and_keep_crlf() {
        let text = "a\r\nb\r\nc";
        let edits = [Edit::replace(0..1, "x\ny"), Edit::delete(3..6)];
        assert_eq!(apply_edits(text, &edits, "\r\n"), "x\r\ny\r\nc");
    }

    #[test]
    fn overlapping_ranges() {
        assert!(overlaps(&(0..3), &(2..4)));
        assert!(!overlaps(&(0..2), &(2..4)));
        assert!(overlaps(&(2..2), &(2..2)));
        assert!(overlaps(&(2..2), &(1..3)));
    }
}
