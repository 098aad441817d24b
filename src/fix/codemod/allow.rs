//! The "server configuration" migration, for roots that extend an allow-list: the server seeds a
//! list of directories from its command line, environment or configuration (`Self { allowed:
//! RwLock::new(args.dirs), .. }`), every tool checks the path it is given against it, and a roots
//! refresh (`on_initialized`, `on_roots_list_changed`) adds the client's roots to it.
//!
//! The configured list and its seeding stay; the refresh, its calls in the roots handlers (only the
//! roots part of `on_initialized`) and `on_roots_list_changed` go. The tools are not touched: they
//! go on rejecting paths outside the configured list. A tool parameter never replaces the list
//! (any client could then choose any directory). When nothing but the client fills the list, the
//! codemod refuses: removing the refresh would leave every path rejected.

use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Expr, Member, Pat, Stmt};

use super::cache::with_their_clones;
use super::index::{FnSite, Index};
use super::lookup::{Refusal, ident_of};
use super::text::{Src, deletion, item_deletion, mentions_ident};
use super::tool::FileEdits;
use crate::diagnostic::Edit;

/// Why a shape that asks for the roots itself has no configured list to keep.
pub const NO_CONFIG: &str = "the codemod finds no list of directories the server keeps of its own (a field a \
     constructor seeds from a command-line flag, an environment variable or configuration), so there is none to \
     keep: make the tools check one, then remove the roots request by hand";

/// Why `what` is left for the server-configuration migration when it has no list to keep;
/// `allow_list` as in `Migration::Config`.
pub fn no_config(what: &str, allow_list: bool) -> String {
    if allow_list {
        format!("{what}: {NO_CONFIG}")
    } else {
        format!("{what}: `--roots-to config` asks to keep the directories in server configuration, but {NO_CONFIG}")
    }
}

/// The handlers that refresh roots.
const ROOTS_HANDLERS: [&str; 2] = ["on_initialized", "on_roots_list_changed"];

pub struct AllowPlan {
    pub edits: FileEdits,
    /// (file, what the summary says).
    pub title: (usize, String),
    /// Functions that go (their imports may go too).
    pub removed: Vec<String>,
}

/// "the tool `read_file`", "the tools `a` and `b`", for reasons about the readers of `field`.
pub fn readers_phrase(index: &Index, readers: &[usize], field: &str) -> String {
    let mut names: Vec<String> = readers.iter().map(|r| format!("`{}`", index.fns[*r].name())).collect();
    names.dedup();
    let tools = readers.iter().all(|r| index.fns[*r].is_tool);
    let kind = match (tools, names.len()) {
        (true, 1) => "the tool",
        (true, _) => "the tools",
        (false, 1) => "the function",
        (false, _) => "the functions",
    };
    match names.as_slice() {
        [] => format!("the code reading `self.{field}`"),
        names => format!("{kind} {} (reading `self.{field}`)", names.join(", ")),
    }
}

/// The server struct's name for a method's impl.
fn self_name(site: &FnSite) -> Option<String> {
    match &*site.imp?.self_ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The crate, as the manifest tells: its name, and whether it parses its command line with clap.
#[derive(Debug, Default, Clone)]
pub struct Krate {
    pub name: String,
    pub clap: bool,
}

impl Krate {
    pub fn of(manifest: Option<&std::path::Path>) -> Krate {
        let doc = manifest
            .and_then(|m| std::fs::read_to_string(m).ok())
            .and_then(|t| t.parse::<toml::Table>().ok())
            .unwrap_or_default();
        let name = doc.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str()).unwrap_or("server");
        let clap = doc.get("dependencies").and_then(|d| d.as_table()).is_some_and(|d| d.contains_key("clap"));
        Krate { name: name.to_owned(), clap }
    }
}

