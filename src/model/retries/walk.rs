//! One walk of a fn body, on the worker that parsed it, that collects what the retry facts
//! (`model::retries`) need: request constructions (`json!` objects and struct literals with `id` +
//! `method`, SDK-style `request(id, "tools/call", …)` calls) with where their id comes from,
//! bindings with ranges and what they were initialized from, loops (and whether they go round
//! again on `input_required`), `if`/`match` arms, writes to locals, send-like calls, calls of the
//! crate's functions (`self.m(..)`, `f(..)`: what each argument is, as an id and as a value) and
//! returned locals. Everything it keeps is owned (no syn node). It judges nothing:
//! `retry-reuses-request-id` decides which of these make a retry reuse an id.

use std::collections::HashSet;
use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, Lit, Member};

use super::super::extract::call_range;
use super::super::{FnId, handlers};
use crate::cx::Cx;
use crate::json::{self, JsonKind, JsonNode};
use crate::rust::loops::{loop_range, pat_idents, root_ident, start_of, strip_deref, strip_pat, strip_value};
use crate::rust::macro_body::MacroBody;
use crate::rust::mrtr_mentions::mentions_mrtr;
use crate::rust::syntax::{is_self, last_ident, str_value, tokens_mention};

/// Calls and methods that send a message (or attach it as the body of one: reqwest's `.json(&req)`).
pub(crate) const SINKS: &[&str] = &[
    "send",
    "send_request",
    "send_message",
    "send_json",
    "send_raw",
    "request",
    "call",
    "call_raw",
    "rpc",
    "post",
    "post_json",
    "write_message",
    "write_json",
    "write_all",
    "write_line",
    "json",
    "body",
    "dispatch",
    "transmit",
    "round_trip",
    "roundtrip",
];

/// The methods that can answer `input_required`, for SDK-style `request(id, "tools/call", …)` calls.
pub(crate) const MRTR_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// Where an attempt's id comes from.
#[derive(Debug, Clone)]
pub(crate) enum IdSource {
    /// A local binding or parameter (`id`, `id.clone()`, `RequestId::Number(id)`).
    Ident(String),
    /// A number or string literal, as a comparable key.
    Literal(String),
    /// Copied from another value: `original.id`, `req["id"].clone()`, `..original`. The base's
    /// root identifier, when it is one.
    Copied(Option<String>),
    /// Anything else (`next_id()`, `Uuid::new_v4()`, `self.ids.fetch_add(1, …)`): fresh or unknown.
    Other,
}

#[derive(Debug, Clone)]
pub(crate) struct Build {
    pub(crate) id: IdSource,
    /// The id expression (for `..base`: the update syntax).
    pub(crate) id_range: Range<usize>,
    /// Text of the id expression, for messages.
    pub(crate) id_text: String,
    pub(crate) method: Option<String>,
    /// The whole construction: the `json!(…)` call for a root object, else the object or literal.
    pub(crate) container: Range<usize>,
    pub(crate) loops: Vec<usize>,
    pub(crate) branches: Vec<(usize, usize)>,
    /// Built by a function of the crate this fn calls (`CrateModel::retry_attempts`), whose
    /// parameter the id argument becomes.
    pub(crate) via: Option<FnId>,
}

#[derive(Debug, Clone)]
pub(crate) enum Init {
    /// A fn parameter (the `index`-th after `self`); `request_typed` when its type is a JSON-RPC
    /// request.
    Param {
        request_typed: bool,
        index: usize,
    },
    /// `let x = <request construction>` (index into `builds`), or a clone of such a binding.
    Family(usize),
    /// `let x = original.clone()` where `original` is a JSON-RPC-request-typed parameter.
    CloneOfParam {
        clone_range: Range<usize>,
    },
    /// `let x = helper(..)` (or a clone of such a binding): the call's range, as its `CallSite`'s.
    /// It is a construction when the helper makes a parameter the request's id
    /// (`CrateModel::retry_attempts`).
    Call(Range<usize>),
    /// `let id = original.id.clone()`.
    CopiedId,
    Other,
}

#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) name: String,
    pub(crate) range: Range<usize>,
    /// Uses at or after this offset see this binding (a `let`'s own initializer does not).
    pub(crate) visible_from: usize,
    pub(crate) init: Init,
}

