//! `input-required-misuse`: `input_required` results (MRTR, MCP 2026-07-28, C07) that break the
//! pattern's MUSTs.
//!
//! - An `input_required` result for a request other than `tools/call`, `prompts/get` or
//!   `resources/read`: in transcripts (matched to the request by id), in rmcp / rust-mcp-sdk
//!   `ServerHandler` methods other than those three (`rust_fn`), and in hand-rolled dispatch arms
//!   on another method string (`rust_fn` walk).
//! - Neither `inputRequests` nor `requestState`: JSON objects and `json!` bodies with
//!   `"resultType": "input_required"` (`json_node`), `InputRequiredResult::new(None, None)` (`call`),
//!   `InputRequiredResult { input_requests: None, request_state: None, .. }` (`struct_lit`).
//! - `jsonrpc` or `id` inside an input request (`json_node`, with a fix that deletes the member),
//!   and an input request whose method is none of `elicitation/create`, `sampling/createMessage`,
//!   `roots/list`.
//! - In transcripts, an input request for a capability the original request did not declare in
//!   `_meta["io.modelcontextprotocol/clientCapabilities"]`.

use std::collections::HashMap;
use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Expr, Member};

use crate::context::{Impact, Role};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Applicability, Fix};
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage, is_input_required_result};
use crate::json::{JsonKind, JsonNode, Step};
use crate::model::handlers::has_mcp_prefix;
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::syntax::{last_ident, path_ends_with, str_value};

pub struct InputRequiredMisuse;

static META: RuleMeta = RuleMeta {
    name: "input-required-misuse",
    summary: "An `input_required` result (MRTR) that breaks MCP 2026-07-28: wrong method, nothing to ask, JSON-RPC members in input requests, undeclared capabilities",
    impact: Impact::Violation,
    // Every finding is about an `input_required` result (`"input_required"`, `InputRequiredResult`)
    // or what sits under its `inputRequests`.
    triggers: &["input_required", "\\bInputRequired", "inputRequests"],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: None,
    fixable: true,
    doc: include_str!("../../rules/input-required-misuse.md"),
};

/// The requests that may answer `input_required`.
const ALLOWED: &[&str] = &["tools/call", "prompts/get", "resources/read"];
/// The methods an input request may carry.
const INPUT_METHODS: &[&str] = &["elicitation/create", "sampling/createMessage", "roots/list"];
const CAPS_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// Handler methods (rmcp, rust-mcp-sdk) that answer the three allowed requests.
const ALLOWED_HANDLERS: &[&str] = &[
    "call_tool",
    "get_prompt",
    "read_resource",
    "handle_call_tool_request",
    "handle_get_prompt_request",
    "handle_read_resource_request",
];

const HELP_EMPTY: &str = "put the requests the server needs in `inputRequests`, or a `requestState` for the client \
     to echo on an immediate retry (load shedding); with nothing to ask, return the complete result instead";
const HELP_WRONG_METHOD: &str = "answer this request completely (or with an error such as -32021 when a required \
     client capability is missing); only `tools/call`, `prompts/get` and `resources/read` may ask for input";

/// Ranges of the function bodies seen so far, to look around a `json!` result for members added
/// after it was built.
#[derive(Default)]
struct FnBodies {
    bodies: Vec<Range<usize>>,
}

