//! Where a root's `file://` URI is cut into a path in another function than the one holding the
//! roots: the handler maps its roots to URI strings and hands them to a helper, which hands each
//! one to another helper, which cuts the scheme off (`strip_prefix("file://")`, `&uri[7..]`).
//!
//! Per function, on the worker that parsed it (`fn_facts`, only where the roots facts are kept:
//! crates with roots words), the model keeps `UriCutFacts`: which of its string or root parameters
//! (and what is bound from them: `let s = p.as_str()`, `for p in params`, a closure over
//! `params.iter()`) reach a cut of a `file://` scheme, with the cut's ranges; which calls each
//! parameter is handed to, as which argument; and how the calls that roots uses hand a root to
//! are resolved (a call the model has, a method of a `self` field's declared type, a method of a
//! parameter's declared type, a function given by name to `map`). `root_uri_cuts` then follows
//! every root URI, or list of them, that a function hands to a crate function
//! (`roots::Purpose::PassedOn` / `Handed`) through those parameters to a fixed point, and keeps
//! the cuts it reaches. A call the model cannot
//! resolve, a receiver whose type the code does not declare, or a value made from the parameter
//! by anything but a plain accessor, ends the flow: nothing is reported on a guessed one.

use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Expr, Lit, Pat, RangeLimits};

use super::flow::{Elem, compact, int_lit, strip, strip_pat};
use super::roots::{Purpose, RootsFacts};
use super::{Callee, CrateModel, FnId};
use crate::context::Role;
use crate::cx::Cx;
use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{fn_text, method_call_range, text_may_mention};

/// String methods that cut a prefix off (the prefix is their first argument).
pub const CUTS: &[&str] = &["strip_prefix", "trim_start_matches", "trim_left_matches", "replace", "replacen"];

/// Methods whose result is (a view of) their receiver's value: a parameter stays itself through them.
const ACCESSORS: &[&str] = &[
    "as_str",
    "as_ref",
    "as_deref",
    "clone",
    "to_string",
    "to_owned",
    "trim",
    "trim_end",
    "borrow",
    "deref",
    "iter",
    "into_iter",
    "filter",
    "cloned",
    "copied",
    "unwrap",
    "expect",
    "as_slice",
];

/// Iterator methods whose closure's first input is one element of the receiver.
const CLOSURE_ADAPTERS: &[&str] =
    &["map", "filter_map", "flat_map", "for_each", "filter", "any", "all", "find", "find_map", "try_for_each"];

/// Methods that read a guarded or shared value (`self.svc.lock().await`, `Arc::clone`): the field's
/// declared type (under its wrappers) is still the receiver's.
const GUARDS: &[&str] = &["clone", "as_ref", "lock", "read", "write", "unwrap", "expect", "borrow", "borrow_mut"];

/// A cut of a `file://` scheme off a value bound from parameters.
#[derive(Debug, Clone)]
pub struct Cut {
    /// The parameters it is bound from (bits as in `Origins::params`).
    pub params: u32,
    /// The finding's range (`strip_prefix("file://")`, `uri[7..]`), and what the display-only fix
    /// replaces (the receiver and the cut).
    pub range: Range<usize>,
    pub fix: Range<usize>,
    /// The cut and its receiver as written, compacted (`&` before the receiver dropped).
    pub shown: String,
    pub receiver: String,
    /// The name of the parameter cut (the first of `params`).
    pub param: String,
}

/// How a call a function makes is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A call the model keeps (`CallFact`, a path or a `self` method) ending at the same offset.
    Model,
    /// `self.<path>.m(..)`, also through a local bound to the field (`let s = self.svc.clone()`):
    /// a method of the field's declared type.
    Field { path: Vec<String>, method: String },
    /// `p.m(..)` on a parameter: a method of its declared type.
    Typed { ty: String, method: String },
    /// A function given by name to an iterator adapter (`uris.iter().map(to_path)`): called with
    /// each element.
    Named(Vec<String>),
}

/// A call, with the parameters that flow into each argument (after the receiver).
#[derive(Debug, Clone)]
pub struct CallOut {
    /// Where the call ends (its closing parenthesis), as `CallFact::range` and `RootsUse::range`.
    pub end: usize,
    pub target: Target,
    pub args: Vec<u32>,
}

