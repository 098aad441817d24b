//! `server-initiated-request`: server code that sends `sampling/createMessage`, `elicitation/create`
//! or `ping` to the client as a JSON-RPC request.
//!
//! MCP 2026-07-28 removed server-initiated JSON-RPC requests (C06): a server that needs the client's
//! model or the user's input returns an `input_required` result whose `inputRequests` hold the
//! request (MRTR, C07); `ping` is gone in both directions (C10).
//!
//! What fires (never in client code):
//! - SDK calls that send those requests: rmcp `create_message`, `create_elicitation(_with_timeout)`,
//!   `elicit(_with_timeout)`, `elicit_url(_with_timeout)`; rust-mcp-sdk `request_message_creation`,
//!   `request_elicitation`, `elicit_input` (and its deprecated `create_message`); mcp-attr
//!   `sampling_create_message`; fastmcp `elicit_form`;
//! - `ServerRequest::CreateMessageRequest(..)` / `CreateElicitationRequest` / `ElicitRequest` /
//!   `PingRequest` (and pmcp-style short names) built in server code or handed to a
//!   request-sending call, and request values (`PingRequest::default()`) handed to one;
//! - hand-rolled JSON-RPC: a `json!` object or struct literal with one of the methods and an `id`,
//!   a request-sending call (`send_request("elicitation/create", …)`) with the method string (also
//!   through a `const` of the file);
//! - the crate's own request code (`rust_crate`, the crate model): a method literal handed to a
//!   crate function that makes it a request's method, and a call of a crate function that sends one
//!   of the requests, itself or through its callees, trait objects of the crate's traits and
//!   trait default methods included (`model::senders`);
//! - in JSON files, an object with `"method": "sampling/createMessage"` or `"elicitation/create"`
//!   and an `id` (not under `inputRequests`); in transcripts, any other server-to-client request and
//!   any client-to-server response.
//!
//! Left to other rules: `roots/list` (`server-roots-request`), and every `ping` that is not sent
//! by server code, including every `ping` in JSON files (`removed-method`: the direction of a
//! recorded `ping` is rarely known).

use std::ops::Range;

use syn::{Expr, Member};

use crate::context::{Impact, Role, Sdk};
use crate::cx::{CrateCx, Cx, Origin};
use crate::diagnostic::Diagnostic;
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage};
use crate::json::{JsonKind, JsonNode, Step};
use crate::model::CrateModel;
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::requests::{
    StrConst, collect_local_fns, collect_str_consts, input_request_builders, is_send_verb, peer_like_receiver,
    raw_spells, record_peer_params, request_value, resolve_str,
};
use crate::rust::syntax::{is_self, method_call_range, path_ends_with, rpc_type_path, tokens_mention_any};

mod sdk_names;

use sdk_names::{PARAM_TYPES, REQUEST_TYPES, SERVER_REQUEST_VARIANTS, SPELLINGS, Spelling};

pub struct ServerInitiatedRequest;

const SAMPLING: &str = "sampling/createMessage";
const ELICITATION: &str = "elicitation/create";
const PING: &str = "ping";
/// The methods this rule reports (roots/list is `server-roots-request`'s).
const METHODS: &[&str] = &[SAMPLING, ELICITATION, PING];

static META: RuleMeta = RuleMeta {
    name: "server-initiated-request",
    summary: "Server code sends `sampling/createMessage`, `elicitation/create` or `ping` to the client (server-initiated requests were removed in MCP 2026-07-28)",
    impact: Impact::Removed,
    // SDK spellings contain `create_message`, `request_message_creation` or `elicit`; request
    // types `CreateMessageRequest`, `Elicit`, `PingRequest` or `ServerRequest`; wire strings
    // `sampling/createMessage`, `elicitation/create` (contains `elicit`) or `"ping"`. In
    // transcripts, a request or response whose direction is not implied by its method needs a
    // wrapper that states it (`"direction"`, `"dir"`, `"from"`, `"sender"`, `"source"`).
    triggers: &[
        "create_message",
        "request_message_creation",
        "elicit",
        "Elicit",
        // Not bare `CreateMessage` (a Windows API name): the request type is
        // `CreateMessageRequest`, `ServerRequest::CreateMessage` has `ServerRequest`, and the
        // parameter types count only beside a sending call, whose name is a trigger itself.
        "\\bCreateMessageRequest",
        "PingRequest",
        "ServerRequest",
        "sampling/createMessage",
    ],
    json_triggers: &["\"method\"", "\"direction\"", "\"dir\"", "\"from\"", "\"sender\"", "\"source\""],
    // A `ping` is this rule's only from server code (`sent_by_this_side`).
    mcp_triggers: &["\"ping\""],
    // The crate's own helpers that make a parameter a request's method (`Request { method: m, id }`,
    // and `json!({"method": m, …})` below): their files feed the crate model (`model::requests`).
    crate_triggers: &["\\bmethod:"],
    help: Some(
        "return an `input_required` result instead (MRTR; rmcp >= 3.0: `InputRequiredResult::from_input_requests` \
         with `InputRequest::Elicitation(..)` or `InputRequest::CreateMessage(..)`, the tool returning \
         `CallToolResponse`) and read the answer from the retry's `inputResponses`",
    ),
    fixable: false,
    doc: include_str!("../../rules/server-initiated-request.md"),
};

