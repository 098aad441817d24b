//! Where rmcp's `peer_info()` value goes inside one function body: the connection's snapshot of
//! the client's `initialize`, followed through the same chain (closures passed along it included)
//! and through bindings (`let`, `if let`, `match`) to the first field that says what the client is.
//! A per-function walk on the worker that parsed the file, beside the crate model's facts;
//! `inferred-client-capabilities` asks it (`client_data_reads`). For the crate model, `fn_facts`
//! keeps where such a value leaves a function (handed to a call) and which parameters typed as
//! one are read for a client field or handed on, so the rule can follow it into helpers.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};
use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Expr, Member};

use super::Param;
use super::extract::{CLIENT_FIELDS, pat_idents};
use crate::cx::Cx;
use crate::rust::macro_body::visit_code_macro;
use crate::rust::syntax::{block_text, method_call_range, text_may_mention};

/// Capability fields only a server declares: `info.capabilities.tools` is the server's info, read
/// by client (or proxy) code.
const SERVER_ONLY_CAPS: &[&str] = &["tools", "resources", "prompts", "logging", "completions"];

/// Methods that hand their receiver's value on (more or less) unchanged.
const PASS_THROUGH: &[&str] = &[
    "unwrap",
    "expect",
    "as_ref",
    "as_deref",
    "clone",
    "cloned",
    "to_owned",
    "unwrap_or_default",
    "unwrap_or",
    "unwrap_or_else",
    "ok_or",
    "ok_or_else",
    "context",
    "with_context",
    "borrow",
    "deref",
];

/// A `peer_info()` call whose value reaches a field of the client's `initialize` data.
pub struct PeerInfoRead {
    /// `peer_info()`, from the method name to `)`.
    pub call: Range<usize>,
    /// The first such field read from its value (its member), and which of `CLIENT_FIELDS` it is.
    pub field: Range<usize>,
    pub name: &'static str,
}

/// The `peer_info()` calls of a body whose value reaches `.capabilities`, `.client_info` or
/// `.protocol_version`, in source order. A value the code shows to be a server's info
/// (`.server_info`, `.capabilities.tools`) is left out: that code is a client's view.
pub fn client_data_reads(cx: &Cx, body: &syn::Block) -> Vec<PeerInfoRead> {
    let mut flow = PeerInfoFlow::new(cx);
    flow.visit_block(body);
    let mut out = Vec::new();
    for call in flow.calls.into_values() {
        let (Some(range), Some((hit, field))) = (call.range, call.hit) else { continue };
        if call.server_view {
            continue;
        }
        out.push(PeerInfoRead { call: range, field: hit, name: field });
    }
    out
}

/// Types of the value `peer_info()` gives (rmcp's `ClientInfo`, an alias of
/// `InitializeRequestParam(s)`): a parameter of one of them may be handed a `peer_info()`.
const PEER_INFO_TYPES: &[&str] = &["ClientInfo", "InitializeRequestParam", "PeerInfo"];

