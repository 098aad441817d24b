//! Rewrites the code of one function that reads the client's roots so that it reads the new
//! parameter instead.
//!
//! The code is read as method chains (`context.peer.list_roots().await?.roots.first()…`). What is
//! understood:
//!
//! - the request: `RECV.list_roots().await` followed by `?`, `.map_err(…)?`, `.context(…)?`,
//!   `.unwrap()`, `.expect(…)` or `.unwrap_or_default()`, optionally `.roots`; bound with `let`
//!   (the statement goes) or used inline;
//! - one root: `.first()`, `.get(0)`, `.iter().next()`, then `.cloned()`, `.map(…)`,
//!   `.and_then(…)`, then `.ok_or(…)?`/`.ok_or_else(…)?`/`.context(…)?`/`.unwrap()`/`.expect(…)`
//!   (a required parameter) or `.unwrap_or(…)`/`.unwrap_or_else(…)`/`.unwrap_or_default()`/nothing
//!   (an optional one), also as `let Some(root) = … else { … };`;
//! - every root: `for root in &roots { … }`, `.iter().map(…)`, `.filter_map(…)`, `.len()`, … (a list
//!   parameter);
//! - a root's URI: `root.uri`, with the `file://` prefix removed by `.strip_prefix(…)`,
//!   `.trim_start_matches(…)` or `.replace(…)` (dropped: the parameter is a path already).
//!
//! Anything else that touches the roots is refused with the reason, and nothing is rewritten.
//! The new parameter is written as the placeholder `PARAM` until its name is known.

use std::collections::HashMap;
use std::ops::Range;

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, ExprMethodCall, Member, Pat, Stmt};

use super::text::{Src, render};
use crate::diagnostic::Edit;
use crate::rust::rejects::strip;
use crate::rust::syntax::diverges;

/// Stands for the new parameter's place (`args.path`) until its name is chosen.
pub const PARAM: &str = "__mcp_lint_param__";

/// What the code needs of the new parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// One directory, always there: `String`.
    First,
    /// One directory, with a fallback when there is none: `Option<String>`.
    FirstOptional,
    /// Every directory: `Vec<String>`.
    All,
}

/// What a name bound to the roots request holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// A `ListRootsResult`: the roots are its `.roots`.
    Result,
    /// The `Vec<Root>` itself.
    Vec,
}

/// How a name that stood for one root reaches its directory now.
#[derive(Debug, Clone)]
pub enum Carrier {
    /// A `String` place that must not be moved out of (`args.path`).
    Place(String),
    /// A variable of type `&String` (a loop or closure variable over the parameter).
    RefVar(String),
    /// A variable of type `String` that may be moved.
    OwnedVar(String),
}

impl Carrier {
    /// For `&root.uri`.
    fn amp(&self) -> String {
        match self {
            Carrier::Place(p) | Carrier::OwnedVar(p) => format!("&{p}"),
            Carrier::RefVar(v) => v.clone(),
        }
    }
    /// For `root.uri.method(…)`.
    fn recv(&self) -> String {
        match self {
            Carrier::Place(p) | Carrier::RefVar(p) | Carrier::OwnedVar(p) => p.clone(),
        }
    }
    /// For `root.uri` used by value.
    fn bare(&self) -> String {
        match self {
            Carrier::Place(p) | Carrier::RefVar(p) => format!("{p}.clone()"),
            Carrier::OwnedVar(v) => v.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub range: Range<usize>,
    pub reason: String,
}

/// A helper function that returns a directory derived from the roots (shape C), as an expression
/// in terms of `PARAM`.
#[derive(Debug, Clone)]
pub struct HelperInline {
    pub text: String,
    pub need: Need,
    pub is_async: bool,
    pub returns_result: bool,
}

/// One link of a method chain, innermost first.
#[derive(Clone, Copy)]
enum Link<'a> {
    Method(&'a ExprMethodCall),
    Field(&'a syn::ExprField),
    Await,
    Try,
}

struct Chain<'a> {
    base: &'a Expr,
    /// Each link with the expression that ends with it.
    links: Vec<(Link<'a>, &'a Expr)>,
}

fn flatten(mut e: &Expr) -> Chain<'_> {
    let mut links = Vec::new();
    loop {
        match e {
            Expr::MethodCall(m) => {
                links.push((Link::Method(m), e));
                e = &m.receiver;
            }
            Expr::Field(f) => {
                links.push((Link::Field(f), e));
                e = &f.base;
            }
            Expr::Await(a) => {
                links.push((Link::Await, e));
                e = &a.base;
            }
            Expr::Try(t) => {
                links.push((Link::Try, e));
                e = &t.expr;
            }
            Expr::Group(g) => e = &g.expr,
            _ => break,
        }
    }
    links.reverse();
    Chain { base: e, links }
}

/// `Ok(x)`, or `Ok(Ok(x))` under a timeout: the name bound and how many `Ok`s wrap it.
fn ok_binding(pat: &Pat) -> Option<(String, usize)> {
    let mut p = pat;
    let mut depth = 0;
    loop {
        match p {
            Pat::TupleStruct(ts) if ts.path.is_ident("Ok") && ts.elems.len() == 1 => {
                p = &ts.elems[0];
                depth += 1;
            }
            Pat::Ident(i) if depth > 0 && i.subpat.is_none() && i.by_ref.is_none() => {
                return Some((i.ident.to_string(), depth));
            }
            _ => return None,
        }
    }
}

/// `Err(…)`: in a function's tail, an error the function returns.
fn is_err_value(e: &Expr) -> bool {
    matches!(strip(e), Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Err")))
}

/// A value whose `let` can go without changing what the code does: a literal, a path, or a call
/// of a path on such values (`Duration::from_secs(10)`).
/// The deletion of `let <name> = <plain value>;` in `block` (a value without side effects, so
/// nothing is lost with it) when `reads` says no other statement of the block reads `name`.
pub(super) fn unused_plain_local(
    src: &Src,
    block: &syn::Block,
    name: &str,
    reads: impl Fn(Range<usize>) -> bool,
) -> Option<Range<usize>> {
    let bound = block.stmts.iter().find(|stmt| {
        matches!(stmt, Stmt::Local(l)
            if matches!(&l.pat, Pat::Ident(p) if p.ident == name && p.subpat.is_none())
                && l.init.as_ref().is_some_and(|i| i.diverge.is_none() && is_plain_value(&i.expr)))
    })?;
    let bound = src.range(bound);
    let still_read = block.stmts.iter().map(|stmt| src.range(stmt)).any(|r| r != bound && reads(r));
    (!still_read).then(|| super::text::deletion(src.text, bound))
}

fn is_plain_value(e: &Expr) -> bool {
    match strip(e) {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Call(c) => matches!(&*c.func, Expr::Path(_)) && c.args.iter().all(is_plain_value),
        _ => false,
    }
}

/// What an arm that goes on gives, when it is the list `bound` names: the result, or its `.roots`.
fn gives_list(value: &Expr, bound: &str) -> Option<ListKind> {
    let value = match strip(value) {
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => e,
            _ => return None,
        },
        e => e,
    };
    let ch = flatten(strip(value));
    if ident_of(ch.base).as_deref() != Some(bound) {
        return None;
    }
    match ch.links.as_slice() {
        [] => Some(ListKind::Result),
        [only] if is_field(Some(only), "roots") => Some(ListKind::Vec),
        _ => None,
    }
}

fn method<'a>(link: Option<&(Link<'a>, &'a Expr)>, names: &[&str]) -> Option<&'a ExprMethodCall> {
    match link {
        Some((Link::Method(m), _)) if names.iter().any(|n| m.method == n) => Some(m),
        _ => None,
    }
}

fn is_field(link: Option<&(Link, &Expr)>, name: &str) -> bool {
    matches!(link, Some((Link::Field(f), _)) if matches!(&f.member, Member::Named(i) if i == name))
}

fn is_try(link: Option<&(Link, &Expr)>) -> bool {
    matches!(link, Some((Link::Try, _)))
}

fn is_await(link: Option<&(Link, &Expr)>) -> bool {
    matches!(link, Some((Link::Await, _)))
}

/// The identifier a path expression is, if it is one plain name.
pub fn ident_of(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Group(g) => ident_of(&g.expr),
        Expr::Paren(p) => ident_of(&p.expr),
        _ => None,
    }
}

