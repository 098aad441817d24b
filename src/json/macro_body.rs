//! A `json!` macro body (serde_json's macro syntax) to the spanned tree.
//!
//! The grammar follows serde_json's `json!`: JSON literals, `[…]` and `{…}` groups, members split
//! at top-level commas and at the first lone `:`, trailing commas allowed. Anything else in a value
//! position is a Rust expression and stays as tokens (`JsonKind::Expr`) so Rust analysis can look
//! inside. Ranges are offsets in the Rust file (the caller's `SpanRange`).

use std::iter::Peekable;
use std::ops::Range;

use proc_macro2::{Delimiter, Group, LineColumn, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

use super::tree::{JsonKind, JsonMember, JsonNode};

/// Where a span is in the Rust file (`Cx::span_range`).
pub type SpanRange<'a> = &'a dyn Fn(Span) -> Range<usize>;

/// `Span::byte_range` shifted by `base` (a BOM before the text the parser saw): for tokens that
/// may come from several files, where `Cx::span_range` does not apply.
pub fn shifted(base: usize) -> impl Fn(Span) -> Range<usize> {
    move |span| crate::rust::parse::file_range(span, base)
}

/// `tokens` is the macro's body (what is inside `json!( … )`); `at` places each token in the file.
///
/// Reading a body is on every run's path, so it copies as little as it can: each group's tokens
/// are read once, in order (iterating a shared token stream already copies them), and move on into
/// the `Expr` nodes that keep them; the usual literals are read off their text, not re-lexed; and
/// each run of tokens costs `at` one call, a position lookup being the dearest step.
pub fn parse_json_macro(tokens: TokenStream, at: SpanRange) -> Option<JsonNode> {
    let mut tts: Vec<TokenTree> = tokens.into_iter().collect();
    parse_value(&mut tts, at)
}

/// One value: exactly one JSON token or group, else a Rust expression. `None` when empty or when
/// a nested array/object is malformed (serde_json would reject the whole macro then). An `Expr`
/// takes the tokens out of `tts`.
///
/// Recursion (through `parse_array`/`parse_object`) is one level per token group, i.e. bounded by
/// the token nesting, which callers have already limited.
fn parse_value(tts: &mut Vec<TokenTree>, at: SpanRange) -> Option<JsonNode> {
    let range = run_range(tts, at)?;
    let kind = match tts.as_slice() {
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Bracket => parse_array(g, at)?,
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => parse_object(g, at)?,
        run => match json_scalar(run) {
            Some(kind) => kind,
            // Identifiers, calls, paths, casts, parenthesized expressions, nested macros, …
            None => JsonKind::Expr(tts.drain(..).collect()),
        },
    };
    Some(JsonNode { range, kind })
}

/// A JSON literal: `null`, `true`, `false`, a string or number token, or `-` and a number token.
/// `None` for anything else, which is a Rust expression.
fn json_scalar(tts: &[TokenTree]) -> Option<JsonKind> {
    let kind = match tts {
        [TokenTree::Ident(ident)] if ident == "null" => JsonKind::Null,
        [TokenTree::Ident(ident)] if ident == "true" => JsonKind::Bool(true),
        [TokenTree::Ident(ident)] if ident == "false" => JsonKind::Bool(false),
        [TokenTree::Literal(lit)] => match literal(lit) {
            Scalar::Str(s) => JsonKind::String(s),
            Scalar::Number(n) => JsonKind::Number(n),
            // Chars, byte strings, … serialize through serde, not as JSON literals.
            Scalar::Other => return None,
        },
        // A negative number is two tokens: `-` and the literal.
        [TokenTree::Punct(minus), TokenTree::Literal(lit)] if minus.as_char() == '-' => match literal(lit) {
            Scalar::Number(n) => JsonKind::Number(format!("-{n}")),
            _ => return None,
        },
        _ => return None,
    };
    Some(kind)
}

/// What a literal token is to JSON: a string's value, a number's base-10 digits (syn's
/// `base10_digits`), or neither.
enum Scalar {
    Str(String),
    Number(String),
    Other,
}

/// The common shapes are read off the token's text, where the answer is the text itself: a string
/// with no escape, no CR and no suffix (`"roots/list"`), plain decimal digits without a leading
/// zero (`42`). Anything else (escapes, raw strings, suffixes, hex, `1_000`, floats, chars) goes
/// through syn, which knows every rule.
fn literal(lit: &Literal) -> Scalar {
    let text = lit.to_string();
    if let Some(value) = crate::rust::syntax::plain_str_literal(&text) {
        return Scalar::Str(value.to_owned());
    }
    let bytes = text.as_bytes();
    let plain_digits = match bytes {
        [b'0'..=b'9'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if plain_digits {
        return Scalar::Number(text);
    }
    match syn::Lit::new(lit.clone()) {
        syn::Lit::Str(s) => Scalar::Str(s.value()),
        syn::Lit::Int(i) => Scalar::Number(i.base10_digits().to_owned()),
        syn::Lit::Float(f) => Scalar::Number(f.base10_digits().to_owned()),
        _ => Scalar::Other,
    }
}

/// A group's tokens, read in order and once.
type Tokens = Peekable<proc_macro2::token_stream::IntoIter>;

fn parse_array(group: &Group, at: SpanRange) -> Option<JsonKind> {
    let mut tokens = group.stream().into_iter().peekable();
    let (mut elements, mut element) = (Vec::new(), Vec::new());
    // `[]` and `[a,]` end right after a comma; an empty element anywhere else is malformed (and
    // `parse_value` refuses it).
    while tokens.peek().is_some() {
        element.clear();
        take_until_comma(&mut tokens, &mut element);
        elements.push(parse_value(&mut element, at)?);
    }
    Some(JsonKind::Array(elements))
}

fn parse_object(group: &Group, at: SpanRange) -> Option<JsonKind> {
    let mut tokens = group.stream().into_iter().peekable();
    let (mut members, mut key_tts, mut value_tts) = (Vec::new(), Vec::new(), Vec::new());
    // As in arrays, one trailing comma is allowed; an empty member is malformed (no colon).
    while tokens.peek().is_some() {
        key_tts.clear();
        take_key(&mut tokens, &mut key_tts)?;
        value_tts.clear();
        take_until_comma(&mut tokens, &mut value_tts);
        let key_range = run_range(&key_tts, at)?;
        let key = match key_tts.as_slice() {
            [TokenTree::Literal(lit)] => match literal(lit) {
                Scalar::Str(s) => s,
                _ => source_text(&key_tts),
            },
            // A lexed identifier prints as written (`r#` included): its source text, without
            // the character count `Span::source_text` does from a cached point of the file.
            [TokenTree::Ident(ident)] => ident.to_string(),
            // An interpolated key (`Key::NAME`, `(name)`): keep its text as written.
            _ => source_text(&key_tts),
        };
        let value = parse_value(&mut value_tts, at)?;
        members.push(JsonMember { key, range: key_range.start..value.range.end, key_range, value });
    }
    Some(JsonKind::Object(members))
}

/// Moves a member's tokens before its first lone `:` into `key` and consumes that colon. `None`
/// when a comma or the end of the group comes first: a member without a separator.
fn take_key(tokens: &mut Tokens, key: &mut Vec<TokenTree>) -> Option<()> {
    loop {
        let tt = tokens.next()?;
        if let TokenTree::Punct(p) = &tt {
            match p.as_char() {
                ',' => return None,
                ':' if is_lone_colon(p, key.last(), tokens.peek()) => return Some(()),
                _ => {}
            }
        }
        key.push(tt);
    }
}

/// Moves tokens into `piece` up to the next top-level comma (consumed) or the end of the group.
/// Nested groups are single token trees, so their commas are not seen.
fn take_until_comma(tokens: &mut Tokens, piece: &mut Vec<TokenTree>) {
    for tt in tokens.by_ref() {
        if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ',') {
            return;
        }
        piece.push(tt);
    }
}

/// Whether `colon` separates key and value, not half of a `::` path separator, given the tokens
/// beside it in the member. `::` lexes as a `Joint` `:` followed by another `:`; a separator
/// written as `"a":-1` is also `Joint` (punctuation follows it), so spacing alone does not decide.
fn is_lone_colon(colon: &Punct, before: Option<&TokenTree>, after: Option<&TokenTree>) -> bool {
    let is_colon = |tt: Option<&TokenTree>| matches!(tt, Some(TokenTree::Punct(p)) if p.as_char() == ':');
    let is_joint_colon = |tt: Option<&TokenTree>| matches!(tt, Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint);
    let first_of_pair = colon.spacing() == Spacing::Joint && is_colon(after);
    let second_of_pair = is_joint_colon(before);
    !(first_of_pair || second_of_pair)
}

/// From the first token's start to the last token's end. `None` when empty.
///
/// One `at` call per run: a run of several tokens is placed by its first and last spans joined.
/// A body's tokens are in source order, so the joined span starts where the first token does and
/// ends where the last one does. Spans that do not join (different files) are placed one by one.
fn run_range(tts: &[TokenTree], at: SpanRange) -> Option<Range<usize>> {
    let first = tts.first()?.span();
    let last = tts.last()?.span();
    let r = if tts.len() == 1 {
        at(first)
    } else if let Some(joined) = first.join(last) {
        at(joined)
    } else {
        at(first).start..at(last).end
    };
    Some(r.start..r.end.max(r.start))
}

/// The source text of a token run (spaces and all), falling back to the tokens' printed form
/// when the spans do not point into real source (tokens built in code).
fn source_text(tts: &[TokenTree]) -> String {
    let joined = match (tts.first(), tts.last()) {
        (Some(first), Some(last)) => first.span().join(last.span()),
        _ => None,
    };
    // `Span::source_text` counts characters from a cached point of the file to find the bytes
    // (~500k instructions a key in rmcp's files); a run with nothing between its tokens
    // (`crate::model::NAME`, `(name)`) is its tokens' text end to end.
    let mut touching = String::new();
    if joined.is_some()
        && tts.iter().try_fold(None, |end, tt| append_touching(tt, end, &mut touching).map(Some)).is_some()
    {
        return touching;
    }
    joined
        .and_then(|span| span.source_text())
        .unwrap_or_else(|| tts.iter().cloned().collect::<TokenStream>().to_string())
}

/// Appends `tt`'s text to `out` when it starts at `from` (if given) and, for a group, its tokens
/// and delimiters touch one another; returns where it ends. A lexed token's text is its source
/// text. `None` for a token with an empty span (built in code, no source) or a group without
/// delimiters; a doc comment's tokens all have the comment's span, so they never touch.
fn append_touching(tt: &TokenTree, from: Option<LineColumn>, out: &mut String) -> Option<LineColumn> {
    let touches = |span: Span, from: Option<LineColumn>| {
        let (start, end) = (span.start(), span.end());
        (from.is_none_or(|from| from == start) && start != end).then_some(end)
    };
    let TokenTree::Group(g) = tt else {
        let end = touches(tt.span(), from)?;
        out.push_str(&tt.to_string());
        return Some(end);
    };
    let (open, close) = match g.delimiter() {
        Delimiter::Parenthesis => ('(', ')'),
        Delimiter::Brace => ('{', '}'),
        Delimiter::Bracket => ('[', ']'),
        Delimiter::None => return None,
    };
    let mut end = touches(g.span_open(), from)?;
    out.push(open);
    for inner in g.stream() {
        end = append_touching(&inner, Some(end), out)?;
    }
    let end = touches(g.span_close(), Some(end))?;
    out.push(close);
    Some(end)
}

/// The parser this module had before it read each group once: kept to check that the trees are
/// the same, token for token and byte for byte.
#[cfg(test)]
mod oracle {
    use super::*;

    /// `tokens` is the macro's body (what is inside `json!( … )`); `at` places each token in the file.
    pub(super) fn parse_json_macro(tokens: TokenStream, at: SpanRange) -> Option<JsonNode> {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of the first `json!(…)` in `src`, found by walking the lexed tokens.
    fn body_of_json(src: &str) -> TokenStream {
        let mut found = Vec::new();
        json_bodies(src.parse().expect("lexes"), &mut found);
        found.into_iter().next().expect("has a json! call")
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
    /// Both parsers on the same body: the same tree, compared through `Debug`, which shows every
    /// kind, key, value and range, and every token of an `Expr` with its span.
    fn assert_same_as_oracle(body: TokenStream, at: SpanRange) -> Option<JsonNode> {
        let old = oracle::parse_json_macro(body.clone(), at);
        let new = parse_json_macro(body.clone(), at);
        assert_eq!(format!("{new:#?}"), format!("{old:#?}"), "json!({body})");
        new
    }

    /// Every `json!` body in a token stream, at any depth (inside other macros and `json!` too).
    fn json_bodies(stream: TokenStream, out: &mut Vec<TokenStream>) {
        let tts: Vec<TokenTree> = stream.into_iter().collect();
        for (i, tt) in tts.iter().enumerate() {
            if let (TokenTree::Ident(id), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g))) =
                (tt, tts.get(i + 1), tts.get(i + 2))
                && id == "json"
                && bang.as_char() == '!'
            {
                out.push(g.stream());
            }
            if let TokenTree::Group(g) = tt {
                json_bodies(g.stream(), out);
            }
        }
    }

    /// The oracle's tree for every `json!` body in the Rust files of fixtures/, placed by
    /// `Cx::span_range` as the engine places them. `MCP_LINT_SCAN_TREE=target/bench/parse-tree`
    /// checks a whole tree too.
    #[test]
    fn every_json_body_reads_as_the_oracle_reads_it() {
        // A debug build needs the engine's stack (64 MiB) for the deepest files of a big tree.
        let scan = std::thread::Builder::new().stack_size(64 << 20).spawn(scan_tree_against_oracle).unwrap();
        scan.join().unwrap();
    }

    fn scan_tree_against_oracle() {
        use crate::context::CrateContext;
        use crate::cx::{Cx, Origin};
        use crate::source::SourceFile;

        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let tree = std::env::var_os("MCP_LINT_SCAN_TREE").map_or(fixtures, std::path::PathBuf::from);
        let ctx = CrateContext::default();
        let (mut files, mut unparsed, mut bodies, mut trees) = (0, 0, 0, 0);
        for entry in ignore::WalkBuilder::new(&tree).standard_filters(false).build().flatten() {
            if entry.path().extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            files += 1;
            proc_macro2::extra::invalidate_current_thread_spans();
            let Ok(parsed) = crate::rust::parse::parse_rust(&text) else {
                unparsed += 1;
                continue;
            };
            let file = SourceFile::new(entry.path().to_owned(), String::new(), text.clone());
            let mut cx = Cx::new(&file, &ctx, Origin::Rust);
            cx.base = parsed.base;
            let mut found = Vec::new();
            json_bodies(quote::ToTokens::to_token_stream(&parsed.file), &mut found);
            for body in found {
                bodies += 1;
                trees += usize::from(assert_same_as_oracle(body, &|s| cx.span_range(s)).is_some());
            }
        }
        proc_macro2::extra::invalidate_current_thread_spans();
        eprintln!(
            "{}: {files} .rs files ({unparsed} not parsed), {bodies} json! bodies, {trees} trees",
            tree.display()
        );
        assert!(trees > 0);
    }

    #[test]
    fn edge_cases_read_as_the_oracle_reads_them() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let sources = [
            // Strings: plain, empty, non-ASCII, escapes, raw, CRLF inside, suffixed, byte and C strings.
            r###"json!({"a": "", "b": "é ß", "c": "tab\tq\"", "d": "\x41\u{1F600}\\", "e": r"a\n", "f": r##"x"#y"##})"###,
            "json!({\"crlf\": \"x\r\ny\", \"cont\": \"a\\\n   b\", \"lf\": \"x\ny\"})",
            r#"json!({"s": "x"suffix, "b": b"x", "c": c"x", "r": br"x", "ch": 'x', "bc": b'x'})"#,
            // Numbers: leading zeros, underscores, suffixes, bases, floats, exponents, huge.
            "json!([0, 7, 007, 00, 1_000, 1u8, 0x1F, 0o17, 0b101, 1e3, 1.5, 2.5e-3, 1f32, 340282366920938463463374607431768211456])",
            "json!([-0, -7, -007, -1_0, -1u8, -0x10, -1.5, - 1, -\"s\", -'c', -x, - -1, -true])",
            // Nesting, trailing commas, empty groups.
            "json!([[], {}, [[1, [2, [3,],],],], {\"a\": {\"b\": {\"c\": [],},},},])",
            // Keys: identifiers (raw too), paths, groups, numbers, byte strings, expressions.
            "json!({ id: 1, r#type: 2, Key::NAME: 3, (name): 4, 1: 5, b\"k\": 6, a.b: 7, ::x::y: 8, \"q\"suf: 9 })",
            // Keys read as source text: touching tokens, spaces, comments, groups, a doc comment.
            "json!({ crate::model::ID: 1, (name): 2, m::f(x, [y], {z}): 3, [a]: 4, 'a: 5, x.0: 6 })",
            "json!({ Key :: NAME: 1, ( name ): 2, a::/*c*/b: 3, (x /* c */): 4, f( ): 5, a:: b: 6 })",
            "json!({ /// doc\n k: 1, /** d */k2: 2, #[attr] k3: 3 })",
            "json!({ \"a\":-1, \"b\": ::std::f64::consts::PI, \"c\":: x, \"d\": a::b, \"e\": x: y, \"f\" : : z })",
            // Expressions with groups, commas inside groups, and nested macros.
            "json!({\"a\": f(x, y), \"b\": vec![1, 2], \"c\": if x { 1 } else { 2 }, \"d\": (1, 2), \"e\": json!({\"z\": [a, b]}), \"f\": x.iter().map(|v| v + 1).collect::<Vec<_>>()})",
            "json!([x as u64, &y, *z, !w, -f(1), a.0, [1, 2][0], {x}])",
            // Top-level scalars and expressions.
            "json!(null)",
            "json!(true)",
            "json!(\"s\")",
            "json!(-2.5)",
            "json!(a + b)",
            "json!((1))",
            // Malformed: the whole body is `None`.
            "json!()",
            "json!({\"a\"})",
            "json!({\"a\": })",
            "json!({: 1})",
            "json!({,})",
            "json!({\"a\": 1,,})",
            "json!({\"a\": 1,, \"b\": 2})",
            "json!([1,,2])",
            "json!([,])",
            "json!([1,,])",
            "json!({\"a\": [1, {\"b\"}]})",
            "json!({a::b})",
            "json!({\"a\": 1 \"b\": 2})",
            "json!({\"a\": x as Foo<A, B>})",
        ];
        for src in sources {
            assert_same_as_oracle(body_of_json(src), &shifted(0));
            proc_macro2::extra::invalidate_current_thread_spans();
        }
        // Tokens made in memory: call-site spans, no source text.
        for body in [
            quote::quote!({ key: [1, -2, 007, "s", 'c'], r#type: null, K::N: f(x), "s": "a\"b", (k): {} }),
            quote::quote!([1, , 2]),
            quote::quote!({ "a": 1, }),
            quote::quote!(: , : ; - - [ { } ]),
            quote::quote!(-),
            quote::quote!({ , }),
        ] {
            assert_same_as_oracle(body, &shifted(0));
        }
        let mut made = TokenStream::new();
        made.extend([
            TokenTree::Literal(proc_macro2::Literal::string("q\"\n")),
            TokenTree::Literal(proc_macro2::Literal::i32_unsuffixed(-3)),
        ]);
        assert_same_as_oracle(made, &shifted(0));
        let node =
            assert_same_as_oracle(TokenTree::Literal(proc_macro2::Literal::i64_unsuffixed(-3)).into(), &shifted(0));
        assert_eq!(number(&node.unwrap()), "-3");
        let node = assert_same_as_oracle(TokenTree::Literal(proc_macro2::Literal::string("q\"\n")).into(), &shifted(0));
        assert_eq!(node.unwrap().as_str(), Some("q\"\n"));
    }

    #[test]
    fn literals_read_off_their_text_or_through_syn() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = "json!({\"crlf\": \"x\r\ny\", \"plain\": \"é/list\", \"esc\": \"a\\u{42}\\\\\", \"raw\": r#\"a\"b\"#, \"n\": [0, 007, 1_000, 1u8, 42, -0x10, - 1, 1e3]})";
        let root = parse(src).unwrap();
        assert_eq!(root.get("crlf").unwrap().as_str(), Some("x\ny"));
        assert_eq!(root.get("plain").unwrap().as_str(), Some("é/list"));
        assert_eq!(root.get("esc").unwrap().as_str(), Some("aB\\"));
        assert_eq!(root.get("raw").unwrap().as_str(), Some("a\"b"));
        let numbers: Vec<&str> = root.get("n").unwrap().elements().iter().map(number).collect();
        assert_eq!(numbers, ["0", "7", "1000", "1", "42", "-16", "-1", "1e3"]);
        assert_eq!(slice(src, &root.get("n").unwrap().elements()[6].range), "- 1");
        // A suffixed string is still a string; a char or a byte string is an expression.
        let src = r#"json!({"s": "x"suffix, "c": 'c', "b": b"x", r#type: 1, b"k": 2})"#;
        let root = parse(src).unwrap();
        assert_eq!(root.get("s").unwrap().as_str(), Some("x"));
        assert!(matches!(root.get("c").unwrap().kind, JsonKind::Expr(_)));
        assert!(matches!(root.get("b").unwrap().kind, JsonKind::Expr(_)));
        let keys: Vec<_> = root.members().iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["s", "c", "b", "r#type", "b\"k\""]);
    }

    #[test]
    fn expression_values_keep_their_tokens_and_groups() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = "json!({\"a\": f(x, y), \"b\": vec![1, 2], \"c\": [g(1), {\"d\": h[0]}], \"e\": x as Foo<A, B>})";
        assert!(parse(src).is_none(), "a top-level comma inside generics splits the member");
        let src = "json!({\"a\": f(x, y), \"b\": vec![1, 2], \"c\": [g(1), {\"d\": h[0]}]})";
        let root = parse(src).unwrap();
        let JsonKind::Expr(a) = &root.get("a").unwrap().kind else { panic!() };
        assert_eq!(a.to_string(), "f (x , y)");
        assert_eq!(slice(src, &root.get("b").unwrap().range), "vec![1, 2]");
        let c = root.get("c").unwrap().elements();
        assert_eq!(slice(src, &c[0].range), "g(1)");
        let d = c[1].get("d").unwrap();
        assert!(matches!(&d.kind, JsonKind::Expr(t) if t.to_string() == "h [0]"));
        assert_eq!(slice(src, &d.range), "h[0]");
        // The moved tokens keep their spans.
        let JsonKind::Expr(tokens) = &d.kind else { panic!() };
        let spans: Vec<_> = tokens.clone().into_iter().map(|t| slice(src, &shifted(0)(t.span())).to_owned()).collect();
        assert_eq!(spans, ["h", "[0]"]);
    }
    #[test]
    fn interpolated_keys_keep_their_source_text() {
        proc_macro2::extra::invalidate_current_thread_spans();
        let src = "json!({ crate::model::ID: 1, (name): 2, m::f(x, [y], {z}): 3, Key :: NAME: 4, ( name ): 5, a::/*c*/b: 6, f( ): 7, r#type: 8, 1: 9, /// d\n k: 10 })";
        let root = parse(src).unwrap();
        let keys: Vec<_> = root.members().iter().map(|m| m.key.as_str()).collect();
        let expected = [
            "crate::model::ID",
            "(name)",
            "m::f(x, [y], {z})",
            "Key :: NAME",
            "( name )",
            "a::/*c*/b",
            "f( )",
            "r#type",
            "1",
            "/// d\n k",
        ];
        assert_eq!(keys, expected);
        for m in root.members() {
            assert_eq!(slice(src, &m.key_range), m.key);
        }
        // Built in code: no source, so the printed tokens.
        let root = parse_json_macro(quote::quote!({ K::N: 1, (k): 2 }), &shifted(0)).unwrap();
        let keys: Vec<_> = root.members().iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["K :: N", "(k)"]);
    }
}
