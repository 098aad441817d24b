//! The roots codemod (the fix of `server-roots-request`): tools that look up the client's roots
//! take an explicit, documented directory parameter instead.
//!
//! It works on a whole crate, because a tool's `Parameters<T>` struct, a helper that fetches the
//! roots and a cache of them often live in other files than the tool. Per crate:
//!
//! 1. parse every Rust file and find the functions that call `list_roots()` (server code only), and
//!    ask the crate model what each use of the roots is for (`purpose`): a working directory gets
//!    the rewrite below; an allow-list stays server configuration (`allow`: the configured list
//!    stays, the client's refresh goes, and it never becomes a tool parameter); roots passed on
//!    whole or of unknown use are left with the reason (`why` words the reasons of findings the
//!    codemod does not even consider);
//! 2. rewrite each tool that reads the roots (`lookup` for the body, `tool` for the parameter):
//!    shape A, a tool that asks itself; shape C, a tool that calls a helper asking for them (the
//!    helper goes when no one else calls it); shape B, tools reading a cache that
//!    `on_initialized`/`on_roots_list_changed` fill (`cache`: the cache and the refresh go; a
//!    directory the constructor seeds it with becomes the default of an optional parameter), or a
//!    cell an `ensure_*` method fills on first use (`cache` too: the cell and the method go); and
//!    the arms of a hand-written `call_tool` handler, with the schemas `list_tools` writes by hand
//!    (`handler`);
//! 3. companion edits (`companion`): the tools' `inputSchema` JSON files, and the roots capability
//!    once nothing uses roots;
//! 4. imports the rewrite left unused go; every changed file must parse again, or the crate's whole
//!    codemod change is dropped.
//!
//! A tool, helper or cache the codemod cannot rewrite safely is left as it is, with the reason.

pub mod allow;
pub mod cache;
pub mod companion;
pub mod handler;
pub mod index;
pub mod lookup;
pub mod mrtr;
pub mod purpose;
pub mod run;
pub mod rustfmt;
pub mod text;
pub mod tool;
pub mod visible;
pub mod why;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

use self::index::{FnSite, Index, ParsedFile};
use self::lookup::{HelperInline, Refusal, Rewriter};
use self::purpose::{Migration, Purposes};
use self::text::{Src, collide, deletion, mentions_ident};
use self::tool::{Derives, FileEdits, NewParam, ToolPlan, plan_tool};
use crate::config::RootsTo;
use crate::diagnostic::Edit;
use crate::rust::parse::parse_rust;
use crate::source::FileKind;

/// One file of the crate as read.
#[derive(Debug, Clone)]
pub struct CrateFile {
    pub path: PathBuf,
    pub display: String,
    pub text: String,
}

/// What the codemod does to one crate.
#[derive(Debug, Default)]
pub struct CrateOutcome {
    /// New text of each changed file, by index into the crate's files.
    pub texts: BTreeMap<usize, String>,
    /// What was rewritten, per file: a title that says how the tool's input schema changed.
    pub applied: Vec<(usize, String)>,
    /// `list_roots()` calls left as they are: file, the call's range (as `server-roots-request`
    /// reports it), and why.
    pub refused: Vec<(usize, Range<usize>, String)>,
    /// The parameters tools gained.
    pub params: Vec<NewParam>,
    /// Set when the result did not parse, so nothing of the crate's codemod is applied.
    pub dropped: Option<String>,
    /// Every `list_roots()` call the codemod looked at: file and range, as `server-roots-request`
    /// reports it. Those not `refused` are rewritten (unless `dropped`).
    pub calls: Vec<(usize, Range<usize>)>,
}

/// Which files belong to the crate of `manifest`: its Rust and JSON files, walked like `check`
/// walks folders, without those of crates nested inside it.
pub fn crate_files(manifest: &Path) -> Vec<PathBuf> {
    let Some(dir) = manifest.parent() else { return Vec::new() };
    let found = crate::discover::discover(&[dir.to_path_buf()]);
    found
        .files
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| {
            // The nearest manifest above the file must be this one.
            let nearest = p.ancestors().skip(1).map(|d| d.join("Cargo.toml")).find(|m| m.is_file());
            nearest.is_some_and(|m| same_file(&m, manifest))
        })
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// How the crate spells derives in a struct the codemod creates: with `serde`/`schemars` when it
/// depends on them, else through rmcp's re-exports.
fn derives_of(manifest: Option<&Path>) -> Derives {
    let deps = manifest
        .and_then(|m| std::fs::read_to_string(m).ok())
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|t| t.get("dependencies").and_then(|d| d.as_table()).cloned())
        .unwrap_or_default();
    Derives { serde: deps.contains_key("serde"), schemars: deps.contains_key("schemars") }
}

/// Plans the codemod for one crate's files. Nothing is written; call on one thread (spans of the
/// parsed files live until the end, then are released).
pub fn plan_crate(files: &[CrateFile], manifest: Option<&Path>) -> CrateOutcome {
    plan_crate_with(files, manifest, None)
}

/// `plan_crate` with the migration `roots_to` forces (`fix --roots-to`, `roots-to` in the
/// configuration); `None` lets the crate model's classification of each use decide.
pub fn plan_crate_with(files: &[CrateFile], manifest: Option<&Path>, roots_to: Option<RootsTo>) -> CrateOutcome {
    let out = plan(files, manifest, roots_to);
    proc_macro2::extra::invalidate_current_thread_spans();
    out
}

