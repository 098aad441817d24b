//! Shape B: the roots are fetched into a field of the server (`roots: Arc<RwLock<Vec<PathBuf>>>`)
//! by a refresh method that `on_initialized` and `on_roots_list_changed` call, and tools read the
//! field. Each tool that reads it gets the parameter instead; then the field, its initializers, the
//! refresh method and the handlers' calls of it (and a handler left empty) go.
//!
//! Two kin of it: a cache the constructor seeds with a starting directory (`vec![current_dir()]`),
//! whose tools get an optional parameter defaulting to that directory; and a cell filled on first
//! use (`OnceCell::get_or_try_init`, `if guard.is_none() { *guard = Some(…) }`) by an `ensure_*`
//! method the tools call, which goes like the refresh method.

use std::collections::HashSet;
use std::ops::Range;

use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{Expr, Member, Pat, Stmt};

use super::index::{FnSite, Index};
use super::lookup::{Need, PARAM, Refusal, ident_of, type_last_ident};
use super::text::{Src, deletion, item_deletion, mentions_ident, skip_ws};
use super::tool::{Derives, FileEdits, ToolPlan, plan_tool};
use crate::diagnostic::Edit;

/// What the cache holds per directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Elem {
    PathBuf,
    String,
}

/// The field a refresh function stores the roots in: `self.<field>.write()` / `.lock()`.
pub fn stored_field(site: &FnSite) -> Option<String> {
    struct Find(Option<String>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if (m.method == "write" || m.method == "lock")
                && let Expr::Field(f) = &*m.receiver
                && ident_of(&f.base).as_deref() == Some("self")
                && let Member::Named(name) = &f.member
            {
                self.0.get_or_insert(name.to_string());
            }
            visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find(None);
    find.visit_block(site.block);
    find.0
}

/// The functions other than `refresh` that read `self.<field>`: the tools whose roots use decides
/// the migration. Methods of another type (a test's client handler with a `roots` field of its
/// own) read another field.
pub fn readers(index: &Index, refresh: &FnSite, field: &str) -> Vec<usize> {
    let refresh_name = refresh.name();
    let self_type = |f: &FnSite| f.imp.map(|imp| crate::model::extract::type_text(&imp.self_ty));
    let owner = self_type(refresh);
    index
        .fns
        .iter()
        .enumerate()
        .filter(|(_, f)| !std::ptr::eq(*f, refresh) && !f.mentions(&refresh_name))
        .filter(|(_, f)| owner.is_none() || self_type(f) == owner)
        .filter(|(_, f)| f.mentions(field) && uses_self_field(f.block, field))
        .map(|(i, _)| i)
        .collect()
}

pub struct CachePlan {
    pub tools: Vec<ToolPlan>,
    pub cleanup: FileEdits,
    /// What the summary adds for every tool: how the tool behaves without the new parameter.
    pub note: Option<String>,
}

/// The cell an `ensure_*` method fills on first use with the roots: `self.<field>.get_or_try_init(…)`
/// (`get_or_init`, `get_or_insert_with`), or `self.<field>.write()`/`.lock()` of a field holding
/// an `Option` (`if guard.is_none() { *guard = Some(…) }`); the field's type must say it is such a
/// cell (`OnceCell<Vec<…>>`, `RwLock<Option<Vec<…>>>`).
pub fn lazy_field(index: &Index, site: &FnSite) -> Option<LazyRead> {
    struct Find(Option<String>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if crate::model::flow::LAZY_FILLS.iter().any(|n| m.method == n)
                && let Some(path) = crate::model::flow::self_path(&m.receiver)
                && let [field] = path.as_slice()
            {
                self.0.get_or_insert(field.clone());
            }
            visit::visit_expr_method_call(self, m);
        }
    }
    // It gives the list it keeps (a refresh returns nothing).
    if matches!(site.sig.output, syn::ReturnType::Default) {
        return None;
    }
    let mut find = Find(None);
    find.visit_block(site.block);
    // Through a guard, it fills the `Option` only while it is empty.
    let guarded = || {
        let text = site.block.to_token_stream().to_string();
        (text.contains("is_none") || text.contains("is_some")).then(|| stored_field(site)).flatten()
    };
    let field = find.0.or_else(guarded)?;
    let decl = field_decl(index, site, &field).ok()?.decl;
    let elem = lazy_elem(&decl.ty)?;
    Some(LazyRead { field, via: site.name(), elem, by_ref: returns_ref(site.sig) })
}

/// A cell filled on first use, as its readers see it: `self.<via>(…)` gives the list kept in
/// `self.<field>`.
#[derive(Debug, Clone)]
pub struct LazyRead {
    pub field: String,
    pub via: String,
    elem: Elem,
    by_ref: bool,
}

