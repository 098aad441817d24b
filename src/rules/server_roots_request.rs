//! `server-roots-request`: server code that sends a `roots/list` request to the client.
//!
//! MCP 2026-07-28 removed server-initiated JSON-RPC requests (C06): a server that needs the
//! client's roots returns an `input_required` result with a `roots/list` input request (MRTR, C07),
//! or better, since roots are deprecated, takes the directory as a tool parameter (C17).
//!
//! What fires (never in client code):
//! - the SDKs' request methods: `list_roots()` (rmcp; turbomcp's `list_roots(key)`),
//!   `request_root_list(..)` (rust-mcp-sdk), `roots_list()` (mcp-attr), `request_client_roots(..)`
//!   (pmcp), also inside macros whose bodies are not plain expressions (`tokio::select!`);
//! - `ServerRequest::ListRootsRequest` / `ServerRequest::ListRoots` built in expression position,
//!   and a `ListRootsRequest` value handed to a request-sending call;
//! - hand-rolled JSON-RPC: a `json!` object or a struct literal with `method: "roots/list"` and an
//!   `id`, a request-sending call (`send_request("roots/list", …)`) with that method string (also
//!   through a `const` of the file);
//! - in JSON files, an object with `"method": "roots/list"` and an `id`.
//!
//! MRTR input requests (`InputRequest::ListRoots`, `"roots/list"` under `inputRequests`) are legal
//! and never fire.

use std::ops::Range;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{Expr, Member};

use crate::context::{Impact, Role, Sdk};
use crate::cx::{CrateCx, Cx, Origin};
use crate::json::{self, JsonKind, JsonNode, Step};
use crate::model::CrateModel;
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::requests::{
    REQUEST_VERBS, StrConst, collect_local_fns, collect_str_consts, request_value, resolve_str,
};
use crate::rust::syntax::{is_self, method_call_range, path_ends_with, rpc_type_path, str_value};
use crate::rust::visitor::reads_macro_body;

pub struct ServerRootsRequest;

/// The wire method this rule is about.
const METHOD: &str = "roots/list";

static META: RuleMeta = RuleMeta {
    name: "server-roots-request",
    summary: "Server code sends a `roots/list` request to the client (server-initiated requests were removed in MCP 2026-07-28)",
    impact: Impact::Removed,
    triggers: &["list_roots", "roots_list", "request_root_list", "request_client_roots", "roots/list", "ListRoots"],
    json_triggers: &["\"method\""],
    mcp_triggers: &[],
    // The crate's own helpers that make a parameter a request's method (`Request { method: m, id }`,
    // and `json!({"method": m, …})` below): their files feed the crate model (`model::requests`).
    crate_triggers: &["\\bmethod:"],
    help: Some(
        "return an `input_required` result with a `roots/list` input request instead (MRTR; rmcp >= 3.0: \
         `InputRequiredResult::from_input_requests` with `InputRequest::ListRoots`), or better, since roots are \
         deprecated, take the directory as an explicit tool parameter",
    ),
    fixable: true,
    doc: include_str!("../../rules/server-roots-request.md"),
};

/// The help for code that does not use rmcp, and for JSON files.
const WIRE_HELP: &str = "ask for roots in the tool's result instead: return an `input_required` result whose \
     `inputRequests` hold `{\"method\": \"roots/list\"}` (no `id`) and read the answer from the retry's \
     `inputResponses` (MRTR); better, since roots are deprecated, take the directory as an explicit tool parameter";

/// Reports a finding with the help that fits the code: rmcp's MRTR API for rmcp code, the wire
/// shape otherwise.
fn report<'d>(
    cx: &'d mut Cx,
    range: Range<usize>,
    message: impl Into<String>,
    label: impl Into<String>,
) -> &'d mut crate::diagnostic::Diagnostic {
    let rmcp = cx.origin == Origin::Rust && cx.uses_sdk(Sdk::Rmcp);
    let d = cx.report(&META, range, message, label);
    if !rmcp {
        d.help(WIRE_HELP);
    }
    d
}

