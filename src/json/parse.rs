//! JSON, JSONC and JSON Lines text to the spanned tree.
//!
//! All three kinds go through jsonc-parser's permissive AST parser (comments and trailing commas
//! are accepted even in `.json`, because real-world config files often have them). Every range
//! indexes the original file text: a leading BOM is skipped and accounted for, and JSONL lines keep
//! their offsets in the whole file.

use std::ops::Range;

use jsonc_parser::ast::{ObjectPropName, Value};
use jsonc_parser::common::Ranged;
use jsonc_parser::errors::ParseErrorKind;
use jsonc_parser::{CollectOptions, ParseOptions};

use super::tree::{JsonKind, JsonMember, JsonNode};
use crate::source::FileKind;

/// Deepest `[`/`{` nesting we hand to the (recursive) parser. Anything deeper is reported and
/// skipped rather than risking the stack.
pub const MAX_JSON_DEPTH: usize = 512;

/// A document that could not be parsed; `range` indexes the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub range: Range<usize>,
    pub message: String,
}

/// The documents of one file: one root for JSON/JSONC (none when the file is empty), one per
/// well-formed line for JSONL.
#[derive(Debug, Default)]
pub struct ParsedJson {
    pub roots: Vec<JsonNode>,
    pub errors: Vec<JsonError>,
}

const BOM: &str = "\u{FEFF}";

/// Parses a whole file's text as `kind` (a `FileKind::Rust` file is treated like JSON; callers
/// only pass JSON kinds).
pub fn parse_json_file(text: &str, kind: FileKind) -> ParsedJson {
    // Skip the BOM but keep its length as the base of every range so spans index `text`.
    let base = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let body = &text[base..];
    let mut out = ParsedJson::default();
    match kind {
        FileKind::Jsonl => {
            let mut start = 0;
            for line in body.split_inclusive('\n') {
                // The line terminator (LF or CRLF) is whitespace to the parser anyway, but trimming
                // it keeps error ranges for unterminated values on the line itself.
                let content = line.trim_end_matches(['\n', '\r']);
                if !content.trim().is_empty() {
                    parse_document(content, base + start, &mut out);
                }
                start += line.len();
            }
        }
        FileKind::Json | FileKind::Jsonc | FileKind::Rust => parse_document(body, base, &mut out),
    }
    out
}

/// Parses one JSON document that starts at byte `base` of a file (a string literal's contents).
pub fn parse_json_at(doc: &str, base: usize) -> ParsedJson {
    let mut out = ParsedJson::default();
    parse_document(doc, base, &mut out);
    out
}

/// Parses one document (`doc` starts at byte `base` of the file) into `out`.
fn parse_document(doc: &str, base: usize, out: &mut ParsedJson) {
    // jsonc-parser recurses once per nesting level; refuse pathological input before calling it.
    if let Some(at) = too_deep_at(doc) {
        out.errors.push(JsonError {
            range: base + at..base + at + 1,
            message: format!("nested more than {MAX_JSON_DEPTH} levels deep; not analysed"),
        });
        return;
    }
    let collect = CollectOptions::default();
    match jsonc_parser::parse_to_ast(doc, &collect, &ParseOptions::default()) {
        Ok(result) => {
            if let Some(value) = result.value {
                out.roots.push(convert(value, base));
            }
        }
        Err(err) => {
            let r = err.range();
            out.errors.push(JsonError {
                range: clamp_range(doc, r.start, r.end, base),
                message: match err.kind() {
                    // jsonc-parser counts an object member as a level of its own, so objects hit
                    // its internal limit at about half of MAX_JSON_DEPTH; say what happened.
                    ParseErrorKind::NestingDepthExceeded => {
                        "nested too deeply for the JSON parser; not analysed".to_string()
                    }
                    // The kind alone: line and column are derived from the range by the reporter.
                    kind => kind.to_string(),
                },
            });
        }
    }
}

/// Clamps a parser-reported range into `doc` and onto char boundaries (start moves back, end moves
/// forward), then shifts it by `base`.
fn clamp_range(doc: &str, start: usize, end: usize, base: usize) -> Range<usize> {
    let mut start = start.min(doc.len());
    let mut end = end.clamp(start, doc.len());
    while !doc.is_char_boundary(start) {
        start -= 1;
    }
    while !doc.is_char_boundary(end) {
        end += 1;
    }
    base + start..base + end
}

