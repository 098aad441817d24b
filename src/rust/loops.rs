//! Small, rule-independent readers for intra-function analyses: loop ranges without printing the
//! loop, the names a pattern binds with their ranges, the local a place or value expression starts
//! from, and whether two places sit in different arms of one `if`/`match`.

use std::ops::Range;

use proc_macro2::TokenStream;
use syn::Expr;
use syn::visit::{self, Visit};

use crate::cx::Cx;

/// A loop's range from its first token (an attribute, the label or the keyword) to its body's
/// closing brace: what `node_range` gives, without printing the whole loop to tokens.
pub fn loop_range(
    cx: &Cx,
    attrs: &[syn::Attribute],
    label: &Option<syn::Label>,
    keyword: proc_macro2::Span,
    body: &syn::Block,
) -> Range<usize> {
    let first = match (attrs.first(), label) {
        (Some(a), _) => a.pound_token.span,
        (None, Some(l)) => l.name.apostrophe,
        (None, None) => keyword,
    };
    cx.join(first, body.brace_token.span.close())
}

/// Where a printed node starts: its first token (`node_range(e).start` without printing twice).
pub fn start_of(cx: &Cx, tokens: &TokenStream) -> usize {
    tokens.clone().into_iter().next().map_or(0, |tt| cx.span_range(tt.span()).start)
}

pub fn strip_pat(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => strip_pat(&t.pat),
        other => other,
    }
}

/// Identifiers a pattern binds, with their ranges.
pub fn pat_idents(cx: &Cx, pat: &syn::Pat) -> Vec<(String, Range<usize>)> {
    struct Idents<'c, 'a> {
        cx: &'c Cx<'a>,
        out: Vec<(String, Range<usize>)>,
    }
    impl<'ast> Visit<'ast> for Idents<'_, '_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.out.push((p.ident.to_string(), self.cx.span_range(p.ident.span())));
            visit::visit_pat_ident(self, p);
        }
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut v = Idents { cx, out: Vec::new() };
    v.visit_pat(pat);
    v.out
}

pub fn strip_deref(e: &Expr) -> &Expr {
    match e {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip_deref(&u.expr),
        Expr::Paren(p) => strip_deref(&p.expr),
        Expr::Group(g) => strip_deref(&g.expr),
        other => other,
    }
}

/// The local a place expression starts from: `req` in `req["params"]["x"]`, `*req.id`, `req.set_id(…)`.
pub fn root_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => root_ident(&f.base),
        Expr::Index(i) => root_ident(&i.expr),
        Expr::MethodCall(m) => root_ident(&m.receiver),
        Expr::Unary(u) => root_ident(&u.expr),
        Expr::Paren(p) => root_ident(&p.expr),
        Expr::Group(g) => root_ident(&g.expr),
        Expr::Reference(r) => root_ident(&r.expr),
        Expr::Try(t) => root_ident(&t.expr),
        _ => None,
    }
}

/// A value as a whole, through wrappers that keep it: `&x`, `x.clone()`, `x?`, `(x)`.
pub fn strip_value(e: &Expr) -> &Expr {
    match e {
        Expr::Reference(r) => strip_value(&r.expr),
        Expr::Paren(p) => strip_value(&p.expr),
        Expr::Group(g) => strip_value(&g.expr),
        Expr::Try(t) => strip_value(&t.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "clone" | "to_owned" | "to_string" | "into" | "as_ref" | "unwrap" | "borrow"
                ) =>
        {
            strip_value(&m.receiver)
        }
        other => other,
    }
}

/// Whether two places are in different arms of the same `if`/`match` (only one of them runs).
pub fn exclusive(a: &[(usize, usize)], b: &[(usize, usize)]) -> bool {
    a.iter().any(|(node, arm)| b.iter().any(|(n, m)| n == node && m != arm))
}