/// An SDK method that sends `roots/list` to the client, with the SDKs that spell it so.
struct Spelling {
    name: &'static str,
    sdks: &'static [Sdk],
}

/// `Sdk::Other` (another crate with `mcp` in its name) is allowed for every spelling.
const SPELLINGS: &[Spelling] = &[
    // rmcp `Peer<RoleServer>::list_roots()`, turbomcp `list_roots(key)`, rust-mcp-sdk's deprecated
    // `list_roots(params)`, fastmcp-rust.
    Spelling { name: "list_roots", sdks: &[Sdk::Rmcp, Sdk::RustMcpSdk, Sdk::Turbomcp, Sdk::Fastmcp, Sdk::Other] },
    Spelling { name: "request_root_list", sdks: &[Sdk::RustMcpSdk, Sdk::Other] },
    Spelling { name: "roots_list", sdks: &[Sdk::McpAttr, Sdk::Other] },
    Spelling { name: "request_client_roots", sdks: &[Sdk::Pmcp, Sdk::Other] },
];

/// SDKs where servers receive `roots/list` from clients (ultrafast-mcp, turul): there a call or
/// message of unknown side is most likely the client's, which is another problem than this rule's.
const INVERTED_SDKS: &[Sdk] = &[Sdk::UltrafastMcp, Sdk::Turul];
const FORWARD_SDKS: &[Sdk] =
    &[Sdk::Rmcp, Sdk::RustMcpSdk, Sdk::Turbomcp, Sdk::Pmcp, Sdk::McpAttr, Sdk::Fastmcp, Sdk::Other];

/// What the rule learns about the file before the walk (see `rust_file`): facts the node hooks
/// need but cannot see. Kept in the file's `Cx` state.
#[derive(Default)]
struct FileFacts {
    /// `const`/`static` items whose value is `"roots/list"`.
    consts: Vec<StrConst>,
    /// Functions and methods the file defines itself (outside `impl ClientHandler`).
    local_fns: Vec<String>,
}

/// The shape of one call argument, as far as the spellings care.
enum Arg {
    Str,
    None,
    Other,
}

