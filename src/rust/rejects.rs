//! Whether code only rejects what it handles: a `match` arm or handler whose result is an error
//! (`Err(..)`, `bail!`, `method_not_found(..)`) is the migrated behaviour for a removed method,
//! not a use of it. Read by `removed-method` and by the crate model (`FnFact::rejects`).

use syn::Expr;

use crate::rust::syntax::path_ends_with;

/// Through parentheses and invisible groups.
pub fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

/// A literal, `()` or `{}`: an arm that labels or ignores a message rather than handling it.
pub fn is_label(e: &Expr) -> bool {
    match strip(e) {
        Expr::Lit(_) => true,
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Block(b) => {
            b.block.stmts.is_empty() || matches!(b.block.stmts.as_slice(), [syn::Stmt::Expr(e, None)] if is_label(e))
        }
        _ => false,
    }
}

/// Whether a block only rejects: its last expression is a rejection (anything before it is
/// logging or bookkeeping).
pub fn block_rejects(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => expr_rejects(e),
        Some(syn::Stmt::Macro(m)) => macro_rejects(&m.mac),
        _ => false,
    }
}

/// `Err(..)`, `return Err(..)`, `Err(..)?`, `std::future::ready(Err(..))`, `bail!(..)`, or a call
/// whose name says it builds or sends an error (`method_not_found(..)`, `send_error(..)`,
/// `reject(..)`). Result combinators (`map_err`, `ok_or_else`) are not rejections.
pub fn expr_rejects(e: &Expr) -> bool {
    match strip(e) {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.is_ident("Err") => true,
            // An error reply handed back as the function's value (`Some(error_response(..))`,
            // `Ok(json!({"error": ..}))`).
            Expr::Path(p) if p.path.is_ident("Some") || p.path.is_ident("Ok") => {
                c.args.len() == 1 && expr_rejects(&c.args[0])
            }
            Expr::Path(p) if path_ends_with(&p.path, &["ready"]) || path_ends_with(&p.path, &["pin"]) => {
                c.args.len() == 1 && expr_rejects(&c.args[0])
            }
            Expr::Path(p) => {
                // `JsonRpcResponse::err(id, ..)`: an error constructor of a type (`x.err()` on a
                // `Result` is no reply, so not the method).
                let constructor =
                    p.path.segments.len() >= 2 && p.path.segments.last().is_some_and(|s| s.ident == "err");
                constructor || p.path.segments.iter().any(|s| says_error(&s.ident.to_string()))
            }
            _ => false,
        },
        Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "into" | "await") => expr_rejects(&m.receiver),
        Expr::MethodCall(m) => says_error(&m.method.to_string()),
        Expr::Await(a) => expr_rejects(&a.base),
        Expr::Return(r) => r.expr.as_deref().is_some_and(expr_rejects),
        Expr::Try(t) => expr_rejects(&t.expr),
        Expr::Block(b) => block_rejects(&b.block),
        Expr::Async(a) => block_rejects(&a.block),
        Expr::Macro(m) => macro_rejects(&m.mac),
        _ => false,
    }
}

/// A function name that says it makes or sends an error.
fn says_error(name: &str) -> bool {
    const WORDS: &[&str] = &["error", "reject", "unsupported", "not_found", "not_supported", "invalid", "refuse"];
    let name = name.to_ascii_lowercase();
    let combinator = ["map_", "ok_or", "unwrap_", "or_else", "is_"].iter().any(|p| name.starts_with(p));
    !combinator && (WORDS.iter().any(|w| name.contains(w)) || name.ends_with("_err") || name.starts_with("err_"))
}

fn macro_rejects(m: &syn::Macro) -> bool {
    let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    // `bail!` and its kin (`bail_public!`).
    let bails = name == "bail" || name.starts_with("bail_");
    bails || name == "unsupported" || name == "json" && json_error_reply(&m.tokens)
}

/// A `json!` object with an `"error"` member at its top level: a JSON-RPC error response.
fn json_error_reply(tokens: &proc_macro2::TokenStream) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let mut outer = tokens.clone().into_iter();
    let Some(TokenTree::Group(object)) = outer.next() else { return false };
    if object.delimiter() != Delimiter::Brace || outer.next().is_some() {
        return false;
    }
    let mut key_position = true;
    let mut inner = object.stream().into_iter().peekable();
    while let Some(tt) = inner.next() {
        match &tt {
            TokenTree::Literal(l) if key_position => {
                if l.to_string() == "\"error\""
                    && matches!(inner.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':')
                {
                    return true;
                }
                key_position = false;
            }
            TokenTree::Punct(p) if p.as_char() == ',' => key_position = true,
            _ => key_position = false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::expr_rejects;

    fn rejects(code: &str) -> bool {
        expr_rejects(&syn::parse_str(code).expect("an expression"))
    }

    #[test]
    fn error_constructors_reject_and_result_err_does_not() {
        assert!(rejects("Some(JsonRpcResponse::err(id, RpcError::new(-32600, msg)))"));
        assert!(rejects("Reply::err(id, -32600, \"not yet\")"));
        assert!(!rejects("outcome.err()"));
        assert!(!rejects("Reply::ok(id, result)"));
    }
}