/// One function's facts (`FnFact::uri_cuts`).
#[derive(Debug, Clone, Default)]
pub struct UriCutFacts {
    pub cuts: Vec<Cut>,
    /// Calls that are handed a parameter, or a root (a roots use of the function ends there).
    pub calls: Vec<CallOut>,
    /// The body percent-decodes (`percent_decode_str`, `urlencoding::decode`): it did the
    /// conversion's main work by hand, so its cuts are not reported.
    pub decodes: bool,
}

/// One function's `UriCutFacts`, `None` when it has none: a function with string or root
/// parameters, or one that hands a root to a call (`roots`: its roots facts).
pub fn fn_facts(
    cx: &Cx,
    sig: &syn::Signature,
    body: &syn::Block,
    roots: Option<&RootsFacts>,
    scheme_consts: &[String],
) -> Option<Box<UriCutFacts>> {
    let handed: Vec<usize> = roots
        .map(|r| {
            r.uses
                .iter()
                .filter(|u| matches!(u.purpose, Purpose::PassedOn | Purpose::Handed { .. }))
                .map(|u| u.range.end)
                .collect()
        })
        .unwrap_or_default();
    let mut env: Names<u32> = Names::default();
    let mut typed: Names<String> = Names::default();
    let mut names = Vec::new();
    let mut i = 0u32;
    for input in &sig.inputs {
        let syn::FnArg::Typed(t) = input else { continue };
        let ty = super::extract::type_text(&t.ty);
        names.push(super::extract::pat_idents(&t.pat).into_iter().next().unwrap_or_default());
        if let Pat::Ident(p) = strip_pat(&t.pat) {
            let name = p.ident.to_string();
            if uri_type(&ty)
                && let Some(bit) = 1u32.checked_shl(i)
            {
                env.insert(name.clone(), bit);
            }
            typed.insert(name, ty);
        }
        i += 1;
    }
    if env.is_empty() && handed.is_empty() {
        return None;
    }
    // Cuts are told by their syntax alone (a method's name, then its literal): no text to search.
    let cut_text = !env.is_empty();
    let mut walk = Walk {
        cx,
        env,
        names,
        typed,
        fields: Names::default(),
        handed,
        cut_text,
        consts: if cut_text { SchemeConsts::with_locals(scheme_consts.to_vec(), body) } else { Vec::new() },
        quiet: 0,
        out: UriCutFacts::default(),
    };
    walk.visit_block(body);
    let mut out = walk.out;
    if out.cuts.is_empty() && out.calls.is_empty() {
        return None;
    }
    if !out.cuts.is_empty() && text_may_mention(fn_text(cx, sig, body), &["decode", "unescape"]) {
        let tokens = quote::ToTokens::to_token_stream(body);
        out.decodes = crate::rust::syntax::idents_any(&tokens, &|i| i.contains("decode") || i.contains("unescape"));
    }
    Some(Box::new(out))
}

/// A parameter type that may hold a URI or a list of them (strings, `Root`s), not a path.
fn uri_type(ty: &str) -> bool {
    !ty.contains("Path") && ["str", "String", "Root", "Cow"].iter().any(|w| ty.contains(w))
}

/// A string literal, through `&` and parentheses.
pub fn lit_str(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Reference(r) => lit_str(&r.expr),
        _ => None,
    }
}

pub fn is_file_scheme(s: &str) -> bool {
    matches!(s, "file://" | "file:///" | "file:")
}

/// `e` is a `file://` scheme: the literal, or a name of `consts` (`SchemeConsts`).
fn is_scheme(e: &Expr, consts: &[String]) -> bool {
    match strip(e) {
        Expr::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| consts.iter().any(|c| s.ident == c))
        }
        Expr::Reference(r) => is_scheme(&r.expr, consts),
        e => lit_str(e).is_some_and(|s| is_file_scheme(&s)),
    }
}

/// `m` cuts a `file://` scheme off its receiver: `strip_prefix("file://")`, `trim_start_matches`,
/// `replace("file://", "")` (not a rewrite to another scheme), also with the scheme in a const of
/// the file (`strip_prefix(FILE_URI_PREFIX)`; `consts`: `SchemeConsts::of`).
pub fn is_scheme_cut(m: &syn::ExprMethodCall, consts: &[String]) -> bool {
    let name = &m.method;
    if !CUTS.iter().any(|c| name == c) || !m.args.first().is_some_and(|a| is_scheme(a, consts)) {
        return false;
    }
    !(name == "replace" || name == "replacen") || m.args.iter().nth(1).and_then(lit_str).as_deref() == Some("")
}