/// The edits (with `PARAM`) and need of a method that reads the cell through `read.via` and takes
/// its first directory (or every one): for the methods a hand-written `call_tool` dispatches to.
pub fn rewrite_reader(src: &Src, site: &FnSite, read: &LazyRead) -> Result<(Vec<Edit>, Need), Refusal> {
    let path_buf = if mentions_ident(src.text, "PathBuf") { "PathBuf" } else { "std::path::PathBuf" };
    let mut rw = CacheReader::new(src, &read.field, Some(&read.via), read.elem, path_buf);
    rw.by_ref = read.by_ref;
    rw.block(site.block);
    match rw.refusal.take() {
        Some(r) => Err(r),
        None => Ok(rw.finish()),
    }
}

/// The server struct of a method, as the cache sees it: its name, file, fields and the field that
/// holds the cache.
struct Server<'a> {
    name: String,
    file: usize,
    fields: &'a syn::FieldsNamed,
    decl: &'a syn::Field,
}

/// The server struct's name and the declaration of its field `field`, for a method of it.
fn field_decl<'a>(index: &'a Index, site: &FnSite, field: &str) -> Result<Server<'a>, String> {
    let Some(imp) = site.imp else {
        return Err("the roots are cached by a function that is not a method of the server".into());
    };
    let self_name = match &*imp.self_ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        _ => String::new(),
    };
    let named_structs = index.structs_named(&self_name);
    let [st] = named_structs.as_slice() else {
        return Err(format!("the server type `{self_name}` is not a struct of this crate"));
    };
    let syn::Fields::Named(named) = &st.item.fields else {
        return Err(format!("`{self_name}` has no named fields"));
    };
    let Some(decl) = named.named.iter().find(|f| f.ident.as_ref().is_some_and(|i| i == field)) else {
        return Err(format!("`{self_name}` has no field `{field}`"));
    };
    Ok(Server { name: self_name, file: st.file, fields: named, decl })
}

/// How the cache is filled: by a refresh method the roots handlers call (shape B), or on first
/// use by an `ensure_*` method the tools call; `dispatched`: the readers a hand-written
/// `call_tool` dispatches to, which `handler.rs` rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill<'a> {
    Refresh,
    Lazy { dispatched: &'a [usize] },
}

