//! State places: what outlives one request, and which handler reads or writes it.
//!
//! A place is a root and a path of members (`Place`):
//! - a field of a type of the crate (`PlaceRoot::Type`): `self.a.b` in a method, a local bound to
//!   it (`let g = self.state.lock().unwrap(); g.x`), a field reached through a field of another
//!   crate type (`self.inner.x` with `inner: Arc<Inner>` is `Inner`'s `x`, as `self.x` is in
//!   `Inner`'s methods), an entry of a map field (`self.sessions.get_mut(&id)?.x`: all entries are
//!   one place, `sessions.x`); the entry of a map keyed by type (`self.session.insert(info)` with
//!   `info: &Implementation`, `self.session()?.get::<Implementation>()`: member `<Implementation>`
//!   of the crate type that holds the map, through an accessor's return type), for client-data
//!   types only;
//! - a local of a long-lived loop (`PlaceRoot::Local`): declared before the `loop` / `while` /
//!   `for` that uses it (a connection's read loop in `main`, with the dispatcher `match` inside);
//! - a state parameter (`state: &mut State`, `Arc<Server>`; not a request) of a function no caller
//!   binds; where a caller passes its own place (`handle(&mut state)`), the parameter is that place;
//!   a trait object of a crate trait no caller binds (`sessions: &dyn SessionBackend`) is the
//!   trait's place (`PlaceRoot::Type` of the trait), one for every parameter of that type;
//! - a SCREAMING_CASE static or global (`PlaceRoot::Global`).
//!
//! `CrateModel::state_uses` gives what a function (or one arm of its dispatcher) reads and writes of
//! them, with the functions it calls folded in; `CrateModel::handler_state` the same for a handler.
//! The extraction side (`Locals`, on the worker that parses the file) decides which names are
//! places while `extract` walks a body.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::ops::Range;

use syn::Expr;

use super::{CrateModel, FieldAccess, FnId, Handler, Root, TypeKey, within};
use crate::cx::Cx;

/// Methods that change what their receiver holds: a call on a place writes it.
pub const MUTATORS: &[&str] = &[
    "store",
    "swap",
    "fetch_add",
    "fetch_sub",
    "fetch_or",
    "fetch_and",
    "fetch_xor",
    "fetch_nand",
    "fetch_max",
    "fetch_min",
    "fetch_update",
    "compare_exchange",
    "compare_exchange_weak",
    "compare_and_swap",
    "insert",
    "push",
    "push_back",
    "push_front",
    "pop",
    "pop_back",
    "pop_front",
    "remove",
    "swap_remove",
    "extend",
    "append",
    "clear",
    "retain",
    "truncate",
    "drain",
    "set",
    "replace",
    "take",
    "get_or_insert",
    "get_or_insert_with",
    "entry",
    "send_replace",
    "send_modify",
    "rcu",
    "add_route",
    "remove_route",
    "merge",
    "disable_route",
    "enable_route",
];

/// Mutators whose argument may be a switch (`store(true, ..)`, `replace(None)`).
pub const SWITCH_METHODS: &[&str] =
    &["store", "swap", "set", "replace", "fetch_or", "fetch_and", "fetch_xor", "compare_exchange"];

/// Methods that hand on their receiver's place: guards, unwraps, map entries.
const GUARDS: &[&str] = &[
    "lock",
    "read",
    "write",
    "borrow",
    "borrow_mut",
    "unwrap",
    "expect",
    "get",
    "get_mut",
    "as_ref",
    "as_mut",
    "deref",
    "deref_mut",
    "blocking_lock",
    "blocking_read",
    "blocking_write",
    "lock_owned",
    "read_owned",
    "write_owned",
    "try_lock",
    "try_read",
    "try_write",
    "load",
    "load_full",
    "entry",
    "or_default",
    "or_insert",
    "or_insert_with",
    "value",
    "value_mut",
];

/// Logging and assertion macros: what they mention does not shape a result.
pub const QUIET_MACROS: &[&str] = &[
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "log",
    "event",
    "println",
    "eprintln",
    "print",
    "eprint",
    "dbg",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
];

