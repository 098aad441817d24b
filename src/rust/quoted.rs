//! Where code names a protocol string without sending or handling it, so that rules which report a
//! removed method's string wherever it stands leave it alone:
//! - inside an assertion (`assert_eq!(req.method, "logging/setLevel")`,
//!   `assert!(message.contains("resources/subscribe"))`): a test states what a message holds;
//! - as an argument of a call whose name says it refuses or checks (`reject_if_retired(
//!   "resources/subscribe")`, `Error::retired_on_v2(..)`, `method_not_found("ping")`,
//!   `assert_capability("logging", "logging/setLevel")`);
//! - as an entry of a list of what 2026-07-28 removed (`matches!(m, "initialize" | "ping" |
//!   "logging/setLevel")`, a `const` table of retired methods): at least three removed methods of
//!   at least three different features, and nothing else written as a string.
//!
//!
//! Apart from those, `receives` names the calls that hand a server's message to the process's own
//! handler (`client.handle_server_request(req)`): a request built there is received, not sent (the
//! visitor keeps that count too, `Cx::received`).
//!
//! A message built inside such a place is still a message: a sending call
//! (`assert!(client.send_request("ping").await.is_ok())`), a request's constructor
//! (`JsonRpcRequest::new(7, "ping")`) or a struct literal with a `method` field. The engine's visitor keeps the count (`Cx::quoted`), so every rule reads the same answer.

use syn::{Expr, Pat};

use crate::rust::requests::is_send_verb;
use crate::rust::syntax::rpc_type_path;

/// The methods and notifications MCP 2026-07-28 removed, each with the feature it belonged to (a
/// list naming several features is a list about the removal, not a dispatcher).
/// `removed-method`'s table is checked against this one by a test.
const REMOVED: &[(&str, &str)] = &[
    ("initialize", "handshake"),
    ("notifications/initialized", "handshake"),
    ("ping", "ping"),
    ("logging/setLevel", "logging"),
    ("resources/subscribe", "subscriptions"),
    ("resources/unsubscribe", "subscriptions"),
    ("tasks/result", "tasks"),
    ("tasks/list", "tasks"),
    ("notifications/elicitation/complete", "elicitation"),
    ("notifications/roots/list_changed", "roots"),
];

/// The feature a removed method or notification belonged to.
pub fn removed_feature(wire: &str) -> Option<&'static str> {
    REMOVED.iter().find(|(w, _)| *w == wire).map(|(_, f)| *f)
}

/// A call that hands a server's message to this process's own handler, so what it is given is
/// received, not sent: `client.handle_server_request(req)`, `handle_incoming_message(msg)`.
pub fn receives(name: &str) -> bool {
    name.starts_with("handle_")
        && ["server_request", "server_message", "incoming"].iter().any(|w| name.contains(w))
        && !name.contains("outgoing")
}

/// `assert!`, `assert_eq!`, `debug_assert_ne!`, `prop_assert!`, `assert_matches!`, ….
pub fn is_assertion_macro(name: &str) -> bool {
    name.starts_with("assert") || name.starts_with("debug_assert") || name.starts_with("prop_assert")
}

/// A call whose name says it refuses, or checks before sending, what it is given
/// (`reject_if_retired_on_v2`, `method_not_found`, `assert_capability`).
pub fn names_a_refusal(name: &str) -> bool {
    // Asked of every call the visitor meets: the words are found by their first byte, without a
    // substring search per word.
    let bytes = name.as_bytes();
    (0..bytes.len()).any(|i| {
        let rest = &bytes[i..];
        let words: &[&str] = match bytes[i] {
            b'r' => &["retire", "removed", "reject", "refuse"],
            b'd' => &["deprecat", "deny", "disallow"],
            b'u' => &["unsupported"],
            b'n' => &["not_supported", "not_found"],
            b'f' => &["forbid"],
            b'p' => &["prohibit"],
            b'a' => &["assert"],
            _ => return false,
        };
        words.iter().any(|w| rest.starts_with(w.as_bytes()))
    })
}

/// A call that sends a message or builds one (`send_request(..)`, `JsonRpcRequest::new(7, "ping")`):
/// inside a quoting place, what it is given is a message again.
pub fn builds_message(func: Option<&syn::Path>, name: &str) -> bool {
    is_send_verb(name)
        || matches!(name, "new" | "request" | "new_request" | "notification")
            && func.is_some_and(|p| {
                rpc_type_path(p)
                    || p.segments.iter().rev().nth(1).is_some_and(|s| {
                        let ty = s.ident.to_string();
                        ty.ends_with("Request") || ty.ends_with("Notification") || ty.ends_with("Message")
                    })
            })
}

