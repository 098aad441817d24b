//! `legacy-protocol-version`: a protocol version pinned to a revision before 2026-07-28 where
//! 2026-07-28 is the target.
//!
//! What fires, by the crate's era (`CrateContext::era`, decided once per crate):
//! - always (any era): a `_meta` `io.modelcontextprotocol/protocolVersion` naming an older
//!   revision, in JSON files and `json!` bodies. That key exists only from 2026-07-28 on, so the
//!   message itself targets 2026-07-28 and an older version in it is a contradiction (the server
//!   answers `-32022`, or worse, takes the request as legacy).
//! - 2026-07-28-only crates and files of no known crate (`Modern`, `Unknown`): everything else
//!   below.
//! - dual-era crates: only the `MCP-Protocol-Version` header of a server entry in a JSON client
//!   config. A static header goes out with every request, whichever revision the client speaks,
//!   while code of a dual-era crate legitimately names older versions for legacy peers (a fallback
//!   `initialize`, a list of supported versions), so Rust code stays silent there.
//! - legacy-only crates: nothing but the `_meta` case (they have not started migrating).
//!
//! The pins: `MCP-Protocol-Version` headers (JSON `headers` objects; Rust `.header(..)` /
//! `.insert(..)` calls; raw `"MCP-Protocol-Version: 2025-06-18"` lines), `protocol_version: …`
//! fields of struct literals, `with_protocol_version(..)`, and `const` / `static` items that hold
//! one older version under a name that does not say it is a legacy one (`PROTOCOL_VERSION`, not
//! `LEGACY_PROTOCOL_VERSION` or `SUPPORTED_VERSIONS`). Comparisons, match arms and lists of
//! versions are never pins, and neither is test code (a `tests/` folder, `#[test]` functions,
//! `#[cfg(test)]` modules) or a JSON file in which a server answers `-32022`: those send an old
//! version on purpose, to see it rejected.

use std::ops::Range;

use syn::Expr;

use crate::context::{Era, Impact};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Applicability, Fix};
use crate::json::{JsonKind, JsonNode, Step};
use crate::rules::{Rule, RuleMeta};
use crate::rust::syntax::{last_ident, path_ends_with, str_value};

pub struct LegacyProtocolVersion;

/// Revisions before 2026-07-28, and rmcp's constants for them.
const LEGACY_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LEGACY_CONSTS: &[&str] = &["V_2024_11_05", "V_2025_03_26", "V_2025_06_18", "V_2025_11_25"];

static META: RuleMeta = RuleMeta {
    name: "legacy-protocol-version",
    summary: "A protocol version pinned to a revision before 2026-07-28 where 2026-07-28 is the target",
    impact: Impact::Removed,
    // Every finding is one of these versions, spelled out.
    triggers: &[
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "V_2024_11_05",
        "V_2025_03_26",
        "V_2025_06_18",
        "V_2025_11_25",
    ],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some(
        "use `2026-07-28` (rmcp: `ProtocolVersion::V_2026_07_28`); code that must also serve older peers should \
         pick the version per peer (mcp-lint then treats the crate as dual-era)",
    ),
    fixable: true,
    doc: include_str!("../../rules/legacy-protocol-version.md"),
};

const META_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// Members that make an object a server entry of a client config.
const SERVER_ENTRY_KEYS: &[&str] = &["url", "uri", "serverUrl", "type", "transport", "command", "endpoint"];

/// Words in a const's name that say it is an older version on purpose.
const LEGACY_NAME_WORDS: &[&str] = &[
    "legacy",
    "old",
    "older",
    "oldest",
    "fallback",
    "previous",
    "prev",
    "min",
    "minimum",
    "supported",
    "known",
    "deprecated",
    "compat",
    "compatible",
    "versions",
];

#[derive(Default)]
struct State {
    /// A transcript repeats its `_meta` in every request: one finding per JSON file says it.
    meta_reported: bool,
}

/// Whether a JSON file exercises version negotiation: a server in it answers `-32022`
/// (UnsupportedProtocolVersion), so an old version in it is sent on purpose.
fn negotiation_exercise(cx: &Cx) -> bool {
    cx.origin == Origin::JsonFile && cx.file.text.contains("-32022")
}

/// Whether code and configs of this crate target 2026-07-28 alone (or nothing tells).
fn targets_modern(cx: &Cx) -> bool {
    matches!(cx.crate_ctx.era.era, Era::Modern | Era::Unknown)
}

