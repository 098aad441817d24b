//! A `json!` macro body (serde_json's macro syntax) to the spanned tree.
//!
//! The grammar follows serde_json's `json!`: JSON literals, `[…]` and `{…}` groups, members split
//! at top-level commas and at the first lone `:`, trailing commas allowed. Anything else in a value
//! position is a Rust expression and stays as tokens (`JsonKind::Expr`) so Rust analysis can look
//! inside. Ranges are offsets in the Rust file (the caller's `SpanRange`).

use std::ops::Range;

use proc_macro2::{Delimiter, Group, Spacing, Span, TokenStream, TokenTree};

use super::tree::{JsonKind, JsonMember, JsonNode};

/// Where a span is in the Rust file (`Cx::span_range`).
pub type SpanRange<'a> = &'a dyn Fn(Span) -> Range<usize>;

/// `Span::byte_range` shifted by `base` (a BOM before the text the parser saw): for tokens that
/// may come from several files, where `Cx::span_range` does not apply.
pub fn shifted(base: usize) -> impl Fn(Span) -> Range<usize> {
    move |span| crate::rust::parse::file_range(span, base)
}

/// `tokens` is the macro's body (what is inside `json!( … )`); `at` places each token in the file.
pub fn parse_json_macro(tokens: TokenStream, at: SpanRange) -> Option<JsonNode> {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    parse_value(&tts, at)
}

/// One value: exactly one JSON token or group, else a Rust expression. `None` when empty or when
/// a nested array/object is malformed (serde_json would reject the whole macro then).
///
/// Recursion (through `parse_array`/`parse_object`) is one level per token group, i.e. bounded by
/// the token nesting, which callers have already limited.
fn parse_value(tts: &[TokenTree], at: SpanRange) -> Option<JsonNode> {
    let range = run_range(tts, at)?;
    let kind = match tts {
        [TokenTree::Ident(ident)] if ident == "null" => JsonKind::Null,
        [TokenTree::Ident(ident)] if ident == "true" => JsonKind::Bool(true),
        [TokenTree::Ident(ident)] if ident == "false" => JsonKind::Bool(false),
        [TokenTree::Literal(lit)] => match syn::Lit::new(lit.clone()) {
            syn::Lit::Str(s) => JsonKind::String(s.value()),
            syn::Lit::Int(i) => JsonKind::Number(i.base10_digits().to_string()),
            syn::Lit::Float(f) => JsonKind::Number(f.base10_digits().to_string()),
            // Chars, byte strings, … serialize through serde, not as JSON literals.
            _ => expr(tts),
        },
        // A negative number is two tokens: `-` and the literal.
        [TokenTree::Punct(minus), TokenTree::Literal(lit)] if minus.as_char() == '-' => {
            match syn::Lit::new(lit.clone()) {
                syn::Lit::Int(i) => JsonKind::Number(format!("-{}", i.base10_digits())),
                syn::Lit::Float(f) => JsonKind::Number(format!("-{}", f.base10_digits())),
                _ => expr(tts),
            }
        }
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Bracket => parse_array(g, at)?,
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => parse_object(g, at)?,
        // Identifiers, calls, paths, casts, parenthesized expressions, nested macros, …
        _ => expr(tts),
    };
    Some(JsonNode { range, kind })
}

fn expr(tts: &[TokenTree]) -> JsonKind {
    JsonKind::Expr(tts.iter().cloned().collect())
}

fn parse_array(group: &Group, at: SpanRange) -> Option<JsonKind> {
    let tts: Vec<TokenTree> = group.stream().into_iter().collect();
    let elements =
        split_commas(&tts)?.into_iter().map(|element| parse_value(element, at)).collect::<Option<Vec<_>>>()?;
    Some(JsonKind::Array(elements))
}

fn parse_object(group: &Group, at: SpanRange) -> Option<JsonKind> {
    let tts: Vec<TokenTree> = group.stream().into_iter().collect();
    let mut members = Vec::new();
    for member in split_commas(&tts)? {
        let colon = (0..member.len()).find(|&i| is_lone_colon(member, i))?;
        let (key_tts, value_tts) = (&member[..colon], &member[colon + 1..]);
        let key_range = run_range(key_tts, at)?;
        let key = match key_tts {
            [TokenTree::Literal(lit)] => match syn::Lit::new(lit.clone()) {
                syn::Lit::Str(s) => s.value(),
                _ => source_text(key_tts),
            },
            // An interpolated key (`id`, `Key::NAME`, `(name)`): keep its text as written.
            _ => source_text(key_tts),
        };
        let value = parse_value(value_tts, at)?;
        members.push(JsonMember { key, range: key_range.start..value.range.end, key_range, value });
    }
    Some(JsonKind::Object(members))
}

