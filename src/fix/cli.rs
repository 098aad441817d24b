//! What `mcp-lint fix` prints and writes, and its exit code: 0 nothing left to fix, 1 findings
//! remain (or, with `--diff`, something would change), 2 a file was refused or could not be written.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use similar::TextDiff;

use super::vcs::{self, VcsState};
use super::write::write_atomically;
use super::{FileFix, Mode, fix_paths};
use crate::diagnostic::Applicability;
use crate::engine::Options;

pub struct FixRequest {
    pub paths: Vec<PathBuf>,
    pub unsafe_fixes: bool,
    pub diff: bool,
    pub allow_dirty: bool,
    pub allow_no_vcs: bool,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub max_file_size: u64,
    /// `--config`: one configuration file for every file instead of searching upward.
    pub config: Option<PathBuf>,
    /// `--roots-to`: the roots codemod's migration for every roots use of the run.
    pub roots_to: Option<crate::config::RootsTo>,
}

pub fn run(req: FixRequest) -> ExitCode {
    let rules = match crate::cli::selected_rules(&req.select, &req.ignore) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let cli_rules = crate::config::CliRules { select: req.select.clone(), ignore: req.ignore.clone() };
    let settings = match crate::config::Settings::new(&cli_rules, req.config.as_deref()) {
        Ok(mut s) => {
            s.cli_roots_to = req.roots_to;
            std::sync::Arc::new(s)
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = Options { rules, max_file_size: req.max_file_size, settings, ..Options::default() };
    let mode = if req.unsafe_fixes { Mode::Unsafe } else { Mode::Safe };
    let run = fix_paths(&req.paths, &opts, mode);
    if !run.config_errors.is_empty() {
        for e in &run.config_errors {
            eprintln!("error: {e}");
        }
        return ExitCode::from(2);
    }
    for note in &run.notes {
        eprintln!("note: {}: {}", note.path, note.message);
    }
    let mut failed = !run.unreadable.is_empty();
    for note in &run.unreadable {
        eprintln!("error: {}: {}", note.path, note.message);
    }
    for f in run.files.iter().filter(|f| f.dropped.is_some()) {
        eprintln!("error: {}: {}; its fixes were not applied", f.display, f.dropped.as_deref().unwrap_or(""));
        failed = true;
    }
    let changed: Vec<&FileFix> = run.files.iter().filter(|f| f.changed()).collect();

    if req.diff {
        for f in &changed {
            let diff = TextDiff::from_lines(&f.original, &f.fixed);
            print!("{}", diff.unified_diff().header(&format!("a/{}", f.display), &format!("b/{}", f.display)));
        }
        print_summary(&run.files, false);
        return if failed {
            ExitCode::from(2)
        } else if changed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }

    // Like `cargo fix`: refuse before writing anything.
    let mut dirty = Vec::new();
    let mut no_vcs = Vec::new();
    for f in &changed {
        match vcs::state(&f.path) {
            VcsState::Clean => {}
            VcsState::Dirty if !req.allow_dirty => dirty.push(f.display.as_str()),
            VcsState::NoVcs if !req.allow_no_vcs => no_vcs.push(f.display.as_str()),
            _ => {}
        }
    }
    if !dirty.is_empty() || !no_vcs.is_empty() {
        if !dirty.is_empty() {
            eprintln!(
                "error: these files have uncommitted changes, so a fix could not be reviewed or undone with git; commit or stash them, or pass --allow-dirty:\n  {}",
                dirty.join("\n  ")
            );
        }
        if !no_vcs.is_empty() {
            eprintln!(
                "error: these files are not in a git work tree, so a fix could not be undone; pass --allow-no-vcs to write them anyway:\n  {}",
                no_vcs.join("\n  ")
            );
        }
        eprintln!("nothing was written");
        return ExitCode::from(2);
    }
    // A fix can span files (the roots codemod edits a tool and its parameter struct): refuse
    // before writing any of them if one cannot be written, so no crate is left half-rewritten.
    let unwritable: Vec<String> = changed
        .iter()
        .filter_map(|f| match std::fs::symlink_metadata(&f.path) {
            Ok(m) if m.file_type().is_symlink() => Some(format!("{} (a symbolic link)", f.display)),
            Ok(m) if m.permissions().readonly() => Some(format!("{} (read-only)", f.display)),
            Ok(_) => None,
            Err(e) => Some(format!("{} ({e})", f.display)),
        })
        .collect();
    if !unwritable.is_empty() {
        eprintln!("error: these files cannot be written, so no fix was applied:\n  {}", unwritable.join("\n  "));
        eprintln!("nothing was written");
        return ExitCode::from(2);
    }
    let mut written = Vec::new();
    for f in &changed {
        match write_atomically(&f.path, f.original.as_bytes(), f.fixed.as_bytes()) {
            Ok(()) => written.push(f.display.as_str()),
            Err(e) => {
                eprintln!("error: {}: {e}", f.display);
                failed = true;
            }
        }
    }
    let remaining = print_summary(&run.files, true);
    if failed {
        ExitCode::from(2)
    } else if remaining > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints what was (or would be) fixed per rule and what was left and why; returns how many
/// findings are left.
fn print_summary(files: &[FileFix], wrote: bool) -> usize {
    let mut fixed: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unsafe_titles: Vec<&str> = Vec::new();
    for f in files.iter().filter(|f| f.changed()) {
        for (rule, title, applicability) in &f.applied {
            *fixed.entry(rule).or_default() += 1;
            if *applicability == Applicability::Unsafe && !unsafe_titles.contains(&title.as_str()) {
                unsafe_titles.push(title);
            }
        }
    }
    let total: usize = fixed.values().sum();
    let files_changed = files.iter().filter(|f| f.changed()).count();
    let verb = if wrote { "fixed" } else { "would fix" };
    let (findings, changed) = (crate::words::count(total, "finding"), crate::words::count(files_changed, "file"));
    eprintln!("{verb} {findings} in {changed}");
    for (rule, n) in &fixed {
        eprintln!("  {rule}: {n}");
    }
    for title in unsafe_titles {
        eprintln!("  unsafe fix applied: {title} (changes behaviour or a public contract; review it)");
    }
    let mut remaining = 0;
    for f in files {
        for (d, why) in &f.remaining {
            remaining += 1;
            let file = crate::source::SourceFile::new(f.path.clone(), f.display.clone(), f.fixed.clone());
            let at = file.lines.line_col(&file.text, d.range.start);
            eprintln!("left: {}:{}:{}: {} ({why})", f.display, at.line, at.column, d.rule);
        }
    }
    remaining
}