/// The help for code that does not use rmcp, and for JSON files.
const WIRE_HELP: &str = "ask in the result instead: return `{\"resultType\": \"input_required\", \"inputRequests\": \
     {\"<key>\": {\"method\": \"…\", \"params\": {…}}}}` (no `id`, no `jsonrpc`) for the client's request, and read \
     the answer from the retry's `params.inputResponses[\"<key>\"]` (MRTR)";
const PING_HELP: &str = "delete it: MCP 2026-07-28 has no `ping` in either direction; any ordinary request proves \
     liveness, and transports keep connections alive themselves (SSE comment lines on HTTP)";
const TRANSCRIPT_RESPONSE_HELP: &str = "since MCP 2026-07-28 the client sends no JSON-RPC responses: the server asks \
     through an `input_required` result and the client answers in the retry's `inputResponses`";

/// What the rule learns about the file before the walk: consts holding a method, functions it
/// defines itself.
#[derive(Default)]
struct FileFacts {
    consts: Vec<StrConst>,
    local_fns: Vec<String>,
    /// What functions build for their results' `inputRequests` through a local
    /// (`requests::input_request_builders`).
    input_builders: Vec<Range<usize>>,
}

impl Rule for ServerInitiatedRequest {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        let mut facts = FileFacts::default();
        collect_str_consts(cx, &file.items, &|v| METHODS.contains(&v), &mut facts.consts);
        collect_local_fns(&file.items, &mut facts.local_fns);
        *cx.state::<FileFacts>() = facts;
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        record_peer_params(cx, f);
        let builders = input_request_builders(cx, f.body);
        cx.state::<FileFacts>().input_builders.extend(builders);
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        if cx.role() == Role::Client {
            return;
        }
        if let Some(spelling) = SPELLINGS.iter().find(|s| s.name == name)
            && spelling_fires(cx, spelling, call)
        {
            let range = method_call_range(cx, call);
            let args = if call.args.is_empty() { "" } else { "…" };
            report(
                cx,
                range,
                spelling.method,
                format!(
                    "`{name}({args})` sends `{}` from the server to the client as a request; server-initiated requests were removed in MCP 2026-07-28",
                    spelling.method
                ),
                format!("sends `{}` to the client", spelling.method),
            );
        }
        if is_send_verb(name) {
            check_send_args(cx, call.args.iter());
        }
    }

    fn call(&self, cx: &mut Cx, call: &syn::ExprCall, callee: Option<&str>) {
        if cx.role() == Role::Client {
            return;
        }
        let (Expr::Path(func), Some(last)) = (&*call.func, callee) else { return };
        let is = |names: &[&str]| names.contains(&last);
        // `send_request(&mut out, "elicitation/create", …)`, or a JSON-RPC request type's
        // constructor (`JsonRpcRequest::new(7, "sampling/createMessage", params)`).
        let sends = is_send_verb(last) || (is(&["new", "request", "new_request"]) && rpc_type_path(&func.path));
        // A client's message builder (`ClientJsonRpcMessage::request(..)`) sends the other way.
        if sends && !func.path.segments.iter().any(|s| s.ident.to_string().starts_with("Client")) {
            check_send_args(cx, call.args.iter());
        }
    }

    fn expr_path(&self, cx: &mut Cx, path: &syn::ExprPath) {
        // Expression position only: a client matching `ServerRequest::CreateMessageRequest(r)` to
        // answer it is a pattern, and MRTR's `InputRequest::Elicitation(..)` is legal. Only in
        // server code: a client builds one too, to hand an MRTR input request to its own handler.
        // Code of unknown side is reported when the value goes straight into a sending call
        // (`check_send_args`).
        if cx.role() != Role::Server {
            return;
        }
        let Some(method) = server_request_variant(&path.path) else { return };
        report_server_request(cx, path, method);
    }

    fn struct_lit(&self, cx: &mut Cx, lit: &syn::ExprStruct) {
        // A hand-rolled request struct: `JsonRpcRequest { id, method: "elicitation/create".into(), .. }`,
        // unless handed to the process's own handler (`client.handle_server_request(..)`): received.
        if cx.role() == Role::Client || cx.received() {
            return;
        }
        let field = |name: &str| lit.fields.iter().find(|f| matches!(&f.member, Member::Named(i) if i == name));
        let (Some(method), Some(id)) = (field("method"), field("id")) else { return };
        if crate::rust::requests::is_message_record(lit) {
            return;
        }
        let consts = file_consts(cx);
        if let Some(found) = method_value(cx, &method.expr, &consts)
            && wire_request_of_this_side(cx, &found)
        {
            let id_range = cx.node_range(id);
            report_request_object(cx, &found, id_range);
        }
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        if cx.origin == Origin::Rust && (cx.role() == Role::Client || cx.received()) {
            return;
        }
        let Some(method) = node.member("method") else { return };
        let Some(id) = node.member("id") else { return };
        // MRTR input requests are legal (an `id` inside one is `input-required-misuse`'s), also
        // built in a local that the result's `inputRequests` takes.
        if path.contains(&Step::Key("inputRequests"))
            || (cx.origin == Origin::Rust
                && cx.state::<FileFacts>().input_builders.iter().any(|b| crate::model::within(&node.range, b)))
        {
            return;
        }
        let found = match &method.value.kind {
            JsonKind::String(s) if METHODS.contains(&s.as_str()) && raw_spells(cx, &method.value.range, s) => {
                Some(MethodValue { value: s.clone(), range: method.value.range.clone(), defined: None })
            }
            // `"method": ELICIT` or `"method": "elicitation/create".to_string()` inside `json!`.
            JsonKind::Expr(tokens) => {
                let consts = file_consts(cx);
                syn::parse2::<Expr>(tokens.clone()).ok().and_then(|e| method_value(cx, &e, &consts))
            }
            _ => None,
        };
        let Some(found) = found else { return };
        // In JSON files every `ping` is `removed-method`'s; in Rust only the server's are ours.
        let ours = match cx.origin {
            Origin::JsonFile => found.value != PING,
            Origin::Rust => wire_request_of_this_side(cx, &found),
        };
        if ours {
            report_request_object(cx, &found, id.range.clone());
        }
    }

    fn uses_model(&self) -> bool {
        true
    }

    /// A method literal handed to the crate's own function that sends it as a request
    /// (`self.dispatch("sampling/createMessage", p)`; calls named like a sending verb were
    /// reported by `check_send_args` already), and a call of the crate's own function that sends
    /// one (`requester.sample(p)`, `self.elicit_form(p)`: `model::senders`).
    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        sender_calls(cx, model);
        for sent in model.sent_method_literals() {
            let role = model.role(sent.caller);
            // A test's `ping` goes to the server under test (`removed-method`'s).
            let server_ping = role == Role::Server && !model.func(sent.caller).test;
            let ours = METHODS.contains(&sent.method) && (sent.method != PING || server_ping);
            if !ours || role == Role::Client || is_send_verb(&model.func(sent.callee).name) {
                continue;
            }
            let (file, via) = (model.file_of(sent.caller), sent.via(model, cx));
            let rmcp = cx.files[file].crate_ctx.uses(Sdk::Rmcp);
            let method = sent.method;
            let d = cx.report(
                &META,
                file,
                sent.range.clone(),
                format!(
                    "the server sends `{method}` to the client as a request: {via}; server-initiated requests were removed in MCP 2026-07-28"
                ),
                "sent as a JSON-RPC request to the client",
            );
            if method == PING {
                d.help(PING_HELP);
            } else if !rmcp {
                d.help(WIRE_HELP);
            }
        }
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        // The latest request per id: who sent it and its method, to attribute responses.
        let mut requests: std::collections::HashMap<String, (Sender, &str)> = std::collections::HashMap::new();
        for m in messages {
            match m.kind {
                MessageKind::Request { method, method_node, id } => {
                    if let Some(key) = id.scalar_key() {
                        requests.insert(key, (m.sender, method));
                    }
                    // `roots/list` is `server-roots-request`'s, `ping` `removed-method`'s, and
                    // sampling and elicitation requests are reported from `json_node` whatever
                    // their direction. A notification method with an id is malformed, not a
                    // request the server meant to make.
                    if m.sender != Sender::Server
                        || matches!(method, "roots/list" | PING | SAMPLING | ELICITATION)
                        || method.starts_with("notifications/")
                    {
                        continue;
                    }
                    cx.report(
                        &META,
                        method_node.range.clone(),
                        format!(
                            "the server sends `{method}` to the client as a request; server-initiated requests were removed in MCP 2026-07-28"
                        ),
                        "a request from the server to the client",
                    )
                    .label(id.range.clone(), "a JSON-RPC id makes this a request")
                    .help(WIRE_HELP);
                }
                MessageKind::Response { id, result, error } if m.sender == Sender::Client => {
                    let answered = id.scalar_key().and_then(|k| requests.get(&k)).map(|(_, method)| *method);
                    if matches!(answered, Some("roots/list" | PING)) {
                        continue;
                    }
                    let key = if result.is_some() { "result" } else { "error" };
                    let Some(member) = m.message.member(key) else { continue };
                    let what = answered.map_or(String::new(), |method| format!(" to `{method}`"));
                    cx.report(
                        &META,
                        member.key_range.clone(),
                        format!(
                            "the client sends a JSON-RPC response{what} to the server; since MCP 2026-07-28 servers send no requests, so clients send no responses"
                        ),
                        if error.is_some() { "a client-to-server error response" } else { "a client-to-server response" },
                    )
                    .label(id.range.clone(), "answers this id")
                    .help(TRANSCRIPT_RESPONSE_HELP);
                }
                _ => {}
            }
        }
    }
}