pub fn plan_cache(
    index: &Index,
    texts: &[String],
    bases: &[usize],
    refresh: &FnSite,
    field: &str,
    derives: &Derives,
    fill: Fill,
) -> Result<CachePlan, Refusal> {
    let rsrc = Src { text: &texts[refresh.file], base: bases[refresh.file] };
    let refuse = |reason: String| Refusal { range: rsrc.range(&refresh.sig.ident), reason };
    let Server { name: self_name, file: st_file, fields: named, decl } =
        field_decl(index, refresh, field).map_err(refuse)?;
    let refresh_name = refresh.name();
    let elem = match fill {
        Fill::Refresh => cache_elem(&decl.ty).ok_or_else(|| {
            refuse(format!(
                "the cache `{field}` is not a `Vec<PathBuf>` or `Vec<String>` behind a lock, which is what the codemod \
                 follows"
            ))
        })?,
        Fill::Lazy { .. } => {
            let elem = lazy_elem(&decl.ty).ok_or_else(|| {
                refuse(format!(
                    "the cell `{field}` does not hold a `Vec<PathBuf>` or `Vec<String>` (in a `OnceCell`, or an \
                     `Option` behind a lock), which is what the codemod follows"
                ))
            })?;
            if returned_elem(refresh.sig) != Some(elem) {
                return Err(refuse(format!(
                    "`{refresh_name}` does not return the list it keeps in `self.{field}` (a `Vec` or slice of its \
                     directories), so the codemod cannot tell what its callers read"
                )));
            }
            elem
        }
    };
    let seed = match fill {
        Fill::Refresh => seed_dir(index, texts, bases, field, &self_name).map_err(refuse)?,
        Fill::Lazy { .. } => {
            // A cell that starts filled is never asked for: its starting value would be lost.
            for site in &index.fns {
                let src = Src { text: &texts[site.file], base: bases[site.file] };
                for init in super::allow::initializers(site.block, field, &self_name) {
                    if !init.is_some_and(starts_empty) {
                        let shown = init.map_or_else(|| field.to_owned(), |e| compact(src.node_text(e)));
                        return Err(refuse(format!(
                            "`{}` starts `self.{field}` as `{shown}`, not empty, so `{refresh_name}` may never ask                              for the roots; the codemod does not follow a cell filled before first use",
                            site.name()
                        )));
                    }
                }
            }
            None
        }
    };
    let mut tools = Vec::new();
    let mut cleanup: FileEdits = Vec::new();
    for (i, site) in index.fns.iter().enumerate() {
        // The methods a hand-written `call_tool` dispatches to: `handler.rs` rewrites them.
        if std::ptr::eq(site, refresh) || matches!(fill, Fill::Lazy { dispatched } if dispatched.contains(&i)) {
            continue;
        }
        let src = Src { text: &texts[site.file], base: bases[site.file] };
        let reads_field = site.mentions(field) && uses_self_field(site.block, field);
        let calls_refresh = site.mentions(&refresh_name);
        let handler =
            site.impl_trait.is_some() && matches!(site.name().as_str(), "on_initialized" | "on_roots_list_changed");
        if calls_refresh && handler {
            cleanup.extend(handler_cleanup(&src, site, &refresh_name).into_iter().map(|e| (site.file, e)));
            continue;
        }
        let reads = match fill {
            Fill::Refresh if calls_refresh => {
                return Err(refuse(format!(
                    "`{refresh_name}` is also called from `{}`, not only from the roots notifications",
                    site.name()
                )));
            }
            Fill::Refresh => reads_field,
            Fill::Lazy { .. } if reads_field => {
                return Err(refuse(format!(
                    "`self.{field}` is also read by `{}` itself, not only through `{refresh_name}`",
                    site.name()
                )));
            }
            Fill::Lazy { .. } => calls_refresh,
        };
        if !reads {
            continue;
        }
        if !site.is_tool {
            let what = match fill {
                Fill::Refresh => format!("the cache `{field}` is also read by `{}`, which is not a tool", site.name()),
                Fill::Lazy { .. } => format!(
                    "`{refresh_name}` is called from `{}`, which is neither a `#[tool]` method nor a method that only \
                     a hand-written `call_tool` calls: the codemod gives a directory parameter only to tools",
                    site.name()
                ),
            };
            return Err(refuse(what));
        }
        if let Some(seed) = &seed
            && seed.file != site.file
        {
            return Err(refuse(format!(
                "`{}` seeds `self.{field}` in another file than the tool `{}`, where the starting directory's names \
                 may not resolve",
                seed.by,
                site.name()
            )));
        }
        let path_buf = if mentions_ident(src.text, "PathBuf") { "PathBuf" } else { "std::path::PathBuf" };
        let via = matches!(fill, Fill::Lazy { .. }).then_some(refresh_name.as_str());
        let mut rw = CacheReader::new(&src, field, via, elem, path_buf);
        rw.seed = seed.as_ref().map(|s| s.text.as_str());
        rw.by_ref = via.is_some() && returns_ref(refresh.sig);
        rw.block(site.block);
        if let Some(r) = rw.refusal {
            return Err(r);
        }
        if let Some(seed) = &seed
            && !rw.only_firsts()
        {
            return Err(refuse(format!(
                "the tool `{}` uses `self.{field}` other than by taking its first directory, and `{}` seeds it with \
                 `{}`: a list parameter would lose that starting directory",
                site.name(),
                seed.by,
                seed.shown
            )));
        }
        let (edits, need) = rw.finish();
        tools.push(plan_tool(index, texts, bases, site, edits, need, derives)?);
    }
    // The field, its initializers and the refresh function go.
    let fsrc = Src { text: &texts[st_file], base: bases[st_file] };
    if named.named.len() == 1 {
        // The struct's only field: `struct S {}`.
        cleanup.push((st_file, Edit::replace(fsrc.span(named.brace_token.span.join()), "{}")));
    } else {
        cleanup.push((st_file, Edit::delete(with_comma(&fsrc, fsrc.range(decl)))));
    }
    for site in &index.fns {
        let src = Src { text: &texts[site.file], base: bases[site.file] };
        let mut inits = Inits { src: &src, field, self_name: &self_name, found: Vec::new() };
        inits.visit_block(site.block);
        cleanup.extend(inits.found.into_iter().map(|(r, text)| (site.file, Edit::replace(r, text))));
    }
    // An inherent `impl` holding nothing else goes with it.
    let gone = match refresh.imp {
        Some(imp) if imp.trait_.is_none() && imp.items.len() == 1 => rsrc.range(imp),
        _ => refresh.range.clone(),
    };
    cleanup.push((refresh.file, Edit::delete(item_deletion(rsrc.text, gone))));
    if let Some(s) = &seed
        && let Some(r) = &s.gone
    {
        cleanup.push((s.file, Edit::delete(r.clone())));
    }
    let note = seed.map(|s| {
        format!(
            "without it the tool works in `{0}`, the directory `{1}` seeded the cache with, as it did for a client \
             that shared no roots (`{0}` is now worked out at each call, not once at start-up); the client's roots \
             are no longer asked for, so a client that shared roots and does not pass the parameter now gets that \
             directory instead of its first root",
            s.shown, s.by
        )
    });
    Ok(CachePlan { tools, cleanup, note })
}