/// A slice start that cuts a scheme: `7..` or `8..` (`seven`), `"file://".len()..` or
/// `FILE_URI_PREFIX.len()..` (`scheme_len`).
pub fn slice_start(r: &syn::ExprRange, consts: &[String]) -> Option<(bool, bool)> {
    if r.end.is_some() || !matches!(r.limits, RangeLimits::HalfOpen(_)) {
        return None;
    }
    let start = r.start.as_deref()?;
    let scheme_len = match strip(start) {
        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => is_scheme(&m.receiver, consts),
        _ => false,
    };
    let seven = matches!(int_lit(start), Some(7 | 8));
    (scheme_len || seven).then_some((seven, scheme_len))
}

/// The names of the file's `const`/`static` strings that hold a `file://` scheme
/// (`const FILE_URI_PREFIX: &str = "file://";`, in any module or impl of the file), found once per
/// file and kept in its `Cx` (`Cx::file_fact`) for the rule and the model's facts. A const of
/// another file is not known here: a cut with it is missed, never guessed.
#[derive(Clone)]
pub struct SchemeConsts(Vec<String>);

impl SchemeConsts {
    /// The file's scheme consts, found on first use.
    pub fn of(cx: &mut Cx, file: &syn::File) -> Vec<String> {
        cx.file_fact(|cx| SchemeConsts(Self::find(cx, file))).0
    }

    /// `of` for the model's facts, which see the file's `Cx` after the rules.
    pub fn seen(cx: &Cx, file: &syn::File) -> Vec<String> {
        cx.known_fact::<SchemeConsts>().map_or_else(|| Self::find(cx, file), |c| c.0)
    }

    /// What `of` found (none before it ran).
    pub fn known(cx: &Cx) -> Vec<String> {
        cx.known_fact::<SchemeConsts>().map(|c| c.0).unwrap_or_default()
    }

    fn find(cx: &Cx, file: &syn::File) -> Vec<String> {
        // The literal is spelled in the file, quoted.
        if !cx.file.text.contains("\"file:") {
            return Vec::new();
        }
        let mut found = Vec::new();
        crate::rust::requests::collect_str_consts(cx, &file.items, &is_file_scheme, &mut found);
        found.into_iter().map(|c| c.name).collect()
    }

    /// The file's scheme consts and those a function's body declares at its top
    /// (`const LOCAL_PROTOCOL: &str = "file://";` before the cut).
    pub fn with_locals(mut consts: Vec<String>, body: &syn::Block) -> Vec<String> {
        for stmt in &body.stmts {
            if let syn::Stmt::Item(syn::Item::Const(c)) = stmt
                && lit_str(&c.expr).is_some_and(|v| is_file_scheme(&v))
            {
                consts.push(c.ident.to_string());
            }
        }
        consts
    }
}

/// The range a finding on `&s[7..]` shows: the whole slice when short, else from the bracket.
pub fn slice_range(cx: &Cx, e: &Expr, i: &syn::ExprIndex) -> Range<usize> {
    let whole = cx.node_range(e);
    let start = cx.span_range(i.bracket_token.span.open()).start;
    if cx.text(whole.clone()).len() <= 40 { whole } else { start..whole.end }
}

/// A few names with a value each, looked up by identifier without printing it (a function has a
/// handful of parameters and locals bound from them).
struct Names<T>(Vec<(String, T)>);

impl<T> Default for Names<T> {
    fn default() -> Self {
        Names(Vec::new())
    }
}

