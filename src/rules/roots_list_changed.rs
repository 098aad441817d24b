//! `roots-list-changed`: the `listChanged` flag of the roots capability and the
//! `notifications/roots/list_changed` notification, both removed in MCP 2026-07-28 (C12: the roots
//! capability is now `{}`, roots are fetched on demand).
//!
//! Four shapes, each from its own hook:
//! - declaring the flag: rmcp's `.enable_roots_list_changed()` (`method_call`), a roots capability
//!   struct literal with `list_changed` set (`struct_lit`), JSON `"roots": {"listChanged": true}`
//!   (`json_node`, files and `json!` bodies);
//! - the wire string `notifications/roots/list_changed` (and ultrafast-mcp's non-standard
//!   `notifications/roots/listChanged`) in code (`lit_str`) or JSON (`json_node`);
//! - SDK spellings of sending or matching the notification: `notify_roots_list_changed()`,
//!   `send_roots_list_changed()` (`method_call`), `ClientNotification::RootsListChangedNotification`
//!   and friends (`expr_path`, `pat_path`);
//! - handler overrides `on_roots_list_changed` / `handle_roots_list_changed_notification` (`rust_fn`).

use std::ops::Range;

use crate::context::Impact;
use crate::cx::Cx;
use crate::diagnostic::{Edit, Fix, NO_FIX_IN_TEST};
use crate::json::{JsonKind, JsonNode, Step};
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::syntax::{chain_link_range, last_ident, method_call_range, path_ends_with};

pub struct RootsListChanged;

static META: RuleMeta = RuleMeta {
    name: "roots-list-changed",
    summary: "`roots.listChanged` and `notifications/roots/list_changed` were removed in MCP 2026-07-28",
    impact: Impact::Removed,
    // Every finding needs one of these: the builder, handler and sender names contain `list_changed`
    // (`enable_roots_list_changed`, `on_roots_list_changed`, …), as do the struct field, the JSON
    // snake-case key and the wire string; the JSON key and the non-standard wire string contain
    // `listChanged`; the SDK type and variant names contain `RootsListChanged`.
    triggers: &["list_changed", "\\blistChanged", "RootsListChanged"],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some(
        "2026-07-28 clients declare roots as `\"roots\": {}` and never send `notifications/roots/list_changed`; \
         servers fetch roots when they need them (a `roots/list` input request of an `InputRequiredResult`)",
    ),
    fixable: true,
    doc: include_str!("../../rules/roots-list-changed.md"),
};

/// The notification's method, and the non-standard spelling ultrafast-mcp sends.
const WIRE_METHOD: &str = "notifications/roots/list_changed";
const WIRE_METHOD_CAMEL: &str = "notifications/roots/listChanged";

/// Roots capability structs across SDKs (rmcp, turbomcp, turul, pmcp: `RootsCapabilities`;
/// ultrafast-mcp, fastmcp, mcpr: `RootsCapability`; mcp-core, async-mcp: `RootCapabilities`;
/// rust-mcp-schema: `ClientRoots`; mcp-attr: `ClientCapabilitiesRoots`).
const ROOTS_STRUCTS: &[&str] =
    &["RootsCapabilities", "RootsCapability", "RootCapabilities", "ClientRoots", "ClientCapabilitiesRoots"];

const HELP_HANDLER: &str = "2026-07-28 clients never send this notification: fetch roots when a request needs them \
     (a `roots/list` input request of an `InputRequiredResult`) instead of caching them and refreshing here, \
     or better, take paths as tool parameters (roots are deprecated)";
const HELP_SEND: &str = "stop sending it: 2026-07-28 servers ask for roots when they need them (a `roots/list` \
     input request of an `InputRequiredResult`), so there is nothing to announce";

