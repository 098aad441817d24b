//! `missing-request-meta`: a client request without `io.modelcontextprotocol/protocolVersion` and
//! `io.modelcontextprotocol/clientCapabilities` in `params._meta`, which every request carries
//! since MCP 2026-07-28 (C03), or with one of those keys misspelled.
//!
//! Where it looks: `json!` requests (an object with `method` and `id`) in Rust code that is not a
//! server's, a JSON file that is one request, and the client requests of JSON transcripts.
//!
//! Era: 2026-07-28 is what makes the keys required, so
//! - a transcript with an `initialize` request, and code of a legacy-only crate, are silent;
//! - every client request is checked where the crate targets 2026-07-28 only, or where the
//!   transcript declares it (a request names version 2026-07-28 or later in `params._meta`, or
//!   sends `server/discover`);
//! - elsewhere (dual-era and unknown crates) a request is checked only when it shows it is meant
//!   for 2026-07-28: its `_meta` already holds an `io.modelcontextprotocol/` key or a misspelling of
//!   a required key, or its method exists only in 2026-07-28 (`server/discover`,
//!   `subscriptions/listen`). A dual-era client sends legacy requests after its `initialize`
//!   fallback, and they rightly have no `_meta`.
//!
//! A misspelled key (`protocolVersion` without the prefix, `io.modelcontextprotocol/clientCapability`,
//! wrong case, `_` for camelCase) is reported as such, with a safe fix that renames it.

use crate::context::{Era, Impact, Role};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage, classify};
use crate::json::{JsonKind, JsonNode, Step};
use crate::rules::missing_result_type::insert_first_members;
use crate::rules::{Rule, RuleMeta};
use crate::source::FileKind;

pub struct MissingRequestMeta;

pub(crate) const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const REQUIRED: [&str; 2] = [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY];
const MCP_PREFIX: &str = "io.modelcontextprotocol/";

static META: RuleMeta = RuleMeta {
    name: "missing-request-meta",
    summary: "A 2026-07-28 client request without `protocolVersion` and `clientCapabilities` in `params._meta`",
    impact: Impact::Violation,
    // Every finding is on a request, an object with a `"method"` member in JSON and in `json!` bodies.
    triggers: &[],
    json_triggers: &["\"method\""],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some(
        "send `\"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\", \
         \"io.modelcontextprotocol/clientCapabilities\": {…}}` in `params` of every request \
         (`{}` declares no optional capabilities)",
    ),
    fixable: true,
    doc: include_str!("../../rules/missing-request-meta.md"),
};

/// The client requests of MCP 2026-07-28 (with the tasks extension's). Other methods are another
/// protocol's (the Agent Client Protocol's `session/new`, LSP's `textDocument/hover`), a vendor's,
/// what servers used to send (`roots/list`, …), or removed in 2026-07-28 (`initialize`, `ping`, …:
/// another rule reports those, and a missing `_meta` on them is beside the point).
const CLIENT_METHODS: &[&str] = &[
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

/// Methods that exist only in 2026-07-28: a request for one is meant for it.
const MODERN_METHODS: &[&str] = &["server/discover", "subscriptions/listen"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every request must carry the keys.
    All,
    /// Only requests that show they are meant for 2026-07-28.
    IntentOnly,
}

impl Rule for MissingRequestMeta {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        let MessageKind::Request { method, .. } = classify(node) else { return };
        if !CLIENT_METHODS.contains(&method) {
            return;
        }
        let mode = match cx.crate_ctx.era.era {
            Era::Legacy => return,
            Era::Modern => Mode::All,
            Era::Dual | Era::Unknown => Mode::IntentOnly,
        };
        let quiet_missing = match cx.origin {
            // A server's requests are server-initiated (another rule's); its `json!` replies are not requests.
            Origin::Rust => {
                if cx.role() == Role::Server {
                    return;
                }
                meta_set_in_code(cx)
            }
            // A transcript's requests are judged by `transcript`, with the transcript's own evidence.
            Origin::JsonFile => {
                if !path.is_empty() || cx.file.kind() == FileKind::Jsonl {
                    return;
                }
                false
            }
        };
        check_request(cx, node, method, mode, quiet_missing);
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        let era = TranscriptEra::of(messages);
        if era.legacy {
            return;
        }
        let mode = match cx.crate_ctx.era.era {
            _ if era.declared => Mode::All,
            Era::Modern => Mode::All,
            Era::Legacy => return,
            Era::Dual | Era::Unknown => Mode::IntentOnly,
        };
        for m in messages {
            if let MessageKind::Request { method, .. } = m.kind
                && m.sender != Sender::Server
                && CLIENT_METHODS.contains(&method)
            {
                check_request(cx, m.message, method, mode, false);
            }
        }
    }
}