impl<T> Names<T> {
    fn get(&self, i: &proc_macro2::Ident) -> Option<&T> {
        self.0.iter().rev().find(|(n, _)| i == n).map(|(_, v)| v)
    }
    fn insert(&mut self, name: String, value: T) {
        self.remove(&name);
        self.0.push((name, value));
    }
    fn remove(&mut self, name: &str) {
        self.0.retain(|(n, _)| n != name);
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

struct Walk<'c, 'a> {
    cx: &'c Cx<'a>,
    /// Names bound from parameters, with their bits. Flat: a later binding replaces it.
    env: Names<u32>,
    /// Parameter names, by index after `self`.
    names: Vec<String>,
    /// Parameters by name, with their declared types (`type_text`).
    typed: Names<String>,
    /// Locals bound to a `self` field (`let svc = self.svc.clone()`).
    fields: Names<Vec<String>>,
    /// Where the calls the function hands a root to end (its roots uses).
    handed: Vec<usize>,
    /// A parameter to cut.
    cut_text: bool,
    /// The scheme consts in scope (`SchemeConsts`).
    consts: Vec<String>,
    /// Inside a logging or printing macro: shows a value, does not convert it.
    quiet: usize,
    out: UriCutFacts,
}

impl Walk<'_, '_> {
    /// The parameters an expression's value is (a view of).
    fn bits(&self, e: &Expr) -> u32 {
        match strip(e) {
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.env.get(i)).copied().unwrap_or(0),
            Expr::Reference(r) => self.bits(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.bits(&u.expr),
            Expr::Try(t) => self.bits(&t.expr),
            // A root's `uri`.
            Expr::Field(f) if matches!(&f.member, syn::Member::Named(n) if n == "uri") => self.bits(&f.base),
            Expr::MethodCall(m) if ACCESSORS.iter().any(|a| m.method == a) => self.bits(&m.receiver),
            _ => 0,
        }
    }

    fn bind(&mut self, pat: &Pat, bits: u32) {
        for name in super::extract::pat_idents(pat) {
            self.fields.remove(&name);
            self.typed.remove(&name);
            if bits == 0 {
                self.env.remove(&name);
            } else {
                self.env.insert(name, bits);
            }
        }
    }

    /// The `self` field an expression reads, through guards, `&`, `.await`, `?`, `Arc::clone(&..)`
    /// and locals bound to one.
    fn self_field(&self, e: &Expr) -> Option<Vec<String>> {
        match strip(e) {
            Expr::Reference(r) => self.self_field(&r.expr),
            Expr::Await(a) => self.self_field(&a.base),
            Expr::Try(t) => self.self_field(&t.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.self_field(&u.expr),
            Expr::MethodCall(m) if GUARDS.iter().any(|g| m.method == g) => self.self_field(&m.receiver),
            Expr::Call(c) if c.args.len() == 1 => match strip(&c.func) {
                Expr::Path(p) if crate::rust::syntax::path_ends_with(&p.path, &["clone"]) => {
                    self.self_field(&c.args[0])
                }
                _ => None,
            },
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.fields.get(i)).cloned(),
            Expr::Field(_) => super::flow::self_path(e),
            _ => None,
        }
    }

    /// A parameter's declared type, through `&` and `*`.
    fn param_type(&self, e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Reference(r) => self.param_type(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.param_type(&u.expr),
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.typed.get(i)).cloned(),
            _ => None,
        }
    }

    /// A call closed by `close`: kept when a parameter flows into an argument or a roots use hands a
    /// root to it (most calls have neither, and their range is never worked out).
    fn call<'e>(
        &mut self,
        close: proc_macro2::Span,
        target: impl FnOnce(&Self) -> Option<Target>,
        args: impl Iterator<Item = &'e Expr> + Clone,
    ) {
        let carries = args.clone().any(|a| self.bits(a) != 0);
        if !carries && self.handed.is_empty() {
            return;
        }
        let end = self.cx.span_range(close).end;
        if !carries && !self.handed.contains(&end) {
            return;
        }
        if let Some(target) = target(self) {
            let args = args.map(|a| self.bits(a)).collect();
            self.out.calls.push(CallOut { end, target, args });
        }
    }

    fn cut(&mut self, bits: u32, range: Range<usize>, fix: Range<usize>, receiver: &Expr) {
        if bits == 0 || self.quiet > 0 {
            return;
        }
        let shown = compact(self.cx.text(range.clone()));
        let receiver = compact(self.cx.text(self.cx.node_range(receiver))).trim_start_matches('&').to_owned();
        let param = (0..32).find(|i| bits & (1 << i) != 0).and_then(|i| self.names.get(i)).cloned().unwrap_or_default();
        self.out.cuts.push(Cut { params: bits, range, fix, shown, receiver, param });
    }
}