impl Rule for InputRequiredMisuse {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        let body = cx.block_range(f.body);
        cx.state::<FnBodies>().bodies.push(body.clone());
        if cx.in_test_code(&body) {
            return;
        }
        // An SDK handler for another request building an `InputRequiredResult`.
        if let Some(trait_name) = &f.impl_trait
            && trait_name.starts_with("ServerHandler")
        {
            let name = f.sig.ident.to_string();
            if !ALLOWED_HANDLERS.contains(&name.as_str())
                && let Some(range) = first_input_required(cx, &quote::ToTokens::to_token_stream(f.body))
            {
                cx.report(
                    &META,
                    range,
                    format!(
                        "`{trait_name}::{name}` returns an `input_required` result; since MCP 2026-07-28 only `tools/call`, `prompts/get` and `resources/read` may"
                    ),
                    "input requested for another method",
                )
                .help(HELP_WRONG_METHOD);
            }
        }
        ArmWalk { cx }.visit_block(f.body);
    }

    fn call(&self, cx: &mut Cx, call: &syn::ExprCall, _callee: Option<&str>) {
        let Expr::Path(func) = &*call.func else { return };
        let path = &func.path;
        let empty = (path_ends_with(path, &["InputRequiredResult", "new"])
            && call.args.len() == 2
            && call.args.iter().all(is_none))
            || (path_ends_with(path, &["InputRequiredResult", "default"]) && call.args.is_empty());
        // The range (the call printed to tokens) only for the few calls that can be findings.
        if !empty {
            return;
        }
        let range = cx.node_range(call);
        if cx.in_test_code(&range) {
            return;
        }
        let shown = cx.text(range.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
        report_empty(cx, range, format!("`{shown}` has neither input requests nor a request state"));
    }

    fn struct_lit(&self, cx: &mut Cx, lit: &syn::ExprStruct) {
        if last_ident(&lit.path).as_deref() != Some("InputRequiredResult") || cx.in_test_code(&cx.node_range(lit)) {
            return;
        }
        // `..Default::default()` leaves the fields `None`; `..other` may not.
        if let Some(rest) = &lit.rest
            && !crate::rust::syntax::is_default_call(rest)
        {
            return;
        }
        let set = |name: &str| {
            lit.fields.iter().any(|f| matches!(&f.member, Member::Named(i) if i == name) && !is_none(&f.expr))
        };
        if set("input_requests") || set("request_state") {
            return;
        }
        let range = cx.node_range(&lit.path);
        report_empty(cx, range, "this `InputRequiredResult` has neither input requests nor a request state".into());
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        if cx.in_test_code(&node.range) {
            return;
        }
        // The result: `{"resultType": "input_required", …}` with nothing to ask.
        if let Some(rt) = node.member("resultType")
            && rt.value.as_str() == Some("input_required")
        {
            let present = |k: &str| node.get(k).is_some_and(|v| !matches!(v.kind, JsonKind::Null));
            let quiet = cx.origin == Origin::Rust && (cx.role() == Role::Client || added_later(cx, node));
            if !present("inputRequests") && !present("requestState") && !quiet {
                report_empty(
                    cx,
                    rt.range.clone(),
                    "an `input_required` result with neither `inputRequests` nor `requestState`".into(),
                );
            }
        }
        // An input request: a member of `inputRequests`.
        if let [.., Step::Key("inputRequests"), Step::Key(key)] = path
            && node.is_object()
        {
            check_input_request(cx, node, key);
        }
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        // The latest client request per id, to find what a response answers.
        let mut requests: HashMap<String, (&str, &JsonNode)> = HashMap::new();
        for m in messages {
            match m.kind {
                MessageKind::Request { method, id, .. } if m.sender != Sender::Server => {
                    if let Some(key) = id.scalar_key() {
                        requests.insert(key, (method, m.message));
                    }
                }
                MessageKind::Response { id, result: Some(result), .. } if m.sender != Sender::Client => {
                    if !is_input_required_result(result) {
                        continue;
                    }
                    let Some(&(method, request)) = id.scalar_key().and_then(|k| requests.get(&k)) else { continue };
                    check_answer(cx, method, request, result);
                }
                _ => {}
            }
        }
    }
}

fn report_empty(cx: &mut Cx, range: Range<usize>, what: String) {
    cx.report(
        &META,
        range,
        format!("{what}; MCP 2026-07-28 requires at least one of them"),
        "nothing for the client to do",
    )
    .help(HELP_EMPTY);
}

fn is_none(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident("None") || path_ends_with(&p.path, &["Option", "None"]))
}

/// Whether the function around a `json!` result adds `inputRequests` / `requestState` to it
/// afterwards (`result["inputRequests"] = …`): the text of the body outside the object says so.
fn added_later(cx: &Cx, node: &JsonNode) -> bool {
    let Some(bodies) = cx.state_ref::<FnBodies>() else { return false };
    let Some(body) = bodies.bodies.iter().filter(|b| b.contains(&node.range.start)).min_by_key(|b| b.len()) else {
        return false;
    };
    let text = cx.file.text.as_str();
    let outside = [text.get(body.start..node.range.start), text.get(node.range.end..body.end)];
    outside.iter().flatten().any(|t| {
        ["\"inputRequests\"", "\"requestState\"", "input_requests", "request_state"].iter().any(|w| t.contains(w))
    })
}

