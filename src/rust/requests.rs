//! Readers of syntax that sends a JSON-RPC request or notification, shared by the rules about
//! requests the 2026-07-28 protocol removed (`server-roots-request`, `server-initiated-request`,
//! `removed-method`): the names of sending calls, method strings through the file's consts, the
//! server's handle to its client, and the file's own functions.

use std::ops::Range;

use syn::{Expr, Member};

use crate::cx::Cx;
use crate::rules::FnRef;
use crate::rust::syntax::{path_ends_with, str_value, type_mentions};

/// Names of calls that send (or build, to send) a JSON-RPC request whose method is an argument.
pub const REQUEST_VERBS: &[&str] = &[
    "send_request",
    "send_request_raw",
    "send_raw_request",
    "send_req",
    "send_rpc",
    "send_json_rpc",
    "request",
    "request_raw",
    "raw_request",
    "send",
    "call",
    "call_method",
    "call_rpc",
    "rpc",
    "rpc_call",
    "new_request",
    "make_request",
    "build_request",
    "write_request",
];

/// Names of calls that send (or build, to send) a JSON-RPC notification whose method is an argument.
pub const NOTIFICATION_VERBS: &[&str] =
    &["notify", "send_notification", "new_notification", "build_notification", "write_notification"];

/// A request or notification verb (`REQUEST_VERBS`, `NOTIFICATION_VERBS`).
pub fn is_send_verb(name: &str) -> bool {
    REQUEST_VERBS.contains(&name) || NOTIFICATION_VERBS.contains(&name)
}

/// `ServerRequest` variants (rmcp's and pmcp-style short names) that carry a request the server
/// sends to the client, with its method.
pub const SERVER_REQUEST_VARIANTS: &[(&str, &str)] = &[
    ("CreateMessageRequest", "sampling/createMessage"),
    ("CreateMessage", "sampling/createMessage"),
    ("CreateElicitationRequest", "elicitation/create"),
    ("ElicitRequest", "elicitation/create"),
    ("ElicitationRequest", "elicitation/create"),
    ("Elicit", "elicitation/create"),
    ("ElicitInput", "elicitation/create"),
    ("PingRequest", "ping"),
    ("Ping", "ping"),
];

/// Types of function parameters that are the server's handle to its client (rmcp `Peer<RoleServer>`,
/// rust-mcp-sdk `Arc<dyn McpServer>`, …): a call on such a parameter is the SDK's.
const PEER_TYPES: &[&str] = &["Peer", "McpServer", "ServerRuntime", "RequestContext", "ServerHandle", "ClientHandle"];

/// A `const`/`static` of the file whose value is a string literal.
#[derive(Clone)]
pub struct StrConst {
    pub name: String,
    pub value: String,
    /// The literal's range.
    pub range: Range<usize>,
}

/// A string found in code: its value, the range to report, and the const's literal when it came
/// through one.
pub type Resolved = (String, Range<usize>, Option<Range<usize>>);

/// The raw text of a literal spells `value`: trigger words see bytes, not unescaped values.
pub fn raw_spells(cx: &Cx, range: &Range<usize>, value: &str) -> bool {
    cx.text(range.clone()).contains(value)
}

/// The string an expression stands for, through a literal (whose raw text must spell it) or a
/// `const`/`static` of the file.
pub fn resolve_str(cx: &Cx, expr: &Expr, consts: &[StrConst]) -> Option<Resolved> {
    if let Some((value, range)) = str_value(cx, expr) {
        return raw_spells(cx, &range, &value).then_some((value, range, None));
    }
    match expr {
        Expr::Path(p) if p.qself.is_none() => {
            let name = p.path.segments.last()?.ident.to_string();
            let c = consts.iter().find(|c| c.name == name)?;
            Some((c.value.clone(), cx.node_range(expr), Some(c.range.clone())))
        }
        Expr::Reference(r) => resolve_str(cx, &r.expr, consts),
        Expr::Paren(p) => resolve_str(cx, &p.expr, consts),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(m.method.to_string().as_str(), "to_string" | "into" | "to_owned" | "as_str") =>
        {
            resolve_str(cx, &m.receiver, consts)
        }
        _ => None,
    }
}