/// How the result of a request (or of a helper returning `Result`) is unwrapped, from link `at`:
/// the index after it, and whether a failure falls back to an empty list.
fn result_tail(links: &[(Link, &Expr)], at: usize) -> Option<(usize, bool)> {
    if is_try(links.get(at)) {
        return Some((at + 1, false));
    }
    if method(links.get(at), &["map_err", "context", "with_context", "wrap_err", "wrap_err_with"]).is_some()
        && is_try(links.get(at + 1))
    {
        return Some((at + 2, false));
    }
    if method(links.get(at), &["unwrap", "expect"]).is_some() {
        return Some((at + 1, false));
    }
    if method(links.get(at), &["unwrap_or_default"]).is_some() {
        return Some((at + 1, true));
    }
    None
}

/// A file-scheme prefix argument: a `"file:…"` literal or a constant.
fn is_scheme_arg(e: &Expr) -> bool {
    match strip(e) {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value().starts_with("file:"),
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        }),
        Expr::Reference(r) => is_scheme_arg(&r.expr),
        _ => false,
    }
}

/// Whether `text` can take a method call or field after it without parentheses.
fn postfix_safe(text: &str) -> bool {
    matches!(
        syn::parse_str::<Expr>(text),
        Ok(Expr::Path(_) | Expr::Call(_) | Expr::MethodCall(_) | Expr::Field(_) | Expr::Macro(_) | Expr::Paren(_))
    )
}

fn paren(text: String) -> String {
    if postfix_safe(&text) { text } else { format!("({text})") }
}

/// Rewrites one function body.
pub struct Rewriter<'s> {
    src: &'s Src<'s>,
    /// Names bound to the roots request's result.
    lists: HashMap<String, ListKind>,
    /// Names that stood for one root.
    roots: HashMap<String, Carrier>,
    /// Closure parameters that stand for a value derived from the parameter.
    aliases: HashMap<String, String>,
    helpers: &'s HashMap<String, HelperInline>,
    pub edits: Vec<Edit>,
    pub need: Option<Need>,
    pub refusal: Option<Refusal>,
    /// Lookups rewritten (requests and helper calls).
    pub lookups: usize,
    /// `if roots.is_empty() { … }` statements: the statement and its condition.
    guards: Vec<(Range<usize>, Range<usize>)>,
    /// Locals that only gave a deleted request's `tokio::time::timeout` its limit (`limit` in
    /// `timeout(limit, peer.list_roots())`): their `let` goes too when nothing else reads them.
    timeout_limits: Vec<String>,
}

impl<'s> Rewriter<'s> {
    pub fn new(src: &'s Src<'s>, helpers: &'s HashMap<String, HelperInline>) -> Self {
        Rewriter {
            src,
            lists: HashMap::new(),
            roots: HashMap::new(),
            aliases: HashMap::new(),
            helpers,
            edits: Vec::new(),
            need: None,
            refusal: None,
            lookups: 0,
            guards: Vec::new(),
            timeout_limits: Vec::new(),
        }
    }

    fn refuse(&mut self, range: Range<usize>, reason: impl Into<String>) {
        if self.refusal.is_none() {
            self.refusal = Some(Refusal { range, reason: reason.into() });
        }
    }

    fn needs(&mut self, need: Need, at: Range<usize>) {
        match self.need {
            None => self.need = Some(need),
            Some(n) if n == need => {}
            Some(_) => self.refuse(
                at,
                "the function uses the roots in two ways (one directory here, every directory or an optional one elsewhere); \
                 a single parameter cannot stand for both",
            ),
        }
    }

    fn range(&self, node: &impl syn::spanned::Spanned) -> Range<usize> {
        self.src.range(node)
    }

    fn replace(&mut self, range: Range<usize>, text: impl Into<String>) {
        self.edits.push(Edit::replace(range, text));
    }

    /// The text of `range` after visiting `nodes` with the current names; their edits are taken
    /// out of `self.edits`.
    fn render_with(&mut self, range: Range<usize>, visit_nodes: impl FnOnce(&mut Self)) -> String {
        let mark = self.edits.len();
        visit_nodes(self);
        let inner: Vec<Edit> = self.edits.drain(mark..).collect();
        render(self.src.text, range, &inner)
    }

