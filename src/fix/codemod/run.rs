//! How `mcp-lint fix` runs the roots codemod: before the per-file fix loop, per crate; and after
//! it, to say why each `server-roots-request` finding that is left was left.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{CrateFile, CrateOutcome, crate_files, plan_crate_with};
use crate::config::Settings;
use crate::context::CrateContexts;
use crate::diagnostic::{Applicability, Note};
use crate::fix::{FileFix, Mode};

const RULE: &str = "server-roots-request";

/// The codemod's result for one file: the text the per-file fix loop starts from.
#[derive(Debug, Clone)]
pub struct Start {
    pub display: String,
    pub original: String,
    pub text: String,
    pub applied: Vec<(&'static str, String, Applicability)>,
}

#[derive(Default)]
pub struct Prepared {
    starts: HashMap<PathBuf, Start>,
    pub notes: Vec<Note>,
}

fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The crates (by manifest) of the files that request roots.
fn crates_with_lookups(files: &[(PathBuf, String)], contexts: &CrateContexts, max: u64) -> Vec<PathBuf> {
    let mut manifests: Vec<PathBuf> = files
        .par_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|(p, shown)| {
            let text = crate::engine::read_text(p, shown, max).ok()?;
            if !text.contains("list_roots") {
                return None;
            }
            contexts.for_file(p).manifest.clone()
        })
        .collect();
    manifests.sort();
    manifests.dedup();
    manifests
}

fn load_crate(manifest: &Path, max: u64) -> Vec<CrateFile> {
    crate_files(manifest)
        .into_iter()
        .filter_map(|p| {
            let display = crate::discover::display_path(&p);
            let text = crate::engine::read_text(&p, &display, max).ok()?;
            Some(CrateFile { path: p, display, text })
        })
        .collect()
}