impl Rule for ServerRootsRequest {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        let mut facts = FileFacts::default();
        collect_str_consts(cx, &file.items, &|v| v == METHOD, &mut facts.consts);
        collect_local_fns(&file.items, &mut facts.local_fns);
        *cx.state::<FileFacts>() = facts;
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        // Macro bodies the engine cannot read as code (`tokio::select!` arms, `matches!` with a
        // guard) are scanned token by token here, one function body at a time.
        if cx.role() == Role::Client {
            return;
        }
        MacroWalker { cx }.visit_block(f.body);
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        if cx.role() == Role::Client {
            return;
        }
        if let Some(spelling) = SPELLINGS.iter().find(|s| s.name == name) {
            let args: Vec<Arg> = call.args.iter().map(|a| arg_shape(cx, a)).collect();
            if !is_self(&call.receiver) && spelling_fires(cx, spelling, &args) {
                report_spelling(cx, method_call_range(cx, call), name, !call.args.is_empty());
            }
        }
        if REQUEST_VERBS.contains(&name) && direction_fires(cx) {
            check_send_args(cx, call.args.iter());
        }
    }

    fn call(&self, cx: &mut Cx, call: &syn::ExprCall, callee: Option<&str>) {
        if !direction_fires(cx) {
            return;
        }
        let (Expr::Path(func), Some(last)) = (&*call.func, callee) else { return };
        let is = |names: &[&str]| names.contains(&last);
        // `send_request(&mut out, "roots/list", …)`, or a JSON-RPC request type's constructor
        // (`JsonRpcRequest::new(7, "roots/list", None)`).
        if is(REQUEST_VERBS) || (is(&["new", "request", "new_request"]) && rpc_type_path(&func.path)) {
            check_send_args(cx, call.args.iter());
        }
    }

    fn expr_path(&self, cx: &mut Cx, path: &syn::ExprPath) {
        // In expression position only: a client matching on `ServerRequest::ListRootsRequest(_)`
        // to answer it is a pattern, and `InputRequest::ListRoots` is the legal MRTR form.
        if !is_server_list_roots(&path.path) || !direction_fires(cx) {
            return;
        }
        let range = cx.node_range(path);
        let shown = cx.text(range.clone()).to_owned();
        report(
            cx,
            range,
            format!(
                "`{shown}` is a server-to-client `roots/list` request; server-initiated requests were removed in MCP 2026-07-28"
            ),
            "a request from the server to the client",
        );
    }

    fn struct_lit(&self, cx: &mut Cx, lit: &syn::ExprStruct) {
        // A hand-rolled request struct: `JsonRpcRequest { id, method: "roots/list".into(), .. }`,
        // unless handed to the process's own handler (`client.handle_server_request(..)`): received.
        if !direction_fires(cx) || cx.received() {
            return;
        }
        let field = |name: &str| lit.fields.iter().find(|f| matches!(&f.member, Member::Named(i) if i == name));
        let (Some(method), Some(id)) = (field("method"), field("id")) else { return };
        if crate::rust::requests::is_message_record(lit) {
            return;
        }
        if let Some((range, defined)) = method_value(cx, &method.expr) {
            let id_range = cx.node_range(id);
            report_request_object(cx, range, id_range, defined);
        }
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        if cx.origin == Origin::Rust && (!direction_fires(cx) || cx.received()) {
            return;
        }
        check_json_object(cx, node, path);
    }

    fn uses_model(&self) -> bool {
        true
    }

    /// `"roots/list"` handed to the crate's own function that sends it as a request
    /// (`self.ask_client("roots/list")`); calls named like a sending verb were reported by
    /// `check_send_args` already.
    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        for sent in model.sent_method_literals() {
            if sent.method != METHOD
                || model.role(sent.caller) == Role::Client
                || REQUEST_VERBS.contains(&model.func(sent.callee).name.as_str())
            {
                continue;
            }
            let (file, via) = (model.file_of(sent.caller), sent.via(model, cx));
            let crate_ctx = cx.files[file].crate_ctx;
            let inverted = INVERTED_SDKS.iter().any(|s| crate_ctx.uses(*s));
            if inverted && !FORWARD_SDKS.iter().any(|s| crate_ctx.uses(*s)) {
                continue;
            }
            let rmcp = crate_ctx.uses(Sdk::Rmcp);
            let d = cx.report(
                &META,
                file,
                sent.range.clone(),
                format!(
                    "the server sends a `roots/list` request to the client: {via}; server-initiated requests were removed in MCP 2026-07-28"
                ),
                "sent as a JSON-RPC request to the client",
            );
            if !rmcp {
                d.help(WIRE_HELP);
            }
        }
    }
}

fn is_server_list_roots(path: &syn::Path) -> bool {
    path_ends_with(path, &["ServerRequest", "ListRootsRequest"])
        || path_ends_with(path, &["ServerRequest", "ListRoots"])
}

fn arg_shape(cx: &Cx, expr: &Expr) -> Arg {
    if str_value(cx, expr).is_some() {
        Arg::Str
    } else if matches!(expr, Expr::Path(p) if p.path.is_ident("None")) {
        Arg::None
    } else {
        Arg::Other
    }
}