/// What seeds the allow-list besides the client: a phrase for the summary, and the edits when
/// the codemod adds the source itself (an environment variable).
#[derive(Debug, Default, Clone)]
pub struct Seed {
    pub phrase: String,
    pub edits: FileEdits,
    /// The environment variable the codemod made the list's source.
    pub added: Option<String>,
}

/// What seeds the list in `self.<field>` besides the client (`new` sets it to `…`), or, when
/// nothing does and the crate has no clap parser, an environment variable the codemod adds as its
/// source; else why not.
pub fn seed(
    index: &Index,
    texts: &[String],
    bases: &[usize],
    refresh: &FnSite,
    field: &str,
    krate: &Krate,
) -> Result<Seed, String> {
    match initial(index, texts, bases, refresh, field) {
        Ok(phrase) => Ok(Seed { phrase, ..Seed::default() }),
        Err(none) => env_seed(index, texts, bases, refresh, field, krate).map_err(|why| {
            format!(
                "nothing but the client ever fills `self.{field}` ({none}): without the client's roots every path \
                 would be rejected{why}"
            )
        }),
    }
}

/// What the server itself puts in `self.<field>`, described for a summary, whether or not it is
/// anything (`initial`'s phrase either way): the seed of a place that is no allow-list.
pub fn own_seed(index: &Index, texts: &[String], bases: &[usize], refresh: &FnSite, field: &str) -> Seed {
    let phrase = initial(index, texts, bases, refresh, field).unwrap_or_else(|none| none);
    Seed { phrase, ..Seed::default() }
}

/// The constructor's seeding of `self.<field>`, described (`` `new` seeds it with `…` ``); or,
/// when none puts anything there, what they do (`the constructor starts it empty`).
fn initial(index: &Index, texts: &[String], bases: &[usize], refresh: &FnSite, field: &str) -> Result<String, String> {
    let Some(server) = self_name(refresh) else {
        return Err("the roots are stored by a function that is not a method of the server".into());
    };
    let mut seeds = Vec::new();
    let mut empty = 0;
    for site in &index.fns {
        let src = Src { text: &texts[site.file], base: bases[site.file] };
        let mut inits = Inits { field, server: &server, found: Vec::new() };
        inits.visit_block(site.block);
        for e in inits.found {
            match e {
                Some(e) if !empty_list(e) => {
                    let shown: String = src.node_text(e).split_whitespace().collect::<Vec<_>>().join(" ");
                    let shown = if shown.chars().count() > 60 {
                        format!("{}…", shown.chars().take(57).collect::<String>())
                    } else {
                        shown
                    };
                    seeds.push(format!("`{}` seeds it with `{shown}`{}", site.name(), seed_source(&src, site, e)));
                }
                // `Self { allowed, .. }`: a local the constructor computed.
                None => seeds.push(format!("`{}` seeds it", site.name())),
                Some(_) => empty += 1,
            }
        }
    }
    match seeds.first() {
        Some(first) => Ok(first.clone()),
        None if empty == 0 => Err("no constructor sets it".to_owned()),
        None => Err("the constructor starts it empty".to_owned()),
    }
}

