//! The crate model for an editor's document: the crate's other files are read from disk (their
//! facts kept between checks, made again when a file's length or modification time changes), so a
//! finding that spans files (a write in one, the read in the document) shows in the editor as
//! `mcp-lint check` reports it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::{CrateFile, ModelFeed, analyse_file, crate_context, finish, run_crate_rules};
use crate::config::{FileSettings, Settings};
use crate::context::{CrateContext, CrateContexts};
use crate::diagnostic::Diagnostic;
use crate::model::{CrateModel, FileFacts};
use crate::prefilter::{Prefilter, Scan};
use crate::rules::Rule;
use crate::source::{FileKind, SourceFile};
use crate::suppress::Suppressions;

/// When a file on disk was last seen: its length and modification time.
type Stamp = (u64, Option<SystemTime>);

/// What the crate's files say that decides a file's facts: whether some file has roots words, and
/// whether the crate selects the retry rule (`ModelFeed`).
type Flags = (bool, bool);

/// A file of a document's crate, as last read.
struct OtherFile {
    stamp: Stamp,
    file: Arc<SourceFile>,
    scan: Scan,
    /// It has roots words (`model::roots::ROOTS_WORDS`), searched once when read.
    roots_words: bool,
    crate_ctx: Arc<CrateContext>,
    /// Its facts, extracted with the crate's flags (`None`: no model rule's word selects it, or it
    /// does not parse).
    facts: Option<(Flags, FileFacts)>,
}

/// The other files of the crates of checked documents, by path.
#[derive(Default)]
pub(super) struct CrateFiles(Mutex<HashMap<PathBuf, OtherFile>>);

impl CrateFiles {
    /// The document's findings with its crate's model, as `check` reports them: the rules its
    /// words (and its crate's) select, and the crate rules' findings that land in it.
    pub(super) fn check(
        &self,
        settings: &Settings,
        contexts: &CrateContexts,
        file: &SourceFile,
        crate_ctx: &CrateContext,
        scan: Scan,
        file_settings: &FileSettings,
    ) -> Vec<Diagnostic> {
        let (crate_key, module) = contexts.crate_and_module(&file.path);
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let others = crate_files(contexts, &crate_key, &file.path);
        // Read what changed, drop what is gone.
        for path in &others {
            let stamp = stamp_of(path);
            if cache.get(path).is_some_and(|o| o.stamp == stamp) {
                continue;
            }
            match read_other(settings, contexts, path, stamp) {
                Some(other) => cache.insert(path.clone(), other),
                None => cache.remove(path),
            };
        }
        super::note_crate_words(contexts, &file.path, &scan, &file.text);
        let role = scan.role;
        let rules = file_settings.rules_among(&scan.rules_for(&file.path, contexts));
        if !rules.iter().any(|r| r.uses_model()) {
            drop(cache);
            return super::check_file_with(file, crate_ctx, &rules, role, file_settings);
        }
        let rules = rules.as_slice();
        let roots_in_crate = crate::model::roots::mentions_roots_words(&file.text)
            || others.iter().filter_map(|p| cache.get(p)).any(|o| o.roots_words);
        let retries_in_crate = contexts.crate_selects(&file.path, crate::model::retries::RULE);
        let flags = (roots_in_crate, retries_in_crate);
        for path in &others {
            if let Some(other) = cache.get_mut(path)
                && other.facts.as_ref().is_none_or(|(seen, _)| *seen != flags)
            {
                other.facts = facts_of(contexts, other, flags).map(|f| (flags, f));
            }
        }

        let suppressions = Suppressions::scan(&file.text, file.kind());
        let feed = ModelFeed { module, roots_in_crate, retries_in_crate };
        let (mut diagnostics, regions, facts) = analyse_file(file, crate_ctx, rules, role, &suppressions, Some(feed));
        if let Some(facts) = facts {
            // The model's files in path order, as `finish_crate` has them.
            let mut files: Vec<(FileFacts, &SourceFile, &CrateContext)> = others
                .iter()
                .filter_map(|p| cache.get(p))
                .filter_map(|o| o.facts.as_ref().map(|(_, f)| (f.clone(), &*o.file, &*o.crate_ctx)))
                .collect();
            files.push((facts, file, crate_ctx));
            files.sort_by(|a, b| a.1.path.cmp(&b.1.path));
            let this = files.iter().position(|f| f.1.path == file.path).expect("pushed above");
            let cx_files = files.iter().map(|&(_, file, crate_ctx)| CrateFile { file, crate_ctx }).collect();
            let model = CrateModel::new(files.into_iter().map(|(facts, _, _)| facts).collect());
            let model_rules: Vec<&'static dyn Rule> = rules.iter().copied().filter(|r| r.uses_model()).collect();
            let found = run_crate_rules(&model_rules, &model, cx_files);
            diagnostics.extend(found.into_iter().filter(|(index, _)| *index == this).map(|(_, d)| d));
        }
        finish(file, diagnostics, &suppressions, &regions, file_settings)
    }
}

