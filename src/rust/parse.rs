//! Lexing and parsing a Rust file with `syn`, keeping byte offsets into the file as read.

use std::ops::Range;
use std::str::FromStr;

use proc_macro2::{TokenStream, TokenTree};

/// Deeper nesting of brackets than this is not parsed: `syn` recurses per level and real code
/// stays far below it.
pub const MAX_NESTING: usize = 256;

pub struct ParsedRust {
    pub file: syn::File,
    /// Bytes skipped before the parser's text (a UTF-8 BOM): add to every span's byte range.
    pub base: usize,
}

#[derive(Debug)]
pub struct ParseFailure {
    pub range: Range<usize>,
    pub message: String,
}

/// Where a span of the parser's tokens is in the file: `Span::byte_range` moved by `base`, the bytes
/// before the parser's text (`ParsedRust::base`).
pub fn file_range(span: proc_macro2::Span, base: usize) -> Range<usize> {
    let r = span.byte_range();
    r.start + base..r.end + base
}

/// Parses a whole file. The caller must call `proc_macro2::extra::invalidate_current_thread_spans`
/// once it is done with the tree (spans live in a thread-local map that otherwise only grows).
pub fn parse_rust(text: &str) -> Result<ParsedRust, ParseFailure> {
    let (base, body) = parser_text(text);
    let file = parse_as(&body, |input: syn::parse::ParseStream| input.parse::<syn::File>())
        .map_err(|f| ParseFailure { range: f.range.start + base..f.range.end + base, message: f.message })?;
    Ok(ParsedRust { file, base })
}

/// The text the parser reads: after a UTF-8 BOM (its length is the first value, `ParsedRust::base`),
/// with a shebang line blanked out byte for byte (it is not Rust tokens) so offsets stay the same.
pub(crate) fn parser_text(text: &str) -> (usize, std::borrow::Cow<'_, str>) {
    let base = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[base..];
    if body.starts_with("#!") && !body[2..].trim_start().starts_with('[') {
        let end = body.find('\n').unwrap_or(body.len());
        (base, format!("{}{}", " ".repeat(end), &body[end..]).into())
    } else {
        (base, body.into())
    }
}

/// Lexes and parses `body` with `parser`, refusing nesting deeper than `MAX_NESTING` first.
/// Failure ranges are offsets into `body`; an error at the end of the input is placed just after
/// its last token.
pub(crate) fn parse_as<T>(body: &str, parser: impl syn::parse::Parser<Output = T>) -> Result<T, ParseFailure> {
    let tokens = TokenStream::from_str(body).map_err(|e| {
        let range = e.span().byte_range();
        // proc-macro2 says only "cannot parse string into token stream"; at a bracket, say which.
        let message = match body.as_bytes().get(range.start) {
            Some(&c @ (b'(' | b'[' | b'{')) if range.is_empty() => {
                format!("cannot lex: `{}` is never closed", c as char)
            }
            Some(&c @ (b')' | b']' | b'}')) => format!("cannot lex: unexpected closing `{}`", c as char),
            _ if opens_string(&body[range.start..]) => "cannot lex: this string is never closed".to_owned(),
            Some(b'/') if body[range.start..].starts_with("/*") => {
                "cannot lex: this comment is never closed".to_owned()
            }
            _ => format!("cannot lex: {e}"),
        };
        ParseFailure { range, message }
    })?;
    // Walking the tokens copies them; the byte scan settles almost every file without that.
    let shallow = scanned_depth(body).is_some_and(|depth| depth <= MAX_NESTING);
    if let Some(range) = if shallow { None } else { too_deep(&tokens) } {
        return Err(ParseFailure {
            range,
            message: format!("nested more than {MAX_NESTING} levels deep; not analysed"),
        });
    }
    parser.parse2(tokens).map_err(|e| {
        let r = e.span().byte_range();
        // An error at "the end of input" has no location of its own.
        let range = if r == (0..0) && !body.trim().is_empty() {
            let end = body.trim_end().len();
            end..end
        } else {
            r
        };
        ParseFailure { range, message: e.to_string() }
    })
}

