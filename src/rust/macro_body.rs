//! Macro bodies read as code: comma-separated expressions (format arguments, `vec!`, `assert!`),
//! else statements, else (a macro's own syntax: `register!(name(args) -> Ty { … })`) the brace
//! groups inside it that hold statements or items, wherever they stand. The engine's visitor and
//! several rules' own walkers read the same bodies, so each body is parsed once per file
//! (`Cx::macro_body`) however many of them ask.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use syn::parse::Parser;
use syn::punctuated::Punctuated;

use super::simple_exprs;

pub enum MacroBody {
    Exprs(Punctuated<syn::Expr, syn::Token![,]>),
    Stmts(Vec<syn::Stmt>),
}

impl MacroBody {
    /// The body as expressions, else as statements; `None` when it is neither (a DSL).
    pub fn parse(m: &syn::Macro) -> Option<MacroBody> {
        // A `macro_rules!` body is matchers and templates (`($e:expr) => {..}`), never code; trying
        // both parses on it failed every time, at a cost.
        if m.path.is_ident("macro_rules") {
            return None;
        }
        if let Some(exprs) = simple_exprs::parse(&m.tokens) {
            debug_assert!(same_as_syn(&exprs, &m.tokens), "the simple reading differs from syn's: {}", m.tokens);
            return Some(MacroBody::Exprs(exprs));
        }
        if let Ok(exprs) = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(m.tokens.clone()) {
            return Some(MacroBody::Exprs(exprs));
        }
        if let Ok(stmts) = syn::Block::parse_within.parse2(m.tokens.clone()) {
            return Some(MacroBody::Stmts(stmts));
        }
        // Templates and data: their braces hold no code of this crate.
        if m.path.segments.last().is_some_and(|s| TEMPLATE_MACROS.iter().any(|t| s.ident == t)) {
            return None;
        }
        let mut blocks = Vec::new();
        brace_blocks(m.tokens.clone(), &mut blocks);
        (!blocks.is_empty()).then_some(MacroBody::Stmts(blocks))
    }

    /// Offers the body to a visitor, as ordinary code.
    pub fn visit<V: for<'x> syn::visit::Visit<'x>>(&self, v: &mut V) {
        match self {
            MacroBody::Exprs(exprs) => exprs.iter().for_each(|e| v.visit_expr(e)),
            MacroBody::Stmts(stmts) => stmts.iter().for_each(|s| v.visit_stmt(s)),
        }
    }
}

/// Macros whose input is a template or data, never code to read: `quote!` bodies are the code a
/// proc macro generates (with `#var` holes), `json!` bodies are JSON.
const TEMPLATE_MACROS: &[&str] = &["quote", "quote_spanned", "parse_quote", "parse_quote_spanned", "json"];

/// The brace groups in `tokens` (at any depth, outside those already taken) whose contents parse
/// as statements (items too), each as a block statement: the code of a macro with a syntax of its
/// own, read with its own scope and its braces' place in the file.
fn brace_blocks(tokens: proc_macro2::TokenStream, out: &mut Vec<syn::Stmt>) {
    for token in tokens {
        let proc_macro2::TokenTree::Group(g) = token else { continue };
        if g.delimiter() == proc_macro2::Delimiter::Brace
            && let Ok(stmts) = syn::Block::parse_within.parse2(g.stream())
        {
            // An empty group (`{}`) holds no code.
            if !stmts.is_empty() {
                let brace_token = syn::token::Brace { span: g.delim_span() };
                let block = syn::Block { brace_token, stmts };
                let expr = syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block });
                out.push(syn::Stmt::Expr(expr, None));
            }
            continue;
        }
        brace_blocks(g.stream(), out);
    }
}

/// Offers a macro's body to a visitor as code, as the engine's visitor reads it (parsed once per
/// file, `Cx::macro_body`). `json!` bodies are data and are left alone.
pub fn visit_code_macro<V: for<'x> syn::visit::Visit<'x>>(cx: &crate::cx::Cx, v: &mut V, m: &syn::Macro) {
    if m.path.segments.last().is_some_and(|seg| seg.ident == "json") {
        return;
    }
    if let Some(body) = cx.macro_body(m) {
        body.visit(v);
    }
}

/// The bodies parsed so far in one file, by the byte range of the macro's delimiters (a body
/// re-read from another macro's tokens keeps its place in the file, so it is found too).
#[derive(Default)]
pub struct MacroBodies(RefCell<HashMap<(usize, usize), Parsed>>);

/// A body as parsed, or `None` when it is not code.
type Parsed = Option<Rc<MacroBody>>;

impl MacroBodies {
    /// The body of `m`, whose delimiters span `range` in the file (empty for tokens made in memory).
    pub fn get(&self, m: &syn::Macro, range: Range<usize>) -> Option<Rc<MacroBody>> {
        if range.is_empty() {
            // No location (tokens made in memory): nothing to key by.
            return MacroBody::parse(m).map(Rc::new);
        }
        let key = (range.start, range.end);
        if let Some(body) = self.0.borrow().get(&key) {
            return body.clone();
        }
        let body = MacroBody::parse(m).map(Rc::new);
        self.0.borrow_mut().insert(key, body.clone());
        body
    }
}

/// The span of a macro's delimiters, body included.
pub fn delimiters_span(m: &syn::Macro) -> proc_macro2::Span {
    match &m.delimiter {
        syn::MacroDelimiter::Paren(d) => d.span.join(),
        syn::MacroDelimiter::Brace(d) => d.span.join(),
        syn::MacroDelimiter::Bracket(d) => d.span.join(),
    }
}

/// Whether syn reads `tokens` as exactly `exprs`: the same tree, and the same tokens at the same
/// places (the trees' equality ignores spans).
pub fn same_as_syn(exprs: &Punctuated<syn::Expr, syn::Token![,]>, tokens: &proc_macro2::TokenStream) -> bool {
    fn placed(tokens: proc_macro2::TokenStream, out: &mut Vec<(String, Range<usize>)>) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Group(g) => {
                    let span = g.delim_span();
                    out.push((format!("{:?}", g.delimiter()), span.open().byte_range()));
                    out.push((String::new(), span.close().byte_range()));
                    placed(g.stream(), out);
                }
                other => out.push((other.to_string(), other.span().byte_range())),
            }
        }
    }
    let placed_all = |exprs: &Punctuated<syn::Expr, syn::Token![,]>| {
        let mut out = Vec::new();
        placed(quote::ToTokens::to_token_stream(exprs), &mut out);
        out
    };
    let Ok(by_syn) = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(tokens.clone()) else {
        return false;
    };
    by_syn == *exprs && placed_all(&by_syn) == placed_all(exprs)
}
