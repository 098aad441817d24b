//! `deprecated-feature`: roots, sampling and logging (deprecated by SEP-2577 in MCP 2026-07-28,
//! earliest removal 2027-07-28), sampling's `includeContext: "thisServer" | "allServers"`
//! (SEP-2596) and the HTTP+SSE transport in configs (deprecated since 2025-03-26).
//!
//! What fires, each from its own hook:
//! - rmcp capability builders: `enable_roots*`, `enable_sampling*`, `enable_logging*`
//!   (`method_call`), but not `enable_roots_list_changed` (that is `roots-list-changed`'s; the
//!   chain's `enable_roots()` is still reported here: the flag's removal and the roots
//!   deprecation are two migrations);
//! - capability struct literals: `ClientCapabilities { roots: Some(..), sampling: Some(..) }`,
//!   `ServerCapabilities { logging: Some(..) }` (`struct_lit`);
//! - client handler overrides that answer roots / sampling / log messages: rmcp's
//!   `ClientHandler::{list_roots, create_message, on_logging_message}`, rust-mcp-sdk's
//!   `handle_list_roots_request`, `handle_create_message_request`,
//!   `handle_logging_message_notification` (`rust_fn`);
//! - sending logs: `notify_logging_message(..)` (`method_call`);
//! - JSON capability declarations `capabilities.{roots,sampling,logging}` (files and `json!`
//!   bodies), `"includeContext": "thisServer" | "allServers"` (safe fix: remove the member), and
//!   `"type": "sse"` / `"transport": "sse"` in configs (display-only suggestion) (`json_node`);
//! - `ContextInclusion::ThisServer` / `AllServers` in Rust (`expr_path`, and `struct_lit` for the
//!   `include_context: Some(..)` field, with a fix).
//!
//! A roots declaration that also sets `listChanged` gets this rule's finding on `roots` and
//! `roots-list-changed`'s on the flag, as `"sampling"` beside it gets its own.
//!
//! Deliberately left to other rules (one finding per place): the `listChanged` flag and
//! `enable_roots_list_changed` (`roots-list-changed`), server-side `list_roots()` / `create_message(..)` calls
//! (`server-roots-request`, `server-initiated-request`), and `ServerHandler::set_level` overrides
//! and clients' `set_level(SetLevelRequestParams ..)` calls: `logging/setLevel` was removed, which
//! `removed-method` reports.

use std::collections::HashSet;
use std::ops::Range;

use syn::Expr;

use crate::context::{Impact, Role, Sdk};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::json::{JsonKind, JsonMember, JsonNode, Step};
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::syntax::{last_ident, method_call_range};

pub struct DeprecatedFeature;

static META: RuleMeta = RuleMeta {
    name: "deprecated-feature",
    summary: "Roots, sampling, logging, `includeContext` and the HTTP+SSE transport are deprecated in MCP 2026-07-28",
    impact: Impact::Deprecated { earliest_removal: "2027-07-28" },
    // Every finding needs one of these in the file: the builder and handler names contain
    // `enable_roots` / `enable_sampling` / `enable_logging`, `list_roots`, `create_message`,
    // `logging_message`; struct literals name their type; JSON capability keys are
    // quoted `"roots"` / `"sampling"` / `"logging"`; the rest are spelled out.
    triggers: &[
        "enable_roots",
        "enable_sampling",
        "enable_logging",
        "list_roots",
        "create_message",
        "logging_message",
        "ClientCapabilities",
        "\\bServerCapabilities",
        "includeContext",
        "ThisServer",
        "AllServers",
    ],
    json_triggers: &["\"roots\"", "\"sampling\"", "\"logging\"", "\"sse\""],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some(
        "roots, sampling and logging are deprecated by SEP-2577: pass directories as tool parameters, call an LLM \
         provider's API directly, and log to stderr or OpenTelemetry",
    ),
    fixable: true,
    doc: include_str!("../../rules/deprecated-feature.md"),
};

/// The three features SEP-2577 deprecates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Feature {
    Roots,
    Sampling,
    Logging,
}