/// Seeds an allow-list only the client filled from an environment variable (`<CRATE>_<FIELD>`,
/// directories separated as in `PATH`), in the crate's style: only where the crate has no clap
/// parser (a flag would belong there), every initializer is an explicit empty `Vec` and the list
/// holds `PathBuf`s or `String`s.
fn env_seed(
    index: &Index,
    texts: &[String],
    bases: &[usize],
    refresh: &FnSite,
    field: &str,
    krate: &Krate,
) -> Result<Seed, String> {
    let manual = "; seed the list from server configuration (a documented command-line flag or an environment \
                  variable), then run `fix` again";
    if krate.clap {
        return Err(format!(
            ", and the crate parses its command line with clap, where the codemod does not add a flag{manual}"
        ));
    }
    let server = self_name(refresh).unwrap_or_default();
    let structs = index.structs_named(&server);
    let [st] = structs.as_slice() else {
        return Err(format!(", and `{server}` is not one struct of this crate{manual}"));
    };
    let syn::Fields::Named(named) = &st.item.fields else { return Err(manual.into()) };
    let Some(decl) = named.named.iter().find(|f| f.ident.as_ref().is_some_and(|i| i == field)) else {
        return Err(manual.into());
    };
    let Some(elem) = super::cache::cache_elem(&decl.ty) else {
        return Err(format!(", and `{field}` is not a `Vec<PathBuf>` or `Vec<String>` behind a lock{manual}"));
    };
    let var = format!("{}_{}", krate.name, field).to_uppercase().replace(['-', '.'], "_");
    let value = match elem {
        super::cache::Elem::PathBuf => {
            format!("std::env::var_os(\"{var}\").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default()")
        }
        super::cache::Elem::String => format!(
            "std::env::var_os(\"{var}\").map(|v| std::env::split_paths(&v).map(|p| p.to_string_lossy().into_owned()).collect()).unwrap_or_default()"
        ),
    };
    let mut edits: FileEdits = Vec::new();
    for site in &index.fns {
        let src = Src { text: &texts[site.file], base: bases[site.file] };
        let mut inits = Inits { field, server: &server, found: Vec::new() };
        inits.visit_block(site.block);
        for e in inits.found {
            let Some(leaf) = e.and_then(empty_vec) else {
                return Err(format!(", and `{}` does not start it as an explicit empty `Vec`{manual}", site.name()));
            };
            edits.push((site.file, Edit::replace(src.range(leaf), value.clone())));
        }
    }
    if edits.is_empty() {
        return Err(manual.into());
    }
    let ssrc = Src { text: &texts[st.file], base: bases[st.file] };
    let line = super::text::line_start(ssrc.text, ssrc.range(&decl.ty).start);
    let indent = super::text::indent_at(ssrc.text, line).to_owned();
    let doc =
        format!("{indent}/// Seeded from the environment variable `{var}` (directories separated as in `PATH`).\n");
    edits.push((st.file, Edit::replace(line..line, doc)));
    let phrase = format!("seeded from the new environment variable `{var}`, directories separated as in `PATH`");
    Ok(Seed { phrase, edits, added: Some(var) })
}

/// The explicit empty `Vec` inside an initializer: `Vec::new()`, `vec![]`, `Vec::default()`, under
/// `Arc::new(RwLock::new(…))`.
fn empty_vec(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Paren(p) => empty_vec(&p.expr),
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else { return None };
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let last = segs.last().map(String::as_str).unwrap_or("");
            let vec = segs.len() >= 2 && segs[segs.len() - 2] == "Vec";
            match c.args.len() {
                0 if vec && matches!(last, "new" | "default") => Some(e),
                1 if matches!(last, "new" | "from") => empty_vec(&c.args[0]),
                _ => None,
            }
        }
        Expr::Macro(m) if m.mac.path.is_ident("vec") && m.mac.tokens.is_empty() => Some(e),
        _ => None,
    }
}

/// Where the constructor's list comes from, as far as its text says: an environment variable, the
/// command line, or those of its arguments the seeding value `seed` names.
fn seed_source(src: &Src, site: &FnSite, seed: &Expr) -> String {
    let seed_text = src.node_text(seed);
    let text = src.slice(site.range.clone());
    for call in ["env::var(\"", "env::var_os(\""] {
        if let Some(at) = text.find(call) {
            let rest = &text[at + call.len()..];
            if let Some(end) = rest.find('"') {
                return format!(", from the environment variable `{}`", &rest[..end]);
            }
        }
    }
    if text.contains("env::args") || text.contains("::parse()") {
        return ", from the command line".into();
    }
    let params: Vec<String> = site
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) if mentions_ident(seed_text, &p.ident.to_string()) => Some(format!("`{}`", p.ident)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if params.is_empty() { String::new() } else { format!(", from its argument {}", params.join(", ")) }
}