/// The ranges of the logging and assertion macro calls (`QUIET_MACROS`) in a body.
pub fn quiet_macro_ranges(cx: &crate::cx::Cx, body: &syn::Block) -> Vec<std::ops::Range<usize>> {
    struct Quiet<'c, 'a>(&'c crate::cx::Cx<'a>, Vec<std::ops::Range<usize>>);
    impl<'ast> syn::visit::Visit<'ast> for Quiet<'_, '_> {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if m.path.segments.last().is_some_and(|s| QUIET_MACROS.iter().any(|q| s.ident == q)) {
                self.1.push(self.0.node_range(m));
            }
        }
    }
    let mut quiet = Quiet(cx, Vec::new());
    syn::visit::Visit::visit_block(&mut quiet, body);
    quiet.1
}

/// Types of what a client declared in `initialize`: an entry of a per-session typed map keyed by
/// one of them (`session.insert(info.clone())`, `session.get::<Implementation>()`) holds client data.
pub const CLIENT_TYPES: &[&str] = &[
    "Implementation",
    "ClientInfo",
    "ClientCapabilities",
    "ProtocolVersion",
    "InitializeRequestParams",
    "InitializeRequestParam",
    "InitializeRequest",
];

/// Types of maps keyed by type (one value of each type): an entry of one is a place of its own.
const TYPED_MAPS: &[&str] = &["Extensions", "TypeMap", "AnyMap", "ShareMap", "TypeIdMap"];

/// A member of a place that is the entry of a typed map keyed by a type (`<Implementation>`), as
/// `FieldAccess::path` and `Place::path` spell it.
pub fn entry_member(ty: &str) -> String {
    format!("<{ty}>")
}

/// A typed map entry's key type, from its member (`<Implementation>` → `Implementation`).
pub fn entry_type(member: &str) -> Option<&str> {
    member.strip_prefix('<')?.strip_suffix('>')
}

/// A member as code spells it: an entry as the `get::<T>()` that reads it.
pub fn member_shown(member: &str) -> String {
    entry_type(member).map_or_else(|| member.to_owned(), |ty| format!("get::<{ty}>()"))
}

/// The client-data type a value of type `ty` (as written) is, by reference or not
/// (`&Implementation` → `Implementation`); `Option<&T>` is no value of `T`.
pub fn client_type(ty: &str) -> Option<&'static str> {
    let t = ty.trim_start_matches('&').trim_start_matches("mut ").trim();
    CLIENT_TYPES.iter().copied().find(|c| *c == t)
}

/// The type a `Some(x)` / `Ok(x)` pattern binds from a value of type `ty` (as written).
pub fn unwrapped_type(ty: &str) -> Option<&str> {
    let t = ty.trim_start_matches('&').trim();
    let inner = t.strip_prefix("Option<").or_else(|| t.strip_prefix("Result<"))?.strip_suffix('>')?;
    // `Result<T, E>`: the first argument.
    Some(inner.split(", ").next().unwrap_or(inner).trim())
}

/// Parameter names of the request a function answers: its data, not state.
const REQUEST_NAMES: &[&str] =
    &["req", "request", "msg", "message", "params", "args", "input", "line", "value", "json", "body", "raw"];

/// Types that a parameter taken by reference holds as data.
const DATA_TYPES: &[&str] = &["str", "String", "Value", "Path", "PathBuf", "OsStr", "Map"];

/// How deep `state_uses` follows calls.
const MAX_DEPTH: usize = 4;

/// While a body is walked: which names are state places.
#[derive(Debug, Default)]
pub struct Locals {
    /// State parameters (by reference, `Arc`, `Rc`, not a request), until shadowed.
    params: HashSet<String>,
    /// Locals by the loop depth they were declared at.
    declared: HashMap<String, usize>,
    /// Locals bound to a place (`let g = self.state.lock().unwrap()`).
    aliases: HashMap<String, FieldAccess>,
    /// Locals bound to a clone of a place (`let inner = Arc::clone(&self.inner)`): handed to a
    /// function, they are that place (`arg_place`), as the clone itself would be.
    clones: HashMap<String, (Root, Vec<String>)>,
    /// Locals and parameters whose declared type names client data (`info: Option<&Implementation>`),
    /// as written: what a typed map keys a value of theirs by (`TYPED_ENTRY`).
    client_types: HashMap<String, String>,
    /// Loops around the walk.
    pub loops: usize,
    /// Logging macros around the walk.
    pub quiet: usize,
}