impl<'ast> Visit<'ast> for Walk<'_, '_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let Some(init) = &l.init else {
            self.bind(&l.pat, 0);
            return;
        };
        self.visit_expr(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
        }
        let (bits, field) = (self.bits(&init.expr), self.self_field(&init.expr));
        self.bind(&l.pat, bits);
        if let (Pat::Ident(p), Some(path)) = (strip_pat(&l.pat), field) {
            self.fields.insert(p.ident.to_string(), path);
        }
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
        let bits = self.bits(&e.expr);
        self.bind(&e.pat, bits);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let bits = self.bits(&f.expr);
        self.bind(&f.pat, bits);
        self.visit_block(&f.body);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.visit_expr(&m.receiver);
        // `params.iter().map(|p| …)`: `p` is an element of the parameter.
        if CLOSURE_ADAPTERS.iter().any(|a| m.method == a)
            && let Some(Expr::Closure(c)) = m.args.first().map(strip)
            && let Some(input) = c.inputs.first()
        {
            let bits = self.bits(&m.receiver);
            self.bind(input, bits);
        }
        // `params.iter().map(to_path)`: `to_path` is called with each element.
        if CLOSURE_ADAPTERS.iter().any(|a| m.method == a)
            && let Some(Expr::Path(p)) = m.args.first().map(strip)
            && p.qself.is_none()
        {
            let bits = self.bits(&m.receiver);
            if bits != 0 {
                let path = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let end = self.cx.span_range(m.paren_token.span.close()).end;
                self.out.calls.push(CallOut { end, target: Target::Named(path), args: vec![bits] });
            }
        }
        for a in &m.args {
            self.visit_expr(a);
        }
        if self.cut_text && is_scheme_cut(m, &self.consts) {
            let range = method_call_range(self.cx, m);
            let fix = self.cx.node_range(&*m.receiver).start..range.end;
            self.cut(self.bits(&m.receiver), range, fix, &m.receiver);
        } else if self.cut_text
            && m.method == "get"
            && m.args.len() == 1
            && let Expr::Range(r) = strip(&m.args[0])
            && slice_start(r, &self.consts).is_some()
        {
            let range = method_call_range(self.cx, m);
            let fix = self.cx.node_range(&*m.receiver).start..range.end;
            self.cut(self.bits(&m.receiver), range, fix, &m.receiver);
        }
        let close = m.paren_token.span.close();
        if crate::rust::syntax::is_self(&m.receiver) {
            self.call(close, |_| Some(Target::Model), m.args.iter());
        } else {
            self.call(
                close,
                |w| match (w.self_field(&m.receiver), w.param_type(&m.receiver)) {
                    (Some(path), _) => Some(Target::Field { path, method: m.method.to_string() }),
                    (None, Some(ty)) => Some(Target::Typed { ty, method: m.method.to_string() }),
                    _ => None,
                },
                m.args.iter(),
            );
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        visit::visit_expr_call(self, c);
        if let Expr::Path(_) = strip(&c.func) {
            self.call(c.paren_token.span.close(), |_| Some(Target::Model), c.args.iter());
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Expr::Index(i) = e
            && self.cut_text
            && let Expr::Range(r) = strip(&i.index)
            && slice_start(r, &self.consts).is_some()
        {
            let bits = self.bits(&i.expr);
            if bits != 0 {
                let range = slice_range(self.cx, e, i);
                let fix = self.cx.node_range(e);
                self.cut(bits, range, fix, &i.expr);
            }
        }
        visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let quiet = m.path.segments.last().is_some_and(|s| super::state::QUIET_MACROS.iter().any(|q| s.ident == q));
        self.quiet += quiet as usize;
        if let Some(body) = self.cx.macro_body(m) {
            match &*body {
                MacroBody::Exprs(exprs) => exprs.iter().for_each(|e| self.visit_expr(e)),
                MacroBody::Stmts(stmts) => stmts.iter().for_each(|s| self.visit_stmt(s)),
            }
        }
        self.quiet -= quiet as usize;
    }
}

// ---------------------------------------------------------------------------------------------
// Across the crate.
// ---------------------------------------------------------------------------------------------

/// A cut that a root's URI reaches from another function.
#[derive(Debug, Clone)]
pub struct RootUriCut<'m> {
    /// The function that cuts, and the cut.
    pub fn_: FnId,
    pub cut: &'m Cut,
    /// The function holding the client's roots, and where it hands them on (its file's offset).
    pub source: FnId,
    pub handed_at: Range<usize>,
    /// The functions the URI goes through, from the one handed it to the one that cuts.
    pub chain: Vec<FnId>,
}

const DEPTH: usize = 8;