/// Splits a group's tokens at top-level commas (nested groups are single token trees, so their
/// commas are not seen). One trailing comma is allowed; any other empty piece is malformed.
fn split_commas(tts: &[TokenTree]) -> Option<Vec<&[TokenTree]>> {
    let mut pieces: Vec<&[TokenTree]> =
        tts.split(|tt| matches!(tt, TokenTree::Punct(p) if p.as_char() == ',')).collect();
    // `[]` and `[a,]` both end with one empty piece.
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    if pieces.iter().any(|p| p.is_empty()) {
        return None;
    }
    Some(pieces)
}

/// Whether `tts[i]` is a `:` that separates key and value, not half of a `::` path separator.
/// `::` lexes as a `Joint` `:` followed by another `:`; a separator written as `"a":-1` is also
/// `Joint` (punctuation follows it), so spacing alone does not decide.
fn is_lone_colon(tts: &[TokenTree], i: usize) -> bool {
    let is_colon = |j: usize| matches!(tts.get(j), Some(TokenTree::Punct(p)) if p.as_char() == ':');
    let is_joint_colon = |j: usize| {
        matches!(tts.get(j), Some(TokenTree::Punct(p))
            if p.as_char() == ':' && p.spacing() == Spacing::Joint)
    };
    is_colon(i) && !(is_joint_colon(i) && is_colon(i + 1)) && !(i > 0 && is_joint_colon(i - 1))
}

/// From the first token's start to the last token's end. `None` when empty.
fn run_range(tts: &[TokenTree], at: SpanRange) -> Option<Range<usize>> {
    let first = at(tts.first()?.span());
    let last = at(tts.last()?.span());
    Some(first.start..last.end.max(first.start))
}

