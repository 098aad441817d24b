//! The local value flow of the client's roots inside one function body: what each expression is
//! as far as roots go (`Kind`: a roots list, one root, a string or a path made from one, …), kept
//! up to date by a walk in evaluation order (`Walker`) that tells a `Sink` about every expression
//! and pattern with the names in scope (`Flow`).
//!
//! A roots list is recognised by type, field and flow: the `roots` field of a `ListRootsResult`
//! (or of a cache of them), `roots_list()` (mcp-attr), a local or parameter named like `roots` or
//! typed `Vec<Root>` / `&[Root]`, `value["roots"]` of an MRTR `inputResponses` answer read back, a
//! field of `self` the file fills with roots (`roots::file_fields`), and anything derived from one
//! element by element (`.iter().map(..)`, `.filter_map(..)`, `.collect()`). Values the function
//! cannot place (a field of `self`, a helper's result) may be given a source (`Kind::Source`) that
//! the crate model resolves across functions and files (`roots::RootsFlow`).
//!
//! The crate model's roots facts (`roots::fn_facts`) and the per-function roots rules
//! (`root-prefix-check`, `root-uri-to-path`) walk with it.

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Lit, Pat, Type, UnOp};

use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{is_self, path_ends_with};
use std::rc::Rc;

/// What a value is, as far as the roots rules care.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A list or iterator of the client's roots, or of values derived from them one by one.
    List(Elem),
    /// One root (`Root`, `&Root`, an `Option` of one).
    Root,
    /// A string from a root: its URI, or what is left of it after string surgery.
    RootStr,
    /// A `Path` / `PathBuf` made from a root.
    RootPath,
    /// Named like a root (`root`, `workspace_root`, `root_dir`), type unknown.
    RootNamed,
    /// A string not known to come from a root (an MCP `uri` field, a `&str` parameter).
    Str,
    /// A whole filesystem path turned into a string (`p.to_str()`, `p.to_string_lossy()`).
    PathStr,
    /// A `Path` / `PathBuf` not known to come from a root.
    Path,
    /// A value the function cannot place: `Flow::sources[i]`, a field of `self` or a helper's
    /// result, which the crate model may know to be a roots list (only in a walk that tracks
    /// sources, `Flow::tracking`).
    Source(u16),
    /// One element of a `Source` list (`sources.first()`, a loop's item), or a path joined onto one.
    SourceItem(u16),
}

/// The elements of a roots-derived list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Elem {
    Root,
    Str,
    Path,
    Other,
}

impl Kind {
    /// Comes from the client's roots (or is named like one).
    pub(crate) fn rooted(self) -> bool {
        matches!(self, Kind::List(_) | Kind::Root | Kind::RootStr | Kind::RootPath | Kind::RootNamed)
    }

    /// A string (so `starts_with` is `str::starts_with`).
    pub(crate) fn is_str(self) -> bool {
        matches!(self, Kind::RootStr | Kind::Str | Kind::PathStr)
    }

    pub(crate) fn is_path(self) -> bool {
        matches!(self, Kind::RootPath | Kind::Path)
    }

    /// A list of roots, or a list the crate model may know to be one.
    pub(crate) fn is_list(self) -> bool {
        matches!(self, Kind::List(_) | Kind::Source(_))
    }

    /// One element of a `List` or `Source` list.
    pub(crate) fn item(self) -> Option<Kind> {
        match self {
            Kind::List(e) => e.item(),
            Kind::Source(i) => Some(Kind::SourceItem(i)),
            _ => None,
        }
    }

    /// The source a value depends on, if any.
    pub(crate) fn source(self) -> Option<u16> {
        match self {
            Kind::Source(i) | Kind::SourceItem(i) => Some(i),
            _ => None,
        }
    }

    fn elem(self) -> Elem {
        match self {
            Kind::Root => Elem::Root,
            Kind::RootStr => Elem::Str,
            Kind::RootPath => Elem::Path,
            _ => Elem::Other,
        }
    }
}

impl Elem {
    fn item(self) -> Option<Kind> {
        match self {
            Elem::Root => Some(Kind::Root),
            Elem::Str => Some(Kind::RootStr),
            Elem::Path => Some(Kind::RootPath),
            Elem::Other => None,
        }
    }
}

/// Methods that hand their receiver on (a guard, a clone, an unwrap, an iterator over it).
/// Methods of a cell filled once, on first use, that give its value (`OnceCell`, `OnceLock`,
/// `Option::get_or_insert_with`): their closure fills the cell.
pub(crate) const LAZY_FILLS: &[&str] = &["get_or_init", "get_or_try_init", "get_or_insert_with"];

const TRANSPARENT: &[&str] = &[
    "clone",
    "to_owned",
    "as_ref",
    "as_mut",
    "borrow",
    "borrow_mut",
    "read",
    "write",
    "lock",
    "blocking_read",
    "blocking_write",
    "blocking_lock",
    "unwrap",
    "expect",
    "unwrap_or_default",
    "unwrap_or",
    "unwrap_or_else",
    "ok",
    "ok_or",
    "ok_or_else",
    "context",
    "with_context",
    "map_err",
    "cloned",
    "copied",
    "as_deref",
    "into_owned",
    "deref",
    "as_slice",
    "to_vec",
    "into",
    "as_path",
    "as_os_str",
    "iter",
    "into_iter",
    "iter_mut",
    "filter",
    "take",
    "skip",
    "rev",
    "peekable",
    "fuse",
    "skip_while",
    "take_while",
    "inspect",
    "collect",
    "flatten",
    "drain",
    "sorted",
    "as_array",
];

/// Macros that only print or log.
const OUTPUT_MACROS: &[&str] = &[
    "trace", "debug", "info", "warn", "error", "log", "event", "println", "eprintln", "print", "eprint", "dbg",
    "write", "writeln",
];

/// Methods whose closure argument receives the receiver's element.
const CLOSURE_METHODS: &[&str] = &[
    "map",
    "filter_map",
    "filter",
    "find",
    "find_map",
    "any",
    "all",
    "for_each",
    "position",
    "and_then",
    "map_or",
    "map_or_else",
    "is_some_and",
    "is_none_or",
    "inspect",
    "flat_map",
    "take_while",
    "skip_while",
    "max_by_key",
    "min_by_key",
    "retain",
];