/// Calls of the crate's functions that send one of the requests, itself or through the functions
/// it calls, from code that is not a client's (a test's `ping` goes to the server under test). A
/// call on a trait object (or on `self` in a trait's default method) names the crate's impls that
/// send.
fn sender_calls(cx: &mut CrateCx, model: &CrateModel) {
    let mut calls = model.sender_calls();
    calls.sort_by_key(|c| (c.file, c.range.start));
    for group in calls.chunk_by(|a, b| a.file == b.file && a.range == b.range) {
        let call = &group[0];
        let server_ping = call.role == Role::Server && !call.test;
        let mut methods: Vec<&str> = Vec::new();
        let mut senders = Vec::new();
        for c in group {
            let sent: Vec<&str> =
                c.methods.iter().copied().filter(|m| METHODS.contains(m) && (*m != PING || server_ping)).collect();
            if sent.is_empty() {
                continue;
            }
            for m in sent {
                if !methods.contains(&m) {
                    methods.push(m);
                }
            }
            let callee = model.func(c.callee);
            let at = cx.place(model.file_of(c.callee), callee.name_range.start);
            let owner = model.owner(c.callee).and_then(|o| o.rsplit("::").next());
            let name = owner.map_or_else(|| callee.name.clone(), |o| format!("{o}::{}", callee.name));
            senders.push(format!("`{name}` ({at})"));
        }
        if methods.is_empty() {
            continue;
        }
        let shown = methods.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" and ");
        let impls = if senders.len() > 2 {
            format!("{}, {} and {} more", senders[0], senders[1], senders.len() - 2)
        } else {
            senders.join(" and ")
        };
        let plural = if senders.len() > 1 { "s" } else { "" };
        let verb = if senders.len() > 1 { "send" } else { "sends" };
        let method = &model.func(call.callee).name;
        let called = match (call.trait_, call.caller) {
            (Some(t), Some(_)) => format!("`{method}` on a `dyn {t}`, whose impl{plural} {impls} {verb}"),
            (Some(t), None) => format!(
                "`{method}` of the `{t}` impl it is a default method of; the crate's impl{plural} {impls} {verb}"
            ),
            (None, _) => format!("{impls}, which {verb}"),
        };
        let rmcp = cx.files[call.file].crate_ctx.uses(Sdk::Rmcp);
        let d = cx.report(
            &META,
            call.file,
            call.range.clone(),
            format!(
                "this calls {called} {shown} to the client as a request; server-initiated requests were removed in MCP 2026-07-28"
            ),
            format!("sends {shown} to the client"),
        );
        if methods == [PING] {
            d.help(PING_HELP);
        } else if !rmcp {
            d.help(WIRE_HELP);
        }
    }
}