#[derive(Debug, Clone)]
pub(crate) struct Loop {
    pub(crate) range: Range<usize>,
    pub(crate) keyword: Range<usize>,
    pub(crate) label: Option<String>,
    /// The loop goes round again on `input_required`: its `while` condition checks MRTR, or it exits
    /// when the result is not `input_required` (`if … != "input_required" { return … }`).
    pub(crate) retries: bool,
    /// Offsets of the `continue`s that restart this loop.
    pub(crate) continues: Vec<usize>,
}

/// A send-like call that passes a local value.
#[derive(Debug, Clone)]
pub(crate) struct SendEv {
    pub(crate) range: Range<usize>,
    pub(crate) name: String,
    /// The local passed, as written.
    pub(crate) ident: String,
    pub(crate) at: usize,
    pub(crate) loops: Vec<usize>,
    pub(crate) branches: Vec<(usize, usize)>,
}

/// A write to a local: `x = …`, `x += 1`, `req["id"] = …`, `req.set_id(…)`, `&mut x`.
#[derive(Debug, Clone)]
pub(crate) struct Write {
    pub(crate) ident: String,
    pub(crate) at: usize,
    /// The local itself is replaced or lent mutably (`x = …`, `x += 1`, `&mut x`).
    pub(crate) whole: bool,
    /// The write touches an `id` field or key.
    pub(crate) id: bool,
    /// The write mentions MRTR (`retry["params"]["inputResponses"] = …`).
    pub(crate) mrtr: bool,
}

pub(crate) struct Walk<'c, 'a> {
    cx: &'c Cx<'a>,
    pub(crate) loops: Vec<Loop>,
    loop_stack: Vec<usize>,
    branch_stack: Vec<(usize, usize)>,
    next_branch: usize,
    pub(crate) bindings: Vec<Binding>,
    pub(crate) builds: Vec<Build>,
    pub(crate) sends: Vec<SendEv>,
    pub(crate) writes: Vec<Write>,
    /// Offsets of locals already counted for a send (a send nested in another counts once).
    sent_at: HashSet<usize>,
    /// Locals the fn returns (`x`, `Ok(x)`, `return Some(x)`), with the offset of the mention.
    pub(crate) returned: Vec<(String, usize)>,
    pub(crate) calls: Vec<CallSite>,
    /// The facts of the functions declared in its macro bodies that mention MRTR
    /// (`model::retries::loose_item`).
    pub(crate) macro_fns: Vec<super::RetryFacts>,
    /// The rule judges the fn (it mentions MRTR): everything is collected. Else only what the
    /// helper facts need (constructions, sends, calls, bindings), none of the loops and writes,
    /// and only the ranges of call arguments that may be an id.
    judged: bool,
}

/// A call of what may be a function of the crate (`self.m(..)`, `f(..)`, `Type::f(..)`), ranged
/// as the model's `CallFact` of the same call, so the two are matched by range.
#[derive(Debug, Clone)]
pub(crate) struct CallSite {
    pub(crate) range: Range<usize>,
    pub(crate) args: Vec<ArgFact>,
    /// The first argument that is an MRTR method literal (`"tools/call"`).
    pub(crate) method: Option<String>,
    pub(crate) loops: Vec<usize>,
    pub(crate) branches: Vec<(usize, usize)>,
}

/// One argument of a `CallSite`: where it would take an id from, and the locals it passes whole.
#[derive(Debug, Clone)]
pub(crate) struct ArgFact {
    pub(crate) id: IdSource,
    /// The argument; in a fn the rule does not judge, where only a binding is kept as `id`, an
    /// empty range at the call's start (empty at 0 for any other argument).
    pub(crate) range: Range<usize>,
    pub(crate) text: String,
    /// `value_mentions` of the argument.
    pub(crate) values: Vec<(String, usize)>,
    /// The parameter of the calling fn that `id` names, if it is one (`model::retries::fn_facts`).
    pub(crate) param: Option<usize>,
    /// The parameters (bits) among `values`.
    pub(crate) value_params: u32,
}