/// The Rust files of the crate at `crate_key` (the folder of its manifest), but `except`; not
/// those of crates nested in it, nor what configuration excludes.
fn crate_files(contexts: &CrateContexts, crate_key: &Path, except: &Path) -> Vec<PathBuf> {
    let found = crate::discover::discover(&[crate_key.to_path_buf()]);
    // The document's own path, canonical once (the walk may spell it otherwise).
    let except_canonical = except.canonicalize().ok();
    let same_file = |p: &Path| p == except || except_canonical.is_some() && p.canonicalize().ok() == except_canonical;
    let mut out: Vec<PathBuf> = found
        .files
        .into_iter()
        .map(|(path, _)| path)
        .filter(|p| FileKind::of(p) == FileKind::Rust && !same_file(p))
        .filter(|p| contexts.crate_and_module(p).0 == crate_key)
        .collect();
    out.sort();
    out
}

fn stamp_of(path: &Path) -> Stamp {
    std::fs::metadata(path).map(|m| (m.len(), m.modified().ok())).unwrap_or((0, None))
}

/// A file of the crate read from disk; `None` when it cannot be read or configuration excludes it.
fn read_other(settings: &Settings, contexts: &CrateContexts, path: &Path, stamp: Stamp) -> Option<OtherFile> {
    if settings.excluded(path).is_some() {
        return None;
    }
    let text =
        super::read_text(path, &crate::discover::display_path(path), super::Options::default().max_file_size).ok()?;
    let file_settings = settings.for_file(path);
    let crate_ctx = crate_context(contexts, path, &file_settings);
    let scan = Prefilter::every_rule().scan(text.as_bytes(), FileKind::of(path));
    // What the file's words select counts for the whole crate, as in `check`.
    super::note_crate_words(contexts, path, &scan, &text);
    let roots_words = crate::model::roots::mentions_roots_words(&text);
    let file = Arc::new(SourceFile::new(path.to_path_buf(), crate::discover::display_path(path), text));
    Some(OtherFile { stamp, file, scan, roots_words, crate_ctx, facts: None })
}

/// The facts of another file of the crate, when a model rule's words select it (as `check` feeds
/// the model); no rule runs on it.
fn facts_of(
    contexts: &CrateContexts,
    other: &OtherFile,
    (roots_in_crate, retries_in_crate): Flags,
) -> Option<FileFacts> {
    let file = &*other.file;
    if other.scan.model_rules_for(&file.path, contexts).is_empty() {
        return None;
    }
    let module = contexts.crate_and_module(&file.path).1;
    let feed = ModelFeed { module, roots_in_crate, retries_in_crate };
    analyse_file(file, &other.crate_ctx, &[], other.scan.role, &Suppressions::default(), Some(feed)).2
}