impl Locals {
    pub fn param(&mut self, pat: &syn::Pat, ty: &syn::Type) {
        let syn::Pat::Ident(p) = pat else { return };
        // Text, slices and JSON values taken by reference are data, not state.
        let data = |t: &syn::Type| match t {
            syn::Type::Slice(_) => true,
            syn::Type::Path(tp) => tp.path.segments.last().is_some_and(|s| DATA_TYPES.iter().any(|d| s.ident == d)),
            _ => false,
        };
        let by_ref = matches!(ty, syn::Type::Reference(r) if !data(&r.elem))
            || matches!(ty, syn::Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident == "Arc" || s.ident == "Rc"));
        let name = p.ident.to_string();
        if by_ref && !REQUEST_NAMES.contains(&name.as_str()) {
            self.params.insert(name);
        }
    }

    /// A binding of `name` here: it shadows what the name stood for.
    pub fn declare(&mut self, name: &str) {
        self.params.remove(name);
        self.aliases.remove(name);
        self.clones.remove(name);
        self.client_types.remove(name);
        self.declared.insert(name.to_owned(), self.loops);
    }

    /// `name` holds a value of type `ty` (as written), kept where the type names client data.
    pub fn typed(&mut self, name: String, ty: String) {
        if CLIENT_TYPES.iter().any(|t| ty.contains(t)) {
            self.client_types.insert(name, ty);
        }
    }

    /// The type of a local or parameter, where it names client data.
    pub fn type_of(&self, name: &str) -> Option<&str> {
        self.client_types.get(name).map(String::as_str)
    }

    pub fn is_alias(&self, name: &str) -> bool {
        self.aliases.contains_key(name)
    }

    pub fn alias(&mut self, name: String, place: FieldAccess) {
        self.aliases.insert(name, place);
    }

    /// `let name = <init>;` where `init` clones a place (`x.clone()`, `Arc::clone(&x)`).
    pub fn clone_alias(&mut self, name: String, init: &Expr) {
        if is_clone(init)
            && let Some(place) = self.arg_place(init)
        {
            self.clones.insert(name, place);
        }
    }

    /// The place a path (and the members after it, with their ends) names: an alias's place, a
    /// state parameter, a local of an enclosing loop, a static.
    pub fn root(&self, cx: &Cx, p: &syn::ExprPath, members: Vec<(String, usize)>) -> Option<FieldAccess> {
        let ident = p.path.get_ident().filter(|_| p.qself.is_none())?;
        let name = ident.to_string();
        // Most paths name none of these: the range (a span lookup) only for those that do.
        let alias = self.aliases.get(&name);
        let root = if alias.is_some() {
            Root::SelfValue
        } else if self.params.contains(&name) || self.declared.get(&name).is_some_and(|d| *d < self.loops) {
            Root::Local
        } else if !self.declared.contains_key(&name) && is_screaming(&name) {
            Root::Global
        } else {
            return None;
        };
        let range = cx.span_range(ident.span());
        let (mut path, mut ends): (Vec<String>, Vec<usize>) = members.into_iter().unzip();
        if let Some(alias) = alias {
            let base = alias.path.len();
            path.splice(0..0, alias.path.iter().cloned());
            ends.splice(0..0, std::iter::repeat_n(range.end, base));
            // A local bound to a `self` place, or the bare name of one bound to another place (`let
            // who = visit.who; … who`): the read that bound it is the one.
            let aliased = alias.root == Root::SelfValue || base == path.len();
            return Some(FieldAccess {
                path,
                start: range.start,
                ends,
                root: alias.root,
                aliased,
                ..Default::default()
            });
        }
        path.insert(0, name);
        ends.insert(0, range.end);
        Some(FieldAccess { path, start: range.start, ends, root, ..Default::default() })
    }

    /// An argument that passes a place on: `&mut state`, `&self.inner`, `Arc::clone(&s)`,
    /// `s.clone()`.
    pub fn arg_place(&self, e: &Expr) -> Option<(Root, Vec<String>)> {
        let e = match e {
            Expr::Reference(r) => &*r.expr,
            Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => &*m.receiver,
            Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "clone")) =>
            {
                c.args.first()?
            }
            other => other,
        };
        let e = if let Expr::Reference(r) = e { &*r.expr } else { e };
        let mut members = Vec::new();
        let mut cur = e;
        loop {
            match cur {
                Expr::Field(f) => {
                    let syn::Member::Named(n) = &f.member else { return None };
                    members.push(n.to_string());
                    cur = &f.base;
                }
                Expr::Path(p) if p.path.is_ident("self") => {
                    members.reverse();
                    return Some((Root::SelfValue, members));
                }
                Expr::Path(p) => {
                    let name = p.path.get_ident()?.to_string();
                    members.reverse();
                    if let Some(alias) = self.aliases.get(&name) {
                        return Some((alias.root, [alias.path.clone(), members].concat()));
                    }
                    if let Some((root, path)) = self.clones.get(&name) {
                        return Some((*root, [path.clone(), members].concat()));
                    }
                    let local =
                        self.params.contains(&name) || self.declared.get(&name).is_some_and(|d| *d < self.loops);
                    return local.then(|| (Root::Local, [vec![name], members].concat()));
                }
                _ => return None,
            }
        }
    }
}

