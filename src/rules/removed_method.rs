//! `removed-method`: handling or sending a JSON-RPC method that MCP 2026-07-28 removed:
//! `initialize` and `notifications/initialized` (C01), `ping` (C10), `logging/setLevel` (C11),
//! `resources/subscribe` / `resources/unsubscribe` (C13), `tasks/result` / `tasks/list` (C14: not
//! in the tasks extension either) and `notifications/elicitation/complete` (C15).
//!
//! Shapes, each from its own hook:
//! - handler overrides: rmcp `ServerHandler::{initialize, on_initialized, ping, set_level,
//!   subscribe, unsubscribe, list_tasks, get_task_result}`, `ClientHandler::ping`, rust-mcp-sdk's
//!   `handle_initialize_request`, `handle_ping_request`, … (`rust_fn`);
//! - the crate's own trait methods such an override hands its request on to, declarations and impls
//!   (`rust_crate`, asking `model::delegation`);
//! - wire strings: the distinctive ones (`"logging/setLevel"`, …) wherever they are a whole string
//!   literal (`lit_str`); the generic words `"initialize"` and `"ping"` only where they are a
//!   method: a `match` arm or comparison on a method, an argument of a sending or registering call,
//!   a `method:` field (`rust_fn` walk, `method_call`, `call`, `struct_lit`);
//! - JSON (files and `json!` bodies): `"method": "<removed>"` (`json_node`);
//! - the crate model (`rust_crate`): a method literal handed to a crate function that makes it a
//!   request's method, and a trait const's value in an impl when a generic function sends that
//!   const as a request's method (`model::senders::trait_const_methods`);
//! - SDK names: `ClientRequest::InitializeRequest`, `ClientRequest::PingRequest`,
//!   `ClientNotification::InitializedNotification`, … in expressions and patterns, rmcp client calls
//!   `notify_initialized()`, `set_level(SetLevelRequestParams ..)`, `subscribe(SubscribeRequestParams ..)`.
//!
//! Not this rule's: a `ping` request that server code sends (`server-initiated-request`);
//! `notifications/roots/list_changed` (`roots-list-changed`). A `match` arm or `if` whose body only
//! rejects the method (`"initialize" => Err(…)`) is the migrated behaviour and stays silent.

use std::collections::HashSet;
use std::ops::Range;

use proc_macro2::TokenStream;
use syn::visit::{self, Visit};
use syn::{Expr, Member};

use crate::context::{Impact, Role, Sdk, is_mcp_code};
use crate::cx::{CrateCx, Cx, Origin};
use crate::json::{JsonKind, JsonNode, Step, jsonrpc};
use crate::model::delegation::delegated;
use crate::model::handlers::has_mcp_prefix;
use crate::model::{CrateModel, HandlerKind};
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::quoted::is_removal_pattern;
use crate::rust::rejects::{block_rejects, expr_rejects, is_label, strip};
use crate::rust::requests::{
    Resolved, StrConst, collect_str_consts, is_send_verb, pattern_strs, peer_like_receiver, record_peer_params,
    resolve_str,
};
use crate::rust::syntax::{
    is_self, mentions_method, method_call_range, path_ends_with, pattern_paths, rpc_type_path, tokens_mention_any,
};

mod gates;
mod methods;

use methods::{PING, Removed, SDK_ENUMS, VARIANTS, removed};

pub struct RemovedMethod;

static META: RuleMeta = RuleMeta {
    name: "removed-method",
    summary: "Handling or sending a method MCP 2026-07-28 removed: `initialize`, `notifications/initialized`, `ping`, `logging/setLevel`, `resources/(un)subscribe`, `tasks/result`, `tasks/list`, `notifications/elicitation/complete`",
    impact: Impact::Removed,
    // Wire strings (quoted for the generic words), SDK type and variant names, rmcp client calls,
    // and the handler traits whose overrides this rule reads.
    triggers: &[
        "notifications/initialized",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
        "notifications/elicitation/complete",
        "InitializeRequest",
        "InitializedNotification",
        "PingRequest",
        "SetLevelRequest",
        "SubscribeRequest",
        "UnsubscribeRequest",
        // pmcp-style short variants (`ClientNotification::Initialized`, `ClientRequest::Ping`),
        // always written with their enum (see `VARIANTS`).
        "Request::Initialize",
        "Notification::Initialized",
        "Request::Ping",
        "Request::SetLevel",
        "Request::Subscribe",
        "Request::Unsubscribe",
        "ListTasksRequest",
        "GetTaskPayloadRequest",
        "ElicitationComplet",
        "notify_initialized",
        "elicitation_complet",
        "ServerHandler",
        "ClientHandler",
    ],
    json_triggers: &["\"method\""],
    // The generic words fire only with `has_evidence` (LSP has `initialize` and `ping` too).
    mcp_triggers: &["\"initialize\"", "\"ping\""],
    // The crate's own helpers that make a parameter a request's method (`Request { method: m, id }`,
    // and `json!({"method": m, …})` below): their files feed the crate model (`model::requests`).
    // Code that turns requests away until the handshake is done says so (`if !self.initialized`,
    // "no handshake yet"): handshake gates (`gates`, `init_gates::GATE_WORDS`).
    crate_triggers: &["\\bmethod:", "not initialized", "Not initialized", ".initialized", "handshake"],
    help: None,
    fixable: false,
    doc: include_str!("../../rules/removed-method.md"),
};