    /// Rewrites a function's whole body; call `finish` afterwards. Beyond `block`: a tail `match`
    /// over a bare request that returns what the function gives (`match peer.list_roots().await {
    /// Ok(listed) => Ok(dir_of(listed)), Err(e) => Err(…) }`) becomes its `Ok` arm's value, and the
    /// other arms (errors the function returned, or left it by) go.
    pub fn fn_body(&mut self, block: &syn::Block) {
        let Some((Stmt::Expr(Expr::Match(m), None), before)) = block.stmts.split_last() else {
            return self.block(block);
        };
        let Some((bound, value)) = self.tail_request_match(m) else { return self.block(block) };
        self.stmts(before);
        if self.refusal.is_some() {
            return;
        }
        self.lists.insert(bound, ListKind::Result);
        self.lookups += 1;
        let text = match strip(value) {
            // An arm block's statements take the match's place (it is the function's tail).
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                let inner = self.range(&b.block);
                self.render_with(inner.start + 1..inner.end - 1, |rw| rw.block(&b.block)).trim().to_owned()
            }
            _ => {
                let range = self.range(value);
                self.render_with(range, |rw| rw.visit_expr(value))
            }
        };
        let whole = self.range(m);
        self.replace(whole, text);
        // The scrutinee is the awaited request itself.
        self.note_timeout_limit(&m.expr);
        self.drop_unused_limits(block);
    }

    /// The list a tail `match` binds and the value its one going-on arm gives, when it matches a
    /// bare request and each other arm leaves the function (diverges, or is an `Err(…)` it returns).
    fn tail_request_match<'m>(&self, m: &'m syn::ExprMatch) -> Option<(String, &'m Expr)> {
        self.going_on_arm(m, |body| diverges(body) || is_err_value(body))
    }

    /// For a `match` over a bare request: the name its one `Ok(…)` arm binds and that arm's body,
    /// when it has no guard and every other arm `leaves`.
    fn going_on_arm<'m>(&self, m: &'m syn::ExprMatch, leaves: impl Fn(&Expr) -> bool) -> Option<(String, &'m Expr)> {
        let depth = self.bare_request(&m.expr)?;
        let mut going_on = None;
        for arm in &m.arms {
            if arm.guard.is_some() {
                return None;
            }
            match ok_binding(&arm.pat) {
                Some((bound, d)) if d == depth && going_on.is_none() => going_on = Some((bound, &*arm.body)),
                _ if leaves(&arm.body) => {}
                _ => return None,
            }
        }
        going_on
    }

    /// Rewrites a function body's statements; call `finish` afterwards.
    pub fn block(&mut self, block: &syn::Block) {
        self.stmts(&block.stmts);
        if self.refusal.is_none() {
            self.drop_unused_limits(block);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            if self.refusal.is_some() {
                return;
            }
            match stmt {
                Stmt::Local(local) => self.local(local),
                Stmt::Expr(Expr::If(i), _) if i.else_branch.is_none() && self.is_empty_check(&i.cond) => {
                    self.guards.push((self.range(stmt), self.range(&*i.cond)));
                    self.visit_block(&i.then_branch);
                }
                _ => self.visit_stmt(stmt),
            }
        }
    }

    /// Deletes the `let` of each of `timeout_limits` bound in `block` by a plain value
    /// (`Duration::from_secs(10)`, a constant) that no statement left standing mentions.
    fn drop_unused_limits(&mut self, block: &syn::Block) {
        for name in std::mem::take(&mut self.timeout_limits) {
            let deleted = |r: &Range<usize>| {
                self.edits.iter().any(|e| {
                    e.byte_range.start <= r.start
                        && r.end <= e.byte_range.end
                        && !super::text::mentions_ident(&e.replacement, &name)
                })
            };
            let reads = |r: Range<usize>| !deleted(&r) && super::text::mentions_ident(self.src.slice(r), &name);
            if let Some(bound) = unused_plain_local(self.src, block, &name, reads) {
                self.edits.push(Edit::delete(bound));
            }
        }
    }

    /// Notes the limit local of a deleted `tokio::time::timeout(limit, …)` request.
    fn note_timeout_limit(&mut self, init: &Expr) {
        let awaited = match strip(init) {
            Expr::Match(m) => &*m.expr,
            Expr::If(i) => match strip(&i.cond) {
                Expr::Let(l) => &*l.expr,
                _ => return,
            },
            e => e,
        };
        if let Expr::Await(a) = strip(awaited)
            && let Expr::Call(c) = strip(&a.base)
            && let Some(limit) = c.args.first().and_then(ident_of)
        {
            self.timeout_limits.push(limit);
        }
    }

    /// Settles the emptiness checks once the need is known.
    pub fn finish(&mut self) {
        let guards = std::mem::take(&mut self.guards);
        if !guards.is_empty() && self.need.is_none() {
            self.need = Some(Need::All);
        }
        for (stmt, cond) in guards {
            match self.need {
                // A required parameter is never missing.
                Some(Need::First) => self.edits.push(Edit::delete(super::text::deletion(self.src.text, stmt))),
                Some(Need::FirstOptional) => self.replace(cond, format!("{PARAM}.is_none()")),
                _ => self.replace(cond, format!("{PARAM}.is_empty()")),
            }
        }
    }

    fn is_empty_check(&self, cond: &Expr) -> bool {
        let ch = flatten(strip(cond));
        matches!(self.seq_at(&ch), Some(s) if s + 1 == ch.links.len() && method(ch.links.get(s), &["is_empty"]).is_some())
    }

    fn local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else { return self.visit_local(local) };
        let stmt = self.range(local);
        let name = match &local.pat {
            Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.to_string()),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) => Some(p.ident.to_string()),
                _ => None,
            },
            _ => None,
        };
        // `let listed = match peer.list_roots().await { Ok(l) => l, Err(e) => return … };` and its
        // `let … else`, `if let` and `tokio::time::timeout` forms: the request goes, its error arms with it.
        if let Some(name) = name.as_deref()
            && init.diverge.is_none()
            && let Some(kind) = self.request_with_error_arms(&init.expr)
        {
            self.lists.insert(name.to_owned(), kind);
            self.lookups += 1;
            self.edits.push(Edit::delete(super::text::deletion(self.src.text, stmt)));
            self.note_timeout_limit(&init.expr);
            return;
        }
        if let Some(diverge) = &init.diverge
            && let Some((bound, depth)) = ok_binding(&local.pat)
            && self.bare_request(&init.expr) == Some(depth)
            && diverges(&diverge.1)
        {
            self.lists.insert(bound, ListKind::Result);
            self.lookups += 1;
            self.edits.push(Edit::delete(super::text::deletion(self.src.text, stmt)));
            self.note_timeout_limit(&init.expr);
            return;
        }
        let ch = flatten(strip(&init.expr));
        // `let listed = context.peer.list_roots().await?;`
        if let Some((end, kind, _)) = self.fetch_at(&ch)
            && end == ch.links.len()
        {
            let Some(name) = name.filter(|_| init.diverge.is_none()) else {
                return self
                    .refuse(stmt, "the roots request's result is destructured; the codemod follows a plain `let`");
            };
            self.lists.insert(name, kind);
            self.lookups += 1;
            self.edits.push(Edit::delete(super::text::deletion(self.src.text, stmt)));
            return;
        }
        if let Some(s) = self.seq_at(&ch)
            && let Some(k) = first_op(&ch, s)
        {
            let whole = self.range(&*init.expr);
            match (&init.diverge, &local.pat) {
                // `let Some(root) = roots.first() else { … };`
                (Some(_), Pat::TupleStruct(ts))
                    if ts.path.is_ident("Some")
                        && ts.elems.len() == 1
                        && matches!(&ts.elems[0], Pat::Ident(p) if p.subpat.is_none()) =>
                {
                    let Pat::Ident(p) = &ts.elems[0] else { unreachable!() };
                    let bound = p.ident.to_string();
                    match self.first_chain(&ch, k, whole.clone(), true) {
                        Some(FirstOut::Root) => {
                            self.roots.insert(bound, Carrier::Place(PARAM.into()));
                            self.edits.push(Edit::delete(super::text::deletion(self.src.text, stmt)));
                        }
                        Some(FirstOut::Text(t, end)) => {
                            let mutability = if p.mutability.is_some() { "mut " } else { "" };
                            let rest = self.src.slice(end..whole.end).to_owned();
                            self.replace(stmt, format!("let {mutability}{bound} = {t}{rest};"));
                        }
                        None => {}
                    }
                }
                (None, _) => match self.first_chain(&ch, k, whole.clone(), false) {
                    Some(FirstOut::Root) => match name {
                        Some(name) => {
                            self.roots.insert(name, Carrier::Place(PARAM.into()));
                            self.edits.push(Edit::delete(super::text::deletion(self.src.text, stmt)));
                        }
                        None => self.refuse(stmt, "a root is destructured; the codemod follows `root.uri`"),
                    },
                    Some(FirstOut::Text(t, end)) => self.replace(whole.start..end, t),
                    None => {}
                },
                _ => self.refuse(stmt, "a `let … else` over the roots that is not `let Some(root) = … else`"),
            }
            return;
        }
        self.visit_local(local);
    }

    /// A `match` or `if let … else` over a bare roots request (`bare_request`) whose one arm that
    /// goes on gives the list it bound (`Ok(listed) => listed`, or `listed.roots`) and whose other
    /// arms all diverge (`return`, `?` on an error, `panic!`): what the value is, as a `let` of it.
    fn request_with_error_arms(&self, e: &Expr) -> Option<ListKind> {
        match strip(e) {
            Expr::Match(m) => {
                let (bound, value) = self.going_on_arm(m, diverges)?;
                gives_list(value, &bound)
            }
            Expr::If(i) => {
                let Expr::Let(l) = strip(&i.cond) else { return None };
                let (bound, depth) = ok_binding(&l.pat)?;
                if self.bare_request(&l.expr) != Some(depth) || i.then_branch.stmts.len() != 1 {
                    return None;
                }
                let syn::Stmt::Expr(value, None) = &i.then_branch.stmts[0] else { return None };
                let (_, otherwise) = i.else_branch.as_ref()?;
                if !diverges(otherwise) {
                    return None;
                }
                gives_list(value, &bound)
            }
            _ => None,
        }
    }

    /// A roots request awaited with its error left to the code around it:
    /// `peer.list_roots().await` (1: one `Ok` to unwrap) or
    /// `tokio::time::timeout(limit, peer.list_roots()).await` (2: the timeout's `Ok` around it).
    fn bare_request(&self, e: &Expr) -> Option<usize> {
        let Expr::Await(awaited) = strip(e) else { return None };
        let is_request = |future: &Expr| {
            let ch = flatten(strip(future));
            matches!(ch.links.last(), Some((Link::Method(m), _)) if m.method == "list_roots" && m.args.is_empty())
                && ch.links[..ch.links.len() - 1].iter().all(|l| {
                    matches!(l.0, Link::Field(_) | Link::Await | Link::Try)
                        || matches!(l.0, Link::Method(m) if m.args.is_empty())
                })
                && matches!(strip(ch.base), Expr::Path(_))
        };
        if is_request(&awaited.base) {
            return Some(1);
        }
        if let Expr::Call(c) = strip(&awaited.base)
            && let Expr::Path(p) = &*c.func
            && p.path.segments.last().is_some_and(|s| s.ident == "timeout")
            && c.args.len() == 2
            && is_request(&c.args[1])
        {
            return Some(2);
        }
        None
    }

    /// Where a roots request ends in `ch` (after its unwrapping and an optional `.roots`).
    fn fetch_at(&self, ch: &Chain) -> Option<(usize, ListKind, bool)> {
        let i = ch.links.iter().position(|l| matches!(l.0, Link::Method(m) if m.method == "list_roots"))?;
        let Link::Method(m) = ch.links[i].0 else { return None };
        if !m.args.is_empty() || !is_await(ch.links.get(i + 1)) {
            return None;
        }
        let receiver_ok = ch.links[..i].iter().all(|l| {
            matches!(l.0, Link::Field(_) | Link::Await | Link::Try)
                || matches!(l.0, Link::Method(m) if m.args.is_empty())
        });
        if !receiver_ok || !matches!(strip(ch.base), Expr::Path(_)) {
            return None;
        }
        let (end, fallback) = result_tail(&ch.links, i + 2)?;
        if is_field(ch.links.get(end), "roots") {
            return Some((end + 1, ListKind::Vec, fallback));
        }
        Some((end, ListKind::Result, fallback))
    }

    /// Where the sequence of roots ends in `ch`: after `listed.roots`, `roots`, or an inline request.
    fn seq_at(&self, ch: &Chain) -> Option<usize> {
        if let Some(name) = ident_of(ch.base)
            && let Some(kind) = self.lists.get(&name)
        {
            return match kind {
                ListKind::Vec => Some(0),
                ListKind::Result => is_field(ch.links.first(), "roots").then_some(1),
            };
        }
        match self.fetch_at(ch) {
            Some((end, ListKind::Vec, _)) => Some(end),
            _ => None,
        }
    }

    /// One root taken from the sequence ending at link `k`: the replacement, or `None` (refused).
    /// `required` says the surrounding `let … else` makes a missing root an error.
    fn first_chain(&mut self, ch: &Chain, k: usize, whole: Range<usize>, required: bool) -> Option<FirstOut> {
        if ch.links[..k].iter().any(|l| matches!(l.0, Link::Method(m) if m.method == "list_roots")) {
            self.lookups += 1;
        }
        let n = ch.links.len();
        let mut i = k;
        while i < n && method(ch.links.get(i), &["cloned", "copied", "map", "and_then"]).is_some() {
            i += 1;
        }
        let steps_end = i;
        let (unwrap_end, need) = if method(
            ch.links.get(i),
            &["ok_or", "ok_or_else", "context", "with_context", "wrap_err", "wrap_err_with"],
        )
        .is_some()
            && is_try(ch.links.get(i + 1))
        {
            (i + 2, Need::First)
        } else if method(ch.links.get(i), &["unwrap", "expect"]).is_some() {
            (i + 1, Need::First)
        } else if method(ch.links.get(i), &["unwrap_or", "unwrap_or_else", "unwrap_or_default"]).is_some() {
            (i + 1, Need::FirstOptional)
        } else if required {
            (i, Need::First)
        } else {
            (i, Need::FirstOptional)
        };
        self.needs(need, whole.clone());
        let src = self.src;
        let link_start =
            |j: usize| -> usize { if j == 0 { src.range(ch.base).end } else { src.range(ch.links[j - 1].1).end } };
        let node_end = |j: usize| -> usize { src.range(ch.links[j].1).end };
        match need {
            Need::First => {
                let mut state = State::Root;
                for j in k..steps_end {
                    let Link::Method(m) = ch.links[j].0 else { unreachable!() };
                    state = self.required_step(m, state, self.range(ch.links[j].1))?;
                }
                let mut end = if unwrap_end > k { node_end(unwrap_end - 1) } else { self.range(ch.links[k - 1].1).end };
                if let State::Root = state {
                    // `roots.first().unwrap().uri…`
                    if is_field(ch.links.get(unwrap_end), "uri") {
                        let (text, used) = self.uri_links(&Carrier::Place(PARAM.into()), &ch.links[unwrap_end + 1..]);
                        end = node_end(unwrap_end + used);
                        return Some(FirstOut::Text(text, end));
                    }
                    if unwrap_end == n {
                        return Some(FirstOut::Root);
                    }
                    self.refuse(whole, "a root is used as a value; the codemod follows `root.uri`");
                    return None;
                }
                let State::Val(text) = state else { unreachable!() };
                if steps_end == unwrap_end && unwrap_end > k {
                    end = node_end(unwrap_end - 1);
                }
                Some(FirstOut::Text(text, end))
            }
            _ => {
                let mut text = format!("{PARAM}.as_ref()");
                let mut state = State::Root;
                let mut owned = false;
                for j in k..unwrap_end {
                    let Link::Method(m) = ch.links[j].0 else { unreachable!() };
                    let range = link_start(j)..node_end(j);
                    let name = m.method.to_string();
                    match (&state, name.as_str()) {
                        (State::Root, "cloned" | "copied") => {
                            text = format!("{PARAM}.clone()");
                            owned = true;
                        }
                        (State::Root, "map" | "and_then") => {
                            let Some((param, body)) = closure_of(m) else {
                                self.refuse(
                                    range,
                                    "a root is passed to a function; the codemod follows closures over `root.uri`",
                                );
                                return None;
                            };
                            let carrier =
                                if owned { Carrier::OwnedVar(param.clone()) } else { Carrier::RefVar(param.clone()) };
                            let rendered = self.render_with(range, |me| {
                                let old = me.roots.insert(param.clone(), carrier);
                                me.visit_expr(body);
                                restore(&mut me.roots, &param, old);
                            });
                            text.push_str(&rendered);
                            state = State::Val(String::new());
                        }
                        (State::Root, _) => {
                            self.refuse(
                                range,
                                "the fallback is a root itself; the codemod follows a fallback directory",
                            );
                            return None;
                        }
                        (State::Val(_), _) => {
                            let rendered = self.render_with(range, |me| {
                                for arg in &m.args {
                                    me.visit_expr(arg);
                                }
                            });
                            text.push_str(&rendered);
                        }
                    }
                }
                if matches!(state, State::Root) {
                    self.refuse(whole, "an optional root is used as a value; the codemod follows `root.uri`");
                    return None;
                }
                let end = if unwrap_end > k { node_end(unwrap_end - 1) } else { self.range(ch.links[k - 1].1).end };
                Some(FirstOut::Text(text, end))
            }
        }
    }

    /// One `.cloned()`, `.map(…)` or `.and_then(…)` on a root that is always there.
    fn required_step(&mut self, m: &ExprMethodCall, state: State, at: Range<usize>) -> Option<State> {
        let name = m.method.to_string();
        match (state, name.as_str()) {
            (State::Root, "cloned" | "copied") => Some(State::Root),
            (State::Val(v), "cloned" | "copied") => Some(State::Val(match v.strip_prefix('&') {
                Some(place) if postfix_safe(place) => format!("{place}.clone()"),
                _ => format!("{}.clone()", paren(v)),
            })),
            (state, "map" | "and_then") => {
                let out = if let Some((param, body)) = closure_of(m) {
                    let body_range = self.range(body);
                    match &state {
                        State::Root => self.render_with(body_range, |me| {
                            let old = me.roots.insert(param.clone(), Carrier::Place(PARAM.into()));
                            me.visit_expr(body);
                            restore(&mut me.roots, &param, old);
                        }),
                        State::Val(v) => {
                            let v = paren(v.clone());
                            self.render_with(body_range, |me| {
                                let old = me.aliases.insert(param.clone(), v);
                                me.visit_expr(body);
                                restore(&mut me.aliases, &param, old);
                            })
                        }
                    }
                } else if let (State::Val(v), [Expr::Path(f)]) = (&state, m.args.iter().collect::<Vec<_>>().as_slice())
                {
                    format!("{}({v})", self.src.node_text(f))
                } else {
                    self.refuse(at, "a root is passed to a function; the codemod follows closures over `root.uri`");
                    return None;
                };
                if self.refusal.is_some() {
                    return None;
                }
                if name == "map" {
                    return Some(State::Val(out));
                }
                // `.and_then(|r| r.uri.strip_prefix("file://"))`: the body became `Some(…)`.
                match syn::parse_str::<Expr>(&out) {
                    Ok(Expr::Call(c))
                        if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")) && c.args.len() == 1 =>
                    {
                        let inner = out.trim();
                        let inner = &inner[inner.find('(').unwrap() + 1..inner.len() - 1];
                        Some(State::Val(inner.trim().to_owned()))
                    }
                    _ => {
                        self.refuse(at, "`.and_then(…)` over a root that the codemod cannot reduce to a directory");
                        None
                    }
                }
            }
            _ => None,
        }
    }

    /// `root.uri` followed by `links`: the text that reads the directory instead, and how many of
    /// the links it stands for.
    fn uri_links(&mut self, carrier: &Carrier, links: &[(Link, &Expr)]) -> (String, usize) {
        let recv = carrier.recv();
        if let Some(m) = method(links.first(), &["strip_prefix"])
            && m.args.len() == 1
            && is_scheme_arg(&m.args[0])
        {
            // `.strip_prefix("file://").unwrap_or(&root.uri)` and the like: the path itself.
            if method(links.get(1), &["unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else"]).is_some()
            {
                return (format!("{recv}.as_str()"), 2);
            }
            return (format!("Some({recv}.as_str())"), 1);
        }
        if let Some(m) = method(links.first(), &["trim_start_matches", "trim_left_matches"])
            && m.args.len() == 1
            && is_scheme_arg(&m.args[0])
        {
            return (format!("{recv}.as_str()"), 1);
        }
        if let Some(m) = method(links.first(), &["replace", "replacen"])
            && m.args.len() >= 2
            && is_scheme_arg(&m.args[0])
        {
            return (format!("{recv}.clone()"), 1);
        }
        if let Some(m) = method(links.first(), &["parse", "starts_with", "to_file_path"]) {
            self.refuse(
                self.range(links[0].1),
                format!("`.{}(…)` reads the root as a URI; the new parameter is a plain path", m.method),
            );
        }
        if links.is_empty() { (carrier.bare(), 0) } else { (recv, 0) }
    }

    /// A chain over the roots in expression position. Returns whether it was one.
    fn chain(&mut self, e: &Expr) -> bool {
        let ch = flatten(e);
        let whole = self.range(e);
        // A root's URI: `root.uri…`.
        if let Some(name) = ident_of(ch.base)
            && let Some(carrier) = self.roots.get(&name).cloned()
        {
            if !is_field(ch.links.first(), "uri") {
                let what = match ch.links.first() {
                    Some((Link::Field(f), _)) => format!("its `{}`", self.src.node_text(&f.member)),
                    _ => "the root itself".into(),
                };
                self.refuse(whole, format!("uses {what}; a directory parameter only stands for the root's URI"));
                return true;
            }
            let (text, used) = self.uri_links(&carrier, &ch.links[1..]);
            let end = self.range(ch.links[used].1).end;
            self.replace(whole.start..end, text);
            self.visit_rest(&ch, used + 1);
            return true;
        }
        // A helper that derives the directory (shape C): `project_dir(&context.peer).await?`.
        if let Some((helper, end)) = self.helper_call(&ch) {
            self.lookups += 1;
            self.needs(helper.need, whole.clone());
            let text = if end < ch.links.len() { paren(helper.text.clone()) } else { helper.text.clone() };
            let end_at = if end == 0 { self.range(ch.base).end } else { self.range(ch.links[end - 1].1).end };
            self.replace(whole.start..end_at, text);
            self.visit_rest(&ch, end);
            return true;
        }
        let Some(s) = self.seq_at(&ch) else {
            if self.fetch_at(&ch).is_some() {
                self.refuse(whole, "the roots request's result is used in a way the codemod does not follow");
                return true;
            }
            return false;
        };
        if let Some(k) = first_op(&ch, s) {
            match self.first_chain(&ch, k, whole.clone(), false) {
                Some(FirstOut::Text(t, end)) => {
                    self.replace(whole.start..end, t);
                    self.visit_rest_from(&ch, end);
                }
                Some(FirstOut::Root) => {
                    self.refuse(whole, "a root is used as a value; the codemod follows `root.uri`");
                }
                None => {}
            }
            return true;
        }
        self.all_chain(&ch, s, whole);
        true
    }

    /// Visits the arguments of the links from index `from` on.
    fn visit_rest(&mut self, ch: &Chain, from: usize) {
        for (link, _) in ch.links.iter().skip(from) {
            if let Link::Method(m) = link {
                for arg in &m.args {
                    self.visit_expr(arg);
                }
            }
        }
    }

    fn visit_rest_from(&mut self, ch: &Chain, end: usize) {
        let from = ch.links.iter().position(|(_, e)| self.range(*e).end > end).unwrap_or(ch.links.len());
        self.visit_rest(ch, from);
    }

    /// Every root: `roots.iter().map(…)`, `roots.len()`.
    fn all_chain(&mut self, ch: &Chain, s: usize, whole: Range<usize>) {
        if ch.links[..s].iter().any(|l| matches!(l.0, Link::Method(m) if m.method == "list_roots")) {
            self.lookups += 1;
        }
        self.needs(Need::All, whole.clone());
        let seq_end = if s == 0 { self.range(ch.base).end } else { self.range(ch.links[s - 1].1).end };
        if method(ch.links.get(s), &["len", "is_empty"]).is_some() {
            self.replace(whole.start..seq_end, PARAM);
            return self.visit_rest(ch, s + 1);
        }
        if method(ch.links.get(s), &["iter", "into_iter"]).is_none() {
            return self.refuse(
                whole,
                "the list of roots is passed on as a whole; the codemod follows loops and iterator chains over it",
            );
        }
        let iter_end = self.range(ch.links[s].1).end;
        self.replace(whole.start..iter_end, format!("{PARAM}.iter()"));
        let mut owned = false;
        for (link, node) in &ch.links[s + 1..] {
            let Link::Method(m) = link else {
                return self.refuse(self.range(*node), "a root is used as a value; the codemod follows `root.uri`");
            };
            let name = m.method.to_string();
            let keeps_roots = matches!(
                name.as_str(),
                "filter" | "skip_while" | "take_while" | "inspect" | "rev" | "skip" | "take" | "by_ref" | "peekable"
            );
            let takes_roots = matches!(
                name.as_str(),
                "map" | "filter_map" | "flat_map" | "find_map" | "any" | "all" | "for_each" | "position"
            );
            if name == "cloned" {
                owned = true;
                continue;
            }
            if name == "count" {
                return;
            }
            if !keeps_roots && !takes_roots {
                return self.refuse(
                    self.range(*node),
                    format!("`.{name}(…)` yields roots themselves; the codemod follows `root.uri`"),
                );
            }
            for arg in &m.args {
                match arg {
                    Expr::Closure(c) if c.inputs.len() == 1 => {
                        let Pat::Ident(p) = &c.inputs[0] else {
                            return self.refuse(
                                self.range(c),
                                "a closure over roots with a pattern; the codemod follows `|root| …`",
                            );
                        };
                        let param = p.ident.to_string();
                        let carrier =
                            if owned { Carrier::OwnedVar(param.clone()) } else { Carrier::RefVar(param.clone()) };
                        let old = self.roots.insert(param.clone(), carrier);
                        self.visit_expr(&c.body);
                        restore(&mut self.roots, &param, old);
                    }
                    Expr::Closure(c) => {
                        return self.refuse(self.range(c), "a closure over roots with several parameters");
                    }
                    other => self.visit_expr(other),
                }
            }
            if takes_roots {
                let rest_from =
                    ch.links.iter().position(|(_, e)| std::ptr::eq(*e, *node)).map_or(ch.links.len(), |i| i + 1);
                return self.visit_rest(ch, rest_from);
            }
        }
    }

    /// `helper(&context.peer).await?` or `self.helper(&context).await?` for a known helper: the
    /// helper and the index after the call's unwrapping.
    fn helper_call(&self, ch: &Chain) -> Option<(HelperInline, usize)> {
        let (name, mut at) = match strip(ch.base) {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => (p.path.segments.last()?.ident.to_string(), 0),
                _ => return None,
            },
            base if ident_of(base).as_deref() == Some("self") => match ch.links.first() {
                Some((Link::Method(m), _)) => (m.method.to_string(), 1),
                _ => return None,
            },
            _ => return None,
        };
        let helper = self.helpers.get(&name)?.clone();
        if helper.is_async {
            if !is_await(ch.links.get(at)) {
                return None;
            }
            at += 1;
        }
        if helper.returns_result {
            at = result_tail(&ch.links, at)?.0;
        }
        Some((helper, at))
    }

    /// `for root in &listed.roots { … }`.
    fn for_loop(&mut self, f: &syn::ExprForLoop) -> bool {
        let iter = strip(&f.expr);
        let inner = match iter {
            Expr::Reference(r) => strip(&r.expr),
            other => other,
        };
        let ch = flatten(inner);
        let Some(s) = self.seq_at(&ch) else { return false };
        let rest = &ch.links[s..];
        let via_iter = match rest {
            [] => false,
            [(Link::Method(m), _)] if (m.method == "iter" || m.method == "into_iter") && m.args.is_empty() => true,
            _ => return false,
        };
        if ch.links[..s].iter().any(|l| matches!(l.0, Link::Method(m) if m.method == "list_roots")) {
            self.lookups += 1;
        }
        let range = self.range(iter);
        self.needs(Need::All, range.clone());
        self.replace(range, if via_iter { format!("{PARAM}.iter()") } else { format!("&{PARAM}") });
        let Pat::Ident(p) = &*f.pat else {
            self.refuse(self.range(&*f.pat), "a loop over roots with a pattern; the codemod follows `for root in …`");
            return true;
        };
        let name = p.ident.to_string();
        let old = self.roots.insert(name.clone(), Carrier::RefVar(name.clone()));
        self.visit_block(&f.body);
        restore(&mut self.roots, &name, old);
        true
    }

    fn mentions_names(&self, tokens: &proc_macro2::TokenStream) -> Option<String> {
        let names = self.lists.keys().chain(self.roots.keys()).chain(self.aliases.keys());
        names.into_iter().find(|n| crate::rust::syntax::tokens_mention(tokens, n)).cloned()
    }
}