/// `Vec::new()`, `vec![]`, `Default::default()`, `Arc::new(RwLock::new(Vec::new()))`.
pub(super) fn empty_list(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => empty_list(&p.expr),
        // `RwLock::new(None)`: no list yet.
        Expr::Path(p) => p.path.is_ident("None"),
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else { return false };
            let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            match c.args.len() {
                0 => matches!(last.as_str(), "new" | "default"),
                1 => matches!(last.as_str(), "new" | "from") && empty_list(&c.args[0]),
                _ => false,
            }
        }
        Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        _ => false,
    }
}

/// The initializers of `field` in the struct literals of `server` (`Self { … }` included) in
/// `block`: the value, or `None` for the shorthand `Self { field }`.
pub(super) fn initializers<'ast>(block: &'ast syn::Block, field: &str, server: &str) -> Vec<Option<&'ast Expr>> {
    let mut inits = Inits { field, server, found: Vec::new() };
    inits.visit_block(block);
    inits.found
}

/// Initializers of `field` in struct literals of the server type: the value, or `None` for the
/// shorthand `Self { field }`.
struct Inits<'a, 'ast> {
    field: &'a str,
    server: &'a str,
    found: Vec<Option<&'ast Expr>>,
}

impl<'ast> Visit<'ast> for Inits<'_, 'ast> {
    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        let name = s.path.segments.last().map(|p| p.ident.to_string()).unwrap_or_default();
        if name == "Self" || name == self.server {
            for fv in &s.fields {
                if matches!(&fv.member, Member::Named(n) if n == self.field) {
                    self.found.push(if fv.colon_token.is_some() { Some(&fv.expr) } else { None });
                }
            }
        }
        visit::visit_expr_struct(self, s);
    }
}

/// Plans the migration: the refresh goes with its calls in the roots handlers, and the handlers'
/// roots part; the list, its seeding and the tools stay.
pub fn plan_allow(
    index: &Index,
    texts: &[String],
    bases: &[usize],
    refresh: &FnSite,
    field: &str,
    seed: &Seed,
    allow_list: bool,
) -> Result<AllowPlan, Refusal> {
    let rsrc = Src { text: &texts[refresh.file], base: bases[refresh.file] };
    let refuse = |reason: String| Refusal { range: rsrc.range(&refresh.sig.ident), reason };
    let refresh_name = refresh.name();
    let is_handler = |s: &FnSite| s.impl_trait.is_some() && ROOTS_HANDLERS.contains(&s.name().as_str());
    let mut edits: FileEdits = seed.edits.clone();
    let mut removed = Vec::new();
    let mut gone_handlers = Vec::new();
    if is_handler(refresh) {
        // The roots are asked for in the handler itself.
        let cut = roots_part(&rsrc, refresh, &|t: &str| mentions_ident(t, "list_roots") || writes_field(t, field))
            .map_err(|why| refuse(format!("`{refresh_name}`: {why}")))?;
        if cut.whole {
            gone_handlers.push(refresh_name.clone());
        }
        edits.extend(cut.edits.into_iter().map(|e| (refresh.file, e)));
    } else {
        for site in &index.fns {
            if std::ptr::eq(site, refresh) || !site.mentions(&refresh_name) {
                continue;
            }
            if !is_handler(site) {
                return Err(refuse(format!(
                    "`{refresh_name}` is also called from `{}`, not only from the roots notifications",
                    site.name()
                )));
            }
            let src = Src { text: &texts[site.file], base: bases[site.file] };
            let cut = roots_part(&src, site, &|t: &str| mentions_ident(t, &refresh_name))
                .map_err(|why| refuse(format!("`{}`: {why}", site.name())))?;
            if cut.whole {
                gone_handlers.push(site.name());
            }
            edits.extend(cut.edits.into_iter().map(|e| (site.file, e)));
        }
        edits.push((refresh.file, Edit::delete(item_deletion(rsrc.text, refresh.range.clone()))));
        removed.push(refresh_name.clone());
    }
    // A roots handler that does nothing else goes too, whoever it called.
    for site in index.fns.iter().filter(|s| is_handler(s) && s.name() == "on_roots_list_changed") {
        if !gone_handlers.contains(&site.name()) && site.block.stmts.is_empty() {
            let src = Src { text: &texts[site.file], base: bases[site.file] };
            edits.push((site.file, Edit::delete(item_deletion(src.text, site.range.clone()))));
            gone_handlers.push(site.name());
        }
    }
    let mut what: Vec<String> = Vec::new();
    if !is_handler(refresh) {
        what.push(format!("the roots refresh `{refresh_name}`"));
    }
    for h in ["on_roots_list_changed", "on_initialized"] {
        let touched = gone_handlers.iter().any(|g| g == h);
        let edited = !touched
            && index.fns.iter().any(|s| {
                is_handler(s)
                    && s.name() == h
                    && edits.iter().any(|(f, e)| *f == s.file && within(&e.byte_range, &s.range))
            });
        if touched {
            what.push(format!("`{h}`"));
        } else if edited {
            what.push(format!("the roots part of `{h}`"));
        }
    }
    let title = if allow_list {
        format!(
            "the allow-list `self.{field}` stays server configuration ({}); the client's roots no longer extend it: \
             removed {}. The tools still reject paths outside the configured directories, and clients can no longer \
             add directories to it",
            seed.phrase,
            what.join(", ")
        )
    } else {
        // `--roots-to config` where the roots are no allow-list: say only what the change does.
        format!(
            "`self.{field}` keeps only what the server puts there itself ({}); the client's roots no longer fill it: \
             removed {}. The code that reads `self.{field}` now always sees that: review what it does without the \
             client's roots",
            seed.phrase,
            what.join(", ")
        )
    };
    let title = match &seed.added {
        Some(var) => format!(
            "{title}. Nothing but the client filled the list before: set `{var}` to the directories the tools may \
             read, or they reject every path"
        ),
        None => title,
    };
    Ok(AllowPlan { edits, title: (refresh.file, title), removed })
}