fn is_legacy(version: &str) -> bool {
    LEGACY_VERSIONS.contains(&version)
}

/// The older version an expression stands for, and the range of the literal or constant that
/// says it: `"2025-06-18"`, `"2025-06-18".to_string()`, `ProtocolVersion::V_2025_06_18`,
/// `ProtocolVersion::from("2025-06-18")`, `HeaderValue::from_static("2025-06-18")`, `Some(..)`.
fn legacy_value(cx: &Cx, expr: &Expr) -> Option<(String, Range<usize>)> {
    if let Some((value, range)) = str_value(cx, expr) {
        return is_legacy(&value).then_some((value, range));
    }
    match expr {
        Expr::Path(p) => {
            let last = last_ident(&p.path)?;
            let i = LEGACY_CONSTS.iter().position(|c| *c == last)?;
            Some((LEGACY_VERSIONS[i].to_owned(), cx.node_range(p)))
        }
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(f) = &*c.func else { return None };
            let name = last_ident(&f.path)?;
            matches!(name.as_str(), "Some" | "from" | "new" | "from_static" | "from_str" | "try_from")
                .then(|| legacy_value(cx, &c.args[0]))
                .flatten()
        }
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "into" | "to_owned" | "clone" | "as_str" | "parse" | "unwrap" | "try_into"
                ) =>
        {
            legacy_value(cx, &m.receiver)
        }
        Expr::MethodCall(m) if m.method == "expect" => legacy_value(cx, &m.receiver),
        Expr::Reference(r) => legacy_value(cx, &r.expr),
        Expr::Paren(p) => legacy_value(cx, &p.expr),
        Expr::Group(g) => legacy_value(cx, &g.expr),
        _ => None,
    }
}

/// Whether an expression names the `MCP-Protocol-Version` header.
fn names_version_header(cx: &Cx, expr: &Expr) -> bool {
    if let Some((value, _)) = str_value(cx, expr) {
        return value.eq_ignore_ascii_case("mcp-protocol-version");
    }
    match expr {
        Expr::Path(p) => path_ends_with(&p.path, &["HEADER_MCP_PROTOCOL_VERSION"]),
        Expr::Call(c) if c.args.len() == 1 => names_version_header(cx, &c.args[0]),
        Expr::MethodCall(m) if m.args.is_empty() => names_version_header(cx, &m.receiver),
        Expr::Reference(r) => names_version_header(cx, &r.expr),
        Expr::Paren(p) => names_version_header(cx, &p.expr),
        _ => false,
    }
}

/// Whether a const's name says it holds an older version on purpose (or names the version itself,
/// `V2025_06_18`, as a building block of a list).
fn deliberate_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.contains("2024") || lower.contains("2025") {
        return true;
    }
    lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| LEGACY_NAME_WORDS.contains(&w))
}

fn report_pin(cx: &mut Cx, range: Range<usize>, version: &str, what: &str) {
    if cx.in_test_code(&range) {
        return;
    }
    let target = match cx.crate_ctx.era.era {
        Era::Modern => "this crate targets MCP 2026-07-28 only",
        _ => "MCP 2026-07-28 peers speak `2026-07-28`",
    };
    cx.report(
        &META,
        range,
        format!("{what} pins protocol version `{version}`, a revision before 2026-07-28; {target}"),
        format!("pinned to `{version}`"),
    );
}

