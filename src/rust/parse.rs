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

/// Parses a whole file. The caller must call `proc_macro2::extra::invalidate_current_thread_spans`
/// once it is done with the tree (spans live in a thread-local map that otherwise only grows).
pub fn parse_rust(text: &str) -> Result<ParsedRust, ParseFailure> {
    let base = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[base..];
    // A shebang line is not Rust tokens; blank it out byte for byte so offsets stay the same.
    let blanked;
    let body = if body.starts_with("#!") && !body[2..].trim_start().starts_with('[') {
        let end = body.find('\n').unwrap_or(body.len());
        blanked = format!("{}{}", " ".repeat(end), &body[end..]);
        blanked.as_str()
    } else {
        body
    };
    let end_of_file = text.len()..text.len();
    let tokens = TokenStream::from_str(body).map_err(|e| {
        let r = e.span().byte_range();
        ParseFailure { range: r.start + base..r.end + base, message: format!("cannot lex: {e}") }
    })?;
    if let Some(range) = too_deep(&tokens) {
        return Err(ParseFailure {
            range: range.start + base..range.end + base,
            message: format!("nested more than {MAX_NESTING} levels deep; not analysed"),
        });
    }
    let file = syn::parse2::<syn::File>(tokens).map_err(|e| {
        let r = e.span().byte_range();
        // An error at "the end of input" has no location of its own.
        let range = if r == (0..0) && !body.is_empty() { end_of_file } else { r.start + base..r.end + base };
        ParseFailure { range, message: e.to_string() }
    })?;
    Ok(ParsedRust { file, base })
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

    #[test]
    fn shebang_keeps_offsets() {
        let text = "#!/usr/bin/env run-cargo-script\nfn main() {}";
        let parsed = parse_rust(text).unwrap();
        let r = syn::spanned::Spanned::span(&parsed.file.items[0]).byte_range();
        assert_eq!(&text[r], "fn main() {}");
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}