impl Feature {
    fn name(self) -> &'static str {
        match self {
            Feature::Roots => "roots",
            Feature::Sampling => "sampling",
            Feature::Logging => "logging",
        }
    }

    fn from_key(key: &str) -> Option<Feature> {
        match key {
            "roots" => Some(Feature::Roots),
            "sampling" => Some(Feature::Sampling),
            "logging" => Some(Feature::Logging),
            _ => None,
        }
    }

    fn help(self) -> &'static str {
        match self {
            Feature::Roots => {
                "roots are deprecated (SEP-2577): take directories or files as tool parameters, resource URIs or \
                 server configuration instead"
            }
            Feature::Sampling => {
                "sampling is deprecated (SEP-2577): servers should call an LLM provider's API directly instead of \
                 asking the client"
            }
            Feature::Logging => {
                "logging is deprecated (SEP-2577): log to stderr (stdio) or export OpenTelemetry instead of sending \
                 `notifications/message`"
            }
        }
    }
}

/// rmcp's capability builder methods of the deprecated features.
fn builder_feature(name: &str) -> Option<Feature> {
    match name {
        "enable_roots" | "enable_roots_with" => Some(Feature::Roots),
        "enable_sampling" | "enable_sampling_with" | "enable_sampling_tools" | "enable_sampling_context" => {
            Some(Feature::Sampling)
        }
        "enable_logging" | "enable_logging_with" => Some(Feature::Logging),
        _ => None,
    }
}

/// Capability builder methods that are not deprecated: seeing one in the same chain shows the
/// chain builds MCP capabilities.
const OTHER_BUILDER_METHODS: &[&str] = &[
    "enable_tools",
    "enable_prompts",
    "enable_resources",
    "enable_completions",
    "enable_elicitation",
    "enable_elicitation_with",
    "enable_experimental",
    "enable_experimental_with",
    "enable_extensions",
    "enable_extensions_with",
    "enable_tool_list_changed",
    "enable_prompts_list_changed",
    "enable_resources_list_changed",
    "enable_resources_subscribe",
    "enable_roots_list_changed",
];

/// What a client handler method that answers a deprecated feature does, by the MCP method the
/// model's handler table says it answers.
fn client_handler_feature(method: &str) -> Option<(Feature, &'static str)> {
    match method {
        "roots/list" => Some((Feature::Roots, "answers `roots/list`")),
        "sampling/createMessage" => Some((Feature::Sampling, "answers `sampling/createMessage`")),
        "notifications/message" => Some((Feature::Logging, "receives `notifications/message`")),
        _ => None,
    }
}

/// Keys of objects that hold capabilities (initialize params and results, per-request `_meta`,
/// discover results, configs).
const CAPABILITY_KEYS: &[&str] =
    &["capabilities", "clientCapabilities", "serverCapabilities", "io.modelcontextprotocol/clientCapabilities"];

/// Keys under which client configs and `server.json` list servers and transports: an object
/// with `"type": "sse"` below one of them is a transport setting.
const CONFIG_CONTAINERS: &[&str] =
    &["mcpServers", "servers", "remotes", "packages", "transport", "context_servers", "mcp", "mcp_servers"];

/// Members that give a server entry its endpoint.
const URL_KEYS: &[&str] = &["url", "uri", "serverUrl", "endpoint", "baseUrl", "httpUrl"];

const SSE_MESSAGE_SUFFIX: &str =
    " (deprecated since 2025-03-26; eligible for removal 3 months after SEP-2596 became final)";

/// What the rule remembers about a file.
#[derive(Default)]
struct State {
    /// Capabilities already reported in this JSON file: a transcript repeats its declaration in
    /// every request's `_meta`, and one finding per file says it.
    json_caps: HashSet<&'static str>,
}