/// The one directory a constructor seeds the cache with (`vec![E]`, `Vec::from([E])`, under
/// `Arc::new(RwLock::new(…))`): `E`'s text, shown compacted, and where.
struct SeedDir {
    text: String,
    shown: String,
    /// The function that seeds it, and its file.
    by: String,
    file: usize,
    /// The `let` of that function the seed came from, which goes.
    gone: Option<Range<usize>>,
}

/// The `let name = value;` of the constructor that the seed `dir` (a bare `name`) names, when
/// nothing else there uses `name`: its value and statement.
fn seed_local<'a>(site: &FnSite<'a>, dir: &Expr) -> Option<(&'a Expr, &'a Stmt)> {
    let Expr::Path(p) = dir else { return None };
    let name = p.path.get_ident()?.to_string();
    let binds = |pat: &Pat| {
        let pat = match pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        matches!(pat, Pat::Ident(i) if i.ident == name && i.subpat.is_none())
    };
    let stmt = site.block.stmts.iter().find(|s| matches!(s, Stmt::Local(l) if binds(&l.pat)))?;
    let Stmt::Local(l) = stmt else { return None };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    // The binding and the seed: no other use.
    (super::text::count_ident(&site.block.to_token_stream(), &name) == 2).then_some((&*init.expr, stmt))
}

/// The directory the cache in `self.<field>` starts with, when a constructor seeds it with one;
/// `None` when every initializer starts it empty; why not otherwise.
fn seed_dir(
    index: &Index,
    texts: &[String],
    bases: &[usize],
    field: &str,
    server: &str,
) -> Result<Option<SeedDir>, String> {
    let mut found: Option<SeedDir> = None;
    for site in &index.fns {
        let src = Src { text: &texts[site.file], base: bases[site.file] };
        for init in super::allow::initializers(site.block, field, server) {
            let name = site.name();
            let Some(e) = init else {
                return Err(format!(
                    "`{name}` seeds `self.{field}` with a value it computed (`Self {{ {field} }}`), which the codemod \
                     cannot move into the tools"
                ));
            };
            if super::allow::empty_list(e) {
                continue;
            }
            let shown_all = compact(src.node_text(e));
            let Some(dir) = one_dir(e) else {
                return Err(format!(
                    "`{name}` seeds `self.{field}` with `{shown_all}`, not with one starting directory \
                     (`vec![dir]`), which is what the codemod follows"
                ));
            };
            let mut text = src.node_text(&dir).to_owned();
            // `let here = E; Self { dirs: …vec![here]… }`: the seed is `E`, and the `let` goes.
            let mut gone = None;
            if let Some((value, stmt)) = seed_local(site, &dir) {
                text = src.node_text(value).to_owned();
                gone = Some(deletion(src.text, src.range(stmt)));
            }
            // Names of the constructor (its arguments, its locals, `self`) do not exist in a tool.
            let mut locals = vec!["self".to_owned()];
            for arg in &site.sig.inputs {
                if let syn::FnArg::Typed(t) = arg {
                    super::allow::pat_names(&t.pat, &mut locals);
                }
            }
            struct Lets<'l>(&'l mut Vec<String>);
            impl<'ast> Visit<'ast> for Lets<'_> {
                fn visit_local(&mut self, l: &'ast syn::Local) {
                    super::allow::pat_names(&l.pat, self.0);
                    visit::visit_local(self, l);
                }
            }
            Lets(&mut locals).visit_block(site.block);
            if let Some(local) = locals.iter().find(|l| mentions_ident(&text, l)) {
                return Err(format!(
                    "`{name}` seeds `self.{field}` from `{local}`, a value of `{name}` itself, which the codemod \
                     cannot move into the tools"
                ));
            }
            let shown: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if let Some(other) = &found
                && other.shown != shown
            {
                return Err(format!(
                    "`{}` and `{name}` seed `self.{field}` with different directories (`{}`, `{shown}`)",
                    other.by, other.shown
                ));
            }
            found = Some(SeedDir { text, shown, by: name, file: site.file, gone });
        }
    }
    Ok(found)
}

/// An initializer of an empty list or cell: `Vec::new()`, `OnceCell::new()`, `Default::default()`,
/// `Arc::new(Mutex::new(None))`.
fn starts_empty(e: &Expr) -> bool {
    match e {
        _ if super::allow::empty_list(e) => true,
        Expr::Paren(p) => starts_empty(&p.expr),
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(p) = &*c.func else { return false };
            p.path.segments.last().is_some_and(|s| s.ident == "new" || s.ident == "from") && starts_empty(&c.args[0])
        }
        Expr::Path(p) => p.path.is_ident("None"),
        _ => false,
    }
}