impl<'c, 'a> Walk<'c, 'a> {
    /// Walks one fn: its parameters (bindings; JSON-RPC-request-typed ones noted), its body, and
    /// the locals its tail expression returns.
    pub(crate) fn of_fn(cx: &'c Cx<'a>, sig: &syn::Signature, body: &syn::Block, judged: bool) -> Self {
        let mut walk = Walk::new(cx);
        walk.judged = judged;
        let typed = sig.inputs.iter().filter_map(|i| match i {
            syn::FnArg::Typed(t) => Some(t),
            syn::FnArg::Receiver(_) => None,
        });
        for (index, t) in typed.enumerate() {
            let ty = match &*t.ty {
                syn::Type::Reference(r) => &*r.elem,
                other => other,
            };
            let request_typed = match ty {
                syn::Type::Path(p) => last_ident(&p.path).is_some_and(|n| is_rpc_request_name(&n)),
                _ => false,
            };
            for (name, range) in pat_idents(cx, &t.pat) {
                let visible_from = range.end;
                let init = Init::Param { request_typed, index };
                walk.bindings.push(Binding { name, range, visible_from, init });
            }
        }
        walk.visit_block(body);
        if let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last() {
            walk.returns(tail);
        }
        walk
    }

    fn new(cx: &'c Cx<'a>) -> Self {
        Walk {
            cx,
            loops: Vec::new(),
            loop_stack: Vec::new(),
            branch_stack: Vec::new(),
            next_branch: 0,
            bindings: Vec::new(),
            builds: Vec::new(),
            sends: Vec::new(),
            writes: Vec::new(),
            sent_at: HashSet::new(),
            returned: Vec::new(),
            calls: Vec::new(),
            macro_fns: Vec::new(),
            judged: false,
        }
    }

    fn returns(&mut self, e: &Expr) {
        let mut e = e;
        // `Ok(x)`, `Some(x)`: the value itself, wrapped.
        while let Expr::Call(c) = e
            && c.args.len() == 1
            && matches!(&*c.func, Expr::Path(p) if last_ident(&p.path).is_some_and(|n| n == "Ok" || n == "Some"))
        {
            e = &c.args[0];
        }
        if let Expr::Path(p) = e
            && let Some(i) = p.path.get_ident()
        {
            self.returned.push((i.to_string(), self.cx.span_range(i.span()).start));
        }
    }

    fn in_loop(
        &mut self,
        range: Range<usize>,
        keyword: Range<usize>,
        label: &Option<syn::Label>,
        retries: bool,
        inner: impl FnOnce(&mut Self),
    ) {
        let label = label.as_ref().map(|l| l.name.ident.to_string());
        self.loops.push(Loop { range, keyword, label, retries, continues: Vec::new() });
        self.loop_stack.push(self.loops.len() - 1);
        inner(self);
        self.loop_stack.pop();
    }

    fn in_branch(&mut self, node: usize, arm: usize, inner: impl FnOnce(&mut Self)) {
        self.branch_stack.push((node, arm));
        inner(self);
        self.branch_stack.pop();
    }

    fn push_build(&mut self, id: &Expr, method: Option<String>, container: Range<usize>) {
        let id_range = self.cx.node_range(id);
        let id_text = self.cx.text(id_range.clone()).to_owned();
        self.builds.push(Build {
            id: id_source(id),
            id_range,
            id_text,
            method,
            container,
            loops: self.loop_stack.clone(),
            branches: self.branch_stack.clone(),
            via: None,
        });
    }

    /// Request objects in a `json!` body, then the Rust expressions interpolated into it.
    fn json_macro(&mut self, mac: &syn::Macro) {
        let Some(root) = self.cx.json_macro(mac) else {
            return;
        };
        let mut requests: Vec<(&JsonNode, &JsonNode)> = Vec::new();
        let mut exprs: Vec<TokenStream> = Vec::new();
        json::walk(&root, |node, _| {
            if let JsonKind::Expr(tokens) = &node.kind {
                exprs.push(tokens.clone());
            }
            // A response (`result`/`error`, no `method`) is never a request.
            if let (Some(id), Some(_)) = (node.get("id"), node.get("method")) {
                requests.push((node, id));
            }
        });
        for (node, id) in requests {
            // The macro's range (printed to tokens) only for a root request.
            let container = if std::ptr::eq(node, &*root) { self.cx.node_range(mac) } else { node.range.clone() };
            let method = node.get("method").and_then(|m| m.as_str()).map(str::to_owned);
            let (source, text) = match &id.kind {
                JsonKind::Expr(tokens) => match syn::parse2::<Expr>(tokens.clone()) {
                    Ok(e) => (id_source(&e), self.cx.text(id.range.clone()).to_owned()),
                    Err(_) => (IdSource::Other, String::new()),
                },
                other => match id.scalar_key() {
                    Some(key) if matches!(other, JsonKind::Number(_) | JsonKind::String(_)) => {
                        (IdSource::Literal(key), self.cx.text(id.range.clone()).to_owned())
                    }
                    _ => (IdSource::Other, String::new()),
                },
            };
            self.builds.push(Build {
                id: source,
                id_range: id.range.clone(),
                id_text: text,
                method,
                container,
                loops: self.loop_stack.clone(),
                branches: self.branch_stack.clone(),
                via: None,
            });
        }
        for tokens in exprs {
            if let Ok(e) = syn::parse2::<Expr>(tokens) {
                self.visit_expr(&e);
            }
        }
    }