/// Every cut of a `file://` scheme that a root's URI (or a list of them) handed to a crate function
/// reaches, once per cut, in model order of the functions holding the roots. Cuts in test or client
/// code, or in a function that percent-decodes, are left out, as are roots held in either.
pub fn root_uri_cuts(model: &CrateModel) -> Vec<RootUriCut<'_>> {
    let flow = model.roots();
    let mut out: Vec<RootUriCut> = Vec::new();
    for u in flow.uses(model) {
        let arg = match u.use_.purpose {
            Purpose::Handed { arg } => arg,
            Purpose::PassedOn => match u.use_.arg {
                Some(arg) => arg,
                None => continue,
            },
            _ => continue,
        };
        // URIs or roots, not paths made from them.
        if !matches!(u.elem, Elem::Str | Elem::Root) || excluded(model, u.fn_) {
            continue;
        }
        let Some(facts) = model.func(u.fn_).uri_cuts.as_deref() else { continue };
        let Some(call) = facts.calls.iter().find(|c| c.end == u.use_.range.end) else { continue };
        for (callee, shift) in targets(model, u.fn_, call) {
            let Some(param) = usize::from(arg).checked_sub(shift) else { continue };
            let mut seen = Vec::new();
            let mut chain = Vec::new();
            reach(model, callee, param, &mut seen, &mut chain, &mut |fn_, cut, chain| {
                let new = !out.iter().any(|c| c.fn_ == fn_ && c.cut.range == cut.range);
                if new {
                    let (source, handed_at, chain) = (u.fn_, u.use_.range.clone(), chain.to_vec());
                    out.push(RootUriCut { fn_, cut, source, handed_at, chain });
                }
            });
        }
    }
    out
}

fn excluded(model: &CrateModel, id: FnId) -> bool {
    model.func(id).test || model.role(id) == Role::Client
}

/// The cuts parameter `param` of `id` reaches, through the calls it is handed to.
fn reach<'m>(
    model: &'m CrateModel,
    id: FnId,
    param: usize,
    seen: &mut Vec<(FnId, usize)>,
    chain: &mut Vec<FnId>,
    found: &mut dyn FnMut(FnId, &'m Cut, &[FnId]),
) {
    if seen.contains(&(id, param)) || chain.len() >= DEPTH || excluded(model, id) {
        return;
    }
    seen.push((id, param));
    let Some(facts) = model.func(id).uri_cuts.as_deref() else { return };
    let Some(bit) = u32::try_from(param).ok().and_then(|p| 1u32.checked_shl(p)) else { return };
    chain.push(id);
    if !facts.decodes {
        for cut in facts.cuts.iter().filter(|c| c.params & bit != 0) {
            found(id, cut, chain);
        }
    }
    for call in &facts.calls {
        for (k, bits) in call.args.iter().enumerate() {
            if bits & bit == 0 {
                continue;
            }
            for (callee, shift) in targets(model, id, call) {
                if let Some(p) = k.checked_sub(shift) {
                    reach(model, callee, p, seen, chain, found);
                }
            }
        }
    }
    chain.pop();
}

