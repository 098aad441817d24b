//! One run: discover files, then per file and in parallel: read, prefilter, parse, analyze; then
//! collect the findings in a deterministic order.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::context::{CrateContext, CrateContexts};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Diagnostic, Note};
use crate::discover::{discover, io_reason};
use crate::json::{self, jsonrpc};
use crate::prefilter::Prefilter;
use crate::rules::{self, Rule};
use crate::rust::parse::parse_rust;
use crate::rust::visitor::RuleVisitor;
use crate::source::{FileKind, SourceFile};

pub struct Options {
    pub rules: Vec<&'static dyn Rule>,
    /// Skip parsing files without any trigger word (on by default; off only to measure or test).
    pub prefilter: bool,
    /// Files larger than this are skipped with a note.
    pub max_file_size: u64,
    /// Worker threads; `None` for one per core.
    pub threads: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options { rules: rules::ALL.to_vec(), prefilter: true, max_file_size: 10 * 1024 * 1024, threads: None }
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
}

impl RunResult {
    pub fn diagnostics(&self) -> impl Iterator<Item = (&FileReport, &Diagnostic)> {
        self.reports.iter().flat_map(|r| r.diagnostics.iter().map(move |d| (r, d)))
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
    Checked { report: Option<FileReport>, parsed: bool },
    Skipped(Note),
}

pub fn check_paths(paths: &[PathBuf], opts: &Options) -> RunResult {
    let found = discover(paths);
    let prefilter = Prefilter::new(&opts.rules, opts.prefilter);
    let contexts = CrateContexts::default();
    let outcomes: Vec<Outcome> = thread_pool(opts).install(|| {
        found
            .files
            .par_iter()
            .with_max_len(1)
            .map(|(path, shown)| check_path(path, shown, &prefilter, &contexts, opts))
            .collect()
    });

    let mut result = RunResult { notes: found.notes, unreadable: found.unreadable, ..Default::default() };
    result.files_scanned = found.files.len();
    for outcome in outcomes {
        match outcome {
            Outcome::Checked { report, parsed } => {
                result.files_parsed += parsed as usize;
                result.reports.extend(report);
            }
            Outcome::Skipped(note) => result.notes.push(note),
        }
    }
    result.reports.sort_by(|a, b| a.file.display.cmp(&b.file.display));
    result.notes.sort();
    result
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
    let skip = |message: String| Note { path: shown.to_owned(), message };
    match std::fs::metadata(path) {
        Ok(m) if m.len() > max_file_size => {
            return Err(skip(format!("larger than {max_file_size} bytes ({} bytes); skipped", m.len())));
        }
        Ok(_) => {}
        Err(e) => return Err(skip(format!("cannot read: {}", io_reason(&e)))),
    }
    let bytes = std::fs::read(path).map_err(|e| skip(format!("cannot read: {}", io_reason(&e))))?;
    String::from_utf8(bytes)
        .map_err(|e| skip(format!("not valid UTF-8 (at byte {}); skipped", e.utf8_error().valid_up_to())))
}

fn check_path(path: &Path, shown: &str, prefilter: &Prefilter, contexts: &CrateContexts, opts: &Options) -> Outcome {
    let text = match read_text(path, shown, opts.max_file_size) {
        Ok(t) => t,
        Err(note) => return Outcome::Skipped(note),
    };
    let scan = prefilter.scan(text.as_bytes());
    if scan.active.is_empty() {
        return Outcome::Checked { report: None, parsed: false };
    }
    let crate_ctx = contexts.for_file(path);
    let file = SourceFile::new(path.to_path_buf(), shown.to_owned(), text);
    let diagnostics = check_file(&file, &crate_ctx, &scan.active, scan.role);
    let report = (!diagnostics.is_empty()).then(|| FileReport { file: Arc::new(file), crate_ctx, diagnostics });
    Outcome::Checked { report, parsed: true }
}

/// Checks one file already in memory with the given rules (no prefilter): what the CLI does per
/// file, and what tests and editors call directly.
pub fn check_file(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: crate::context::Role,
) -> Vec<Diagnostic> {
    let mut diagnostics = match file.kind() {
        FileKind::Rust => check_rust(file, crate_ctx, rules, role),
        kind => check_json(file, crate_ctx, rules, kind),
    };
    diagnostics.sort_by(|a, b| (a.range.start, a.range.end, a.rule).cmp(&(b.range.start, b.range.end, b.rule)));
    diagnostics.dedup_by(|a, b| a.rule == b.rule && a.range == b.range);
    diagnostics
}

/// Checks text as if it were the file at `path`, with every rule and the role found by the
/// prefilter's words; the crate context comes from the manifests around `path`.
pub fn check_text(path: &Path, text: String) -> Vec<Diagnostic> {
    let prefilter = Prefilter::new(rules::ALL, false);
    let scan = prefilter.scan(text.as_bytes());
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
    }
}

fn check_rust(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    role: crate::context::Role,
) -> Vec<Diagnostic> {
    let parsed = parse_rust(&file.text);
    let diagnostics = match parsed {
        Err(failure) => vec![parse_error(failure.range, failure.message)],
        Ok(parsed) => {
            let mut cx = Cx::new(file, crate_ctx, Origin::Rust);
            cx.base = parsed.base;
            cx.file_role = role;
            RuleVisitor::new(&mut cx, rules).run(&parsed.file);
            std::mem::take(&mut cx.diagnostics)
        }
    };
    // Spans live in a thread-local map that only grows; this file's are no longer needed.
    proc_macro2::extra::invalidate_current_thread_spans();
    diagnostics
}

fn check_json(
    file: &SourceFile,
    crate_ctx: &CrateContext,
    rules: &[&'static dyn Rule],
    kind: FileKind,
) -> Vec<Diagnostic> {
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
    cx.diagnostics
}