fn within(inner: &Range<usize>, outer: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Whether a statement's text writes `self.<field>` (through a guard: `.write()`, `.lock()`, or an
/// assignment).
fn writes_field(text: &str, field: &str) -> bool {
    let compact: String = text.split_whitespace().collect();
    [".write()", ".lock()", "=", ".extend(", ".push("]
        .iter()
        .any(|w| compact.contains(&format!("self.{field}{w}")) || compact.contains(&format!("self.{field}.clone(){w}")))
        || (compact.contains(&format!("self.{field}")) && compact.contains("list_roots"))
}

/// What removing the roots part of a handler edits.
struct Cut {
    edits: Vec<Edit>,
    /// The whole handler goes.
    whole: bool,
}

/// The statements of a handler that are about roots (`is_roots` on their text), with the `let`s
/// that only fed them; a handler left empty goes whole. Refused when a statement that stays uses
/// a name a removed statement bound. A parameter only the removed statements used is renamed
/// `_name` (a trait method keeps its signature), so no unused variable is left.
fn roots_part(src: &Src, site: &FnSite, is_roots: &dyn Fn(&str) -> bool) -> Result<Cut, String> {
    let stmts = &site.block.stmts;
    let gone = with_their_clones(src, stmts, is_roots);
    if gone.iter().all(|g| *g) {
        return Ok(Cut { edits: vec![Edit::delete(item_deletion(src.text, site.range.clone()))], whole: true });
    }
    // Names the removed statements bound, used by one that stays.
    for (i, stmt) in stmts.iter().enumerate() {
        if !gone[i] {
            continue;
        }
        if let Stmt::Local(l) = stmt {
            let mut names = Vec::new();
            pat_names(&l.pat, &mut names);
            for n in names {
                if let Some(j) = (0..stmts.len()).find(|j| !gone[*j] && mentions_ident(src.node_text(&stmts[*j]), &n)) {
                    let shown: String = src.node_text(&stmts[j]).split_whitespace().collect::<Vec<_>>().join(" ");
                    return Err(format!("`{shown}` uses `{n}`, which the roots request gives"));
                }
            }
        }
    }
    let mut edits: Vec<Edit> = stmts
        .iter()
        .zip(&gone)
        .filter(|(_, g)| **g)
        .map(|(s, _)| Edit::delete(deletion(src.text, with_comment_above(src.text, src.range(s)))))
        .collect();
    for input in &site.sig.inputs {
        let syn::FnArg::Typed(t) = input else { continue };
        let Pat::Ident(p) = &*t.pat else { continue };
        let name = p.ident.to_string();
        if name.starts_with('_') {
            continue;
        }
        let used = stmts.iter().zip(&gone).any(|(s, g)| !*g && mentions_ident(src.node_text(s), &name));
        if !used {
            let at = src.range(&p.ident).start;
            edits.push(Edit::replace(at..at, "_".to_owned()));
        }
    }
    // An `#[allow(deprecated)]` only the roots needed.
    let body_edits: Vec<Edit> =
        edits.iter().filter(|e| within(&e.byte_range, &src.range(site.block))).cloned().collect();
    let new_body = super::text::render(src.text, src.range(site.block), &body_edits);
    edits.extend(super::tool::allow_deprecated_edits(src, site.attrs, &new_body));
    Ok(Cut { edits, whole: false })
}

/// A statement's range, from the `//` comment lines right above it (they explain it, so they go
/// with it).
fn with_comment_above(text: &str, range: Range<usize>) -> Range<usize> {
    let mut start = super::text::line_start(text, range.start);
    if !text[start..range.start].trim().is_empty() {
        return range;
    }
    while start > 0 {
        let above = super::text::line_start(text, start - 1);
        if !text[above..start].trim_start().starts_with("//") {
            break;
        }
        start = above;
    }
    let first = skip_indent(text, start);
    first.min(range.start)..range.end
}

fn skip_indent(text: &str, at: usize) -> usize {
    at + text[at..].len() - text[at..].trim_start_matches([' ', '\t']).len()
}

pub(super) fn pat_names(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Ident(i) => out.push(i.ident.to_string()),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pat_names(e, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|e| pat_names(e, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pat_names(&f.pat, out)),
        Pat::Type(t) => pat_names(&t.pat, out),
        Pat::Reference(r) => pat_names(&r.pat, out),
        _ => {}
    }
}

/// The reason for a function called only from `on_initialized` (no tool asks for the roots), with
/// where it stores them; `None` when something else calls it too.
pub fn init_only(index: &Index, f: usize) -> Option<String> {
    let site = &index.fns[f];
    let name = site.name();
    let callers: Vec<&FnSite> =
        index.fns.iter().enumerate().filter(|(j, g)| *j != f && g.mentions(&name)).map(|(_, g)| g).collect();
    let is_init = |g: &&FnSite| g.impl_trait.is_some() && g.name() == "on_initialized";
    if callers.is_empty() || !callers.iter().all(is_init) {
        return None;
    }
    let into = stored_in(site.block)
        .or_else(|| stored_through(index, f))
        .map(|s| format!(" and stores them in {s}"))
        .unwrap_or_default();
    Some(format!(
        "`{name}` is called only from `on_initialized`{into}; the codemod does not follow that to the code that \
         reads it: no tool asks for the roots itself, so none is given a directory parameter"
    ))
}

/// Where a helper puts the roots through a free function of the crate that writes a global
/// (`globals::set_root(path)` with `ROOT.set(..)` in it), and who else sets that global (a
/// configured value the server already has): for the refusal. Functions are matched by name, and
/// only a name the crate defines once counts.
fn stored_through(index: &Index, helper: usize) -> Option<String> {
    struct Calls(Vec<syn::Path>);
    impl<'ast> Visit<'ast> for Calls {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let Expr::Path(p) = &*c.func {
                self.0.push(p.path.clone());
            }
            visit::visit_expr_call(self, c);
        }
    }
    let free = |name: &str| {
        let mut found = index.fns.iter().enumerate().filter(|(_, g)| {
            g.imp.is_none() && g.name() == name && !g.sig.inputs.iter().any(|a| matches!(a, syn::FnArg::Receiver(_)))
        });
        let one = found.next();
        one.filter(|_| found.next().is_none()).map(|(j, _)| j)
    };
    let global = |j: usize| stored_in(index.fns[j].block).filter(|s| s.starts_with("the global"));
    let mut calls = Calls(Vec::new());
    calls.visit_block(index.fns[helper].block);
    for path in &calls.0 {
        let Some(last) = path.segments.last().map(|s| s.ident.to_string()) else { continue };
        let Some(setter) = free(&last) else { continue };
        let Some(written) = global(setter) else { continue };
        let shown = path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
        // Another setter of the same global, and who calls it: the server's own configuration.
        let others: Vec<String> = (0..index.fns.len())
            .filter(|&j| j != setter && j != helper && global(j).as_deref() == Some(written.as_str()))
            .map(|j| {
                let name = index.fns[j].name();
                let callers: Vec<String> = index
                    .fns
                    .iter()
                    .enumerate()
                    .filter(|(k, g)| *k != j && g.mentions(&name))
                    .map(|(_, g)| format!("`{}`", g.name()))
                    .collect();
                if callers.is_empty() { format!("`{name}`") } else { format!("`{name}` (from {})", callers.join(", ")) }
            })
            .collect();
        let also =
            if others.is_empty() { String::new() } else { format!(", which {} also sets", others.join(" and ")) };
        return Some(format!("{written} (through `{shown}`){also}"));
    }
    None
}