/// One input request (`inputRequests[key]`): no JSON-RPC members, and one of the three methods.
fn check_input_request(cx: &mut Cx, request: &JsonNode, key: &str) {
    let members = request.members();
    for (i, m) in members.iter().enumerate() {
        if m.key != "jsonrpc" && m.key != "id" {
            continue;
        }
        let edits = crate::json::edit::delete_member(cx.file.text.as_str(), request, members, i);
        // Deleting a Rust expression (`"id": next_id()`) also drops its side effects.
        let applicability =
            if matches!(m.value.kind, JsonKind::Expr(_)) { Applicability::Unsafe } else { Applicability::Safe };
        let finding = cx.report(
            &META,
            m.range.clone(),
            format!(
                "`{}` inside the input request `{key}`: since MCP 2026-07-28 input requests are bare `{{method, params}}` objects, not JSON-RPC requests",
                m.key
            ),
            "a JSON-RPC member in an input request",
        )
        .help("delete it: the client answers under the input request's key in the retry's `inputResponses`, not by id");
        // No edits when the member's comma could not be found: no fix rather than an empty one.
        if !edits.is_empty() {
            finding.fix(Fix { title: format!("remove `{}` from the input request", m.key), applicability, edits });
        }
    }
    if let Some(method) = request.get("method")
        && let JsonKind::String(value) = &method.kind
        && !INPUT_METHODS.contains(&value.as_str())
    {
        cx.report(
            &META,
            method.range.clone(),
            format!(
                "the input request `{key}` asks for `{value}`; MCP 2026-07-28 input requests are `elicitation/create`, `sampling/createMessage` or `roots/list`"
            ),
            "not an input request method",
        )
        .help("ask for what the server needs through one of the three input request methods, or answer the request without input");
    }
}

/// An `input_required` result answering `method` (the client's `request`): the method is one of
/// the three, and each input request needs a capability the request declared.
fn check_answer(cx: &mut Cx, method: &str, request: &JsonNode, result: &JsonNode) {
    let result = match result.get("result") {
        Some(inner) if result.get("resultType").is_none() => inner,
        _ => result,
    };
    if !ALLOWED.contains(&method)
        && let Some(rt) = result.get("resultType")
    {
        cx.report(
            &META,
            rt.range.clone(),
            format!(
                "`input_required` answers the client's `{method}` request; since MCP 2026-07-28 only `tools/call`, `prompts/get` and `resources/read` may ask for input"
            ),
            "input requested for another method",
        )
        .label(request.get("method").map_or(request.range.clone(), |m| m.range.clone()), "the request it answers")
        .help(HELP_WRONG_METHOD);
    }
    // Capabilities declared on the request; without them there is nothing to compare (a missing
    // `_meta` key is `missing-request-meta`'s).
    let Some(caps) = request.get("params").and_then(|p| p.get("_meta")).and_then(|m| m.get(CAPS_KEY)) else {
        return;
    };
    if !caps.is_object() {
        return;
    }
    let Some(input_requests) = result.get("inputRequests") else { return };
    for m in input_requests.members() {
        let Some(method_node) = m.value.get("method") else { continue };
        let Some(missing) = missing_capability(caps, method_node.as_str().unwrap_or(""), m.value.get("params")) else {
            continue;
        };
        let input_method = method_node.as_str().unwrap_or("");
        cx.report(
            &META,
            method_node.range.clone(),
            format!(
                "the input request `{}` asks for `{input_method}`, but the request declared no `{missing}` capability; servers MUST NOT send input requests the client did not declare (MCP 2026-07-28)",
                m.key
            ),
            format!("needs `{missing}`"),
        )
        .label(caps.range.clone(), "the capabilities this request declared")
        .help(
            "check the request's `io.modelcontextprotocol/clientCapabilities` before asking; answer without the input, or \
             with error -32021 (missing required client capability) when the tool cannot work without it",
        );
    }
}