/// The strings a pattern matches: `"initialize"`, `"ping" | "x"`, `Some("ping")`, a const path or
/// ident of the file (`resolve_str` for patterns).
pub fn pattern_strs(cx: &Cx, pat: &syn::Pat, consts: &[StrConst], out: &mut Vec<Resolved>) {
    match pat {
        syn::Pat::Lit(l) => {
            if let Some((v, r, d)) = resolve_str(cx, &Expr::Lit(l.clone()), consts) {
                out.push((v, r, d));
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| pattern_strs(cx, c, consts, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|e| pattern_strs(cx, e, consts, out)),
        syn::Pat::Reference(r) => pattern_strs(cx, &r.pat, consts, out),
        syn::Pat::Paren(p) => pattern_strs(cx, &p.pat, consts, out),
        syn::Pat::Path(p) => {
            if let Some(found) = resolve_str(cx, &Expr::Path(p.clone()), consts) {
                out.push(found);
            }
        }
        syn::Pat::Ident(i) if i.subpat.is_none() => {
            if let Some(c) = consts.iter().find(|c| i.ident == c.name) {
                out.push((c.value.clone(), cx.node_range(&i.ident), Some(c.range.clone())));
            }
        }
        _ => {}
    }
}

/// A request value as a sending call takes it (`peer.send_request(PingRequest::default().into())`):
/// a call of a path (`T::new(..)`, `T::default()`), a struct literal `T { .. }` or a path `T`,
/// through `.into()`, `ServerRequest::from(..)`, `&` and parentheses. `names` says what the type's
/// path stands for; the range is the call's or the path's, or a struct literal's path.
pub fn request_value<T>(cx: &Cx, expr: &Expr, names: &dyn Fn(&syn::Path) -> Option<T>) -> Option<(T, Range<usize>)> {
    match expr {
        Expr::MethodCall(m) if m.args.is_empty() && m.method == "into" => request_value(cx, &m.receiver, names),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if path_ends_with(&p.path, &["ServerRequest", "from"]) && c.args.len() == 1 => {
                request_value(cx, &c.args[0], names)
            }
            Expr::Path(p) => names(&p.path).map(|t| (t, cx.node_range(expr))),
            _ => None,
        },
        Expr::Struct(s) => names(&s.path).map(|t| (t, cx.node_range(&s.path))),
        Expr::Path(p) => names(&p.path).map(|t| (t, cx.node_range(expr))),
        Expr::Reference(r) => request_value(cx, &r.expr, names),
        Expr::Paren(p) => request_value(cx, &p.expr, names),
        _ => None,
    }
}

/// `const`/`static` items (at any depth of modules and impls, not inside functions) whose value is
/// a string literal accepted by `want`.
pub fn collect_str_consts(cx: &Cx, items: &[syn::Item], want: &dyn Fn(&str) -> bool, out: &mut Vec<StrConst>) {
    let mut add = |ident: &syn::Ident, expr: &Expr| {
        if let Some((value, range)) = str_value(cx, expr)
            && want(&value)
            && raw_spells(cx, &range, &value)
        {
            out.push(StrConst { name: ident.to_string(), value, range });
        }
    };
    let mut stack: Vec<&[syn::Item]> = vec![items];
    while let Some(items) = stack.pop() {
        for item in items {
            match item {
                syn::Item::Const(c) => add(&c.ident, &c.expr),
                syn::Item::Static(s) => add(&s.ident, &s.expr),
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        stack.push(items);
                    }
                }
                syn::Item::Impl(i) => {
                    for it in &i.items {
                        if let syn::ImplItem::Const(c) = it {
                            add(&c.ident, &c.expr);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Names of the functions and methods the file defines (outside `impl ClientHandler`), at any
/// depth of modules, impls and traits: a call of one of them is the file's own, not an SDK's.
pub fn collect_local_fns(items: &[syn::Item], out: &mut Vec<String>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => out.push(f.sig.ident.to_string()),
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_local_fns(items, out);
                }
            }
            syn::Item::Impl(i) => {
                let client = i
                    .trait_
                    .as_ref()
                    .and_then(|(_, p, _)| p.segments.last())
                    .is_some_and(|s| s.ident.to_string().starts_with("ClientHandler"));
                if !client {
                    for it in &i.items {
                        if let syn::ImplItem::Fn(f) = it {
                            out.push(f.sig.ident.to_string());
                        }
                    }
                }
            }
            syn::Item::Trait(t) => {
                for it in &t.items {
                    if let syn::TraitItem::Fn(f) = it {
                        out.push(f.sig.ident.to_string());
                    }
                }
            }
            _ => {}
        }
    }
}

/// Per function: the body's range and the names of parameters whose type is a peer-like handle.
#[derive(Default)]
pub struct PeerParams(Vec<(Range<usize>, Vec<String>)>);

/// Whether a method's receiver is the server's handle to its client: a name in its chain says
/// `peer` (`context.peer`, `self.peer`, `client_peer`), or its root is a parameter of a peer-like
/// type (`runtime: Arc<dyn McpServer>`, `p: &Peer<RoleServer>`, see `record_peer_params`).
pub fn peer_like_receiver(cx: &Cx, receiver: &Expr) -> bool {
    let mut names = Vec::new();
    chain_names(receiver, &mut names);
    if names.iter().any(|n| n.to_ascii_lowercase().contains("peer")) {
        return true;
    }
    let Some(root) = names.first() else { return false };
    let at = cx.node_range(receiver).start;
    let Some(params) = cx.state_ref::<PeerParams>() else { return false };
    // The innermost function around the call.
    params
        .0
        .iter()
        .filter(|(body, _)| body.contains(&at))
        .min_by_key(|(body, _)| body.len())
        .is_some_and(|(_, names)| names.contains(root))
}

/// The names along a receiver chain, root first: `self.peer.lock().await` → self, peer, lock.
fn chain_names(expr: &Expr, out: &mut Vec<String>) {
    match expr {
        Expr::Path(p) => out.extend(p.path.segments.iter().map(|s| s.ident.to_string())),
        Expr::Field(f) => {
            chain_names(&f.base, out);
            if let Member::Named(i) = &f.member {
                out.push(i.to_string());
            }
        }
        Expr::MethodCall(m) => {
            chain_names(&m.receiver, out);
            out.push(m.method.to_string());
        }
        Expr::Await(a) => chain_names(&a.base, out),
        Expr::Try(t) => chain_names(&t.expr, out),
        Expr::Paren(p) => chain_names(&p.expr, out),
        Expr::Group(g) => chain_names(&g.expr, out),
        Expr::Reference(r) => chain_names(&r.expr, out),
        Expr::Unary(u) => chain_names(&u.expr, out),
        Expr::Index(i) => chain_names(&i.expr, out),
        Expr::Call(c) => chain_names(&c.func, out),
        _ => {}
    }
}

/// Records the function's peer-like parameters (see `peer_like_receiver`). Idempotent, so several
/// rules may call it for the same function.
pub fn record_peer_params(cx: &mut Cx, f: &FnRef) {
    let body = cx.block_range(f.body);
    let mut names = Vec::new();
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = input else { continue };
        if !type_mentions(&pt.ty, PEER_TYPES) {
            continue;
        }
        if let syn::Pat::Ident(pi) = &*pt.pat {
            names.push(pi.ident.to_string());
        }
    }
    let state = cx.state::<PeerParams>();
    if !names.is_empty() && !state.0.iter().any(|(r, _)| *r == body) {
        state.0.push((body, names));
    }
}

/// The expressions of a function body that build what its `json!` result puts under
/// `"inputRequests"` through a local (`let asks = pending.iter().map(|p| json!({..})).collect();`
/// … `json!({"resultType": "input_required", "inputRequests": asks})`): the local's initializer,
/// what is assigned to it, and the arguments of `asks.push(..)` / `asks.insert(..)`. An MRTR input
/// request built there is asked for in a result, not sent. Empty unless the body's text has
/// `"inputRequests"`.
pub fn input_request_builders(cx: &Cx, body: &syn::Block) -> Vec<Range<usize>> {
    use syn::visit::{self, Visit};
    if !crate::rust::syntax::block_text(cx, body).is_some_and(|t| t.contains("\"inputRequests\"")) {
        return Vec::new();
    }
    /// The names in each `"inputRequests": <value>` of a `json!` body.
    struct Targets(Vec<String>);
    impl<'ast> Visit<'ast> for Targets {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if m.path.segments.last().is_some_and(|s| s.ident == "json") {
                input_request_names(&m.tokens, &mut self.0);
            }
        }
    }
    let mut targets = Targets(Vec::new());
    targets.visit_block(body);
    if targets.0.is_empty() {
        return Vec::new();
    }
    struct Builders<'c, 'a> {
        cx: &'c Cx<'a>,
        targets: Vec<String>,
        found: Vec<Range<usize>>,
    }
    impl Builders<'_, '_> {
        fn is_target(&self, e: &Expr) -> bool {
            matches!(crate::rust::rejects::strip(e), Expr::Path(p)
                if p.path.get_ident().is_some_and(|i| self.targets.iter().any(|t| i == t)))
        }
    }
    impl<'ast> Visit<'ast> for Builders<'_, '_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            let pat = match &l.pat {
                syn::Pat::Type(t) => &*t.pat,
                p => p,
            };
            if let (syn::Pat::Ident(p), Some(init)) = (pat, &l.init)
                && self.targets.iter().any(|t| p.ident == t)
            {
                self.found.push(self.cx.node_range(&*init.expr));
            }
            visit::visit_local(self, l);
        }
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            if self.is_target(&a.left) {
                self.found.push(self.cx.node_range(&*a.right));
            }
            visit::visit_expr_assign(self, a);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if ["push", "insert", "extend"].iter().any(|n| m.method == n) && self.is_target(&m.receiver) {
                self.found.extend(m.args.iter().map(|a| self.cx.node_range(a)));
            }
            visit::visit_expr_method_call(self, m);
        }
    }
    let mut builders = Builders { cx, targets: targets.0, found: Vec::new() };
    builders.visit_block(body);
    builders.found
}