fn is_quoted_key(cx: &Cx, m: &crate::json::JsonMember) -> bool {
    cx.text(m.key_range.clone()).starts_with('"')
}

fn check_request(cx: &mut Cx, request: &JsonNode, method: &str, mode: Mode, quiet_missing: bool) {
    let params = request.member("params");
    if let Some(p) = params
        && !p.value.is_object()
    {
        // `"params": params` in a `json!` body: built elsewhere, unknown here.
        return;
    }
    let meta = params.and_then(|p| p.value.member("_meta"));
    if let Some(m) = meta
        && !m.value.is_object()
    {
        return;
    }
    let meta_members = meta.map(|m| m.value.members()).unwrap_or_default();
    // A key that is a Rust expression (`(PROTOCOL_VERSION): "2026-07-28"`) may be any key.
    if meta_members.iter().any(|m| !is_quoted_key(cx, m)) {
        return;
    }

    let present: Vec<&str> = REQUIRED.iter().copied().filter(|k| meta_members.iter().any(|m| m.key == *k)).collect();
    // Misspellings of keys that are missing, each claiming the key it stands for.
    let mut misspelled: Vec<(&crate::json::JsonMember, &'static str)> = Vec::new();
    for m in meta_members {
        if let Some(intended) = misspelling_of(&m.key)
            && !present.contains(&intended)
            && !misspelled.iter().any(|(_, k)| *k == intended)
        {
            misspelled.push((m, intended));
        }
    }
    let missing: Vec<&'static str> =
        REQUIRED.iter().copied().filter(|k| !present.contains(k) && !misspelled.iter().any(|(_, i)| i == k)).collect();

    let intent = MODERN_METHODS.contains(&method)
        || !misspelled.is_empty()
        || meta_members.iter().any(|m| m.key.starts_with(MCP_PREFIX));
    if mode == Mode::IntentOnly && !intent {
        return;
    }

    for (m, intended) in &misspelled {
        let key_text = cx.text(m.key_range.clone()).to_owned();
        cx.report(
            &META,
            m.key_range.clone(),
            format!(
                "`{}` in `_meta` is a misspelling of `{intended}`, which every request carries since MCP 2026-07-28",
                m.key
            ),
            format!("should be `{intended}`"),
        )
        .help(format!(
            "rename the key to `{intended}`: servers look for that exact key and reject the request without it"
        ))
        .fix(Fix {
            title: format!("rename `{}` to `{intended}`", m.key),
            applicability: Applicability::Safe,
            // The key's quotes are kept as written (a `json!` key is a Rust string literal).
            edits: vec![Edit::replace(m.key_range.clone(), requote(&key_text, intended))],
        });
    }

    if missing.is_empty() || quiet_missing {
        return;
    }
    let names = missing.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" and ");
    let (range, message, label) = match (meta, params) {
        (Some(m), _) => (
            m.key_range.clone(),
            format!(
                "the `_meta` of this `{method}` request lacks {names}, required on every request since MCP 2026-07-28"
            ),
            "incomplete request `_meta`",
        ),
        (None, Some(p)) => (
            p.key_range.clone(),
            format!(
                "this `{method}` request has no `params._meta` with {names}, required on every request since MCP 2026-07-28"
            ),
            "no `_meta` in these params",
        ),
        (None, None) => match request.member("method") {
            Some(m) => (
                m.value.range.clone(),
                format!(
                    "this `{method}` request has no `params` (with `_meta` holding {names}); since MCP 2026-07-28 \
                     `params._meta` is required on every request"
                ),
                "request without `params`",
            ),
            None => return,
        },
    };
    let fix = missing_fix(cx, meta.map(|m| &m.value), params.map(|p| &p.value), &missing);
    let misplaced = misplaced_keys(request);
    let d = cx.report(&META, range, message, label);
    d.help("servers answer a request without these keys with -32602 (Invalid params); add them to `params._meta`");
    for (range, what) in misplaced {
        d.label(range, what);
    }
    if let Some(fix) = fix {
        d.fix(fix);
    }
}