/// The suppression of `server-roots-request` that covers byte `offset` of the file, shown as
/// written (`// mcp-lint: allow(server-roots-request) …` at line N).
fn suppressed_at(file: &CrateFile, parsed: &Option<ParsedFile>, offset: usize) -> Option<String> {
    use crate::suppress::Suppressions;
    let suppressions = Suppressions::scan(&file.text, FileKind::Rust);
    if suppressions.is_empty() {
        return None;
    }
    let extents = match parsed {
        Some(p) => crate::suppress::rust_extents(&p.ast, p.base, &suppressions.anchors()),
        None => Default::default(),
    };
    let source = crate::source::SourceFile::new(file.path.clone(), file.display.clone(), file.text.clone());
    let d = suppressions.covering(&source, &extents, "server-roots-request", offset)?;
    let line = source.lines.line_col(&source.text, d.comment.start).line;
    Some(format!("`{}` at line {line}", file.text[d.comment.clone()].trim_end()))
}

fn plan(files: &[CrateFile], manifest: Option<&Path>, roots_to: Option<RootsTo>) -> CrateOutcome {
    let mut out = CrateOutcome::default();
    let texts: Vec<String> = files.iter().map(|f| f.text.clone()).collect();
    let parsed: Vec<Option<ParsedFile>> = files
        .iter()
        .map(|f| match FileKind::of(&f.path) {
            FileKind::Rust => parse_rust(&f.text).ok().map(|p| ParsedFile { ast: p.file, base: p.base }),
            _ => None,
        })
        .collect();
    let bases: Vec<usize> = parsed.iter().map(|p| p.as_ref().map_or(0, |p| p.base)).collect();
    let index = Index::build(&parsed, &texts);
    let derives = derives_of(manifest);
    let tool_defs = handler::tool_defs(&parsed);
    let purposes = Purposes::build(files, &parsed, &index, &bases, manifest.and_then(Path::parent));
    let krate = allow::Krate::of(manifest);

    // The functions that request the roots, with the ranges of their requests.
    let mut calls: Vec<(usize, Vec<Range<usize>>)> = Vec::new();
    for (i, site) in index.fns.iter().enumerate() {
        if site.impl_trait.as_deref() == Some("ClientHandler") || !site.mentions("list_roots") {
            continue;
        }
        let src = Src { text: &texts[site.file], base: bases[site.file] };
        let found = list_roots_calls(&src, site.block);
        if !found.is_empty() {
            calls.push((i, found));
        }
    }
    if calls.is_empty() {
        return out;
    }
    out.calls = calls.iter().flat_map(|(i, rs)| rs.iter().map(|r| (index.fns[*i].file, r.clone()))).collect();
    // A function with a suppressed request is left whole: the user said to keep it.
    calls.retain(|(fi, ranges)| {
        let site = &index.fns[*fi];
        let Some(directive) = ranges.iter().find_map(|r| suppressed_at(&files[site.file], &parsed[site.file], r.start))
        else {
            return true;
        };
        for r in ranges {
            out.refused.push((
                site.file,
                r.clone(),
                format!(
                    "`{}` requests the roots under a suppression ({directive}): the codemod leaves it",
                    site.name()
                ),
            ));
        }
        false
    });
    if calls.is_empty() {
        return out;
    }
    if roots_to == Some(RootsTo::Mrtr) {
        let asts: Vec<Option<&syn::File>> = parsed.iter().map(|p| p.as_ref().map(|p| &p.ast)).collect();
        let (tests, rest): (Vec<_>, Vec<_>) =
            calls.iter().cloned().partition(|(fi, _)| purposes.is_test(*fi, &index.fns[*fi]));
        for (fi, ranges) in tests {
            for r in ranges {
                out.refused.push((
                    index.fns[fi].file,
                    r,
                    format!(
                        "it is in the test `{}`: the codemod migrates server code, not tests",
                        index.fns[fi].name()
                    ),
                ));
            }
        }
        let cx = mrtr::Crate { index: &index, texts: &texts, bases: &bases, asts: &asts, purposes: &purposes };
        mrtr::plan(&mut out, &cx, &rest, manifest);
        return out;
    }
    let refuse_fn = |out: &mut CrateOutcome, fn_index: usize, reason: String| {
        let site = &index.fns[fn_index];
        for (i, ranges) in &calls {
            if *i == fn_index {
                for r in ranges {
                    out.refused.push((site.file, r.clone(), reason.clone()));
                }
            }
        }
    };

    let mut units: Vec<Unit> = Vec::new();
    // Tools to rewrite, with the helpers they call.
    let mut tool_jobs: BTreeMap<usize, HashMap<String, HelperInline>> = BTreeMap::new();
    // Hand-written `call_tool` handlers to rewrite, with the helpers and methods their arms call.
    let mut handler_jobs: BTreeMap<usize, handler::HandlerJob> = BTreeMap::new();
    // Helpers (shape C): their index and the tools (or handlers) calling them.
    let mut helpers: Vec<(usize, Vec<usize>)> = Vec::new();
    // Imports (`leaf\0path`) tools need for what is inlined from helpers.
    let mut helper_imports: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    // Cells filled on first use whose readers a `call_tool` handler dispatches to: the filler, the
    // handler, and the cell's removal, applied only with the handler's rewrite.
    let mut lazy_behind: Vec<(usize, usize, cache::CachePlan)> = Vec::new();
    for (fi, _) in &calls {
        let site = &index.fns[*fi];
        let src = Src { text: &texts[site.file], base: bases[site.file] };
        if purposes.is_test(*fi, site) {
            refuse_fn(
                &mut out,
                *fi,
                format!(
                    "it is in the test `{}`: the codemod migrates server code, not tests; update the test once the \
                     server no longer asks for roots",
                    site.name()
                ),
            );
            continue;
        }
        let lazy = (!site.is_tool && site.impl_trait.is_none()).then(|| cache::lazy_field(&index, site)).flatten();
        if let Some(read) = lazy.filter(|r| purposes.stores_roots_in(*fi, &r.field)) {
            // A cell `site` (an `ensure_*` method) fills on first use; the tools read it through it.
            let field = read.field.clone();
            let name = site.name();
            let readers: Vec<usize> =
                index.fns.iter().enumerate().filter(|(j, f)| *j != *fi && f.mentions(&name)).map(|(j, _)| j).collect();
            if readers.is_empty() {
                refuse_fn(
                    &mut out,
                    *fi,
                    format!(
                        "the roots are kept in `self.{field}`, filled on first use by `{name}`, which no function of \
                         the crate calls"
                    ),
                );
                continue;
            }
            let mut fns = readers.clone();
            fns.push(*fi);
            let what = allow::readers_phrase(&index, &readers, &field).replace(
                &format!("(reading `self.{field}`)"),
                &format!("(reading `self.{field}` through `{name}`, which fills it on first use)"),
            );
            let no_config = Err(format!(
                "nothing but the client fills `self.{field}` (`{name}` asks for the roots on first use), so there is \
                 no configured list to keep"
            ));
            // Readers that only one hand-written `call_tool` calls: that handler's rewrite gives them
            // the directory, and the cell goes only if it succeeds.
            let caller_of = |r: usize| -> Option<usize> {
                let rname = index.fns[r].name();
                let callers: Vec<usize> = index
                    .fns
                    .iter()
                    .enumerate()
                    .filter(|(j, f)| *j != r && f.mentions(&rname))
                    .map(|(j, _)| j)
                    .collect();
                match callers.as_slice() {
                    [c] if handler::is_handler(&index.fns[*c]) => Some(*c),
                    _ => None,
                }
            };
            let dispatched: Vec<(usize, usize)> = readers
                .iter()
                .filter(|r| !index.fns[**r].is_tool && index.fns[**r].impl_trait.is_none())
                .filter_map(|r| caller_of(*r).map(|c| (*r, c)))
                .collect();
            let handlers: HashSet<usize> = dispatched.iter().map(|(_, c)| *c).collect();
            match purposes.migration(&fns, &what, roots_to, no_config) {
                Migration::Param if handlers.len() > 1 => refuse_fn(
                    &mut out,
                    *fi,
                    format!("`{name}` is called from methods of more than one hand-written `call_tool` handler"),
                ),
                Migration::Param => {
                    let methods: Vec<usize> = dispatched.iter().map(|(r, _)| *r).collect();
                    match cache::plan_cache(
                        &index,
                        &texts,
                        &bases,
                        site,
                        &field,
                        &derives,
                        cache::Fill::Lazy { dispatched: &methods },
                    ) {
                        Ok(plan) => match handlers.iter().next() {
                            None => units.push(Unit::Cache { refresh: *fi, plan }),
                            Some(&h) => {
                                let job = handler_jobs.entry(h).or_default();
                                job.methods.extend(methods);
                                job.lazy = Some(read);
                                lazy_behind.push((*fi, h, plan));
                            }
                        },
                        Err(r) => refuse_fn(&mut out, *fi, r.reason),
                    }
                }
                // `no_config` makes it `Leave`.
                Migration::Config { allow_list } => refuse_fn(&mut out, *fi, allow::no_config(&what, allow_list)),
                Migration::Leave(why) => refuse_fn(&mut out, *fi, why),
            }
        } else if let Some(field) = cache::stored_field(site).filter(|f| purposes.stores_roots_in(*fi, f)) {
            let readers = cache::readers(&index, site, &field);
            if readers.is_empty() {
                let why = allow::init_only(&index, *fi).unwrap_or_else(|| {
                    format!(
                        "the roots are stored in `self.{field}`, which no other function of the crate reads as \
                         `self.{field}` (the codemod follows the field through `self` only)"
                    )
                });
                refuse_fn(&mut out, *fi, why);
                continue;
            }
            let mut fns = readers.clone();
            fns.push(*fi);
            let what = allow::readers_phrase(&index, &readers, &field);
            let seed = allow::seed(&index, &texts, &bases, site, &field, &krate);
            match purposes.migration(&fns, &what, roots_to, seed.clone().map(|_| ())) {
                Migration::Param => {
                    match cache::plan_cache(&index, &texts, &bases, site, &field, &derives, cache::Fill::Refresh) {
                        Ok(plan) => units.push(Unit::Cache { refresh: *fi, plan }),
                        Err(r) => refuse_fn(&mut out, *fi, r.reason),
                    }
                }
                Migration::Config { allow_list } => {
                    // An allow-list has its seed (`migration` asked); other places keep what the
                    // server itself puts there, if anything.
                    let seed = seed.unwrap_or_else(|_| allow::own_seed(&index, &texts, &bases, site, &field));
                    match allow::plan_allow(&index, &texts, &bases, site, &field, &seed, allow_list) {
                        Ok(plan) => units.push(Unit::Allow { refresh: *fi, plan }),
                        Err(r) => refuse_fn(&mut out, *fi, r.reason),
                    }
                }
                Migration::Leave(why) => {
                    // A stored list: say which of the forced migrations would apply to it.
                    let why = match why.strip_suffix(purpose::PARAM_HINT) {
                        Some(reason) => {
                            let param =
                                cache::plan_cache(&index, &texts, &bases, site, &field, &derives, cache::Fill::Refresh);
                            let seed = allow::own_seed(&index, &texts, &bases, site, &field);
                            let config = allow::plan_allow(&index, &texts, &bases, site, &field, &seed, false);
                            match (param, config) {
                                (Ok(_), _) => why,
                                (Err(_), Ok(_)) => format!(
                                    "{reason}; pass `--roots-to config` to stop filling `self.{field}` from the \
                                     client (the code reading it then sees only what the server puts there)"
                                ),
                                (Err(p), Err(c)) => format!(
                                    "{reason}; neither `--roots-to param` ({}) nor `--roots-to config` ({}) applies",
                                    p.reason, c.reason
                                ),
                            }
                        }
                        None => why,
                    };
                    refuse_fn(&mut out, *fi, why)
                }
            }
        } else if site.is_tool {
            tool_jobs.entry(*fi).or_default();
        } else if handler::is_handler(site) {
            handler_jobs.entry(*fi).or_default();
        } else if site.impl_trait.is_some() {
            // The model may know a store the cache shape does not take (through a local copy of a
            // field, inside a value the server holds): say where the roots went.
            let why = match purposes.roots_store(*fi) {
                Some((ty, place)) => {
                    format!("the roots are requested in `{}` and {}", site.name(), stored_elsewhere(&ty, &place))
                }
                None => match purposes.passed_to(*fi).as_slice() {
                    // Stored, perhaps, behind a call the codemod does not follow (a setter).
                    [] => format!(
                        "the roots are requested in `{}` but not stored in a field of the server that tools read",
                        site.name()
                    ),
                    to => format!(
                        "the roots are requested in `{}` and handed on whole to {}, which the codemod does not \
                         follow",
                        site.name(),
                        to.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                    ),
                },
            };
            refuse_fn(&mut out, *fi, why);
        } else {
            let name = site.name();
            let callers: Vec<usize> =
                index.fns.iter().enumerate().filter(|(j, f)| *j != *fi && f.mentions(&name)).map(|(j, _)| j).collect();
            if let Some(why) = allow::init_only(&index, *fi) {
                refuse_fn(&mut out, *fi, why);
                continue;
            }
            // Inlining the request would drop the store (the model knows one the cache shape
            // does not take: behind a parameter, a copy of a field, a value the server holds).
            if let Some((ty, place)) = purposes.roots_store(*fi) {
                refuse_fn(
                    &mut out,
                    *fi,
                    format!("the helper `{name}` requests the roots; they are {}", stored_elsewhere(&ty, &place)),
                );
                continue;
            }
            let inline = match lookup::helper_inline(&src, site.sig, site.block) {
                Ok(h) => h,
                // A method doing one hand-written tool's work, called by the handler with the context.
                Err(_) if matches!(callers.as_slice(), [c] if handler::is_handler(&index.fns[*c])) => {
                    handler_jobs.entry(callers[0]).or_default().methods.push(*fi);
                    continue;
                }
                Err(r) => {
                    // What the roots are for decides before how the helper is written: an
                    // allow-list is never a parameter, whatever the helper's shape.
                    let what = format!("the helper `{name}`");
                    let mut fns = callers.clone();
                    fns.push(*fi);
                    let why = match purposes.migration(&fns, &what, roots_to, Err(allow::NO_CONFIG.into())) {
                        Migration::Leave(why) if purposes.rules_out_param(&fns) => why,
                        _ => format!("{what}: {}", r.reason),
                    };
                    refuse_fn(&mut out, *fi, why);
                    continue;
                }
            };
            let is_caller_ok = |j: usize| index.fns[j].is_tool || handler::is_handler(&index.fns[j]);
            if let Some(&j) = callers.iter().find(|j| !is_caller_ok(**j)) {
                refuse_fn(
                    &mut out,
                    *fi,
                    format!("the helper `{name}` is also called from `{}`, which is not a tool", index.fns[j].name()),
                );
                continue;
            }
            if callers.is_empty() {
                refuse_fn(&mut out, *fi, format!("the helper `{name}` is not called from any tool"));
                continue;
            }
            // Names the inlined text takes from the helper's file's imports.
            let imports: Vec<String> = parsed[site.file]
                .as_ref()
                .map(|p| use_leaves(&p.ast))
                .unwrap_or_default()
                .into_iter()
                .filter(|(leaf, _)| mentions_ident(&inline.text, leaf))
                .filter(|(_, path)| !path.starts_with("self::") && !path.starts_with("super::"))
                .map(|(leaf, path)| format!("{leaf}\u{0}{path}"))
                .collect();
            for &c in &callers {
                if handler::is_handler(&index.fns[c]) {
                    handler_jobs.entry(c).or_default().helpers.insert(name.clone(), inline.clone());
                } else {
                    tool_jobs.entry(c).or_default().insert(name.clone(), inline.clone());
                }
                helper_imports.entry(c).or_default().extend(imports.iter().cloned());
            }
            helpers.push((*fi, callers));
        }
    }

    // Shapes A and C: each tool.
    let mut rewritten: HashSet<usize> = HashSet::new();
    for (ti, helper_map) in &tool_jobs {
        let site = &index.fns[*ti];
        let mut fns = vec![*ti];
        fns.extend(helpers.iter().filter(|(_, callers)| callers.contains(ti)).map(|(h, _)| *h));
        let what = format!("the tool `{}`", site.name());
        let planned = match purposes.migration(&fns, &what, roots_to, Err(allow::NO_CONFIG.into())) {
            Migration::Param => rewrite_tool(&index, &texts, &bases, site, helper_map, &derives),
            // Not offered without a configured list; refused all the same.
            Migration::Config { allow_list } => {
                Err(Refusal { range: 0..0, reason: allow::no_config(&what, allow_list) })
            }
            Migration::Leave(why) => Err(Refusal { range: 0..0, reason: why }),
        };
        match planned {
            Ok(plan) => {
                rewritten.insert(*ti);
                units.push(Unit::Tool { tool: *ti, plan });
            }
            Err(r) => {
                let reason = if r.reason.starts_with(&what) { r.reason } else { format!("{what}: {}", r.reason) };
                if calls.iter().any(|(i, _)| i == ti) {
                    refuse_fn(&mut out, *ti, reason.clone());
                }
                for (h, callers) in &helpers {
                    if callers.contains(ti) {
                        refuse_fn(&mut out, *h, reason.clone());
                    }
                }
            }
        }
    }
    // Hand-written `call_tool` handlers, each whole or not at all.
    let crate_view = handler::Crate { index: &index, texts: &texts, bases: &bases, tools: &tool_defs };
    for (hi, job) in &handler_jobs {
        let mut fns = vec![*hi];
        fns.extend(job.methods.iter().copied());
        fns.extend(helpers.iter().filter(|(_, callers)| callers.contains(hi)).map(|(h, _)| *h));
        let what = "the hand-written `call_tool` handler";
        let planned = match purposes.migration(&fns, what, roots_to, Err(allow::NO_CONFIG.into())) {
            Migration::Param => handler::plan_handler(&crate_view, &index.fns[*hi], job),
            Migration::Config { allow_list } => {
                Err(Refusal { range: 0..0, reason: allow::no_config(what, allow_list) })
            }
            Migration::Leave(why) => Err(Refusal { range: 0..0, reason: why }),
        };
        match planned {
            Ok(plan) => {
                rewritten.insert(*hi);
                units.push(Unit::Handler { handler: *hi, plan });
            }
            Err(r) => {
                refuse_fn(&mut out, *hi, r.reason.clone());
                for m in &job.methods {
                    refuse_fn(&mut out, *m, r.reason.clone());
                }
                for (f, _, _) in lazy_behind.iter().filter(|(_, h, _)| h == hi) {
                    refuse_fn(&mut out, *f, r.reason.clone());
                }
                for (h, callers) in &helpers {
                    if callers.contains(hi) {
                        refuse_fn(&mut out, *h, r.reason.clone());
                    }
                }
            }
        }
    }
    // A cell filled on first use goes with the handler that reads it.
    for (f, h, plan) in lazy_behind {
        if rewritten.contains(&h) {
            units.push(Unit::Cache { refresh: f, plan });
        }
    }
    // A helper goes when every tool calling it was rewritten.
    for (h, callers) in &helpers {
        if callers.iter().all(|c| rewritten.contains(c)) {
            let site = &index.fns[*h];
            let range = text::item_deletion(&texts[site.file], site.range.clone());
            units.push(Unit::Helper { helper: *h, edit: (site.file, Edit::delete(range)) });
        }
    }

    // Merge the units' edits; a unit colliding with an earlier one is left out.
    let mut per_file: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
    let mut removed_names: HashSet<String> = HashSet::new();
    let mut import_files: HashSet<usize> = HashSet::new();
    let mut extra_imports: BTreeMap<usize, std::collections::BTreeSet<String>> = BTreeMap::new();
    for unit in units {
        let edits = unit.edits();
        let clash = edits.iter().any(|(f, e)| {
            per_file.get(f).is_some_and(|taken| {
                taken.iter().any(|t| {
                    collide(&t.byte_range, &e.byte_range) && !(t.byte_range.is_empty() && e.byte_range.is_empty())
                })
            })
        });
        if clash {
            let (fi, what) = unit.origin();
            refuse_fn(&mut out, fi, format!("{what}: its rewrite overlaps another one"));
            continue;
        }
        for (f, e) in edits {
            let list = per_file.entry(f).or_default();
            // Two insertions at one offset (two new structs before one impl) go one after the other.
            if let Some(t) = list.iter_mut().find(|t| t.byte_range.is_empty() && t.byte_range == e.byte_range) {
                t.replacement.push_str(&e.replacement);
            } else {
                list.push(e);
            }
        }
        // Imports the text inlined from helpers needs in the caller's file.
        let mut import_helpers = |caller: usize, file: usize| {
            let known: Vec<String> = parsed[file]
                .as_ref()
                .map(|p| use_leaves(&p.ast))
                .unwrap_or_default()
                .into_iter()
                .map(|(l, _)| l)
                .collect();
            for entry in helper_imports.get(&caller).into_iter().flatten() {
                let (leaf, path) = entry.split_once('\u{0}').unwrap_or((entry, entry));
                if !known.iter().any(|k| k == leaf) && !index.type_names.iter().any(|t| t == leaf) {
                    extra_imports.entry(file).or_default().insert(path.to_owned());
                }
            }
        };
        match unit {
            Unit::Tool { tool, plan } => {
                import_helpers(tool, plan.file);
                out.applied.push((plan.file, applied_title(&plan.param)));
                if let Some(f) = plan.needs_parameters_import {
                    import_files.insert(f);
                }
                out.params.push(plan.param);
            }
            Unit::Cache { refresh, plan } => {
                let site = &index.fns[refresh];
                removed_names.insert(site.name());
                for p in plan.tools {
                    if let Some(f) = p.needs_parameters_import {
                        import_files.insert(f);
                    }
                    let title = match &plan.note {
                        Some(note) => format!("{}; {note}", applied_title(&p.param)),
                        None => applied_title(&p.param),
                    };
                    out.applied.push((p.file, title));
                    out.params.push(p.param);
                }
            }
            Unit::Helper { helper, .. } => {
                removed_names.insert(index.fns[helper].name());
            }
            Unit::Allow { refresh, plan } => {
                removed_names.insert(index.fns[refresh].name());
                removed_names.extend(plan.removed.iter().cloned());
                out.applied.push(plan.title.clone());
            }
            Unit::Handler { handler, plan } => {
                import_helpers(handler, plan.file);
                for p in plan.params {
                    out.applied.push((plan.file, applied_title(&p)));
                    out.params.push(p);
                }
            }
        }
    }
    if per_file.is_empty() {
        return out;
    }
    for f in &import_files {
        extra_imports.entry(*f).or_default().insert("rmcp::handler::server::wrapper::Parameters".into());
    }
    for (f, paths) in extra_imports {
        let Some(p) = &parsed[f] else { continue };
        let last_use = p.ast.items.iter().rev().find(|i| matches!(i, syn::Item::Use(_)));
        let at = last_use
            .map(|u| {
                let r = Src { text: &texts[f], base: bases[f] }.range(u);
                texts[f][r.end..].find('\n').map_or(texts[f].len(), |n| r.end + n + 1)
            })
            .unwrap_or(bases[f]);
        let lines: String = paths.iter().map(|p| format!("use {p};\n")).collect();
        per_file.entry(f).or_default().push(Edit::replace(at..at, lines));
    }

    // Stage 1: the rewrites.
    let mut stage1: Vec<String> = texts.clone();
    for (f, edits) in &per_file {
        stage1[*f] = crate::fix::apply_edits(&texts[*f], edits, line_ending(&texts[*f]));
    }
    // Does anything still use roots?
    let roots_left = files.iter().enumerate().any(|(i, f)| {
        FileKind::of(&f.path) == FileKind::Rust
            && ROOTS_WORDS.iter().any(|w| stage1[i].contains(w) && mentions_ident(&stage1[i], w))
    });
    // Stage 2: companions and imports the rewrite left unused.
    let mut candidates: HashSet<String> = UNUSED_CANDIDATES.iter().map(|s| s.to_string()).collect();
    candidates.extend(removed_names);
    let mut final_texts = stage1.clone();
    for (i, f) in files.iter().enumerate() {
        let kind = FileKind::of(&f.path);
        let mut edits = Vec::new();
        if kind == FileKind::Rust {
            if !per_file.contains_key(&i) && (roots_left || !stage1[i].contains("enable_roots")) {
                continue;
            }
            let Ok(p) = parse_rust(&stage1[i]) else { continue };
            let src = Src { text: &stage1[i], base: p.base };
            if !roots_left {
                edits.extend(companion::enable_roots_edits(&src, &p.file));
            }
            if per_file.contains_key(&i) {
                // The original's `use` items, from the tree parsed at the start (not parsed again).
                let before_uses: Vec<Range<usize>> = parsed[i]
                    .as_ref()
                    .map(|o| {
                        let s = Src { text: &texts[i], base: o.base };
                        o.ast.items.iter().filter(|it| matches!(it, syn::Item::Use(_))).map(|it| s.range(it)).collect()
                    })
                    .unwrap_or_default();
                edits.extend(unused_imports(&src, &p.file, &texts[i], &before_uses, &candidates));
            }
        } else {
            let parsed = crate::json::parse::parse_json_file(&stage1[i], kind);
            if !parsed.errors.is_empty() {
                continue;
            }
            edits.extend(companion::schema_edits(&stage1[i], &parsed.roots, &out.params));
            if !roots_left {
                edits.extend(companion::capability_edits(&stage1[i], &parsed.roots));
            }
        }
        if !edits.is_empty() {
            final_texts[i] = crate::fix::apply_edits(&stage1[i], &edits, line_ending(&stage1[i]));
        }
    }
    // Every changed file must parse, or nothing of the crate's codemod is applied.
    for (i, f) in files.iter().enumerate() {
        if final_texts[i] == texts[i] {
            continue;
        }
        let kind = FileKind::of(&f.path);
        let broken = match kind {
            FileKind::Rust => parse_rust(&final_texts[i]).err().map(|e| e.message),
            _ => crate::json::parse::parse_json_file(&final_texts[i], kind).errors.first().map(|e| e.message.clone()),
        };
        if kind == FileKind::Rust && broken.is_none() {
            final_texts[i] = text::tidy_blank_lines(&final_texts[i], &texts[i]);
        }
        if let Some(why) = broken {
            out.dropped = Some(format!("{} would not parse after the roots codemod ({why})", f.display));
            out.applied.clear();
            out.params.clear();
            return out;
        }
        out.texts.insert(i, final_texts[i].clone());
    }
    out
}