/// Where `peer_info()` values cross a function's boundary, for the crate model: handed whole to a
/// call (`client_identity(context.peer.peer_info().as_deref())`), and the parameters whose value
/// the body reads a client field of (`client_info.map(|info| &info.client_info)`).
#[derive(Debug, Clone, Default)]
pub struct PeerInfoFacts {
    /// `peer_info()` values passed as an argument, read for no client field in this body.
    pub passed: Vec<PassedPeerInfo>,
    /// Parameters (index after `self`) typed as a `peer_info()` value whose client field is read.
    pub param_reads: Vec<(usize, Range<usize>, &'static str)>,
    /// Such parameters handed on whole: (parameter, the call's start as `CallFact::range` has
    /// it, argument index).
    pub forwarded: Vec<(usize, usize, usize)>,
}

#[derive(Debug, Clone)]
pub struct PassedPeerInfo {
    /// `peer_info()`, from the method name to `)`.
    pub call: Range<usize>,
    /// Where the call it is handed to starts, as `CallFact::range` has it.
    pub at: usize,
    /// Which argument (after the receiver) it is.
    pub arg: usize,
}

/// The function's `PeerInfoFacts`, when its body names `peer_info` or a parameter has one of its
/// types; `None` when there is nothing to tell.
pub fn fn_facts(cx: &Cx, body: &syn::Block, params: &[Param]) -> Option<Box<PeerInfoFacts>> {
    let typed: Vec<(usize, &str)> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| PEER_INFO_TYPES.iter().any(|w| p.ty.contains(w)))
        .filter_map(|(i, p)| Some((i, p.name.as_deref()?)))
        .collect();
    if typed.is_empty() && !text_may_mention(block_text(cx, body), &["peer_info"]) {
        return None;
    }
    let mut flow = PeerInfoFlow::new(cx);
    flow.track_args = true;
    for (i, name) in &typed {
        flow.env.insert((*name).to_owned(), param_id(*i));
    }
    flow.visit_block(body);
    let mut facts = PeerInfoFacts::default();
    for (id, call) in &flow.calls {
        if call.server_view {
            continue;
        }
        match (param_index(*id), &call.hit) {
            (Some(i), Some((hit, name))) => facts.param_reads.push((i, hit.clone(), name)),
            (None, None) => {
                let Some(range) = &call.range else { continue };
                let passed = flow.passed.iter().filter(|(source, _, _)| source == id);
                facts.passed.extend(passed.map(|(_, at, arg)| PassedPeerInfo {
                    call: range.clone(),
                    at: *at,
                    arg: *arg,
                }));
            }
            _ => {}
        }
    }
    for &(id, at, arg) in &flow.passed {
        if let Some(param) = param_index(id) {
            facts.forwarded.push((param, at, arg));
        }
    }
    let empty = facts.passed.is_empty() && facts.param_reads.is_empty() && facts.forwarded.is_empty();
    (!empty).then(|| Box::new(facts))
}

/// A parameter stands in the walk as a pseudo call id past any byte offset.
fn param_id(i: usize) -> usize {
    usize::MAX - i
}

fn param_index(id: usize) -> Option<usize> {
    (id > usize::MAX - 64).then(|| usize::MAX - id)
}

#[derive(Default)]
struct PeerInfoCall {
    /// `peer_info()`, from the method name to `)`.
    range: Option<Range<usize>>,
    /// The first connection field read from its value.
    hit: Option<(Range<usize>, &'static str)>,
    /// Evidence that the value is a server's info (`.server_info`, `.capabilities.tools`): the
    /// code is a client's view, whatever the file's role.
    server_view: bool,
}

struct PeerInfoFlow<'c, 'a> {
    cx: &'c Cx<'a>,
    /// Local names bound to a `peer_info()` value, by call (the call's start offset). Flat: a later
    /// `let` of the same name unbinds it; closure parameters are scoped.
    env: HashMap<String, usize>,
    calls: BTreeMap<usize, PeerInfoCall>,
    /// Whether to note values handed to calls (`passed`).
    track_args: bool,
    /// (source id, the call's start as `CallFact::range` has it, argument index).
    passed: Vec<(usize, usize, usize)>,
}

impl<'c, 'a> PeerInfoFlow<'c, 'a> {
    fn new(cx: &'c Cx<'a>) -> Self {
        PeerInfoFlow { cx, env: HashMap::new(), calls: BTreeMap::new(), track_args: false, passed: Vec::new() }
    }

    /// Notes the arguments that carry a `peer_info()` value into the call starting at `at`.
    fn note_args<'e>(&mut self, at: usize, args: impl Iterator<Item = &'e Expr>) {
        if !self.track_args {
            return;
        }
        for (i, arg) in args.enumerate() {
            if let Some(id) = self.source(arg) {
                self.passed.push((id, at, i));
            }
        }
    }
}