    /// Records a send of each local passed whole (by value, reference, clone or serialized).
    fn sink(&mut self, name: &str, range: Range<usize>, args: &[&Expr]) {
        for arg in args {
            for (ident, at) in value_mentions(self.cx, arg) {
                if self.sent_at.insert(at) {
                    self.sends.push(SendEv {
                        range: range.clone(),
                        name: name.to_owned(),
                        ident,
                        at,
                        loops: self.loop_stack.clone(),
                        branches: self.branch_stack.clone(),
                    });
                }
            }
        }
    }

    /// `whole` is the write's tokens (target and value), read for MRTR words.
    fn write(&mut self, target: &Expr, at: usize, whole_if_bare: bool, whole: &TokenStream) {
        let Some(ident) = root_ident(target) else { return };
        let bare = matches!(strip_deref(target), Expr::Path(_));
        let id = touches_id(&target.to_token_stream());
        let mrtr = mentions_mrtr(whole);
        self.writes.push(Write { ident, at, whole: bare && whole_if_bare, id, mrtr });
    }
}

impl<'ast> Visit<'ast> for Walk<'_, '_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    // Nested items are fns of their own (the visitor offers them to `rust_fn` separately).
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        if !self.judged {
            return visit::visit_expr_loop(self, e);
        }
        let range = loop_range(self.cx, &e.attrs, &e.label, e.loop_token.span, &e.body);
        debug_assert_eq!(range, self.cx.node_range(e));
        let kw = self.cx.span_range(e.loop_token.span);
        self.in_loop(range, kw, &e.label, false, |w| visit::visit_expr_loop(w, e));
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        if !self.judged {
            return visit::visit_expr_while(self, e);
        }
        let range = loop_range(self.cx, &e.attrs, &e.label, e.while_token.span, &e.body);
        debug_assert_eq!(range, self.cx.node_range(e));
        let kw = self.cx.span_range(e.while_token.span);
        let retries = mentions_mrtr(&e.cond.to_token_stream());
        self.in_loop(range, kw, &e.label, retries, |w| visit::visit_expr_while(w, e));
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        if !self.judged {
            return visit::visit_expr_for_loop(self, e);
        }
        let range = loop_range(self.cx, &e.attrs, &e.label, e.for_token.span, &e.body);
        debug_assert_eq!(range, self.cx.node_range(e));
        let kw = self.cx.span_range(e.for_token.span);
        // The iterator is evaluated once, before the loop.
        self.visit_expr(&e.expr);
        self.in_loop(range, kw, &e.label, false, |w| {
            w.visit_pat(&e.pat);
            w.visit_block(&e.body);
        });
    }

    fn visit_expr_continue(&mut self, e: &'ast syn::ExprContinue) {
        if !self.judged {
            return;
        }
        let at = self.cx.node_range(e).start;
        let target = match &e.label {
            Some(l) => {
                let name = l.ident.to_string();
                self.loop_stack.iter().rev().copied().find(|&i| self.loops[i].label.as_deref() == Some(&name))
            }
            None => self.loop_stack.last().copied(),
        };
        if let Some(i) = target {
            self.loops[i].continues.push(at);
        }
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        // `if resp["result"]["resultType"] != "input_required" { return resp; }`: the loop goes on
        // exactly when input is required.
        let negated = match &*e.cond {
            Expr::Binary(b) => matches!(b.op, syn::BinOp::Ne(_)),
            Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
            _ => false,
        };
        if self.judged && negated && mentions_mrtr(&e.cond.to_token_stream()) {
            let then = e.then_branch.to_token_stream();
            if (tokens_mention(&then, "return") || tokens_mention(&then, "break"))
                && let Some(&i) = self.loop_stack.last()
            {
                self.loops[i].retries = true;
            }
        }
        self.visit_expr(&e.cond);
        let node = self.next_branch;
        self.next_branch += 1;
        self.in_branch(node, 0, |w| w.visit_block(&e.then_branch));
        if let Some((_, other)) = &e.else_branch {
            self.in_branch(node, 1, |w| w.visit_expr(other));
        }
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        self.visit_expr(&e.expr);
        let node = self.next_branch;
        self.next_branch += 1;
        for (i, arm) in e.arms.iter().enumerate() {
            self.in_branch(node, i, |w| w.visit_arm(arm));
        }
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let builds_before = self.builds.len();
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        // A `let` ends with its `;`: the same end as the statement's range, without printing it.
        let visible_from = self.cx.span_range(l.semi_token.span).end;
        debug_assert_eq!(visible_from, self.cx.node_range(l).end);
        let idents = pat_idents(self.cx, &l.pat);
        let simple = idents.len() == 1 && matches!(strip_pat(&l.pat), syn::Pat::Ident(_));
        for (name, range) in idents {
            let init = match &l.init {
                Some(init) if simple && self.judged => self.init_of(&init.expr, builds_before, range.start),
                _ => Init::Other,
            };
            self.bindings.push(Binding { name, range, visible_from, init });
        }
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        let range = self.cx.span_range(p.ident.span());
        self.bindings.push(Binding { name: p.ident.to_string(), visible_from: range.end, range, init: Init::Other });
        visit::visit_pat_ident(self, p);
    }

    fn visit_expr_return(&mut self, e: &'ast syn::ExprReturn) {
        if let Some(value) = &e.expr {
            self.returns(value);
        }
        visit::visit_expr_return(self, e);
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if !self.judged {
            return visit::visit_expr_assign(self, e);
        }
        let tokens = e.to_token_stream();
        let at = start_of(self.cx, &tokens);
        debug_assert_eq!(at, self.cx.node_range(e).start);
        self.write(&e.left, at, true, &tokens);
        visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if self.judged && crate::model::state::is_compound_assign(&e.op) {
            let tokens = e.to_token_stream();
            let at = start_of(self.cx, &tokens);
            debug_assert_eq!(at, self.cx.node_range(e).start);
            self.write(&e.left, at, true, &tokens);
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
        if self.judged && e.mutability.is_some() {
            let at = self.cx.node_range(e).start;
            self.write(&e.expr, at, true, &TokenStream::new());
        }
        visit::visit_expr_reference(self, e);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        let name = e.method.to_string();
        // `req.set_id(…)`, `req.as_object_mut().unwrap().insert("id".into(), …)`: a new id.
        let inserts_id = matches!(name.as_str(), "insert" | "entry")
            && e.args.first().and_then(|a| str_value(self.cx, a)).is_some_and(|(v, _)| v == "id");
        let sets_id = (name.starts_with("set_") && name.contains("id")) || inserts_id;
        // Other mutations only matter for what they add (`params.insert("inputResponses", …)`).
        let mutates = name.starts_with("set_") || matches!(name.as_str(), "insert" | "entry" | "extend" | "push");
        let writes = self.judged && (sets_id || mutates);
        // A method of `self` or of one of its fields (`self.wire.send(..)`): the model's call edge.
        let on_self = is_self(&e.receiver) || crate::model::flow::self_path(&e.receiver).is_some();
        let sink = SINKS.contains(&name.as_str());
        if !(writes || on_self || sink) {
            return visit::visit_expr_method_call(self, e);
        }
        let range = self.cx.join(e.method.span(), e.paren_token.span.close());
        if writes {
            let at = range.start;
            self.write(&e.receiver, at, false, &e.args.to_token_stream());
            if let Some(w) = self.writes.last_mut() {
                w.id = sets_id;
            }
        }
        if on_self {
            self.call_site(range.clone(), &e.args);
        }
        if sink {
            let args: Vec<&Expr> = e.args.iter().collect();
            self.sink(&name, range.clone(), &args);
            self.sdk_request(&e.args, range);
        }
        visit::visit_expr_method_call(self, e);
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*e.func
            && let Some(name) = last_ident(&p.path)
        {
            // `Ok(..)`, `Some(..)`, `Wrapper(..)`: constructors, not functions (as `model::extract`).
            let constructor = p.path.segments.len() == 1 && name.starts_with(|c: char| c.is_ascii_uppercase());
            if p.qself.is_none() && !constructor {
                self.call_site(call_range(self.cx, e, p), &e.args);
            }
            let sink = SINKS.contains(&name.as_str());
            let request_ctor = || p.path.segments.iter().any(|s| s.ident.to_string().contains("Request"));
            // The call's range (printed to tokens) only for the calls that need it.
            if sink || (name == "new" && request_ctor()) {
                let range = self.cx.node_range(e);
                if sink {
                    let args: Vec<&Expr> = e.args.iter().collect();
                    self.sink(&name, range.clone(), &args);
                }
                self.sdk_request(&e.args, range);
            }
        }
        visit::visit_expr_call(self, e);
    }

    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        let name = last_ident(&e.path).unwrap_or_default();
        let field =
            |n: &str| e.fields.iter().find(|f| matches!(&f.member, Member::Named(i) if i == n)).map(|f| &f.expr);
        let looks_like_request = is_rpc_request_name(&name)
            || name.contains("Request")
            || field("params").is_some()
            || field("jsonrpc").is_some();
        let method = || field("method").and_then(|m| str_value(self.cx, m)).map(|(v, _)| v);
        match (field("id"), field("method"), &e.rest) {
            (Some(id), Some(_), _) if looks_like_request => {
                let range = self.cx.node_range(e);
                self.push_build(id, method(), range);
            }
            // `JsonRpcRequest { params, ..original }`: the id comes from `original`.
            (None, _, Some(base)) if is_rpc_request_name(&name) => {
                let dots = e.dot2_token.map(|d| self.cx.span_range(d.spans[0]).start);
                let base_range = self.cx.node_range(&**base);
                let id_range = dots.unwrap_or(base_range.start)..base_range.end;
                let range = self.cx.node_range(e);
                self.builds.push(Build {
                    id: IdSource::Copied(root_ident(base)),
                    id_text: self.cx.text(id_range.clone()).to_owned(),
                    id_range,
                    method: method(),
                    container: range,
                    loops: self.loop_stack.clone(),
                    branches: self.branch_stack.clone(),
                    via: None,
                });
            }
            _ => {}
        }
        visit::visit_expr_struct(self, e);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = last_ident(&m.path).unwrap_or_default();
        if name == "json" {
            self.json_macro(m);
            return;
        }
        let Some(body) = self.cx.macro_body(m) else { return };
        if let MacroBody::Exprs(exprs) = &*body
            && matches!(name.as_str(), "write" | "writeln")
        {
            let args: Vec<&Expr> = exprs.iter().skip(1).collect();
            let range = self.cx.node_range(m);
            self.sink(&name, range, &args);
        }
        // Functions declared in the body are no function of the model: judged on their own.
        if self.judged
            && let MacroBody::Stmts(stmts) = &*body
        {
            for stmt in stmts {
                if let syn::Stmt::Item(item) = stmt {
                    super::loose_item(self.cx, item, &mut self.macro_fns);
                }
            }
        }
        body.visit(self);
    }
}