/// Runs the codemod on every crate with a roots lookup, with `--unsafe-fixes` only.
pub fn prepare(
    files: &[(PathBuf, String)],
    rules: &[&'static dyn crate::rules::Rule],
    mode: Mode,
    contexts: &CrateContexts,
    max: u64,
    settings: &Settings,
) -> Prepared {
    let mut out = Prepared::default();
    if mode != Mode::Unsafe || !rules.iter().any(|r| r.meta().name == RULE) {
        return out;
    }
    let manifests = crates_with_lookups(files, contexts, max);
    let outcomes: Vec<(Vec<CrateFile>, CrateOutcome, PathBuf)> = manifests
        .into_par_iter()
        .map(|m| {
            let files = load_crate(&m, max);
            let outcome = plan_crate_with(&files, Some(&m), settings.roots_to_for(&m));
            (files, outcome, m)
        })
        .collect();
    for (files, outcome, manifest) in outcomes {
        if let Some(why) = &outcome.dropped {
            out.notes.push(Note {
                path: crate::discover::display_path(&manifest),
                message: format!("the roots codemod was not applied to this crate: {why}"),
            });
            continue;
        }
        let mut applied: BTreeMap<usize, Vec<(&'static str, String, Applicability)>> = BTreeMap::new();
        for (f, title) in &outcome.applied {
            applied.entry(*f).or_default().push((RULE, title.clone(), Applicability::Unsafe));
        }
        for (i, text) in &outcome.texts {
            let f = &files[*i];
            out.starts.insert(
                key(&f.path),
                Start {
                    display: f.display.clone(),
                    original: f.text.clone(),
                    text: text.clone(),
                    applied: applied.remove(i).unwrap_or_default(),
                },
            );
        }
    }
    out
}

impl Prepared {
    /// The text the per-file loop starts from, if the codemod changed the file.
    pub fn start(&self, path: &Path) -> Option<&Start> {
        if self.starts.is_empty() {
            return None;
        }
        self.starts.get(&key(path))
    }

    /// Makes a file fixed from the codemod's text look fixed from the file as read: its original
    /// is the file on disk and the codemod's fixes come first. A per-file fix that would break the
    /// file is dropped, never the codemod's (the crate's other files depend on it).
    pub fn patch(&self, fix: &mut FileFix) {
        let Some(start) = self.start(&fix.path) else { return };
        fix.original = start.original.clone();
        let mut applied = start.applied.clone();
        // Dropped, the per-file fixes left the codemod's text (laid out as it will be written).
        if fix.dropped.take().is_none() {
            applied.append(&mut fix.applied);
        }
        fix.applied = applied;
    }

    /// Files the codemod changed that the run did not otherwise fix (not named, or without any
    /// rule's trigger word); those that were `rustfmt`-clean stay clean.
    pub fn add_missing(&self, files: &mut Vec<FileFix>) {
        let missing: Vec<(&PathBuf, &Start)> =
            self.starts.iter().filter(|(k, _)| !files.iter().any(|f| key(&f.path) == **k)).collect();
        files.par_extend(missing.into_par_iter().map(|(k, start)| {
            FileFix {
                path: k.clone(),
                display: start.display.clone(),
                original: start.original.clone(),
                fixed: (crate::source::FileKind::of(k) == crate::source::FileKind::Rust)
                    .then(|| super::rustfmt::tidy(k, &start.original, &start.text))
                    .flatten()
                    .unwrap_or_else(|| start.text.clone()),
                applied: start.applied.clone(),
                remaining: Vec::new(),
                dropped: None,
            }
        }));
        files.sort_by(|a, b| a.display.cmp(&b.display));
    }
}

/// Says why each `server-roots-request` finding left after fixing was left: the codemod's reason
/// when it refused the lookup, or that it is an unsafe fix when it would rewrite it.
pub fn explain_remaining(files: &mut [FileFix], mode: Mode, contexts: &CrateContexts, max: u64, settings: &Settings) {
    // By crate; a file in no crate (no `Cargo.toml` above it) is planned alone, so that its
    // findings get the codemod's reasons too.
    let mut by_crate: BTreeMap<Result<PathBuf, usize>, Vec<usize>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        if f.remaining.iter().any(|(d, _)| d.rule == RULE) {
            let group = contexts.for_file(&f.path).manifest.clone().ok_or(i);
            by_crate.entry(group).or_default().push(i);
        }
    }
    for (group, indices) in by_crate {
        let (crate_files, outcome) = match &group {
            Ok(manifest) => {
                // The crate as it will be: fixed texts where the run has them.
                let mut crate_files = load_crate(manifest, max);
                for cf in &mut crate_files {
                    if let Some(f) = files.iter().find(|f| key(&f.path) == key(&cf.path)) {
                        cf.text = f.fixed.clone();
                    }
                }
                let outcome = plan_crate_with(&crate_files, Some(manifest), settings.roots_to_for(manifest));
                (crate_files, outcome)
            }
            Err(i) => {
                let f = &files[*i];
                let file = CrateFile { path: f.path.clone(), display: f.display.clone(), text: f.fixed.clone() };
                let outcome = super::why::plan_alone(&file, settings);
                (vec![file], outcome)
            }
        };
        let alone = group.is_err();
        for i in indices {
            let file_key = key(&files[i].path);
            // The calls the codemod looked at in this file: only those can have its unsafe fix.
            let looked_at: Vec<&Range<usize>> =
                outcome.calls.iter().filter(|(f, _)| key(&crate_files[*f].path) == file_key).map(|(_, r)| r).collect();
            let refused: Vec<_> = outcome
                .refused
                .iter()
                .filter(|(f, _, _)| key(&crate_files[*f].path) == file_key)
                .map(|(_, r, why)| (r.clone(), why.clone()))
                .collect();
            for (d, why) in &mut files[i].remaining {
                if d.rule != RULE {
                    continue;
                }
                *why = match refused.iter().find(|(r, _)| *r == d.range) {
                    Some((_, reason)) => format!("the roots codemod left it: {reason}"),
                    None if outcome.dropped.is_some() => {
                        format!("the roots codemod was dropped: {}", outcome.dropped.as_deref().unwrap_or(""))
                    }
                    None if !looked_at.contains(&&d.range) => {
                        super::why::unseen(&crate_files, &file_key, &d.range, contexts)
                    }
                    None if mode == Mode::Safe && super::why::only_allow_lists(&outcome, &crate_files, &file_key) => {
                        "unsafe fix: pass --unsafe-fixes to keep the allow-list as server configuration and remove the client's roots refresh (clients can then no longer add directories)".into()
                    }
                    None if mode == Mode::Safe => {
                        "unsafe fix: pass --unsafe-fixes to give the tool a directory parameter instead (this changes its input schema)".into()
                    }
                    // The codemod rewrites a crate at once (its tools, handlers and capability).
                    None if alone && !outcome.applied.is_empty() => {
                        format!("the roots codemod {}: run `fix` on the crate it belongs to", super::why::IN_NO_CRATE)
                    }
                    None => super::why::unseen(&crate_files, &file_key, &d.range, contexts),
                };
            }
        }
    }
}