/// A node's text on one line, cut at 60 characters.
fn compact(text: &str) -> String {
    let shown: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if shown.chars().count() > 60 { format!("{}…", shown.chars().take(57).collect::<String>()) } else { shown }
}

/// `E` of `vec![E]`, `Vec::from([E])`, under `Arc::new(…)`, `RwLock::new(…)`, `Mutex::new(…)`.
fn one_dir(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Paren(p) => one_dir(&p.expr),
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(p) = &*c.func else { return None };
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            match segs.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                [.., "Arc" | "Rc" | "RwLock" | "Mutex", "new"] => one_dir(&c.args[0]),
                [.., "Vec", "from"] => match &c.args[0] {
                    Expr::Array(a) if a.elems.len() == 1 => Some(a.elems[0].clone()),
                    _ => None,
                },
                _ => None,
            }
        }
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            let items = syn::parse::Parser::parse2(parser, m.mac.tokens.clone()).ok()?;
            let [one] = items.into_iter().collect::<Vec<_>>().try_into().ok()?;
            Some(one)
        }
        _ => None,
    }
}

/// `T` of `Wrapper<T, …>`.
fn first_type_arg(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// What a lazily filled cell holds per directory: `OnceCell<Vec<PathBuf>>`,
/// `Arc<RwLock<Option<Vec<String>>>>`, … (a cell or an `Option` somewhere under the wrappers).
fn lazy_elem(ty: &syn::Type) -> Option<Elem> {
    wrapped_elem(ty, true)
}

/// The element of the `Vec` under `Arc`/`Rc`/`RwLock`/`Mutex` wrappers, and, for a `lazy` cell,
/// under one `OnceCell`/`OnceLock`/`Option` among them.
fn wrapped_elem(mut ty: &syn::Type, lazy: bool) -> Option<Elem> {
    let mut cell = false;
    loop {
        let syn::Type::Path(p) = ty else { return None };
        let seg = p.path.segments.last()?;
        let inner = first_type_arg(seg);
        match seg.ident.to_string().as_str() {
            "Arc" | "Rc" | "RwLock" | "Mutex" => ty = inner?,
            "OnceCell" | "OnceLock" | "Option" if lazy && !cell => {
                cell = true;
                ty = inner?;
            }
            "Vec" if cell == lazy => return elem_of(inner?),
            _ => return None,
        }
    }
}

fn elem_of(ty: &syn::Type) -> Option<Elem> {
    match type_last_ident(ty).as_deref() {
        Some("PathBuf") => Some(Elem::PathBuf),
        Some("String") => Some(Elem::String),
        _ => None,
    }
}

/// Whether an `ensure_*` method gives its list by reference (`Result<&[PathBuf], E>`).
fn returns_ref(sig: &syn::Signature) -> bool {
    let syn::ReturnType::Type(_, ty) = &sig.output else { return false };
    let mut ty = &**ty;
    loop {
        match ty {
            syn::Type::Reference(_) => return true,
            syn::Type::Paren(p) => ty = &p.elem,
            syn::Type::Path(p) => {
                let Some(seg) = p.path.segments.last().filter(|s| s.ident == "Result") else { return false };
                let syn::PathArguments::AngleBracketed(a) = &seg.arguments else { return false };
                let Some(syn::GenericArgument::Type(inner)) = a.args.first() else { return false };
                ty = inner;
            }
            _ => return false,
        }
    }
}

/// What an `ensure_*` method returns per directory: `Result<&[PathBuf], E>`, `Vec<String>`, ….
fn returned_elem(sig: &syn::Signature) -> Option<Elem> {
    let syn::ReturnType::Type(_, ty) = &sig.output else { return None };
    let mut ty = &**ty;
    loop {
        ty = match ty {
            syn::Type::Reference(r) => &r.elem,
            syn::Type::Slice(s) => return elem_of(&s.elem),
            syn::Type::Paren(p) => &p.elem,
            syn::Type::Path(p) => {
                let seg = p.path.segments.last()?;
                let syn::PathArguments::AngleBracketed(a) = &seg.arguments else { return None };
                let Some(syn::GenericArgument::Type(inner)) = a.args.first() else { return None };
                match seg.ident.to_string().as_str() {
                    "Result" | "Arc" | "Rc" => inner,
                    "Vec" => return elem_of(inner),
                    _ => return None,
                }
            }
            _ => return None,
        };
    }
}

/// `Arc<RwLock<Vec<PathBuf>>>`, `Mutex<Vec<String>>`, …
pub(super) fn cache_elem(ty: &syn::Type) -> Option<Elem> {
    wrapped_elem(ty, false)
}

pub(super) fn uses_self_field(block: &syn::Block, field: &str) -> bool {
    struct Find<'f>(&'f str, bool);
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
            if ident_of(&f.base).as_deref() == Some("self") && matches!(&f.member, Member::Named(n) if n == self.0) {
                self.1 = true;
            }
            visit::visit_expr_field(self, f);
        }
    }
    let mut find = Find(field, false);
    find.visit_block(block);
    find.1
}