/// Reports with the help that fits: rmcp's MRTR API for rmcp code, the wire shape otherwise, and
/// "delete it" for `ping`.
fn report<'d>(
    cx: &'d mut Cx,
    range: Range<usize>,
    method: &str,
    message: impl Into<String>,
    label: impl Into<String>,
) -> &'d mut Diagnostic {
    let rmcp = cx.origin == Origin::Rust && cx.uses_sdk(Sdk::Rmcp);
    let d = cx.report(&META, range, message, label);
    if method == PING {
        d.help(PING_HELP);
    } else if !rmcp {
        d.help(WIRE_HELP);
    }
    d
}

fn report_server_request(cx: &mut Cx, path: &syn::ExprPath, method: &str) {
    let range = cx.node_range(path);
    let shown = cx.text(range.clone()).split_whitespace().collect::<String>();
    report(
        cx,
        range,
        method,
        format!(
            "`{shown}` is `{method}` as a server-to-client request; server-initiated requests were removed in MCP 2026-07-28"
        ),
        "a request from the server to the client",
    );
}

fn report_request_object(cx: &mut Cx, found: &MethodValue, id: Range<usize>) {
    let d = report(
        cx,
        found.range.clone(),
        &found.value,
        format!(
            "`{}` as a JSON-RPC request from the server to the client; server-initiated requests were removed in MCP 2026-07-28",
            found.value
        ),
        format!("`{}` as a request", found.value),
    );
    d.label(id, "a JSON-RPC id makes this a request the server sends");
    if let Some(defined) = found.defined.clone() {
        d.label(defined, "the method name is defined here");
    }
}

