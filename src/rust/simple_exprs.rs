//! A fast path for the commonest macro bodies: comma-separated expressions built only from
//! literals, paths, macro calls, calls, method calls, fields, `.await`, `?`, indexing, `&`/`&mut`,
//! `!`/`-`/`*`, parentheses, tuples and arrays (`assert_eq!(a.len(), 2)`, `vec![x, y]`,
//! `format!("{}", s)`). syn spends about ten thousand instructions on any expression, whatever its
//! size, on its generic lookahead; this reads those forms directly.
//!
//! It builds exactly the tree `Punctuated::<Expr, Token![,]>::parse_terminated` builds, with the
//! same tokens and spans, or returns `None` for anything else (binary operators, closures, blocks,
//! struct literals, generics, keywords, attributes, …) so that the caller asks syn. Debug builds
//! check every answer against syn's (`MacroBody::parse`).

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

/// The body as comma-separated expressions, when every one is of the forms above.
pub fn parse(tokens: &TokenStream) -> Option<Punctuated<Expr, Token![,]>> {
    terminated(Tokens::new(tokens.clone()))
}

/// The tokens still to read, last first (so that reading one moves it out).
struct Tokens(Vec<TokenTree>);

impl Tokens {
    fn new(tokens: TokenStream) -> Tokens {
        let mut rev: Vec<TokenTree> = tokens.into_iter().collect();
        rev.reverse();
        Tokens(rev)
    }

