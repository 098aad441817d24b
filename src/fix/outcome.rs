//! What a fix run did or would do, as data: the unified diff of its changes, what it fixed per
//! rule, what it left and why, and the refusals that keep it from writing (a dirty work tree, a
//! file outside git, a file that cannot be written). `mcp-lint fix` prints these; `mcp-lint mcp`'s
//! `fix` tool returns them. Both write through `write_changed`, so both keep the same guard.

use std::collections::BTreeMap;

use similar::TextDiff;

use super::FileFix;
use super::vcs::{self, VcsState};
use super::write::{WriteError, write_atomically};
use crate::diagnostic::Applicability;

/// The unified diff of every changed file, `a/` and `b/` prefixed as `git diff` writes them.
pub fn unified_diff(changed: &[&FileFix]) -> String {
    let mut out = String::new();
    for f in changed {
        let diff = TextDiff::from_lines(&f.original, &f.fixed);
        let header = (format!("a/{}", f.display), format!("b/{}", f.display));
        out.push_str(&diff.unified_diff().header(&header.0, &header.1).to_string());
    }
    out
}

/// What the fixes changed, and what they left.
#[derive(Debug, Default)]
pub struct FixSummary {
    /// Findings fixed per rule.
    pub fixed: BTreeMap<&'static str, usize>,
    /// The titles of the unsafe fixes applied, once each, in the order first applied.
    pub unsafe_titles: Vec<String>,
    pub files_changed: usize,
    /// Findings left after fixing, with why each was left.
    pub left: Vec<Left>,
}

#[derive(Debug)]
pub struct Left {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub rule: &'static str,
    pub why: String,
}

impl FixSummary {
    pub fn of(files: &[FileFix]) -> FixSummary {
        let mut summary = FixSummary::default();
        for f in files.iter().filter(|f| f.changed()) {
            summary.files_changed += 1;
            for (rule, title, applicability) in &f.applied {
                *summary.fixed.entry(rule).or_default() += 1;
                if *applicability == Applicability::Unsafe && !summary.unsafe_titles.contains(title) {
                    summary.unsafe_titles.push(title.clone());
                }
            }
        }
        for f in files {
            if f.remaining.is_empty() {
                continue;
            }
            let file = crate::source::SourceFile::new(f.path.clone(), f.display.clone(), f.fixed.clone());
            for (d, why) in &f.remaining {
                let at = file.lines.line_col(&file.text, d.range.start);
                let (path, line, column) = (f.display.clone(), at.line, at.column);
                summary.left.push(Left { path, line, column, rule: d.rule, why: why.clone() });
            }
        }
        summary
    }

    pub fn total_fixed(&self) -> usize {
        self.fixed.values().sum()
    }
}

/// Why nothing was written. Like `cargo fix`, the guard refuses before writing anything.
#[derive(Debug, Default)]
pub struct Refused {
    /// Files with uncommitted changes (without `--allow-dirty`).
    pub dirty: Vec<String>,
    /// Files outside any git work tree (without `--allow-no-vcs`).
    pub no_vcs: Vec<String>,
    /// Files that cannot be written (a symbolic link, read-only, gone), each with the reason.
    pub unwritable: Vec<String>,
}

impl Refused {
    /// The error lines `fix` prints, one per kind of refusal.
    pub fn messages(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.dirty.is_empty() {
            out.push(format!(
                "these files have uncommitted changes, so a fix could not be reviewed or undone with git; commit or stash them, or pass --allow-dirty:\n  {}",
                self.dirty.join("\n  ")
            ));
        }
        if !self.no_vcs.is_empty() {
            out.push(format!(
                "these files are not in a git work tree, so a fix could not be undone; pass --allow-no-vcs to write them anyway:\n  {}",
                self.no_vcs.join("\n  ")
            ));
        }
        if !self.unwritable.is_empty() {
            out.push(format!(
                "these files cannot be written, so no fix was applied:\n  {}",
                self.unwritable.join("\n  ")
            ));
        }
        out
    }
}

/// One changed file (as shown) and how writing it went.
pub type Written = (String, Result<(), WriteError>);

/// The guard, then the atomic writes: every changed file is checked before any is written (a fix
/// can span files, and no crate is left half-rewritten). Returns each file's write result.
pub fn write_changed(changed: &[&FileFix], allow_dirty: bool, allow_no_vcs: bool) -> Result<Vec<Written>, Refused> {
    let mut refused = Refused::default();
    for f in changed {
        match vcs::state(&f.path) {
            VcsState::Clean => {}
            VcsState::Dirty if !allow_dirty => refused.dirty.push(f.display.clone()),
            VcsState::NoVcs if !allow_no_vcs => refused.no_vcs.push(f.display.clone()),
            _ => {}
        }
    }
    if !refused.dirty.is_empty() || !refused.no_vcs.is_empty() {
        return Err(refused);
    }
    refused.unwritable = changed
        .iter()
        .filter_map(|f| match std::fs::symlink_metadata(&f.path) {
            Ok(m) if m.file_type().is_symlink() => Some(format!("{} (a symbolic link)", f.display)),
            Ok(m) if m.permissions().readonly() => Some(format!("{} (read-only)", f.display)),
            Ok(_) => None,
            Err(e) => Some(format!("{} ({e})", f.display)),
        })
        .collect();
    if !refused.unwritable.is_empty() {
        return Err(refused);
    }
    Ok(changed
        .iter()
        .map(|f| (f.display.clone(), write_atomically(&f.path, f.original.as_bytes(), f.fixed.as_bytes())))
        .collect())
}