/// `x` of `Arc::clone(&x)` / `Rc::clone(&x)`: a second handle to the same value (unlike
/// `x.clone()`, which copies unless `x` is itself an `Arc`).
pub fn shared_handle_of(e: &Expr) -> Option<&Expr> {
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let names: Vec<String> = p.path.segments.iter().rev().take(2).map(|s| s.ident.to_string()).collect();
    let shared = names.len() == 2 && names[0] == "clone" && (names[1] == "Arc" || names[1] == "Rc");
    match c.args.first() {
        Some(Expr::Reference(r)) if shared && c.args.len() == 1 => Some(&r.expr),
        _ => None,
    }
}

/// `x.clone()`, `Arc::clone(&x)`, `Rc::clone(&x)`.
fn is_clone(e: &Expr) -> bool {
    match e {
        Expr::MethodCall(m) => m.method == "clone" && m.args.is_empty(),
        Expr::Call(c) => {
            c.args.len() == 1
                && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "clone"))
        }
        _ => false,
    }
}

pub(super) fn is_screaming(name: &str) -> bool {
    name.len() > 1
        && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && name.chars().any(|c| c.is_ascii_uppercase())
}

/// `true`, `false`, `None`, `Some(..)`: a value that switches state on or off.
pub fn is_switch(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Bool(_)),
        Expr::Path(p) => p.path.is_ident("None"),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")),
        Expr::Paren(p) => is_switch(&p.expr),
        _ => false,
    }
}

/// `false` or `None`: a value that turns a switch off.
pub fn is_reset(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => matches!(&l.lit, syn::Lit::Bool(b) if !b.value),
        Expr::Path(p) => p.path.is_ident("None"),
        Expr::Paren(p) => is_reset(&p.expr),
        _ => false,
    }
}

pub fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// The one name a pattern binds to a whole value: `g`, `mut g`, `g: T`, `Some(g)`, `Ok(g)`.
pub fn bound_name(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.to_string()),
        syn::Pat::Type(t) => bound_name(&t.pat),
        syn::Pat::TupleStruct(t)
            if t.elems.len() == 1 && t.path.segments.last().is_some_and(|s| s.ident == "Some" || s.ident == "Ok") =>
        {
            bound_name(&t.elems[0])
        }
        _ => None,
    }
}

/// `e` when it is a place seen through guards only (`self.state.lock().unwrap()`, `&mut s.x`),
/// not a value computed from one (`self.tools.len()`).
pub fn guarded(e: &Expr) -> Option<&Expr> {
    let mut cur = e;
    loop {
        cur = match cur {
            Expr::Field(_) | Expr::Path(_) => return Some(e),
            Expr::MethodCall(m) if GUARDS.iter().any(|g| m.method == g) => &m.receiver,
            Expr::Await(a) => &a.base,
            Expr::Try(t) => &t.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Reference(r) => &r.expr,
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
            _ => return None,
        };
    }
}

/// The Rust expressions a `json!` body interpolates.
pub fn json_exprs(cx: &Cx, m: &syn::Macro) -> Vec<Expr> {
    let Some(root) = cx.json_macro(m) else { return Vec::new() };
    let mut out = Vec::new();
    crate::json::walk(&root, |node, _| {
        if let crate::json::JsonKind::Expr(t) = &node.kind
            && let Ok(e) = syn::parse2::<Expr>(t.clone())
        {
            out.push(e);
        }
    });
    out
}

impl FieldAccess {
    /// The whole access as written (`self.a.b`, `g.x`).
    pub fn full_range(&self) -> Range<usize> {
        self.start..self.ends.last().copied().unwrap_or(self.start)
    }

    /// For a write, the place and the write (`self.x.store(true, Relaxed)`, `self.flag`).
    pub fn write_range(&self) -> Range<usize> {
        self.start..self.op.as_ref().map_or(self.full_range().end, |op| op.end.max(self.start))
    }
}