impl Rule for RootsListChanged {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        match name {
            "enable_roots_list_changed" if call.args.is_empty() => {
                let range = method_call_range(cx, call);
                let delete = builder_link_range(cx, call);
                let fix = flag_fix(cx, &range, "remove `.enable_roots_list_changed()`", vec![Edit::delete(delete)]);
                cx.report(
                    &META,
                    range,
                    "`enable_roots_list_changed()` declares `roots.listChanged`, which was removed in MCP 2026-07-28",
                    "declares a removed capability flag",
                )
                .help("drop the call: the 2026-07-28 roots capability is `{}` (keep `.enable_roots()` while you still serve roots)")
                .fix_or_why(fix);
            }
            "notify_roots_list_changed" | "send_roots_list_changed" => {
                let range = method_call_range(cx, call);
                cx.report(
                    &META,
                    range,
                    format!("`{name}()` sends `notifications/roots/list_changed`, which was removed in MCP 2026-07-28"),
                    "sends a removed notification",
                )
                .help(HELP_SEND);
            }
            _ => {}
        }
    }

    fn expr_path(&self, cx: &mut Cx, path: &syn::ExprPath) {
        // A callee (`ClientNotification::RootsListChangedNotification(..)`) is an expression path
        // too, so this one hook covers construction without a second finding from `call`.
        self.sdk_path(cx, &path.path);
    }

    fn pat_path(&self, cx: &mut Cx, path: &syn::Path) {
        // A unit pattern path is also offered to `expr_path`; both report the same range, which
        // the engine deduplicates.
        self.sdk_path(cx, path);
    }

    fn struct_lit(&self, cx: &mut Cx, lit: &syn::ExprStruct) {
        let Some(ty) = last_ident(&lit.path) else { return };
        if !ROOTS_STRUCTS.contains(&ty.as_str()) {
            return;
        }
        for field in &lit.fields {
            let syn::Member::Named(ident) = &field.member else { continue };
            if ident != "list_changed" {
                continue;
            }
            let declared = declared_value(&field.expr);
            if declared == Declared::Off {
                continue;
            }
            let range = cx.node_range(field);
            let value = cx.node_range(&field.expr);
            let message =
                format!("`list_changed` on `{ty}` declares `roots.listChanged`, which was removed in MCP 2026-07-28");
            let fix = match (declared, field.colon_token.is_some()) {
                (Declared::Some, true) => {
                    Some(flag_fix(cx, &range, "set `list_changed` to `None`", vec![Edit::replace(value, "None")]))
                }
                (Declared::True, true) => {
                    Some(flag_fix(cx, &range, "set `list_changed` to `false`", vec![Edit::replace(value, "false")]))
                }
                _ => None,
            };
            let d = cx.report(&META, range, message, "declares a removed capability flag");
            // `Some(..)` → `None` keeps an `Option<bool>` field's type; a bare `true` → `false` keeps a
            // `bool` field's (pmcp, fastmcp). Anything else (a variable, shorthand) is left to a person.
            match (declared, field.colon_token.is_some()) {
                (Declared::Some, true) => {
                    d.help("set it to `None`: the 2026-07-28 roots capability is `{}`");
                }
                (Declared::True, true) => {
                    d.help("set it to `false`: the 2026-07-28 roots capability is `{}`");
                }
                _ => {
                    d.help("stop setting it (`None` or `false`): the 2026-07-28 roots capability is `{}`");
                }
            }
            if let Some(fix) = fix {
                d.fix_or_why(fix);
            }
        }
    }

    fn lit_str(&self, cx: &mut Cx, lit: &syn::LitStr, value: &str) {
        // Named in an assertion, a refusal or a list of what was removed (`rust::quoted`).
        if (value == WIRE_METHOD || value == WIRE_METHOD_CAMEL) && !cx.quoted() {
            let range = cx.node_range(lit);
            report_wire(cx, range, value);
        }
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        match &node.kind {
            JsonKind::String(s) if (s == WIRE_METHOD || s == WIRE_METHOD_CAMEL) && !cx.quoted() => {
                let range = node.range.clone();
                report_wire(cx, range, s);
            }
            // The roots capability object: `"roots": { "listChanged": true }`. Findings are made
            // here rather than on the member so the fix can see the neighbouring members.
            JsonKind::Object(members) if path.last() == Some(&Step::Key("roots")) => {
                for (i, m) in members.iter().enumerate() {
                    if (m.key == "listChanged" || m.key == "list_changed") && m.value.as_bool() == Some(true) {
                        let edits = crate::json::edit::delete_member(cx.file.text.as_str(), node, members, i);
                        let title = format!("remove `{}` from the roots capability", m.key);
                        let fix = (!edits.is_empty()).then(|| flag_fix(cx, &m.range, &title, edits));
                        let d = cx.report(
                            &META,
                            m.range.clone(),
                            format!("`roots.{}` was removed in MCP 2026-07-28: the roots capability is now `{{}}`", m.key),
                            "removed capability flag",
                        )
                        .help("remove the member: clients declare roots as `\"roots\": {}` and no longer send `notifications/roots/list_changed`");
                        if let Some(fix) = fix {
                            d.fix_or_why(fix);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        // Only overrides in a trait impl: a free fn or inherent method of that name is the user's own.
        let Some(trait_name) = &f.impl_trait else { return };
        let name = f.sig.ident.to_string();
        if name != "on_roots_list_changed" && name != "handle_roots_list_changed_notification" {
            return;
        }
        let range = cx.node_range(&f.sig.ident);
        cx.report(
            &META,
            range,
            format!(
                "`{trait_name}::{name}` handles `notifications/roots/list_changed`, which was removed in MCP 2026-07-28"
            ),
            "never called by 2026-07-28 clients",
        )
        .help(HELP_HANDLER);
    }
}

impl RootsListChanged {
    /// SDK names of the notification: rmcp's and rust-mcp-sdk's `ClientNotification::RootsListChangedNotification`,
    /// pmcp's `ClientNotification::RootsListChanged`, rmcp's method type `RootsListChangedNotificationMethod`.
    fn sdk_path(&self, cx: &mut Cx, path: &syn::Path) {
        let hit = path_ends_with(path, &["ClientNotification", "RootsListChangedNotification"])
            || path_ends_with(path, &["ClientNotification", "RootsListChanged"]);
        let method_type = path.segments.iter().position(|s| s.ident == "RootsListChangedNotificationMethod");
        let range = match (hit, method_type) {
            (true, _) => cx.node_range(path),
            // `RootsListChangedNotificationMethod` or `RootsListChangedNotificationMethod::VALUE`:
            // point at the type segment and what follows it.
            (false, Some(i)) => cx.span_range(path.segments[i].ident.span()).start..cx.node_range(path).end,
            (false, None) => return,
        };
        let shown = cx.text(range.clone()).split_whitespace().collect::<String>();
        cx.report(
            &META,
            range,
            format!("`{shown}` is `notifications/roots/list_changed`, which was removed in MCP 2026-07-28"),
            "removed notification",
        )
        .help(
            "2026-07-28 clients never send this notification: drop the arm or the send; servers fetch roots \
             when they need them (a `roots/list` input request of an `InputRequiredResult`)",
        );
    }
}

/// The fix that drops the flag, as safe as the crate's
/// revisions make it: Safe only where the crate is known to target 2026-07-28 alone, Unsafe where
/// it still serves older revisions, whose peers would no longer be told that root changes are
/// announced, or where nothing tells; none in test code, which asserts what the code declares (the finding says so).
fn flag_fix(cx: &Cx, range: &Range<usize>, title: &str, edits: Vec<Edit>) -> Result<Fix, &'static str> {
    if cx.in_test_code(range) {
        return Err(NO_FIX_IN_TEST);
    }
    let (applicability, title) = cx.crate_ctx.era.fix_applicability(
        title,
        "whose peers are then no longer told that root changes are announced",
        "where `listChanged` still tells peers that root changes are announced",
    );
    Ok(Fix { title, applicability, edits })
}

fn report_wire(cx: &mut Cx, range: Range<usize>, value: &str) {
    let message = if value == WIRE_METHOD {
        "`notifications/roots/list_changed` was removed in MCP 2026-07-28".to_string()
    } else {
        "`notifications/roots/listChanged` (a non-standard spelling of `notifications/roots/list_changed`) \
         names a notification removed in MCP 2026-07-28"
            .to_string()
    };
    cx.report(&META, range, message, "removed notification").help(
        "remove it: 2026-07-28 clients do not send this notification and servers do not receive it; \
         servers fetch roots when they need them (a `roots/list` input request of an `InputRequiredResult`)",
    );
}

/// What a `list_changed` value declares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Declared {
    /// `None`, `false`, `Some(false)`: nothing; not reported.
    Off,
    /// `Some(..)` other than `Some(false)`.
    Some,
    /// A bare `true`.
    True,
    /// A variable, a call, shorthand: may be on.
    Unknown,
}

fn declared_value(expr: &syn::Expr) -> Declared {
    match strip(expr) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) => {
            if b.value {
                Declared::True
            } else {
                Declared::Off
            }
        }
        syn::Expr::Path(p) if p.path.is_ident("None") || path_ends_with(&p.path, &["Option", "None"]) => Declared::Off,
        syn::Expr::Call(c)
            if c.args.len() == 1
                && matches!(strip(&c.func), syn::Expr::Path(p) if p.path.is_ident("Some") || path_ends_with(&p.path, &["Option", "Some"])) =>
        {
            match strip(&c.args[0]) {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) if !b.value => Declared::Off,
                _ => Declared::Some,
            }
        }
        _ => Declared::Unknown,
    }
}