/// `Url::parse`, `url::Url::from_file_path`, `Uri::from_str`, …: functions that read a URI.
fn is_uri_parser(func: &Expr) -> bool {
    let Expr::Path(p) = func else { return false };
    p.path.segments.iter().any(|s| {
        let n = s.ident.to_string();
        n == "Url" || n == "Uri" || n == "url"
    })
}

enum State {
    Root,
    Val(String),
}

enum FirstOut {
    /// The chain yields the root itself (bound to a name whose `.uri` is rewritten later).
    Root,
    /// The replacement text, and the end of what it replaces.
    Text(String, usize),
}

fn first_op(ch: &Chain, s: usize) -> Option<usize> {
    if method(ch.links.get(s), &["first"]).is_some_and(|m| m.args.is_empty()) {
        return Some(s + 1);
    }
    if let Some(m) = method(ch.links.get(s), &["get"])
        && m.args.len() == 1
        && matches!(&m.args[0], Expr::Lit(l) if matches!(&l.lit, syn::Lit::Int(i) if i.base10_digits() == "0"))
    {
        return Some(s + 1);
    }
    if method(ch.links.get(s), &["iter", "into_iter"]).is_some() && method(ch.links.get(s + 1), &["next"]).is_some() {
        return Some(s + 2);
    }
    None
}