/// Whether code of this role and SDK calling `spelling` with these arguments sends `roots/list`.
fn spelling_fires(cx: &Cx, spelling: &Spelling, args: &[Arg]) -> bool {
    let arity_ok = match spelling.name {
        // rmcp's `list_roots()` takes nothing; turbomcp's takes the input-request key and the
        // deprecated rust-mcp-sdk one optional params. rmcp's `ClientHandler::list_roots(context)`
        // (one non-literal argument) is the client answering, not a request.
        "list_roots" => match args {
            [] => true,
            [Arg::Str | Arg::None] => true,
            [Arg::Other] => cx.uses_sdk(Sdk::Turbomcp) || cx.uses_sdk(Sdk::RustMcpSdk),
            _ => false,
        },
        "roots_list" => args.is_empty(),
        _ => args.len() <= 1,
    };
    if !arity_ok {
        return false;
    }
    let sdk_known = !cx.file_sdks.is_empty() || !cx.crate_ctx.sdks.is_empty();
    let name = spelling.name.to_owned();
    if !sdk_known {
        // No MCP SDK in sight: only code that is a server for sure, and not a call of the file's
        // own function of that name (its body is checked on its own).
        return cx.role() == Role::Server && !cx.state_ref::<FileFacts>().is_some_and(|f| f.local_fns.contains(&name));
    }
    spelling.sdks.iter().any(|s| cx.uses_sdk(*s))
}

/// Whether server-or-unknown code here sends what it builds to the client. Client code never does
/// (for this rule), and code of unknown side in a crate that only uses an SDK where clients send
/// `roots/list` (ultrafast-mcp, turul) is presumed client code.
fn direction_fires(cx: &Cx) -> bool {
    match cx.role() {
        Role::Client => false,
        Role::Server => true,
        Role::Unknown => {
            let inverted = INVERTED_SDKS.iter().any(|s| cx.uses_sdk(*s));
            !inverted || FORWARD_SDKS.iter().any(|s| cx.uses_sdk(*s))
        }
    }
}

fn report_spelling(cx: &mut Cx, range: Range<usize>, name: &str, has_args: bool) {
    let args = if has_args { "…" } else { "" };
    report(
        cx,
        range,
        format!(
            "`{name}({args})` sends a `roots/list` request from the server to the client; server-initiated requests were removed in MCP 2026-07-28"
        ),
        "sends `roots/list` to the client",
    );
}

/// The `"roots/list"` literal an expression stands for (`"roots/list"`, `"roots/list".into()`,
/// or a path to a const of this file holding it): its range, and the const's literal if any.
fn method_value(cx: &Cx, expr: &Expr) -> Option<(Range<usize>, Option<Range<usize>>)> {
    let consts = cx.state_ref::<FileFacts>().map_or(&[][..], |f| &f.consts[..]);
    let (value, range, defined) = resolve_str(cx, expr, consts)?;
    (value == METHOD).then_some((range, defined))
}

/// Arguments of a request-sending call: the `"roots/list"` method string, or a `ListRootsRequest`
/// value (`peer.send_request(ListRootsRequest::default().into())`).
fn check_send_args<'a>(cx: &mut Cx, args: impl Iterator<Item = &'a Expr>) {
    for arg in args {
        if let Some((range, defined)) = method_value(cx, arg) {
            let d = report(
                cx,
                range,
                "the server sends a `roots/list` request to the client; server-initiated requests were removed in MCP 2026-07-28",
                "sent as a JSON-RPC request to the client",
            );
            if let Some(defined) = defined {
                d.label(defined, "the method name is defined here");
            }
        } else if let Some(range) = list_roots_request_value(cx, arg) {
            report(
                cx,
                range,
                "the server sends a `ListRootsRequest` to the client; server-initiated requests were removed in MCP 2026-07-28",
                "sent as a request to the client",
            );
        }
    }
}

/// `ListRootsRequest::default()`, `ListRootsRequest { .. }`, through `.into()` or
/// `ServerRequest::from(..)`; not `ServerRequest::ListRootsRequest(..)`, which `expr_path` reports.
fn list_roots_request_value(cx: &Cx, expr: &Expr) -> Option<Range<usize>> {
    let names_type = |path: &syn::Path| {
        (path.segments.iter().any(|s| s.ident == "ListRootsRequest")
            && !path_ends_with(path, &["ServerRequest", "ListRootsRequest"]))
        .then_some(())
    };
    request_value(cx, expr, &names_type).map(|((), range)| range)
}