/// The fix for missing keys: insert them at the start of `_meta` (or a new `_meta` at the start of
/// `params`). The version is 2026-07-28, which the request targets; the capabilities are `{}`,
/// "no optional capabilities", which may be fewer than the client has: that part needs review.
fn missing_fix(cx: &Cx, meta: Option<&JsonNode>, params: Option<&JsonNode>, missing: &[&str]) -> Option<Fix> {
    let value = |k: &str| if k == PROTOCOL_VERSION_KEY { "\"2026-07-28\"".to_owned() } else { "{}".to_owned() };
    let applicability =
        if missing.contains(&CLIENT_CAPABILITIES_KEY) { Applicability::Unsafe } else { Applicability::Safe };
    let text = cx.file.text.as_str();
    let edit = match (meta, params) {
        (Some(meta), _) => {
            let members: Vec<(&str, String)> = missing.iter().map(|k| (*k, value(k))).collect();
            insert_first_members(text, meta, &members)?
        }
        (None, Some(params)) => {
            // The new object in the layout of `params` (compact JSON stays compact).
            let compact = params.members().first().is_some_and(|m| {
                text.get(m.key_range.end..m.value.range.start).is_some_and(|between| !between.contains(": "))
            });
            let (colon, comma) = if compact { (":", ",") } else { (": ", ", ") };
            let inner = missing.iter().map(|k| format!("\"{k}\"{colon}{}", value(k))).collect::<Vec<_>>().join(comma);
            insert_first_members(text, params, &[("_meta", format!("{{{inner}}}"))])?
        }
        (None, None) => return None,
    };
    let title = if missing.contains(&CLIENT_CAPABILITIES_KEY) {
        "add the missing `_meta` keys (review the declared client capabilities: `{}` declares none)"
    } else {
        "add `io.modelcontextprotocol/protocolVersion: \"2026-07-28\"` to `_meta`"
    };
    Some(Fix { title: title.into(), applicability, edits: vec![edit] })
}

/// Keys of `_meta` written in the wrong place: a `_meta` beside `params`, the version or the
/// capabilities at the top level of `params`.
fn misplaced_keys(request: &JsonNode) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let mut out = Vec::new();
    if let Some(m) = request.member("_meta") {
        out.push((m.key_range.clone(), "`_meta` belongs inside `params`, not beside it"));
    }
    if let Some(params) = request.get("params") {
        for m in params.members() {
            if matches!(m.key.as_str(), "protocolVersion" | "clientCapabilities" | "capabilities") {
                out.push((
                    m.key_range.clone(),
                    "this belongs in `params._meta` under its `io.modelcontextprotocol/` key",
                ));
            }
        }
    }
    out
}

/// `"protocolVersion"` → `"io.modelcontextprotocol/protocolVersion"`, keeping raw-string or plain quoting.
fn requote(written: &str, key: &str) -> String {
    if let Some(rest) = written.strip_prefix('r') {
        let hashes = rest.chars().take_while(|c| *c == '#').count();
        let h = "#".repeat(hashes);
        format!("r{h}\"{key}\"{h}")
    } else {
        format!("\"{key}\"")
    }
}

/// The required key a `_meta` key was meant to be, when it is a near miss: no or another MCP
/// prefix (`protocolVersion`, `modelcontextprotocol.io/protocolVersion`), other case, `_`/`-`
/// instead of camelCase, a typo, or `clientCapability`. Keys under a vendor prefix
/// (`com.example/protocolVersion`) are the vendor's own.
pub(crate) fn misspelling_of(key: &str) -> Option<&'static str> {
    if REQUIRED.contains(&key) {
        return None;
    }
    let lower = key.to_ascii_lowercase();
    let (prefix, name) = match lower.rfind('/') {
        Some(i) => (&lower[..i], &lower[i + 1..]),
        None if lower.contains("modelcontextprotocol") => match lower.rfind('.') {
            Some(i) => (&lower[..i], &lower[i + 1..]),
            None => return None,
        },
        None => ("", lower.as_str()),
    };
    let mcp_prefix = prefix.is_empty()
        || prefix.contains("modelcontextprotocol")
        || prefix.split(['.', '/', '-', '_']).any(|part| part == "mcp");
    if !mcp_prefix {
        return None;
    }
    let name: String = name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')).collect();
    if levenshtein(&name, "protocolversion") <= 2 {
        Some(PROTOCOL_VERSION_KEY)
    } else if levenshtein(&name, "clientcapabilities") <= 2
        || matches!(name.as_str(), "clientcapability" | "capabilities" | "clientcaps")
    {
        Some(CLIENT_CAPABILITIES_KEY)
    } else {
        None
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// What a transcript says about the revision it was recorded with.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct TranscriptEra {
    /// It has an `initialize` request: a legacy (or legacy-fallback) exchange.
    pub legacy: bool,
    /// A request names protocol version 2026-07-28 or later in `params._meta` (under the right key
    /// or a misspelling of it), or it sends `server/discover`.
    pub declared: bool,
    /// Some result carries `resultType`, which only 2026-07-28 results have.
    pub typed_results: bool,
}