/// Words whose presence means roots are still used after the rewrite.
const ROOTS_WORDS: &[&str] =
    &["list_roots", "on_roots_list_changed", "ListRootsResult", "ListRootsRequest", "request_root_list", "roots_list"];

/// Imports the codemod may remove when its rewrite left them unused: types and functions, never
/// traits (a trait is used by method calls that never name it).
const UNUSED_CANDIDATES: &[&str] = &[
    "RequestContext",
    "Peer",
    "RoleServer",
    "NotificationContext",
    "ListRootsResult",
    "Root",
    "RwLock",
    "Mutex",
    "Arc",
    "PathBuf",
    "Path",
    "ErrorData",
    "McpError",
    "Url",
    "Duration",
    "OnceCell",
    "OnceLock",
];

pub(super) fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

enum Unit {
    Tool { tool: usize, plan: ToolPlan },
    Cache { refresh: usize, plan: cache::CachePlan },
    Helper { helper: usize, edit: (usize, Edit) },
    Handler { handler: usize, plan: handler::HandlerPlan },
    Allow { refresh: usize, plan: allow::AllowPlan },
}

impl Unit {
    fn edits(&self) -> FileEdits {
        match self {
            Unit::Tool { plan, .. } => plan.edits.clone(),
            Unit::Cache { plan, .. } => {
                plan.tools.iter().flat_map(|t| t.edits.iter().cloned()).chain(plan.cleanup.iter().cloned()).collect()
            }
            Unit::Helper { edit, .. } => vec![edit.clone()],
            Unit::Handler { plan, .. } => plan.edits.clone(),
            Unit::Allow { plan, .. } => plan.edits.clone(),
        }
    }

