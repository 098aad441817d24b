//! One run: discover files, then per file and in parallel: read, prefilter, parse, analyze; then
//! collect the findings in a deterministic order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::config::{ConfigError, FileSettings, Settings};
use crate::context::era::{FileSignals, Signals};
use crate::context::{CrateContext, CrateContexts};
use crate::cx::{CrateCx, CrateFile, Cx, Origin};
use crate::diagnostic::{Diagnostic, Note};
use crate::discover::{Discovered, discover_each, io_reason};
use crate::json::{self, jsonrpc};
use crate::model::{CrateModel, FileFacts};
use crate::prefilter::{Prefilter, Scan};
use crate::rules::{self, Rule};
use crate::rust::recover::parse_rust_recovering;
use crate::rust::test_code::TestCode;
use crate::rust::visitor::RuleVisitor;
use crate::source::{FileKind, SourceFile};
use crate::suppress::{self, Extents, Suppressions};

mod editor;

pub struct Options {
    pub rules: Vec<&'static dyn Rule>,
    /// Skip parsing files without any trigger word (on by default; off only to measure or test).
    pub prefilter: bool,
    /// Files larger than this are skipped with a note.
    pub max_file_size: u64,
    /// Worker threads; `None` for one per core.
    pub threads: Option<usize>,
    /// Configuration files (found upward from each file, or `--config`) and the command line's
    /// rule selection: which rules run per file, severities, excludes.
    pub settings: Arc<Settings>,
}

impl Options {
    /// The run a user asked for: the rules `select` and `ignore` leave, and the settings of the
    /// configuration (`config` for every file, else the files found upward from each file), with
    /// the roots codemod's migration when one was chosen. As `check` and `fix` take them on the
    /// command line, and the MCP server's tools as arguments.
    pub fn selected(
        select: &[String],
        ignore: &[String],
        config: Option<&Path>,
        roots_to: Option<crate::config::RootsTo>,
    ) -> Result<Options, String> {
        let rules = crate::config::selected_rules(select, ignore)?;
        let cli_rules = crate::config::CliRules { select: select.to_vec(), ignore: ignore.to_vec() };
        let mut settings = Settings::new(&cli_rules, config).map_err(|e| e.to_string())?;
        settings.cli_roots_to = roots_to;
        Ok(Options { rules, settings: Arc::new(settings), ..Options::default() })
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rules: rules::ALL.to_vec(),
            prefilter: true,
            max_file_size: 10 * 1024 * 1024,
            threads: None,
            settings: Arc::new(Settings::default()),
        }
    }
}

/// The findings of one file, with the file kept for rendering code frames.
pub struct FileReport {
    pub file: Arc<SourceFile>,
    /// The crate the file belongs to: its SDK and the era its severities assumed.
    pub crate_ctx: Arc<CrateContext>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Default)]
pub struct RunResult {
    /// Files with findings, sorted by path; findings sorted by position.
    pub reports: Vec<FileReport>,
    pub notes: Vec<Note>,
    /// Paths named on the command line that could not be read.
    pub unreadable: Vec<Note>,
    pub files_scanned: usize,
    pub files_parsed: usize,
    /// Every file checked (read paths), for judging baseline entries.
    pub checked: Vec<PathBuf>,
    /// Configuration files that cannot be used: nothing was checked (exit code 2).
    pub config_errors: Vec<ConfigError>,
}

impl RunResult {
    pub fn diagnostics(&self) -> impl Iterator<Item = (&FileReport, &Diagnostic)> {
        self.reports.iter().flat_map(|r| r.diagnostics.iter().map(move |d| (r, d)))
    }

    /// Adds the run of one more source (standard input, an editor's unsaved text) to this one,
    /// keeping the reports sorted by path.
    pub fn merge(&mut self, other: RunResult) {
        self.files_scanned += other.files_scanned;
        self.files_parsed += other.files_parsed;
        self.reports.extend(other.reports);
        self.reports.sort_by(|a, b| a.file.display.cmp(&b.file.display));
        self.notes.extend(other.notes);
        self.unreadable.extend(other.unreadable);
        self.checked.extend(other.checked);
        self.config_errors.extend(other.config_errors);
    }