/// Calls that register a handler for a method name (`router.on_request("initialize", …)`).
const REGISTER_VERBS: &[&str] = &[
    "on",
    "on_request",
    "on_notification",
    "register",
    "register_handler",
    "add_handler",
    "route",
    "handle",
    "method",
];

/// rmcp / rust-mcp-sdk parameter types that make a client call the SDK's.
const SET_LEVEL_PARAMS: &[&str] = &["SetLevelRequestParam", "SetLevelRequestParams", "LoggingLevel"];
const SUBSCRIBE_PARAMS: &[&str] =
    &["SubscribeRequestParam", "SubscribeRequestParams", "UnsubscribeRequestParam", "UnsubscribeRequestParams"];

/// What the rule learns about a file: consts holding a removed method, literals in code that
/// rejects the method (not reported), whether the file is MCP code.
#[derive(Default)]
struct FileFacts {
    consts: Vec<StrConst>,
    rejected: HashSet<usize>,
    evidence: Option<bool>,
}

impl Rule for RemovedMethod {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        let mut consts = Vec::new();
        collect_str_consts(cx, &file.items, &|v| removed(v).is_some(), &mut consts);
        cx.state::<FileFacts>().consts = consts;
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        record_peer_params(cx, f);
        let consts = cx.state_ref::<FileFacts>().map(|s| s.consts.clone()).unwrap_or_default();
        let mut walk = BodyWalk { cx, consts };
        walk.visit_block(f.body);
    }

    fn uses_model(&self) -> bool {
        true
    }

    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        handler_overrides(cx, model);
        delegated_handlers(cx, model);
        sent_through_helpers(cx, model);
        trait_const_methods(cx, model);
        gates::handshake_gates(cx, model);
        arms_on_other_files_consts(cx, model);
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        if is_send_verb(name) {
            check_args(cx, call.args.iter(), false);
        } else if REGISTER_VERBS.contains(&name) {
            check_args(cx, call.args.iter(), true);
        }
        if is_self(&call.receiver) {
            return;
        }
        let mentions =
            |types: &[&str]| call.args.iter().any(|a| tokens_mention_any(&quote::ToTokens::to_token_stream(a), types));
        let sdk = cx.uses_sdk(Sdk::Rmcp) || cx.uses_sdk(Sdk::RustMcpSdk) || cx.uses_sdk(Sdk::Other);
        let method = match name {
            // rmcp `Peer<RoleClient>::notify_initialized()`.
            "notify_initialized" if call.args.is_empty() && (sdk || cx.role() != Role::Unknown) => {
                "notifications/initialized"
            }
            // rmcp `Peer<RoleClient>::set_level(SetLevelRequestParams { level })`.
            "set_level" if call.args.len() == 1 && sdk && cx.role() != Role::Server && mentions(SET_LEVEL_PARAMS) => {
                "logging/setLevel"
            }
            "subscribe" | "unsubscribe"
                if call.args.len() == 1 && sdk && cx.role() != Role::Server && mentions(SUBSCRIBE_PARAMS) =>
            {
                if name == "subscribe" { "resources/subscribe" } else { "resources/unsubscribe" }
            }
            // A server telling the client that a URL-mode elicitation finished.
            n if n.starts_with("notify_")
                && n.contains("elicitation_complet")
                && (sdk || peer_like_receiver(cx, &call.receiver)) =>
            {
                "notifications/elicitation/complete"
            }
            _ => return,
        };
        let range = method_call_range(cx, call);
        report(cx, range, method, format!("`{name}(…)` sends `{method}`"), "sends a removed method");
    }

    fn call(&self, cx: &mut Cx, call: &syn::ExprCall, callee: Option<&str>) {
        let (Expr::Path(func), Some(last)) = (&*call.func, callee) else { return };
        let is = |names: &[&str]| names.contains(&last);
        if is_send_verb(last) || (is(&["new", "request", "new_request", "notification"]) && rpc_type_path(&func.path)) {
            check_args(cx, call.args.iter(), false);
        } else if is(REGISTER_VERBS) {
            check_args(cx, call.args.iter(), true);
        }
    }

    fn expr_path(&self, cx: &mut Cx, path: &syn::ExprPath) {
        sdk_variant(cx, &path.path, false);
    }

    fn pat_path(&self, cx: &mut Cx, path: &syn::Path) {
        sdk_variant(cx, path, true);
    }

    fn struct_lit(&self, cx: &mut Cx, lit: &syn::ExprStruct) {
        // A hand-rolled message: `Request { method: "initialize".into(), .. }`.
        let field = |name: &str| lit.fields.iter().find(|f| matches!(&f.member, Member::Named(i) if i == name));
        let Some(method) = field("method") else { return };
        // A log entry about a message (`SessionMessage { method, level, timestamp, .. }`).
        if crate::rust::requests::is_message_record(lit) {
            return;
        }
        let consts = cx.state_ref::<FileFacts>().map(|s| s.consts.clone()).unwrap_or_default();
        let Some((value, range, defined)) = resolve_str(cx, &method.expr, &consts) else { return };
        let Some(r) = removed(&value) else { return };
        // Distinctive strings are reported by `lit_str` wherever they are (a const's at its literal).
        if !r.generic {
            return;
        }
        // The server's own ping is `server-initiated-request`'s; a test's goes to the server under test.
        if r.wire == PING && field("id").is_some() && cx.role() == Role::Server && !cx.in_test_code(&range) {
            return;
        }
        report_str(cx, r, range, defined, "used as a message's method");
    }

    fn lit_str(&self, cx: &mut Cx, lit: &syn::LitStr, value: &str) {
        let Some(r) = removed(value) else { return };
        if r.generic {
            return;
        }
        let range = cx.node_range(lit);
        if !cx.text(range.clone()).contains(r.wire) || rejected(cx, &range) {
            return;
        }
        report_str(cx, r, range, None, "a removed method");
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        let Some(method) = node.member("method") else { return };
        // An input request named `ping` is `input-required-misuse`'s. In code, a `method` among a
        // record's own fields (a tool's `json!({"host": "a", "method": "ping"})`) names no message;
        // JSON files keep them, where a transcript's wrapper may sit beside the method.
        if path.contains(&Step::Key("inputRequests")) || (cx.origin == Origin::Rust && jsonrpc::method_is_a_field(node))
        {
            return;
        }
        let JsonKind::String(value) = &method.value.kind else { return };
        let Some(r) = removed(value) else { return };
        let range = method.value.range.clone();
        if !cx.text(range.clone()).contains(r.wire) {
            return;
        }
        if cx.origin == Origin::Rust
            && r.wire == PING
            && node.member("id").is_some()
            && cx.role() == Role::Server
            && !cx.in_test_code(&range)
        {
            return; // the server's own ping: `server-initiated-request`
        }
        report_str(cx, r, range, None, "a removed method");
    }
}

