//! `request-state-tampering`: a client that parses, decodes or rewrites the `requestState` of an
//! `input_required` result, or sends one the server never gave. Since MCP 2026-07-28 the client
//! echoes `requestState` byte for byte in the retry if and only if the server sent one, and MUST NOT
//! inspect it (C07).
//!
//! Rust (client and unknown-role code; what each fn does with the state is the crate model's,
//! `model::request_state`):
//! - decoding or parsing the state (`serde_json::from_str`, a base64 engine's `decode`, `.parse()`,
//!   `.split_once(…)`, a helper fn of the crate, in any file, that does so) and rewriting it (`.replace(…)`,
//!   `.trim()`, `push_str`, `+`, a `format!` with more than the state);
//! - a retry that sends a state of its own: a literal, a default when the result had none
//!   (`.unwrap_or_default()`), or a JSON-value read (`result["requestState"]`, `.get("requestState")`)
//!   copied unconditionally, which sends `null` when the result carried none.
//!
//! In unknown-role code a state counts as the client's when it is read from a result (`resp`,
//! `result`, `InputRequiredResult`); one read from a request's params is the server's (see
//! `unprotected-request-state`).
//!
//! JSON transcripts: a retry whose `params.requestState` differs from the `requestState` of the
//! `input_required` result it answers, or that carries one when that result had none.
//!
//! `unprotected-request-state` looks at the server's side of the same facts.

use std::collections::HashMap;

use crate::context::{Impact, Role};
use crate::cx::{CrateCx, Cx};
use crate::json::JsonNode;
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage, is_input_required_result};
use crate::model::request_state::{Op, OpKind, Side};
use crate::model::{CrateModel, FileId};
use crate::rules::{Rule, RuleMeta};

pub struct RequestStateTampering;

const HELP: &str = "treat `requestState` as opaque: copy the string from the `input_required` result into the retry's \
     `params.requestState` unchanged, and leave it out when the result had none";

static META: RuleMeta = RuleMeta {
    name: "request-state-tampering",
    summary: "A client parses, decodes or rewrites `requestState`, or sends one the server never gave",
    impact: Impact::Violation,
    // Every finding is about the state itself: its JSON key or one of the SDK spellings.
    triggers: &["requestState", "request_state", "\\bRequestState"],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some(HELP),
    fixable: false,
    doc: include_str!("../../rules/request-state-tampering.md"),
};

