//! `session-header`: the `Mcp-Session-Id` and `Last-Event-ID` HTTP headers, which MCP 2026-07-28
//! removed from the Streamable HTTP transport (C20): no sessions, no resumable streams.
//!
//! What fires:
//! - in Rust, a string literal that is one of the header names (any letter case: HTTP header
//!   names are case-insensitive), or a raw header line starting with one (`"Mcp-Session-Id: {}"`)
//!   (`lit_str`), and rmcp's constants `HEADER_SESSION_ID` / `HEADER_LAST_EVENT_ID` (`expr_path`):
//!   code that mints, echoes, stores or sends the header;
//! - in JSON files and `json!` bodies, a member of a headers object (`"headers"`,
//!   `"requestHeaders"`, …) named like the header, e.g. a client config's
//!   `"headers": {"Mcp-Session-Id": "…"}`; in a server entry of a JSON config the member is deleted
//!   by a safe fix.
//!
//! Not flagged: code that strips the header (`headers.remove("mcp-session-id")`), a check that it
//! is absent (`….get("mcp-session-id").is_none()`), mentions in comments or longer strings (log
//! messages). `Last-Event-ID` in Rust fires only in code about MCP (an MCP SDK, a known role, or
//! MCP named in the file): plain SSE servers use it legitimately.

use std::collections::HashSet;
use std::ops::Range;

use syn::Expr;

use crate::context::{Impact, Role};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Applicability, Fix};
use crate::json::{JsonKind, JsonMember, JsonNode, Step};
use crate::rules::{Rule, RuleMeta};

pub struct SessionHeader;

/// Spellings the rule can fire on. Header names are case-insensitive, but trigger words are not:
/// a name fires only if it also contains one of these (every common spelling does).
const TRIGGERS: &[&str] = &[
    "Session-I",
    "Session-i",
    "session-i",
    "session-I",
    "SESSION-I",
    "Event-I",
    "Event-i",
    "event-i",
    "event-I",
    "EVENT-I",
    "HEADER_SESSION_ID",
    "HEADER_LAST_EVENT_ID",
];

static META: RuleMeta = RuleMeta {
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    name: "session-header",
    summary: "`Mcp-Session-Id` and `Last-Event-ID` were removed from the HTTP transport in MCP 2026-07-28",
    impact: Impact::Removed,
    triggers: TRIGGERS,
    help: None,
    fixable: true,
    doc: include_str!("../../rules/session-header.md"),
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Header {
    SessionId,
    LastEventId,
}

impl Header {
    fn canonical(self) -> &'static str {
        match self {
            Header::SessionId => "Mcp-Session-Id",
            Header::LastEventId => "Last-Event-ID",
        }
    }

    fn message(self) -> String {
        match self {
            Header::SessionId => {
                "`Mcp-Session-Id` was removed in MCP 2026-07-28: there are no sessions, servers never mint or \
                 echo one and clients never send one"
                    .into()
            }
            Header::LastEventId => {
                "`Last-Event-ID` was removed in MCP 2026-07-28: response streams are not resumable".into()
            }
        }
    }

    fn help(self) -> &'static str {
        match self {
            Header::SessionId => {
                "keep state that spans requests behind an explicit identifier the client passes in each request \
                 (a tool argument or handle); servers ignore an incoming `Mcp-Session-Id` (dual-era servers may \
                 still use it for clients on older revisions)"
            }
            Header::LastEventId => {
                "drop resumption: when a response stream breaks, the client re-issues the request with a new \
                 JSON-RPC id; servers ignore an incoming `Last-Event-ID`"
            }
        }
    }
}

/// The header a name stands for: a case-insensitive match that is also spelled with one of the
/// trigger words (see `TRIGGERS`).
fn header_named(name: &str) -> Option<Header> {
    let header = if name.eq_ignore_ascii_case("mcp-session-id") {
        Header::SessionId
    } else if name.eq_ignore_ascii_case("last-event-id") {
        Header::LastEventId
    } else {
        return None;
    };
    TRIGGERS.iter().any(|t| name.contains(t)).then_some(header)
}