/// Whether the file is MCP code, for the methods that need evidence (computed once).
fn has_evidence(cx: &mut Cx) -> bool {
    if let Some(known) = cx.state::<FileFacts>().evidence {
        return known;
    }
    let known = !cx.file_sdks.is_empty() || is_mcp_code(&cx.file.text, cx.crate_ctx, cx.file_role);
    cx.state::<FileFacts>().evidence = Some(known);
    known
}

fn rejected(cx: &Cx, range: &Range<usize>) -> bool {
    cx.state_ref::<FileFacts>().is_some_and(|f| f.rejected.contains(&range.start))
}

fn report(cx: &mut Cx, range: Range<usize>, method: &str, what: String, label: &str) {
    let Some(r) = removed(method) else { return };
    // Named in an assertion, a refusal or a list of what was removed (`rust::quoted`).
    if cx.quoted() || r.needs_evidence && !has_evidence(cx) {
        return;
    }
    let kind = if method.starts_with("notifications/") { "notification" } else { "method" };
    cx.report(&META, range, format!("{what}; the `{method}` {kind} was removed in MCP 2026-07-28"), label).help(r.help);
}

fn report_str(cx: &mut Cx, r: &Removed, range: Range<usize>, defined: Option<Range<usize>>, label: &str) {
    if cx.quoted() || r.needs_evidence && !has_evidence(cx) {
        return;
    }
    let kind = if r.wire.starts_with("notifications/") { "notification" } else { "method" };
    let d = cx.report(&META, range, format!("the `{}` {kind} was removed in MCP 2026-07-28", r.wire), label);
    d.help(r.help);
    if let Some(defined) = defined {
        d.label(defined, "the method name is defined here");
    }
}

