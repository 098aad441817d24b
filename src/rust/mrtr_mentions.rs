//! Where Rust code mentions MRTR (multi round-trip requests: `input_required`, `inputResponses`,
//! `requestState`): the words, a token-text test, and the offsets of a fn's mentions read from its
//! syntax tree without printing it to tokens.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
#[cfg(debug_assertions)]
use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{Expr, Lit};

use crate::cx::Cx;
use crate::prefilter::mentions;

/// Words that say code or a transcript deals with MRTR. Every finding needs one (Rust: in the fn,
/// and in the loop or between the attempts; JSON: the `input_required` result or the retry's params).
pub(crate) const MRTR_WORDS: &[&str] = &[
    "input_required",
    "\\bInputRequired",
    "inputResponses",
    "input_responses",
    "InputResponses",
    "requestState",
    "request_state",
    "\\bRequestState",
];

/// Whether a text mentions an MRTR word as `mentions` counts it. A text shorter than every word
/// (most tokens) mentions none, so it is spared the word searches.
pub(crate) fn mentions_mrtr_text(text: &str) -> bool {
    text.len() >= SHORTEST_MRTR_WORD && MRTR_WORDS.iter().any(|w| mentions(text, w))
}

/// The length of the shortest MRTR word (`requestState`).
pub(crate) const SHORTEST_MRTR_WORD: usize = 12;

/// The MRTR words that belong to the retry request itself.
pub(crate) const RETRY_WORDS: &[&str] =
    &["inputResponses", "input_responses", "InputResponses", "requestState", "request_state", "RequestState"];

/// Where a fn mentions MRTR (offsets of identifiers and literals).
#[derive(Debug, Clone, Default)]
pub(crate) struct Mentions {
    /// Any MRTR word.
    pub(crate) all: Vec<usize>,
    /// Words of the retry itself (`inputResponses`, `requestState`, …), not `input_required`.
    pub(crate) retry: Vec<usize>,
}

impl Mentions {
    /// The MRTR mentions in a fn's tokens (its signature and body, nested items included), sorted.
    pub(crate) fn of_fn(cx: &Cx, sig: &syn::Signature, body: &syn::Block) -> Mentions {
        let mut scan = MentionScan { cx, out: Mentions::default(), text: String::new() };
        scan.visit_signature(sig);
        scan.visit_block(body);
        let mut out = scan.out;
        // A shorthand field (`Request { id }`) is one token that the tree holds twice.
        for offsets in [&mut out.all, &mut out.retry] {
            offsets.sort_unstable();
            offsets.dedup();
        }
        #[cfg(debug_assertions)]
        {
            let printed = Mentions::printed(cx, sig, body);
            assert_eq!((&out.all, &out.retry), (&printed.all, &printed.retry), "{}", sig.ident);
        }
        out
    }

    /// The same from the fn printed to tokens: what `of_fn` must equal (checked in debug builds).
    #[cfg(debug_assertions)]
    fn printed(cx: &Cx, sig: &syn::Signature, body: &syn::Block) -> Mentions {
        let mut out = Mentions::default();
        mrtr_mentions(cx, &sig.to_token_stream(), &mut out);
        mrtr_mentions(cx, &body.to_token_stream(), &mut out);
        out.all.sort_unstable();
        out.retry.sort_unstable();
        out
    }

    /// Records a token that mentions MRTR. The text is the token as written, so a match is always
    /// in the file's bytes (the prefilter's view).
    fn token(&mut self, cx: &Cx, text: &str, span: proc_macro2::Span) {
        // Most tokens are shorter than any MRTR word: spare them the word searches.
        if mentions_mrtr_text(text) {
            let at = cx.span_range(span).start;
            self.all.push(at);
            if RETRY_WORDS.iter().any(|w| text.contains(w)) {
                self.retry.push(at);
            }
        }
    }
}