impl Rule for RequestStateTampering {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn uses_model(&self) -> bool {
        true
    }

    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        for (id, role, facts) in model.state_fns() {
            // In unknown-role code only a state read from a result is surely the client's; in a
            // server, only that (a proxy relaying an upstream server's state).
            let ours = |side: Side| role == Role::Client || side == Side::Client;
            let ops = model.state_ops(id);
            let ops: Vec<&Op> = ops.iter().filter(|op| ours(op.side)).collect();
            let file = model.file_of(id);
            report_ops(cx, &META, file, &ops, "and", |first, what| {
                let verb = if first.kind == OpKind::Decode { "decodes" } else { "rewrites" };
                (
                    format!(
                        "this client {verb} `requestState` ({what}); since MCP 2026-07-28 clients MUST NOT inspect or \
                         change it"
                    ),
                    format!("{verb} the server's opaque state"),
                    "`requestState` read here",
                )
            });
            let invented = facts
                .invented
                .iter()
                .filter(|i| role == Role::Client || i.side == Side::Client || (role != Role::Server && i.in_request));
            for i in invented {
                cx.report(&META, file, i.range.clone(), i.message.clone(), i.label).help(i.help.clone());
            }
        }
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        /// An `input_required` result not yet answered by a retry.
        struct Pending<'a> {
            method: &'a str,
            target: Option<&'a str>,
            state: Option<&'a JsonNode>,
            result: &'a JsonNode,
        }
        let mut pending: Vec<Pending> = Vec::new();
        // The latest client request per id: (method, target).
        let mut requests: HashMap<String, (&str, Option<&str>)> = HashMap::new();
        for m in messages {
            match m.kind {
                MessageKind::Request { method, id, .. } if m.sender != Sender::Server => {
                    let params = m.message.get("params");
                    let target = params.and_then(target_of);
                    if let Some(key) = id.scalar_key() {
                        requests.insert(key, (method, target));
                    }
                    let Some(params) = params else { continue };
                    let retry_state = params.member("requestState");
                    if params.get("inputResponses").is_none() && retry_state.is_none() {
                        continue;
                    }
                    // The latest unanswered `input_required` of the same call.
                    let Some(i) = pending.iter().rposition(|p| {
                        p.method == method && (p.target.is_none() || target.is_none() || p.target == target)
                    }) else {
                        continue;
                    };
                    let p = pending.remove(i);
                    let Some(sent) = retry_state else { continue };
                    match p.state {
                        Some(given) if given.as_str().is_some() && given.as_str() == sent.value.as_str() => {}
                        Some(given) => {
                            let how = if sent.value.as_str().is_some() {
                                "differs from the `requestState` of the `input_required` result it answers"
                            } else {
                                "is not the string the server sent (it was parsed or replaced)"
                            };
                            cx.report(
                                &META,
                                sent.value.range.clone(),
                                format!(
                                    "this `{method}` retry's `requestState` {how}; since MCP 2026-07-28 the client MUST echo \
                                     it byte for byte"
                                ),
                                "changed `requestState`",
                            )
                            .label(given.range.clone(), "the server sent this");
                        }
                        None => {
                            cx.report(
                                &META,
                                sent.range.clone(),
                                format!(
                                    "this `{method}` retry sends a `requestState`, but the `input_required` result it \
                                     answers had none; since MCP 2026-07-28 the client MUST NOT include one then"
                                ),
                                "`requestState` the server never sent",
                            )
                            .label(p.result.range.clone(), "this result has no `requestState`");
                        }
                    }
                }
                MessageKind::Response { id, result: Some(result), .. } if m.sender != Sender::Client => {
                    if !is_input_required_result(result) {
                        continue;
                    }
                    let Some(&(method, target)) = id.scalar_key().and_then(|k| requests.get(&k)) else { continue };
                    pending.push(Pending { method, target, state: result.get("requestState"), result });
                }
                _ => {}
            }
        }
    }
}