/// String methods whose result is (part of) the receiver string.
const STRING_OPS: &[&str] = &[
    "strip_prefix",
    "strip_suffix",
    "trim_start_matches",
    "trim_left_matches",
    "trim_end_matches",
    "trim_matches",
    "trim",
    "trim_start",
    "trim_end",
    "replace",
    "replacen",
    "to_lowercase",
];

/// The kinds of the local names in scope, innermost last.
#[derive(Default)]
pub(crate) struct Flow {
    scope: Vec<(String, Option<Kind>)>,
    /// Fields of `self` that hold roots (see `FileFacts`).
    fields: Vec<(String, Elem)>,
    /// The function's parameters, and locals bound from them: data the request brought.
    from_request: Vec<String>,
    /// In a walk for the crate model: the places and calls whose values the function cannot
    /// place (`Kind::Source`). `None` in the rules' own walks, where such values stay unknown.
    pub(crate) sources: Option<Vec<SourceRef>>,
    /// How many closures the walk is inside (a `return` there leaves the closure).
    pub(crate) closures: usize,
    /// Locals bound to an empty collection (`Vec::new()`), by their index in `scope`: a list the
    /// function fills itself, which is a roots list when all it is given comes from roots
    /// (`grow`). `true` once a push made it one.
    empty_lists: Vec<(usize, bool)>,
}

/// What a `Kind::Source` is: a place under `self`, or a call whose result the function uses.
#[derive(Clone, Debug)]
pub(crate) enum SourceRef {
    /// `self.a.b` (through guards and accessors): `["a", "b"]`.
    Field(Vec<String>),
    /// `self.m(..)` or `path::f(..)`: the spans of its first token and its closing parenthesis (the
    /// range the crate model keeps for the call).
    Call(proc_macro2::Span, proc_macro2::Span),
}

impl SourceRef {
    fn same(&self, other: &SourceRef) -> bool {
        match (self, other) {
            (SourceRef::Field(a), SourceRef::Field(b)) => a == b,
            (SourceRef::Call(a, b), SourceRef::Call(c, d)) => a.start() == c.start() && b.end() == d.end(),
            _ => false,
        }
    }
}

impl Flow {
    pub(crate) fn mark(&self) -> usize {
        self.scope.len()
    }

    pub(crate) fn reset(&mut self, mark: usize) {
        self.scope.truncate(mark);
        self.empty_lists.retain(|(i, _)| *i < mark);
    }

    /// After `let pat = init;`: a name bound to an empty collection may be filled from roots.
    fn note_empty_list(&mut self, pat: &Pat, init: &Expr) {
        if matches!(strip_pat(pat), Pat::Ident(_)) && is_empty_collection(init) {
            self.empty_lists.push((self.scope.len() - 1, false));
        }
    }

    /// `list.push(item)`, `list.extend(items)` on a local bound to an empty collection: while all
    /// it is given comes from roots, it is a list of what it was given (`found.push(path)` of each
    /// root's path); anything else given makes it unknown again, and for good.
    fn grow(&mut self, m: &syn::ExprMethodCall) {
        let adds_one = ["push", "push_back", "insert"].iter().any(|n| m.method == n);
        if !(adds_one || m.method == "extend") || m.args.len() != 1 {
            return;
        }
        let Expr::Path(p) = strip(&m.receiver) else { return };
        let Some(ident) = p.path.get_ident() else { return };
        let Some(index) = self.scope.iter().rposition(|(n, _)| ident == n) else { return };
        let Some(slot) = self.empty_lists.iter().position(|(i, _)| *i == index) else { return };
        let given = self.kind_of(&m.args[0]);
        let elem = match given {
            Some(k @ (Kind::Root | Kind::RootStr | Kind::RootPath)) if adds_one => Some(k.elem()),
            Some(Kind::List(e)) if !adds_one => Some(e),
            _ => None,
        };
        let (_, grown) = self.empty_lists[slot];
        match (elem, self.scope[index].1) {
            (Some(e), None) => {
                self.scope[index].1 = Some(Kind::List(e));
                self.empty_lists[slot].1 = true;
            }
            (Some(e), Some(Kind::List(had))) if grown && had != e => {
                self.scope[index].1 = Some(Kind::List(Elem::Other));
            }
            (Some(_), _) => {}
            (None, _) => {
                if grown {
                    self.scope[index].1 = None;
                }
                self.empty_lists.remove(slot);
            }
        }
    }

    /// The innermost binding of `name`: a `str`, or an identifier compared in place.
    fn lookup<N: PartialEq<String> + ?Sized>(&self, name: &N) -> Option<Option<Kind>> {
        self.scope.iter().rev().find(|(n, _)| name == n).map(|(_, k)| *k)
    }

    /// Binds the names of a pattern matched against a value of `kind`. A name whose value says
    /// nothing keeps what its name says (`root_dir`), so a later binding shadows an earlier one.
    pub(crate) fn bind_pat(&mut self, pat: &Pat, kind: Option<Kind>) {
        match pat {
            Pat::Ident(p) => {
                let name = p.ident.to_string();
                let kind = kind.or_else(|| name_kind(&name));
                self.scope.push((name, kind));
            }
            Pat::Reference(r) => self.bind_pat(&r.pat, kind),
            Pat::Paren(p) => self.bind_pat(&p.pat, kind),
            Pat::Type(t) => self.bind_typed(&t.pat, &t.ty, kind),
            Pat::TupleStruct(ts) => {
                let wraps = ts.path.segments.last().is_some_and(|s| s.ident == "Some" || s.ident == "Ok");
                for (i, p) in ts.elems.iter().enumerate() {
                    self.bind_pat(p, if wraps && i == 0 { kind } else { None });
                }
            }
            Pat::Struct(ps) => {
                for f in &ps.fields {
                    let field = match &f.member {
                        syn::Member::Named(i) => i.to_string(),
                        syn::Member::Unnamed(_) => String::new(),
                    };
                    let k = match (field.as_str(), kind) {
                        ("uri", Some(Kind::Root)) => Some(Kind::RootStr),
                        ("roots", _) => Some(Kind::List(Elem::Root)),
                        _ => None,
                    };
                    self.bind_pat(&f.pat, k);
                }
            }
            Pat::Slice(s) => {
                let item = kind.and_then(Kind::item);
                for p in &s.elems {
                    self.bind_pat(p, item);
                }
            }
            Pat::Tuple(t) => {
                for p in &t.elems {
                    self.bind_pat(p, None);
                }
            }
            Pat::Or(o) => {
                if let Some(first) = o.cases.first() {
                    self.bind_pat(first, kind);
                }
            }
            _ => {}
        }
    }