/// Arguments of a sending or (`registering`) handler-registering call: a removed method's string
/// (the generic words here; distinctive literals are `lit_str`'s), or a `const` of the file
/// holding one.
fn check_args<'a>(cx: &mut Cx, args: impl Iterator<Item = &'a Expr>, registering: bool) {
    let consts = cx.state_ref::<FileFacts>().map(|s| s.consts.clone()).unwrap_or_default();
    for arg in args {
        let Some((value, range, defined)) = resolve_str(cx, arg, &consts) else { continue };
        let Some(r) = removed(&value) else { continue };
        // Distinctive strings are `lit_str`'s (a const's at its literal).
        if !r.generic || rejected(cx, &range) {
            continue;
        }
        // A `ping` sent by server code is `server-initiated-request`'s; a test's goes to the
        // server under test.
        if r.wire == PING && cx.role() == Role::Server && !registering && !cx.in_test_code(&range) {
            continue;
        }
        let label = if registering { "a handler registered for a removed method" } else { "sent as a method" };
        report_str(cx, r, range, defined, label);
    }
}

/// `ClientRequest::InitializeRequest`, `ClientNotification::InitializedNotification`, … built
/// (a client sending) or matched (a server handling); `ServerRequest::PingRequest` only matched
/// (a client answering the server's ping; building one is `server-initiated-request`'s).
fn sdk_variant(cx: &mut Cx, path: &syn::Path, pattern: bool) {
    // Every path offered comes here: most are one segment, or name no SDK enum.
    let n = path.segments.len();
    let named_enum = n >= 2 && {
        let e = &path.segments[n - 2].ident;
        SDK_ENUMS.iter().any(|name| e == name)
    };
    if !named_enum {
        return;
    }
    let hit = VARIANTS.iter().find(|(e, v, _)| path_ends_with(path, &[e, v])).map(|(_, _, m)| *m);
    let method = match hit {
        Some(m) => m,
        None if pattern
            && (path_ends_with(path, &["ServerRequest", "PingRequest"])
                || path_ends_with(path, &["ServerRequest", "Ping"])) =>
        {
            PING
        }
        None => return,
    };
    let range = cx.node_range(path);
    if pattern && rejected(cx, &range) {
        return;
    }
    let shown = cx.text(range.clone()).split_whitespace().collect::<String>();
    let label = if pattern { "handles a removed method" } else { "sends a removed method" };
    report(cx, range, method, format!("`{shown}` is `{method}`"), label);
}

/// An override of a handler-trait method that answers a removed method, unless it only rejects
/// it (the model's handler table, `model::handlers`).
fn handler_overrides(cx: &mut CrateCx, model: &CrateModel) {
    for h in model.handlers().iter().filter(|h| h.kind == HandlerKind::Override) {
        let Some(r) = removed(&h.method) else { continue };
        let f = model.func(h.fn_);
        if f.rejects {
            continue;
        }
        let file = model.file_of(h.fn_);
        if r.needs_evidence && !is_mcp_code(&cx.files[file].file.text, cx.files[file].crate_ctx, model.files[file].role)
        {
            continue;
        }
        let trait_name = model.impl_of(h.fn_).and_then(|i| i.trait_.as_deref()).unwrap_or_default();
        let (name, method) = (&f.name, &h.method);
        // A notification gets no answer: its handler handles it.
        let (kind, verb) =
            if method.starts_with("notifications/") { ("notification", "handles") } else { ("method", "answers") };
        cx.report(
            &META,
            file,
            f.name_range.clone(),
            format!("`{trait_name}::{name}` {verb} `{method}`; the `{method}` {kind} was removed in MCP 2026-07-28"),
            "never called by 2026-07-28 peers",
        )
        .help(r.help);
    }
}