/// What a place is rooted at, crate-wide.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PlaceRoot {
    /// A field of a type of the crate.
    Type(TypeKey),
    /// A local or state parameter of a function, by name.
    Local(FnId, String),
    /// A static or global, by name.
    Global(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Place {
    pub root: PlaceRoot,
    /// Members under the root.
    pub path: Vec<String>,
}

impl Place {
    /// One place is the other, or lies under it.
    pub fn related(&self, other: &Place) -> bool {
        self.root == other.root && paths_related(&self.path, &other.path)
    }
}

/// One member path is the other, or lies under it.
pub fn paths_related(a: &[String], b: &[String]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

/// One access of a state place, as a function reached from a handler makes it.
#[derive(Debug, Clone)]
pub struct StateUse<'m> {
    pub fn_: FnId,
    pub access: &'m FieldAccess,
    pub place: Place,
}

/// What a function's code (with the functions it calls) reads and writes of state places.
#[derive(Debug, Default)]
pub struct StateUses<'m> {
    pub uses: Vec<StateUse<'m>>,
    /// The code it was collected from: functions, each with the range of it that counts (an arm).
    pub code: Vec<(FnId, Option<Range<usize>>)>,
}

/// A caller's places for a callee's parameter names.
type Bindings = HashMap<String, Place>;

