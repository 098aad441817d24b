//! What `mcp-lint fix` prints and writes, and its exit code: 0 nothing left to fix, 1 findings
//! remain (or, with `--diff`, something would change), 2 a file was refused or could not be written.

use std::path::PathBuf;
use std::process::ExitCode;

use super::outcome::{self, FixSummary};
use super::{FileFix, Mode, fix_paths};
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
    let roots_to = req.roots_to;
    let mut opts = match Options::selected(&req.select, &req.ignore, req.config.as_deref(), roots_to) {
        Ok(opts) => opts,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    opts.max_file_size = req.max_file_size;
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
        print!("{}", outcome::unified_diff(&changed));
        print_summary(&run.files, false);
        return if failed {
            ExitCode::from(2)
        } else if changed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }

    let written = match outcome::write_changed(&changed, req.allow_dirty, req.allow_no_vcs) {
        Ok(written) => written,
        Err(refused) => {
            for message in refused.messages() {
                eprintln!("error: {message}");
            }
            eprintln!("nothing was written");
            return ExitCode::from(2);
        }
    };
    for (display, result) in written {
        if let Err(e) = result {
            eprintln!("error: {display}: {e}");
            failed = true;
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
    let summary = FixSummary::of(files);
    let verb = if wrote { "fixed" } else { "would fix" };
    let (findings, changed) =
        (crate::words::count(summary.total_fixed(), "finding"), crate::words::count(summary.files_changed, "file"));
    eprintln!("{verb} {findings} in {changed}");
    for (rule, n) in &summary.fixed {
        eprintln!("  {rule}: {n}");
    }
    for title in &summary.unsafe_titles {
        eprintln!("  unsafe fix applied: {title} (changes behaviour or a public contract; review it)");
    }
    for left in &summary.left {
        eprintln!("left: {}:{}:{}: {} ({})", left.path, left.line, left.column, left.rule, left.why);
    }
    summary.left.len()
}