    fn bind_typed(&mut self, pat: &Pat, ty: &Type, kind: Option<Kind>) {
        // `Parameters(path): Parameters<String>`: the wrapper's field has the wrapper's argument type.
        if let Pat::TupleStruct(ts) = strip_pat(pat)
            && ts.elems.len() == 1
            && let Type::Path(tp) = ty
            && let (Some(pat_seg), Some(ty_seg)) = (ts.path.segments.last(), tp.path.segments.last())
            && pat_seg.ident == ty_seg.ident
            && let syn::PathArguments::AngleBracketed(args) = &ty_seg.arguments
            && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
        {
            return self.bind_typed(&ts.elems[0], inner, kind);
        }
        let Pat::Ident(p) = strip_pat(pat) else { return self.bind_pat(pat, kind) };
        let name = p.ident.to_string();
        let by_name = name_kind(&name);
        let rooted = by_name.is_some_and(Kind::rooted);
        let k = match type_class(ty) {
            TypeClass::Roots => Some(Kind::List(Elem::Root)),
            TypeClass::Root => Some(Kind::Root),
            TypeClass::Str => Some(if rooted || kind.is_some_and(Kind::rooted) { Kind::RootStr } else { Kind::Str }),
            TypeClass::Path => Some(if rooted || kind.is_some_and(Kind::rooted) { Kind::RootPath } else { Kind::Path }),
            TypeClass::Unknown => kind.or(by_name),
        };
        self.scope.push((name, k));
    }