/// A string that is a header name, or a raw header line (`"Mcp-Session-Id: {}"`).
fn header_in_literal(value: &str) -> Option<Header> {
    let name = match value.split_once(':') {
        Some((name, _)) => name,
        None => value,
    };
    header_named(name.trim_end())
}

/// Keys of objects that hold HTTP headers.
fn is_headers_key(key: &str) -> bool {
    key.to_ascii_lowercase().contains("header")
}

/// Members that make an object a server entry of a client config (or a `server.json` remote).
const SERVER_ENTRY_KEYS: &[&str] = &["url", "uri", "serverUrl", "type", "transport", "command", "endpoint"];

/// Literals and paths that strip or check the absence of the header: not a use of it.
#[derive(Default)]
struct State {
    exempt: HashSet<usize>,
}

/// Whether Rust code here is about MCP (for `Last-Event-ID`, which plain SSE code uses too).
fn mcp_context(cx: &Cx) -> bool {
    if !cx.file_sdks.is_empty() || !cx.crate_ctx.sdks.is_empty() || cx.role() != Role::Unknown {
        return true;
    }
    let t = cx.file.text.as_str();
    t.contains("mcp") || t.contains("Mcp") || t.contains("MCP")
}

impl Rule for SessionHeader {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        // `headers.remove("mcp-session-id")`: stripping a legacy header is what a modern server does.
        if matches!(name, "remove" | "remove_header" | "strip" | "strip_header") {
            for arg in &call.args {
                exempt(cx, arg);
            }
        }
        // `!headers.contains_key("mcp-session-id")`: asserting that no session was minted.
        if matches!(name, "contains_key" | "contains" | "has" | "has_header") {
            let start = cx.node_range(call).start;
            if cx.file.text.get(..start).is_some_and(|t| t.trim_end().ends_with('!')) {
                for arg in &call.args {
                    exempt(cx, arg);
                }
            }
        }
        // `….get("mcp-session-id").is_none()`: the same.
        if name == "is_none"
            && let Expr::MethodCall(inner) = &*call.receiver
            && matches!(inner.method.to_string().as_str(), "get" | "get_all" | "typed_get")
        {
            for arg in &inner.args {
                exempt(cx, arg);
            }
        }
    }

    fn lit_str(&self, cx: &mut Cx, lit: &syn::LitStr, value: &str) {
        let Some(header) = header_in_literal(value) else { return };
        let range = cx.node_range(lit);
        if is_exempt(cx, &range) {
            return;
        }
        if header == Header::LastEventId && !mcp_context(cx) {
            return;
        }
        report(cx, header, range);
    }

    fn expr_path(&self, cx: &mut Cx, path: &syn::ExprPath) {
        // Compared in place: this runs for every path expression of the file.
        let Some(last) = path.path.segments.last().map(|s| &s.ident) else { return };
        let header = if last == "HEADER_SESSION_ID" {
            Header::SessionId
        } else if last == "HEADER_LAST_EVENT_ID" {
            Header::LastEventId
        } else {
            return;
        };
        let range = cx.node_range(path);
        if is_exempt(cx, &range) {
            return;
        }
        report(cx, header, range);
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, _path: &[Step]) {
        // Looked at from the object that holds the headers object, so the fix can tell a server
        // entry of a config (`{"url": …, "headers": {…}}`) from a recorded HTTP exchange.
        let JsonKind::Object(members) = &node.kind else { return };
        let server_entry = members.iter().any(|m| SERVER_ENTRY_KEYS.contains(&m.key.as_str()));
        for holder in members.iter().filter(|m| is_headers_key(&m.key)) {
            let JsonKind::Object(headers) = &holder.value.kind else { continue };
            for (i, m) in headers.iter().enumerate() {
                let Some(header) = header_named(&m.key) else { continue };
                let fixable = cx.origin == Origin::JsonFile && server_entry;
                report_json(cx, header, &holder.value, headers, i, m, fixable);
            }
        }
    }
}

fn exempt(cx: &mut Cx, arg: &Expr) {
    let start = cx.node_range(arg).start;
    cx.state::<State>().exempt.insert(start);
}