/// Byte offset of the first `[` or `{` that opens nesting level `MAX_JSON_DEPTH + 1`, if any.
///
/// One linear pass that skips string contents (both quote styles, since the parser accepts
/// single-quoted strings) and comments. It only needs to be approximately right: jsonc-parser also
/// stops at its own depth limit, this pass just keeps us from ever relying on that.
fn too_deep_at(doc: &str) -> Option<usize> {
    let bytes = doc.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    // An escape consumes the next byte, so `\"` does not end the string.
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

fn span(r: jsonc_parser::common::Range, base: usize) -> Range<usize> {
    base + r.start..base + r.end
}

/// Converts a jsonc-parser value into our tree. Recursion depth equals the input's nesting, which
/// `too_deep_at` (and the parser itself) already bounded.
fn convert(value: Value<'_>, base: usize) -> JsonNode {
    let range = span(value.range(), base);
    let kind = match value {
        Value::StringLit(s) => JsonKind::String(s.value.into_owned()),
        // Kept as written: `1e999999` or 30-digit ids must survive unchanged.
        Value::NumberLit(n) => JsonKind::Number(n.value.to_string()),
        Value::BooleanLit(b) => JsonKind::Bool(b.value),
        Value::NullKeyword(_) => JsonKind::Null,
        Value::Array(a) => JsonKind::Array(a.elements.into_iter().map(|v| convert(v, base)).collect()),
        Value::Object(o) => JsonKind::Object(
            o.properties
                .into_iter()
                .map(|p| {
                    let (key, key_range) = match p.name {
                        ObjectPropName::String(s) => (s.value.into_owned(), s.range),
                        ObjectPropName::Word(w) => (w.value.to_string(), w.range),
                    };
                    let value = convert(p.value, base);
                    JsonMember {
                        key,
                        key_range: span(key_range, base),
                        range: base + key_range.start..value.range.end,
                        value,
                    }
                })
                .collect(),
        ),
    };
    JsonNode { range, kind }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice<'a>(text: &'a str, node: &JsonNode) -> &'a str {
        &text[node.range.clone()]
    }

    fn one(text: &str, kind: FileKind) -> JsonNode {
        let mut parsed = parse_json_file(text, kind);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        assert_eq!(parsed.roots.len(), 1);
        parsed.roots.pop().unwrap()
    }

    #[test]
    fn object_array_and_scalar_spans() {
        let text = "{\r\n  \"a\": [1, -2.5e3, true, false, null],\r\n  \"b\\n\": \"x\\u0041\"\r\n}\r\n";
        let root = one(text, FileKind::Json);
        assert_eq!(slice(text, &root), &text[..text.len() - 2]);
        let a = root.member("a").unwrap();
        assert_eq!(&text[a.key_range.clone()], "\"a\"");
        assert_eq!(&text[a.range.clone()], "\"a\": [1, -2.5e3, true, false, null]");
        let items = a.value.elements();
        assert_eq!(items.len(), 5);
        let written: Vec<_> = items.iter().map(|n| slice(text, n)).collect();
        assert_eq!(written, ["1", "-2.5e3", "true", "false", "null"]);
        assert!(matches!(&items[1].kind, JsonKind::Number(n) if n == "-2.5e3"));
        assert_eq!(items[2].as_bool(), Some(true));
        assert!(matches!(items[4].kind, JsonKind::Null));
        // Keys and strings are unescaped; their ranges keep the quotes.
        let b = root.member("b\n").unwrap();
        assert_eq!(&text[b.key_range.clone()], "\"b\\n\"");
        assert_eq!(b.value.as_str(), Some("xA"));
        assert_eq!(slice(text, &b.value), "\"x\\u0041\"");
    }

    #[test]
    fn bom_shifts_every_range() {
        let text = "\u{FEFF}{\"k\": \"v\"}";
        let root = one(text, FileKind::Json);
        assert_eq!(root.range, 3..text.len());
        let m = root.member("k").unwrap();
        assert_eq!(m.key_range, 4..7);
        assert_eq!(slice(text, &m.value), "\"v\"");

        let bad = "\u{FEFF}{\"k\" 1}";
        let parsed = parse_json_file(bad, FileKind::Json);
        assert_eq!(parsed.errors.len(), 1);
        assert!(parsed.errors[0].range.start >= 3);
    }

    #[test]
    fn empty_file_has_no_roots_and_no_errors() {
        for text in ["", "  \n\t\r\n", "\u{FEFF}", "// only a comment\n"] {
            let parsed = parse_json_file(text, FileKind::Jsonc);
            assert!(parsed.roots.is_empty() && parsed.errors.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn jsonl_bad_middle_line() {
        let text = "{\"id\": 1}\r\n\r\n{\"id\": 2,,}\n  \n[\"é\", 3]\n";
        let parsed = parse_json_file(text, FileKind::Jsonl);
        assert_eq!(parsed.roots.len(), 2);
        assert_eq!(slice(text, &parsed.roots[0]), "{\"id\": 1}");
        assert_eq!(slice(text, &parsed.roots[1]), "[\"é\", 3]");
        let three = &parsed.roots[1].elements()[1];
        assert_eq!(slice(text, three), "3");
        assert_eq!(parsed.errors.len(), 1);
        let err = &parsed.errors[0];
        let line2 = text.find("{\"id\": 2").unwrap();
        assert!(err.range.start >= line2 && err.range.end <= line2 + 11, "{err:?}");
    }

    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let text = "// settings\n{\n  /* block */ \"a\": 1, // trailing\n  \"b\": [2,],\n}\n";
        for kind in [FileKind::Jsonc, FileKind::Json] {
            let root = one(text, kind);
            assert_eq!(root.members().len(), 2);
            assert_eq!(slice(text, &root.get("b").unwrap().elements()[0]), "2");
        }
    }

    #[test]
    fn syntax_error_range_and_message() {
        let text = "{\"a\": 1 \"b\": }";
        let parsed = parse_json_file(text, FileKind::Json);
        assert!(parsed.roots.is_empty());
        assert_eq!(parsed.errors.len(), 1);
        let err = &parsed.errors[0];
        assert_eq!(&text[err.range.clone()], "}");
        assert_eq!(err.message, "Unexpected close brace");

        let text = "[1, 2";
        let err = &parse_json_file(text, FileKind::Json).errors[0];
        assert_eq!(err.message, "Unterminated array");
        assert!(err.range.end <= text.len());
    }

    #[test]
    fn error_range_lands_on_char_boundaries() {
        let r = clamp_range("aé", 2, 99, 10);
        assert_eq!(r, 11..13);
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let text = r#"{"a": 1, "a": 2}"#;
        let root = one(text, FileKind::Json);
        let m = root.members();
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].key.as_str(), slice(text, &m[0].value)), ("a", "1"));
        assert_eq!((m[1].key.as_str(), slice(text, &m[1].value)), ("a", "2"));
    }

    #[test]
    fn huge_number_kept_as_text() {
        let text = r#"{"n": 1e999999, "id": 123456789012345678901234567890}"#;
        let root = one(text, FileKind::Json);
        assert!(matches!(&root.get("n").unwrap().kind, JsonKind::Number(n) if n == "1e999999"));
        assert!(matches!(&root.get("id").unwrap().kind,
            JsonKind::Number(n) if n == "123456789012345678901234567890"));
    }

    #[test]
    fn very_deep_nesting_is_refused_without_crashing() {
        let text = "[".repeat(100_000);
        let parsed = parse_json_file(&text, FileKind::Json);
        assert!(parsed.roots.is_empty());
        assert_eq!(parsed.errors.len(), 1);
        assert_eq!(parsed.errors[0].range, MAX_JSON_DEPTH..MAX_JSON_DEPTH + 1);
        assert!(parsed.errors[0].message.contains("nested more than 512 levels deep"));

        // Per line in JSONL, and the other lines still parse.
        let text = format!("{}\n{{\"ok\": true}}\n", "{\"a\":".repeat(100_000));
        let parsed = parse_json_file(&text, FileKind::Jsonl);
        assert_eq!(parsed.roots.len(), 1);
        assert_eq!(parsed.errors.len(), 1);
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let noise = format!("\"{0}\" /* {0} */ '{0}' // {0}\n", "[".repeat(1000));
        let text = format!("[{noise}, \"\\\"[\"]");
        assert!(too_deep_at(&text).is_none());
    }

    #[test]
    fn nesting_of_300_levels_parses() {
        let depth = 300;
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let root = one(&text, FileKind::Json);
        let mut node = &root;
        for _ in 0..depth {
            node = &node.elements()[0];
        }
        assert_eq!(slice(&text, node), "1");

        // Mixed objects and arrays, up to the limit of the parser itself.
        let text = format!("{}1{}", "{\"a\":[".repeat(120), "]}".repeat(120));
        let root = one(&text, FileKind::Json);
        assert_eq!(slice(&text, &root), text);
    }

    #[test]
    fn deep_objects_hit_the_parser_limit_gracefully() {
        // 300 nested objects pass our bracket check but exceed jsonc-parser's own limit, which
        // counts each member as well as each object.
        let text = format!("{}1{}", "{\"a\":".repeat(300), "}".repeat(300));
        let parsed = parse_json_file(&text, FileKind::Json);
        assert!(parsed.roots.is_empty());
        assert_eq!(parsed.errors.len(), 1);
        assert!(parsed.errors[0].message.contains("nested too deeply"));
        let text = format!("{}1{}", "{\"a\":".repeat(250), "}".repeat(250));
        one(&text, FileKind::Json);
    }

    #[test]
    fn exactly_max_depth_arrays_parse() {
        let text = format!("{}{}", "[".repeat(MAX_JSON_DEPTH), "]".repeat(MAX_JSON_DEPTH));
        let parsed = parse_json_file(&text, FileKind::Json);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        assert_eq!(parsed.roots.len(), 1);
    }
}
