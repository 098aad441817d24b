//! `missing-result-type`: a result of a 2026-07-28 exchange without `resultType`. Since MCP
//! 2026-07-28 every result carries `resultType` (`"complete"`, `"input_required"`, or an
//! extension's value); servers MUST set it (C08).
//!
//! Only results of 2026-07-28 exchanges are checked, because legacy results have no such field:
//! - JSON transcripts (`transcript`) that contain no `initialize` request, and whose requests name
//!   protocol version 2026-07-28 (or later) in `params._meta`, or that send `server/discover`, or
//!   whose crate targets 2026-07-28 only, or in which other results already carry `resultType`;
//! - a JSON file that is one JSON-RPC response, and `json!` responses in Rust server (or unknown-role)
//!   code, only where the crate targets 2026-07-28 only (`Era::Modern`).
//!
//! The fix inserts `"resultType": "complete"` (or `"input_required"` when the result carries
//! `inputRequests`/`requestState`) as the result object's first member.

use crate::context::{Era, Impact, Role};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage, classify};
use crate::json::{JsonKind, JsonNode, Step};
use crate::rules::missing_request_meta::{TranscriptEra, code_mentions};
use crate::rules::{Rule, RuleMeta};
use crate::source::FileKind;

pub struct MissingResultType;

static META: RuleMeta = RuleMeta {
    name: "missing-result-type",
    summary: "A result of a 2026-07-28 exchange without `resultType`",
    impact: Impact::Violation,
    // Every finding is on a JSON-RPC response's `result` member, written `"result"` in JSON files
    // and in `json!` bodies alike.
    triggers: &[],
    json_triggers: &["\"result\""],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some(
        "add `\"resultType\": \"complete\"` (or `\"input_required\"` for an `InputRequiredResult`): since MCP \
         2026-07-28 servers MUST set it on every result",
    ),
    fixable: true,
    doc: include_str!("../../rules/missing-result-type.md"),
};

impl Rule for MissingResultType {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, path: &[Step]) {
        let MessageKind::Response { result: Some(result), .. } = classify(node) else { return };
        // Only code and files that target 2026-07-28 alone: a dual-era crate answers legacy clients too,
        // and one lone response names no revision.
        if cx.crate_ctx.era.era != Era::Modern {
            return;
        }
        match cx.origin {
            // A transcript's responses are judged by `transcript`, with the transcript's own evidence.
            Origin::JsonFile => {
                if !path.is_empty() || cx.file.kind() == FileKind::Jsonl {
                    return;
                }
            }
            Origin::Rust => {
                // A client builds no results (its answers to server requests are another rule's).
                if cx.role() == Role::Client || result_type_set_in_code(cx) {
                    return;
                }
            }
        }
        check_result(cx, node, result);
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        let era = TranscriptEra::of(messages);
        if era.legacy {
            return;
        }
        let fire = match cx.crate_ctx.era.era {
            _ if era.declared => true,
            Era::Legacy => false,
            Era::Modern => true,
            Era::Dual | Era::Unknown => era.typed_results,
        };
        if !fire {
            return;
        }
        for m in messages {
            if let MessageKind::Response { result: Some(result), .. } = m.kind
                && m.sender != Sender::Client
            {
                check_result(cx, m.message, result);
            }
        }
    }
}

fn check_result(cx: &mut Cx, response: &JsonNode, result: &JsonNode) {
    let JsonKind::Object(members) = &result.kind else { return };
    if members.iter().any(|m| m.key == "resultType") {
        return;
    }
    // A `json!` member whose key is a Rust expression might be `resultType`.
    if members.iter().any(|m| !cx.text(m.key_range.clone()).starts_with('"')) {
        return;
    }
    let Some(result_member) = response.member("result") else { return };
    let input_required = result.get("inputRequests").is_some() || result.get("requestState").is_some();
    let value = if input_required { "input_required" } else { "complete" };
    let edit = insert_first_members(&cx.file.text, result, &[("resultType", format!("\"{value}\""))]);
    let d = cx
        .report(
            &META,
            result_member.key_range.clone(),
            "this result has no `resultType`; since MCP 2026-07-28 every result MUST carry it",
            "result without `resultType`",
        )
        .help(format!(
            "add `\"resultType\": \"{value}\"`{}",
            if input_required {
                " (the result carries `inputRequests`/`requestState`: it is an `InputRequiredResult`)"
            } else {
                ": clients read a missing value as `complete` only from legacy servers"
            }
        ));
    if let Some(edit) = edit {
        d.fix(Fix {
            title: format!("add `\"resultType\": \"{value}\"`"),
            applicability: Applicability::Safe,
            edits: vec![edit],
        });
    }
}

/// Whether the file's code sets `resultType` outside JSON keys (`resp["result"]["resultType"] = …`,
/// a `result_type` field): then a response built without it may get it later.
fn result_type_set_in_code(cx: &mut Cx) -> bool {
    #[derive(Default)]
    struct Scan(Option<bool>);
    if let Some(Scan(Some(known))) = cx.state_ref::<Scan>() {
        return *known;
    }
    let text = cx.file.text.as_str();
    let found = code_mentions(text, "resultType", false) || code_mentions(text, "result_type", true);
    cx.state::<Scan>().0 = Some(found);
    found
}