/// The identifiers of the value of each `"inputRequests"` key in a `json!` body's tokens.
fn input_request_names(tokens: &proc_macro2::TokenStream, out: &mut Vec<String>) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Literal(l) if l.to_string() == "\"inputRequests\"" => {
                // The value: up to the next top-level comma, after the colon.
                let value = trees[i + 1..]
                    .iter()
                    .skip(1)
                    .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','));
                for t in value {
                    if let TokenTree::Ident(name) = t {
                        out.push(name.to_string());
                    }
                    i += 1;
                }
            }
            TokenTree::Group(g) => input_request_names(&g.stream(), out),
            _ => {}
        }
        i += 1;
    }
}

/// Fields that make a struct literal with a `method` (and an `id`) a record of a message rather
/// than the message: a log or trace entry (`SessionMessage { id, method, level, timestamp, .. }`).
const RECORD_FIELDS: &[&str] =
    &["level", "timestamp", "time", "ts", "direction", "duration", "duration_ms", "elapsed", "latency", "type"];

/// Whether a struct literal is a record about a message (a log entry, a trace event), not one.
pub fn is_message_record(lit: &syn::ExprStruct) -> bool {
    use syn::ext::IdentExt;
    lit.fields.iter().any(|f| matches!(&f.member, Member::Named(i) if RECORD_FIELDS.iter().any(|r| i.unraw() == r)))
}