/// The closure of `.map(|r| …)`: its one parameter's name and its body.
fn closure_of(m: &ExprMethodCall) -> Option<(String, &Expr)> {
    match m.args.iter().collect::<Vec<_>>().as_slice() {
        [Expr::Closure(c)] if c.inputs.len() == 1 => match &c.inputs[0] {
            Pat::Ident(p) => Some((p.ident.to_string(), &c.body)),
            _ => None,
        },
        _ => None,
    }
}

fn restore<V>(map: &mut HashMap<String, V>, key: &str, old: Option<V>) {
    match old {
        Some(v) => {
            map.insert(key.to_owned(), v);
        }
        None => {
            map.remove(key);
        }
    }
}

/// Macros whose arguments are expressions separated by commas.
const EXPR_MACROS: &[&str] = &[
    "format",
    "print",
    "println",
    "eprint",
    "eprintln",
    "write",
    "writeln",
    "format_args",
    "vec",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "panic",
    "anyhow",
    "bail",
    "ensure",
    "dbg",
];

/// Methods that fill a cell once, on first use (`OnceCell`, `OnceLock`, `Option`).
const LAZY_INITS: &[&str] = &["get_or_init", "get_or_try_init", "get_or_insert_with", "call_once"];

impl<'ast> Visit<'ast> for Rewriter<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.refusal.is_some() {
            return;
        }
        match e {
            Expr::Reference(r) => {
                let inner = strip(&r.expr);
                let ch = flatten(inner);
                if let Some(name) = ident_of(ch.base)
                    && let Some(carrier) = self.roots.get(&name).cloned()
                    && ch.links.len() == 1
                    && is_field(ch.links.first(), "uri")
                {
                    let range = self.range(e);
                    self.replace(range, carrier.amp());
                    return;
                }
                visit::visit_expr(self, e);
            }
            Expr::ForLoop(f) => {
                if !self.for_loop(f) {
                    visit::visit_expr(self, e);
                }
            }
            Expr::MethodCall(m)
                if LAZY_INITS.iter().any(|n| m.method == n)
                    && let Some(field) = crate::model::flow::self_path(&m.receiver)
                    && crate::rust::syntax::tokens_mention(
                        &quote::ToTokens::to_token_stream(&m.args),
                        "list_roots",
                    ) =>
            {
                let range = self.range(e);
                self.refuse(
                    range,
                    format!(
                        "the roots are kept in `self.{}`, filled once on first use (`{}`) right where they are \
                         read: the codemod rewrites such a cell only where a method of the server (an `ensure_*`) \
                         fills it and the tools call that method",
                        field.join("."),
                        m.method
                    ),
                );
            }
            Expr::MethodCall(_) | Expr::Field(_) | Expr::Await(_) | Expr::Try(_) => {
                if !self.chain(e) {
                    visit::visit_expr(self, e);
                }
            }
            Expr::Call(_) if self.helper_call(&flatten(e)).is_some() => {
                self.chain(e);
            }
            Expr::Call(c) if is_uri_parser(&c.func) => {
                use quote::ToTokens;
                let args = c.args.to_token_stream();
                if let Some(n) = self.roots.keys().find(|n| crate::rust::syntax::tokens_mention(&args, n)).cloned() {
                    let range = self.range(e);
                    return self
                        .refuse(range, format!("`{n}.uri` is parsed as a URI; the new parameter is a plain path"));
                }
                visit::visit_expr(self, e);
            }
            Expr::Path(p) if p.qself.is_none() => {
                if let Some(name) = p.path.get_ident().map(|i| i.to_string()) {
                    let range = self.range(e);
                    if let Some(alias) = self.aliases.get(&name).cloned() {
                        self.replace(range, alias);
                    } else if self.roots.contains_key(&name) {
                        self.refuse(
                            range,
                            "the root itself is used; a directory parameter only stands for the root's URI",
                        );
                    } else if self.lists.contains_key(&name) {
                        self.refuse(range, "the roots request's result is used in a way the codemod does not follow");
                    }
                }
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast ExprMethodCall) {
        if m.method == "list_roots" && m.args.is_empty() {
            let range = self.range(m);
            self.refuse(range, "the roots are requested in a way the codemod does not follow (it follows `let x = peer.list_roots().await?;` and chains on it)");
            return;
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if EXPR_MACROS.contains(&name.as_str()) {
            let parser = Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            if let Ok(args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
                for arg in &args {
                    // `format!("{root}")` names a variable inside the literal.
                    if let Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = arg {
                        let value = s.value();
                        let names: Vec<String> =
                            self.lists.keys().chain(self.roots.keys()).chain(self.aliases.keys()).cloned().collect();
                        if let Some(n) = names
                            .iter()
                            .find(|n| value.contains(&format!("{{{n}}}")) || value.contains(&format!("{{{n}:")))
                        {
                            let range = self.range(s);
                            return self.refuse(range, format!("`{{{n}}}` in a format string uses the roots directly"));
                        }
                    }
                    self.visit_expr(arg);
                }
                return;
            }
        }
        if let Some(n) = self.mentions_names(&mac.tokens) {
            let range = self.range(mac);
            self.refuse(range, format!("`{n}` is used inside a macro the codemod cannot read"));
        } else if crate::rust::syntax::tokens_mention(&mac.tokens, "list_roots") {
            let range = self.range(mac);
            self.refuse(range, "the roots are requested inside a macro the codemod cannot read");
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {
        // Items nested in a function body are not part of its flow.
    }
}

/// How a helper function (shape C) derives its directory, inlined: runs the rewriter over its
/// body, whose statements must all go, leaving the returned value.
pub fn helper_inline(src: &Src, sig: &syn::Signature, block: &syn::Block) -> Result<HelperInline, Refusal> {
    let empty = HashMap::new();
    let mut rw = Rewriter::new(src, &empty);
    rw.fn_body(block);
    rw.finish();
    let whole = src.range(&sig.ident);
    if let Some(r) = rw.refusal {
        return Err(r);
    }
    let Some(need) = rw.need else {
        return Err(Refusal { range: whole, reason: "the helper does not derive a directory from the roots".into() });
    };
    let Some(Stmt::Expr(tail, None)) = block.stmts.last() else {
        return Err(Refusal { range: whole, reason: "the helper does not end with the value it returns".into() });
    };
    let tail_range = src.range(tail);
    // Everything before the returned value must have been rewritten away.
    let body = src.range(block);
    let rendered = render(src.text, body.start + 1..tail_range.start, &rw.edits);
    if rendered.lines().any(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with("//")
    }) {
        return Err(Refusal {
            range: whole,
            reason: "the helper does more than derive a directory from the roots, so it cannot be inlined".into(),
        });
    }
    let value = render(src.text, tail_range.clone(), &rw.edits);
    let returns_result =
        matches!(&sig.output, syn::ReturnType::Type(_, t) if type_last_ident(t).as_deref() == Some("Result"));
    let text = if returns_result {
        match syn::parse_str::<Expr>(&value) {
            Ok(Expr::Call(c)) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Ok")) && c.args.len() == 1 => {
                let inner = value.trim();
                inner[inner.find('(').unwrap() + 1..inner.len() - 1].trim().to_owned()
            }
            _ => {
                return Err(Refusal {
                    range: tail_range,
                    reason: "the helper's result is not `Ok(…)` of the directory".into(),
                });
            }
        }
    } else {
        value
    };
    Ok(HelperInline { text, need, is_async: sig.asyncness.is_some(), returns_result })
}

/// The last identifier of a type path (`Result` in `std::result::Result<T, E>`).
pub fn type_last_ident(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_last_ident(&r.elem),
        syn::Type::Group(g) => type_last_ident(&g.elem),
        syn::Type::Paren(p) => type_last_ident(&p.elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rewrites the body of `fn f` in `code` and returns (new body text, need) or the refusal.
    fn rewrite(code: &str) -> Result<(String, Need), String> {
        let text = format!("fn f() {{\n{code}\n}}\n");
        let file = syn::parse_file(&text).unwrap();
        let syn::Item::Fn(f) = &file.items[0] else { panic!() };
        let src = Src { text: &text, base: 0 };
        let helpers = HashMap::new();
        let mut rw = Rewriter::new(&src, &helpers);
        rw.fn_body(&f.block);
        rw.finish();
        let result = match (rw.refusal, rw.need) {
            (Some(r), _) => Err(r.reason),
            (None, Some(need)) => {
                let body = src.range(&*f.block);
                Ok((render(&text, body.start + 2..body.end - 2, &rw.edits).replace(PARAM, "P"), need))
            }
            (None, None) => Err("no need".into()),
        };
        proc_macro2::extra::invalidate_current_thread_spans();
        result
    }

    fn ok(code: &str) -> (String, Need) {
        rewrite(code).unwrap_or_else(|e| panic!("refused: {e}"))
    }

    #[test]
    fn first_root_stripped_is_a_required_path() {
        let (out, need) = ok("    let listed = cx.peer.list_roots().await.map_err(|e| E::new(e))?;\n    \
             let root = listed.roots.first().and_then(|r| r.uri.strip_prefix(\"file://\")).ok_or_else(|| E::no())?;\n    \
             go(Path::new(root));");
        assert_eq!(need, Need::First);
        assert_eq!(out, "    let root = P.as_str();\n    go(Path::new(root));");
    }

    /// The request's own failure handling goes with it; a fallback that goes on, a guard, or a
    /// limit something else reads keeps the code as it was (refused, or the `let` kept).
    #[test]
    fn requests_with_error_arms() {
        let tail = "\n    let Some(root) = listed.roots.first() else { return Err(E::no()) };\n    \
                    go(PathBuf::from(root.uri.trim_start_matches(\"file://\")));";
        let want = "    go(PathBuf::from(P.as_str()));";
        for request in [
            "let listed = match cx.peer.list_roots().await { Ok(l) => l, Err(e) => return Err(E::from(e)) };",
            "let listed = match cx.peer.list_roots().await { Err(e) => { warn(&e); return Err(E::from(e)); } Ok(l) => l };",
            "let Ok(listed) = cx.peer.list_roots().await else { return Err(E::no()) };",
            "let listed = if let Ok(l) = cx.peer.list_roots().await { l } else { panic!(\"no roots\") };",
            "let listed = match tokio::time::timeout(D, cx.peer.list_roots()).await { Ok(Ok(l)) => l, Ok(Err(e)) => return Err(E::from(e)), Err(_) => return Err(E::slow()) };",
        ] {
            let (out, _) = ok(&format!("    {request}{tail}"));
            assert_eq!(out, want, "{request}");
        }
        let (out, _) = ok(&format!(
            "    let limit = Duration::from_secs(5);\n    \
             let listed = match timeout(limit, cx.peer.list_roots()).await {{ Ok(Ok(l)) => l, _ => return Err(E::no()) }};{tail}"
        ));
        assert_eq!(out, want);
        let (out, _) = ok(&format!(
            "    let limit = Duration::from_secs(5);\n    \
             let listed = match timeout(limit, cx.peer.list_roots()).await {{ Ok(Ok(l)) => l, _ => return Err(E::no()) }};{tail}\n    \
             sleep(limit);"
        ));
        assert!(out.starts_with("    let limit = Duration::from_secs(5);\n"), "{out}");
        for kept in [
            "let listed = match cx.peer.list_roots().await { Ok(l) => l, Err(_) => ListRootsResult::default() };",
            "let listed = match cx.peer.list_roots().await { Ok(l) if !l.roots.is_empty() => l, _ => return Err(E::no()) };",
            "let listed = match cx.peer.list_roots().await { Ok(l) => l.clone(), Err(e) => return Err(E::from(e)) };",
            "let listed = match timeout(D, cx.peer.list_roots()).await { Ok(l) => l?, Err(_) => return Err(E::slow()) };",
        ] {
            assert!(rewrite(&format!("    {kept}{tail}")).is_err(), "{kept}");
        }
    }

    /// A body that ends in a `match` over the request: the match becomes the `Ok` arm's value.
    #[test]
    fn a_tail_match_over_the_request() {
        let (out, _) = ok("    match cx.peer.list_roots().await {\n        \
             Ok(listed) => Ok(PathBuf::from(listed.roots.first().and_then(|r| r.uri.strip_prefix(\"file://\")).ok_or_else(|| E::no())?)),\n        \
             Err(e) => Err(E::from(e)),\n    }");
        assert_eq!(out, "    Ok(PathBuf::from(P.as_str()))");
        let (out, _) = ok("    let limit = Duration::from_secs(3);\n    \
             match timeout(limit, cx.peer.list_roots()).await {\n        \
             Ok(Ok(listed)) => {\n            \
             let Some(root) = listed.roots.first() else { return Err(E::no()) };\n            \
             go(PathBuf::from(root.uri.trim_start_matches(\"file://\")))\n        }\n        \
             Ok(Err(e)) => Err(E::from(e)),\n        \
             Err(_) => Err(E::slow()),\n    }");
        assert_eq!(out, "    go(PathBuf::from(P.as_str()))");
        // An arm that goes on without the list is a fallback the parameter would lose.
        let fallback = "    match cx.peer.list_roots().await {\n        \
             Ok(listed) => Ok(PathBuf::from(listed.roots.first().and_then(|r| r.uri.strip_prefix(\"file://\")).ok_or_else(|| E::no())?)),\n        \
             Err(_) => Ok(PathBuf::from(\".\")),\n    }";
        assert!(rewrite(fallback).is_err());
    }

    #[test]
    fn bound_root_uses_are_rewritten() {
        let (out, need) = ok("    let listed = peer.list_roots().await?;\n    \
             let Some(first) = listed.roots.first() else { return Err(E::no()) };\n    \
             let dir = PathBuf::from(first.uri.trim_start_matches(\"file://\"));\n    \
             log(&first.uri);");
        assert_eq!(need, Need::First);
        assert_eq!(out, "    let dir = PathBuf::from(P.as_str());\n    log(&P);");
    }

    #[test]
    fn fallback_makes_an_optional_parameter() {
        let (out, need) = ok("    let listed = cx.peer.list_roots().await.unwrap_or_default();\n    \
             let dir = listed.roots.first().map(|r| r.uri.trim_start_matches(\"file://\").to_owned()).unwrap_or_else(|| \".\".to_owned());");
        assert_eq!(need, Need::FirstOptional);
        assert_eq!(out, "    let dir = P.as_ref().map(|r| r.as_str().to_owned()).unwrap_or_else(|| \".\".to_owned());");
    }

    #[test]
    fn loops_and_iterators_take_every_directory() {
        let (out, need) = ok("    let listed = cx.peer.list_roots().await?;\n    \
             for root in &listed.roots { scan(root.uri.trim_start_matches(\"file://\")); }\n    \
             let n = listed.roots.len();\n    \
             let all: Vec<PathBuf> = listed.roots.iter().filter_map(|r| r.uri.strip_prefix(\"file://\")).map(PathBuf::from).collect();");
        assert_eq!(need, Need::All);
        assert_eq!(
            out,
            "    for root in &P { scan(root.as_str()); }\n    let n = P.len();\n    \
             let all: Vec<PathBuf> = P.iter().filter_map(|r| Some(r.as_str())).map(PathBuf::from).collect();"
        );
    }

    #[test]
    fn inline_request_and_emptiness_check() {
        // Indexing is not followed.
        assert!(
            rewrite("    let roots = cx.peer.list_roots().await?.roots;\n    let first = roots[0].uri.clone();")
                .is_err()
        );
        let (out, need) = ok("    let roots = cx.peer.list_roots().await?.roots;\n    \
             if roots.is_empty() {\n        return Err(E::no());\n    }\n    \
             let first = roots.first().unwrap().uri.clone();");
        assert_eq!(need, Need::First);
        assert_eq!(out, "    let first = P.clone();");
    }

    #[test]
    fn refusals_say_why() {
        let name = rewrite(
            "    let l = p.list_roots().await?;\n    let n = l.roots.first().map(|r| r.name.clone()).unwrap();",
        );
        assert!(name.unwrap_err().contains("its `name`"));
        let url = rewrite(
            "    let l = p.list_roots().await?;\n    let u = l.roots.first().map(|r| Url::parse(&r.uri)).unwrap();",
        );
        assert!(url.is_err());
        let passed = rewrite("    let l = p.list_roots().await?;\n    show(&l.roots);");
        assert!(passed.unwrap_err().contains("passed on as a whole"));
        let mixed = rewrite(
            "    let l = p.list_roots().await?;\n    let a = l.roots.first().unwrap().uri.clone();\n    let n = l.roots.len();",
        );
        assert!(mixed.unwrap_err().contains("two ways"));
        let matched = rewrite("    let l = match p.list_roots().await { Ok(l) => l, Err(_) => Default::default() };");
        assert!(matched.unwrap_err().contains("does not follow"));
        let in_format = rewrite(
            "    let l = p.list_roots().await?;\n    let r = l.roots.first().unwrap();\n    println!(\"{r:?}\");",
        );
        assert!(in_format.unwrap_err().contains("format string"));
        let lazy = rewrite(
            "    self.dirs.get_or_try_init(|| async { let l = p.list_roots().await?; Ok(l.roots.len()) }).await",
        );
        assert!(lazy.unwrap_err().contains("`self.dirs`, filled once on first use (`get_or_try_init`)"));
    }
}
