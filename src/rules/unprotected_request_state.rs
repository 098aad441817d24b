//! `unprotected-request-state`: a server that decodes the `requestState` a client echoed back into
//! data, with no integrity check. The client controls that string; since MCP 2026-07-28 a server
//! MUST treat it as attacker-controlled and MUST integrity-protect it (HMAC or AEAD) when it affects
//! authorization or logic (C07).
//!
//! Rust (server and unknown-role code; the facts are the crate model's, `model::request_state`): a
//! fn that decodes the state (`serde_json::from_str`/`from_slice`, a base64 engine's `decode`,
//! `.parse()`, `.split_once(…)`, or a helper fn of the crate, in any file, that does so) and
//! checks no integrity, itself or in a crate fn it calls: no HMAC/`Mac`, `verify…`, AEAD/`decrypt`,
//! `.open(…)`/`.open_json(…)` of a sealing codec such as rmcp's `RequestStateCodec`, JWT,
//! constant-time comparison. In unknown-role code only a
//! state read from a request's params (`req.params.request_state`, `params["requestState"]`, the
//! `RequestState` extractor) counts; one read from a result is the client's copy.
//!
//! JSON: an `input_required` result whose `requestState` is readable JSON (as is, or base64 of it)
//! with no integrity field (`mac`, `sig`, `tag`, `nonce`, …): a client can rewrite it at will.

use crate::context::{Impact, Role};
use crate::cx::{CrateCx, Cx, Origin};
use crate::json::{JsonNode, Step};
use crate::model::CrateModel;
use crate::model::request_state::{Op, OpKind, Side};
use crate::rules::request_state_tampering::report_ops;
use crate::rules::{Rule, RuleMeta};

pub struct UnprotectedRequestState;

const HELP: &str = "seal the state when you return it and open it when it comes back: rmcp's `RequestStateCodec` \
     (`seal_json` / `open_json`, cargo feature `request-state`), or an HMAC tag checked in constant time before \
     decoding; or keep the state server-side and send only a random key";

static META: RuleMeta = RuleMeta {
    name: "unprotected-request-state",
    summary: "A server decodes `requestState` into data with no integrity check (HMAC/AEAD or the SDK's codec)",
    impact: Impact::Violation,
    // Every finding is about the state: its JSON key or one of the SDK spellings.
    triggers: &["requestState", "request_state", "\\bRequestState"],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some(HELP),
    fixable: false,
    doc: include_str!("../../rules/unprotected-request-state.md"),
};

impl Rule for UnprotectedRequestState {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn uses_model(&self) -> bool {
        true
    }

    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        for (id, role, _) in model.state_fns() {
            if role == Role::Client || model.verifies_integrity(id) {
                continue;
            }
            // In a server, any state but a result's (a proxy's upstream copy); elsewhere only a request's.
            let ours = |side: Side| match role {
                Role::Server => side != Side::Client,
                _ => side == Side::Server,
            };
            let ops = model.state_ops(id);
            let ops: Vec<&Op> = ops.iter().filter(|op| op.kind == OpKind::Decode && ours(op.side)).collect();
            report_ops(cx, &META, model.file_of(id), &ops, "then", |_, what| {
                (
                    format!(
                        "`requestState` is decoded ({what}) with no integrity check in this fn; the client controls \
                         it, and since MCP 2026-07-28 a server MUST integrity-protect it (HMAC or AEAD) when it drives \
                         authorization or logic"
                    ),
                    "decoded without an integrity check".to_owned(),
                    "`requestState` as the client sent it",
                )
            });
        }
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        // Recorded results only: in Rust, the decoding is what tells.
        if cx.origin != Origin::JsonFile {
            return;
        }
        let Some(state) = node.get("requestState") else { return };
        // An MCP `input_required` result (other APIs use a `requestState` key too).
        let is_result = node.get("resultType").and_then(JsonNode::as_str) == Some("input_required")
            || (path.last() == Some(&Step::Key("result")) && node.get("inputRequests").is_some());
        let Some(text) = state.as_str() else { return };
        if !is_result {
            return;
        }
        let Some((shown, encoded, key)) = readable_state(text) else { return };
        let how = if encoded { "base64 of JSON" } else { "plain JSON" };
        cx.report(
            &META,
            state.range.clone(),
            format!(
                "this `requestState` is {how} (`{shown}`) with no integrity tag, so a client can rewrite its `{key}`; \
                 since MCP 2026-07-28 a server MUST integrity-protect `requestState` (HMAC or AEAD) when it drives \
                 authorization or logic"
            ),
            "readable, unsigned state",
        );
    }
}