    fn origin(&self) -> (usize, &'static str) {
        match self {
            Unit::Tool { tool, .. } => (*tool, "the tool"),
            Unit::Cache { refresh, .. } => (*refresh, "the roots cache"),
            Unit::Helper { helper, .. } => (*helper, "the helper"),
            Unit::Handler { handler, .. } => (*handler, "the `call_tool` handler"),
            Unit::Allow { refresh, .. } => (*refresh, "the allow-list migration"),
        }
    }
}

/// What the summary says about a rewritten tool: plainly, that its public input schema changed.
pub fn applied_title(p: &NewParam) -> String {
    let kind = match p.need {
        lookup::Need::First => "a required string",
        lookup::Need::FirstOptional => "an optional string",
        lookup::Need::All => "a required array of strings",
    };
    let created = match &p.created {
        Some(s) => format!(" (new struct `{s}`)"),
        None => String::new(),
    };
    format!(
        "tool `{}` takes the directory as a parameter instead of the client's roots: new property `{}`, {kind}{created}; \
         this changes the tool's public input schema, so clients {} pass it",
        p.tool,
        p.name,
        if p.required() { "must now" } else { "may" }
    )
}

/// Rewrites one tool of shape A or C.
fn rewrite_tool(
    index: &Index,
    texts: &[String],
    bases: &[usize],
    site: &FnSite,
    helpers: &HashMap<String, HelperInline>,
    derives: &Derives,
) -> Result<ToolPlan, Refusal> {
    let src = Src { text: &texts[site.file], base: bases[site.file] };
    let mut rw = Rewriter::new(&src, helpers);
    rw.fn_body(site.block);
    rw.finish();
    if let Some(r) = rw.refusal {
        return Err(r);
    }
    let Some(need) = rw.need else {
        return Err(Refusal {
            range: src.range(&site.sig.ident),
            reason: "it does not derive a directory from the roots".into(),
        });
    };
    // Left-over mentions of the placeholder would mean an edit inside another one.
    plan_tool(index, texts, bases, site, rw.edits, need, derives)
}