    /// The crates of the files with findings, each once, in report order.
    pub fn crates(&self) -> Vec<&CrateContext> {
        let mut out: Vec<&CrateContext> = Vec::new();
        for r in &self.reports {
            if !out.iter().any(|c| c.manifest == r.crate_ctx.manifest) {
                out.push(&r.crate_ctx);
            }
        }
        out
    }
}

enum Outcome {
    Checked {
        report: Option<FileReport>,
        parsed: bool,
    },
    /// Checked, with facts for its crate's model: finished once the crate's rules ran.
    Pending(Box<PendingFile>),
    Skipped(Note),
}

/// A file whose per-file rules ran and whose facts feed its crate's model: configuration and
/// suppressions are applied (`finish`) after the crate's rules added their findings, so a
/// suppression comment is judged on all of them.
struct PendingFile {
    file: SourceFile,
    crate_ctx: Arc<CrateContext>,
    /// The crate's folder (the file itself when it is in none): files are grouped by it.
    crate_key: PathBuf,
    diagnostics: Vec<Diagnostic>,
    suppressions: Suppressions,
    regions: Regions,
    settings: FileSettings,
    facts: FileFacts,
    /// The rules using the model that the file's words selected.
    model_rules: Vec<&'static dyn Rule>,
}

pub fn check_paths(paths: &[PathBuf], opts: &Options) -> RunResult {
    let settings = opts.settings.clone();
    let exclude: crate::discover::Exclude = Arc::new(move |p: &Path| settings.excluded(p));
    let prefilter = Prefilter::new(&opts.rules, opts.prefilter);
    let pool = thread_pool(opts);
    // Files are read and scanned by the workers while this thread walks on (as ripgrep does):
    // the walk waits on the file system, the scan on the CPU.
    let loaded: std::sync::Mutex<Vec<(usize, Loaded)>> = std::sync::Mutex::new(Vec::new());
    let found = pool.in_place_scope(|scope| {
        discover_each(paths, Some(exclude), &mut |index, path, shown| {
            let (path, shown) = (path.to_path_buf(), shown.to_owned());
            let (loaded, prefilter) = (&loaded, &prefilter);
            scope.spawn(move |_| {
                let l = load(&path, &shown, prefilter, opts);
                loaded.lock().expect("no worker panics holding it").push((index, l));
            });
        })
    });
    let config_errors = opts.settings.errors();
    if !config_errors.is_empty() {
        return RunResult { config_errors, ..Default::default() };
    }
    let mut loaded = loaded.into_inner().expect("no worker panicked holding it");
    loaded.sort_by_key(|(index, _)| *index);
    analyse_loaded(found, loaded.into_iter().map(|(_, l)| l).collect(), &pool, opts)
}

/// The run after discovery: each found file read, checked and collected. Separate from
/// `check_paths` so a test can change the tree in between (a file deleted after it was found).
///
/// Two passes: every file is read and scanned once (trigger words, roles, protocol revisions),
/// then only the files some rule can fire in are parsed and analysed. Between them, each crate
/// the run walked whole gets its era from what the first pass saw, so no crate is read twice.
pub fn check_discovered(found: Discovered, opts: &Options) -> RunResult {
    let prefilter = Prefilter::new(&opts.rules, opts.prefilter);
    let pool = thread_pool(opts);
    let loaded: Vec<Loaded> = pool.install(|| {
        found.files.par_iter().with_max_len(1).map(|(path, shown)| load(path, shown, &prefilter, opts)).collect()
    });
    analyse_loaded(found, loaded, &pool, opts)
}