/// The source text of a token run (spaces and all), falling back to the tokens' printed form
/// when the spans do not point into real source (tokens built in code).
fn source_text(tts: &[TokenTree]) -> String {
    let joined = match (tts.first(), tts.last()) {
        (Some(first), Some(last)) => first.span().join(last.span()),
        _ => None,
    };
    joined
        .and_then(|span| span.source_text())
        .unwrap_or_else(|| tts.iter().cloned().collect::<TokenStream>().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of the first `json!(…)` in `src`, found by walking the lexed tokens.
    fn body_of_json(src: &str) -> TokenStream {
        fn find(stream: TokenStream) -> Option<TokenStream> {
            let tts: Vec<TokenTree> = stream.into_iter().collect();
            for (i, tt) in tts.iter().enumerate() {
                if let (TokenTree::Ident(id), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g))) =
                    (tt, tts.get(i + 1), tts.get(i + 2))
                    && id == "json"
                    && bang.as_char() == '!'
                {
                    return Some(g.stream());
                }
                if let TokenTree::Group(g) = tt
                    && let Some(found) = find(g.stream())
                {
                    return Some(found);
                }
            }
            None
        }
        find(src.parse().expect("lexes")).expect("has a json! call")
    }

    fn parse(src: &str) -> Option<JsonNode> {
        parse_json_macro(body_of_json(src), &shifted(0))
    }

    fn slice<'a>(src: &'a str, range: &Range<usize>) -> &'a str {
        &src[range.clone()]
    }

    fn number(node: &JsonNode) -> &str {
        match &node.kind {
            JsonKind::Number(n) => n,
            other => panic!("not a number: {other:?}"),
        }
    }

    #[test]
    fn request_body_spans_slice_the_source() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = "// é: offsets are bytes\nfn f() {\n    let v = json!({\"jsonrpc\": \"2.0\", \"id\": next_id(), \"method\": \"roots/list\", \"params\": {\"a\": [1, -2, true, null]}});\n}\n";
        let root = parse(src).unwrap();
        assert!(slice(src, &root.range).starts_with("{\"jsonrpc\""));
        assert!(slice(src, &root.range).ends_with("]}}"));

        let method = root.member("method").unwrap();
        assert_eq!(slice(src, &method.value.range), "\"roots/list\"");
        assert_eq!(method.value.as_str(), Some("roots/list"));
        assert_eq!(slice(src, &method.key_range), "\"method\"");
        assert_eq!(slice(src, &method.range), "\"method\": \"roots/list\"");

        let id = root.get("id").unwrap();
        assert!(matches!(&id.kind, JsonKind::Expr(ts) if ts.to_string() == "next_id ()"));
        assert_eq!(slice(src, &id.range), "next_id()");

        let a = root.get("params").unwrap().get("a").unwrap();
        assert_eq!(slice(src, &a.range), "[1, -2, true, null]");
        let items = a.elements();
        assert_eq!(number(&items[0]), "1");
        assert_eq!(number(&items[1]), "-2");
        assert_eq!(slice(src, &items[1].range), "-2");
        assert_eq!(items[2].as_bool(), Some(true));
        assert!(matches!(items[3].kind, JsonKind::Null));
        assert_eq!(slice(src, &items[3].range), "null");
    }

    #[test]
    fn paths_and_expressions_stay_expressions() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = r#"json!({
            "path": std::path::Path::new("x"),
            Key::NAME: 1,
            "id": req.id.clone(),
            "n": x as u64,
            "inner": json!({"a": 1}),
            "opt": Some(1),
            "bare": id,
            "paren": (1),
        })"#;
        let root = parse(src).unwrap();
        let keys: Vec<_> = root.members().iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["path", "Key::NAME", "id", "n", "inner", "opt", "bare", "paren"]);
        let expected = [
            "std::path::Path::new(\"x\")",
            "1",
            "req.id.clone()",
            "x as u64",
            "json!({\"a\": 1})",
            "Some(1)",
            "id",
            "(1)",
        ];
        for (m, want) in root.members().iter().zip(expected) {
            assert_eq!(slice(src, &m.value.range), want);
            let is_expr = matches!(m.value.kind, JsonKind::Expr(_));
            assert_eq!(is_expr, m.key != "Key::NAME", "{}", m.key);
        }
        let key = root.member("Key::NAME").unwrap();
        assert_eq!(slice(src, &key.key_range), "Key::NAME");
        // The expression's tokens keep their spans for Rust analysis.
        let JsonKind::Expr(tokens) = &root.get("path").unwrap().kind else { panic!() };
        let call: syn::Expr = syn::parse2(tokens.clone()).unwrap();
        assert!(matches!(call, syn::Expr::Call(_)));
    }

    #[test]
    fn ident_keys_raw_strings_and_trailing_commas() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = r##"json!({ id: r#"a"b"#, "s": "\u{41}\n", "f": 2.5e3, "h": 0x10, "e": {}, "l": [], "t": [1,], })"##;
        let root = parse(src).unwrap();
        let id = root.member("id").unwrap();
        assert_eq!(slice(src, &id.key_range), "id");
        assert_eq!(id.value.as_str(), Some("a\"b"));
        assert_eq!(slice(src, &id.value.range), "r#\"a\"b\"#");
        assert_eq!(root.get("s").unwrap().as_str(), Some("A\n"));
        assert_eq!(number(root.get("f").unwrap()), "2.5e3");
        assert_eq!(number(root.get("h").unwrap()), "16");
        assert!(root.get("e").unwrap().members().is_empty() && root.get("e").unwrap().is_object());
        assert!(matches!(&root.get("l").unwrap().kind, JsonKind::Array(v) if v.is_empty()));
        assert_eq!(root.get("t").unwrap().elements().len(), 1);
    }

    #[test]
    fn joint_colon_before_a_minus_still_separates() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = r#"json!({"a":-1,"b": ::std::f64::consts::PI})"#;
        let root = parse(src).unwrap();
        assert_eq!(number(root.get("a").unwrap()), "-1");
        assert_eq!(slice(src, &root.get("a").unwrap().range), "-1");
        let b = root.get("b").unwrap();
        assert!(matches!(b.kind, JsonKind::Expr(_)));
        assert_eq!(slice(src, &b.range), "::std::f64::consts::PI");
    }

    #[test]
    fn scalar_bodies_and_base_offset() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = "json!(null)";
        assert!(matches!(parse(src).unwrap().kind, JsonKind::Null));
        let src = "json!(-1.5)";
        let node = parse(src).unwrap();
        assert_eq!((number(&node), slice(src, &node.range)), ("-1.5", "-1.5"));
        let src = "json!(\"s\")";
        let node = parse_json_macro(body_of_json(src), &shifted(3)).unwrap();
        assert_eq!(node.range, 9..12);
        let src = "json!(x)";
        assert!(matches!(parse(src).unwrap().kind, JsonKind::Expr(_)));
        let src = "json!('c')";
        assert!(matches!(parse(src).unwrap().kind, JsonKind::Expr(_)));
    }

    #[test]
    fn malformed_bodies_give_none() {
        proc_macro2::extra::invalidate_current_thread_spans();
        for src in [
            "json!()",
            "json!({\"a\"})",
            "json!({\"a\": })",
            "json!({: 1})",
            "json!({\"a\": 1,, \"b\": 2})",
            "json!([1,,2])",
            "json!([,])",
            "json!({\"a\": [1, {\"b\"}]})",
            "json!({a::b})",
        ] {
            assert!(parse(src).is_none(), "{src}");
        }
    }

    #[test]
    fn tokens_built_in_code_do_not_panic() {
        // Call-site spans have no source: ranges are empty and key text falls back to tokens.
        let body: TokenStream = quote::quote!({ key: [1, -2], "s": f(x) });
        let root = parse_json_macro(body, &shifted(0)).unwrap();
        assert_eq!(root.members()[0].key, "key");
        let weird: TokenStream = quote::quote!(: , : ; - - [ { } ]);
        let _ = parse_json_macro(weird, &shifted(0));
        let _ = parse_json_macro(quote::quote!(-), &shifted(0));
        let _ = parse_json_macro(quote::quote!({ , }), &shifted(0));
    }
}