impl CrateModel {
    /// What a handler's code reads and writes: its arm, or its function; see `state_uses`.
    pub fn handler_state(&self, h: &Handler, follow: &dyn Fn(FnId) -> bool) -> StateUses<'_> {
        self.state_uses(h.fn_, h.arm.clone(), follow)
    }

    /// What function `id` (only the code inside `range`, when given: a dispatcher's arm) reads and
    /// writes of state places, with the functions it calls folded in (resolved calls, up to four
    /// deep, each function once; `follow` says which callees count). A callee's parameter is the
    /// place its caller passed (`handle(&mut state)`).
    pub fn state_uses(&self, id: FnId, range: Option<Range<usize>>, follow: &dyn Fn(FnId) -> bool) -> StateUses<'_> {
        let mut out = StateUses::default();
        let mut seen = vec![id];
        let mut stack: Vec<(FnId, Option<Range<usize>>, Bindings, usize)> = vec![(id, range, Bindings::new(), 0)];
        while let Some((id, range, binds, depth)) = stack.pop() {
            let f = self.func(id);
            let inside = |r: &Range<usize>| range.as_ref().is_none_or(|arm| within(r, arm));
            for access in f.fields.iter().chain(&f.places).filter(|a| inside(&a.full_range())) {
                if let Some(place) = self.place_of(id, access.root, &access.path, &binds) {
                    out.uses.push(StateUse { fn_: id, access, place });
                }
            }
            if depth < MAX_DEPTH {
                for &(i, callee) in self.callees_of(id) {
                    let call = &f.calls[i];
                    if !inside(&call.range) || seen.contains(&callee) || !follow(callee) {
                        continue;
                    }
                    seen.push(callee);
                    let target = self.func(callee);
                    // `Type::method(receiver, ..)`: the first argument is the receiver.
                    let skip = usize::from(!call.callee.has_receiver() && target.has_self);
                    let mut callee_binds = Bindings::new();
                    for (param, arg) in target.params.iter().zip(call.arg_places.iter().skip(skip)) {
                        if let (Some(name), Some((root, path))) = (&param.name, arg)
                            && let Some(place) = self.place_of(id, *root, path, &binds)
                        {
                            callee_binds.insert(name.clone(), place);
                        }
                    }
                    stack.push((callee, None, callee_binds, depth + 1));
                }
            }
            out.code.push((id, range));
        }
        out
    }

    /// The crate-wide place of a path rooted at `root` in function `id`.
    fn place_of(&self, id: FnId, root: Root, path: &[String], binds: &Bindings) -> Option<Place> {
        let place = match root {
            Root::SelfValue => Place { root: PlaceRoot::Type(self.owner(id)?.clone()), path: path.to_vec() },
            Root::Local => {
                let (name, rest) = path.split_first()?;
                match binds.get(name) {
                    Some(bound) => Place { root: bound.root.clone(), path: [&bound.path[..], rest].concat() },
                    // `sessions: &dyn SessionBackend`: the crate's trait object, one place for
                    // every parameter of that type, as every value of a crate type is.
                    None => match self.trait_object_param(id, name) {
                        Some(key) => Place { root: PlaceRoot::Type(key), path: rest.to_vec() },
                        None => Place { root: PlaceRoot::Local(id, name.clone()), path: rest.to_vec() },
                    },
                }
            }
            Root::Global => {
                let (name, rest) = path.split_first()?;
                let module = &self.func(id).module;
                let global = self.resolve_global(module, name)?;
                Place { root: PlaceRoot::Global(global), path: rest.to_vec() }
            }
        };
        Some(self.through_fields(place))
    }

    /// A static or lazily initialised global the name stands for in `module` (defined there or
    /// imported by name), by `module::NAME`; consts are no state.
    fn resolve_global(&self, module: &[String], name: &str) -> Option<String> {
        let is_state = |m: &[String], n: &str| {
            self.files
                .iter()
                .flat_map(|f| &f.globals)
                .any(|g| g.module == m && g.name == n && g.kind != super::GlobalKind::Const)
        };
        if is_state(module, name) {
            return Some(super::key(module, name));
        }
        let u = self.uses.get(module)?.iter().find(|u| !u.glob && u.alias == name)?;
        let (last, prefix) = u.target.split_last()?;
        let m = self.resolve_module(module, prefix, 0)?;
        is_state(&m, last).then(|| super::key(&m, last))
    }

    /// A place under a field whose type is another struct of the crate (`inner: Arc<Inner>`) is
    /// that struct's place: `Outer.inner.x` is `Inner.x`; so is a member the type does not have
    /// when it derefs to another (`impl Deref for Outer { type Target = Inner; … }`).
    fn through_fields(&self, mut place: Place) -> Place {
        for _ in 0..MAX_DEPTH {
            let PlaceRoot::Type(ty) = &place.root else { break };
            let Some(first) = place.path.first() else { break };
            // `self.session()` (only a typed map's entry read is spelled so): the crate type the
            // accessor returns.
            if let Some(name) = first.strip_suffix("()") {
                let Some(key) = self.accessor_type(ty, name) else { break };
                place = Place { root: PlaceRoot::Type(key), path: place.path[1..].to_vec() };
                continue;
            }
            let Some(fact) = self.type_fact(ty) else { break };
            let Some((_, field_ty)) = fact.fields.iter().find(|(n, _)| n == first) else {
                match self.deref_target(ty) {
                    Some(target) if target != *ty => place.root = PlaceRoot::Type(target),
                    _ => break,
                }
                continue;
            };
            let Some(inner) = innermost(field_ty) else { break };
            // A kept client declaration (`init: InitializeRequestParams`) is a value of the field,
            // not an object shared with other places: its members stay the field's.
            if CLIENT_TYPES.contains(&inner) {
                break;
            }
            let key = self.resolve_type(&fact.module, &[inner.to_owned()]);
            if self.type_fact(&key).is_none() || key == *ty {
                break;
            }
            place = Place { root: PlaceRoot::Type(key), path: place.path[1..].to_vec() };
        }
        self.keyed_entry(place)
    }

    /// A typed map's entry (`<T>`, `state::entry_member`) is a place of its own where the model
    /// knows what holds the map: a crate type's value (`SessionState.<T>`, also when the type's
    /// file is not in the model: `session: SessionState` with `use crate::session::SessionState`),
    /// a field declared as a typed map (`ext: Extensions`), a local or state parameter. Elsewhere
    /// the entry is not told apart: the place is the map's.
    fn keyed_entry(&self, mut place: Place) -> Place {
        let Some(i) = place.path.iter().position(|m| entry_type(m).is_some()) else { return place };
        match (&place.root, i) {
            (_, 0) => {}
            (PlaceRoot::Type(ty), 1) => {
                let field_ty = self.type_fact(ty).and_then(|fact| {
                    let (_, written) = fact.fields.iter().find(|(n, _)| *n == place.path[0])?;
                    Some((fact.module.clone(), written.clone()))
                });
                match field_ty {
                    Some((_, written)) if TYPED_MAPS.contains(&super::roots::innermost(&written)) => {}
                    Some((module, written)) => match self.crate_key(&module, &written) {
                        Some(key) => place = Place { root: PlaceRoot::Type(key), path: place.path[1..].to_vec() },
                        None => place.path.truncate(1),
                    },
                    None => place.path.truncate(1),
                }
            }
            _ => place.path.truncate(i),
        }
        place
    }

    /// A field holding an object of a crate type the model has no file of (`bag: Bag` with `use
    /// crate::bag::Bag`): what that object's own methods (`self.bag.insert(v)`) do with a value
    /// is not seen.
    pub fn is_unseen_crate_object(&self, place: &Place) -> bool {
        let PlaceRoot::Type(ty) = &place.root else { return false };
        let [field] = place.path.as_slice() else { return false };
        let Some(fact) = self.type_fact(ty) else { return false };
        fact.fields
            .iter()
            .find(|(n, _)| n == field)
            .and_then(|(_, written)| self.crate_key(&fact.module, written))
            .is_some_and(|key| self.type_fact(&key).is_none())
    }

    /// The crate type an accessor of `ty` returns (`fn session(&self) -> Option<&SessionState>`).
    fn accessor_type(&self, ty: &TypeKey, name: &str) -> Option<TypeKey> {
        let f =
            self.methods_of(ty, name).iter().map(|id| self.func(*id)).find(|f| f.has_self && f.params.is_empty())?;
        self.crate_key(&f.module, f.ret.as_deref()?)
    }

    /// The crate type a type as written names in `module`, under its wrappers: one of the model,
    /// or one the module imports from the crate (`use crate::session::SessionState`), by where the
    /// `use` says it lives.
    fn crate_key(&self, module: &[String], written: &str) -> Option<TypeKey> {
        if let Some(key) = self.crate_type(module, written) {
            return Some(key);
        }
        let name = super::roots::innermost(written).trim_start_matches("mut ").trim_start_matches('&');
        let imported = self.uses.get(module)?.iter().any(|u| {
            !u.glob
                && u.alias == name
                && matches!(u.target.first().map(String::as_str), Some("crate" | "self" | "super"))
        });
        imported.then(|| self.resolve_type(module, &[name.to_owned()]))
    }

    /// The crate trait a parameter of function `id` is a trait object of (`sessions: &dyn
    /// SessionBackend`, `Arc<dyn Store>`): one the model has, or one the module imports from the
    /// crate (`use crate::session::SessionBackend`).
    fn trait_object_param(&self, id: FnId, name: &str) -> Option<TypeKey> {
        let f = self.func(id);
        let ty = &f.params.iter().find(|p| p.name.as_deref() == Some(name))?.ty;
        if !ty.contains("dyn ") {
            return None;
        }
        let t = super::roots::innermost(ty).strip_prefix("dyn ")?;
        let key = self.resolve_type(&f.module, &[t.to_owned()]);
        let defined = self
            .files
            .iter()
            .flat_map(|file| &file.delegation.traits)
            .any(|tr| key == super::key(&tr.module, &tr.name));
        if defined { Some(key) } else { self.crate_key(&f.module, t) }
    }

    /// The crate-wide place of a field of a struct literal written in function `id`
    /// (`Data { init: p, .. }`), if the crate defines the type in a file of the model.
    pub fn literal_place(&self, id: FnId, ty: &[String], field: &str) -> Option<Place> {
        let key = self.resolve_type(&self.func(id).module, ty);
        self.type_fact(&key)?;
        Some(self.through_fields(Place { root: PlaceRoot::Type(key), path: vec![field.to_owned()] }))
    }
}