/// Whether `text` starts with a string literal's opening: `"`, `b"`, `c"`, `r#"`, `br"`, `cr##"`….
fn opens_string(text: &str) -> bool {
    let rest = text.strip_prefix(['b', 'c']).unwrap_or(text);
    let rest = rest.strip_prefix('r').map_or(rest, |raw| raw.trim_start_matches('#'));
    rest.starts_with('"')
}

/// The deepest nesting of `()`, `[]` and `{}` in Rust source that lexed, from one pass over the
/// bytes that skips comments, strings and character literals, plus one for the group a doc
/// comment becomes. Never less than the tokens' nesting; `None` when the brackets do not
/// balance as counted (the scan misread something): the caller then walks the tokens.
pub(crate) fn scanned_depth(text: &str) -> Option<usize> {
    let (mut i, mut depth, mut max) = (0usize, 0usize, 0usize);
    let mut specials = SpecialBytes::new(text.as_bytes());
    loop {
        // Only brackets, `/`, quotes and apostrophes matter; everything between is skipped.
        i = specials.next(i);
        if i >= text.len() {
            break;
        }
        let (lexeme, next) = lexeme_at(text, i)?;
        match lexeme {
            Lexeme::Open => {
                depth += 1;
                max = max.max(depth);
            }
            Lexeme::Close => depth = depth.checked_sub(1)?,
            Lexeme::Skipped => {}
        }
        i = next;
    }
    // A doc comment is a `#[doc = "…"]` token group, one level below where it stands.
    (depth == 0).then_some(max + 1)
}

/// What the nesting scan finds at one of `SPECIAL_BYTES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lexeme {
    /// `(`, `[` or `{`.
    Open,
    /// `)`, `]` or `}`.
    Close,
    /// A comment, a string or character literal, a lifetime, or a lone `/`: nothing that nests.
    Skipped,
}

/// The lexeme starting at the special byte `i` of `text` and the index just past it; `None` when
/// it runs off the end (an unterminated string or block comment). Shared by `scanned_depth` and
/// the recovering parser's item scan (`recover`), so both read comments and literals alike.
#[inline]
pub(crate) fn lexeme_at(text: &str, i: usize) -> Option<(Lexeme, usize)> {
    let b = text.as_bytes();
    let next = match b[i] {
        b'(' | b'[' | b'{' => return Some((Lexeme::Open, i + 1)),
        b')' | b']' | b'}' => return Some((Lexeme::Close, i + 1)),
        b'/' if b.get(i + 1) == Some(&b'/') => memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n),
        b'/' if b.get(i + 1) == Some(&b'*') => {
            let (mut nested, mut i) = (0usize, i);
            loop {
                match (b.get(i), b.get(i + 1)) {
                    (Some(b'/'), Some(b'*')) => (nested, i) = (nested + 1, i + 2),
                    (Some(b'*'), Some(b'/')) => {
                        (nested, i) = (nested - 1, i + 2);
                        if nested == 0 {
                            break i;
                        }
                    }
                    (Some(_), _) => i += 1,
                    (None, _) => return None,
                }
            }
        }
        b'"' => {
            // A raw string (`r"…"`, `r#"…"#`, `br`, `cr`): the identifier just before the
            // `#`s is exactly `r`, `br` or `cr`.
            let hashes = b[..i].iter().rev().take_while(|&&c| c == b'#').count();
            let word_end = i - hashes;
            let word_len = b[..word_end].iter().rev().take_while(|&&c| BYTE_CLASS[usize::from(c)] == IDENT).count();
            if matches!(&b[word_end - word_len..word_end], b"r" | b"br" | b"cr") {
                let mut close = Vec::with_capacity(hashes + 1);
                close.push(b'"');
                close.extend(std::iter::repeat_n(b'#', hashes));
                let from = i + 1;
                let at = memchr::memmem::find(&b[from..], &close)?;
                from + at + close.len()
            } else {
                string_end(b, i + 1)?
            }
        }
        // A character literal (`'x'`, `'\n'`, `'\''`, `b'{'`) or a lifetime/label (`'a`).
        b'\'' => {
            if b.get(i + 1) == Some(&b'\\') {
                b.get(i + 3..)?.iter().position(|&c| c == b'\'').map(|n| i + 3 + n + 1)?
            } else {
                let c = text.get(i + 1..)?.chars().next()?;
                let after = i + 1 + c.len_utf8();
                if b.get(after) == Some(&b'\'') { after + 1 } else { i + 1 }
            }
        }
        _ => i + 1,
    };
    Some((Lexeme::Skipped, next))
}

