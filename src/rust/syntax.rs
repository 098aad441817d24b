//! Small readers of `syn` syntax that several rules share.

use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use syn::{Expr, ExprLit, Lit};

use crate::cx::Cx;

/// The value of a string literal as written, when the text is the value between quotes: no
/// escape, no CR (a CRLF inside a literal means LF) and no suffix. Else `None`: ask syn.
pub fn plain_str_literal(written: &str) -> Option<&str> {
    let inner = written.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['\\', '"', '\r'])).then_some(inner)
}

/// The string a literal-ish expression stands for: `"x"`, `"x".to_string()`, `"x".into()`,
/// `"x".to_owned()`, `String::from("x")`, `&"x"`. Returns the value and the literal's range.
pub fn str_value(cx: &Cx, expr: &Expr) -> Option<(String, Range<usize>)> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some((cx.lit_str_value(s).into_owned(), cx.node_range(s))),
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

/// `x` of `Some(x)`, else the expression itself: an `Option<&str>` method compared with
/// `Some("initialize")` is compared with the literal.
pub fn inside_some(expr: &Expr) -> &Expr {
    match expr {
        Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")) && c.args.len() == 1 => {
            &c.args[0]
        }
        e => e,
    }
}

/// The expression is `self`: a method called on it is the type's own, not an SDK's.
pub fn is_self(expr: &Expr) -> bool {
    matches!(expr, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self"))
}

/// Whether `expr` is a path whose last segments are `tail` (`path_is(e, &["String", "from"])`).
pub fn path_is(expr: &Expr, tail: &[&str]) -> bool {
    match expr {
        Expr::Path(p) => path_ends_with(&p.path, tail),
        _ => false,
    }
}

pub fn path_ends_with(path: &syn::Path, tail: &[&str]) -> bool {
    // Compared in place: rules call this for every path against tables of names.
    let n = path.segments.len();
    n >= tail.len() && path.segments.iter().skip(n - tail.len()).zip(tail).all(|(s, t)| s.ident == t)
}

/// Where an item starts: its first outer attribute (doc comments included), else its visibility,
/// else `first` (the token after them).
fn item_start(cx: &Cx, attrs: &[syn::Attribute], vis: &syn::Visibility, first: proc_macro2::Span) -> usize {
    match (attrs.first(), vis) {
        (Some(a), _) => cx.span_range(a.pound_token.span).start,
        (None, syn::Visibility::Inherited) => cx.span_range(first).start,
        (None, vis) => cx.node_range(vis).start,
    }
}

/// `cx.node_range(m)` for a module, from its attributes to its closing brace or `;`, without
/// printing the whole module to tokens.
pub fn mod_range(cx: &Cx, m: &syn::ItemMod) -> Range<usize> {
    let first = m.unsafety.map_or(m.mod_token.span, |u| u.span);
    let end = match (&m.content, &m.semi) {
        (Some((brace, _)), _) => cx.span_range(brace.span.close()).end,
        (None, Some(semi)) => cx.span_range(semi.span).end,
        (None, None) => cx.span_range(m.ident.span()).end,
    };
    item_start(cx, &m.attrs, &m.vis, first)..end
}

/// `cx.node_range(f)` for a free function, from its attributes to its closing brace.
pub fn fn_item_range(cx: &Cx, f: &syn::ItemFn) -> Range<usize> {
    let sig = syn::spanned::Spanned::span(&f.sig);
    item_start(cx, &f.attrs, &f.vis, sig)..cx.block_range(&f.block).end
}

/// The source text of a function, from its first keyword to its closing brace. Every token of the
/// function is a piece of it, so a word missing from it is in no token: a cheap test that spares
/// printing the function to tokens. `None` when the spans do not point into the file.
pub fn fn_text<'a>(cx: &Cx<'a>, sig: &syn::Signature, body: &syn::Block) -> Option<&'a str> {
    let keywords = [
        sig.constness.map(|t| t.span),
        sig.asyncness.map(|t| t.span),
        sig.unsafety.map(|t| t.span),
        sig.abi.as_ref().map(|a| a.extern_token.span),
    ];
    let start = keywords.into_iter().flatten().map(|s| cx.span_range(s).start).min();
    let start = start.unwrap_or(cx.span_range(sig.fn_token.span).start);
    let end = cx.block_range(body).end;
    (start < end).then(|| cx.text(start..end)).filter(|t| !t.is_empty())
}

/// `fn_text` for a block alone.
pub fn block_text<'a>(cx: &Cx<'a>, body: &syn::Block) -> Option<&'a str> {
    let range = cx.block_range(body);
    (range.start < range.end).then(|| cx.text(range)).filter(|t| !t.is_empty())
}

/// Whether a function's or block's text (from `fn_text`, `block_text`) may contain one of `words`:
/// false only when the text is known and has none of them.
pub fn text_may_mention(text: Option<&str>, words: &[&str]) -> bool {
    text.is_none_or(|t| words.iter().any(|w| t.contains(w)))
}

/// Whether a type names any of `names` as an identifier (`Peer` in `&Peer<RoleServer>`). Reads
/// the tree: printing the type to tokens first costs an allocation per token.
pub fn type_mentions(ty: &syn::Type, names: &[&str]) -> bool {
    let mut finder = IdentFinder { names, found: false };
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.found
}