impl Walk<'_, '_> {
    /// A call of what may be a function of the crate, kept when an argument may be an id or a
    /// value the callee sends.
    fn call_site(&mut self, range: Range<usize>, args: &Punctuated<Expr, syn::Token![,]>) {
        let args: Vec<ArgFact> = args
            .iter()
            .map(|a| {
                let id = id_source(a);
                // The argument's range (printed to tokens) only in a judged fn: a helper may make
                // any argument a request's id. A helper's own facts need only the parameters its
                // arguments name: an empty range at the call, where names resolve as in the argument.
                let (id, (range, text)) = match id {
                    _ if self.judged => {
                        let range = self.cx.node_range(a);
                        let text = self.cx.text(range.clone()).to_owned();
                        (id, (range, text))
                    }
                    IdSource::Ident(_) => (id, (range.start..range.start, String::new())),
                    _ => (IdSource::Other, (0..0, String::new())),
                };
                ArgFact { id, range, text, values: value_mentions(self.cx, a), param: None, value_params: 0 }
            })
            .collect();
        if args.iter().all(|a| matches!(a.id, IdSource::Other) && a.values.is_empty()) {
            return;
        }
        let method = args.iter().find_map(|a| match &a.id {
            IdSource::Literal(key) => key.strip_prefix("s:").filter(|m| handlers::is_mcp_method(m)).map(str::to_owned),
            _ => None,
        });
        let (loops, branches) = (self.loop_stack.clone(), self.branch_stack.clone());
        self.calls.push(CallSite { range, args, method, loops, branches });
    }