/// The crate functions a call may reach, with how many of its arguments come before the callee's
/// parameters after `self` (1 for `Type::method(&value, ..)`).
fn targets(model: &CrateModel, id: FnId, call: &CallOut) -> Vec<(FnId, usize)> {
    let f = model.func(id);
    let methods = |ty: &String, method: &String| model.methods_of(ty, method).iter().map(|t| (*t, 0)).collect();
    match &call.target {
        Target::Model => {
            let Some(index) = f.calls.iter().position(|c| c.range.end == call.end) else { return Vec::new() };
            let path_call = matches!(f.calls[index].callee, Callee::Path(_));
            model
                .callees_of(id)
                .iter()
                .filter(|(i, _)| *i == index)
                .map(|(_, to)| (*to, usize::from(path_call && model.func(*to).has_self)))
                .collect()
        }
        Target::Field { path, method } => match model.owner(id).and_then(|o| model.field_type(o, path)) {
            Some(ty) => methods(&ty, method),
            None => Vec::new(),
        },
        Target::Named(path) => model.fns_named_from(id, path).into_iter().map(|t| (t, 0)).collect(),
        Target::Typed { ty, method } => match model.crate_type(&f.module, ty) {
            Some(ty) => methods(&ty, method),
            None => Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::model_of;

    fn cuts(model: &CrateModel) -> Vec<(String, String, String)> {
        root_uri_cuts(model)
            .iter()
            .map(|c| (model.func(c.source).name.clone(), model.func(c.fn_).name.clone(), c.cut.shown.clone()))
            .collect()
    }

    /// A handler hands its roots' URIs to a service held in a field, which hands each one to a
    /// helper of a third module, which cuts the scheme off.
    #[test]
    fn through_a_field_and_a_closure_into_a_third_file() {
        let model = model_of(&[
            (
                "src/handler.rs",
                "use crate::service::Store;\n\
                 pub struct H { store: Arc<Store> }\n\
                 impl H { async fn sync(&self, peer: &Peer<RoleServer>) {\n\
                 let listed = peer.list_roots().await.unwrap();\n\
                 let uris: Vec<&str> = listed.roots.iter().map(|r| r.uri.as_str()).collect();\n\
                 let store = self.store.clone();\n\
                 store.adopt(uris);\n\
                 } }\n",
            ),
            (
                "src/service.rs",
                "use crate::paths::to_path;\n\
                 pub struct Store { dirs: Vec<PathBuf> }\n\
                 impl Store { pub fn adopt(&self, roots: Vec<&str>) { let v: Vec<_> = roots.iter().map(|p| to_path(p)).collect(); } }\n",
            ),
            (
                "src/paths.rs",
                "pub fn to_path(input: &str) -> PathBuf { PathBuf::from(input.strip_prefix(\"file://\").unwrap_or(input)) }\n",
            ),
        ]);
        assert_eq!(cuts(&model), [("sync".into(), "to_path".into(), "strip_prefix(\"file://\")".into())]);
    }

    /// A service imported from the crate through a re-export whose file is not in the model is the
    /// one type of that name; a field of another crate's type of the same name is not.
    #[test]
    fn a_type_behind_a_missing_re_export_and_a_foreign_namesake() {
        let handler = |import: &str| {
            format!(
                "{import}\n\
                 use rmcp::model::ListRootsResult;\n\
                 pub struct H {{ svc: Arc<Service> }}\n\
                 impl H {{ fn sync(&self, listed: ListRootsResult) {{\n\
                 let uris: Vec<&str> = listed.roots.iter().map(|r| r.uri.as_str()).collect();\n\
                 self.svc.adopt(uris);\n\
                 }} }}\n"
            )
        };
        let service = "pub struct Service;\n\
                       impl Service { pub fn adopt(&self, uris: Vec<&str>) { for u in uris { let p = u.strip_prefix(\"file://\"); } } }\n";
        let ours = handler("use crate::svc::Service;");
        let model = model_of(&[("src/handler.rs", &ours), ("src/svc/inner.rs", service)]);
        assert_eq!(cuts(&model), [("sync".into(), "adopt".into(), "strip_prefix(\"file://\")".into())]);
        let theirs = handler("use other::Service;");
        let model = model_of(&[("src/handler.rs", &theirs), ("src/svc/inner.rs", service)]);
        assert!(cuts(&model).is_empty());
    }

    /// `for` loops, slices, a typed parameter's method; a URI the server made, and a decoding helper,
    /// are not reached.
    #[test]
    fn loops_slices_typed_receivers_and_silences() {
        let model = model_of(&[(
            "src/lib.rs",
            "use rmcp::model::ListRootsResult;\n\
             pub struct Conv;\n\
             impl Conv { fn one(&self, u: &str) -> &str { &u[7..] } }\n\
             fn each(uris: &[String], conv: &Conv) { for u in uris { conv.one(u); } let v: Vec<_> = uris.iter().map(named).collect(); }\n\
             fn named(u: &String) -> String { u.replace(\"file://\", \"\") }\n\
             fn decoded(u: &str) -> String { percent_decode_str(u.trim_start_matches(\"file://\")).to_string() }\n\
             fn own(u: &str) -> &str { u.strip_prefix(\"file://\").unwrap() }\n\
             fn go(listed: ListRootsResult, conv: &Conv) {\n\
             let uris: Vec<String> = listed.roots.iter().map(|r| r.uri.clone()).collect();\n\
             each(&uris, conv);\n\
             let first = listed.roots.first().unwrap(); decoded(&first.uri);\n\
             own(&format!(\"file://{}\", \"/tmp\"));\n\
             }\n",
        )]);
        assert_eq!(
            cuts(&model),
            [
                ("go".into(), "one".into(), "u[7..]".into()),
                ("go".into(), "named".into(), "replace(\"file://\", \"\")".into())
            ]
        );
    }
}