/// The second pass: eras seeded from what the first pass saw, then the files that need it
/// parsed and analysed, largest first (a big file started last would keep one worker busy
/// while the others wait), each worker taking one file at a time.
fn analyse_loaded(found: Discovered, loaded: Vec<Loaded>, pool: &rayon::ThreadPool, opts: &Options) -> RunResult {
    let contexts = CrateContexts::default();
    seed_eras(&contexts, &found.walked, &loaded);
    select_model_rules(&contexts, &loaded);
    let mut loaded = loaded;
    loaded.sort_by_key(|l| std::cmp::Reverse(l.size()));
    let outcomes: Vec<Outcome> = pool
        .install(|| loaded.into_par_iter().with_max_len(1).map(|l| check_loaded_file(l, &contexts, opts)).collect());

    let mut result = RunResult { notes: found.notes, unreadable: found.unreadable, ..Default::default() };
    result.files_scanned = found.files.len();
    result.checked = found.files.iter().map(|(path, _)| path.clone()).collect();
    let mut pending = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Checked { report, parsed } => {
                result.files_parsed += parsed as usize;
                result.reports.extend(report);
            }
            Outcome::Pending(file) => {
                result.files_parsed += 1;
                pending.push(*file);
            }
            Outcome::Skipped(note) => result.notes.push(note),
        }
    }
    result.reports.extend(finish_crates(pending, pool));
    result.reports.sort_by(|a, b| a.file.display.cmp(&b.file.display));
    result.notes.sort();
    result
}

/// A file after the first pass: its protocol-revision signals, and its text if it needs analysis.
struct Loaded {
    path: PathBuf,
    era: FileSignals,
    work: Work,
}

impl Loaded {
    /// How much analysis the file needs, roughly: the length of its text.
    fn size(&self) -> usize {
        match &self.work {
            Work::Check { text, .. } => text.len(),
            _ => 0,
        }
    }
}

enum Work {
    Skip(Note),
    /// No rule can fire and there is no suppression comment: nothing more to do.
    Nothing,
    Check {
        shown: String,
        text: String,
        scan: Scan,
    },
}

