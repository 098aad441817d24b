//! Small readers of `syn` syntax that several rules share.

use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use syn::{Expr, ExprLit, Lit};

use crate::cx::Cx;

/// The string a literal-ish expression stands for: `"x"`, `"x".to_string()`, `"x".into()`,
/// `"x".to_owned()`, `String::from("x")`, `&"x"`. Returns the value and the literal's range.
pub fn str_value(cx: &Cx, expr: &Expr) -> Option<(String, Range<usize>)> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some((s.value(), cx.node_range(s))),
        Expr::MethodCall(m)
            if m.args.is_empty() && matches!(m.method.to_string().as_str(), "to_string" | "into" | "to_owned") =>
        {
            str_value(cx, &m.receiver)
        }
        Expr::Call(c) if c.args.len() == 1 && path_is(&c.func, &["String", "from"]) => str_value(cx, &c.args[0]),
        Expr::Reference(r) => str_value(cx, &r.expr),
        Expr::Paren(p) => str_value(cx, &p.expr),
        Expr::Group(g) => str_value(cx, &g.expr),
        _ => None,
    }
}

/// Whether `expr` is a path whose last segments are `tail` (`path_is(e, &["String", "from"])`).
pub fn path_is(expr: &Expr, tail: &[&str]) -> bool {
    match expr {
        Expr::Path(p) => path_ends_with(&p.path, tail),
        _ => false,
    }
}

pub fn path_ends_with(path: &syn::Path, tail: &[&str]) -> bool {
    let segs: Vec<_> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.len() >= tail.len() && segs[segs.len() - tail.len()..].iter().zip(tail).all(|(a, b)| a == b)
}

/// The last segment's name.
pub fn last_ident(path: &syn::Path) -> Option<String> {
    path.segments.last().map(|s| s.ident.to_string())
}

/// From the method's name to the closing parenthesis: `list_roots()` in `peer.list_roots()`.
/// This is the span rules point at for a method call, so the receiver chain is not underlined.
pub fn method_call_range(cx: &Cx, call: &syn::ExprMethodCall) -> Range<usize> {
    cx.join(call.method.span(), call.paren_token.span.close())
}

/// The range to delete to remove a method call from a builder chain: from the end of its receiver
/// (so the line break and indentation before `.` go too) to its closing parenthesis.
pub fn chain_link_range(cx: &Cx, call: &syn::ExprMethodCall) -> Range<usize> {
    let receiver_end = cx.node_range(&*call.receiver).end;
    receiver_end..cx.span_range(call.paren_token.span.close()).end
}

/// Whether a token stream contains an identifier with this name, at any depth.
pub fn tokens_mention(tokens: &TokenStream, name: &str) -> bool {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) if i == name => return true,
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    false
}

/// Whether an attribute list has an attribute whose path ends with `name` (`#[tool]`, `#[rmcp::tool]`).
pub fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == name))
}