/// Whether code of this side sending `method` is this rule's: sampling and elicitation from
/// anything but client code (checked by the callers), `ping` only from code that is a server for
/// sure (other `ping`s are `removed-method`'s).
fn sent_by_this_side(cx: &Cx, method: &str) -> bool {
    method != PING || cx.role() == Role::Server
}

/// Whether a request written out by its method name (a JSON-RPC struct, `json!` object or
/// `send_request("…")`) is this rule's: as `sent_by_this_side`, and not in test code, where such a
/// request goes from the test to the server under test (a test's `ping` is `removed-method`'s).
fn wire_request_of_this_side(cx: &Cx, found: &MethodValue) -> bool {
    !cx.in_test_code(&found.range) && sent_by_this_side(cx, &found.value)
}

fn spelling_fires(cx: &Cx, spelling: &Spelling, call: &syn::ExprMethodCall) -> bool {
    if call.args.len() > spelling.max_args || is_self(&call.receiver) {
        return false;
    }
    // A call of the file's own function of that name is not the SDK's, unless it is made on a
    // peer: its body is checked on its own, and the crate model reports its callers by its name.
    let local = cx.state_ref::<FileFacts>().is_some_and(|f| f.local_fns.iter().any(|n| n == spelling.name));
    if local && !peer_like_receiver(cx, &call.receiver) {
        return false;
    }
    let sdk_known = !cx.file_sdks.is_empty() || !cx.crate_ctx.sdks.is_empty();
    if sdk_known {
        if !spelling.sdks.iter().any(|s| cx.uses_sdk(*s)) {
            return false;
        }
    } else if spelling.generic || cx.role() != Role::Server {
        // No MCP SDK in sight: only distinctive names, in code that is a server for sure.
        return false;
    }
    if !spelling.generic {
        return true;
    }
    // A generic name is the SDK's when called on the server's peer, with an SDK parameter type,
    // or (rmcp's typed elicitation) with a turbofish.
    let args_name_sdk_types =
        call.args.iter().any(|a| tokens_mention_any(&quote::ToTokens::to_token_stream(a), PARAM_TYPES));
    let turbofish = spelling.name == "elicit" && call.turbofish.is_some();
    peer_like_receiver(cx, &call.receiver) || args_name_sdk_types || turbofish
}