impl Rule for DeprecatedFeature {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        // Only overrides in a client handler impl: a database's or chat service's own
        // `create_message` is not the SDK's.
        let Some(trait_name) = &f.impl_trait else { return };
        let name = f.sig.ident.to_string();
        let Some((Role::Client, method)) = crate::model::handlers::trait_method(trait_name, &name) else { return };
        let Some((feature, what)) = client_handler_feature(method) else { return };
        let range = cx.node_range(&f.sig.ident);
        cx.report(
            &META,
            range,
            format!("`{trait_name}::{name}` {what}; MCP 2026-07-28 deprecates {} (SEP-2577)", feature.name()),
            format!("{} handler", feature.name()),
        )
        .help(match feature {
            Feature::Roots => {
                "keep it only while servers you talk to still ask for roots; servers should take directories as \
                 tool parameters instead (roots are deprecated by SEP-2577)"
            }
            Feature::Sampling => {
                "keep it only while servers you talk to still ask for sampling; servers should call an LLM \
                 provider's API directly (sampling is deprecated by SEP-2577)"
            }
            Feature::Logging => {
                "keep it only while servers you talk to still send log messages; servers should log to stderr or \
                 OpenTelemetry (logging is deprecated by SEP-2577)"
            }
        });
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        if let Some(feature) = builder_feature(name) {
            if !is_capability_chain(cx, call) {
                return;
            }
            let range = method_call_range(cx, call);
            let kind = if feature == Feature::Logging { "server" } else { "client" };
            cx.report(
                &META,
                range,
                format!(
                    "`{name}()` declares the {kind} `{}` capability, which MCP 2026-07-28 deprecates (SEP-2577)",
                    feature.name()
                ),
                format!("declares `{}`", feature.name()),
            )
            .help(feature.help());
            return;
        }
        if name == "notify_logging_message" && !is_self(&call.receiver) {
            let range = method_call_range(cx, call);
            cx.report(
                &META,
                range,
                "`notify_logging_message(…)` sends `notifications/message`; MCP 2026-07-28 deprecates logging \
                 (SEP-2577)",
                "sends a log message to the client",
            )
            .help(
                "log to stderr (stdio) or export OpenTelemetry instead; while logging lasts, 2026-07-28 servers \
                 may only send log messages for a request whose `_meta` carries `io.modelcontextprotocol/logLevel`",
            );
        }
    }

    fn struct_lit(&self, cx: &mut Cx, lit: &syn::ExprStruct) {
        let mut ty = last_ident(&lit.path).unwrap_or_default();
        // `impl ServerCapabilities { fn defaults() -> Self { Self { logging: .., .. } } }`.
        if ty == "Self" {
            ty = cx.impl_self.clone().unwrap_or_default();
        }
        let capability_struct = matches!(ty.as_str(), "ClientCapabilities" | "ServerCapabilities");
        for field in &lit.fields {
            let syn::Member::Named(ident) = &field.member else { continue };
            let key = ident.to_string();
            if key == "include_context" {
                include_context_field(cx, &field.expr);
                continue;
            }
            if !capability_struct {
                continue;
            }
            let Some(feature) = Feature::from_key(&key) else { continue };
            if field.colon_token.is_none()
                || is_none(&field.expr)
                || crate::rust::syntax::is_default_call(strip(&field.expr))
                || is_type_name(&field.expr)
            {
                // Shorthand `roots` (a variable, may be `None`) and `roots: None` declare nothing
                // known, nor does `roots: Default::default()` (an SDK's `impl Default`, `None` for
                // its `Option` fields); `logging: JsonObject` is a field list in a macro, not a value.
                continue;
            }
            let range = cx.node_range(ident);
            cx.report(
                &META,
                range,
                format!("`{ty}` declares `{key}`, which MCP 2026-07-28 deprecates (SEP-2577)"),
                format!("declares `{key}`"),
            )
            .help(feature.help());
        }
    }

    fn expr_path(&self, cx: &mut Cx, path: &syn::ExprPath) {
        if let Some(value) = context_inclusion(&path.path) {
            let range = cx.node_range(path);
            report_include_context(cx, range, value);
        }
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        let JsonKind::Object(members) = &node.kind else { return };
        let parent = match path.last() {
            Some(Step::Key(k)) => Some(*k),
            _ => None,
        };
        if parent.is_some_and(|p| CAPABILITY_KEYS.contains(&p)) {
            for m in members {
                capability_member(cx, m);
            }
        }
        for (i, m) in members.iter().enumerate() {
            match m.key.as_str() {
                "includeContext" => {
                    if let Some(value @ ("thisServer" | "allServers")) = m.value.as_str() {
                        let edits = crate::json::edit::delete_member(cx.file.text.as_str(), node, members, i);
                        let range = m.range.clone();
                        report_include_context(cx, range, value).fix(Fix {
                            title: "remove `includeContext` (the default is `\"none\"`)".into(),
                            applicability: Applicability::Safe,
                            edits,
                        });
                    }
                }
                "type" | "transport" if cx.origin == Origin::JsonFile && m.value.as_str() == Some("sse") => {
                    let config = members.iter().any(|o| URL_KEYS.contains(&o.key.as_str()))
                        || path.iter().any(|s| matches!(s, Step::Key(k) if CONFIG_CONTAINERS.contains(k)));
                    if config {
                        report_sse(cx, m);
                    }
                }
                _ => {}
            }
        }
    }
}