fn report_request_object(cx: &mut Cx, method: Range<usize>, id: Range<usize>, defined: Option<Range<usize>>) {
    let d = report(
        cx,
        method,
        "a `roots/list` JSON-RPC request from the server to the client; server-initiated requests were removed in MCP 2026-07-28",
        "`roots/list` as a request",
    );
    d.label(id, "a JSON-RPC id makes this a request the server sends");
    if let Some(defined) = defined {
        d.label(defined, "the method name is defined here");
    }
}

/// An object with `"method": "roots/list"` and an `id`, not under `inputRequests` (MRTR input
/// requests are legal and carry no id anyway).
fn check_json_object(cx: &mut Cx, node: &JsonNode, path: &[Step]) {
    let Some(method) = node.member("method") else { return };
    let Some(id) = node.member("id") else { return };
    if path.contains(&Step::Key("inputRequests")) {
        return;
    }
    let found = match &method.value.kind {
        JsonKind::String(s) if s == METHOD && cx.text(method.value.range.clone()).contains(METHOD) => {
            Some((method.value.range.clone(), None))
        }
        // `"method": ROOTS_LIST` or `"method": "roots/list".to_string()` inside `json!`.
        JsonKind::Expr(tokens) => syn::parse2::<Expr>(tokens.clone()).ok().and_then(|e| method_value(cx, &e)),
        _ => None,
    };
    if let Some((range, defined)) = found {
        report_request_object(cx, range, id.range.clone(), defined);
    }
}

/// Walks one function body for macros whose bodies the engine's visitor cannot read as code, and
/// scans their tokens. Nested items are left alone: the visitor offers them to `rust_fn` itself.
struct MacroWalker<'c, 'a> {
    cx: &'c mut Cx<'a>,
}

impl<'ast> Visit<'ast> for MacroWalker<'_, '_> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if !mentions_candidate(&m.tokens) {
            return;
        }
        if reads_macro_body(self.cx, m, &name) {
            return;
        }
        scan_tokens(self.cx, m.tokens.clone());
    }
}

/// A cheap look before parsing: any identifier or literal this rule could fire on.
fn mentions_candidate(tokens: &TokenStream) -> bool {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) => {
                let s = i.to_string();
                if SPELLINGS.iter().any(|sp| sp.name == s) || s == "json" || s == "ServerRequest" {
                    return true;
                }
            }
            Some(TokenTree::Literal(l)) if l.to_string().contains(METHOD) => return true,
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    false
}