impl Rule for LegacyProtocolVersion {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        if targets_modern(cx) {
            consts(cx, &file.items);
        }
    }

    fn struct_lit(&self, cx: &mut Cx, lit: &syn::ExprStruct) {
        if !targets_modern(cx) {
            return;
        }
        for field in &lit.fields {
            let syn::Member::Named(ident) = &field.member else { continue };
            if ident != "protocol_version" || field.colon_token.is_none() {
                continue;
            }
            if let Some((version, range)) = legacy_value(cx, &field.expr) {
                report_pin(cx, range, &version, "`protocol_version`");
            }
        }
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        if !targets_modern(cx) {
            return;
        }
        match name {
            "header" | "insert" | "append" | "set" | "insert_header" | "append_header" | "set_header"
                if call.args.len() == 2 && names_version_header(cx, &call.args[0]) =>
            {
                if let Some((version, range)) = legacy_value(cx, &call.args[1]) {
                    report_pin(cx, range, &version, "the `MCP-Protocol-Version` header");
                }
            }
            "with_protocol_version" | "set_protocol_version" | "protocol_version" if call.args.len() == 1 => {
                if let Some((version, range)) = legacy_value(cx, &call.args[0]) {
                    report_pin(cx, range, &version, &format!("`{name}(…)`"));
                }
            }
            _ => {}
        }
    }

    fn lit_str(&self, cx: &mut Cx, lit: &syn::LitStr, value: &str) {
        // A raw header line: `"MCP-Protocol-Version: 2025-06-18\r\n"`.
        if !targets_modern(cx) {
            return;
        }
        let Some((name, rest)) = value.split_once(':') else { return };
        if !name.trim().eq_ignore_ascii_case("mcp-protocol-version") {
            return;
        }
        let version = rest.trim();
        if is_legacy(version) {
            let range = cx.node_range(lit);
            report_pin(cx, range, version, "the `MCP-Protocol-Version` header");
        }
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, _path: &[Step]) {
        let JsonKind::Object(members) = &node.kind else { return };
        // The key exists only in `_meta` (a `json!` body may be the `_meta` object itself).
        if let Some(m) = node.member(META_KEY)
            && let Some(version) = m.value.as_str()
            && is_legacy(version)
        {
            meta_version(cx, m.value.range.clone(), version);
        }
        // Headers, looked at from the object that holds them (a config's server entry, a recorded
        // request).
        let era = cx.crate_ctx.era.era;
        if era == Era::Legacy {
            return;
        }
        let server_entry = members.iter().any(|m| SERVER_ENTRY_KEYS.contains(&m.key.as_str()));
        let config = cx.origin == Origin::JsonFile && server_entry;
        if era == Era::Dual && !config {
            return;
        }
        for holder in members.iter().filter(|m| m.key.to_ascii_lowercase().contains("header")) {
            let JsonKind::Object(headers) = &holder.value.kind else { continue };
            for (i, h) in headers.iter().enumerate() {
                if !h.key.eq_ignore_ascii_case("mcp-protocol-version") {
                    continue;
                }
                let Some(version) = h.value.as_str().filter(|v| is_legacy(v)) else { continue };
                if cx.in_test_code(&h.value.range) || negotiation_exercise(cx) {
                    continue;
                }
                let edits =
                    config.then(|| crate::json::edit::delete_member(cx.file.text.as_str(), &holder.value, headers, i));
                let d = cx.report(
                    &META,
                    h.value.range.clone(),
                    format!(
                        "`{}: {version}` pins a revision before 2026-07-28: the header goes out with every request, \
                         and on 2026-07-28 it must equal the version in the request's `_meta`",
                        h.key
                    ),
                    format!("pinned to `{version}`"),
                );
                d.help(
                    "remove the header and let the client set it per request (2026-07-28 servers answer a mismatch \
                     with -32020)",
                );
                if let Some(edits) = edits {
                    d.fix(Fix {
                        title: format!("remove the `{}` header", h.key),
                        applicability: Applicability::Unsafe,
                        edits,
                    });
                }
            }
        }
    }
}

/// `_meta["io.modelcontextprotocol/protocolVersion"]` naming an older revision.
fn meta_version(cx: &mut Cx, range: Range<usize>, version: &str) {
    if cx.in_test_code(&range) || negotiation_exercise(cx) {
        return;
    }
    if cx.origin == Origin::JsonFile {
        let state = cx.state::<State>();
        if state.meta_reported {
            return;
        }
        state.meta_reported = true;
    }
    let version = version.to_owned();
    cx.report(
        &META,
        range,
        format!(
            "`{META_KEY}` is `{version}`, but that `_meta` key exists only from MCP 2026-07-28 on: a request that \
             carries it speaks 2026-07-28"
        ),
        format!("`{version}` in a 2026-07-28 `_meta`"),
    )
    .help(
        "set it to `2026-07-28` (and on HTTP the `MCP-Protocol-Version` header to the same value); a request to a \
         legacy server uses the legacy shape, without these `_meta` keys",
    );
}

/// `const` / `static` items holding one older version, at any depth of modules and impls.
fn consts(cx: &mut Cx, items: &[syn::Item]) {
    for item in items {
        match item {
            syn::Item::Const(c) => const_item(cx, &c.ident, &c.expr),
            syn::Item::Static(s) => const_item(cx, &s.ident, &s.expr),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    consts(cx, inner);
                }
            }
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Const(c) = it {
                        const_item(cx, &c.ident, &c.expr);
                    }
                }
            }
            _ => {}
        }
    }
}