/// A member of a capabilities object: `"sampling": {}`.
fn capability_member(cx: &mut Cx, m: &JsonMember) {
    let Some(feature) = Feature::from_key(&m.key) else { return };
    // MCP declares a capability with an object (`"sampling": {}`), or in `json!` a Rust value. A
    // `true`, `null` or string is some other format's summary (`"logging": true` in a server
    // catalogue), not a declaration a peer reads.
    if !matches!(m.value.kind, JsonKind::Object(_) | JsonKind::Expr(_)) {
        return;
    }
    if cx.origin == Origin::JsonFile && !cx.state::<State>().json_caps.insert(feature.name()) {
        return;
    }
    let side = if feature == Feature::Logging { "server" } else { "client" };
    cx.report(
        &META,
        m.key_range.clone(),
        format!("declares the {side} capability `{}`, which MCP 2026-07-28 deprecates (SEP-2577)", feature.name()),
        format!("declares `{}`", feature.name()),
    )
    .help(feature.help());
}

fn report_sse(cx: &mut Cx, m: &JsonMember) {
    let d = cx.report(
        &META,
        m.value.range.clone(),
        format!("`\"{}\": \"sse\"` selects the HTTP+SSE transport of MCP 2024-11-05, deprecated by SEP-2596", m.key),
        "deprecated transport",
    );
    // The date `report` appends is SEP-2577's; this transport has its own (SEP-2596).
    if let Some(at) = d.message.rfind(" (deprecated; earliest removal") {
        d.message.truncate(at);
        d.message.push_str(SSE_MESSAGE_SUFFIX);
    }
    d.help(
        "switch to the Streamable HTTP transport: the type is `\"streamable-http\"` in server.json (many client \
         configs spell it `\"http\"`), and the server's URL changes too (usually `/mcp` instead of `/sse`)",
    )
    .fix(Fix {
        title: "use the Streamable HTTP transport (and update the URL)".into(),
        applicability: Applicability::DisplayOnly,
        edits: vec![Edit::replace(m.value.range.clone(), "\"streamable-http\"")],
    });
}

fn report_include_context<'d>(
    cx: &'d mut Cx,
    range: Range<usize>,
    value: &str,
) -> &'d mut crate::diagnostic::Diagnostic {
    cx.report(
        &META,
        range,
        format!("`includeContext: \"{value}\"` is a deprecated value (SEP-2596) of sampling, itself deprecated in MCP 2026-07-28"),
        "deprecated context inclusion",
    )
    .help(
        "omit `includeContext` (the default is `\"none\"`); clients may ignore the other values unless they \
         declare `sampling.context`",
    )
}

/// `include_context: Some(ContextInclusion::ThisServer)` in a struct literal: reported on the path
/// with a fix that sets the field to `None` (the default, `"none"`). The same path is also offered
/// to `expr_path`; the engine keeps this first finding (same rule, same range).
fn include_context_field(cx: &mut Cx, expr: &Expr) {
    let Expr::Call(call) = strip(expr) else { return };
    let is_some = matches!(strip(&call.func), Expr::Path(p) if p.path.is_ident("Some"));
    if !is_some || call.args.len() != 1 {
        return;
    }
    let Expr::Path(inner) = strip(&call.args[0]) else { return };
    let Some(value) = context_inclusion(&inner.path) else { return };
    let range = cx.node_range(inner);
    let whole = cx.node_range(expr);
    report_include_context(cx, range, value).fix(Fix {
        title: "set `include_context` to `None` (the default, `\"none\"`)".into(),
        applicability: Applicability::Safe,
        edits: vec![Edit::replace(whole, "None")],
    });
}

/// `ContextInclusion::ThisServer` (rmcp) and the like: the wire value it stands for.
fn context_inclusion(path: &syn::Path) -> Option<&'static str> {
    let n = path.segments.len();
    if n < 2 {
        return None;
    }
    let ty = path.segments[n - 2].ident.to_string();
    if !ty.contains("Context") {
        return None;
    }
    match path.segments[n - 1].ident.to_string().as_str() {
        "ThisServer" => Some("thisServer"),
        "AllServers" => Some("allServers"),
        _ => None,
    }
}