    /// Binds a function's parameters from their types and names.
    pub(crate) fn bind_params(&mut self, sig: &syn::Signature) {
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                self.bind_typed(&t.pat, &t.ty, None);
                pat_idents(&t.pat, &mut self.from_request);
            }
        }
    }

    /// Whether an expression reads what the function was given (`request.uri`, `uri`), not data of
    /// the server's own (`self.index`, a search result).
    pub(crate) fn is_request_data(&self, e: &Expr) -> bool {
        base_ident(e).is_some_and(|i| self.from_request.contains(&i))
    }

    /// After `let pat = init;`: names bound from request data are request data too.
    fn note_binding(&mut self, pat: &Pat, init: &Expr) {
        if self.is_request_data(init) {
            pat_idents(pat, &mut self.from_request);
        }
    }

    /// What an expression is.
    pub(crate) fn kind_of(&mut self, e: &Expr) -> Option<Kind> {
        match e {
            Expr::Paren(p) => self.kind_of(&p.expr),
            Expr::Group(g) => self.kind_of(&g.expr),
            Expr::Reference(r) => self.kind_of(&r.expr),
            Expr::Try(t) => self.kind_of(&t.expr),
            Expr::Await(a) => self.kind_of(&a.base),
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => self.kind_of(&u.expr),
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                // Looked up by comparing the identifier in place; printed only for `name_kind`.
                let ident = &p.path.segments[0].ident;
                match self.lookup(ident) {
                    Some(k) => k,
                    None => name_kind(&ident.to_string()),
                }
            }
            Expr::Field(f) => match &f.member {
                syn::Member::Named(i) if i == "roots" => Some(Kind::List(Elem::Root)),
                syn::Member::Named(i)
                    if matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self"))
                        && let Some((_, e)) = self.fields.iter().find(|(n, _)| i == n) =>
                {
                    Some(Kind::List(*e))
                }
                syn::Member::Named(i) if i == "uri" => match self.kind_of(&f.base) {
                    Some(Kind::Root | Kind::RootNamed) => Some(Kind::RootStr),
                    // An MCP `uri` (a resource's, a request's) is a `String`.
                    _ => Some(Kind::Str),
                },
                syn::Member::Named(i) => match self_path(e) {
                    Some(path) => self.source(|| Some(SourceRef::Field(path))),
                    // `state.folders` where `state` holds `self.inner` (a guard, a clone):
                    // `self.inner.folders`.
                    None => {
                        let Some(Kind::Source(base)) = self.kind_of(&f.base) else { return None };
                        let Some(SourceRef::Field(p)) = self.sources.as_ref()?.get(usize::from(base)) else {
                            return None;
                        };
                        let path = [&p[..], &[i.to_string()]].concat();
                        self.source(|| Some(SourceRef::Field(path)))
                    }
                },
                syn::Member::Unnamed(_) => None,
            },
            Expr::Index(i) => {
                let base = self.kind_of(&i.expr);
                match strip(&i.index) {
                    Expr::Lit(l) => match &l.lit {
                        Lit::Str(s) if s.value() == "roots" => Some(Kind::List(Elem::Root)),
                        Lit::Str(s) if s.value() == "uri" && matches!(base, Some(Kind::Root | Kind::RootNamed)) => {
                            Some(Kind::RootStr)
                        }
                        Lit::Int(_) => base.and_then(Kind::item),
                        _ => None,
                    },
                    Expr::Range(_) => base.filter(|k| k.is_str()),
                    _ => base.and_then(Kind::item),
                }
            }
            Expr::MethodCall(m) => self.method_kind(m),
            Expr::Call(c) => self.call_kind(c),
            Expr::Match(m) => {
                let scrutinee = self.kind_of(&m.expr);
                let arms: Vec<(&Pat, &Expr)> = m.arms.iter().map(|a| (&a.pat, &*a.body)).collect();
                self.merge_arms(scrutinee, &arms)
            }
            Expr::If(i) => {
                let (then, els) = (self.block_kind(&i.then_branch), i.else_branch.as_ref());
                let els = els.and_then(|(_, e)| self.kind_of(e));
                merge(then, els)
            }
            Expr::Block(b) => self.block_kind(&b.block),
            // `async { …; Ok(list) }`, the future a lazily filled cell awaits.
            Expr::Async(b) => self.block_kind(&b.block),
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "format") => {
                let rooted = self.tokens_rooted(&m.mac.tokens);
                Some(if rooted { Kind::RootStr } else { Kind::Str })
            }
            Expr::Lit(l) if matches!(l.lit, Lit::Str(_)) => Some(Kind::Str),
            _ => None,
        }
    }

    /// The kind the arms of a `match` agree on (`Err(_) => return ..` and arms of unknown kind
    /// say nothing), each arm's pattern bound to the scrutinee's kind.
    fn merge_arms(&mut self, scrutinee: Option<Kind>, arms: &[(&Pat, &Expr)]) -> Option<Kind> {
        let mut out = None;
        for (pat, body) in arms {
            let mark = self.mark();
            self.bind_pat(pat, scrutinee);
            let k = self.kind_of(body);
            self.reset(mark);
            out = merge(out, k);
        }
        out
    }

    /// The kind of a block's trailing expression, its `let`s bound.
    fn block_kind(&mut self, b: &syn::Block) -> Option<Kind> {
        let mark = self.mark();
        let mut out = None;
        for (i, stmt) in b.stmts.iter().enumerate() {
            match stmt {
                syn::Stmt::Local(l) => {
                    let k = l.init.as_ref().and_then(|init| self.kind_of(&init.expr));
                    self.bind_pat(&l.pat, k);
                }
                syn::Stmt::Expr(e, None) if i + 1 == b.stmts.len() => out = self.kind_of(e),
                _ => {}
            }
        }
        self.reset(mark);
        out
    }

    /// A `Kind::Source` for a value the function cannot place, in a walk that tracks them.
    fn source(&mut self, of: impl FnOnce() -> Option<SourceRef>) -> Option<Kind> {
        let sources = self.sources.as_mut()?;
        let found = of()?;
        // The same place or call, met again (`kind_of` may ask about an expression twice).
        if let Some(i) = sources.iter().position(|s| s.same(&found)) {
            return Some(Kind::Source(i as u16));
        }
        let i = u16::try_from(sources.len()).ok()?;
        sources.push(found);
        Some(Kind::Source(i))
    }

    fn method_kind(&mut self, m: &syn::ExprMethodCall) -> Option<Kind> {
        let name = m.method.to_string();
        let name = name.as_str();
        if name == "roots_list" && m.args.is_empty() {
            return Some(Kind::List(Elem::Root));
        }
        if is_self(&m.receiver) {
            // `self.helper(..)`: what the helper returns, for the crate model to say.
            let close = m.paren_token.span.close();
            return self.source(|| Some(SourceRef::Call(m.method.span(), close)));
        }
        let rk = self.kind_of(&m.receiver);
        // `OnceCell::get()`, `OnceLock::get()`: the cell's value (`get(0)` picks an element); so is
        // what a cell filled on first use gives (`get_or_try_init(|| …)`, `get_or_insert_with`).
        let cell_get = name == "get" && m.args.is_empty() || LAZY_FILLS.contains(&name) && m.args.len() == 1;
        if TRANSPARENT.contains(&name) && !(name == "filter" && m.args.is_empty()) || cell_get {
            return rk;
        }
        match name {
            "first" | "last" | "next" | "get" | "nth" | "find" | "pop" | "min" | "max" | "min_by_key"
            | "max_by_key" | "min_by" | "max_by" | "next_back" | "first_mut" | "last_mut" | "get_mut" => {
                rk.and_then(Kind::item)
            }
            "map" | "filter_map" | "and_then" | "flat_map" | "find_map" => {
                let elem = match rk {
                    Some(k) if k.is_list() => k.item(),
                    Some(k) if k.rooted() => Some(k),
                    _ => None,
                };
                let body = m.args.iter().last().and_then(|a| self.closure_result(a, elem));
                match rk {
                    Some(Kind::List(_)) if name != "find_map" => {
                        Some(Kind::List(body.filter(|k| k.rooted()).map_or(Elem::Other, Kind::elem)))
                    }
                    // Element by element, a list the model may know stays that list.
                    Some(Kind::Source(i)) if name != "find_map" => Some(Kind::Source(i)),
                    _ => body,
                }
            }
            n if STRING_OPS.contains(&n) => match rk {
                Some(Kind::RootNamed) => Some(Kind::RootStr),
                Some(k) if k.is_str() => Some(k),
                Some(k) if k.is_path() && n == "strip_prefix" => Some(k),
                None | Some(Kind::Source(_)) if n != "strip_prefix" => Some(Kind::Str),
                _ => None,
            },
            "to_str" | "to_string_lossy" | "display" => {
                if chain_has(&m.receiver, &["file_name", "file_stem", "extension"]) {
                    Some(Kind::Str)
                } else {
                    match rk {
                        Some(k) if k.rooted() => Some(Kind::RootStr),
                        Some(Kind::Str) => Some(Kind::Str),
                        _ => Some(Kind::PathStr),
                    }
                }
            }
            "canonicalize" | "join" | "parent" | "to_path_buf" | "with_file_name" | "with_extension" => match rk {
                Some(Kind::List(_) | Kind::Source(_)) => None,
                Some(Kind::SourceItem(i)) => Some(Kind::SourceItem(i)),
                Some(k) if k.rooted() => Some(Kind::RootPath),
                _ => Some(Kind::Path),
            },
            "file_name" | "file_stem" | "extension" => Some(Kind::Str),
            // `Url::to_file_path`, the decoding conversion of a `file://` URI.
            "to_file_path" => rk.filter(|k| k.rooted() && !k.is_list()).map(|_| Kind::RootPath),
            // `String::as_str`, `Value::as_str`, `Url::as_str`, `Display::to_string`: a string.
            "as_str" | "to_string" => match rk {
                Some(Kind::RootNamed) => Some(Kind::RootStr),
                Some(Kind::SourceItem(i)) => Some(Kind::SourceItem(i)),
                Some(Kind::List(_) | Kind::Root) => None,
                Some(k) if k.is_str() => Some(k),
                _ => Some(Kind::Str),
            },
            _ => None,
        }
    }

    /// What a closure (or a function path like `PathBuf::from`) given an element of `elem` returns.
    fn closure_result(&mut self, arg: &Expr, elem: Option<Kind>) -> Option<Kind> {
        match strip(arg) {
            Expr::Closure(c) => {
                let mark = self.mark();
                for (i, p) in c.inputs.iter().enumerate() {
                    self.bind_pat(p, if i == 0 { elem } else { None });
                }
                let k = self.kind_of(&c.body);
                self.reset(mark);
                k
            }
            Expr::Path(p)
                if path_ends_with(&p.path, &["PathBuf", "from"]) || path_ends_with(&p.path, &["Path", "new"]) =>
            {
                Some(if elem.is_some_and(Kind::rooted) { Kind::RootPath } else { Kind::Path })
            }
            _ => None,
        }
    }

    fn call_kind(&mut self, c: &syn::ExprCall) -> Option<Kind> {
        let Expr::Path(func) = strip(&c.func) else { return None };
        // A new empty list is no helper's result; what it holds is told by what is pushed (`grow`).
        if is_empty_call(c) {
            return None;
        }
        let p = &func.path;
        // `tokio::time::timeout(d, fut)`: what the future gives (under an `Ok`).
        if p.segments.last().is_some_and(|s| s.ident == "timeout") && c.args.len() == 2 {
            return self.kind_of(&c.args[1]);
        }
        let Some(arg) = c.args.first() else { return self.call_source(c, func) };
        let is = |tail: &[&str]| path_ends_with(p, tail);
        if is(&["PathBuf", "from"])
            || is(&["Path", "new"])
            || is(&["PathBuf", "from_str"])
            || is(&["fs", "canonicalize"])
            || is(&["dunce", "canonicalize"])
            || p.is_ident("canonicalize")
        {
            let k = self.kind_of(arg);
            // `Path::new(root)` of a root picked from a helper's list stays that root.
            if let Some(Kind::SourceItem(i)) = k {
                return Some(Kind::SourceItem(i));
            }
            return Some(if k.is_some_and(Kind::rooted) { Kind::RootPath } else { Kind::Path });
        }
        // `Url::parse(&root.uri)`: the root's URI, parsed; `to_file_path()` makes it a path.
        if (is(&["Url", "parse"]) || is(&["Url", "from_str"])) && self.kind_of(arg).is_some_and(Kind::rooted) {
            return Some(Kind::RootStr);
        }
        if is(&["String", "from"]) || is(&["Cow", "from"]) || is(&["Cow", "Borrowed"]) || is(&["Cow", "Owned"]) {
            return Some(self.kind_of(arg).filter(|k| k.is_str()).unwrap_or(Kind::Str));
        }
        // `Ok::<_, E>(x)` too.
        let variant = |name: &str| p.segments.len() == 1 && p.segments[0].ident == name;
        if variant("Some")
            || variant("Ok")
            || is(&["Box", "new"])
            || is(&["Arc", "new"])
            || is(&["Rc", "new"])
            || is(&["Arc", "clone"])
            || is(&["Rc", "clone"])
        {
            return self.kind_of(arg);
        }
        self.call_source(c, func)
    }

    /// A call of a function of the crate perhaps (`helper(..)`, `module::f(..)`, `Type::f(..)`):
    /// what it returns, for the crate model to say. Constructors (`Some`, `Wrapper`) are not calls.
    fn call_source(&mut self, c: &syn::ExprCall, func: &syn::ExprPath) -> Option<Kind> {
        let p = &func.path;
        let constructor =
            p.segments.len() == 1 && p.segments[0].ident.to_string().starts_with(|c: char| c.is_ascii_uppercase());
        if func.qself.is_some() || constructor {
            return None;
        }
        let first = match &p.leading_colon {
            Some(colon) => colon.spans[0],
            None => p.segments.first()?.ident.span(),
        };
        let close = c.paren_token.span.close();
        self.source(|| Some(SourceRef::Call(first, close)))
    }

    /// Whether a token stream (a `format!` body) names something from a root.
    fn tokens_rooted(&mut self, tokens: &TokenStream) -> bool {
        for t in tokens.clone() {
            match t {
                TokenTree::Ident(i) => {
                    let name = i.to_string();
                    let k = match self.lookup(&name) {
                        Some(k) => k,
                        None => name_kind(&name),
                    };
                    if k.is_some_and(Kind::rooted) {
                        return true;
                    }
                }
                TokenTree::Group(g) if self.tokens_rooted(&g.stream()) => return true,
                TokenTree::Literal(l) => {
                    // Inline format arguments: `format!("{root}/")`.
                    let s = l.to_string();
                    let mut rest = s.as_str();
                    while let Some(open) = rest.find('{') {
                        rest = &rest[open + 1..];
                        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                        if !name.is_empty() {
                            let k = match self.lookup(&name) {
                                Some(k) => k,
                                None => name_kind(&name),
                            };
                            if k.is_some_and(Kind::rooted) {
                                return true;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        false
    }
}

/// A `'/'`, `"/"`, `'\\'`, `MAIN_SEPARATOR` or `is_separator` in the tokens: a prefix check that
/// also tests the directory boundary.
pub(crate) fn mentions_separator(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Literal(l) => matches!(l.to_string().as_str(), "'/'" | "\"/\"" | "'\\\\'" | "\"\\\\\""),
        TokenTree::Ident(i) => {
            matches!(i.to_string().as_str(), "MAIN_SEPARATOR" | "MAIN_SEPARATOR_STR" | "is_separator")
        }
        TokenTree::Group(g) => mentions_separator(&g.stream()),
        _ => false,
    })
}

/// `Vec::new()`, `Vec::with_capacity(n)`, `vec![]`, `HashSet::new()`, …: a collection that starts
/// empty.
fn is_empty_collection(e: &Expr) -> bool {
    match strip(e) {
        Expr::Call(c) => is_empty_call(c),
        Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        _ => false,
    }
}

/// `Vec::new()`, `HashSet::with_capacity(n)`, …
fn is_empty_call(c: &syn::ExprCall) -> bool {
    const COLLECTIONS: &[&str] = &["Vec", "VecDeque", "HashSet", "BTreeSet", "IndexSet"];
    let Expr::Path(p) = strip(&c.func) else { return false };
    let segments = &p.path.segments;
    let n = segments.len();
    n >= 2
        && COLLECTIONS.iter().any(|t| segments[n - 2].ident == t)
        && match c.args.len() {
            0 => segments[n - 1].ident == "new",
            1 => segments[n - 1].ident == "with_capacity",
            _ => false,
        }
}

/// Two kinds a value may have (two arms, two branches): the one known, or the same.
fn merge(a: Option<Kind>, b: Option<Kind>) -> Option<Kind> {
    match (a, b) {
        (None, k) | (k, None) => k,
        (Some(a), Some(b)) if a == b => Some(a),
        // Lists of different elements are still lists; a known roots list wins over a source.
        (Some(Kind::List(_)), Some(Kind::List(_))) => Some(Kind::List(Elem::Other)),
        (Some(k @ Kind::List(_)), Some(Kind::Source(_))) | (Some(Kind::Source(_)), Some(k @ Kind::List(_))) => Some(k),
        _ => None,
    }
}

/// `["a", "b"]` for `self.a.b`, through guards and accessors (`self.a.lock().unwrap().b`,
/// `*self.a.read().await`).
pub(crate) fn self_path(e: &Expr) -> Option<Vec<String>> {
    let (base, members) = place_parts(e)?;
    (base == "self" && !members.is_empty()).then_some(members)
}

/// The name a place expression starts from (`self`, a local, a parameter) and the members after
/// it, through guards and accessors: `inner.lock().unwrap().folders` → (`inner`, `["folders"]`).
pub(crate) fn place_parts(e: &Expr) -> Option<(&syn::Ident, Vec<String>)> {
    let mut path = Vec::new();
    let mut e = e;
    loop {
        e = match e {
            Expr::Field(f) => {
                let syn::Member::Named(i) = &f.member else { return None };
                path.push(i.to_string());
                &f.base
            }
            Expr::Path(p) if p.qself.is_none() => {
                path.reverse();
                return Some((p.path.get_ident()?, path));
            }
            Expr::MethodCall(m)
                if TRANSPARENT.iter().any(|n| m.method == n) || m.method == "get" && m.args.is_empty() =>
            {
                &m.receiver
            }
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Reference(r) => &r.expr,
            Expr::Try(t) => &t.expr,
            Expr::Await(a) => &a.base,
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => &u.expr,
            _ => return None,
        };
    }
}

/// What a name says: `roots`, `client_roots` are root lists; `root_uri`, `root_str` a root's string;
/// `root`, `root_dir`, `workspace_root` a root of unknown type; `uri`, `*_str` strings.
pub(crate) fn name_kind(name: &str) -> Option<Kind> {
    // The parts between underscores, compared without case (as lowercased ASCII).
    let has = |w: &str| name.split('_').any(|p| p.eq_ignore_ascii_case(w));
    if has("roots") {
        return Some(Kind::List(Elem::Root));
    }
    if has("root") {
        if ["uri", "url", "str", "string", "prefix"].iter().any(|w| has(w)) {
            return Some(Kind::RootStr);
        }
        return Some(Kind::RootNamed);
    }
    let last = name.split('_').rfind(|p| !p.is_empty());
    if has("uri") || last.is_some_and(|p| p.eq_ignore_ascii_case("str") || p.eq_ignore_ascii_case("string")) {
        return Some(Kind::Str);
    }
    None
}

enum TypeClass {
    Roots,
    Root,
    Str,
    Path,
    Unknown,
}

fn type_class(ty: &Type) -> TypeClass {
    match ty {
        Type::Reference(r) => type_class(&r.elem),
        Type::Paren(p) => type_class(&p.elem),
        Type::Group(g) => type_class(&g.elem),
        Type::Slice(s) => match type_class(&s.elem) {
            TypeClass::Root => TypeClass::Roots,
            _ => TypeClass::Unknown,
        },
        Type::Array(a) => match type_class(&a.elem) {
            TypeClass::Root => TypeClass::Roots,
            _ => TypeClass::Unknown,
        },
        Type::Path(p) => {
            let Some(last) = p.path.segments.last() else { return TypeClass::Unknown };
            let first_arg = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            match last.ident.to_string().as_str() {
                "Root" => TypeClass::Root,
                "str" | "String" => TypeClass::Str,
                "Path" | "PathBuf" => TypeClass::Path,
                "Cow" => match first_arg.map(type_class) {
                    Some(TypeClass::Str) => TypeClass::Str,
                    Some(TypeClass::Path) => TypeClass::Path,
                    _ => TypeClass::Unknown,
                },
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => match first_arg.map(type_class) {
                    Some(TypeClass::Root) => TypeClass::Roots,
                    _ => TypeClass::Unknown,
                },
                "Option" | "Result" | "Box" | "Arc" | "Rc" | "RwLock" | "Mutex" | "OnceCell" | "OnceLock" => {
                    first_arg.map(type_class).unwrap_or(TypeClass::Unknown)
                }
                _ => TypeClass::Unknown,
            }
        }
        _ => TypeClass::Unknown,
    }
}

/// What a walk over one function body reports to.
pub(crate) trait Sink {
    /// Every expression, before its sub-expressions, with the names in scope.
    fn expr(&mut self, flow: &mut Flow, e: &Expr);
    /// A pattern about to be matched against `value` (`let`, `if let`, `match` arms, `for`).
    fn pat(&mut self, _flow: &mut Flow, _pat: &Pat, _value: &Expr) {}
    /// A value the function returns: its body's trailing expression, or a `return` outside closures.
    fn returned(&mut self, _flow: &mut Flow, _value: &Expr) {}
    /// A macro's body read as code: `Cx::macro_body`, so every walk shares the file's parses.
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>>;
}

/// Walks one function body in order, keeping `Flow` up to date: `let` bindings, closure
/// parameters of methods over a roots list, `for` loops, `if let` / `while let` and `match` arms.
/// Nested items are left alone (the engine offers them to `rust_fn` itself); macro bodies that
/// parse as expressions or statements are walked like code.
pub(crate) struct Walker<'s, S: Sink> {
    flow: Flow,
    sink: &'s mut S,
}

impl<'s, S: Sink> Walker<'s, S> {
    /// Walks a function, with the fields of `self` its file fills with roots
    /// (`roots::file_fields`). The sink holds the `Cx`, so the fields are read before.
    pub(crate) fn walk(sig: &syn::Signature, body: &syn::Block, fields: Vec<(String, Elem)>, sink: &'s mut S) {
        Walker::walk_with(sig, body, fields, None, sink);
    }

    /// `walk`, giving values the function cannot place a `Kind::Source`: the places and calls met.
    pub(crate) fn walk_tracking(
        sig: &syn::Signature,
        body: &syn::Block,
        fields: Vec<(String, Elem)>,
        sink: &'s mut S,
    ) -> Vec<SourceRef> {
        Walker::walk_with(sig, body, fields, Some(Vec::new()), sink).unwrap_or_default()
    }

    fn walk_with(
        sig: &syn::Signature,
        body: &syn::Block,
        fields: Vec<(String, Elem)>,
        sources: Option<Vec<SourceRef>>,
        sink: &'s mut S,
    ) -> Option<Vec<SourceRef>> {
        let flow =
            Flow { scope: Vec::new(), fields, from_request: Vec::new(), sources, closures: 0, empty_lists: Vec::new() };
        let mut w = Walker { flow, sink };
        w.flow.bind_params(sig);
        for stmt in &body.stmts {
            w.visit_stmt(stmt);
        }
        if let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last() {
            w.sink.returned(&mut w.flow, tail);
        }
        w.flow.sources
    }

    fn bind_cond(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(l) => {
                self.visit_expr(&l.expr);
                self.sink.pat(&mut self.flow, &l.pat, &l.expr);
                let k = self.flow.kind_of(&l.expr);
                self.flow.bind_pat(&l.pat, k);
                self.flow.note_binding(&l.pat, &l.expr);
            }
            Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => {
                self.bind_cond(&b.left);
                self.bind_cond(&b.right);
            }
            other => self.visit_expr(other),
        }
    }
}

impl<'ast, S: Sink> Visit<'ast> for Walker<'_, S> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_block(&mut self, b: &'ast syn::Block) {
        let mark = self.flow.mark();
        visit::visit_block(self, b);
        self.flow.reset(mark);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let Some(init) = &l.init else {
            self.flow.bind_pat(&l.pat, None);
            return;
        };
        self.visit_expr(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
        }
        self.sink.pat(&mut self.flow, &l.pat, &init.expr);
        let k = self.flow.kind_of(&init.expr);
        self.flow.bind_pat(&l.pat, k);
        self.flow.note_binding(&l.pat, &init.expr);
        self.flow.note_empty_list(&l.pat, &init.expr);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        self.sink.expr(&mut self.flow, e);
        match e {
            Expr::Closure(c) => {
                let mark = self.flow.mark();
                for p in &c.inputs {
                    self.flow.bind_pat(p, None);
                }
                self.flow.closures += 1;
                self.visit_expr(&c.body);
                self.flow.closures -= 1;
                self.flow.reset(mark);
            }
            Expr::Return(r) => {
                if let Some(value) = &r.expr {
                    if self.flow.closures == 0 {
                        self.sink.returned(&mut self.flow, value);
                    }
                    self.visit_expr(value);
                }
            }
            Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                let mark = self.flow.mark();
                let item = self.flow.kind_of(&f.expr).and_then(Kind::item);
                self.sink.pat(&mut self.flow, &f.pat, &f.expr);
                self.flow.bind_pat(&f.pat, item);
                self.visit_block(&f.body);
                self.flow.reset(mark);
            }
            Expr::If(i) => {
                let mark = self.flow.mark();
                self.bind_cond(&i.cond);
                self.visit_block(&i.then_branch);
                self.flow.reset(mark);
                if let Some((_, els)) = &i.else_branch {
                    self.visit_expr(els);
                }
            }
            Expr::While(w) => {
                let mark = self.flow.mark();
                self.bind_cond(&w.cond);
                self.visit_block(&w.body);
                self.flow.reset(mark);
            }
            Expr::Match(m) => {
                self.visit_expr(&m.expr);
                let k = self.flow.kind_of(&m.expr);
                for arm in &m.arms {
                    let mark = self.flow.mark();
                    self.sink.pat(&mut self.flow, &arm.pat, &m.expr);
                    self.flow.bind_pat(&arm.pat, k);
                    if let Some((_, guard)) = &arm.guard {
                        self.visit_expr(guard);
                    }
                    self.visit_expr(&arm.body);
                    self.flow.reset(mark);
                }
            }
            Expr::MethodCall(m) => {
                self.visit_expr(&m.receiver);
                let elem = if CLOSURE_METHODS.iter().any(|n| m.method == n) {
                    match self.flow.kind_of(&m.receiver) {
                        Some(k) if k.is_list() => k.item(),
                        Some(k) if k.rooted() => Some(k),
                        _ => None,
                    }
                } else {
                    None
                };
                for arg in &m.args {
                    match strip(arg) {
                        Expr::Closure(c) if elem.is_some() => {
                            let mark = self.flow.mark();
                            for (i, p) in c.inputs.iter().enumerate() {
                                self.flow.bind_pat(p, if i == 0 { elem } else { None });
                            }
                            self.flow.closures += 1;
                            self.visit_expr(&c.body);
                            self.flow.closures -= 1;
                            self.flow.reset(mark);
                        }
                        _ => self.visit_expr(arg),
                    }
                }
                self.flow.grow(m);
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `json!` bodies are data; what a log line or a `println!` shows decides nothing.
        if m.path.segments.last().is_some_and(|s| s.ident == "json" || OUTPUT_MACROS.iter().any(|n| s.ident == n)) {
            return;
        }
        match self.sink.macro_body(m).as_deref() {
            Some(MacroBody::Exprs(exprs)) => exprs.iter().for_each(|e| self.visit_expr(e)),
            Some(MacroBody::Stmts(stmts)) => {
                let mark = self.flow.mark();
                stmts.iter().for_each(|s| self.visit_stmt(s));
                self.flow.reset(mark);
            }
            None => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Small syntax helpers shared by the roots rules.
// ---------------------------------------------------------------------------------------------

pub(crate) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

pub(crate) fn strip_pat(p: &Pat) -> &Pat {
    match p {
        Pat::Paren(x) => strip_pat(&x.pat),
        Pat::Reference(r) => strip_pat(&r.pat),
        Pat::Type(t) => strip_pat(&t.pat),
        p => p,
    }
}

pub(crate) fn int_lit(e: &Expr) -> Option<u64> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a method chain below `e` has one of these methods.
pub(crate) fn chain_has(e: &Expr, names: &[&str]) -> bool {
    let mut e = strip(e);
    loop {
        match e {
            Expr::MethodCall(m) => {
                if names.iter().any(|n| m.method == n) {
                    return true;
                }
                e = strip(&m.receiver);
            }
            Expr::Try(t) => e = strip(&t.expr),
            Expr::Await(a) => e = strip(&a.base),
            Expr::Reference(r) => e = strip(&r.expr),
            _ => return false,
        }
    }
}

/// The expression under references, `?`, `.await` and the methods that hand their receiver on:
/// `listed.roots` in `&listed.roots.iter()`.
pub(crate) fn base_of(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => base_of(&p.expr),
        Expr::Group(g) => base_of(&g.expr),
        Expr::Reference(r) => base_of(&r.expr),
        Expr::Try(t) => base_of(&t.expr),
        Expr::Await(a) => base_of(&a.base),
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => base_of(&u.expr),
        Expr::MethodCall(m) if TRANSPARENT.iter().any(|n| m.method == n) => base_of(&m.receiver),
        e => e,
    }
}

/// The identifier at the bottom of a chain of fields, methods, indexes and references:
/// `request` in `&request.params.uri.as_str()`.
pub(crate) fn base_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => Some(p.path.segments[0].ident.to_string()),
        Expr::Field(f) => base_ident(&f.base),
        Expr::MethodCall(m) => base_ident(&m.receiver),
        Expr::Index(i) => base_ident(&i.expr),
        Expr::Paren(p) => base_ident(&p.expr),
        Expr::Group(g) => base_ident(&g.expr),
        Expr::Reference(r) => base_ident(&r.expr),
        Expr::Try(t) => base_ident(&t.expr),
        Expr::Await(a) => base_ident(&a.base),
        Expr::Unary(u) => base_ident(&u.expr),
        _ => None,
    }
}