/// The method a `ServerRequest::<variant>` path sends, if it is one of this rule's.
fn server_request_variant(path: &syn::Path) -> Option<&'static str> {
    SERVER_REQUEST_VARIANTS
        .iter()
        .find(|(variant, _)| path_ends_with(path, &["ServerRequest", variant]))
        .map(|(_, method)| *method)
}

/// A method string found in code: its value, the range to report, and the const's literal when
/// it came through one.
struct MethodValue {
    value: String,
    range: Range<usize>,
    defined: Option<Range<usize>>,
}

fn file_consts(cx: &Cx) -> Vec<StrConst> {
    cx.state_ref::<FileFacts>().map(|f| f.consts.clone()).unwrap_or_default()
}

/// The method string an expression stands for (`"ping"`, `"ping".into()`, a const of this file).
fn method_value(cx: &Cx, expr: &Expr, consts: &[StrConst]) -> Option<MethodValue> {
    let (value, range, defined) = resolve_str(cx, expr, consts)?;
    METHODS.contains(&value.as_str()).then_some(MethodValue { value, range, defined })
}

/// Arguments of a request-sending call: a method string of this rule, or a request value
/// (`peer.send_request(CreateElicitationRequest::new(p).into())`).
fn check_send_args<'a>(cx: &mut Cx, args: impl Iterator<Item = &'a Expr>) {
    let consts = file_consts(cx);
    for arg in args {
        if let Some(found) = method_value(cx, arg, &consts) {
            if !wire_request_of_this_side(cx, &found) {
                continue;
            }
            let d = report(
                cx,
                found.range.clone(),
                &found.value,
                format!(
                    "the server sends `{}` to the client as a request; server-initiated requests were removed in MCP 2026-07-28",
                    found.value
                ),
                "sent as a JSON-RPC request to the client",
            );
            if let Some(defined) = found.defined {
                d.label(defined, "the method name is defined here");
            }
        } else if let Some((path, method)) = server_request_value(arg) {
            // The type says the server sends it, `ping` included. The same range as `expr_path`'s
            // finding in server code, so the two merge.
            report_server_request(cx, path, method);
        } else if let Some((range, ty, method)) = request_type_value(cx, arg)
            && sent_by_this_side(cx, method)
        {
            report(
                cx,
                range,
                method,
                format!(
                    "the server sends `{ty}` (`{method}`) to the client; server-initiated requests were removed in MCP 2026-07-28"
                ),
                "sent as a request to the client",
            );
        }
    }
}

/// `ServerRequest::<variant>(..)` (through `.into()`, `&`, parentheses): its path and method.
fn server_request_value(expr: &Expr) -> Option<(&syn::ExprPath, &'static str)> {
    match expr {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => server_request_variant(&p.path).map(|m| (p, m)),
            _ => None,
        },
        Expr::Path(p) => server_request_variant(&p.path).map(|m| (p, m)),
        Expr::MethodCall(m) if m.args.is_empty() && m.method == "into" => server_request_value(&m.receiver),
        Expr::Reference(r) => server_request_value(&r.expr),
        Expr::Paren(p) => server_request_value(&p.expr),
        _ => None,
    }
}

/// `CreateMessageRequest::new(..)`, `PingRequest::default()`, `ElicitRequest { .. }`, through
/// `.into()` or `ServerRequest::from(..)`; not `ServerRequest::<variant>(..)`, which `expr_path`
/// reports.
fn request_type_value(cx: &Cx, expr: &Expr) -> Option<(Range<usize>, &'static str, &'static str)> {
    let names_type = |path: &syn::Path| -> Option<(&'static str, &'static str)> {
        // `ServerRequest::PingRequest(..)` is `expr_path`'s; `ClientRequest::PingRequest(..)` is a
        // client's ping (`removed-method`'s).
        if server_request_variant(path).is_some()
            || path.segments.iter().any(|s| s.ident.to_string().starts_with("Client"))
        {
            return None;
        }
        REQUEST_TYPES.iter().find(|(ty, _)| path.segments.iter().any(|s| s.ident == ty)).copied()
    };
    request_value(cx, expr, &names_type).map(|((ty, method), range)| (range, ty, method))
}

#[cfg(test)]
mod tests {

    fn findings(name: &str, text: &str) -> Vec<(usize, String)> {
        crate::rules::test_support::spans_of("server-initiated-request", name, text)
    }

