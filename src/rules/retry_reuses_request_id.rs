//! `retry-reuses-request-id`: an MRTR retry (the request re-sent after an `input_required` result)
//! that carries the JSON-RPC id of the original request. MCP 2026-07-28 requires a new id.
//!
//! Rust: one walk of each client (or unknown-role) fn that mentions MRTR collects request
//! constructions (`json!` objects and struct literals with `id` + `method`, SDK-style
//! `request(id, "tools/call", …)` calls), bindings, loops, branches, assignments and send-like calls;
//! the reuse patterns are then judged on what was collected:
//! 1. a request built in a loop that retries on `input_required`, whose id is a binding from before
//!    the loop (never reassigned in it) or a literal; or two attempts built with the same binding or
//!    literal id, an MRTR step between them;
//! 2. a request whose id is copied from another request (`original.id`, `req["id"].clone()`, a
//!    `JsonRpcRequest { ..original }` update) after the fn handled `inputResponses`/`requestState`;
//! 3. one request value (or a clone of it) sent again, after an MRTR step or in a retry loop, with no
//!    new id assigned in between; or a clone of a JSON-RPC request parameter that keeps its id.
//!
//! JSON transcripts: a client request whose id equals an earlier client request's id with the same
//! method, when the earlier one got `input_required` or the later one carries MRTR retry params.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, Lit, Member};

use crate::context::{Impact, Role};
use crate::cx::Cx;
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage, is_input_required_result};
use crate::json::{self, JsonKind, JsonNode};
use crate::prefilter::mentions;
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{fn_text, last_ident, str_value, tokens_mention};

pub struct RetryReusesRequestId;

/// Words that say code or a transcript deals with MRTR. Every finding needs one (Rust: in the fn,
/// and in the loop or between the attempts; JSON: the `input_required` result or the retry's params).
const MRTR_WORDS: &[&str] = &[
    "input_required",
    "\\bInputRequired",
    "inputResponses",
    "input_responses",
    "InputResponses",
    "requestState",
    "request_state",
    "\\bRequestState",
];

/// Whether a text mentions an MRTR word as `mentions` counts it. A text shorter than every word
/// (most tokens) mentions none, so it is spared the word searches.
fn mentions_mrtr_text(text: &str) -> bool {
    text.len() >= SHORTEST_MRTR_WORD && MRTR_WORDS.iter().any(|w| mentions(text, w))
}

/// The length of the shortest MRTR word (`requestState`).
const SHORTEST_MRTR_WORD: usize = 12;

/// The MRTR words that belong to the retry request itself.
const RETRY_WORDS: &[&str] =
    &["inputResponses", "input_responses", "InputResponses", "requestState", "request_state", "RequestState"];

const HELP: &str = "give every attempt a fresh JSON-RPC id (a counter or `next_id()`), and resend the same method \
and params plus `inputResponses` and the echoed `requestState`";

static META: RuleMeta = RuleMeta {
    json_triggers: &[],
    mcp_triggers: &[],
    name: "retry-reuses-request-id",
    summary: "An MRTR retry (after `input_required`) reuses the JSON-RPC id of the original request",
    impact: Impact::Violation,
    triggers: MRTR_WORDS,
    help: Some(HELP),
    fixable: false,
    doc: include_str!("../../rules/retry-reuses-request-id.md"),
};

/// Calls and methods that send a message (or attach it as the body of one: reqwest's `.json(&req)`).
const SINKS: &[&str] = &[
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
const MRTR_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];