/// The names a pattern binds.
fn pat_idents(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Ident(i) => out.push(i.ident.to_string()),
        Pat::Reference(r) => pat_idents(&r.pat, out),
        Pat::Paren(x) => pat_idents(&x.pat, out),
        Pat::Type(t) => pat_idents(&t.pat, out),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|e| pat_idents(e, out)),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pat_idents(e, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pat_idents(&f.pat, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|e| pat_idents(e, out)),
        Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                pat_idents(first, out);
            }
        }
        _ => {}
    }
}

/// Source text for a message: whitespace runs (line breaks of a chain) collapsed, no space before
/// a `.` (`listed\n    .roots` reads `listed.roots`).
pub(crate) fn compact(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace(" .", ".")
}

/// An expression's text with the accessors of `base_of` removed, for comparing two mentions of
/// the same value.
pub(crate) fn normalized(e: &Expr) -> String {
    quote::ToTokens::to_token_stream(base_of(e)).to_string()
}

/// The receivers (`normalized`) of the method calls in a body that `tests` accepts: what a
/// function checked before using it (`dir.ends_with('/')`, `uri.starts_with("file://")`).
pub(crate) fn tested_receivers(
    body: &syn::Block,
    tests: impl Fn(&syn::ExprMethodCall) -> bool,
) -> std::collections::HashSet<String> {
    struct Calls<F>(F, std::collections::HashSet<String>);
    impl<'ast, F: Fn(&syn::ExprMethodCall) -> bool> Visit<'ast> for Calls<F> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if (self.0)(m) {
                self.1.insert(normalized(&m.receiver));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut calls = Calls(tests, std::collections::HashSet::new());
    calls.visit_block(body);
    calls.1
}

#[cfg(test)]
mod tests {
    use super::{Elem, Kind};

    /// `name_kind` reads the parts of a name without case, as the lowercased parts it replaced.
    #[test]
    fn name_kind_reads_parts_without_case() {
        fn by_lowercase(name: &str) -> Option<Kind> {
            let lower = name.to_ascii_lowercase();
            let parts: Vec<&str> = lower.split('_').filter(|p| !p.is_empty()).collect();
            let has = |w: &str| parts.contains(&w);
            if has("roots") {
                return Some(Kind::List(Elem::Root));
            }
            if has("root") {
                if ["uri", "url", "str", "string", "prefix"].iter().any(|w| has(w)) {
                    return Some(Kind::RootStr);
                }
                return Some(Kind::RootNamed);
            }
            if has("uri") || matches!(parts.last(), Some(&"str") | Some(&"string")) {
                return Some(Kind::Str);
            }
            None
        }
        let names = [
            "roots",
            "ROOTS",
            "client_Roots",
            "root",
            "Root_Uri",
            "workspace_root",
            "root_dir",
            "rootdir",
            "uri",
            "URI_",
            "base_str",
            "name_STRING__",
            "_str_",
            "str",
            "strs",
            "x",
            "",
            "_",
            "__root__",
            "Ürl_root",
        ];
        for n in names {
            assert_eq!(super::name_kind(n), by_lowercase(n), "{n}");
        }
    }
}