/// A dispatcher arm on a const of another file (`methods::INITIALIZE => ..`, the const in
/// `protocol.rs`): the file's own walk sees only its own consts. Distinctive methods are reported
/// at the const's literal (`lit_str`); the common words here, at the arm's pattern.
fn arms_on_other_files_consts(cx: &mut CrateCx, model: &CrateModel) {
    for arm in &model.const_arms {
        let file = model.file_of(arm.fn_);
        let Some(r) = removed(&arm.method) else { continue };
        if arm.const_file == file || arm.rejects || !r.generic {
            continue;
        }
        if r.needs_evidence && !is_mcp_code(&cx.files[file].file.text, cx.files[file].crate_ctx, model.files[file].role)
        {
            continue;
        }
        let defined = cx.place(arm.const_file, arm.literal.start);
        let kind = if arm.method.starts_with("notifications/") { "notification" } else { "method" };
        cx.report(
            &META,
            file,
            arm.pat.clone(),
            format!("the `{}` {kind} was removed in MCP 2026-07-28 (the const's value, at {defined})", r.wire),
            "matched as a method",
        )
        .help(r.help);
    }
}

/// A trait method of the crate that a handler override hands its request on to (the provider
/// behind `ServerHandler::subscribe`): its declaration and every impl answer the same method
/// (`model::delegation`), unless they only reject it.
fn delegated_handlers(cx: &mut CrateCx, model: &CrateModel) {
    for d in delegated(model) {
        let Some(r) = removed(&d.method) else { continue };
        let h = model.func(d.handler);
        if h.rejects {
            continue;
        }
        let hfile = model.file_of(d.handler);
        if r.needs_evidence
            && !is_mcp_code(&cx.files[hfile].file.text, cx.files[hfile].crate_ctx, model.files[hfile].role)
        {
            continue;
        }
        let handler_trait = model.impl_of(d.handler).and_then(|i| i.trait_.as_deref()).unwrap_or_default();
        let at = cx.place(hfile, h.name_range.start);
        let (t, m, method) = (&d.trait_name, &d.trait_method, &d.method);
        let whose = match d.impl_self.as_deref() {
            Some(ty) if d.blanket => format!(" of the blanket impl for `{ty}`"),
            Some(ty) => format!(" of `{ty}`"),
            None => String::new(),
        };
        let (kind, verb, what) = if method.starts_with("notifications/") {
            ("notification", "handles", "notification")
        } else {
            ("method", "answers", "request")
        };
        cx.report(
            &META,
            d.file,
            d.range.clone(),
            format!(
                "`{t}::{m}`{whose} {verb} `{method}` for `{handler_trait}::{}` ({at}), which hands the {what} on; \
                 the `{method}` {kind} was removed in MCP 2026-07-28",
                h.name
            ),
            "never called by 2026-07-28 peers",
        )
        .help(r.help);
    }
}

/// `initialize` or `ping` handed to the crate's own function that sends it as a request (a
/// test's `make_req("initialize", …)`); distinctive methods are `lit_str`'s wherever they
/// stand, and calls named like a sending verb are `check_args`'.
fn sent_through_helpers(cx: &mut CrateCx, model: &CrateModel) {
    for sent in model.sent_method_literals() {
        let Some(r) = removed(sent.method) else { continue };
        let role = model.role(sent.caller);
        // A `ping` sent by server code is `server-initiated-request`'s; a test's goes to the
        // server under test.
        let server_ping = r.wire == PING && role == Role::Server && !model.func(sent.caller).test;
        if !r.generic || server_ping || is_send_verb(&model.func(sent.callee).name) {
            continue;
        }
        let file = model.file_of(sent.caller);
        let (source, crate_ctx) = (cx.files[file].file, cx.files[file].crate_ctx);
        if r.needs_evidence && !is_mcp_code(&source.text, crate_ctx, model.files[file].role) {
            continue;
        }
        let via = sent.via(model, cx);
        cx.report(
            &META,
            file,
            sent.range.clone(),
            format!("sent as a request: {via}; the `{}` method was removed in MCP 2026-07-28", r.wire),
            "sent as a method",
        )
        .help(r.help);
    }
}

/// A trait const's value that a generic function of the crate sends as a request's method
/// (`impl Command for Initialize { const NAME: &str = "initialize"; }` with `fn execute<C: Command>`
/// sending `C::NAME`). Distinctive strings are reported wherever they are (`lit_str`).
fn trait_const_methods(cx: &mut CrateCx, model: &CrateModel) {
    for c in model.trait_const_methods() {
        let Some(r) = removed(c.value) else { continue };
        // A `ping` sent by server code is `server-initiated-request`'s.
        let server_ping = r.wire == PING && model.role(c.sender) == Role::Server && !model.func(c.sender).test;
        if !r.generic || server_ping {
            continue;
        }
        let (source, crate_ctx) = (cx.files[c.file].file, cx.files[c.file].crate_ctx);
        if r.needs_evidence && !is_mcp_code(&source.text, crate_ctx, model.files[c.file].role) {
            continue;
        }
        let sender = model.func(c.sender);
        let at = cx.place(model.file_of(c.sender), sender.name_range.start);
        cx.report(
            &META,
            c.file,
            c.range.clone(),
            format!(
                "this `{}::{}` is sent as a request's method by `{}` ({at}), generic over `{}`; the `{}` method was removed in MCP 2026-07-28",
                c.trait_, c.name, sender.name, c.trait_, r.wire
            ),
            "sent as a method",
        )
        .help(r.help);
    }
}