/// Scans a macro body that is not Rust code as written (`tokio::select!` arms): `.list_roots()`-style
/// calls, request-sending calls with a `"roots/list"` argument, `ServerRequest::ListRoots…`, and
/// `json!` bodies.
fn scan_tokens(cx: &mut Cx, tokens: TokenStream) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => scan_tokens(cx, g.stream()),
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                let prev_dot = i >= 1 && is_punct(&tts[i - 1], '.');
                let paren = match tts.get(i + 1) {
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => Some(g),
                    _ => None,
                };
                if let Some(g) = paren {
                    let args = split_args(g.stream());
                    if prev_dot && let Some(spelling) = SPELLINGS.iter().find(|s| s.name == name) {
                        let receiver_self = i >= 2
                            && matches!(&tts[i - 2], TokenTree::Ident(r) if r == "self")
                            && !(i >= 3 && is_punct(&tts[i - 3], '.'));
                        let shapes: Vec<Arg> = args.iter().map(|a| token_arg_shape(a)).collect();
                        if !receiver_self && spelling_fires(cx, spelling, &shapes) {
                            let range = cx.join(ident.span(), g.span_close());
                            report_spelling(cx, range, &name, !args.is_empty());
                        }
                    }
                    if REQUEST_VERBS.contains(&name.as_str()) && direction_fires(cx) {
                        for arg in &args {
                            if let Ok(expr) = syn::parse2::<Expr>(arg.iter().cloned().collect()) {
                                check_send_args(cx, std::iter::once(&expr));
                            }
                        }
                    }
                }
                if name == "ServerRequest"
                    && direction_fires(cx)
                    && is_punct_pair(&tts, i + 1, ':')
                    && matches!(tts.get(i + 3), Some(TokenTree::Ident(v)) if v == "ListRootsRequest" || v == "ListRoots")
                    && !(i >= 1 && is_punct(&tts[i - 1], ':'))
                {
                    let last = &tts[i + 3];
                    let range = cx.join(ident.span(), last.span());
                    let shown = cx.text(range.clone()).to_owned();
                    report(
                        cx,
                        range,
                        format!(
                            "`{shown}` is a server-to-client `roots/list` request; server-initiated requests were removed in MCP 2026-07-28"
                        ),
                        "a request from the server to the client",
                    );
                }
                if name == "json"
                    && direction_fires(cx)
                    && matches!(tts.get(i + 1), Some(t) if is_punct(t, '!'))
                    && let Some(TokenTree::Group(body)) = tts.get(i + 2)
                    && let Some(root) = json::macro_body::parse_json_macro(body.stream(), &|s| cx.span_range(s))
                {
                    json::walk(&root, |node, path| check_json_object(cx, node, path));
                }
            }
            _ => {}
        }
    }
}

fn is_punct(tt: &TokenTree, c: char) -> bool {
    matches!(tt, TokenTree::Punct(p) if p.as_char() == c)
}

/// `::` at `tts[i..i + 2]`.
fn is_punct_pair(tts: &[TokenTree], i: usize, c: char) -> bool {
    matches!(tts.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c && p.spacing() == Spacing::Joint)
        && matches!(tts.get(i + 1), Some(t) if is_punct(t, c))
}

/// A parenthesized argument list split at its top-level commas (empty arguments dropped).
fn split_args(stream: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut out = vec![Vec::new()];
    for tt in stream {
        if is_punct(&tt, ',') {
            out.push(Vec::new());
        } else {
            out.last_mut().unwrap().push(tt);
        }
    }
    out.retain(|a| !a.is_empty());
    out
}

fn token_arg_shape(arg: &[TokenTree]) -> Arg {
    match arg {
        [TokenTree::Literal(l)] if matches!(syn::Lit::new(l.clone()), syn::Lit::Str(_)) => Arg::Str,
        [TokenTree::Ident(i)] if i == "None" => Arg::None,
        _ => Arg::Other,
    }
}

#[cfg(test)]
mod tests {

    fn findings(name: &str, text: &str) -> Vec<(usize, String)> {
        crate::rules::test_support::spans_of("server-roots-request", name, text)
    }