fn load(path: &Path, shown: &str, prefilter: &Prefilter, opts: &Options) -> Loaded {
    thread_local! {
        // One buffer per worker, reused: most files are read, searched once and dropped, so
        // copying into a `String` of their own is kept for the few that need analysis.
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let loaded = |era: FileSignals, work: Work| Loaded { path: path.to_path_buf(), era, work };
    BUFFER.with_borrow_mut(|bytes| {
        let text = match read_into(path, shown, opts.max_file_size, bytes) {
            Ok(text) => text,
            Err(note) => return loaded(FileSignals::default(), Work::Skip(note)),
        };
        if !prefilter.may_matter(text.as_bytes(), FileKind::of(path)) {
            return loaded(FileSignals::default(), Work::Nothing);
        }
        let (scan, mut era) = prefilter.scan_file(text.as_bytes(), FileKind::of(path));
        era.mark_test_items(text.as_bytes(), FileKind::of(path));
        let work = if !scan.may_need_parsing() && !crate::suppress::may_have_directives(text) {
            Work::Nothing
        } else {
            Work::Check { shown: shown.to_owned(), text: text.to_owned(), scan }
        };
        loaded(era, work)
    })
}

/// Each crate whose folder lies inside a walked folder gets the era signals of its files as the
/// first pass saw them; other crates (a single file named) are scanned when first needed.
fn seed_eras(contexts: &CrateContexts, walked: &[PathBuf], loaded: &[Loaded]) {
    let mut crates: HashMap<PathBuf, Signals> = HashMap::new();
    let needed = loaded.iter().any(|l| matches!(l.work, Work::Check { .. }));
    if !needed {
        return;
    }
    for l in loaded {
        // Memoised per folder by `contexts`.
        let Some(crate_dir) = contexts.crate_dir(&l.path) else { continue };
        if !walked.iter().any(|w| crate_dir.starts_with(w)) {
            continue;
        }
        // Most files name no revision: only those need their real path (a syscall per folder).
        if l.era.modern.is_some() || l.era.legacy.is_some() {
            let canonical = std::fs::canonicalize(&l.path).unwrap_or_else(|_| l.path.clone());
            let test_file = crate::context::is_test_path(&canonical, Some(&crate_dir));
            crates.entry(crate_dir).or_default().add(&canonical, l.era, test_file);
        } else {
            crates.entry(crate_dir).or_default();
        }
    }
    for (dir, signals) in crates {
        contexts.seed(dir, signals);
    }
}

/// Which model rules each crate's files select by their own words, so a file with only a
/// rule's crate words (`RuleMeta::crate_triggers`) is parsed for it only where its crate has one.
fn select_model_rules(contexts: &CrateContexts, loaded: &[Loaded]) {
    for l in loaded {
        if let Work::Check { scan, text, .. } = &l.work {
            note_crate_words(contexts, &l.path, scan, text);
        }
    }
}

/// What a file tells of its crate before any file is checked: the model rules its own words
/// select, and whether it has roots words.
fn note_crate_words(contexts: &CrateContexts, path: &Path, scan: &Scan, text: &str) {
    contexts.select_model_rules(path, scan.own_model_rules(path, contexts).iter().map(|r| r.meta().name));
    if crate::model::roots::mentions_roots_words(text) {
        contexts.note_roots_words(path);
    }
}

fn check_loaded_file(l: Loaded, contexts: &CrateContexts, opts: &Options) -> Outcome {
    match l.work {
        Work::Skip(note) => Outcome::Skipped(note),
        Work::Nothing => Outcome::Checked { report: None, parsed: false },
        Work::Check { shown, text, scan } => check_scanned(&l.path, &shown, text, scan, contexts, opts),
    }
}

/// The worker pool: a large stack per worker, because `syn` recurses per nesting level.
pub fn thread_pool(opts: &Options) -> rayon::ThreadPool {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(64 << 20);
    if let Some(n) = opts.threads {
        builder = builder.num_threads(n);
    }
    builder.build().expect("a thread pool")
}

/// Reads a file as UTF-8 text within the size limit, or says why it is skipped.
pub fn read_text(path: &Path, shown: &str, max_file_size: u64) -> Result<String, Note> {
    let mut bytes = Vec::new();
    read_into(path, shown, max_file_size, &mut bytes)?;
    // `read_into` checked the bytes are UTF-8.
    Ok(String::from_utf8(bytes).expect("checked UTF-8"))
}

/// `read_text` into a buffer the caller keeps (its old contents are dropped): the file's text, or
/// why it is skipped.
fn read_into<'b>(path: &Path, shown: &str, max_file_size: u64, bytes: &'b mut Vec<u8>) -> Result<&'b str, Note> {
    use std::io::Read;
    let skip = |message: String| Note { path: shown.to_owned(), message };
    let cannot_read = |e: std::io::Error| skip(format!("cannot read: {}", io_reason(&e)));
    bytes.clear();
    let file = std::fs::File::open(path).map_err(cannot_read)?;
    let len = file.metadata().map_err(cannot_read)?.len();
    if len > max_file_size {
        return Err(skip(format!("larger than {max_file_size} bytes ({len} bytes); skipped")));
    }
    bytes.reserve(len as usize);
    // Read at most one byte past the limit: a file that grew since `metadata` is still refused.
    file.take(max_file_size + 1).read_to_end(bytes).map_err(cannot_read)?;
    if bytes.len() as u64 > max_file_size {
        let size = bytes.len();
        return Err(skip(format!("larger than {max_file_size} bytes (at least {size} bytes); skipped")));
    }
    std::str::from_utf8(bytes).map_err(|e| skip(format!("not valid UTF-8 (at byte {}); skipped", e.valid_up_to())))
}

/// Checks text that did not come from a scanned file (standard input) as if it were the file at
/// `path`: its name decides the kind, the folders around it the crate. Same pipeline as a file.
pub fn check_source(path: &Path, shown: &str, text: String, opts: &Options) -> RunResult {
    // Read the configuration that applies to `path` first, so its errors are known here.
    opts.settings.config_for(path);
    let config_errors = opts.settings.errors();
    if !config_errors.is_empty() {
        return RunResult { config_errors, ..Default::default() };
    }
    let prefilter = Prefilter::new(&opts.rules, opts.prefilter);
    let contexts = CrateContexts::default();
    let outcome = thread_pool(opts).install(|| check_loaded(path, shown, text, &prefilter, &contexts, opts));
    let mut result = RunResult { files_scanned: 1, checked: vec![path.to_path_buf()], ..Default::default() };
    match outcome {
        Outcome::Checked { report, parsed } => {
            result.files_parsed = parsed as usize;
            result.reports.extend(report);
        }
        Outcome::Pending(file) => {
            result.files_parsed = 1;
            result.reports.extend(finish_crate(vec![*file]));
        }
        Outcome::Skipped(_) => {}
    }
    result
}