/// Keys of a state object that say it carries its own protection (a MAC, a signature, a nonce).
const PROTECTION_KEYS: &[&str] =
    &["mac", "hmac", "sig", "sigs", "signature", "tag", "nonce", "iv", "ct", "ciphertext", "alg", "kid", "jws", "jwt"];

/// Keys (lowercase substrings) of state that says who the caller is or what they may do.
const AUTHZ_KEYS: &[&str] = &[
    "user",
    "principal",
    "role",
    "scope",
    "admin",
    "approv",
    "authoriz",
    "permission",
    "privilege",
    "owner",
    "tenant",
    "account",
    "amount",
    "price",
    "allow",
    "grant",
    "email",
    "confirm",
];

/// The state as readable JSON: (the JSON shortened for a message, whether it was base64, the key
/// that makes it matter). `None` when it is opaque (random, encrypted), a dotted signed token
/// (`payload.mac`, a JWT), JSON that carries a protection field, or JSON with nothing about the
/// caller's identity or rights (a bare `{"round":1}` may drive nothing worth protecting).
fn readable_state(text: &str) -> Option<(String, bool, String)> {
    let trimmed = text.trim();
    let (json, encoded) = if trimmed.starts_with('{') {
        (trimmed.to_owned(), false)
    } else {
        if trimmed.len() < 8 || trimmed.contains('.') {
            return None;
        }
        let bytes = base64_decode(trimmed)?;
        (String::from_utf8(bytes).ok()?, true)
    };
    let serde_json::Value::Object(map) = serde_json::from_str::<serde_json::Value>(&json).ok()? else { return None };
    let protected = map.keys().any(|k| {
        let k = k.to_ascii_lowercase();
        PROTECTION_KEYS.contains(&k.as_str()) || k.contains("hmac") || k.contains("signature")
    });
    if protected {
        return None;
    }
    let key = map.keys().find(|k| {
        let k = k.to_ascii_lowercase();
        AUTHZ_KEYS.iter().any(|w| k.contains(w)) || matches!(k.as_str(), "sub" | "uid" | "acl")
    })?;
    let compact = json.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = if compact.chars().count() > 60 {
        format!("{}…", compact.chars().take(60).collect::<String>())
    } else {
        compact
    };
    Some((shown, encoded, key.clone()))
}

/// Standard or URL-safe base64, padded or not; `None` on any other character.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut buf, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        buf = (buf << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_states() {
        // {"step":2,"user":"ana"}
        assert_eq!(readable_state("eyJzdGVwIjoyLCJ1c2VyIjoiYW5hIn0").map(|s| s.1), Some(true));
        assert_eq!(readable_state("eyJzdGVwIjoyLCJ1c2VyIjoiYW5hIn0=").map(|s| s.1), Some(true));
        assert_eq!(readable_state(r#"{"step": 2, "owner": "ana"}"#).map(|s| s.1), Some(false));
        // Protected or opaque.
        assert!(readable_state(r#"{"user": "ana", "mac": "x"}"#).is_none());
        assert!(readable_state("eyJzdGVwIjoyfQ.c2lnbmF0dXJl").is_none());
        assert!(readable_state("c3RhdGUtNDI=").is_none());
        assert!(readable_state("rs1.AAAA.BBBB").is_none());
        assert!(readable_state("7f3c9a2e-41b8-4c1e-9d3a-0b6e2f8a1c55").is_none());
        assert!(readable_state("{}").is_none());
        // Nothing about the caller: {"round":1}
        assert!(readable_state("eyJyb3VuZCI6MX0").is_none());
        assert!(readable_state(r#"{"step": 2}"#).is_none());
    }
}