/// The `list_roots()` calls in a function body, as `server-roots-request` reports them.
fn list_roots_calls(src: &Src, block: &syn::Block) -> Vec<Range<usize>> {
    struct Find<'a> {
        src: &'a Src<'a>,
        found: Vec<Range<usize>>,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if m.method == "list_roots" && m.args.is_empty() && lookup::ident_of(&m.receiver).as_deref() != Some("self")
            {
                let start = self.src.span(m.method.span()).start;
                let end = self.src.span(m.paren_token.span.close()).end;
                self.found.push(start..end);
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if crate::rust::syntax::tokens_mention(&mac.tokens, "list_roots") {
                let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
                if let Ok(args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
                    for a in &args {
                        self.visit_expr(a);
                    }
                }
            }
        }
    }
    let mut find = Find { src, found: Vec::new() };
    find.visit_block(block);
    find.found
}

/// Deletions of `use` leaves in `candidates` that nothing in the file mentions any more but the
/// original text (`before`) did mention outside its `use` items.
pub(super) fn unused_imports(
    src: &Src,
    file: &syn::File,
    before: &str,
    before_uses: &[Range<usize>],
    candidates: &HashSet<String>,
) -> Vec<Edit> {
    let uses: Vec<&syn::ItemUse> = file
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Use(u) => Some(u),
            _ => None,
        })
        .collect();
    let blank = |text: &str, ranges: &[Range<usize>]| -> String {
        let mut t = text.to_owned();
        for r in ranges {
            if r.end <= t.len() {
                t.replace_range(r.clone(), &" ".repeat(r.len()));
            }
        }
        t
    };
    let use_ranges: Vec<Range<usize>> = uses.iter().map(|u| src.range(*u)).collect();
    let rest_now = blank(src.text, &use_ranges);
    let rest_before = blank(before, before_uses);
    // Each text tokenized once for every candidate (`mentions_ident` per name would lex it each time).
    let (now, was) = (text::ident_set(&rest_now), text::ident_set(&rest_before));
    let mentions = |set: &Option<HashSet<String>>, name: &str| set.as_ref().is_none_or(|s| s.contains(name));
    let unused = |name: &str| candidates.contains(name) && !mentions(&now, name) && mentions(&was, name);
    let mut edits = Vec::new();
    for u in uses {
        if tree_empty(&u.tree, &unused) {
            edits.push(Edit::delete(deletion(src.text, src.range(u))));
        } else {
            prune(src, &u.tree, &unused, &mut edits);
        }
    }
    edits
}