fn check_loaded(
    path: &Path,
    shown: &str,
    text: String,
    prefilter: &Prefilter,
    contexts: &CrateContexts,
    opts: &Options,
) -> Outcome {
    let scan = prefilter.scan(text.as_bytes(), FileKind::of(path));
    // The file is its crate's only one here: what it selects is what the crate selects.
    note_crate_words(contexts, path, &scan, &text);
    check_scanned(path, shown, text, scan, contexts, opts)
}

fn check_scanned(
    path: &Path,
    shown: &str,
    text: String,
    scan: Scan,
    contexts: &CrateContexts,
    opts: &Options,
) -> Outcome {
    let mut settings = opts.settings.for_file(path);
    settings.restrict_to(&opts.rules);
    let role = scan.role;
    let model_rules = settings.rules_among(&scan.model_rules_for(path, contexts));
    let active = settings.rules_among(&scan.rules_for(path, contexts));
    // A file no rule can fire in is not parsed; its suppressions, if any, are all unused.
    let suppressions = Suppressions::scan(&text, FileKind::of(path));
    if active.is_empty() && suppressions.is_empty() {
        return Outcome::Checked { report: None, parsed: false };
    }
    let crate_ctx = crate_context(contexts, path, &settings);
    let file = SourceFile::new(path.to_path_buf(), shown.to_owned(), text);
    let parsed = !active.is_empty();
    let diagnostics = if !parsed {
        finish(&file, Vec::new(), &suppressions, &Regions::default(), &settings)
    } else if !model_rules.is_empty() && file.kind() == FileKind::Rust {
        // The file feeds its crate's model: finished with the crate (`finish_crates`).
        let (crate_key, module) = contexts.crate_and_module(path);
        let feed = ModelFeed {
            module,
            roots_in_crate: contexts.has_roots_words(path),
            retries_in_crate: contexts.crate_selects(path, crate::model::retries::RULE),
        };
        let (diagnostics, regions, facts) = analyse_file(&file, &crate_ctx, &active, role, &suppressions, Some(feed));
        match facts {
            Some(facts) => {
                let pending = PendingFile {
                    file,
                    crate_ctx,
                    crate_key,
                    diagnostics,
                    suppressions,
                    regions,
                    settings,
                    facts,
                    model_rules,
                };
                return Outcome::Pending(Box::new(pending));
            }
            None => finish(&file, diagnostics, &suppressions, &regions, &settings),
        }
    } else {
        analyse(&file, &crate_ctx, &active, role, &settings, &suppressions)
    };
    Outcome::Checked { report: report_of(file, crate_ctx, diagnostics), parsed }
}

/// A checked file's report, if it has findings.
fn report_of(file: SourceFile, crate_ctx: Arc<CrateContext>, diagnostics: Vec<Diagnostic>) -> Option<FileReport> {
    (!diagnostics.is_empty()).then(|| FileReport { file: Arc::new(file), crate_ctx, diagnostics })
}

/// The crate context of a file, with the era its configuration sets (`era = …`), if any, in place
/// of the detected one.
pub fn crate_context(contexts: &CrateContexts, path: &Path, settings: &FileSettings) -> Arc<CrateContext> {
    let detected = contexts.for_file(path);
    match settings.era {
        Some(era) if era != detected.era.era => {
            let shown = settings.config.as_deref().map(crate::config::shown_path).unwrap_or_default();
            let mut configured = (*detected).clone();
            configured.era = crate::context::EraDecision { era, reason: format!("set by `era` in {shown}") };
            Arc::new(configured)
        }
        _ => detected,
    }
}

/// Checks one file already in memory with the given rules (no prefilter): what the CLI does per
/// file, and what tests and editors call directly.
pub fn check_file(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: crate::context::Role,
) -> Vec<Diagnostic> {
    check_file_with(file, crate_ctx, rules, role, &FileSettings::only(rules))
}