/// `type_mentions` for a whole signature: parameters, return type, generics.
pub fn sig_mentions(sig: &syn::Signature, names: &[&str]) -> bool {
    let mut finder = IdentFinder { names, found: false };
    syn::visit::Visit::visit_signature(&mut finder, sig);
    finder.found
}

struct IdentFinder<'n> {
    names: &'n [&'n str],
    found: bool,
}

impl<'ast> syn::visit::Visit<'ast> for IdentFinder<'_> {
    fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
        self.found |= self.names.iter().any(|n| ident == n);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        // A type macro's tokens are not syntax nodes; names in them count too.
        self.found |= tokens_mention_any(&mac.tokens, self.names);
    }
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
    tokens_mention_any(tokens, &[name])
}

/// Whether a token stream contains an identifier with any of these names, at any depth: one walk
/// of the tokens (each walk copies every token) where a `tokens_mention` per name would take many.
pub fn tokens_mention_any(tokens: &TokenStream, names: &[&str]) -> bool {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) if names.iter().any(|n| i == n) => return true,
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    false
}

/// Whether an identifier in the tokens, at any depth, satisfies `pred` (`tokens_mention_any` for
/// a test other than a name: `decode` in any identifier).
pub fn idents_any(tokens: &TokenStream, pred: &dyn Fn(&str) -> bool) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => pred(&i.to_string()),
        TokenTree::Group(g) => idents_any(&g.stream(), pred),
        _ => false,
    })
}

/// Whether tokens name a method: an identifier containing `method` (`req.method`, `method_name`)
/// or the string `"method"` (`msg["method"]`).
pub fn mentions_method(tokens: &TokenStream) -> bool {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) if i.to_string().to_ascii_lowercase().contains("method") => return true,
            Some(TokenTree::Literal(l)) if l.to_string() == "\"method\"" => return true,
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    false
}

/// The enum paths of a pattern: `A::B(_)`, `A::B { .. }`, `A::B`, through `|`.
pub fn pattern_paths<'p>(pat: &'p syn::Pat, out: &mut Vec<&'p syn::Path>) {
    match pat {
        syn::Pat::TupleStruct(t) => out.push(&t.path),
        syn::Pat::Struct(s) => out.push(&s.path),
        syn::Pat::Path(p) => out.push(&p.path),
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| pattern_paths(c, out)),
        syn::Pat::Reference(r) => pattern_paths(&r.pat, out),
        syn::Pat::Paren(p) => pattern_paths(&p.pat, out),
        _ => {}
    }
}

/// Whether an attribute list has an attribute whose path ends with `name` (`#[tool]`, `#[rmcp::tool]`).
/// Whether a path names a JSON-RPC type (`JsonRpcRequest::new`): a segment says `Rpc` or `RPC`.
pub fn rpc_type_path(path: &syn::Path) -> bool {
    path.segments.iter().any(|s| {
        let name = s.ident.to_string();
        name.contains("Rpc") || name.contains("RPC")
    })
}

pub fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == name))
}

/// An arm or `else` that never goes on: it returns, or ends in `return`, `?` on an error, `break`,
/// `continue` or a panicking macro.
pub fn diverges(e: &Expr) -> bool {
    match crate::rust::rejects::strip(e) {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => m
            .mac
            .path
            .segments
            .last()
            .is_some_and(|s| ["panic", "unreachable", "bail", "todo", "unimplemented"].iter().any(|n| s.ident == n)),
        Expr::Try(t) => {
            matches!(crate::rust::rejects::strip(&t.expr), Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Err")))
        }
        Expr::Block(b) => block_diverges(&b.block),
        _ => false,
    }
}

/// `Default::default()` or `T::default()`.
pub fn is_default_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if c.args.is_empty()
        && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "default")))
}

/// A block that never goes on (`diverges` of its last statement).
pub fn block_diverges(b: &syn::Block) -> bool {
    match b.stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => diverges(e),
        Some(syn::Stmt::Macro(m)) => {
            m.mac.path.segments.last().is_some_and(|s| ["panic", "unreachable", "bail"].iter().any(|n| s.ident == n))
        }
        _ => false,
    }
}

#[cfg(test)]
mod range_tests {
    use super::*;
    use crate::context::CrateContext;
    use crate::cx::Origin;
    use crate::source::SourceFile;
    use syn::spanned::Spanned;

    /// The cheap ranges agree with `node_range`, which prints the node to tokens.
    #[test]
    fn item_ranges_match_node_range() {
        let text = "/// doc\n#[cfg(test)]\npub(crate) mod tests {\n    #[test]\n    fn t() { let x = 1; }\n}\nmod m;\npub async fn g() {}\nunsafe fn h() {}\n";
        let parsed = crate::rust::parse::parse_rust(text).unwrap();
        let file = SourceFile::new("a.rs".into(), "a.rs".into(), text.to_owned());
        let ctx = CrateContext::default();
        let cx = Cx::new(&file, &ctx, Origin::Rust);
        let mut checked = 0;
        for item in &parsed.file.items {
            match item {
                syn::Item::Mod(m) => assert_eq!(mod_range(&cx, m), cx.span_range(m.span())),
                syn::Item::Fn(f) => {
                    assert_eq!(fn_item_range(&cx, f), cx.span_range(f.span()));
                    assert_eq!(cx.block_range(&f.block), cx.node_range(&*f.block));
                }
                _ => continue,
            }
            checked += 1;
        }
        assert_eq!(checked, 4);
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}