/// The capability an input request needs that `caps` lacks (`elicitation.url`, `sampling.tools`, …).
fn missing_capability(caps: &JsonNode, method: &str, params: Option<&JsonNode>) -> Option<&'static str> {
    let has = |node: &JsonNode, key: &str| node.get(key).is_some_and(|v| !matches!(v.kind, JsonKind::Null));
    let param = |key: &str| params.is_some_and(|p| has(p, key));
    match method {
        "elicitation/create" => {
            let Some(el) = caps.get("elicitation").filter(|v| v.is_object()) else { return Some("elicitation") };
            let mode = params.and_then(|p| p.get("mode")).and_then(JsonNode::as_str).unwrap_or("form");
            match mode {
                "url" if !has(el, "url") => Some("elicitation.url"),
                // `"elicitation": {}` means form mode only; a non-empty object must list `form`.
                "form" if !el.members().is_empty() && !has(el, "form") => Some("elicitation.form"),
                _ => None,
            }
        }
        "sampling/createMessage" => {
            let Some(s) = caps.get("sampling").filter(|v| v.is_object()) else { return Some("sampling") };
            ((param("tools") || param("toolChoice")) && !has(s, "tools")).then_some("sampling.tools")
        }
        "roots/list" => (!caps.get("roots").is_some_and(JsonNode::is_object)).then_some("roots"),
        _ => None,
    }
}

/// The first `InputRequiredResult` identifier or `"input_required"` literal in a token stream.
fn first_input_required(cx: &Cx, tokens: &TokenStream) -> Option<Range<usize>> {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) if i == "InputRequiredResult" => return Some(cx.span_range(i.span())),
            Some(TokenTree::Literal(l)) if l.to_string() == "\"input_required\"" => {
                return Some(cx.span_range(l.span()));
            }
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    None
}

/// Walks one function body for `match` arms on method strings whose body builds an
/// `input_required` result for a method other than the three.
struct ArmWalk<'c, 'a> {
    cx: &'c mut Cx<'a>,
}

impl<'ast> Visit<'ast> for ArmWalk<'_, '_> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        for arm in &m.arms {
            let mut methods = Vec::new();
            arm_methods(self.cx, &arm.pat, &mut methods);
            // Arms that also accept an allowed method may well answer that one.
            if methods.is_empty() || methods.iter().any(|(v, _)| ALLOWED.contains(&v.as_str())) {
                continue;
            }
            let Some(range) = first_input_required(self.cx, &quote::ToTokens::to_token_stream(&arm.body)) else {
                continue;
            };
            let (method, pat_range) = methods[0].clone();
            self.cx
                .report(
                    &META,
                    range,
                    format!(
                        "an `input_required` result for `{method}`; since MCP 2026-07-28 only `tools/call`, `prompts/get` and `resources/read` may ask for input"
                    ),
                    "input requested for another method",
                )
                .label(pat_range, "the method this arm answers")
                .help(HELP_WRONG_METHOD);
        }
        visit::visit_expr_match(self, m);
    }
}