/// Every name a file's `use` items bring in, with its full path (`PathBuf`, `std::path::PathBuf`).
pub(super) fn use_leaves(file: &syn::File) -> Vec<(String, String)> {
    fn walk(tree: &syn::UseTree, prefix: &str, out: &mut Vec<(String, String)>) {
        match tree {
            syn::UseTree::Path(p) => walk(&p.tree, &format!("{prefix}{}::", p.ident), out),
            syn::UseTree::Name(n) => out.push((n.ident.to_string(), format!("{prefix}{}", n.ident))),
            syn::UseTree::Rename(r) => out.push((r.rename.to_string(), format!("{prefix}{} as {}", r.ident, r.rename))),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, prefix, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = Vec::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            walk(&u.tree, if u.leading_colon.is_some() { "::" } else { "" }, &mut out);
        }
    }
    out
}

fn leaf_name(tree: &syn::UseTree) -> Option<String> {
    match tree {
        syn::UseTree::Name(n) => Some(n.ident.to_string()),
        syn::UseTree::Rename(r) => Some(r.rename.to_string()),
        _ => None,
    }
}

/// Whether nothing of `tree` is left once unused leaves go.
fn tree_empty(tree: &syn::UseTree, unused: &dyn Fn(&str) -> bool) -> bool {
    match tree {
        syn::UseTree::Path(p) => tree_empty(&p.tree, unused),
        syn::UseTree::Group(g) => g.items.iter().all(|t| tree_empty(t, unused)),
        syn::UseTree::Glob(_) => false,
        leaf => leaf_name(leaf).is_some_and(|n| n != "self" && unused(&n)),
    }
}