/// Walks one function body for `match` arms and comparisons on a method string. Nested items are
/// left alone: the visitor offers them to `rust_fn` itself.
struct BodyWalk<'c, 'a> {
    cx: &'c mut Cx<'a>,
    consts: Vec<StrConst>,
}

impl BodyWalk<'_, '_> {
    /// Reports a removed method found in a match arm or comparison, or marks it rejected.
    fn found(&mut self, value: &str, range: Range<usize>, defined: Option<Range<usize>>, rejects: bool, label: &str) {
        let Some(r) = removed(value) else { return };
        if rejects {
            self.cx.state::<FileFacts>().rejected.insert(range.start);
            return;
        }
        // Distinctive strings are reported by `lit_str` (a const's at its literal).
        if !r.generic {
            return;
        }
        report_str(self.cx, r, range, defined, label);
    }

    /// The literals of `x != "initialize"` comparisons that a condition requires (through `&&`).
    fn exclusions(&self, cond: &Expr, out: &mut Vec<Range<usize>>) {
        let Expr::Binary(b) = strip(cond) else { return };
        match b.op {
            syn::BinOp::And(_) => {
                self.exclusions(&b.left, out);
                self.exclusions(&b.right, out);
            }
            syn::BinOp::Ne(_) => out.extend(self.binary_comparison(b).map(|(_, range, _)| range)),
            _ => {}
        }
    }

    /// `x == "initialize"` / `"ping" != x` where `x` is a method: the literal.
    fn comparison(&self, e: &Expr) -> Option<Resolved> {
        let Expr::Binary(b) = strip(e) else { return None };
        self.binary_comparison(b)
    }

    fn binary_comparison(&self, b: &syn::ExprBinary) -> Option<Resolved> {
        if !matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_)) {
            return None;
        }
        // `method == Some("initialize")` beside an `Option<&str>` too.
        let resolve = |e: &Expr| resolve_str(self.cx, crate::rust::syntax::inside_some(strip(e)), &self.consts);
        let (lit, other) = match resolve(&b.right) {
            Some(found) => (found, &b.left),
            None => (resolve(&b.left)?, &b.right),
        };
        (removed(&lit.0).is_some() && mentions_method(&quote::ToTokens::to_token_stream(other))).then_some(lit)
    }
}