/// `check_file` with a file's settings (`Settings::for_file`): rules that are off are dropped,
/// severities overridden, then suppression comments applied. Suppressions naming rules that
/// `settings` turns off are not judged.
pub fn check_file_with(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: crate::context::Role,
    settings: &FileSettings,
) -> Vec<Diagnostic> {
    let suppressions = Suppressions::scan(&file.text, file.kind());
    analyse(file, crate_ctx, rules, role, settings, &suppressions)
}

/// One file checked alone (an editor's document, a test, `fix`): the rules that use the crate
/// model get the model of this file.
fn analyse(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: crate::context::Role,
    settings: &FileSettings,
    suppressions: &Suppressions,
) -> Vec<Diagnostic> {
    let model_rules: Vec<&'static dyn Rule> = rules.iter().copied().filter(|r| r.uses_model()).collect();
    let feed = (!model_rules.is_empty()).then(|| ModelFeed {
        module: Vec::new(),
        roots_in_crate: true,
        retries_in_crate: true,
    });
    let (mut diagnostics, regions, facts) = analyse_file(file, crate_ctx, rules, role, suppressions, feed);
    if let Some(facts) = facts {
        let model = CrateModel::new(vec![facts]);
        let found = run_crate_rules(&model_rules, &model, vec![CrateFile { file, crate_ctx }]);
        diagnostics.extend(found.into_iter().map(|(_, d)| d));
    }
    finish(file, diagnostics, suppressions, &regions, settings)
}

/// What a file that feeds its crate's model needs to know of the crate.
struct ModelFeed {
    /// Its module in the crate.
    module: Vec<String>,
    /// Whether some file of the crate has roots words (`model::extract::file_facts`).
    roots_in_crate: bool,
    /// Whether some file of the crate selects `retry-reuses-request-id` by its MRTR words.
    retries_in_crate: bool,
}

/// A file's per-file rules, and its facts for the crate model when `feed` is given and it is
/// Rust that parses.
fn analyse_file(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: crate::context::Role,
    suppressions: &Suppressions,
    feed: Option<ModelFeed>,
) -> (Vec<Diagnostic>, Regions, Option<FileFacts>) {
    let anchors = suppressions.anchors();
    match file.kind() {
        FileKind::Rust => check_rust(file, crate_ctx, rules, role, &anchors, feed),
        kind => {
            let (diagnostics, extents) = check_json(file, crate_ctx, rules, kind, &anchors);
            (diagnostics, Regions { extents, test_code: TestCode::default() }, None)
        }
    }
}

/// The crate phase: each crate's pending files (`PendingFile`) get its model and the findings of
/// the rules that ask it, then are finished. Crates in parallel; within a crate, files in path
/// order, so the model and the findings are the same on any number of threads.
fn finish_crates(pending: Vec<PendingFile>, pool: &rayon::ThreadPool) -> Vec<FileReport> {
    if pending.is_empty() {
        return Vec::new();
    }
    let mut crates: std::collections::BTreeMap<PathBuf, Vec<PendingFile>> = std::collections::BTreeMap::new();
    for p in pending {
        crates.entry(p.crate_key.clone()).or_default().push(p);
    }
    let crates: Vec<Vec<PendingFile>> = crates.into_values().collect();
    pool.install(|| crates.into_par_iter().with_max_len(1).flat_map_iter(finish_crate).collect())
}

fn finish_crate(mut files: Vec<PendingFile>) -> Vec<FileReport> {
    files.sort_by(|a, b| a.file.path.cmp(&b.file.path));
    let mut rules: Vec<&'static dyn Rule> = Vec::new();
    for rule in files.iter().flat_map(|p| p.model_rules.iter()) {
        if !rules.iter().any(|r| r.meta().name == rule.meta().name) {
            rules.push(*rule);
        }
    }
    let model = CrateModel::new(files.iter_mut().map(|p| std::mem::take(&mut p.facts)).collect());
    let cx_files = files.iter().map(|p| CrateFile { file: &p.file, crate_ctx: &p.crate_ctx }).collect();
    let found = run_crate_rules(&rules, &model, cx_files);
    for (index, d) in found {
        // A rule reports only in the files its words selected.
        let file = &mut files[index];
        if file.model_rules.iter().any(|r| r.meta().name == d.rule) {
            file.diagnostics.push(d);
        }
    }
    files
        .into_iter()
        .filter_map(|p| {
            let diagnostics = finish(&p.file, p.diagnostics, &p.suppressions, &p.regions, &p.settings);
            report_of(p.file, p.crate_ctx, diagnostics)
        })
        .collect()
}