    fn of(group: &Group) -> Tokens {
        Tokens::new(group.stream())
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The token `k` places ahead.
    fn peek(&self, k: usize) -> Option<&TokenTree> {
        self.0.len().checked_sub(k + 1).map(|i| &self.0[i])
    }

    fn punct(&self, k: usize) -> Option<&Punct> {
        match self.peek(k) {
            Some(TokenTree::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn group(&self, k: usize, delimiter: Delimiter) -> bool {
        matches!(self.peek(k), Some(TokenTree::Group(g)) if g.delimiter() == delimiter)
    }

    fn next(&mut self) -> Option<TokenTree> {
        self.0.pop()
    }

    fn next_punct(&mut self) -> proc_macro2::Span {
        match self.next() {
            Some(TokenTree::Punct(p)) => p.span(),
            _ => unreachable!("peeked a punct"),
        }
    }

    fn next_group(&mut self) -> Group {
        match self.next() {
            Some(TokenTree::Group(g)) => g,
            _ => unreachable!("peeked a group"),
        }
    }

    fn next_ident(&mut self) -> Ident {
        match self.next() {
            Some(TokenTree::Ident(i)) => i,
            _ => unreachable!("peeked an ident"),
        }
    }

    /// `::` ahead: syn's `Token![::]` (a joint `:` then a `:`).
    fn path_sep(&self) -> bool {
        self.punct(0).is_some_and(|p| p.as_char() == ':' && p.spacing() == Spacing::Joint)
            && self.punct(1).is_some_and(|p| p.as_char() == ':')
    }

    fn comma(&mut self) -> Option<Token![,]> {
        self.punct(0).filter(|p| p.as_char() == ',')?;
        Some(Token![,](self.next_punct()))
    }

    /// One expression, which must end at a `,` or at the end: whatever else follows an operand
    /// (a binary operator, `as`, `..`, `=`) is left to syn.
    fn expr(&mut self) -> Option<Expr> {
        let e = self.unary()?;
        match self.peek(0) {
            None => Some(e),
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => Some(e),
            Some(_) => None,
        }
    }

    /// syn's `unary_expr`: `&`, `&mut`, `*`, `!`, `-` before an operand. A joint operator
    /// (`&&x`, `*&x`, `!=`) is left to syn.
    fn unary(&mut self) -> Option<Expr> {
        let Some(op) = self.punct(0).filter(|p| p.spacing() == Spacing::Alone).map(Punct::as_char) else {
            return self.trailer();
        };
        let attrs = Vec::new();
        match op {
            '&' => {
                let and_token = Token![&](self.next_punct());
                let word = |k| matches!(self.peek(k), Some(TokenTree::Ident(i)) if i == "mut" || i == "const");
                if matches!(self.peek(0), Some(TokenTree::Ident(i)) if i == "raw") && word(1) {
                    return None; // `&raw const x`
                }
                let mutability = match self.peek(0) {
                    Some(TokenTree::Ident(i)) if i == "mut" => Some(Token![mut](self.next_ident().span())),
                    _ => None,
                };
                let expr = Box::new(self.unary()?);
                Some(Expr::Reference(syn::ExprReference { attrs, and_token, mutability, expr }))
            }
            '*' | '!' | '-' => {
                let span = self.next_punct();
                let op = match op {
                    '*' => syn::UnOp::Deref(Token![*](span)),
                    '!' => syn::UnOp::Not(Token![!](span)),
                    _ => syn::UnOp::Neg(Token![-](span)),
                };
                let expr = Box::new(self.unary()?);
                Some(Expr::Unary(syn::ExprUnary { attrs, op, expr }))
            }
            _ => self.trailer(),
        }
    }

    /// syn's `trailer_expr`: an operand, then calls, method calls, fields, `.await`, indexing and
    /// `?` (turbofish and `x.0.1` are left to syn).
    fn trailer(&mut self) -> Option<Expr> {
        let mut e = self.atom()?;
        loop {
            if self.group(0, Delimiter::Parenthesis) {
                let group = self.next_group();
                let paren_token = syn::token::Paren { span: group.delim_span() };
                let args = terminated(Tokens::of(&group))?;
                e = Expr::Call(syn::ExprCall { attrs: Vec::new(), func: Box::new(e), paren_token, args });
            } else if self.punct(0).is_some_and(|p| p.as_char() == '.' && p.spacing() == Spacing::Alone) {
                let dot_token = Token![.](self.next_punct());
                match self.peek(0)? {
                    TokenTree::Literal(l) => {
                        let index = member_index(&l.to_string())?;
                        let span = l.span();
                        self.next();
                        let member = syn::Member::Unnamed(syn::Index { index, span });
                        e = Expr::Field(syn::ExprField { attrs: Vec::new(), base: Box::new(e), dot_token, member });
                    }
                    TokenTree::Ident(i) if i == "await" => {
                        let await_token = Token![await](self.next_ident().span());
                        e = Expr::Await(syn::ExprAwait {
                            attrs: Vec::new(),
                            base: Box::new(e),
                            dot_token,
                            await_token,
                        });
                    }
                    TokenTree::Ident(i) if accepted_as_ident(i) => {
                        let method = self.next_ident();
                        if self.path_sep() {
                            return None; // a turbofish
                        }
                        if self.group(0, Delimiter::Parenthesis) {
                            let group = self.next_group();
                            let paren_token = syn::token::Paren { span: group.delim_span() };
                            let args = terminated(Tokens::of(&group))?;
                            e = Expr::MethodCall(syn::ExprMethodCall {
                                attrs: Vec::new(),
                                receiver: Box::new(e),
                                dot_token,
                                method,
                                turbofish: None,
                                paren_token,
                                args,
                            });
                        } else {
                            let member = syn::Member::Named(method);
                            e = Expr::Field(syn::ExprField { attrs: Vec::new(), base: Box::new(e), dot_token, member });
                        }
                    }
                    _ => return None,
                }
            } else if self.group(0, Delimiter::Bracket) {
                let group = self.next_group();
                let bracket_token = syn::token::Bracket { span: group.delim_span() };
                let mut content = Tokens::of(&group);
                let index = Box::new(content.expr()?);
                if !content.is_empty() {
                    return None;
                }
                e = Expr::Index(syn::ExprIndex { attrs: Vec::new(), expr: Box::new(e), bracket_token, index });
            } else if self.punct(0).is_some_and(|p| p.as_char() == '?') {
                let question_token = Token![?](self.next_punct());
                e = Expr::Try(syn::ExprTry { attrs: Vec::new(), expr: Box::new(e), question_token });
            } else {
                return Some(e);
            }
        }
    }

    /// syn's `atom_expr`, for literals, paths, macro calls, parentheses, tuples and arrays.
    fn atom(&mut self) -> Option<Expr> {
        let attrs = Vec::new();
        match self.peek(0)? {
            TokenTree::Literal(_) => {
                let Some(TokenTree::Literal(l)) = self.next() else { unreachable!() };
                Some(Expr::Lit(syn::ExprLit { attrs, lit: syn::Lit::new(l) }))
            }
            TokenTree::Ident(i) if i == "true" || i == "false" => {
                let i = self.next_ident();
                let lit = syn::Lit::Bool(syn::LitBool { value: i == "true", span: i.span() });
                Some(Expr::Lit(syn::ExprLit { attrs, lit }))
            }
            // `path_or_macro` checks that it is a path segment (not a keyword).
            TokenTree::Ident(_) => self.path_or_macro(None),
            TokenTree::Punct(_) if self.path_sep() => {
                let first = self.next_punct();
                let leading_colon = Token![::]([first, self.next_punct()]);
                self.path_or_macro(Some(leading_colon))
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                let group = self.next_group();
                paren_or_tuple(&group)
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                let group = self.next_group();
                array(&group)
            }
            _ => None,
        }
    }

    /// syn's `path_or_macro_or_struct` for a path of plain segments (`a`, `a::b`, `Self::C`), then
    /// a macro call's `!` and delimiters. A struct literal (`P { .. }`) is left to syn.
    fn path_or_macro(&mut self, leading_colon: Option<Token![::]>) -> Option<Expr> {
        let mut segments = Punctuated::new();
        loop {
            match self.peek(0) {
                Some(TokenTree::Ident(i)) if path_segment(i) => {}
                _ => return None,
            }
            segments.push_value(syn::PathSegment::from(self.next_ident()));
            if !self.path_sep() {
                break;
            }
            let first = self.next_punct();
            segments.push_punct(Token![::]([first, self.next_punct()]));
        }
        let path = syn::Path { leading_colon, segments };
        if let Some(bang) = self.punct(0).filter(|p| p.as_char() == '!') {
            // `a!(..)`; anything else after a `!` (`a != b`) is left to syn.
            if bang.spacing() != Spacing::Alone
                || !matches!(self.peek(1), Some(TokenTree::Group(g)) if g.delimiter() != Delimiter::None)
            {
                return None;
            }
            let bang_token = Token![!](self.next_punct());
            let group = self.next_group();
            let span = group.delim_span();
            let delimiter = match group.delimiter() {
                Delimiter::Parenthesis => syn::MacroDelimiter::Paren(syn::token::Paren { span }),
                Delimiter::Brace => syn::MacroDelimiter::Brace(syn::token::Brace { span }),
                _ => syn::MacroDelimiter::Bracket(syn::token::Bracket { span }),
            };
            let mac = syn::Macro { path, bang_token, delimiter, tokens: group.stream() };
            return Some(Expr::Macro(syn::ExprMacro { attrs: Vec::new(), mac }));
        }
        if self.group(0, Delimiter::Brace) {
            return None;
        }
        Some(Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path }))
    }
}

/// Tokens as syn's `parse_terminated(Expr::parse, Token![,])` reads them (a macro body, call and
/// method-call arguments, a tuple's or an array's elements).
fn terminated(mut input: Tokens) -> Option<Punctuated<Expr, Token![,]>> {
    let mut exprs = Punctuated::new();
    while !input.is_empty() {
        exprs.push_value(input.expr()?);
        if input.is_empty() {
            break;
        }
        exprs.push_punct(input.comma()?);
    }
    Some(exprs)
}

/// syn's `paren_or_tuple`: `()`, `(a)`, `(a,)`, `(a, b)`.
fn paren_or_tuple(group: &Group) -> Option<Expr> {
    let paren_token = syn::token::Paren { span: group.delim_span() };
    let mut elems = terminated(Tokens::of(group))?;
    if elems.len() == 1 && !elems.trailing_punct() {
        let expr = Box::new(elems.pop()?.into_value());
        return Some(Expr::Paren(syn::ExprParen { attrs: Vec::new(), paren_token, expr }));
    }
    Some(Expr::Tuple(syn::ExprTuple { attrs: Vec::new(), paren_token, elems }))
}

/// syn's `array_or_repeat` for an array (`[a; n]` is left to syn: `;` ends no expression here).
fn array(group: &Group) -> Option<Expr> {
    let bracket_token = syn::token::Bracket { span: group.delim_span() };
    let elems = terminated(Tokens::of(group))?;
    Some(Expr::Array(syn::ExprArray { attrs: Vec::new(), bracket_token, elems }))
}

/// An unsuffixed decimal tuple index (`x.0`); anything else after a `.` is left to syn.
fn member_index(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A path segment syn reads in an expression: an identifier or `self`, `Self`, `super`, `crate`
/// (`try` starts a block or a macro; it is left to syn).
fn path_segment(i: &Ident) -> bool {
    let word = i.to_string();
    matches!(word.as_str(), "self" | "Self" | "super" | "crate") || !is_keyword(&word)
}

/// syn's `accept_as_ident`: not a keyword.
fn accepted_as_ident(i: &Ident) -> bool {
    !is_keyword(&i.to_string())
}

/// The words syn's `accept_as_ident` refuses.
fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "_" | "abstract"
            | "as"
            | "async"
            | "await"
            | "become"
            | "box"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "do"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "final"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "macro"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "override"
            | "priv"
            | "pub"
            | "ref"
            | "return"
            | "Self"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "try"
            | "type"
            | "typeof"
            | "unsafe"
            | "unsized"
            | "use"
            | "virtual"
            | "where"
            | "while"
            | "yield"
    )
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::rust::macro_body::same_as_syn;

    fn read(body: &str) -> Option<Punctuated<Expr, Token![,]>> {
        let tokens = TokenStream::from_str(body).unwrap();
        let exprs = parse(&tokens);
        if let Some(exprs) = &exprs {
            assert!(same_as_syn(exprs, &tokens), "differs from syn: {body}");
        }
        exprs
    }

    #[test]
    fn common_bodies_read_as_syn_reads_them() {
        let bodies = [
            "",
            "x",
            "x,",
            "a, b, c",
            "\"{} and {}\", name, self.count",
            "result.is_ok()",
            "peer.list_roots().await?.roots.len(), 2",
            "&mut buf, &x, *ptr, !flag, -1, -x.y()",
            "::std::env::var(\"A\"), crate::x, super::y, Self::NAME, self",
            "vec![1, 2], format!(\"{}\", x).len(), json!({\"a\": 1})",
            "items[0], pair.0, nested.0 .1, t.1.len()",
            "(), (a), (a,), (a, b), [], [a], [a, b,]",
            "true, false, r#true, r#type, 'c', b\"x\", 1.5, 1u8, 0.max(1)",
            "f(a, b,)(c), (g)(1), x??, x.await.await",
            "m! {}, m! [], name!(), a::b!(c)",
            "raw, &raw, union, default, builtin",
        ];
        for body in bodies {
            assert!(read(body).is_some(), "not read: {body}");
        }
    }

    #[test]
    fn other_forms_are_left_to_syn() {
        let bodies = [
            "a == b",
            "a + 1",
            "x as u8",
            "a..b",
            "|x| x + 1",
            "move || x",
            "Point { x: 1 }",
            "x.iter().map::<u8, _>(f)",
            "Vec::<u8>::new()",
            "<T as Tr>::f()",
            "if a { b } else { c }",
            "match x { _ => 1 }",
            "{ a }",
            "async { 1 }",
            "#[attr] x",
            "&&x",
            "&raw const x",
            "x.0.1",
            "x.0u8",
            "[0; 4]",
            "a[b, c]",
            "x = 1",
            "return x",
            "_",
            "'a: loop {}",
            "a,, b",
            ", a",
            "a != b",
            "try!(x)",
            "builtin # offset_of(a, b)",
            "a::(b)",
            "x.match",
            "let x = 1; x",
        ];
        for body in bodies {
            assert!(read(body).is_none(), "read, though syn should: {body}");
        }
    }

    /// Random token soups near the forms above: whatever this reads, syn reads the same.
    #[test]
    fn random_bodies_read_as_syn_reads_them_or_not_at_all() {
        const PIECES: &[&str] = &[
            "a", "b", "self", "Self", "crate", "super", "r#type", "try", "raw", "mut", "const", "await", "true",
            "false", "r#true", "_", "builtin", "async", "move", "match", "\"s\"", "1", "1.5", "0", "00", "1u8", "'c'",
            "b\"x\"", "1e3", "0.1", ",", ",", ",", ".", ".", "..", "::", ":", "!", "!=", "&", "&&", "*", "-", "?", "#",
            "=", "==", "+", "<", ">", ";", "|", "'a",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        fn soup(next: &mut dyn FnMut(usize) -> usize, depth: usize, out: &mut String) {
            for _ in 0..next(6) {
                match next(10) {
                    0 if depth < 3 => {
                        let (open, close) = [("(", ")"), ("[", "]"), ("{", "}")][next(3)];
                        out.push_str(open);
                        soup(next, depth + 1, out);
                        out.push_str(close);
                    }
                    _ => out.push_str(PIECES[next(PIECES.len())]),
                }
                out.push(' ');
            }
        }
        let mut read_some = 0;
        for _ in 0..20_000 {
            let mut body = String::new();
            soup(&mut next, 0, &mut body);
            if TokenStream::from_str(&body).is_ok() && read(&body).is_some_and(|e| !e.is_empty()) {
                read_some += 1;
            }
        }
        assert!(read_some > 1000, "only {read_some} bodies read");
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    /// Every macro body in the Rust files of fixtures/ (`MCP_LINT_SCAN_TREE=DIR`: of a tree).
    #[test]
    fn every_macro_body_of_a_tree_reads_as_syn_reads_it_or_not_at_all() {
        struct Bodies<'a>(&'a mut Vec<TokenStream>);
        impl<'ast> syn::visit::Visit<'ast> for Bodies<'_> {
            fn visit_macro(&mut self, m: &'ast syn::Macro) {
                self.0.push(m.tokens.clone());
            }
        }
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let tree = std::env::var_os("MCP_LINT_SCAN_TREE").map_or(fixtures, std::path::PathBuf::from);
        let (mut bodies, mut read_some) = (0, 0);
        for entry in ignore::WalkBuilder::new(&tree).standard_filters(false).build().flatten() {
            if entry.path().extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let Ok(file) = syn::parse_file(&text) else { continue };
            let mut found = Vec::new();
            syn::visit::Visit::visit_file(&mut Bodies(&mut found), &file);
            for tokens in found {
                bodies += 1;
                if let Some(exprs) = parse(&tokens) {
                    read_some += 1;
                    assert!(same_as_syn(&exprs, &tokens), "differs from syn in {}: {tokens}", entry.path().display());
                }
            }
            proc_macro2::extra::invalidate_current_thread_spans();
        }
        eprintln!("{}: {bodies} macro bodies, {read_some} read here", tree.display());
        assert!(read_some > 0);
    }
}