impl TranscriptEra {
    pub fn of(messages: &[TranscriptMessage]) -> TranscriptEra {
        let mut era = TranscriptEra::default();
        for m in messages {
            match m.kind {
                MessageKind::Request { method, .. } => {
                    era.legacy |= method == "initialize";
                    era.declared |= method == "server/discover" || declares_modern_version(m.message);
                }
                MessageKind::Response { result: Some(result), .. } => {
                    era.typed_results |= result.get("resultType").is_some();
                }
                _ => {}
            }
        }
        era
    }
}

/// Whether a request's `params._meta` names protocol version 2026-07-28 or later.
fn declares_modern_version(request: &JsonNode) -> bool {
    let Some(meta) = request.get("params").and_then(|p| p.get("_meta")) else { return false };
    meta.members().iter().any(|m| {
        (m.key == PROTOCOL_VERSION_KEY || misspelling_of(&m.key) == Some(PROTOCOL_VERSION_KEY))
            && matches!(&m.value.kind, JsonKind::String(v) if is_modern_version(v))
    })
}

/// `2026-07-28` or a later dated revision (dates compare as strings).
fn is_modern_version(v: &str) -> bool {
    v.len() == 10 && v.as_bytes()[4] == b'-' && v.as_bytes()[7] == b'-' && v >= "2026-07-28"
}

/// Whether the file's code handles `_meta` outside `json!` keys: `req["params"]["_meta"] = …`,
/// `.insert("_meta", …)`, a `with_meta` helper. Then a `json!` request without
/// `_meta` may get it before it is sent, and a missing key is not reported (misspellings are).
fn meta_set_in_code(cx: &mut Cx) -> bool {
    #[derive(Default)]
    struct Scan(Option<bool>);
    if let Some(Scan(Some(known))) = cx.state_ref::<Scan>() {
        return *known;
    }
    // `["_meta"]`, `.insert("_meta", …)`, `"/params/_meta"`, `with_meta(…)`, `add_request_meta(…)`.
    let found = code_mentions(cx.file.text.as_str(), "_meta", false);
    cx.state::<Scan>().0 = Some(found);
    found
}

/// Whether `needle` occurs in code other than a JSON key (`"needle": …`) or a `//` comment; with
/// `any_form`, a key counts too.
pub(crate) fn code_mentions(text: &str, needle: &str, any_form: bool) -> bool {
    text.match_indices(needle)
        .any(|(i, _)| !in_line_comment(text, i) && (any_form || !is_key_form(text, i, i + needle.len())))
}

/// Whether `text[start..end]` is the body of a quoted key followed by `:` (not `::`).
fn is_key_form(text: &str, start: usize, end: usize) -> bool {
    let quoted_before = start > 0 && text.as_bytes()[start - 1] == b'"';
    let Some(rest) = text.get(end..) else { return false };
    let Some(after_quote) = rest.strip_prefix('"') else { return false };
    let after = after_quote.trim_start();
    quoted_before && after.starts_with(':') && !after.starts_with("::")
}