fn run_crate_rules(
    rules: &[&'static dyn Rule],
    model: &CrateModel,
    files: Vec<CrateFile>,
) -> Vec<(crate::model::FileId, Diagnostic)> {
    let mut cx = CrateCx::new(files);
    for rule in rules {
        rule.rust_crate(&mut cx, model);
    }
    cx.diagnostics
}

/// What a file's parse tells `finish`: the lines own-line suppressions cover, and its test code.
#[derive(Default)]
struct Regions {
    extents: Extents,
    test_code: TestCode,
}

/// After a file's rules ran: findings in test code marked, configuration (rules off, severities,
/// the `tests` level), then suppression comments, then a deterministic order.
fn finish(
    file: &SourceFile,
    mut diagnostics: Vec<Diagnostic>,
    suppressions: &Suppressions,
    regions: &Regions,
    settings: &FileSettings,
) -> Vec<Diagnostic> {
    diagnostics.retain(|d| settings.enables(d.rule));
    for d in &mut diagnostics {
        d.in_test = d.rule != rules::PARSE_ERROR.name && regions.test_code.contains(&d.range);
        d.severity = settings.severity(d.rule, d.severity);
        if d.in_test {
            d.severity = settings.test_severity(d.severity);
        }
    }
    let mut diagnostics = suppressions.apply(file, diagnostics, &regions.extents, settings);
    // `tests = "off"`: dropped once suppressions were judged, so one that names them is used.
    if settings.tests_off() {
        diagnostics.retain(|d| !d.in_test);
    }
    diagnostics.sort_by(|a, b| (a.range.start, a.range.end, a.rule).cmp(&(b.range.start, b.range.end, b.rule)));
    // One finding per rule and range: a crate rule may see what the same rule's per-file walk saw
    // (the stable sort keeps the per-file one, reported first).
    diagnostics.dedup_by(|a, b| a.rule == b.rule && a.range == b.range);
    diagnostics
}

/// Checks text as if it were the file at `path`, with every rule and the role found by the
/// prefilter's words; the crate context comes from the manifests around `path`.
pub fn check_text(path: &Path, text: String) -> Vec<Diagnostic> {
    let scan = Prefilter::every_rule().scan(text.as_bytes(), FileKind::of(path));
    let crate_ctx = CrateContexts::default().for_file(path);
    let file = SourceFile::new(path.to_path_buf(), crate::discover::display_path(path), text);
    check_file(&file, &crate_ctx, &scan.active, scan.role)
}

fn parse_error(range: std::ops::Range<usize>, message: String) -> Diagnostic {
    Diagnostic {
        rule: rules::PARSE_ERROR.name,
        severity: crate::diagnostic::Severity::Error,
        range,
        message,
        label: "cannot parse here".into(),
        labels: Vec::new(),
        help: Some("fix the syntax error; mcp-lint checks nothing else in this file until it parses".into()),
        fix: None,
        fix_elsewhere: Vec::new(),
        note: None,
        in_test: false,
    }
}

/// A Rust syntax error: only the item (or `impl` member) it is in goes unchecked.
fn rust_parse_error(range: std::ops::Range<usize>, message: String) -> Diagnostic {
    let help = "fix the syntax error; until then mcp-lint skips the item it is in and checks the rest of the file";
    Diagnostic { help: Some(help.into()), ..parse_error(range, message) }
}

fn check_rust(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: crate::context::Role,
    anchors: &[usize],
    feed: Option<ModelFeed>,
) -> (Vec<Diagnostic>, Regions, Option<FileFacts>) {
    // A file with a syntax error keeps the findings of the items that parse (`recover`).
    let recovered = parse_rust_recovering(&file.text);
    let mut diagnostics: Vec<Diagnostic> =
        recovered.failures.into_iter().map(|f| rust_parse_error(f.range, f.message)).collect();
    let mut regions = Regions::default();
    let mut facts = None;
    if let Some(parsed) = recovered.parsed {
        let mut cx = Cx::new(file, crate_ctx, Origin::Rust);
        cx.base = parsed.base;
        cx.file_role = role;
        RuleVisitor::new(&mut cx, rules).run(&parsed.file);
        // What own-line suppressions cover, from the same tree (no second parse).
        regions.extents = suppress::rust_extents(&parsed.file, parsed.base, anchors);
        // The crate model's facts, from the same tree too, while its spans exist.
        facts = feed.map(|f| {
            crate::model::extract::file_facts(&cx, &parsed.file, f.module, f.roots_in_crate, f.retries_in_crate)
        });
        diagnostics.append(&mut cx.diagnostics);
        // With the tests nested in bodies the visit found.
        regions.test_code = std::mem::take(&mut cx.test_code);
    }
    // Spans live in a thread-local map that only grows; this file's are no longer needed.
    proc_macro2::extra::invalidate_current_thread_spans();
    (diagnostics, regions, facts)
}

fn check_json(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    kind: FileKind,
    anchors: &[usize],
) -> (Vec<Diagnostic>, Extents) {
    let parsed = json::parse::parse_json_file(&file.text, kind);
    let mut cx = Cx::new(file, crate_ctx, Origin::JsonFile);
    for err in parsed.errors {
        cx.diagnostics.push(parse_error(err.range, err.message));
    }
    for root in &parsed.roots {
        json::walk(root, |node, path| {
            for rule in rules {
                rule.json_node(&mut cx, node, path);
            }
        });
    }
    if let Some(messages) = jsonrpc::transcript(&parsed.roots) {
        for rule in rules {
            rule.transcript(&mut cx, &messages);
        }
    }
    (cx.diagnostics, suppress::json_extents(&parsed.roots, anchors))
}

/// What an editor keeps between checks of open documents: configuration files and crate
/// contexts (SDK, era) found once, not on every keystroke. Made anew when a manifest or a
/// configuration file is saved.
#[derive(Default)]
pub struct Workspace {
    settings: Settings,
    contexts: CrateContexts,
    /// The other files of documents' crates, for the crate model (`editor`).
    crate_files: editor::CrateFiles,
}

impl Workspace {
    /// Checks a document's current text as the CLI would check the file at `path` (its
    /// configuration, era and suppressions applied), every rule that can fire in it.
    pub fn check_document(&self, path: &Path, text: String) -> Vec<Diagnostic> {
        let scan = Prefilter::every_rule().scan(text.as_bytes(), FileKind::of(path));
        let settings = self.settings.for_file(path);
        let crate_ctx = crate_context(&self.contexts, path, &settings);
        let file = SourceFile::new(path.to_path_buf(), crate::discover::display_path(path), text);
        // In a crate, the document is checked with the crate's other files as `check` does.
        if file.kind() == FileKind::Rust && crate_ctx.manifest.is_some() {
            return self.crate_files.check(&self.settings, &self.contexts, &file, &crate_ctx, scan, &settings);
        }
        let active = settings.rules_among(&scan.active);
        check_file_with(&file, &crate_ctx, &active, scan.role, &settings)
    }

    /// The manifest of the crate a document belongs to, if any.
    /// The roots migration the configuration of the crate at `manifest` forces (`roots-to`).
    pub fn roots_to_for(&self, manifest: &Path) -> Option<crate::config::RootsTo> {
        self.settings.roots_to_for(manifest)
    }

    pub fn manifest_of(&self, path: &Path) -> Option<PathBuf> {
        self.contexts.for_file(path).manifest.clone()
    }

    /// The document with every fix of `mode` applied, as `mcp-lint fix` would write the file.
    pub fn fix_document(&self, path: &Path, text: String, mode: crate::fix::Mode) -> crate::fix::FileFix {
        let scan = Prefilter::every_rule().scan(text.as_bytes(), FileKind::of(path));
        let settings = self.settings.for_file(path);
        let active = settings.rules_among(&scan.active);
        let crate_ctx = crate_context(&self.contexts, path, &settings);
        let display = crate::discover::display_path(path);
        crate::fix::fix_text_with(path.to_path_buf(), display, text, &crate_ctx, &active, scan.role, mode, &settings)
    }
}