fn strip(expr: &syn::Expr) -> &syn::Expr {
    match expr {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

/// The range that removes `.enable_roots_list_changed()` from a chain. When the link sits on a
/// line of its own (`.` first, at most a `//` comment after `)`), the whole line goes, with any
/// comment about it. Otherwise from the end of the receiver (`chain_link_range`), so the line break
/// and indentation before the `.` go too; or, when a comment separates the receiver from the `.`
/// (it belongs to the previous link), from the `.` only.
fn builder_link_range(cx: &Cx, call: &syn::ExprMethodCall) -> Range<usize> {
    let full = chain_link_range(cx, call);
    let dot = cx.span_range(call.dot_token.span).start;
    let text = cx.file.text.as_str();
    let own_line = crate::json::edit::own_line_range(text, dot..full.end);
    if let Some(line) = own_line
        && line.start >= full.start
    {
        return line;
    }
    let gap = cx.text(full.start..dot);
    if gap.contains("//") || gap.contains("/*") { dot..full.end } else { full }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::context::{CrateContext, Era, EraDecision};
    use crate::diagnostic::{Applicability, Diagnostic};
    use crate::json::parse::parse_json_file;
    use crate::rules::test_support::check_in_crate;
    use crate::source::FileKind;
    use crate::source::SourceFile;

    fn findings(name: &str, text: &str) -> Vec<Diagnostic> {
        crate::rules::test_support::diagnostics_of("roots-list-changed", name, text)
    }

    /// Applies every fix of this rule's findings (edits from the end, as the fixer does).
    fn fixed(name: &str, text: &str) -> String {
        crate::rules::test_support::with_fixes(text, findings(name, text), true)
    }

    /// The applicability of each fix of this rule's findings, in a crate of the given era.
    fn applicabilities(era: Era, name: &str, text: &str) -> Vec<Option<(Applicability, String)>> {
        let file = SourceFile::new(name.into(), name.into(), text.to_owned());
        let krate =
            CrateContext { era: EraDecision { era, reason: "rmcp 3.11 serves both".into() }, ..Default::default() };
        check_in_crate(&file, &krate)
            .into_iter()
            .filter(|d| d.rule == "roots-list-changed")
            .map(|d| d.fix.map(|f| (f.applicability, f.title)))
            .collect()
    }

    #[test]
    fn dropping_the_flag_is_safe_only_for_a_crate_of_2026_07_28_alone() {
        let rust = "use rmcp::model::*;\n\
                    fn caps() -> ClientCapabilities { ClientCapabilities::builder().enable_roots().enable_roots_list_changed().build() }\n\
                    fn lit() -> RootsCapabilities { RootsCapabilities { list_changed: Some(true) } }\n";
        let json = r#"{"capabilities": {"roots": {"listChanged": true}}}"#;
        for (name, text) in [("lib.rs", rust), ("caps.json", json)] {
            let fixes = applicabilities(Era::Modern, name, text);
            assert!(!fixes.is_empty());
            assert!(fixes.iter().all(|f| matches!(f, Some((Applicability::Safe, _)))), "{name}: {fixes:?}");
            for (era, says) in [
                (Era::Dual, "also serves revisions before"),
                (Era::Legacy, "only revisions before"),
                // Unknown is not modern: a legacy crate whose SDK version could not be read.
                (Era::Unknown, "nothing tells whether this crate still serves revisions before"),
            ] {
                let fixes = applicabilities(era, name, text);
                assert!(!fixes.is_empty());
                for fix in &fixes {
                    let Some((Applicability::Unsafe, title)) = fix else { panic!("{era:?} {name}: {fixes:?}") };
                    assert!(title.contains(says), "{title}");
                    assert!(era == Era::Unknown || title.contains("rmcp 3.11 serves both"), "{title}");
                }
            }
        }
    }

    #[test]
    fn a_flag_in_a_raw_string_body_is_reported_without_a_fix() {
        let text = "use serde_json::json;\n\
                    fn bodies() -> (serde_json::Value, &'static str) {\n\
                    (json!({\"capabilities\": {\"roots\": {\"listChanged\": true}}}),\n\
                    r#\"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{\"roots\":{\"listChanged\":true}}}}}\"#)\n\
                    }\n";
        let fixes: Vec<bool> = findings("lib.rs", text).iter().map(|d| d.fix.is_some()).collect();
        assert_eq!(fixes, [true, false], "the json! body's flag has a fix, the raw string's has none");
    }

    #[test]
    fn tests_that_assert_the_flag_get_no_fix() {
        let text = "use rmcp::model::*;\n\
                    #[cfg(test)]\n\
                    mod tests {\n\
                        #[test]\n\
                        fn declares_list_changed() { let c = ClientCapabilities::builder().enable_roots().enable_roots_list_changed().build(); assert!(c.roots.is_some()); }\n\
                    }\n\
                    #[tokio::test]\n\
                    async fn literal() { assert_eq!(RootsCapabilities { list_changed: Some(true) }.list_changed, Some(true)); }\n";
        assert_eq!(applicabilities(Era::Modern, "lib.rs", text), [None, None]);
    }

    fn assert_rust_fix(before: &str, after: &str) {
        let got = fixed("lib.rs", before);
        assert_eq!(got, after);
        syn::parse_file(&got).expect("the fixed file parses");
        assert!(findings("lib.rs", &got).is_empty(), "nothing left to report in:\n{got}");
    }

    fn assert_json_fix(name: &str, before: &str, after: &str) {
        let got = fixed(name, before);
        assert_eq!(got, after);
        let parsed = parse_json_file(&got, FileKind::of(Path::new(name)));
        assert!(parsed.errors.is_empty(), "the fixed JSON parses: {:?}\n{got}", parsed.errors);
        assert!(findings(name, &got).is_empty(), "nothing left to report in:\n{got}");
    }

    #[test]
    fn builder_link_on_its_own_line_goes_with_its_line() {
        assert_rust_fix(
            "fn caps() -> ClientCapabilities {\n    ClientCapabilities::builder()\n        .enable_roots()\n        .enable_roots_list_changed() // tell the server\n        .build()\n}\n",
            "fn caps() -> ClientCapabilities {\n    ClientCapabilities::builder()\n        .enable_roots()\n        .build()\n}\n",
        );
    }

    #[test]
    fn builder_link_inline_and_at_the_end() {
        assert_rust_fix(
            "fn caps() { let c = ClientCapabilities::builder().enable_roots().enable_roots_list_changed().build(); }\n",
            "fn caps() { let c = ClientCapabilities::builder().enable_roots().build(); }\n",
        );
        assert_rust_fix(
            "fn caps() {\n    let b = ClientCapabilities::builder()\n        .enable_roots()\n        .enable_roots_list_changed();\n    b.build();\n}\n",
            "fn caps() {\n    let b = ClientCapabilities::builder()\n        .enable_roots();\n    b.build();\n}\n",
        );
    }

    #[test]
    fn builder_fix_keeps_a_comment_of_the_previous_link() {
        assert_rust_fix(
            "fn caps() {\n    let b = ClientCapabilities::builder()\n        .enable_roots() // folders\n        .enable_roots_list_changed().build();\n}\n",
            "fn caps() {\n    let b = ClientCapabilities::builder()\n        .enable_roots() // folders\n        .build();\n}\n",
        );
    }

    #[test]
    fn struct_fields_are_switched_off() {
        assert_rust_fix(
            "fn caps() { let a = RootsCapabilities { list_changed: Some(true) }; let b = pmcp::RootsCapabilities { list_changed: true }; }\n",
            "fn caps() { let a = RootsCapabilities { list_changed: None }; let b = pmcp::RootsCapabilities { list_changed: false }; }\n",
        );
    }

    #[test]
    fn struct_field_from_a_variable_has_no_fix() {
        let found = findings("lib.rs", "fn caps(on: bool) { let a = RootsCapability { list_changed: on }; }\n");
        assert_eq!(found.len(), 1);
        assert!(found[0].fix.is_none());
    }

    #[test]
    fn json_sole_member_leaves_empty_braces() {
        assert_json_fix(
            "c.json",
            r#"{"capabilities": {"roots": {"listChanged": true}}}"#,
            r#"{"capabilities": {"roots": {}}}"#,
        );
        assert_json_fix(
            "c.json",
            "{\n  \"roots\": {\n    \"listChanged\": true\n  },\n  \"sampling\": {}\n}\n",
            "{\n  \"roots\": {},\n  \"sampling\": {}\n}\n",
        );
        assert_json_fix(
            "c.jsonc",
            "{\n  \"roots\": {\n    \"listChanged\": true, // announce changes\n  },\n}\n",
            "{\n  \"roots\": {},\n}\n",
        );
    }

    #[test]
    fn json_member_with_neighbours_takes_one_comma() {
        assert_json_fix("c.json", r#"{"roots": {"listChanged": true, "x": 1}}"#, r#"{"roots": {"x": 1}}"#);
        assert_json_fix("c.json", r#"{"roots": {"x": 1, "list_changed": true}}"#, r#"{"roots": {"x": 1}}"#);
        assert_json_fix(
            "c.json",
            "{\"roots\": {\n  \"x\": 1,\n  \"listChanged\": true\n}}\n",
            "{\"roots\": {\n  \"x\": 1\n}}\n",
        );
        assert_json_fix(
            "c.jsonc",
            "{\"roots\": {\n  \"listChanged\": true,\n  // vendor flag\n  \"x\": 1\n}}\n",
            "{\"roots\": {\n  // vendor flag\n  \"x\": 1\n}}\n",
        );
    }

    #[test]
    fn json_macro_body_is_fixed_in_place() {
        assert_rust_fix(
            "fn caps() -> Value { json!({\"capabilities\": {\"roots\": {\"listChanged\": true}, \"sampling\": {}}}) }\n",
            "fn caps() -> Value { json!({\"capabilities\": {\"roots\": {}, \"sampling\": {}}}) }\n",
        );
    }

    #[test]
    fn one_finding_per_notification_construct() {
        let src = "fn f(n: ClientNotification) -> ClientNotification {\n    match n {\n        ClientNotification::RootsListChanged => {}\n        _ => {}\n    }\n    ClientNotification::RootsListChangedNotification(RootsListChangedNotification::default())\n}\n";
        let found = findings("lib.rs", src);
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn silent_on_other_list_changed_flags() {
        let src = r#"fn f() {
    let a = ToolsCapability { list_changed: Some(true) };
    let b = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
    let c = json!({"tools": {"listChanged": true}, "roots": {"listChanged": false}});
    let d = RootsCapabilities { list_changed: Some(false) };
    let e = "notifications/tools/list_changed";
}
"#;
        assert!(findings("lib.rs", src).is_empty());
        assert!(findings("c.json", r#"{"tools": {"listChanged": true}, "roots": {"listChanged": false}}"#).is_empty());
    }
}