fn const_item(cx: &mut Cx, name: &syn::Ident, expr: &Expr) {
    let name = name.to_string();
    if deliberate_name(&name) {
        return;
    }
    if let Some((version, range)) = legacy_value(cx, expr) {
        report_pin(cx, range, &version, &format!("`{name}`"));
    }
}

#[cfg(test)]
mod tests {

    use crate::context::{CrateContext, Era, EraDecision};
    use crate::diagnostic::Diagnostic;
    use crate::rules;
    use crate::rules::test_support::check_file;
    use crate::source::SourceFile;

    /// Checks text with a crate context of the given era.
    fn check_era(era: Era, name: &str, text: &str) -> Vec<String> {
        let file = SourceFile::new(name.into(), name.into(), text.to_owned());
        let krate = CrateContext { era: EraDecision { era, reason: "test".into() }, ..Default::default() };
        check_file(&file, &krate, rules::ALL, crate::context::Role::Unknown)
            .into_iter()
            .filter(|d| d.rule == "legacy-protocol-version")
            .map(|d| text[d.range.clone()].to_owned())
            .collect()
    }

    fn findings(name: &str, text: &str) -> Vec<Diagnostic> {
        crate::rules::test_support::diagnostics_of("legacy-protocol-version", name, text)
    }

    const CLIENT: &str = "use rmcp::model::*;\n\
        const PROTOCOL_VERSION: &str = \"2025-06-18\";\n\
        const LEGACY_PROTOCOL_VERSION: &str = \"2025-11-25\";\n\
        const SUPPORTED: [&str; 2] = [\"2026-07-28\", \"2025-11-25\"];\n\
        fn info() -> ClientInfo { ClientInfo { protocol_version: ProtocolVersion::V_2025_06_18, ..Default::default() } }\n\
        fn send(c: &reqwest::Client) { c.post(URL).header(\"MCP-Protocol-Version\", \"2025-11-25\").send(); }\n\
        fn legacy(v: &str) -> bool { v == \"2025-11-25\" || matches!(v, \"2025-06-18\") }\n";

    #[test]
    fn modern_crates_report_pins() {
        assert_eq!(
            check_era(Era::Modern, "client.rs", CLIENT),
            ["\"2025-06-18\"", "ProtocolVersion::V_2025_06_18", "\"2025-11-25\""]
        );
    }

    #[test]
    fn dual_and_legacy_crates_keep_their_code() {
        assert!(check_era(Era::Dual, "client.rs", CLIENT).is_empty());
        assert!(check_era(Era::Legacy, "client.rs", CLIENT).is_empty());
    }

    #[test]
    fn meta_version_fires_in_every_era() {
        let text = "{\"id\": 1, \"method\": \"tools/list\", \"params\": {\"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2025-11-25\", \"io.modelcontextprotocol/clientCapabilities\": {}}}}\n";
        for era in [Era::Modern, Era::Dual, Era::Legacy, Era::Unknown] {
            assert_eq!(check_era(era, "t.jsonl", text), ["\"2025-11-25\""], "{era:?}");
        }
    }

    #[test]
    fn config_headers() {
        let text = "{\"servers\": {\"api\": {\"type\": \"http\", \"url\": \"https://x/mcp\", \"headers\": {\"MCP-Protocol-Version\": \"2025-06-18\"}}}}\n";
        for era in [Era::Modern, Era::Dual, Era::Unknown] {
            assert_eq!(check_era(era, "mcp.json", text), ["\"2025-06-18\""], "{era:?}");
        }
        assert!(check_era(Era::Legacy, "mcp.json", text).is_empty());
        // A recorded request in a dual-era crate is a legacy exchange, not a pin.
        let rec = "{\"request\": {\"headers\": {\"mcp-protocol-version\": \"2025-06-18\"}, \"body\": {}}}\n";
        assert!(check_era(Era::Dual, "rec.json", rec).is_empty());
        assert_eq!(check_era(Era::Modern, "rec.json", rec), ["\"2025-06-18\""]);
        // Outside any crate (era unknown) the config's fix deletes the header.
        let found = findings("mcp.json", text);
        assert_eq!(found.len(), 1);
        assert!(found[0].fix.is_some());
    }
}