/// A range and the comma after it (or, for a last item without one, the comma before it).
pub(super) fn with_comma(src: &Src, range: Range<usize>) -> Range<usize> {
    let after = skip_ws(src.text, range.end);
    if src.text.as_bytes().get(after) == Some(&b',') {
        return deletion(src.text, range.start..after + 1);
    }
    let before = src.text[..range.start].trim_end();
    if before.ends_with(',') {
        return before.len() - 1..range.end;
    }
    deletion(src.text, range)
}

/// `field: …` initializers in struct literals of the server type (`Self { … }` included).
struct Inits<'a> {
    src: &'a Src<'a>,
    field: &'a str,
    self_name: &'a str,
    found: Vec<(Range<usize>, &'static str)>,
}

impl<'ast> Visit<'ast> for Inits<'_> {
    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        let name = s.path.segments.last().map(|p| p.ident.to_string()).unwrap_or_default();
        if name == "Self" || name == self.self_name {
            for fv in &s.fields {
                if matches!(&fv.member, Member::Named(n) if n == self.field) {
                    if s.fields.len() == 1 && s.rest.is_none() {
                        self.found.push((self.src.span(s.brace_token.span.join()), "{}"));
                    } else {
                        self.found.push((with_comma(self.src, self.src.range(fv)), ""));
                    }
                }
            }
        }
        visit::visit_expr_struct(self, s);
    }
}

/// Statements of a roots handler that call the refresh function go, with `let`s that only fed
/// them; a handler left empty goes entirely.
fn handler_cleanup(src: &Src, site: &FnSite, refresh: &str) -> Vec<Edit> {
    let stmts = &site.block.stmts;
    let gone = with_their_clones(src, stmts, |text| mentions_ident(text, refresh));
    if gone.iter().all(|g| *g) {
        return vec![Edit::delete(item_deletion(src.text, site.range.clone()))];
    }
    stmts.iter().zip(&gone).filter(|(_, g)| **g).map(|(s, _)| Edit::delete(deletion(src.text, src.range(s)))).collect()
}