/// Finds the bytes `scanned_depth` must look at (`SPECIAL_BYTES`), 16 at a time: each chunk's
/// special bytes are found once, as a bit mask, however many times the scan stops in it.
pub(crate) struct SpecialBytes<'t> {
    bytes: &'t [u8],
    /// The chunk whose mask is known (a multiple of 16), and the mask (bit k: byte `chunk + k`).
    chunk: usize,
    mask: u32,
}

impl<'t> SpecialBytes<'t> {
    pub(crate) fn new(bytes: &'t [u8]) -> Self {
        SpecialBytes { bytes, chunk: usize::MAX, mask: 0 }
    }

    /// The first special byte at or after `from`, or the end.
    pub(crate) fn next(&mut self, from: usize) -> usize {
        let len = self.bytes.len();
        let mut chunk = from & !15;
        while chunk + 16 <= len {
            if chunk != self.chunk {
                self.chunk = chunk;
                self.mask = chunk_mask(&self.bytes[chunk..chunk + 16]);
            }
            // Bits for bytes before `from` (in its own chunk) are not wanted.
            let wanted = self.mask & (u32::MAX << from.saturating_sub(chunk));
            if wanted != 0 {
                return chunk + wanted.trailing_zeros() as usize;
            }
            chunk += 16;
        }
        let from = from.max(chunk).min(len);
        from + self.bytes[from..].iter().position(|&c| BYTE_CLASS[usize::from(c)] == SPECIAL).unwrap_or(len - from)
    }
}

/// Bit k is set when byte k of the 16 is special.
fn chunk_mask(chunk: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of every x86_64 CPU (the target's baseline).
        unsafe { sse2::chunk_mask(chunk) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        chunk.iter().enumerate().fold(0, |m, (k, &c)| m | u32::from(BYTE_CLASS[usize::from(c)] == SPECIAL) << k)
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_setzero_si128,
    };

    use super::SPECIAL_BYTES;

    /// `super::chunk_mask` with one comparison per special byte for all 16 bytes at once.
    #[target_feature(enable = "sse2")]
    pub(super) fn chunk_mask(chunk: &[u8]) -> u32 {
        assert_eq!(chunk.len(), 16);
        // SAFETY: the 16 bytes read are `chunk`'s (checked above); the load is unaligned.
        let bytes = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let hits = SPECIAL_BYTES
            .iter()
            .map(|&c| _mm_cmpeq_epi8(bytes, _mm_set1_epi8(c as i8)))
            .fold(_mm_setzero_si128(), |acc, hit| _mm_or_si128(acc, hit));
        _mm_movemask_epi8(hits) as u32
    }
}

const SPECIAL_BYTES: [u8; 9] = [b'(', b'[', b'{', b')', b']', b'}', b'/', b'"', b'\''];

/// What a byte is to `scanned_depth`: brackets, `/`, quotes and apostrophes (`SPECIAL_BYTES`)
/// each have a case; an identifier's or number's bytes (any byte of a non-ASCII character counts)
/// matter only as the `r`, `br` or `cr` before a raw string; the rest is skipped.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 {
            table[c] = IDENT;
        }
        c += 1;
    }
    let mut k = 0;
    while k < SPECIAL_BYTES.len() {
        table[SPECIAL_BYTES[k] as usize] = SPECIAL;
        k += 1;
    }
    table
};
const OTHER: u8 = 0;
const IDENT: u8 = 1;
const SPECIAL: u8 = 2;