    fn check(text: &str) -> Vec<String> {
        findings("lib.rs", text).into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn spans_cover_the_call_not_the_receiver() {
        let text = "use rmcp::service::{Peer, RoleServer};\n\
                    async fn dirs(peer: &Peer<RoleServer>) { let r = peer.list_roots().await; }\n";
        assert_eq!(check(text), ["list_roots()"]);
    }

    #[test]
    fn client_code_and_definitions_are_silent() {
        let text = "use rmcp::ClientHandler;\n\
                    impl ClientHandler for C { async fn list_roots(&self, cx: RequestContext<RoleClient>) -> R { todo!() } }\n";
        assert!(check(text).is_empty());
    }

    #[test]
    fn unknown_role_needs_an_sdk() {
        // A filesystem helper in a crate with no MCP SDK is not a peer.
        assert!(check("fn f(fs: &Fs) { let r = fs.list_roots(); }\n").is_empty());
        assert_eq!(check("use rmcp::model::Root;\nfn f(p: &P) { let r = p.list_roots(); }\n"), ["list_roots()"]);
        // A self call is the type's own method.
        assert!(check("use rmcp::model::Root;\nimpl S { fn f(&self) { self.list_roots(); } }\n").is_empty());
    }

    #[test]
    fn hand_rolled_server_calling_its_own_helper() {
        let text = "struct McpServer;\n\
                    impl McpServer {\n\
                      fn list_roots(&mut self) { self.write(serde_json::json!({\"id\": 1, \"method\": \"roots/list\"})); }\n\
                      fn run(&mut self, s: &mut McpServer) { s.list_roots(); }\n\
                    }\n";
        assert_eq!(check(text), ["\"roots/list\""]);
    }

    #[test]
    fn send_calls_and_consts() {
        let text = "use rmcp::RoleServer;\n\
                    const ROOTS: &str = \"roots/list\";\n\
                    async fn f(c: &Conn<RoleServer>) {\n\
                      c.send_request(\"roots/list\", serde_json::json!({})).await;\n\
                      c.send_request(ROOTS, None).await;\n\
                      tracing::info!(\"sending roots/list\");\n\
                      if c.method == \"roots/list\" {}\n\
                    }\n";
        assert_eq!(check(text), ["\"roots/list\"", "ROOTS"]);
    }

    #[test]
    fn mrtr_input_requests_are_legal() {
        let text = "use rmcp::model::*;\n\
                    #[tool_router] impl S { async fn t(&self) {\n\
                      let a = InputRequest::ListRoots(ListRootsRequest::default());\n\
                      let b = serde_json::json!({\"resultType\": \"input_required\", \"inputRequests\": {\"r\": {\"method\": \"roots/list\", \"id\": 1}}});\n\
                    } }\n";
        assert!(check(text).is_empty());
    }

    #[test]
    fn select_arms_are_scanned_once() {
        let text = "use rmcp::service::{Peer, RoleServer};\n\
                    async fn f(peer: Peer<RoleServer>) {\n\
                      tokio::select! { r = peer.list_roots() => {}, _ = sleep() => {} }\n\
                      let ok = matches!(peer.list_roots().await, Ok(r) if r.roots.is_empty());\n\
                      println!(\"{:?}\", peer.list_roots().await);\n\
                    }\n";
        assert_eq!(check(text), ["list_roots()", "list_roots()", "list_roots()"]);
    }

    #[test]
    fn matches_patterns_are_not_requests() {
        let text = "use rmcp::model::ServerRequest;\n\
                    fn f(r: &ServerRequest) -> bool {\n\
                      assert!(matches!(r, ServerRequest::ListRootsRequest(_)), \"roots\");\n\
                      matches!(r, ServerRequest::ListRootsRequest(..))\n\
                    }\n\
                    fn g() -> ServerRequest { ServerRequest::ListRootsRequest(Default::default()) }\n";
        assert_eq!(check(text), ["ServerRequest::ListRootsRequest"]);
    }

    #[test]
    fn inverted_sdks_are_client_code() {
        let text = "use ultrafast_mcp_client::UltraFastClient;\n\
                    async fn f(c: &UltraFastClient) { c.send_request(\"roots/list\", None).await; c.list_roots().await; }\n";
        assert!(check(text).is_empty());
    }

    #[test]
    fn json_file_request_with_id() {
        let text = "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"roots/list\"}\n";
        assert_eq!(findings("req.json", text), [(1, "\"roots/list\"".to_owned())]);
        let mrtr = "{\"resultType\": \"input_required\", \"inputRequests\": {\"r\": {\"method\": \"roots/list\"}}}\n";
        assert!(findings("mrtr.json", mrtr).is_empty());
        let escaped = "{\"id\": 3, \"method\": \"roots\\/list\"}\n";
        assert!(findings("esc.json", escaped).is_empty());
    }
}