fn is_exempt(cx: &Cx, range: &Range<usize>) -> bool {
    cx.state_ref::<State>().is_some_and(|s| s.exempt.contains(&range.start))
}

fn report(cx: &mut Cx, header: Header, range: Range<usize>) {
    let shown = cx.text(range.clone()).to_owned();
    let label =
        if shown.starts_with('"') { format!("the `{}` header", header.canonical()) } else { format!("`{shown}`") };
    cx.report(&META, range, header.message(), label).help(header.help());
}

fn report_json(
    cx: &mut Cx,
    header: Header,
    obj: &JsonNode,
    members: &[JsonMember],
    i: usize,
    m: &JsonMember,
    fixable: bool,
) {
    let edits = fixable.then(|| crate::json::edit::delete_member(cx.file.text.as_str(), obj, members, i));
    let d = cx.report(&META, m.key_range.clone(), header.message(), "removed header").help(header.help());
    if let Some(edits) = edits {
        d.fix(Fix { title: format!("remove the `{}` header", m.key), applicability: Applicability::Safe, edits });
    }
}

#[cfg(test)]
mod tests {

    use crate::diagnostic::Diagnostic;

    fn findings(name: &str, text: &str) -> Vec<Diagnostic> {
        crate::rules::test_support::diagnostics_of("session-header", name, text)
    }

    fn spans(name: &str, text: &str) -> Vec<String> {
        findings(name, text).iter().map(|d| text[d.range.clone()].to_owned()).collect()
    }

    fn fixed(name: &str, text: &str) -> String {
        crate::rules::test_support::with_fixes(text, findings(name, text), true)
    }

    #[test]
    fn header_names_any_case() {
        assert!(super::header_named("mcp-session-id").is_some());
        assert!(super::header_named("MCP-SESSION-ID").is_some());
        assert!(super::header_named("Last-Event-Id").is_some());
        assert!(super::header_named("x-mcp-session-id").is_none());
        assert!(super::header_in_literal("Mcp-Session-Id: {}").is_some());
        assert!(super::header_in_literal("ignoring Mcp-Session-Id from {peer}").is_none());
    }

    #[test]
    fn rust_uses_and_negatives() {
        let text = "use rmcp::transport::common::http_header::HEADER_SESSION_ID;\n\
                    const SESSION: &str = \"mcp-session-id\";\n\
                    fn f(resp: &mut Response, req: &Request, id: &str) {\n\
                      resp.headers_mut().insert(HEADER_SESSION_ID, id.parse().unwrap());\n\
                      req.headers_mut().remove(\"mcp-session-id\");\n\
                      assert!(resp.headers().get(\"Mcp-Session-Id\").is_none());\n\
                      tracing::debug!(\"ignoring Mcp-Session-Id {}\", id);\n\
                      let last = req.headers().get(\"Last-Event-ID\");\n\
                    }\n";
        assert_eq!(spans("srv.rs", text), ["\"mcp-session-id\"", "HEADER_SESSION_ID", "\"Last-Event-ID\""]);
    }

    #[test]
    fn last_event_id_needs_mcp() {
        let text = "fn sse(req: &Request) { let resume = req.headers().get(\"Last-Event-ID\"); }\n";
        assert!(spans("sse.rs", text).is_empty());
    }

    #[test]
    fn json_config_fix() {
        let text = "{\n  \"mcpServers\": {\n    \"api\": {\n      \"url\": \"https://api.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer x\",\n        \"Mcp-Session-Id\": \"3f2a\"\n      }\n    }\n  }\n}\n";
        assert_eq!(spans("mcp.json", text), ["\"Mcp-Session-Id\""]);
        let after = fixed("mcp.json", text);
        assert_eq!(
            after,
            "{\n  \"mcpServers\": {\n    \"api\": {\n      \"url\": \"https://api.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer x\"\n      }\n    }\n  }\n}\n"
        );
        // A recorded exchange: reported, not rewritten.
        let rec = "{\"response\": {\"status\": 200, \"headers\": {\"mcp-session-id\": \"3f2a\"}}}\n";
        let found = findings("rec.json", rec);
        assert_eq!(found.len(), 1);
        assert!(found[0].fix.is_none());
    }
}