/// Which of `stmts` go: those `goes` says of by their text, and then every `let x = y.clone();`
/// that only going statements used (so no unused variable is left).
pub(super) fn with_their_clones(src: &Src, stmts: &[Stmt], goes: impl Fn(&str) -> bool) -> Vec<bool> {
    let mut gone: Vec<bool> = stmts.iter().map(|s| goes(src.node_text(s))).collect();
    loop {
        let mut changed = false;
        for (i, stmt) in stmts.iter().enumerate() {
            if gone[i] {
                continue;
            }
            if let Stmt::Local(l) = stmt
                && let Pat::Ident(p) = &l.pat
                && l.init.as_ref().is_some_and(|init| is_plain_clone(&init.expr))
            {
                let name = p.ident.to_string();
                let used = stmts
                    .iter()
                    .enumerate()
                    .any(|(j, s)| j != i && !gone[j] && mentions_ident(src.node_text(s), &name));
                if !used {
                    gone[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    gone
}

/// `self.clone()`, `context.peer.clone()`, `Arc::clone(&self.x)`: copies with no other effect.
pub(super) fn is_plain_clone(e: &Expr) -> bool {
    let text = e.to_token_stream().to_string();
    match e {
        Expr::MethodCall(m) => m.method == "clone" && m.args.is_empty() && !text.contains("await"),
        Expr::Call(c) => c.func.to_token_stream().to_string().replace(' ', "").ends_with("::clone"),
        Expr::Path(_) | Expr::Field(_) => true,
        _ => false,
    }
}

/// Rewrites a tool that reads the cache.
struct CacheReader<'s> {
    src: &'s Src<'s>,
    field: &'s str,
    /// The `ensure_*` method the tools read a lazily filled cell through (`self.ensure_roots(..)`),
    /// instead of the field.
    via: Option<&'s str>,
    /// The directory the constructor seeds the cache with (`E` of `vec![E]`): the fallback.
    seed: Option<&'s str>,
    /// The `ensure_*` method gives a reference (`&[PathBuf]`): so does the list that replaces it.
    by_ref: bool,
    elem: Elem,
    path_buf: &'static str,
    /// `let roots = self.roots.read().await;`: name, statement.
    guards: Vec<(String, Range<usize>)>,
    /// Every read of the cache: the range from `self` to the lock's unwrapping (and a `.clone()`).
    reads: Vec<Range<usize>>,
    /// `let dir = roots.first().ok_or_else(…)?;`: the initializer's range, whether the root is cloned,
    /// whether it is required.
    firsts: Vec<(Range<usize>, bool, bool)>,
    /// Whether the guards or reads are used other than by taking the first directory.
    other_use: bool,
    refusal: Option<Refusal>,
}

impl<'s> CacheReader<'s> {
    fn new(src: &'s Src<'s>, field: &'s str, via: Option<&'s str>, elem: Elem, path_buf: &'static str) -> Self {
        CacheReader {
            src,
            field,
            via,
            seed: None,
            by_ref: false,
            elem,
            path_buf,
            guards: Vec::new(),
            reads: Vec::new(),
            firsts: Vec::new(),
            other_use: false,
            refusal: None,
        }
    }

    /// The end of a cache read at the start of the chain `e`: `self.roots.read().await[.clone()]`,
    /// or through the `ensure_*` method: `self.ensure_roots(&peer).await[?][.clone()]`.
    fn read_end<'e>(&self, e: &'e Expr) -> Option<(Range<usize>, Vec<&'e Expr>)> {
        // Chain links from the outside in.
        let mut links: Vec<&'e Expr> = Vec::new();
        let mut cur = e;
        loop {
            links.push(cur);
            cur = match cur {
                Expr::MethodCall(m) => &m.receiver,
                Expr::Field(f) => &f.base,
                Expr::Await(a) => &a.base,
                Expr::Try(t) => &t.expr,
                _ => break,
            };
        }
        links.reverse();
        // links[0] is the base.
        if ident_of(links[0]).as_deref() != Some("self") {
            return None;
        }
        if let Some(via) = self.via {
            if !matches!(links.get(1), Some(Expr::MethodCall(m)) if m.method == via) {
                return None;
            }
            let mut end = 2;
            if matches!(links.get(end), Some(Expr::Await(_))) {
                end += 1;
            }
            if matches!(links.get(end), Some(Expr::Try(_)))
                || matches!(links.get(end), Some(Expr::MethodCall(m)) if m.method == "unwrap" || m.method == "expect")
            {
                end += 1;
            }
            if matches!(links.get(end), Some(Expr::MethodCall(m)) if (m.method == "clone" || m.method == "to_vec") && m.args.is_empty())
            {
                end += 1;
            }
            let range = self.src.range(links[0]).start..self.src.range(links[end - 1]).end;
            return Some((range, links[end..].to_vec()));
        }
        let is_field =
            matches!(links.get(1), Some(Expr::Field(f)) if matches!(&f.member, Member::Named(n) if n == self.field));
        let lock = matches!(links.get(2), Some(Expr::MethodCall(m)) if (m.method == "read" || m.method == "lock") && m.args.is_empty());
        let unwrapped = match links.get(3) {
            Some(Expr::Await(_)) => true,
            Some(Expr::MethodCall(m)) => m.method == "unwrap" || m.method == "expect",
            _ => false,
        };
        if !(is_field && lock && unwrapped) {
            return None;
        }
        let mut end = 4;
        if matches!(links.get(4), Some(Expr::MethodCall(m)) if m.method == "clone" && m.args.is_empty()) {
            end = 5;
        }
        let range = self.src.range(links[0]).start..self.src.range(links[end - 1]).end;
        Some((range, links[end..].to_vec()))
    }

    fn block(&mut self, block: &syn::Block) {
        for stmt in &block.stmts {
            if let Stmt::Local(l) = stmt
                && let Pat::Ident(p) = &l.pat
                && let Some(init) = &l.init
                && init.diverge.is_none()
            {
                if let Some((range, rest)) = self.read_end(&init.expr)
                    && rest.is_empty()
                {
                    self.guards.push((p.ident.to_string(), self.src.range(stmt)));
                    self.reads.push(range);
                    continue;
                }
                if let Some((cloned, required, read)) = self.first_use(&init.expr) {
                    self.firsts.push((self.src.range(&*init.expr), cloned, required));
                    self.reads.extend(read);
                    continue;
                }
            }
            self.visit_stmt(stmt);
        }
    }

    /// `G.first()[.cloned()] UNWRAP` or `self.roots.read().await.first()…`: (cloned, required, the
    /// inline read).
    fn first_use(&self, e: &Expr) -> Option<(bool, bool, Option<Range<usize>>)> {
        let (required, inner) = match e {
            Expr::Try(t) => match &*t.expr {
                Expr::MethodCall(m)
                    if matches!(m.method.to_string().as_str(), "ok_or" | "ok_or_else" | "context" | "with_context") =>
                {
                    (true, &*m.receiver)
                }
                _ => return None,
            },
            Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => (true, &*m.receiver),
            Expr::MethodCall(m)
                if matches!(m.method.to_string().as_str(), "unwrap_or" | "unwrap_or_else" | "unwrap_or_default") =>
            {
                (false, &*m.receiver)
            }
            _ => return None,
        };
        let (cloned, inner) = match inner {
            Expr::MethodCall(m) if m.method == "cloned" => (true, &*m.receiver),
            other => (false, other),
        };
        let Expr::MethodCall(first) = inner else { return None };
        if first.method != "first" || !first.args.is_empty() {
            return None;
        }
        let source = &*first.receiver;
        if ident_of(source).is_some_and(|n| self.guards.iter().any(|(g, _)| *g == n)) {
            return Some((cloned, required, None));
        }
        match self.read_end(source) {
            Some((range, rest)) if rest.is_empty() => Some((cloned, required, Some(range))),
            _ => None,
        }
    }

    /// Whether the tool only takes the first directory of the cache.
    fn only_firsts(&self) -> bool {
        !self.other_use && !self.firsts.is_empty()
    }

    fn finish(self) -> (Vec<Edit>, Need) {
        let only_firsts = self.only_firsts();
        let path_buf = self.path_buf;
        if let Some(seed) = self.seed.filter(|_| only_firsts) {
            // The given directory, else the one the constructor seeded the cache with.
            let mut edits: Vec<Edit> =
                self.guards.iter().map(|(_, stmt)| Edit::delete(deletion(self.src.text, stmt.clone()))).collect();
            for (range, cloned, _) in &self.firsts {
                let amp = if *cloned { "" } else { "&" };
                let value = match self.elem {
                    Elem::PathBuf => format!("{amp}{PARAM}.as_deref().map_or_else(|| {seed}, {path_buf}::from)"),
                    Elem::String => format!("{amp}{PARAM}.clone().unwrap_or_else(|| {seed})"),
                };
                edits.push(Edit::replace(range.clone(), value));
            }
            return (edits, Need::FirstOptional);
        }
        if only_firsts && self.firsts.iter().all(|f| f.2) {
            let mut edits: Vec<Edit> =
                self.guards.iter().map(|(_, stmt)| Edit::delete(deletion(self.src.text, stmt.clone()))).collect();
            for (range, cloned, _) in &self.firsts {
                let value = match (self.elem, cloned) {
                    (Elem::PathBuf, false) => format!("&{path_buf}::from(&{PARAM})"),
                    (Elem::PathBuf, true) => format!("{path_buf}::from(&{PARAM})"),
                    (Elem::String, false) => format!("&{PARAM}"),
                    (Elem::String, true) => format!("{PARAM}.clone()"),
                };
                edits.push(Edit::replace(range.clone(), value));
            }
            return (edits, Need::First);
        }
        let need = if only_firsts { Need::FirstOptional } else { Need::All };
        let amp = if self.by_ref { "&" } else { "" };
        let value = amp.to_owned()
            + &match self.elem {
                Elem::PathBuf => format!("{PARAM}.iter().map({path_buf}::from).collect::<Vec<_>>()"),
                Elem::String if need == Need::All => format!("{PARAM}.clone()"),
                Elem::String => format!("{PARAM}.iter().cloned().collect::<Vec<_>>()"),
            };
        (self.reads.iter().map(|r| Edit::replace(r.clone(), value.clone())).collect(), need)
    }
}

impl<'ast> Visit<'ast> for CacheReader<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.refusal.is_some() {
            return;
        }
        if let Some((range, _)) = self.read_end(e) {
            let inside_first = self.firsts.iter().any(|f| f.0.start <= range.start && range.end <= f.0.end);
            if !inside_first {
                self.other_use = true;
            }
            self.reads.push(range);
            return;
        }
        if let Some(name) = ident_of(e)
            && self.guards.iter().any(|(g, _)| *g == name)
        {
            self.other_use = true;
        }
        visit::visit_expr(self, e);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if ident_of(&f.base).as_deref() == Some("self") && matches!(&f.member, Member::Named(n) if n == self.field) {
            let range = self.src.range(f);
            self.refusal.get_or_insert(Refusal {
                range,
                reason: format!("the tool uses `self.{}` other than by reading it", self.field),
            });
        }
        visit::visit_expr_field(self, f);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let names: HashSet<&str> = self.guards.iter().map(|(g, _)| g.as_str()).chain([self.field]).collect();
        if names.iter().any(|n| crate::rust::syntax::tokens_mention(&mac.tokens, n)) {
            let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            match syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
                Ok(args) => {
                    for a in &args {
                        self.visit_expr(a);
                    }
                }
                Err(_) => {
                    let range = self.src.range(mac);
                    self.refusal.get_or_insert(Refusal {
                        range,
                        reason: "the cache is used inside a macro the codemod cannot read".into(),
                    });
                }
            }
        }
    }
}