/// Whether a builder call is part of an MCP capability builder: its chain starts at
/// `…Capabilities::builder()` or has another capability method, or the code uses an MCP SDK.
fn is_capability_chain(cx: &Cx, call: &syn::ExprMethodCall) -> bool {
    let mut link = &*call.receiver;
    loop {
        match link {
            Expr::MethodCall(inner) => {
                let n = inner.method.to_string();
                if builder_feature(&n).is_some() || OTHER_BUILDER_METHODS.contains(&n.as_str()) {
                    return true;
                }
                link = &inner.receiver;
            }
            Expr::Call(c) => {
                if let Expr::Path(p) = strip(&c.func) {
                    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                    if segs.len() >= 2
                        && segs[segs.len() - 1] == "builder"
                        && segs[segs.len() - 2].ends_with("Capabilities")
                    {
                        return true;
                    }
                }
                break;
            }
            Expr::Paren(p) => link = &p.expr,
            _ => break,
        }
    }
    if is_self(&call.receiver) {
        return false;
    }
    [Sdk::Rmcp, Sdk::Other].iter().any(|s| cx.uses_sdk(*s)) || cx.role() != Role::Unknown
}

/// A single CamelCase path (`JsonObject`): a type in a struct-like macro body, never a value of
/// an `Option` field.
fn is_type_name(expr: &Expr) -> bool {
    matches!(strip(expr), Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 && {
        let name = p.path.segments[0].ident.to_string();
        name.starts_with(|c: char| c.is_ascii_uppercase()) && name.chars().any(|c| c.is_ascii_lowercase())
    })
}

fn is_none(expr: &Expr) -> bool {
    matches!(strip(expr), Expr::Path(p) if p.path.is_ident("None"))
}