/// Reads the identifiers and literals of a syntax tree where printing it to tokens would, without
/// printing it (which cost more than this rule's whole walk). Attributes (doc comments) are
/// skipped, as `mrtr_mentions` skips them; token streams the tree keeps as written (macro bodies,
/// `Verbatim` nodes) are read by `mrtr_mentions`. Keywords, which the tree keeps as tokens of their
/// own, are never MRTR words.
pub(crate) struct MentionScan<'c, 'a> {
    cx: &'c Cx<'a>,
    out: Mentions,
    /// Reused for each token's text.
    text: String,
}

impl MentionScan<'_, '_> {
    fn token(&mut self, token: &dyn std::fmt::Display, span: proc_macro2::Span) {
        use std::fmt::Write;
        self.text.clear();
        let _ = write!(self.text, "{token}");
        self.out.token(self.cx, &self.text, span);
    }

    fn tokens(&mut self, tokens: &TokenStream) {
        mrtr_mentions(self.cx, tokens, &mut self.out);
    }
}

impl<'ast> Visit<'ast> for MentionScan<'_, '_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.token(i, i.span());
    }
    fn visit_lit(&mut self, l: &'ast Lit) {
        let token = match l {
            Lit::Str(s) => s.token(),
            Lit::ByteStr(s) => s.token(),
            Lit::CStr(s) => s.token(),
            Lit::Byte(b) => b.token(),
            Lit::Char(c) => c.token(),
            Lit::Int(i) => i.token(),
            Lit::Float(f) => f.token(),
            Lit::Verbatim(token) => token.clone(),
            // `true`/`false` are identifiers, never MRTR words.
            _ => return,
        };
        self.token(&token, l.span());
    }
    /// A string literal outside `Lit`: an `extern "…"` ABI.
    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        self.token(&l.token(), l.span());
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        self.tokens(&m.tokens);
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_expr(self, other),
        }
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        match i {
            syn::Item::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_item(self, other),
        }
    }
    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        match i {
            syn::ImplItem::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_impl_item(self, other),
        }
    }
    fn visit_trait_item(&mut self, i: &'ast syn::TraitItem) {
        match i {
            syn::TraitItem::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_trait_item(self, other),
        }
    }
    fn visit_foreign_item(&mut self, i: &'ast syn::ForeignItem) {
        match i {
            syn::ForeignItem::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_foreign_item(self, other),
        }
    }
    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        match p {
            syn::Pat::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_pat(self, other),
        }
    }
    fn visit_type(&mut self, t: &'ast syn::Type) {
        match t {
            syn::Type::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_type(self, other),
        }
    }
    fn visit_type_param_bound(&mut self, b: &'ast syn::TypeParamBound) {
        match b {
            syn::TypeParamBound::Verbatim(tokens) => self.tokens(tokens),
            other => visit::visit_type_param_bound(self, other),
        }
    }
}

/// Collects MRTR mentions. Attributes (doc comments) are skipped.
pub(crate) fn mrtr_mentions(cx: &Cx, tokens: &TokenStream, out: &mut Mentions) {
    let mut stack = vec![tokens.clone().into_iter().peekable()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Punct(p)) if p.as_char() == '#' => {
                if let Some(TokenTree::Punct(bang)) = top.peek()
                    && bang.as_char() == '!'
                {
                    top.next();
                }
                if matches!(top.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket) {
                    top.next();
                }
            }
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter().peekable()),
            Some(tt @ (TokenTree::Ident(_) | TokenTree::Literal(_))) => {
                // The token as written, so a match is always in the file's bytes (the prefilter's view).
                out.token(cx, &tt.to_string(), tt.span());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
}

pub(crate) fn mentions_mrtr(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        TokenTree::Group(g) => mentions_mrtr(&g.stream()),
        TokenTree::Ident(_) | TokenTree::Literal(_) => mentions_mrtr_text(&tt.to_string()),
        TokenTree::Punct(_) => false,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn shortest_mrtr_word_is_the_shortest() {
        let lengths = super::MRTR_WORDS.iter().map(|w| crate::prefilter::split_word(w).0.len());
        assert_eq!(lengths.min(), Some(super::SHORTEST_MRTR_WORD));
    }
}