/// The index just past the `"` that closes a string whose body starts at `i` (escapes skipped).
fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        match b.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The span of the first group that opens deeper than `MAX_NESTING`, walking without recursion.
pub fn too_deep(tokens: &TokenStream) -> Option<Range<usize>> {
    let mut stack: Vec<proc_macro2::token_stream::IntoIter> = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Group(g)) => {
                if stack.len() >= MAX_NESTING {
                    return Some(g.span_open().byte_range());
                }
                stack.push(g.stream().into_iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan as it was before `next_special`: one byte at a time, identifiers read whole.
    /// `scanned_depth` must say the same on every text.
    fn byte_by_byte_depth(text: &str) -> Option<usize> {
        let b = text.as_bytes();
        let (mut i, mut depth, mut max) = (0usize, 0usize, 0usize);
        while i < b.len() {
            match b[i] {
                // Runs of spaces and of punctuation that opens nothing, at a time.
                c if BYTE_CLASS[usize::from(c)] == OTHER => {
                    i += 1;
                    while i < b.len() && BYTE_CLASS[usize::from(b[i])] == OTHER {
                        i += 1;
                    }
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    max = max.max(depth);
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    i += 1;
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    i = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n)
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    let mut nested = 0usize;
                    loop {
                        match (b.get(i), b.get(i + 1)) {
                            (Some(b'/'), Some(b'*')) => (nested, i) = (nested + 1, i + 2),
                            (Some(b'*'), Some(b'/')) => {
                                (nested, i) = (nested - 1, i + 2);
                                if nested == 0 {
                                    break;
                                }
                            }
                            (Some(_), _) => i += 1,
                            (None, _) => return None,
                        }
                    }
                }
                b'"' => i = string_end(b, i + 1)?,
                // A whole identifier or number at a time: most of a file's bytes are in one, and only
                // `r`, `br` and `cr` can open a raw string (`r"…"`, `r#"…"#`).
                c if BYTE_CLASS[usize::from(c)] == IDENT => {
                    let start = i;
                    while i < b.len() && BYTE_CLASS[usize::from(b[i])] == IDENT {
                        i += 1;
                    }
                    if matches!(&b[start..i], b"r" | b"br" | b"cr") {
                        let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
                        if b.get(i + hashes) == Some(&b'"') {
                            let mut close = Vec::with_capacity(hashes + 1);
                            close.push(b'"');
                            close.extend(std::iter::repeat_n(b'#', hashes));
                            let from = i + hashes + 1;
                            let at = b[from..].windows(close.len()).position(|w| w == close.as_slice())?;
                            i = from + at + close.len();
                        }
                    }
                }
                // A character literal (`'x'`, `'\n'`, `'\''`, `b'{'`) or a lifetime/label (`'a`).
                b'\'' => {
                    if b.get(i + 1) == Some(&b'\\') {
                        i = b.get(i + 3..)?.iter().position(|&c| c == b'\'').map(|n| i + 3 + n + 1)?;
                    } else {
                        let c = text.get(i + 1..)?.chars().next()?;
                        let after = i + 1 + c.len_utf8();
                        i = if b.get(after) == Some(&b'\'') { after + 1 } else { i + 1 };
                    }
                }
                _ => i += 1,
            }
        }
        // A doc comment is a `#[doc = "…"]` token group, one level below where it stands.
        (depth == 0).then_some(max + 1)
    }

    #[test]
    fn spans_are_file_offsets_with_bom() {
        let text = "\u{feff}fn main() { let x = \"roots/list\"; }";
        let parsed = parse_rust(text).unwrap();
        let syn::Item::Fn(f) = &parsed.file.items[0] else { panic!() };
        let syn::Stmt::Local(local) = &f.block.stmts[0] else { panic!() };
        let init = &local.init.as_ref().unwrap().expr;
        let r = syn::spanned::Spanned::span(&**init).byte_range();
        assert_eq!(&text[r.start + parsed.base..r.end + parsed.base], "\"roots/list\"");
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    #[test]
    fn errors_are_located() {
        let text = "fn main() {\n  let = ;\n}";
        let err = parse_rust(text).err().unwrap();
        assert_eq!(&text[err.range.clone()], "=");
        let text = "fn main() { (";
        let err = parse_rust(text).err().unwrap();
        assert!(err.message.contains("lex"), "{}", err.message);
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let depth = 100_000;
        let text = format!("fn f() {{ let x = {}1{}; }}", "(".repeat(depth), ")".repeat(depth));
        let err = parse_rust(&text).err().unwrap();
        assert!(err.message.contains("nested"));
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    /// The byte scan never says shallower than the tokens are, on every Rust file of the fixtures
    /// and on the shapes that could fool it.
    #[test]
    fn the_byte_scan_agrees_with_the_tokens() {
        fn token_depth(tokens: &TokenStream) -> usize {
            tokens
                .clone()
                .into_iter()
                .map(|t| if let TokenTree::Group(g) = t { 1 + token_depth(&g.stream()) } else { 0 })
                .max()
                .unwrap_or(0)
        }
        let mut texts: Vec<String> = [
            "fn f() { let c = '('; let d = b'['; let e = '\\''; let q = '\"'; }",
            "fn f<'a>(x: &'a str) -> &'a str { 'outer: loop { break 'outer; } x }",
            "const S: &str = \"(((\\\"[[\"; const R: &str = r#\"(\"{\"#; const B: &[u8] = br\"{{\";",
            "/* ( /* nested ] */ { */ fn f() {} // )))\n",
            "fn r#match() { let r = 1; let br = (r, [r]); }",
            "fn f() { let r#type = (1); let s = r##\"a\"#{\"##; let t = cr#\"(\"#; let u = xr(1); }",
            "fn f() { let x = \"\\u{28}\"; let c = '\\u{7b}'; let ü = ('é', \"ß\"); }",
            "fn f() { let a = br##\"x\"#y(\"##; let b = cr\"(\"; let c = '\"'; let d = b'\"'; }",
            "fn f<'r>(x: &'r str) { let s = r\"(\"; let t = [x]; let u = (r#\"\"#, r\"\"); }",
            "/* \"(\" */ fn f() { let u = \"\\\"\"; let v = \"a//b\"; let w = '/'; } // \"(\"\n",
            "fn r#r() { let r = (1); let br = [r]; let x = r#r(); }",
        ]
        .map(String::from)
        .to_vec();
        // `MCP_LINT_SCAN_TREE=target/bench/vendor` checks a whole vendored tree too.
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let tree = std::env::var_os("MCP_LINT_SCAN_TREE").map_or(fixtures, std::path::PathBuf::from);
        for entry in ignore::Walk::new(tree).flatten() {
            if entry.path().extension().is_some_and(|e| e == "rs") {
                texts.push(std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
        for text in &texts {
            let Ok(tokens) = TokenStream::from_str(text) else { continue };
            let exact = token_depth(&tokens);
            assert_eq!(scanned_depth(text), byte_by_byte_depth(text), "{}", &text[..text.len().min(80)]);
            if let Some(scanned) = scanned_depth(text) {
                assert!(scanned >= exact, "scan says {scanned}, tokens {exact}: {}", &text[..text.len().min(80)]);
            }
        }
        assert_eq!(scanned_depth(texts[0].as_str()), Some(2));
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    #[test]
    fn shebang_keeps_offsets() {
        let text = "#!/usr/bin/env run-cargo-script\nfn main() {}";
        let parsed = parse_rust(text).unwrap();
        let r = syn::spanned::Spanned::span(&parsed.file.items[0]).byte_range();
        assert_eq!(&text[r], "fn main() {}");
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}