impl Rule for RetryReusesRequestId {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        // A server answers with the request's own id, which is right; only senders of requests retry.
        if cx.role() == Role::Server {
            return;
        }
        // Every MRTR word in a token is in the function's source (`mentions` counts the same way).
        if fn_text(cx, f.sig, f.body).is_some_and(|text| !mentions_mrtr_text(text)) {
            return;
        }
        let mentions = Mentions::of_fn(cx, f);
        if mentions.all.is_empty() {
            return;
        }
        let mut walk = Walk::new(cx);
        for input in &f.sig.inputs {
            if let syn::FnArg::Typed(t) = input {
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
                    walk.bindings.push(Binding { name, range, visible_from, init: Init::Param { request_typed } });
                }
            }
        }
        walk.visit_block(f.body);
        if let Some(syn::Stmt::Expr(tail, None)) = f.body.stmts.last() {
            walk.returns(tail);
        }
        let findings = judge(&walk, &mentions);
        for finding in findings {
            let d = cx.report(&META, finding.range, finding.message, finding.label);
            for (range, message) in finding.labels {
                d.label(range, message);
            }
        }
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        struct Attempt<'a> {
            /// The id of the first request sent with this id and method.
            first: &'a JsonNode,
            method: &'a str,
            /// Whether the latest attempt was answered with `input_required`.
            input_required: bool,
        }
        let mut attempts: HashMap<String, Attempt> = HashMap::new();
        // Whether the latest request with each id came from the client, so a response is matched
        // to the request it answers (servers number their own requests).
        let mut latest_from_client: HashMap<String, bool> = HashMap::new();
        for m in messages {
            match m.kind {
                MessageKind::Request { method, id, .. } => {
                    let Some(key) = id.scalar_key() else { continue };
                    let from_client = m.sender != Sender::Server;
                    latest_from_client.insert(key.clone(), from_client);
                    if !from_client {
                        continue;
                    }
                    let params = m.message.get("params");
                    let retry_params =
                        params.is_some_and(|p| p.get("inputResponses").is_some() || p.get("requestState").is_some());
                    match attempts.get_mut(&key) {
                        Some(prev) if prev.method == method && (prev.input_required || retry_params) => {
                            let id_text = cx.text(id.range.clone()).to_owned();
                            let why = if prev.input_required {
                                "after its `input_required` result"
                            } else {
                                "with `inputResponses`/`requestState`"
                            };
                            cx.report(
                                &META,
                                id.range.clone(),
                                format!(
                                    "this `{method}` retry ({why}) reuses the JSON-RPC id {id_text} of the \
                                     original request; since MCP 2026-07-28 the retry MUST have a new id"
                                ),
                                "same id as the original request",
                            )
                            .label(prev.first.range.clone(), "first sent with this id here");
                            prev.input_required = false;
                        }
                        Some(prev) => {
                            // A plain duplicate (another method, or no MRTR in between): not this rule's.
                            *prev = Attempt { first: id, method, input_required: false };
                        }
                        None => {
                            attempts.insert(key, Attempt { first: id, method, input_required: false });
                        }
                    }
                }
                MessageKind::Response { id, result: Some(result), .. } if m.sender != Sender::Client => {
                    let Some(key) = id.scalar_key() else { continue };
                    if latest_from_client.get(&key) == Some(&true)
                        && let Some(prev) = attempts.get_mut(&key)
                    {
                        prev.input_required = is_input_required_result(result);
                    }
                }
                _ => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What one fn walk collects.

/// Where an attempt's id comes from.
#[derive(Debug, Clone)]
enum IdSource {
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

#[derive(Debug)]
struct Build {
    id: IdSource,
    /// The id expression (for `..base`: the update syntax).
    id_range: Range<usize>,
    /// Text of the id expression, for messages.
    id_text: String,
    method: Option<String>,
    /// The whole construction: the `json!(…)` call for a root object, else the object or literal.
    container: Range<usize>,
    loops: Vec<usize>,
    branches: Vec<(usize, usize)>,
}

#[derive(Debug)]
enum Init {
    /// A fn parameter; `request_typed` when its type is a JSON-RPC request.
    Param {
        request_typed: bool,
    },
    /// `let x = <request construction>` (index into `builds`), or a clone of such a binding.
    Family(usize),
    /// `let x = original.clone()` where `original` is a JSON-RPC-request-typed parameter.
    CloneOfParam {
        clone_range: Range<usize>,
    },
    /// `let id = original.id.clone()`.
    CopiedId,
    Other,
}

#[derive(Debug)]
struct Binding {
    name: String,
    range: Range<usize>,
    /// Uses at or after this offset see this binding (a `let`'s own initializer does not).
    visible_from: usize,
    init: Init,
}

#[derive(Debug)]
struct Loop {
    range: Range<usize>,
    keyword: Range<usize>,
    label: Option<String>,
    /// The loop goes round again on `input_required`: its `while` condition checks MRTR, or it exits
    /// when the result is not `input_required` (`if … != "input_required" { return … }`).
    retries: bool,
    /// Offsets of the `continue`s that restart this loop.
    continues: Vec<usize>,
}

/// A send-like call that passes a local value.
#[derive(Debug)]
struct SendEv {
    range: Range<usize>,
    name: String,
    /// The local passed, as written.
    ident: String,
    at: usize,
    loops: Vec<usize>,
    branches: Vec<(usize, usize)>,
}

/// A write to a local: `x = …`, `x += 1`, `req["id"] = …`, `req.set_id(…)`, `&mut x`.
#[derive(Debug)]
struct Write {
    ident: String,
    at: usize,
    /// The local itself is replaced or lent mutably (`x = …`, `x += 1`, `&mut x`).
    whole: bool,
    /// The write touches an `id` field or key.
    id: bool,
    /// The write mentions MRTR (`retry["params"]["inputResponses"] = …`).
    mrtr: bool,
}

struct Walk<'c, 'a> {
    cx: &'c Cx<'a>,
    loops: Vec<Loop>,
    loop_stack: Vec<usize>,
    branch_stack: Vec<(usize, usize)>,
    next_branch: usize,
    bindings: Vec<Binding>,
    builds: Vec<Build>,
    sends: Vec<SendEv>,
    writes: Vec<Write>,
    /// Offsets of locals already counted for a send (a send nested in another counts once).
    sent_at: HashSet<usize>,
    /// Locals the fn returns (`x`, `Ok(x)`, `return Some(x)`), with the offset of the mention.
    returned: Vec<(String, usize)>,
}

impl<'c, 'a> Walk<'c, 'a> {
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

    /// A loop's range from its first token (an attribute, the label or the keyword) to its body's
    /// closing brace: what `node_range` gives, without printing the whole loop to tokens.
    fn loop_range(
        &self,
        attrs: &[syn::Attribute],
        label: &Option<syn::Label>,
        keyword: proc_macro2::Span,
        body: &syn::Block,
    ) -> Range<usize> {
        let first = match (attrs.first(), label) {
            (Some(a), _) => a.pound_token.span,
            (None, Some(l)) => l.name.apostrophe,
            (None, None) => keyword,
        };
        self.cx.join(first, body.brace_token.span.close())
    }

    /// Where a printed node starts: its first token (`node_range(e).start` without printing twice).
    fn start_of(&self, tokens: &TokenStream) -> usize {
        tokens.clone().into_iter().next().map_or(0, |tt| self.cx.span_range(tt.span()).start)
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
        let range = self.loop_range(&e.attrs, &e.label, e.loop_token.span, &e.body);
        debug_assert_eq!(range, self.cx.node_range(e));
        let kw = self.cx.span_range(e.loop_token.span);
        self.in_loop(range, kw, &e.label, false, |w| visit::visit_expr_loop(w, e));
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        let range = self.loop_range(&e.attrs, &e.label, e.while_token.span, &e.body);
        debug_assert_eq!(range, self.cx.node_range(e));
        let kw = self.cx.span_range(e.while_token.span);
        let retries = mentions_mrtr(&e.cond.to_token_stream());
        self.in_loop(range, kw, &e.label, retries, |w| visit::visit_expr_while(w, e));
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        let range = self.loop_range(&e.attrs, &e.label, e.for_token.span, &e.body);
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
        if negated && mentions_mrtr(&e.cond.to_token_stream()) {
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
                Some(init) if simple => self.init_of(&init.expr, builds_before, range.start),
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
        let tokens = e.to_token_stream();
        let at = self.start_of(&tokens);
        debug_assert_eq!(at, self.cx.node_range(e).start);
        self.write(&e.left, at, true, &tokens);
        visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if crate::model::state::is_compound_assign(&e.op) {
            let tokens = e.to_token_stream();
            let at = self.start_of(&tokens);
            debug_assert_eq!(at, self.cx.node_range(e).start);
            self.write(&e.left, at, true, &tokens);
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
        if e.mutability.is_some() {
            let at = self.cx.node_range(e).start;
            self.write(&e.expr, at, true, &TokenStream::new());
        }
        visit::visit_expr_reference(self, e);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        let name = e.method.to_string();
        let range = self.cx.join(e.method.span(), e.paren_token.span.close());
        // `req.set_id(…)`, `req.as_object_mut().unwrap().insert("id".into(), …)`: a new id.
        let inserts_id = matches!(name.as_str(), "insert" | "entry")
            && e.args.first().and_then(|a| str_value(self.cx, a)).is_some_and(|(v, _)| v == "id");
        let sets_id = (name.starts_with("set_") && name.contains("id")) || inserts_id;
        // Other mutations only matter for what they add (`params.insert("inputResponses", …)`).
        let mutates = name.starts_with("set_") || matches!(name.as_str(), "insert" | "entry" | "extend" | "push");
        if sets_id || mutates {
            let at = range.start;
            self.write(&e.receiver, at, false, &e.args.to_token_stream());
            if let Some(w) = self.writes.last_mut() {
                w.id = sets_id;
            }
        }
        if SINKS.contains(&name.as_str()) {
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
        body.visit(self);
    }
}

impl Walk<'_, '_> {
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
        if let Expr::Path(p) = value
            && let Some(ident) = p.path.get_ident()
            && let Some(b) = resolve(&self.bindings, &ident.to_string(), at)
        {
            return match b.init {
                Init::Family(i) => Init::Family(i),
                Init::Param { request_typed: true } => Init::CloneOfParam { clone_range: self.cx.node_range(init) },
                _ => Init::Other,
            };
        }
        match id_source(init) {
            IdSource::Copied(_) => Init::CopiedId,
            _ => Init::Other,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Judging what was collected.

struct Finding {
    range: Range<usize>,
    message: String,
    label: String,
    labels: Vec<(Range<usize>, String)>,
}

fn judge(walk: &Walk, mentions: &Mentions) -> Vec<Finding> {
    let within = |list: &[usize], r: Range<usize>| {
        let i = list.partition_point(|&m| m < r.start);
        list.get(i).is_some_and(|&m| m < r.end)
    };
    let has_mention = |r: Range<usize>| within(&mentions.all, r);
    let has_retry_word = |r: Range<usize>| within(&mentions.retry, r);
    // A loop that retries on `input_required` (not one that only repeats a request after a
    // transport error and hands an `input_required` result back).
    let retry_loop = |l: &Loop| {
        l.retries || has_retry_word(l.range.clone()) || l.continues.iter().any(|&c| has_mention(l.range.start..c))
    };
    let mut out: Vec<Finding> = Vec::new();
    // Builds already reported, so a request is reported once, by the most specific pattern.
    let mut fired: HashSet<usize> = HashSet::new();

    // 1. Built inside an MRTR loop with an id that does not change between iterations.
    for (bi, b) in walk.builds.iter().enumerate() {
        let Some(&li) = b.loops.last() else { continue };
        let l = &walk.loops[li];
        if !retry_loop(l) {
            continue;
        }
        let within = |at: usize| l.range.contains(&at);
        let (message, labels) = match &b.id {
            IdSource::Ident(name) => {
                let Some(binding) = resolve(&walk.bindings, name, b.id_range.start) else { continue };
                if within(binding.range.start) {
                    continue; // bound anew on each iteration
                }
                if walk.writes.iter().any(|w| w.ident == *name && w.whole && within(w.at)) {
                    continue; // a counter advanced in the loop
                }
                (
                    format!(
                        "every attempt of this retry loop sends the JSON-RPC id `{}`, bound once before the loop; \
                         since MCP 2026-07-28 an MRTR retry MUST use a different id than the original request",
                        b.id_text
                    ),
                    vec![
                        (
                            binding.range.clone(),
                            match binding.init {
                                Init::Param { .. } => "a parameter: the same value on every attempt",
                                _ => "bound once here, outside the retry loop",
                            }
                            .to_owned(),
                        ),
                        (l.keyword.clone(), "retried by this loop".to_owned()),
                    ],
                )
            }
            IdSource::Literal(_) => (
                format!(
                    "every attempt of this retry loop sends the literal JSON-RPC id {}; since MCP 2026-07-28 an \
                     MRTR retry MUST use a different id than the original request",
                    b.id_text
                ),
                vec![(l.keyword.clone(), "retried by this loop".to_owned())],
            ),
            _ => continue,
        };
        fired.insert(bi);
        out.push(Finding { range: b.id_range.clone(), message, label: "same id on every attempt".into(), labels });
    }

    // 1b. Two attempts built with the same binding or literal id, an MRTR step between them.
    for (bi, b) in walk.builds.iter().enumerate() {
        if fired.contains(&bi) {
            continue;
        }
        let same = |a: &Build| match (&a.id, &b.id) {
            (IdSource::Literal(x), IdSource::Literal(y)) => x == y,
            (IdSource::Ident(x), IdSource::Ident(y)) if x == y => {
                let (ba, bb) =
                    (resolve(&walk.bindings, x, a.id_range.start), resolve(&walk.bindings, y, b.id_range.start));
                matches!((ba, bb), (Some(p), Some(q)) if std::ptr::eq(p, q))
                    && !walk
                        .writes
                        .iter()
                        .any(|w| w.ident == *x && w.whole && (a.id_range.end..b.id_range.start).contains(&w.at))
            }
            _ => false,
        };
        let first = walk.builds[..bi].iter().find(|a| {
            a.container.end <= b.container.start
                && same(a)
                && (a.method.is_none() || b.method.is_none() || a.method == b.method)
                && !exclusive(&a.branches, &b.branches)
                && has_mention(a.container.end..b.container.end)
        });
        if let Some(a) = first {
            fired.insert(bi);
            out.push(Finding {
                range: b.id_range.clone(),
                message: format!(
                    "this retry is sent with the same JSON-RPC id `{}` as the first attempt; since MCP 2026-07-28 an \
                     MRTR retry MUST use a different id than the original request",
                    b.id_text
                ),
                label: "same id as the first attempt".into(),
                labels: vec![(a.id_range.clone(), "first attempt sent with this id".into())],
            });
        }
    }

    // 2. The id copied from another request.
    for (bi, b) in walk.builds.iter().enumerate() {
        if fired.contains(&bi) {
            continue;
        }
        let (base, via) = match &b.id {
            IdSource::Copied(base) => (base.clone(), None),
            IdSource::Ident(name) => match resolve(&walk.bindings, name, b.id_range.start) {
                Some(binding @ Binding { init: Init::CopiedId, .. }) => (None, Some(binding)),
                _ => continue,
            },
            _ => continue,
        };
        if base.as_deref().is_some_and(|b| b == "self" || b == "Self") {
            continue;
        }
        // Only a retry: `inputResponses`/`requestState` handled before it is built. (Serializing a
        // queued request `{id: call.id, method: call.method, …}` copies its id too, rightly.)
        if !has_retry_word(0..b.container.end) {
            continue;
        }
        // `state.id` advanced elsewhere in the fn is a counter, not another request's id.
        if let Some(base) = &base
            && walk.writes.iter().any(|w| w.ident == *base && w.id)
        {
            continue;
        }
        let mut labels = Vec::new();
        if let Some(binding) = via {
            labels.push((binding.range.clone(), "copied from the original request here".to_owned()));
        } else if let Some(base) = &base
            && let Some(binding) = resolve(&walk.bindings, base, b.id_range.start)
        {
            labels.push((binding.range.clone(), "the original request".to_owned()));
        }
        fired.insert(bi);
        out.push(Finding {
            range: b.id_range.clone(),
            message: format!(
                "this retry copies the original request's JSON-RPC id (`{}`); since MCP 2026-07-28 the retry after \
                 `input_required` MUST use a different id",
                b.id_text
            ),
            label: "id of the original request".into(),
            labels,
        });
    }

    // 3. One request value sent again. Sends are grouped by the construction they carry.
    let family = |s: &SendEv| -> Option<(&Binding, Option<usize>)> {
        let b = resolve(&walk.bindings, &s.ident, s.at)?;
        match b.init {
            Init::Family(i) => Some((b, Some(i))),
            Init::CloneOfParam { .. } => Some((b, None)),
            _ => None,
        }
    };
    let resets = |ident_of: &dyn Fn(&str, usize) -> bool, range: Range<usize>| {
        walk.writes.iter().any(|w| (w.whole || w.id) && range.contains(&w.at) && ident_of(&w.ident, w.at))
    };
    let mut families_fired: HashSet<usize> = fired.clone();
    for (si, s) in walk.sends.iter().enumerate() {
        let Some((binding, build)) = family(s) else { continue };
        if build.is_some_and(|i| families_fired.contains(&i)) {
            continue;
        }
        // A write to this binding, or (for a family) any binding of the same family.
        let same_family = |ident: &str, at: usize| match resolve(&walk.bindings, ident, at) {
            Some(b) => match (&b.init, build) {
                (Init::Family(i), Some(j)) => *i == j,
                _ => std::ptr::eq(b, binding),
            },
            None => false,
        };
        // In a loop that the value was bound outside of.
        let outer_loop =
            s.loops.iter().rev().map(|&li| &walk.loops[li]).find(|l| !l.range.contains(&binding.range.start));
        let mut hit: Option<Finding> = None;
        if let Some(l) = outer_loop
            && retry_loop(l)
            && !resets(&same_family, l.range.clone())
        {
            hit = Some(Finding {
                range: s.range.clone(),
                message: format!(
                    "every attempt of this retry loop sends the same request value `{}`, with the same JSON-RPC id; \
                     since MCP 2026-07-28 an MRTR retry MUST use a different id than the original request",
                    s.ident
                ),
                label: "sent again with its original id".into(),
                labels: vec![(l.keyword.clone(), "retried by this loop".into())],
            });
        }
        if hit.is_none() {
            // Straight-line: an earlier send of the same value, an MRTR step between, no new id.
            let prev = walk.sends[..si].iter().find(|p| {
                family(p).is_some_and(|(pb, pbuild)| match (pbuild, build) {
                    (Some(i), Some(j)) => i == j,
                    _ => std::ptr::eq(pb, binding),
                }) && !exclusive(&p.branches, &s.branches)
                    && has_mention(p.range.end..s.range.start)
                    && !resets(&same_family, p.range.end..s.range.end)
            });
            if let Some(p) = prev {
                hit = Some(Finding {
                    range: s.range.clone(),
                    message: format!(
                        "the retry sends the request value `{}` again with the JSON-RPC id of the first attempt; \
                         since MCP 2026-07-28 an MRTR retry MUST use a different id than the original request",
                        s.ident
                    ),
                    label: "sent again with its original id".into(),
                    labels: vec![(p.range.clone(), format!("first sent here (`{}`)", p.name))],
                });
            }
        }
        if let Some(mut f) = hit {
            match build.map(|i| &walk.builds[i]) {
                Some(b) => f.labels.push((b.id_range.clone(), "id set once here".into())),
                None => f.labels.push((binding.range.clone(), "a copy of the original request".into())),
            }
            if let Some(i) = build {
                families_fired.insert(i);
            }
            out.push(f);
        }
    }

    // 3b. A clone of a JSON-RPC request parameter, never given a new id, in a retry fn.
    for b in &walk.bindings {
        let Init::CloneOfParam { clone_range } = &b.init else { continue };
        let written_id = walk.writes.iter().any(|w| {
            (w.id || w.whole)
                && w.at >= b.visible_from
                && resolve(&walk.bindings, &w.ident, w.at).is_some_and(|r| std::ptr::eq(r, b))
        });
        let is_b = |ident: &str, at: usize| resolve(&walk.bindings, ident, at).is_some_and(|r| std::ptr::eq(r, b));
        // Only a copy that becomes the retry: given `inputResponses`/`requestState`, sent, or returned
        // (not one kept aside, say in a map of pending requests).
        let made_retry = walk.writes.iter().any(|w| w.mrtr && w.at >= b.visible_from && is_b(&w.ident, w.at))
            || walk.sends.iter().any(|s| is_b(&s.ident, s.at))
            || walk.returned.iter().any(|(ident, at)| is_b(ident, *at));
        let reported = out.iter().any(|f| f.labels.iter().any(|(r, _)| *r == b.range));
        if written_id || reported || !made_retry || !has_retry_word(b.visible_from..usize::MAX) {
            continue;
        }
        out.push(Finding {
            range: clone_range.clone(),
            message: format!(
                "the retry `{}` is a copy of the original request and keeps its JSON-RPC id; since MCP 2026-07-28 an \
                 MRTR retry MUST use a different id",
                b.name
            ),
            label: "copied with the original id".into(),
            labels: vec![(b.range.clone(), "never given a new id".into())],
        });
    }

    out.sort_by_key(|f| (f.range.start, f.range.end));
    out.dedup_by(|a, b| a.range == b.range);
    out
}

/// Whether two places are in different arms of the same `if`/`match` (only one of them runs).
fn exclusive(a: &[(usize, usize)], b: &[(usize, usize)]) -> bool {
    a.iter().any(|(node, arm)| b.iter().any(|(n, m)| n == node && m != arm))
}

/// The binding a use of `name` at `at` refers to: the latest one visible there.
fn resolve<'b>(bindings: &'b [Binding], name: &str, at: usize) -> Option<&'b Binding> {
    bindings.iter().filter(|b| b.name == name && b.visible_from <= at).max_by_key(|b| b.visible_from)
}

// ---------------------------------------------------------------------------------------------
// Small readers.

/// Where a fn mentions MRTR (offsets of identifiers and literals).
#[derive(Default)]
struct Mentions {
    /// Any MRTR word.
    all: Vec<usize>,
    /// Words of the retry itself (`inputResponses`, `requestState`, …), not `input_required`.
    retry: Vec<usize>,
}

impl Mentions {
    /// The MRTR mentions in a fn's tokens (its signature and body, nested items included), sorted.
    fn of_fn(cx: &Cx, f: &FnRef) -> Mentions {
        let mut scan = MentionScan { cx, out: Mentions::default(), text: String::new() };
        scan.visit_signature(f.sig);
        scan.visit_block(f.body);
        let mut out = scan.out;
        // A shorthand field (`Request { id }`) is one token that the tree holds twice.
        for offsets in [&mut out.all, &mut out.retry] {
            offsets.sort_unstable();
            offsets.dedup();
        }
        #[cfg(debug_assertions)]
        {
            let printed = Mentions::printed(cx, f);
            assert_eq!((&out.all, &out.retry), (&printed.all, &printed.retry), "{}", f.sig.ident);
        }
        out
    }

    /// The same from the fn printed to tokens: what `of_fn` must equal (checked in debug builds).
    #[cfg(debug_assertions)]
    fn printed(cx: &Cx, f: &FnRef) -> Mentions {
        let mut out = Mentions::default();
        mrtr_mentions(cx, &f.sig.to_token_stream(), &mut out);
        mrtr_mentions(cx, &f.body.to_token_stream(), &mut out);
        out.all.sort_unstable();
        out.retry.sort_unstable();
        out
    }

    /// Records a token that mentions MRTR. The text is the token as written, so a match is always
    /// in the file's bytes (the prefilter's view).
    fn token(&mut self, cx: &Cx, text: &str, span: proc_macro2::Span) {
        // Most tokens are shorter than any MRTR word: spare them the word searches.
        if mentions_mrtr_text(text) {
            let at = cx.span_range(span).start;
            self.all.push(at);
            if RETRY_WORDS.iter().any(|w| text.contains(w)) {
                self.retry.push(at);
            }
        }
    }
}

/// Reads the identifiers and literals of a syntax tree where printing it to tokens would, without
/// printing it (which cost more than this rule's whole walk). Attributes (doc comments) are
/// skipped, as `mrtr_mentions` skips them; token streams the tree keeps as written (macro bodies,
/// `Verbatim` nodes) are read by `mrtr_mentions`. Keywords, which the tree keeps as tokens of their
/// own, are never MRTR words.
struct MentionScan<'c, 'a> {
    cx: &'c Cx<'a>,
    out: Mentions,
    /// Reused for each token's text.
    text: String,
}

impl MentionScan<'_, '_> {
    fn token(&mut self, token: &dyn std::fmt::Display, span: proc_macro2::Span) {
        use std::fmt::Write;
        self.text.clear();
        let _ = write!(self.text, "{token}");
        self.out.token(self.cx, &self.text, span);
    }

    fn tokens(&mut self, tokens: &TokenStream) {
        mrtr_mentions(self.cx, tokens, &mut self.out);
    }
}

impl<'ast> Visit<'ast> for MentionScan<'_, '_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.token(i, i.span());
    }
    fn visit_lit(&mut self, l: &'ast Lit) {
        let token = match l {
            Lit::Str(s) => s.token(),
            Lit::ByteStr(s) => s.token(),
            Lit::CStr(s) => s.token(),
            Lit::Byte(b) => b.token(),
            Lit::Char(c) => c.token(),
            Lit::Int(i) => i.token(),
            Lit::Float(f) => f.token(),
            Lit::Verbatim(token) => token.clone(),
            // `true`/`false` are identifiers, never MRTR words.
            _ => return,
        };
        self.token(&token, l.span());
    }
    /// A string literal outside `Lit`: an `extern "…"` ABI.
    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        self.token(&l.token(), l.span());
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        self.tokens(&m.tokens);
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_expr(self, other),
        }
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        match i {
            syn::Item::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_item(self, other),
        }
    }
    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        match i {
            syn::ImplItem::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_impl_item(self, other),
        }
    }
    fn visit_trait_item(&mut self, i: &'ast syn::TraitItem) {
        match i {
            syn::TraitItem::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_trait_item(self, other),
        }
    }
    fn visit_foreign_item(&mut self, i: &'ast syn::ForeignItem) {
        match i {
            syn::ForeignItem::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_foreign_item(self, other),
        }
    }
    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        match p {
            syn::Pat::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_pat(self, other),
        }
    }
    fn visit_type(&mut self, t: &'ast syn::Type) {
        match t {
            syn::Type::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_type(self, other),
        }
    }
    fn visit_type_param_bound(&mut self, b: &'ast syn::TypeParamBound) {
        match b {
            syn::TypeParamBound::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_type_param_bound(self, other),
        }
    }
}