/// Edits removing the unused leaves of a tree that keeps something.
fn prune(src: &Src, tree: &syn::UseTree, unused: &dyn Fn(&str) -> bool, edits: &mut Vec<Edit>) {
    match tree {
        syn::UseTree::Path(p) => prune(src, &p.tree, unused, edits),
        syn::UseTree::Group(g) => {
            let items: Vec<&syn::UseTree> = g.items.iter().collect();
            let gone: Vec<bool> = items.iter().map(|t| tree_empty(t, unused)).collect();
            let kept: Vec<usize> = (0..items.len()).filter(|i| !gone[*i]).collect();
            let group_range = src.span(g.brace_token.span.join());
            // `{A, B}` with one simple survivor on one line becomes `A`.
            if kept.len() == 1
                && gone.iter().any(|g| *g)
                && !src.slice(group_range.clone()).contains('\n')
                && !matches!(items[kept[0]], syn::UseTree::Group(_))
                && !has_removals(items[kept[0]], unused)
            {
                edits.push(Edit::replace(group_range, src.node_text(items[kept[0]]).to_owned()));
                return;
            }
            let mut i = 0;
            while i < items.len() {
                if !gone[i] {
                    prune(src, items[i], unused, edits);
                    i += 1;
                    continue;
                }
                let start = i;
                while i < items.len() && gone[i] {
                    i += 1;
                }
                let first = src.range(items[start]);
                let last = src.range(items[i - 1]);
                if i < items.len() {
                    edits.push(Edit::delete(first.start..src.range(items[i]).start));
                } else if start > 0 {
                    edits.push(Edit::delete(src.range(items[start - 1]).end..last.end));
                }
            }
        }
        _ => {}
    }
}

fn has_removals(tree: &syn::UseTree, unused: &dyn Fn(&str) -> bool) -> bool {
    match tree {
        syn::UseTree::Path(p) => has_removals(&p.tree, unused),
        syn::UseTree::Group(g) => g.items.iter().any(|t| tree_empty(t, unused) || has_removals(t, unused)),
        _ => false,
    }
}

/// Why roots stored where the model sees but the cache rewrite does not reach are left.
fn stored_elsewhere(ty: &str, place: &str) -> String {
    format!(
        "stored in `{place}` of `{ty}`; the codemod migrates only a list the function keeps in a field of \
         the server itself (`self.<field>.write()` or `.lock()`)"
    )
}