/// Reports the first operation of a function on the state (one not on an already decoded value
/// when there is one), with the call to the helper that does it and up to three more operations
/// as labels. `say` gives the message, the label and the read's label, from the first operation
/// and what it is (with where, for a helper in another file).
pub(crate) fn report_ops(
    cx: &mut CrateCx,
    meta: &'static RuleMeta,
    file: FileId,
    ops: &[&Op],
    more: &str,
    say: impl Fn(&Op, &str) -> (String, String, &'static str),
) {
    let Some(first) = ops.iter().find(|op| !op.derived).or(ops.first()) else { return };
    let what = match first.helper.as_ref().and_then(|h| h.elsewhere) {
        Some((helper_file, at)) => format!("{}, at {}", first.what, cx.place(helper_file, at)),
        None => first.what.clone(),
    };
    let (message, label, read) = say(first, &what);
    let d = cx.report(meta, file, first.range.clone(), message, label);
    d.label(first.source.clone(), read);
    if let Some(h) = first.helper.as_ref().filter(|h| h.call != first.range) {
        d.label(h.call.clone(), format!("passed to `{}` here", h.name));
    }
    for op in ops.iter().filter(|op| !std::ptr::eq(**op, *first)).take(3) {
        d.label(op.range.clone(), format!("{more} {}", op.what));
    }
}

/// What a call is about: the tool or prompt name, or the resource URI (so a retry is matched to
/// the result of the same call when calls interleave).
fn target_of(params: &JsonNode) -> Option<&str> {
    params.get("name").or_else(|| params.get("uri")).and_then(JsonNode::as_str)
}

#[cfg(test)]
mod tests {
    /// (rule, line) of the findings of both `requestState` rules.
    fn found(name: &str, text: &str) -> Vec<(&'static str, usize)> {
        crate::rules::test_support::check_sample(name, text)
            .into_iter()
            .filter(|d| d.rule == "request-state-tampering" || d.rule == "unprotected-request-state")
            .map(|d| (d.rule, text[..d.range.start].lines().count().max(1)))
            .collect()
    }

    #[test]
    fn file_open_is_no_integrity_check() {
        let src = r#"use rmcp::handler::server::tool::RequestState;
#[tool_router]
impl S {
    #[tool]
    async fn t(&self, RequestState(state): RequestState) -> String {
        let _f = std::fs::File::open("/tmp/x");
        let n: u32 = state.unwrap_or_default().parse().unwrap_or(0);
        n.to_string()
    }
}
"#;
        assert_eq!(found("x.rs", src), [("unprotected-request-state", 7)]);
    }

    #[test]
    fn helper_method_and_its_verifying_twin() {
        let src = r#"use serde_json::Value; // answers `tools/call` retries
struct S;
impl S {
    fn load(&self, raw: &str) -> Option<Value> {
        serde_json::from_str(raw).ok()
    }
    fn load_checked(&self, raw: &str) -> Option<Value> {
        self.verify_tag(raw)?;
        serde_json::from_str(raw).ok()
    }
    pub fn resume(&self, req: &Value) -> Option<Value> {
        self.load(req["params"]["requestState"].as_str()?)
    }
    pub fn resume_checked(&self, req: &Value) -> Option<Value> {
        self.load_checked(req["params"]["requestState"].as_str()?)
    }
}
"#;
        assert_eq!(found("x.rs", src), [("unprotected-request-state", 5)]);
    }

    #[test]
    fn kept_format_is_a_rewrite_and_a_log_line_is_not() {
        let src = r#"use serde_json::Value; // after an `input_required` result
pub fn next(resp: &Value) -> Option<String> {
    let state = resp["result"]["requestState"].as_str()?;
    tracing::info!("{}", format!("got {state}"));
    let state = format!("v2:{state}");
    Some(state)
}
"#;
        assert_eq!(found("x.rs", src), [("request-state-tampering", 5)]);
    }

    #[test]
    fn proxy_decoding_upstream_state_is_tampering() {
        let src = r#"use rmcp::{RoleServer, ServerHandler};
use rmcp::model::InputRequiredResult;
pub fn relay(upstream: InputRequiredResult, _peer: RoleServer) -> Option<u32> {
    upstream.request_state.as_deref()?.parse().ok()
}
"#;
        assert_eq!(found("x.rs", src), [("request-state-tampering", 4)]);
    }

    #[test]
    fn other_apis_with_a_request_state_field_are_not_mcp() {
        // A job API's `requestState`, parsed into its own enum, in a crate and file with no MCP.
        let src = r#"pub fn poll(response: &serde_json::Value) -> Option<JobState> {
    response["requestState"].as_str()?.parse().ok()
}
"#;
        assert!(found("x.rs", src).is_empty());
    }

    #[test]
    fn ambiguous_state_in_unknown_role_is_left_alone() {
        let src = r#"pub fn restore(request_state: &str) -> serde_json::Value {
    serde_json::from_str(request_state).unwrap()
}
"#;
        assert!(found("x.rs", src).is_empty());
    }

    #[test]
    fn transcript_compares_strings_not_escapes() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let text = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\",{meta}}}}}\n\
             {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"resultType\":\"input_required\",\"requestState\":\"ab\"}}}}\n\
             {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\",\"requestState\":\"a\\u0062\",{meta}}}}}\n"
        );
        assert!(found("t.jsonl", &text).is_empty());
        let changed = text.replace("a\\u0062", "ac");
        assert_eq!(found("t.jsonl", &changed), [("request-state-tampering", 3)]);
    }
}