/// MCP method strings in a match arm's pattern (`"tools/list"`, `"initialize" | "ping"`).
fn arm_methods(cx: &Cx, pat: &syn::Pat, out: &mut Vec<(String, Range<usize>)>) {
    match pat {
        syn::Pat::Lit(l) => {
            if let Some((v, r)) = str_value(cx, &Expr::Lit(l.clone()))
                && (has_mcp_prefix(&v) || matches!(v.as_str(), "initialize" | "ping"))
            {
                out.push((v, r));
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| arm_methods(cx, c, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|e| arm_methods(cx, e, out)),
        syn::Pat::Reference(r) => arm_methods(cx, &r.pat, out),
        syn::Pat::Paren(p) => arm_methods(cx, &p.pat, out),
        _ => {}
    }
}

// JSON member deletion. A copy of `roots_list_changed`'s private helper (the lead may move both
// into a shared place).

#[cfg(test)]
mod tests {
    use crate::rules::test_support::check_text;

    fn findings(name: &str, text: &str) -> Vec<(usize, String)> {
        crate::rules::test_support::spans_of("input-required-misuse", name, text)
    }

    fn check(text: &str) -> Vec<String> {
        findings("lib.rs", text).into_iter().map(|(_, s)| s).collect()
    }

    fn fixed(name: &str, text: &str) -> String {
        crate::rules::test_support::safe_fixes_of("input-required-misuse", name, text)
    }

    #[test]
    fn empty_results_in_rust() {
        let text = "use rmcp::model::*;\n\
                    fn a() -> InputRequiredResult { InputRequiredResult::new(None, None) }\n\
                    fn b() -> InputRequiredResult { InputRequiredResult { input_requests: None, request_state: None, meta: None } }\n\
                    fn c(s: String) -> InputRequiredResult { InputRequiredResult::new(None, Some(s)) }\n\
                    fn d() -> Value { serde_json::json!({\"resultType\": \"input_required\"}) }\n\
                    fn e(r: Value) -> Value { let mut v = serde_json::json!({\"resultType\": \"input_required\"}); v[\"inputRequests\"] = r; v }\n";
        assert_eq!(
            check(text),
            ["InputRequiredResult::new(None, None)", "InputRequiredResult", "\"resultType\": \"input_required\""]
        );
    }

    #[test]
    fn wrong_handlers() {
        let text = "use rmcp::{ServerHandler, model::*};\n\
                    impl ServerHandler for S {\n\
                      async fn list_tools(&self, r: Option<PaginatedRequestParams>, cx: RequestContext<RoleServer>) -> R { Ok(InputRequiredResult::from_request_state(s).into()) }\n\
                      async fn call_tool(&self, r: CallToolRequestParams, cx: RequestContext<RoleServer>) -> R { Ok(InputRequiredResult::from_request_state(s).into()) }\n\
                    }\n\
                    fn dispatch(method: &str) -> Value {\n\
                      match method {\n\
                        \"tools/call\" => json!({\"resultType\": \"input_required\", \"requestState\": \"x\"}),\n\
                        \"prompts/list\" => json!({\"resultType\": \"input_required\", \"requestState\": \"x\"}),\n\
                        _ => json!({}),\n\
                      }\n\
                    }\n";
        let got = findings("lib.rs", text);
        assert_eq!(got, [(3, "InputRequiredResult".to_owned()), (9, "\"input_required\"".to_owned())]);
    }

    #[test]
    fn jsonrpc_members_in_input_requests_are_removed() {
        let text = "{\"resultType\": \"input_required\", \"inputRequests\": {\"ok\": {\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"elicitation/create\", \"params\": {}}}}\n";
        assert_eq!(findings("r.json", text).len(), 2);
        assert_eq!(
            fixed("r.json", text),
            "{\"resultType\": \"input_required\", \"inputRequests\": {\"ok\": {\"method\": \"elicitation/create\", \"params\": {}}}}\n"
        );
        let multi = "{\n  \"resultType\": \"input_required\",\n  \"inputRequests\": {\n    \"r\": {\n      \"method\": \"roots/list\",\n      \"id\": 9\n    }\n  }\n}\n";
        assert_eq!(
            fixed("m.json", multi),
            "{\n  \"resultType\": \"input_required\",\n  \"inputRequests\": {\n    \"r\": {\n      \"method\": \"roots/list\"\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn transcript_methods_and_capabilities() {
        let text = concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{}}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"s\"}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{\"a\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"url\"}},\"b\":{\"method\":\"elicitation/create\",\"params\":{}},\"c\":{\"method\":\"sampling/createMessage\",\"params\":{}}}}}\n",
        );
        let got: Vec<(usize, String)> = findings("t.jsonl", text);
        assert_eq!(
            got,
            [
                (2, "\"input_required\"".to_owned()),
                (4, "\"elicitation/create\"".to_owned()),
                (4, "\"sampling/createMessage\"".to_owned()),
            ]
        );
    }

    #[test]
    fn test_code_builds_malformed_results_on_purpose() {
        let text = "use serde_json::json;\n\
                    #[test]\n\
                    fn rejects_empty() { let r = json!({\"resultType\": \"input_required\"}); }\n\
                    #[cfg(test)]\n\
                    mod tests { fn helper() -> R { InputRequiredResult::new(None, None) } }\n\
                    fn real() -> serde_json::Value { json!({\"resultType\": \"input_required\"}) }\n";
        assert_eq!(findings("lib.rs", text), [(6, "\"resultType\": \"input_required\"".to_owned())]);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        let path = dir.path().join("tests/wire.rs");
        assert!(check_text(&path, text).iter().all(|d| d.rule != "input-required-misuse"));
    }

    #[test]
    fn legal_results_are_silent() {
        let text = "{\"resultType\": \"input_required\", \"inputRequests\": {\"r\": {\"method\": \"roots/list\"}}, \"requestState\": \"abc\"}\n";
        assert!(findings("ok.json", text).is_empty());
        let client = "use rmcp::ClientHandler;\n\
                      impl ClientHandler for C { fn t(&self) { let x = serde_json::json!({\"resultType\": \"input_required\"}); } }\n";
        assert!(check(client).is_empty());
    }
}