/// Collects MRTR mentions. Attributes (doc comments) are skipped.
fn mrtr_mentions(cx: &Cx, tokens: &TokenStream, out: &mut Mentions) {
    let mut stack = vec![tokens.clone().into_iter().peekable()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Punct(p)) if p.as_char() == '#' => {
                if let Some(TokenTree::Punct(bang)) = top.peek()
                    && bang.as_char() == '!'
                {
                    top.next();
                }
                if matches!(top.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket) {
                    top.next();
                }
            }
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter().peekable()),
            Some(tt @ (TokenTree::Ident(_) | TokenTree::Literal(_))) => {
                // The token as written, so a match is always in the file's bytes (the prefilter's view).
                out.token(cx, &tt.to_string(), tt.span());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
}

fn mentions_mrtr(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        TokenTree::Group(g) => mentions_mrtr(&g.stream()),
        TokenTree::Ident(_) | TokenTree::Literal(_) => mentions_mrtr_text(&tt.to_string()),
        TokenTree::Punct(_) => false,
    })
}

/// `JsonRpcRequest`, `JSONRPCRequest`, `RpcRequest`: a type whose values carry a JSON-RPC id.
fn is_rpc_request_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace('_', "");
    n.ends_with("rpcrequest")
}

fn strip_pat(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => strip_pat(&t.pat),
        other => other,
    }
}