/// Whether byte `i` sits after `//` on its line (a comment, or a URL in a string: either way not
/// code that sets anything).
fn in_line_comment(text: &str, i: usize) -> bool {
    let line_start = text[..i].rfind('\n').map_or(0, |p| p + 1);
    text[line_start..i].contains("//")
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::diagnostic::Diagnostic;

    fn findings(name: &str, text: &str) -> Vec<Diagnostic> {
        crate::rules::test_support::diagnostics_of("missing-request-meta", name, text)
    }

    fn fixed(name: &str, text: &str, unsafe_too: bool) -> String {
        crate::rules::test_support::with_fixes(text, findings(name, text), unsafe_too)
    }

    #[test]
    fn misspellings() {
        for (key, want) in [
            ("protocolVersion", Some(PROTOCOL_VERSION_KEY)),
            ("io.modelcontextprotocol/protocol_version", Some(PROTOCOL_VERSION_KEY)),
            ("io.modelcontextprotocol/ProtocolVersion", Some(PROTOCOL_VERSION_KEY)),
            ("modelcontextprotocol.io/protocolVersion", Some(PROTOCOL_VERSION_KEY)),
            ("io.modelcontextprotocol.protocolVersion", Some(PROTOCOL_VERSION_KEY)),
            ("io.modelcontextprotocol/protocolVerison", Some(PROTOCOL_VERSION_KEY)),
            ("io.modelcontextprotocol/clientCapability", Some(CLIENT_CAPABILITIES_KEY)),
            ("clientCapabilities", Some(CLIENT_CAPABILITIES_KEY)),
            ("io.modelcontextprotocol/client_capabilities", Some(CLIENT_CAPABILITIES_KEY)),
            ("io.modelcontextprotocol/protocolVersion", None),
            ("io.modelcontextprotocol/clientInfo", None),
            ("io.modelcontextprotocol/logLevel", None),
            ("progressToken", None),
            ("com.example/protocolVersion", None),
            ("traceparent", None),
        ] {
            assert_eq!(misspelling_of(key), want, "{key}");
        }
    }

    #[test]
    fn misspelled_key_is_renamed_safely() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
        let found = findings("r.json", text);
        assert_eq!(found.len(), 1, "{found:?}");
        let got = fixed("r.json", text, false);
        assert!(got.contains("\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""), "{got}");
        assert!(findings("r.json", &got).is_empty());
    }

    #[test]
    fn missing_capabilities_fix_is_unsafe() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}\n";
        assert_eq!(fixed("r.json", text, false), text);
        let got = fixed("r.json", text, true);
        assert!(
            got.contains("\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/protocolVersion\""),
            "{got}"
        );
        assert!(findings("r.json", &got).is_empty());
    }

    #[test]
    fn json_macro_fixes_keep_the_layout() {
        let src = "fn f(id: u64) -> Value {\n    json!({\n        \"id\": id,\n        \"method\": \"tools/list\",\n        \"params\": {\n            \"_meta\": {\n                \"io.modelcontextprotocol/ProtocolVersion\": \"2026-07-28\"\n            }\n        }\n    })\n}\n";
        let safe = fixed("x.rs", src, false);
        assert!(
            safe.contains("                \"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\"\n"),
            "{safe}"
        );
        syn::parse_file(&safe).unwrap();
        let all = fixed("x.rs", &safe, true);
        assert!(
            all.contains("\"_meta\": {\n                \"io.modelcontextprotocol/clientCapabilities\": {},\n                \"io.modelcontextprotocol/protocolVersion\""),
            "{all}"
        );
        syn::parse_file(&all).unwrap();
        assert!(findings("x.rs", &all).is_empty());
    }

    #[test]
    fn key_form_and_comments() {
        assert!(!code_mentions("let v = json!({\"resultType\": \"complete\"});", "resultType", false));
        assert!(code_mentions("v[\"result\"][\"resultType\"] = json!(\"complete\");", "resultType", false));
        assert!(!code_mentions("// sets resultType later\n", "resultType", false));
    }
}

#[cfg(test)]
mod era_tests {
    use std::path::Path;

    use crate::rules::test_support::check_text;

    fn count(name: &str, text: &str) -> usize {
        check_text(Path::new(name), text).iter().filter(|d| d.rule == "missing-request-meta").count()
    }

    #[test]
    fn legacy_transcripts_are_silent() {
        // Even a request with a partial `_meta`: a transcript with `initialize` is a legacy exchange.
        let text = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"progressToken\":1}}}\n";
        assert_eq!(count("t.jsonl", text), 0);
    }

    #[test]
    fn declared_transcripts_check_every_client_request() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"elicitation/create\",\"params\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n";
        assert_eq!(count("t.jsonl", text), 1);
    }
}