/// An edit that inserts members (`(key, value as JSON text)`) at the start of object `obj`, in the
/// object's layout: on their own lines with the first member's indentation when the members are on
/// lines of their own, else inline; with the colon spacing the object already uses. Works on JSON
/// files and `json!` bodies alike (both write keys as string literals). `None` when the object's
/// range does not hold it, braces included (a `json!` body whose tokens have no source location):
/// an edit computed from it would land anywhere.
pub(crate) fn insert_first_members(text: &str, obj: &JsonNode, new: &[(&str, String)]) -> Option<Edit> {
    let written = text.get(obj.range.clone())?;
    if written.len() < 2 || !written.starts_with('{') || !written.ends_with('}') {
        return None;
    }
    let members = obj.members();
    let colon = match members.first() {
        Some(m) if text.get(m.key_range.end..m.value.range.start).is_some_and(|s| !s.contains(": ")) => ":",
        _ => ": ",
    };
    let rendered: Vec<String> = new.iter().map(|(k, v)| format!("\"{k}\"{colon}{v}")).collect();
    let Some(first) = members.first() else {
        // `{}` or `{ }`: the members fill it.
        return Some(Edit::replace(obj.range.start + 1..obj.range.end - 1, rendered.join(", ")));
    };
    let at = first.range.start;
    if at <= obj.range.start || at >= obj.range.end {
        return None;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    let on_own_line = line_start > obj.range.start && before.trim().is_empty();
    let separator = if on_own_line {
        format!(",\n{before}")
    } else if text.get(obj.range.start + 1..at) == Some("") && colon == ":" {
        ",".to_owned()
    } else {
        ", ".to_owned()
    };
    let mut insert = rendered.join(&separator);
    insert.push_str(&separator);
    Some(Edit::replace(at..at, insert))
}

#[cfg(test)]
mod tests {

    use crate::diagnostic::Diagnostic;
    use crate::json::parse::parse_json_file;
    use crate::source::FileKind;

    fn findings(name: &str, text: &str) -> Vec<Diagnostic> {
        crate::rules::test_support::diagnostics_of("missing-result-type", name, text)
    }

    fn fixed(name: &str, text: &str) -> String {
        crate::rules::test_support::with_fixes(text, findings(name, text), true)
    }

    const REQ: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

    /// An object node placed where its text is not (a `json!` body whose tokens have no source
    /// location, as when proc-macro2 is built under `cfg(fuzzing)`: every span `0..0`) gets no edit;
    /// it got `1..0` for `{}`, an inverted range.
    #[test]
    fn members_go_only_into_an_object_the_range_holds() {
        use super::insert_first_members;
        use crate::json::{JsonKind, JsonNode};
        let member = [("resultType", "\"complete\"".to_owned())];
        let empty = |range| JsonNode { range, kind: JsonKind::Object(Vec::new()) };
        let text = "x({})";
        let edit = insert_first_members(text, &empty(2..4), &member).unwrap();
        assert_eq!((edit.byte_range, edit.replacement.as_str()), (3..3, "\"resultType\": \"complete\""));
        assert!(insert_first_members(text, &empty(0..0), &member).is_none());
        assert!(insert_first_members(text, &empty(0..2), &member).is_none());
        let obj = parse_json_file("{\"a\": 1}", FileKind::Json).roots.remove(0);
        let JsonKind::Object(members) = obj.kind else { unreachable!() };
        let displaced = JsonNode { range: 0..0, kind: JsonKind::Object(members) };
        assert!(insert_first_members("{\"a\": 1}", &displaced, &member).is_none());
    }

    #[test]
    fn compact_transcript_fix() {
        let text = format!("{REQ}\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":[]}}}}\n");
        let got = fixed("t.jsonl", &text);
        assert!(got.contains(r#""result":{"resultType":"complete","tools":[]}"#), "{got}");
        assert!(findings("t.jsonl", &got).is_empty());
        assert!(parse_json_file(&got, FileKind::Jsonl).errors.is_empty());
    }

    #[test]
    fn pretty_transcript_fix_keeps_layout() {
        let text = format!(
            "[\n  {REQ},\n  {{\n    \"jsonrpc\": \"2.0\",\n    \"id\": 1,\n    \"result\": {{\n      \"inputRequests\": {{}},\n      \"requestState\": \"x\"\n    }}\n  }}\n]\n"
        );
        let got = fixed("t.json", &text);
        assert!(
            got.contains("\"result\": {\n      \"resultType\": \"input_required\",\n      \"inputRequests\": {},"),
            "{got}"
        );
        assert!(findings("t.json", &got).is_empty());
    }

    #[test]
    fn empty_result_object() {
        let text = format!("{REQ}\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{}}}}\n");
        let got = fixed("t.jsonl", &text);
        assert!(got.contains(r#""result":{"resultType": "complete"}"#), "{got}");
    }

    #[test]
    fn legacy_and_undeclared_transcripts_are_silent() {
        let legacy = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n";
        assert!(findings("t.jsonl", legacy).is_empty());
        let bare = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n";
        assert!(findings("t.jsonl", bare).is_empty());
    }
}