/// Where a helper called only from `on_initialized` puts the roots, for its refusal: a global
/// (`ROOTS.set(…)`), a session object (`session.roots = …`), or a field of the server.
pub fn stored_in(block: &syn::Block) -> Option<String> {
    struct Find(Option<String>);
    impl Find {
        fn target(&mut self, e: &Expr) {
            if self.0.is_some() {
                return;
            }
            let mut base = e;
            let mut path = Vec::new();
            loop {
                match base {
                    Expr::Field(f) => {
                        if let Member::Named(n) = &f.member {
                            path.push(n.to_string());
                        }
                        base = &f.base;
                    }
                    Expr::MethodCall(m)
                        if ["write", "lock", "borrow_mut", "get_mut", "unwrap", "expect"]
                            .iter()
                            .any(|n| m.method == n) =>
                    {
                        base = &m.receiver
                    }
                    Expr::Await(a) => base = &a.base,
                    Expr::Unary(u) => base = &u.expr,
                    Expr::Try(t) => base = &t.expr,
                    _ => break,
                }
            }
            let root = match base {
                Expr::Path(p) => p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::"),
                _ => return,
            };
            path.reverse();
            let shown = std::iter::once(root.clone()).chain(path).collect::<Vec<_>>().join(".");
            let last = root.rsplit("::").next().unwrap_or(&root);
            self.0 = Some(if root == "self" {
                format!("the server field `{shown}`")
            } else if last.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()) {
                format!("the global `{root}`")
            } else {
                format!("the session object `{shown}`")
            });
        }
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            self.target(&a.left);
            visit::visit_expr_assign(self, a);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if ["set", "insert", "replace", "store", "send", "extend", "push", "get_or_init"]
                .iter()
                .any(|n| m.method == n)
                && ident_of(&m.receiver).as_deref() != Some("context")
            {
                self.target(&m.receiver);
            }
            visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find(None);
    find.visit_block(block);
    find.0
}