impl<'ast> Visit<'ast> for BodyWalk<'_, '_> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        let scrutinee = mentions_method(&quote::ToTokens::to_token_stream(&m.expr));
        let arms: Vec<_> = m
            .arms
            .iter()
            .map(|arm| {
                let mut strs = Vec::new();
                pattern_strs(self.cx, &arm.pat, &self.consts, &mut strs);
                (arm, strs)
            })
            .collect();
        // A match on MCP methods: the scrutinee says so, or another arm is a `tools/…`-like method;
        // not one whose arms are mostly another protocol's (an ACP agent's or a language server's
        // `initialize` beside `session/prompt`, `session/load`, `notifications/cancel`).
        let values = || arms.iter().flat_map(|(_, s)| s).map(|(v, _, _)| v.as_str());
        let mcp_arms = values().filter(|v| has_mcp_prefix(v)).count();
        let other_protocol =
            values().filter(|v| crate::model::handlers::is_other_protocol_method(v)).count() > mcp_arms;
        let on_methods = (scrutinee || mcp_arms > 0) && !other_protocol;
        // `ClientRequest::InitializeRequest(_) => Err(..)`: the SDK variant is rejected too; and an
        // arm that only names the message (`ServerRequest::PingRequest(_) => "ping"`, a proxy's or
        // logger's label) handles nothing.
        for arm in &m.arms {
            if expr_rejects(&arm.body) || is_label(&arm.body) {
                let mut paths = Vec::new();
                pattern_paths(&arm.pat, &mut paths);
                for p in paths {
                    let start = self.cx.node_range(p).start;
                    self.cx.state::<FileFacts>().rejected.insert(start);
                }
            }
        }
        if on_methods {
            for (arm, strs) in &arms {
                let rejects = expr_rejects(&arm.body) || is_label(&arm.body);
                for (value, range, defined) in strs {
                    self.found(value, range.clone(), defined.clone(), rejects, "matched as a method");
                }
            }
        }
        visit::visit_expr_match(self, m);
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        // `if method == "ping" { return Err(..) }`: the migrated server rejecting it.
        if let Some((_, range, _)) = self.comparison(&e.cond)
            && block_rejects(&e.then_branch)
        {
            self.cx.state::<FileFacts>().rejected.insert(range.start);
        }
        // `if method != "initialize" && method != "server/discover" { prepare() }`: the branch runs
        // for every other method and the method is handled nowhere here, so there is nothing to
        // report (kept as if rejected). An `else`, or a branch that leaves (`return None`), hands
        // the method to the code after it, which is reported.
        if e.else_branch.is_none() && !crate::rust::syntax::block_diverges(&e.then_branch) {
            let mut excluded = Vec::new();
            self.exclusions(&e.cond, &mut excluded);
            for range in excluded {
                self.cx.state::<FileFacts>().rejected.insert(range.start);
            }
        }
        visit::visit_expr_if(self, e);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if let Some((value, range, defined)) = self.binary_comparison(b) {
            let rejects = rejected(self.cx, &range);
            self.found(&value, range, defined, rejects, "compared with a method");
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `matches!(method, "initialize" | "notifications/initialized")`; the engine reads the
        // pattern too, but only this walk knows it is compared with a method.
        let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if name != "matches" {
            return;
        }
        let parsed = syn::parse::Parser::parse2(
            |input: syn::parse::ParseStream| {
                let value: Expr = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                let _rest: TokenStream = input.parse()?;
                Ok((value, pat))
            },
            m.tokens.clone(),
        );
        let Ok((value, pat)) = parsed else { return };
        if !mentions_method(&quote::ToTokens::to_token_stream(&value)) {
            return;
        }
        let mut strs = Vec::new();
        pattern_strs(self.cx, &pat, &self.consts, &mut strs);
        // `matches!(method, "initialize" | "ping" | "logging/setLevel")` names what was removed.
        let listed = is_removal_pattern(&pat);
        for (v, range, defined) in strs {
            self.found(&v, range, defined, listed, "matched as a method");
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::check_text;

    /// A file the model keeps guards for is read by the prefilter where the rule is selected.
    #[test]
    fn gate_words_are_crate_words() {
        for word in crate::model::init_gates::GATE_WORDS {
            assert!(super::META.crate_triggers.contains(word), "{word}");
        }
    }

    /// `sdk_variant` looks at no path whose second-to-last segment is not one of `SDK_ENUMS`.
    #[test]
    fn every_variant_is_of_a_listed_enum() {
        assert!(super::VARIANTS.iter().all(|(e, _, _)| super::SDK_ENUMS.contains(e)));
    }

    /// A list of removed methods is told by `rust::quoted`'s table, which must know each of ours.
    #[test]
    fn every_removed_method_has_a_feature() {
        for r in super::methods::REMOVED {
            assert!(crate::rust::quoted::removed_feature(r.wire).is_some(), "{}", r.wire);
        }
    }

    fn findings(name: &str, text: &str) -> Vec<(usize, String)> {
        crate::rules::test_support::spans_of("removed-method", name, text)
    }

    fn check(text: &str) -> Vec<String> {
        findings("lib.rs", text).into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn rmcp_overrides() {
        let text = "use rmcp::{ServerHandler, model::*, service::*};\n\
                    impl ServerHandler for S {\n\
                      async fn initialize(&self, r: InitializeRequestParams, cx: RequestContext<RoleServer>) -> Result<InitializeResult, ErrorData> { Ok(self.get_info()) }\n\
                      async fn on_initialized(&self, cx: NotificationContext<RoleServer>) { tracing::info!(\"up\"); }\n\
                      async fn set_level(&self, r: SetLevelRequestParams, cx: RequestContext<RoleServer>) -> Result<(), ErrorData> { Err(ErrorData::method_not_found::<SetLevelRequestMethod>()) }\n\
                      async fn call_tool(&self, r: CallToolRequestParams, cx: RequestContext<RoleServer>) -> R { todo!() }\n\
                    }\n\
                    impl S { fn initialize(&self) {} }\n";
        assert_eq!(check(text), ["initialize", "on_initialized"]);
    }

    #[test]
    fn dispatch_match_and_comparisons() {
        let text = "fn dispatch(method: &str) -> R {\n\
                      match method {\n\
                        \"initialize\" => handshake(),\n\
                        \"ping\" => Ok(json!({})),\n\
                        \"logging/setLevel\" => Err(method_not_found()),\n\
                        \"tools/list\" => list(),\n\
                        _ => Err(unknown()),\n\
                      }\n\
                    }\n\
                    fn other(req: &Req, cmd: &str) {\n\
                      if req.method == \"notifications/initialized\" { self.ready = true; }\n\
                      if req.method == \"ping\" { return Err(not_supported()); }\n\
                      match cmd { \"ping\" => pong(), \"initialize\" => setup(), _ => {} }\n\
                      log(\"initialize\");\n\
                    }\n";
        assert_eq!(check(text), ["\"initialize\"", "\"ping\"", "\"notifications/initialized\""]);
    }

    #[test]
    fn sends_and_json() {
        let text = "use serde_json::json;\n\
                    fn client(c: &mut Conn) {\n\
                      c.send_request(\"initialize\", params);\n\
                      c.write(json!({\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}));\n\
                      c.write(json!({\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"ping\"}));\n\
                      let t = Tool::new(\"ping\", \"answers pong\");\n\
                    }\n";
        assert_eq!(check(text), ["\"initialize\"", "\"notifications/initialized\"", "\"ping\""]);
    }

    #[test]
    fn server_ping_is_the_other_rules() {
        let text = "use rmcp::RoleServer;\n\
                    async fn keepalive(out: &Conn<RoleServer>) { out.send_request(\"ping\", None).await; out.write(serde_json::json!({\"id\": 1, \"method\": \"ping\"})); }\n";
        assert!(check(text).is_empty(), "{:?}", check(text));
        // Registering a handler for it is handling, whoever does it.
        let text = "use rmcp::RoleServer;\n\
                    fn routes(r: &mut Router<RoleServer>) { r.on_request(\"ping\", pong); }\n";
        assert_eq!(check(text), ["\"ping\""]);
    }

    #[test]
    fn severity_follows_the_era() {
        use crate::diagnostic::Severity;
        let server = "use rmcp::ServerHandler;\n\
                      impl ServerHandler for S { async fn ping(&self, cx: RequestContext<RoleServer>) -> Result<(), E> { Ok(()) } }\n";
        let severity = |manifest: &str, extra: &str| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
            std::fs::create_dir(dir.path().join("src")).unwrap();
            std::fs::write(dir.path().join("src/version.rs"), extra).unwrap();
            let path = dir.path().join("src/lib.rs");
            std::fs::write(&path, server).unwrap();
            let found = check_text(&path, server.to_owned());
            found.iter().find(|d| d.rule == "removed-method").map(|d| d.severity)
        };
        // rmcp 3 serves legacy clients too: dual-era, a warning.
        let dual = severity("[package]\nname = \"s\"\n[dependencies]\nrmcp = \"3.1\"\n", "");
        assert_eq!(dual, Some(Severity::Warning));
        // Only 2026-07-28 named and no SDK that serves legacy clients: an error.
        let modern = severity("[package]\nname = \"s\"\n", "pub const V: &str = \"2026-07-28\";\n");
        assert_eq!(modern, Some(Severity::Error));
    }

    #[test]
    fn lsp_lifecycle_is_not_mcp() {
        let text = "fn handle(&mut self, method: &str) {\n\
                      match method { \"initialize\" => self.init(), \"shutdown\" => self.stop(), _ => {} }\n\
                      self.request(\"initialize\", json!({\"processId\": null}));\n\
                      if method == \"textDocument/didOpen\" {}\n\
                    }\n";
        assert!(check(text).is_empty(), "{:?}", check(text));
    }

    #[test]
    fn tasks_need_mcp_evidence() {
        assert!(check("fn route(m: &str) { match m { \"tasks/list\" => list(), _ => {} } }\n").is_empty());
        assert_eq!(
            check("fn route(m: &str) { match m { \"tasks/list\" => list(), \"tools/call\" => call(), _ => {} } }\n"),
            ["\"tasks/list\""]
        );
    }

    #[test]
    fn json_messages() {
        let text = concat!(
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {}}\n",
            "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n",
            "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"ping\"}\n",
            "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/call\", \"params\": {\"name\": \"ping\"}}\n",
        );
        let lines: Vec<usize> = findings("t.jsonl", text).into_iter().map(|(l, _)| l).collect();
        assert_eq!(lines, [1, 2, 3]);
    }
}