/// Identifiers a pattern binds, with their ranges.
fn pat_idents(cx: &Cx, pat: &syn::Pat) -> Vec<(String, Range<usize>)> {
    struct Idents<'c, 'a> {
        cx: &'c Cx<'a>,
        out: Vec<(String, Range<usize>)>,
    }
    impl<'ast> Visit<'ast> for Idents<'_, '_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.out.push((p.ident.to_string(), self.cx.span_range(p.ident.span())));
            visit::visit_pat_ident(self, p);
        }
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut v = Idents { cx, out: Vec::new() };
    v.visit_pat(pat);
    v.out
}

fn strip_deref(e: &Expr) -> &Expr {
    match e {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip_deref(&u.expr),
        Expr::Paren(p) => strip_deref(&p.expr),
        Expr::Group(g) => strip_deref(&g.expr),
        other => other,
    }
}

/// The local a place expression starts from: `req` in `req["params"]["x"]`, `*req.id`, `req.set_id(…)`.
fn root_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => root_ident(&f.base),
        Expr::Index(i) => root_ident(&i.expr),
        Expr::MethodCall(m) => root_ident(&m.receiver),
        Expr::Unary(u) => root_ident(&u.expr),
        Expr::Paren(p) => root_ident(&p.expr),
        Expr::Group(g) => root_ident(&g.expr),
        Expr::Reference(r) => root_ident(&r.expr),
        Expr::Try(t) => root_ident(&t.expr),
        _ => None,
    }
}