impl CrateModel {
    /// The crate type a type derefs to: the return type of its `Deref::deref` (`&Inner`).
    fn deref_target(&self, ty: &TypeKey) -> Option<TypeKey> {
        let id = self
            .methods
            .get(&(ty.clone(), "deref".to_owned()))?
            .iter()
            .copied()
            .find(|id| self.impl_of(*id).is_some_and(|imp| imp.trait_.as_deref() == Some("Deref")))?;
        let f = self.func(id);
        let inner = innermost(f.ret.as_deref()?.trim_start_matches('&'))?;
        let key = self.resolve_type(&f.module, &[inner.to_owned()]);
        self.type_fact(&key).map(|_| key)
    }
}

/// The type inside smart pointers and locks (`Arc<RwLock<Inner>>` → `Inner`), if only those wrap it.
fn innermost(ty: &str) -> Option<&str> {
    const WRAPPERS: &[&str] = &["Arc", "Rc", "Box", "Mutex", "RwLock", "RefCell", "Cell"];
    let mut t = ty.trim();
    loop {
        match t.split_once('<') {
            Some((outer, rest)) if WRAPPERS.contains(&outer.trim()) => t = rest.strip_suffix('>')?.trim(),
            Some(_) => return None,
            None => return Some(t).filter(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_')),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::model_of;

    /// The places (root, path) a handler reads and writes, as `(write?, root, path)`.
    fn places(model: &CrateModel, method: &str) -> Vec<(bool, PlaceRoot, Vec<String>)> {
        let h = model.handlers_for(method).next().expect("a handler");
        let uses = model.handler_state(h, &|_| true).uses;
        uses.into_iter().map(|u| (u.access.write.is_some(), u.place.root, u.place.path)).collect()
    }

    #[test]
    fn loop_locals_of_main_and_parameters_bound_by_callers() {
        let model = model_of(&[(
            "src/main.rs",
            "fn remember(log: &mut Vec<String>, name: &str) { log.push(name.into()); }\n\
             fn main() {\n  let mut open = false;\n  let mut log = Vec::new();\n  let once = 1;\n\
               for line in lines() {\n    match line.method() {\n\
                 \"tools/call\" => { open = true; remember(&mut log, \"x\"); }\n\
                 \"tools/list\" => { let n = once; if open { show(&log); } }\n\
                 _ => {}\n    }\n  }\n}\n",
        )]);
        let main = model.fn_by_path(&["main"]).unwrap();
        let local = |n: &str| PlaceRoot::Local(main, n.to_owned());
        // The arm's own accesses (`&mut log` passes the place on), then the helper's, bound to it.
        assert_eq!(
            places(&model, "tools/call"),
            [(true, local("open"), vec![]), (false, local("log"), vec![]), (true, local("log"), vec![])]
        );
        // `once` is declared outside the loop but read only: still a place, never written.
        assert_eq!(
            places(&model, "tools/list"),
            [(false, local("once"), vec![]), (false, local("open"), vec![]), (false, local("log"), vec![])]
        );
    }

    #[test]
    fn fields_through_arc_inner_aliases_and_statics() {
        let model = model_of(&[
            (
                "src/inner.rs",
                "pub struct Inner { pub flag: AtomicBool, sessions: Mutex<HashMap<String, S>> }\n\
                 impl Inner { pub fn set(&self, id: &str) { self.flag.store(true, SeqCst); \
                 let mut all = self.sessions.lock().unwrap(); all.entry(id.into()).or_default().beta = true; } }\n\
                 pub static MODE: Mutex<u8> = Mutex::new(0);\n",
            ),
            (
                "src/lib.rs",
                "use crate::inner::{Inner, MODE};\nstruct Outer { inner: Arc<Inner> }\n\
                 impl ServerHandler for Outer {\n\
                   async fn call_tool(&self) { self.inner.set(\"a\"); *MODE.lock().unwrap() = 2; }\n\
                   async fn list_tools(&self) { let f = self.inner.flag.load(SeqCst); }\n}\n",
            ),
        ]);
        let inner = PlaceRoot::Type("inner::Inner".to_owned());
        assert_eq!(places(&model, "tools/list"), [(false, inner.clone(), vec!["flag".to_owned()])]);
        let outer = model.fn_by_path(&["inner", "Inner", "set"]).unwrap();
        let writes: Vec<(PlaceRoot, Vec<String>)> = model
            .state_uses(outer, None, &|_| true)
            .uses
            .into_iter()
            .filter(|u| u.access.write.is_some())
            .map(|u| (u.place.root, u.place.path))
            .collect();
        assert_eq!(writes[0], (inner.clone(), vec!["flag".to_owned()]));
        assert!(writes.contains(&(inner, vec!["sessions".to_owned(), "beta".to_owned()])), "{writes:?}");
        let deref = model_of(&[(
            "src/lib.rs",
            "struct Inner { on: bool }\nstruct Outer(Arc<Inner>);\n\
             impl Deref for Outer { type Target = Inner; fn deref(&self) -> &Inner { &self.0 } }\n\
             impl ServerHandler for Outer { async fn list_tools(&self) { let on = self.on; } }\n",
        )]);
        let on = (false, PlaceRoot::Type("Inner".to_owned()), vec!["on".to_owned()]);
        assert_eq!(places(&deref, "tools/list"), [on]);
        // `self.inner.set(..)` is a call on a field, not on `self`: not followed; the static is.
        let call = places(&model, "tools/call");
        assert!(call.contains(&(true, PlaceRoot::Global("inner::MODE".to_owned()), vec![])), "{call:?}");
    }

    #[test]
    fn wrappers_peel_to_the_inner_type() {
        assert_eq!(innermost("Arc<RwLock<Inner>>"), Some("Inner"));
        assert_eq!(innermost("Inner"), Some("Inner"));
        assert_eq!(innermost("HashMap<String, Session>"), None);
    }
}