/// `Request { method: …, .. }`: a message, wherever it is built.
pub fn is_message_literal(lit: &syn::ExprStruct) -> bool {
    lit.fields.iter().any(|f| matches!(&f.member, syn::Member::Named(i) if i == "method"))
}

/// Whether the entries (the string written first in each: a literal, or a tuple's first field)
/// list what 2026-07-28 removed. An entry that is not a string literal (a `const`'s name) does not
/// count either way.
fn is_removal_list<'e>(firsts: impl Iterator<Item = Option<&'e syn::LitStr>>) -> bool {
    let mut features: Vec<&'static str> = Vec::new();
    let mut removed = 0;
    for lit in firsts.flatten() {
        let Some(feature) = removed_feature(&lit.value()) else { return false };
        removed += 1;
        if !features.contains(&feature) {
            features.push(feature);
        }
    }
    removed >= 3 && features.len() >= 3
}

/// An array or slice literal listing what 2026-07-28 removed (see `is_removal_list`).
pub fn is_removal_array(array: &syn::ExprArray) -> bool {
    // Most arrays are not lists of strings: the first element tells without reading the rest.
    match array.elems.first() {
        Some(first) if first_str(first).is_some() => {}
        _ => return false,
    }
    array.elems.len() >= 3 && is_removal_list(array.elems.iter().map(first_str))
}

/// A pattern `"initialize" | "ping" | "logging/setLevel"` listing what 2026-07-28 removed.
pub fn is_removal_pattern(pat: &Pat) -> bool {
    let Pat::Or(or) = pat else { return false };
    or.cases.len() >= 3
        && is_removal_list(or.cases.iter().map(|case| match case {
            Pat::Lit(syn::PatLit { lit: syn::Lit::Str(s), .. }) => Some(s),
            _ => None,
        }))
}

/// The string an array entry starts with: `"ping"`, `("ping", None)`, `&"ping"`.
fn first_str(e: &Expr) -> Option<&syn::LitStr> {
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s),
        Expr::Tuple(t) => t.elems.first().and_then(first_str),
        Expr::Reference(r) => first_str(&r.expr),
        Expr::Paren(p) => first_str(&p.expr),
        Expr::Group(g) => first_str(&g.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_names() {
        for name in
            ["reject_if_retired_on_v2", "retired_on_v2", "method_not_found", "assert_capability", "assert_retired"]
        {
            assert!(names_a_refusal(name), "{name}");
        }
        for name in ["send_request", "handle", "contains", "call_tool", "error_message", "check_method"] {
            assert!(!names_a_refusal(name), "{name}");
        }
    }

    #[test]
    fn message_builders() {
        let path = |src: &str| syn::parse_str::<syn::Path>(src).unwrap();
        assert!(builds_message(None, "send_request"));
        assert!(builds_message(Some(&path("JsonRpcRequest::new")), "new"));
        assert!(builds_message(Some(&path("protocol::ClientRequest::new")), "new"));
        assert!(!builds_message(Some(&path("Refusal::new")), "new"));
        assert!(!builds_message(None, "contains"));
    }

    #[test]
    fn removal_lists() {
        let array = |src: &str| is_removal_array(&syn::parse_str(src).unwrap());
        assert!(array(r#"["initialize", "ping", "logging/setLevel"]"#));
        assert!(array(
            r#"[("initialize", Some(A)), ("ping", None), (SET_LEVEL, None), ("resources/subscribe", None)]"#
        ));
        // One feature twice, or a list that holds a method still in use, is not about the removal.
        assert!(!array(r#"["initialize", "notifications/initialized", "resources/subscribe"]"#));
        assert!(!array(r#"["initialize", "ping", "logging/setLevel", "tools/list"]"#));
        assert!(!array(r#"["initialize", "ping"]"#));
        assert!(!array("[1, 2, 3]"));
        let pattern = |src: &str| {
            let p = syn::parse::Parser::parse_str(Pat::parse_multi_with_leading_vert, src).unwrap();
            is_removal_pattern(&p)
        };
        assert!(pattern(r#""initialize" | "notifications/initialized" | "ping" | "logging/setLevel""#));
        assert!(!pattern(r#""resources/subscribe" | "resources/unsubscribe" | "ping""#));
    }
}