/// Whether a place expression names an `id` field or key (`req.id`, `req["id"]`, `get_mut("id")`).
fn touches_id(tokens: &TokenStream) -> bool {
    tokens_mention(tokens, "id")
        || tokens.clone().into_iter().any(|tt| match tt {
            TokenTree::Literal(l) => l.to_string() == "\"id\"",
            TokenTree::Group(g) => touches_id(&g.stream()),
            _ => false,
        })
}

/// A value as a whole, through wrappers that keep it: `&x`, `x.clone()`, `x?`, `(x)`.
fn strip_value(e: &Expr) -> &Expr {
    match e {
        Expr::Reference(r) => strip_value(&r.expr),
        Expr::Paren(p) => strip_value(&p.expr),
        Expr::Group(g) => strip_value(&g.expr),
        Expr::Try(t) => strip_value(&t.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "clone" | "to_owned" | "to_string" | "into" | "as_ref" | "unwrap" | "borrow"
                ) =>
        {
            strip_value(&m.receiver)
        }
        other => other,
    }
}

/// Locals an argument passes whole (by value, reference, clone, or serialized: `to_string(&req)`,
/// `format!("{}", req)`, `body.as_bytes()`), with the offset of each mention.
fn value_mentions(cx: &Cx, e: &Expr) -> Vec<(String, usize)> {
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
fn id_source(e: &Expr) -> IdSource {
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn findings(src: &str) -> Vec<(usize, String)> {
        crate::engine::check_text(Path::new("/nonexistent/retry.rs"), src.to_owned())
            .into_iter()
            .filter(|d| d.rule == "retry-reuses-request-id")
            .map(|d| (src[..d.range.start].lines().count().max(1), src[d.range].to_owned()))
            .collect()
    }

    #[test]
    fn shortest_mrtr_word_is_the_shortest() {
        let lengths = super::MRTR_WORDS.iter().map(|w| crate::prefilter::split_word(w).0.len());
        assert_eq!(lengths.min(), Some(super::SHORTEST_MRTR_WORD));
    }

    /// `Mentions::of_fn` reads the tree; in debug builds it asserts that it finds what printing the
    /// fn to tokens finds. These fns hold mentions where the two could part: tokens kept verbatim,
    /// tokens the tree holds twice, attributes, lifetimes, raw identifiers, suffixes, macros.
    #[test]
    fn mentions_read_from_the_tree_are_the_printed_tokens_mentions() {
        let srcs = [
            "fn a() { struct S; impl S { fn g(input_required: u8); type T; } }",
            "fn b() { extern \"C\" { fn h() { input_required } } }",
            "fn c(r: Req) { let Req { request_state, .. } = r; send(Req { request_state, id: 1 }); }",
            "fn d() { #[doc = \"input_required\"] let x = 1; vec![#[cfg(input_required)] requestState, 2]; }",
            "fn e<'input_required>(x: &'input_required str) -> impl Fn() + 'input_required { || () }",
            "fn f() { let r#input_required = \"x\"input_required; let n = 1input_responses; }",
            "fn g() { m! { #![inner(requestState)] # [x] request_state } }",
            "fn h() -> InputRequired<'static> { let RequestState(x) = y; br\"input_required\" }",
            "fn i() { let x: unsafe extern \"C\" fn(input_required: u8) = f; }",
        ];
        for src in srcs {
            let diagnostics = crate::engine::check_text(Path::new("/nonexistent/mentions.rs"), src.to_owned());
            assert!(diagnostics.iter().all(|d| d.rule != "parse-error"), "{src}");
        }
    }

    #[test]
    fn id_bound_before_mrtr_loop() {
        let src = r#"
fn run(client: &Client) {
    let id = 7;
    loop {
        let resp = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}));
        if resp["result"]["resultType"] == "input_required" { continue; }
        break;
    }
}
"#;
        assert_eq!(findings(src), [(5, "id".to_owned())]);
    }

    #[test]
    fn counter_in_loop_is_fresh() {
        let src = r#"
fn run(client: &Client) {
    let mut id = 7;
    loop {
        id += 1;
        let resp = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}));
        if resp["result"]["resultType"] == "input_required" { continue; }
        break;
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn transport_retry_outside_mrtr_is_silent() {
        // The loop only retries transport errors; the MRTR check is after it.
        let src = r#"
fn run(client: &Client) {
    let req = json!({"jsonrpc": "2.0", "id": next_id(), "method": "tools/call"});
    let resp = loop {
        match client.send(&req) { Ok(r) => break r, Err(_) => continue }
    };
    if resp["result"]["resultType"] == "input_required" { todo!() }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn exclusive_branches_are_one_send() {
        let src = r#"
fn run(stdio: bool, req: Value) {
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"requestState": "s"}});
    if stdio { pipe.send(&req); } else { http.post(&req); }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn clone_sent_after_mutation() {
        let src = r#"
fn run(client: &Client) {
    let first = json!({"jsonrpc": "2.0", "id": next_id(), "method": "tools/call"});
    let resp = client.send(&first);
    let mut retry = first.clone();
    retry["params"]["inputResponses"] = answers(&resp);
    client.send(&retry);
}
"#;
        assert_eq!(findings(src), [(7, "send(&retry)".to_owned())]);
    }

    #[test]
    fn new_id_between_sends_is_fresh() {
        let src = r#"
fn run(client: &Client) {
    let mut req = json!({"jsonrpc": "2.0", "id": next_id(), "method": "tools/call"});
    let resp = client.send(&req);
    req["params"]["inputResponses"] = answers(&resp);
    req["id"] = json!(next_id());
    client.send(&req);
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn serializing_a_queued_request_is_not_a_retry() {
        let src = r#"
async fn pump(&mut self) {
    while let Some(call) = self.queue.recv().await {
        let resp = self.post(json!({"jsonrpc": "2.0", "id": call.id, "method": call.method, "params": call.params})).await;
        if resp["result"]["resultType"] == "input_required" {
            self.waiting.push(call);
        }
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn loop_pattern_and_match_arms_are_fresh() {
        let src = r#"
fn run(client: &Client, tools: &[&str]) {
    for (id, tool) in tools.iter().enumerate() {
        let resp = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}}));
        if resp["result"]["resultType"] == "input_required" { continue; }
    }
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"});
    match transport {
        Transport::Stdio(p) => { let _ = "requestState"; p.send(&req) }
        Transport::Http(h) => { let _ = "inputResponses"; h.post(&req) }
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn copied_id_in_retry_helper() {
        let src = r#"
fn retry(original: &Request, answers: Value) -> Request {
    let mut params = original.params.clone();
    params["inputResponses"] = answers;
    Request { id: original.id.clone(), method: original.method.clone(), params }
}
"#;
        assert_eq!(findings(src), [(5, "original.id.clone()".to_owned())]);
    }

    #[test]
    fn loop_that_hands_input_required_back_is_not_a_retry_loop() {
        let src = r#"
fn call(client: &Client) -> Outcome {
    let id = next_id();
    let mut attempts = 0;
    loop {
        match client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"})) {
            Err(_) if attempts < 3 => { attempts += 1; continue; }
            Err(e) => return Outcome::Failed(e),
            Ok(r) if r["result"]["resultType"] == "input_required" => return Outcome::NeedsInput(r),
            Ok(r) => return Outcome::Done(r),
        }
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn loop_that_exits_unless_input_required_retries() {
        let src = r#"
fn call(client: &Client) -> Value {
    let id = next_id();
    let mut params = json!({});
    loop {
        let r = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
        if r["result"]["resultType"] != "input_required" {
            return r;
        }
        params = answers(&r);
    }
}
"#;
        assert_eq!(findings(src), [(6, "id".to_owned())]);
    }
}