impl PeerInfoFlow<'_, '_> {
    /// The `peer_info()` call an expression's value comes from, if it does.
    fn source(&self, e: &Expr) -> Option<usize> {
        match e {
            Expr::MethodCall(m) if m.method == "peer_info" && m.args.is_empty() => {
                Some(self.cx.span_range(m.method.span()).start)
            }
            Expr::MethodCall(m) if PASS_THROUGH.contains(&m.method.to_string().as_str()) => self.source(&m.receiver),
            Expr::Try(t) => self.source(&t.expr),
            Expr::Await(a) => self.source(&a.base),
            Expr::Paren(p) => self.source(&p.expr),
            Expr::Group(g) => self.source(&g.expr),
            Expr::Reference(r) => self.source(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.source(&u.expr),
            Expr::Path(p) if p.qself.is_none() => {
                p.path.get_ident().and_then(|i| self.env.get(&i.to_string()).copied())
            }
            // `match peer.peer_info() { Some(info) => info, None => return .. }`: the arm that goes
            // on yields what its pattern bound.
            Expr::Match(m) => {
                let source = self.source(&m.expr)?;
                let yields_binding = |arm: &syn::Arm| matches!(&*arm.body, Expr::Path(p) if p.path.get_ident().is_some_and(|i| pat_idents(&arm.pat).contains(&i.to_string())));
                let goes_on_with_it = m.arms.iter().any(yields_binding)
                    && m.arms.iter().all(|a| yields_binding(a) || crate::rust::syntax::diverges(&a.body));
                goes_on_with_it.then_some(source)
            }
            _ => None,
        }
    }

    fn bind(&mut self, pat: &syn::Pat, source: Option<usize>) {
        for name in pat_idents(pat) {
            match source {
                Some(id) => {
                    self.env.insert(name, id);
                }
                None => {
                    self.env.remove(&name);
                }
            }
        }
    }

    /// A closure: its one parameter is bound to `source` (a closure passed to a method of a
    /// `peer_info()` value) or shadows any binding of the same name, for the body only.
    fn visit_closure_with(&mut self, c: &syn::ExprClosure, source: Option<usize>) {
        let names: Vec<String> = c.inputs.iter().flat_map(pat_idents).collect();
        let saved: Vec<(String, Option<usize>)> = names.iter().map(|n| (n.clone(), self.env.get(n).copied())).collect();
        let source = if c.inputs.len() == 1 { source } else { None };
        for input in &c.inputs {
            self.bind(input, source);
        }
        self.visit_expr(&c.body);
        for (name, old) in saved {
            match old {
                Some(id) => self.env.insert(name, id),
                None => self.env.remove(&name),
            };
        }
    }
}

impl<'ast> Visit<'ast> for PeerInfoFlow<'_, '_> {
    // Nested fn items are offered to `rust_fn` on their own.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let source = l.init.as_ref().and_then(|init| {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
            self.source(&init.expr)
        });
        self.bind(&l.pat, source);
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
        let source = self.source(&e.expr);
        self.bind(&e.pat, source);
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let source = self.source(&m.expr);
        for arm in &m.arms {
            self.bind(&arm.pat, source);
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if m.method == "peer_info" && m.args.is_empty() {
            let range = method_call_range(self.cx, m);
            let id = range.start;
            self.calls.entry(id).or_default().range = Some(range);
        }
        self.visit_expr(&m.receiver);
        let source = self.source(&m.receiver);
        let at = self.cx.span_range(m.method.span()).start;
        self.note_args(at, m.args.iter());
        for arg in &m.args {
            match arg {
                Expr::Closure(c) => self.visit_closure_with(c, source),
                other => self.visit_expr(other),
            }
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.visit_closure_with(c, None);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            let at = super::extract::call_range(self.cx, c, p).start;
            self.note_args(at, c.args.iter());
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if let Member::Named(name) = &f.member {
            let name = name.to_string();
            if let Some(id) = self.source(&f.base) {
                if let Some(field) = CLIENT_FIELDS.iter().find(|c| **c == name) {
                    let range = self.cx.node_range(&f.member);
                    let call = self.calls.entry(id).or_default();
                    call.hit.get_or_insert((range, field));
                } else if name == "server_info" {
                    self.calls.entry(id).or_default().server_view = true;
                }
            }
            // `info.capabilities.tools`: a server's capabilities.
            if SERVER_ONLY_CAPS.contains(&name.as_str())
                && let Expr::Field(inner) = &*f.base
                && matches!(&inner.member, Member::Named(m) if m == "capabilities")
                && let Some(id) = self.source(&inner.base)
            {
                self.calls.entry(id).or_default().server_view = true;
            }
        }
        visit::visit_expr_field(self, f);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let cx = self.cx;
        visit_code_macro(cx, self, m);
    }
}