fn is_self(expr: &Expr) -> bool {
    matches!(strip(expr), Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self"))
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

#[cfg(test)]
mod tests {

    use crate::diagnostic::{Applicability, Diagnostic};

    fn findings(name: &str, text: &str) -> Vec<Diagnostic> {
        crate::rules::test_support::diagnostics_of("deprecated-feature", name, text)
    }

    fn spans(name: &str, text: &str) -> Vec<String> {
        findings(name, text).iter().map(|d| text[d.range.clone()].to_owned()).collect()
    }

    fn fixed(name: &str, text: &str) -> String {
        crate::rules::test_support::with_fixes(text, findings(name, text), false)
    }

    #[test]
    fn builder_calls_in_capability_chains() {
        let text = "use rmcp::model::*;\n\
                    fn caps() -> ClientCapabilities { ClientCapabilities::builder().enable_roots().enable_sampling().enable_elicitation().build() }\n\
                    fn srv() -> ServerCapabilities { ServerCapabilities::builder().enable_tools().enable_logging().build() }\n";
        assert_eq!(spans("lib.rs", text), ["enable_roots()", "enable_sampling()", "enable_logging()"]);
        let d = &findings("lib.rs", text)[0];
        assert!(d.message.ends_with("(deprecated; earliest removal 2027-07-28)"), "{}", d.message);
    }

    #[test]
    fn roots_with_list_changed_is_deprecated_too() {
        let text = "use rmcp::model::*;\n\
                    fn caps() -> ClientCapabilities { ClientCapabilities::builder().enable_roots().enable_roots_list_changed().enable_sampling().build() }\n";
        assert_eq!(spans("lib.rs", text), ["enable_roots()", "enable_sampling()"]);
        let json = r#"{"capabilities": {"roots": {"listChanged": true}, "sampling": {}}}"#;
        assert_eq!(spans("caps.json", json), ["\"roots\"", "\"sampling\""]);
    }

    #[test]
    fn capability_summaries_that_are_not_declarations_are_silent() {
        let catalogue = r#"{"name": "everything", "capabilities": {"tools": true, "logging": true, "sampling": null}}"#;
        assert!(spans("catalogue.json", catalogue).is_empty());
        let declared = r#"{"capabilities": {"logging": {}}}"#;
        assert_eq!(spans("caps.json", declared), ["\"logging\""]);
    }

    #[test]
    fn unrelated_builders_and_loggers_are_silent() {
        let text = "fn f(b: LoggerBuilder) { b.enable_logging().build(); }\n";
        assert!(spans("lib.rs", text).is_empty());
        let chat = "struct Db; impl Db { fn create_message(&self, body: &str) {} }\n\
                    impl MessageStore for Db { fn create_message(&self, body: &str) {} }\n";
        assert!(spans("lib.rs", chat).is_empty());
    }

    #[test]
    fn capability_struct_literals() {
        let text = "use rmcp::model::*;\n\
                    fn c(r: Option<RootsCapabilities>) -> ClientCapabilities { ClientCapabilities { sampling: Some(Default::default()), roots: None, elicitation: Some(Default::default()), ..Default::default() } }\n\
                    fn d(roots: Option<RootsCapabilities>) -> ClientCapabilities { ClientCapabilities { roots, ..Default::default() } }\n\
                    fn e() -> ClientCapabilities { ClientCapabilities { roots: Some(RootsCapabilities { list_changed: Some(true) }), ..Default::default() } }\n\
                    builder! { ServerCapabilities { logging: JsonObject, tools: ToolsCapability } }\n";
        assert_eq!(spans("lib.rs", text), ["sampling", "roots"]);
    }

    #[test]
    fn client_handler_overrides() {
        let text = "use rmcp::{ClientHandler, model::*, service::*};\n\
                    impl ClientHandler for C {\n\
                      async fn create_message(&self, p: CreateMessageRequestParams, cx: RequestContext<RoleClient>) -> R { todo!() }\n\
                      async fn list_roots(&self, cx: RequestContext<RoleClient>) -> R { todo!() }\n\
                      async fn on_logging_message(&self, p: LoggingMessageNotificationParam, cx: NotificationContext<RoleClient>) {}\n\
                      async fn get_info(&self) -> ClientInfo { todo!() }\n\
                    }\n";
        assert_eq!(spans("lib.rs", text), ["create_message", "list_roots", "on_logging_message"]);
    }

    #[test]
    fn include_context_fix_removes_the_member() {
        let text = "{\"method\": \"sampling/createMessage\", \"params\": {\"messages\": [], \"includeContext\": \"thisServer\", \"maxTokens\": 10}}\n";
        assert_eq!(
            fixed("req.json", text),
            "{\"method\": \"sampling/createMessage\", \"params\": {\"messages\": [], \"maxTokens\": 10}}\n"
        );
        let last = "{\"params\": {\"maxTokens\": 10, \"includeContext\": \"allServers\"}}\n";
        assert_eq!(fixed("req.json", last), "{\"params\": {\"maxTokens\": 10}}\n");
        let none = "{\"params\": {\"maxTokens\": 10, \"includeContext\": \"none\"}}\n";
        assert!(findings("req.json", none).is_empty());
    }

    #[test]
    fn include_context_in_rust() {
        let text = "use rmcp::model::*;\n\
                    fn p() -> CreateMessageRequestParams { CreateMessageRequestParams { include_context: Some(ContextInclusion::ThisServer), max_tokens: 5, ..Default::default() } }\n\
                    fn q() -> ContextInclusion { ContextInclusion::AllServers }\n";
        assert_eq!(spans("lib.rs", text), ["ContextInclusion::ThisServer", "ContextInclusion::AllServers"]);
        let after = fixed("lib.rs", text);
        assert!(after.contains("include_context: None, max_tokens"), "{after}");
    }

    #[test]
    fn sse_in_configs_is_a_suggestion() {
        let text = "{\"mcpServers\": {\"docs\": {\"type\": \"sse\", \"url\": \"https://docs.example.com/sse\"}}}\n";
        let found = findings("mcp.json", text);
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].range.clone()], "\"sse\"");
        assert!(found[0].message.contains("SEP-2596"), "{}", found[0].message);
        assert!(!found[0].message.contains("2027-07-28"), "{}", found[0].message);
        assert_eq!(found[0].fix.as_ref().unwrap().applicability, Applicability::DisplayOnly);
        // An event log's `"type": "sse"` is not a transport setting.
        assert!(findings("events.json", "{\"events\": [{\"type\": \"sse\", \"at\": 3}]}\n").is_empty());
    }

    #[test]
    fn json_capabilities_once_per_file() {
        let text = "{\"id\": 1, \"method\": \"tools/list\", \"params\": {\"_meta\": {\"io.modelcontextprotocol/clientCapabilities\": {\"sampling\": {}}}}}\n\
                    {\"id\": 2, \"method\": \"tools/list\", \"params\": {\"_meta\": {\"io.modelcontextprotocol/clientCapabilities\": {\"sampling\": {}}}}}\n";
        assert_eq!(findings("t.jsonl", text).len(), 1);
        let tools =
            "{\"capabilities\": {\"tools\": {\"listChanged\": true}, \"elicitation\": {}, \"logging\": null}}\n";
        assert!(findings("caps.json", tools).is_empty());
    }
}