    /// SDK-style `client.request(id, "tools/call", params)` / `JsonRpcRequest::new(id, "tools/call", …)`:
    /// an explicit id argument first, an MRTR method literal second.
    fn sdk_request(&mut self, args: &Punctuated<Expr, syn::Token![,]>, range: Range<usize>) {
        let (Some(id), Some(method)) = (args.get(0), args.get(1)) else { return };
        let Some((method, _)) = str_value(self.cx, method) else { return };
        if !MRTR_METHODS.contains(&method.as_str()) {
            return;
        }
        // Only an argument that is clearly an id: named like one, a literal, or copied from `x.id`.
        let clear = match id_source(id) {
            IdSource::Ident(name) => name == "id" || name.ends_with("_id"),
            IdSource::Literal(_) | IdSource::Copied(_) => true,
            IdSource::Other => false,
        };
        if clear {
            self.push_build(id, Some(method), range);
        }
    }

    /// What a `let` binds: a request construction just built, a clone of one, a copied id, …
    fn init_of(&self, init: &Expr, builds_before: usize, at: usize) -> Init {
        let value = strip_value(init);
        // The value's range (printed to tokens) only when its initializer built a request.
        if builds_before < self.builds.len() && matches!(value, Expr::Macro(_) | Expr::Struct(_)) {
            let range = self.cx.node_range(value);
            if let Some(i) = (builds_before..self.builds.len()).find(|&i| self.builds[i].container == range) {
                return Init::Family(i);
            }
        }
        let site = match value {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => Some(call_range(self.cx, c, p)),
                _ => None,
            },
            Expr::MethodCall(m) if is_self(&m.receiver) => {
                Some(self.cx.join(m.method.span(), m.paren_token.span.close()))
            }
            _ => None,
        };
        if let Some(range) = site
            && self.calls.iter().any(|c| c.range == range)
        {
            return Init::Call(range);
        }
        if let Expr::Path(p) = value
            && let Some(ident) = p.path.get_ident()
            && let Some(b) = resolve(&self.bindings, &ident.to_string(), at)
        {
            return match &b.init {
                Init::Family(i) => Init::Family(*i),
                Init::Call(range) => Init::Call(range.clone()),
                Init::Param { request_typed: true, .. } => Init::CloneOfParam { clone_range: self.cx.node_range(init) },
                _ => Init::Other,
            };
        }
        match id_source(init) {
            IdSource::Copied(_) => Init::CopiedId,
            _ => Init::Other,
        }
    }
}