    fn check(text: &str) -> Vec<String> {
        findings("lib.rs", text).into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn rmcp_peer_calls() {
        let text = "use rmcp::service::{Peer, RoleServer};\n\
                    async fn ask(peer: &Peer<RoleServer>, p: P) {\n\
                      let a = peer.create_elicitation(p).await;\n\
                      let b = peer.elicit::<Confirm>(\"sure?\".into()).await;\n\
                      let c = peer.create_message(p).await;\n\
                    }\n";
        assert_eq!(check(text), ["create_elicitation(p)", "elicit::<Confirm>(\"sure?\".into())", "create_message(p)"]);
    }

    #[test]
    fn database_and_chat_names_are_silent() {
        let text = "use rmcp::model::Tool;\n\
                    async fn store(db: &Db, flow: &Flow, m: NewMessage) {\n\
                      db.create_message(m).await;\n\
                      flow.elicit(question);\n\
                      self.create_elicitation(x);\n\
                    }\n";
        assert!(check(text).is_empty(), "{:?}", check(text));
        // No SDK at all: generic names never fire.
        assert!(
            check("struct McpServer;\nimpl McpServer { fn f(&self) { self.peer.create_message(m); } }\n").is_empty()
        );
    }

    #[test]
    fn client_answering_is_silent() {
        let text = "use rmcp::{ClientHandler, model::*, service::*};\n\
                    impl ClientHandler for C {\n\
                      async fn create_message(&self, p: CreateMessageRequestParams, cx: RequestContext<RoleClient>) -> R {\n\
                        self.upstream_peer.create_message(p).await\n\
                      }\n\
                    }\n\
                    fn route(r: ServerRequest) { match r { ServerRequest::CreateMessageRequest(x) => {}, ServerRequest::PingRequest(_) => {}, _ => {} } }\n";
        assert!(check(text).is_empty(), "{:?}", check(text));
    }

    #[test]
    fn server_requests_of_unknown_side_need_a_send() {
        // A client handing an MRTR input request to its own handler builds a `ServerRequest` too.
        let text = "use rmcp::model::*;\n\
                    async fn fulfill(s: &S, r: CreateMessageRequest) { s.handle_request(ServerRequest::CreateMessageRequest(r), cx).await; }\n\
                    async fn forward(p: &P, r: CreateMessageRequest) { p.send_request(ServerRequest::CreateMessageRequest(r)).await; }\n";
        assert_eq!(check(text), ["ServerRequest::CreateMessageRequest"]);
        assert_eq!(findings("lib.rs", text)[0].0, 3);
    }

    #[test]
    fn ping_only_from_server_code() {
        let text = "use rmcp::RoleServer;\n\
                    async fn keepalive(out: &Conn<RoleServer>) { out.send_request(\"ping\", None).await; }\n\
                    async fn unknown(out: &Conn) { out.send_request(\"ping\", None).await; }\n\
                    async fn client(out: &Peer<RoleClient>) { out.send_request(\"ping\", None).await; }\n";
        assert_eq!(check(text), ["\"ping\""]);
    }

    #[test]
    fn hand_rolled_json_and_consts() {
        let text = "use serde_json::json;\n\
                    const ELICIT: &str = \"elicitation/create\";\n\
                    #[tool_router] impl S { fn t(&self) {\n\
                      self.out.write(json!({\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"sampling/createMessage\"}));\n\
                      self.out.send_request(ELICIT, p);\n\
                      let mrtr = json!({\"inputRequests\": {\"a\": {\"method\": \"elicitation/create\"}}});\n\
                    } }\n";
        assert_eq!(check(text), ["\"sampling/createMessage\"", "ELICIT"]);
    }

    #[test]
    fn transcript_directions() {
        let text = concat!(
            "{\"direction\": \"s2c\", \"message\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}}\n",
            "{\"direction\": \"c2s\", \"message\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}}\n",
            "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"elicitation/create\", \"params\": {}}\n",
            "{\"jsonrpc\": \"2.0\", \"id\": 2, \"result\": {\"action\": \"accept\"}}\n",
            "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"roots/list\"}\n",
            "{\"jsonrpc\": \"2.0\", \"id\": 3, \"result\": {\"roots\": []}}\n",
        );
        let got = findings("t.jsonl", text);
        assert_eq!(
            got,
            [
                (1, "\"tools/list\"".to_owned()),
                (2, "\"result\"".to_owned()),
                (3, "\"elicitation/create\"".to_owned()),
                (4, "\"result\"".to_owned()),
            ]
        );
    }
}