/// The binding a use of `name` at `at` refers to: the latest one visible there.
pub(crate) fn resolve<'b>(bindings: &'b [Binding], name: &str, at: usize) -> Option<&'b Binding> {
    bindings.iter().filter(|b| b.name == name && b.visible_from <= at).max_by_key(|b| b.visible_from)
}

/// `JsonRpcRequest`, `JSONRPCRequest`, `RpcRequest`: a type whose values carry a JSON-RPC id.
pub(crate) fn is_rpc_request_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace('_', "");
    n.ends_with("rpcrequest")
}

/// Whether a place expression names an `id` field or key (`req.id`, `req["id"]`, `get_mut("id")`).
pub(crate) fn touches_id(tokens: &TokenStream) -> bool {
    tokens_mention(tokens, "id")
        || tokens.clone().into_iter().any(|tt| match tt {
            TokenTree::Literal(l) => l.to_string() == "\"id\"",
            TokenTree::Group(g) => touches_id(&g.stream()),
            _ => false,
        })
}

/// Locals an argument passes whole (by value, reference, clone, or serialized: `to_string(&req)`,
/// `format!("{}", req)`, `body.as_bytes()`), with the offset of each mention.
pub(crate) fn value_mentions(cx: &Cx, e: &Expr) -> Vec<(String, usize)> {
    match e {
        Expr::Path(p) => match p.path.get_ident() {
            Some(i) => vec![(i.to_string(), cx.span_range(i.span()).start)],
            None => Vec::new(),
        },
        Expr::Reference(r) => value_mentions(cx, &r.expr),
        Expr::Paren(p) => value_mentions(cx, &p.expr),
        Expr::Group(g) => value_mentions(cx, &g.expr),
        Expr::Try(t) => value_mentions(cx, &t.expr),
        Expr::Await(a) => value_mentions(cx, &a.base),
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "clone"
                    | "to_owned"
                    | "to_string"
                    | "as_bytes"
                    | "as_str"
                    | "into"
                    | "into_bytes"
                    | "as_ref"
                    | "unwrap"
                    | "expect"
                    | "borrow"
            ) =>
        {
            value_mentions(cx, &m.receiver)
        }
        Expr::Call(c)
            if matches!(&*c.func, Expr::Path(p) if last_ident(&p.path).is_some_and(|n| matches!(
                n.as_str(),
                "to_string" | "to_string_pretty" | "to_vec" | "to_vec_pretty" | "to_value" | "to_writer" | "from"
            ))) =>
        {
            c.args.iter().flat_map(|a| value_mentions(cx, a)).collect()
        }
        Expr::Macro(m) if last_ident(&m.mac.path).is_some_and(|n| n == "format") => {
            Punctuated::<Expr, syn::Token![,]>::parse_terminated
                .parse2(m.mac.tokens.clone())
                .map(|args| args.iter().skip(1).flat_map(|a| value_mentions(cx, a)).collect())
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// Where an id expression takes its value from.
pub(crate) fn id_source(e: &Expr) -> IdSource {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => IdSource::Literal(format!("n:{}", i.base10_digits())),
            Lit::Str(s) => IdSource::Literal(format!("s:{}", s.value())),
            _ => IdSource::Other,
        },
        Expr::Path(p) => match p.path.get_ident() {
            // Lower-case locals; `ID`/`FIRST_ID` constants are not tracked.
            Some(i) if i.to_string().starts_with(|c: char| c.is_ascii_lowercase() || c == '_') => {
                IdSource::Ident(i.to_string())
            }
            _ => IdSource::Other,
        },
        Expr::Field(f) if matches!(&f.member, Member::Named(n) if n == "id") => IdSource::Copied(root_ident(&f.base)),
        Expr::Index(i) if matches!(&*i.index, Expr::Lit(l) if matches!(&l.lit, Lit::Str(s) if s.value() == "id")) => {
            IdSource::Copied(root_ident(&i.expr))
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            let id_arg = m
                .args
                .first()
                .is_some_and(|a| matches!(a, Expr::Lit(l) if matches!(&l.lit, Lit::Str(s) if s.value() == "id")));
            match name.as_str() {
                "get" if id_arg => IdSource::Copied(root_ident(&m.receiver)),
                "id" if m.args.is_empty() => IdSource::Copied(root_ident(&m.receiver)),
                "clone" | "to_owned" | "to_string" | "into" | "cloned" | "unwrap" | "as_str" | "as_u64" | "as_i64"
                    if m.args.is_empty() =>
                {
                    id_source(&m.receiver)
                }
                "expect" | "unwrap_or_default" => id_source(&m.receiver),
                _ => IdSource::Other,
            }
        }
        Expr::Reference(r) => id_source(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => id_source(&u.expr),
        Expr::Paren(p) => id_source(&p.expr),
        Expr::Group(g) => id_source(&g.expr),
        Expr::Try(t) => id_source(&t.expr),
        Expr::Cast(c) => id_source(&c.expr),
        // `RequestId::Number(id)`, `NumberOrString::from(id)`, `Some(id)`: the same value, wrapped.
        Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            Expr::Path(p)
                if last_ident(&p.path)
                    .is_some_and(|n| n == "from" || n.starts_with(|ch: char| ch.is_ascii_uppercase())) =>
            {
                id_source(&c.args[0])
            }
            _ => IdSource::Other,
        },
        Expr::Macro(m) if last_ident(&m.mac.path).is_some_and(|n| n == "json") => {
            syn::parse2::<Expr>(m.mac.tokens.clone()).map(|e| id_source(&e)).unwrap_or(IdSource::Other)
        }
        _ => IdSource::Other,
    }
}
