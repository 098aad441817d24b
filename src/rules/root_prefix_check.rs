//! `root-prefix-check`: deciding whether a path lies inside one of the client's roots by string
//! prefix (`str::starts_with` / `str::strip_prefix` on a URI or a path turned into a string).
//!
//! `"/srv/app-evil/secret".starts_with("/srv/app")` is true: a string prefix is not a directory
//! boundary, so a path outside the root passes the check (a path-traversal hazard). Comparing
//! `Path`s with `Path::starts_with` compares whole components; after `canonicalize` it also sees
//! through `..` and symlinks.
//!
//! What fires (never in client code or tests), one function body at a time with the roots flow
//! of `model::flow`:
//! - `s.starts_with(x)`, and `s.strip_prefix(x)` tested as a check (`.is_some()`, `.ok_or(..)`, `?`,
//!   `if let Some(..)`, `let … else`), where `s` is a string (an MCP `uri`, a `&str`
//!   parameter, `p.to_str()`, `p.to_string_lossy()`, `p.display().to_string()`, `format!`) and
//!   either side comes from a root (`root.uri`, a string cut from it, a `root_str` / `root_dir`
//!   name), or `s` is a whole path turned into a string;
//! - `x.starts_with(&root.uri)` whatever `x` is: a root's raw `file://` URI is never a path prefix.
//!
//! Silent: `Path::starts_with` (component-wise; without `canonicalize` a `..` can still escape, which
//! is a different check this rule does not make), literal prefixes (`starts_with("file://")`,
//! `starts_with('/')`), checks that also test the separator after the prefix
//! (`s.starts_with(root) && s[root.len()..].starts_with('/')`, a root that ends with `/`).

use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;

use proc_macro2::TokenTree;
use syn::visit::Visit;
use syn::{BinOp, Expr, Lit};

use crate::context::{Impact, Role};
use crate::cx::{CrateCx, Cx};
use crate::model::CrateModel;
use crate::model::flow::Elem;
use crate::model::flow::{
    Flow, Kind, Sink, Walker, base_of, compact, mentions_separator, normalized, strip, tested_receivers,
};
use crate::model::roots::{self, Purpose, ROOTS_WORDS, Via, may_hold_roots, server_code_with_roots};
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{fn_text, method_call_range, text_may_mention};

pub struct RootPrefixCheck;

static META: RuleMeta = RuleMeta {
    name: "root-prefix-check",
    summary: "Decides whether a path lies inside a root by string prefix (`/srv/app-evil` starts with `/srv/app`)",
    impact: Impact::Violation,
    triggers: &ROOTS_WORDS,
    json_triggers: &[],
    mcp_triggers: &[],
    // Server code whose tools may read roots another file stored (the crate model holds only
    // the files some word of a model rule selects).
    crate_triggers: &["RoleServer", "tool_router", "ServerHandler"],
    help: Some(
        "compare paths, not strings: convert the root's URI with `url::Url::to_file_path`, `canonicalize()` both \
         sides and use `Path::starts_with`, which compares whole components (`/srv/app-evil` is not inside \
         `/srv/app`)",
    ),
    fixable: false,
    doc: include_str!("../../rules/root-prefix-check.md"),
};

impl Rule for RootPrefixCheck {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        roots::file_fields(cx, file);
    }

    fn uses_model(&self) -> bool {
        true
    }

    /// The checks `rust_fn` cannot see: against the elements of a roots list another function
    /// keeps (a `self` place, maybe in another file) or returns, when those are strings (URIs or
    /// strings cut from them) and the receiver is a string too. A function that tests a separator
    /// anywhere is left alone (it may complete the check).
    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        let flow = model.roots();
        for u in flow.uses(model) {
            let facts = model.func(u.fn_).roots.as_deref();
            if u.use_.purpose != Purpose::Containment
                || !u.use_.string_prefix
                || u.use_.separator_tested
                || u.via == Via::Local
                || u.elem != Elem::Str
                || model.role(u.fn_) == Role::Client
                || facts.is_some_and(|f| f.test)
            {
                continue;
            }
            let shown = &u.use_.shown;
            let from = match &u.via {
                Via::Field { path, .. } => format!("`self.{}`", path.join(".")),
                Via::Helper(h) => format!("what `{}` returns", model.func(*h).name),
                Via::Local => continue,
            };
            let message = format!(
                "`{shown}` decides whether a path lies inside a root by string prefix (the roots of {from}, as \
                 strings): `/srv/app-evil` starts with `/srv/app`, so a path outside passes the check"
            );
            cx.report(
                &META,
                model.file_of(u.fn_),
                u.use_.range.clone(),
                message,
                "string prefix, not a directory boundary",
            );
        }
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        if !server_code_with_roots(cx, f.body, &[]) {
            return;
        }
        let fields = roots::known_fields(cx);
        // Every check is of a `starts_with` or `strip_prefix` call, named in the function's text, on
        // a string from a root or a path turned into a string (`to_str`, `to_string_lossy`,
        // `display`), or against a root's string: see `check`.
        let text = fn_text(cx, f.sig, f.body);
        if !text_may_mention(text, &["starts_with", "strip_prefix"])
            || !(may_hold_roots(text, &fields) || text_may_mention(text, &["to_str", "display"]))
        {
            return;
        }
        // Walked once without the `&&` guards, which print both sides of every `&&` to tokens;
        // walked again with them only if a finding needed them (its findings then replace the
        // first walk's).
        let before = cx.diagnostics.len();
        let mut sink = PrefixCheck { cx, body: f.body, terminated: None, guarded: None, needs_guards: false };
        Walker::walk(f.sig, f.body, fields.clone(), &mut sink);
        if sink.needs_guards {
            cx.diagnostics.truncate(before);
            let mut sink =
                PrefixCheck { cx, body: f.body, terminated: None, guarded: Some(HashSet::new()), needs_guards: false };
            Walker::walk(f.sig, f.body, fields, &mut sink);
        }
    }
}

struct PrefixCheck<'c, 'a, 'f> {
    cx: &'c mut Cx<'a>,
    /// The function's body, read for `terminated` when a check needs it.
    body: &'f syn::Block,
    /// Prefixes (normalized) the function makes end with a separator (`root.push('/')`).
    terminated: Option<HashSet<String>>,
    /// `starts_with` calls next to a separator test in the same `&&` chain, when collected.
    guarded: Option<HashSet<(usize, usize)>>,
    /// A finding was about to be made without `guarded` collected: walk again with it.
    needs_guards: bool,
}

impl Sink for PrefixCheck<'_, '_, '_> {
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>> {
        self.cx.macro_body(m)
    }

    fn expr(&mut self, flow: &mut Flow, e: &Expr) {
        match e {
            Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => {
                // `s.starts_with(root) && s[root.len()..].starts_with('/')`
                let Some(guarded) = &mut self.guarded else { return };
                let (l, r) = (quote::ToTokens::to_token_stream(&b.left), quote::ToTokens::to_token_stream(&b.right));
                if mentions_separator(&l) || mentions_separator(&r) {
                    for side in [&*b.left, &*b.right] {
                        for range in prefix_calls(self.cx, side) {
                            guarded.insert(range);
                        }
                    }
                }
            }
            Expr::MethodCall(m) if m.method == "starts_with" && m.args.len() == 1 => self.check(flow, m),
            // `strip_prefix` decides only where its `Option` is tested: `.is_some()`, `.ok_or(..)`, `?`,
            // `if let` / `let … else` / `match` (see `pat`). Elsewhere it computes a relative path.
            Expr::MethodCall(m) if ["is_some", "is_none", "ok_or", "ok_or_else"].iter().any(|n| m.method == n) => {
                if let Some(strip) = strip_prefix_call(&m.receiver) {
                    self.check(flow, strip);
                }
            }
            Expr::Try(t) => {
                if let Some(strip) = strip_prefix_call(&t.expr) {
                    self.check(flow, strip);
                }
            }
            _ => {}
        }
    }

    fn pat(&mut self, flow: &mut Flow, pat: &syn::Pat, value: &Expr) {
        // `if let Some(rest) = s.strip_prefix(root)`, `let Some(..) = … else`, a `Some(..) =>` arm.
        let tests = matches!(pat, syn::Pat::TupleStruct(ts) if ts.path.is_ident("Some"));
        if tests && let Some(strip) = strip_prefix_call(value) {
            self.check(flow, strip);
        }
    }
}

/// `s.strip_prefix(x)` with one argument, under parentheses.
fn strip_prefix_call(e: &Expr) -> Option<&syn::ExprMethodCall> {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "strip_prefix" && m.args.len() == 1 => Some(m),
        _ => None,
    }
}

impl PrefixCheck<'_, '_, '_> {
    fn check(&mut self, flow: &mut Flow, m: &syn::ExprMethodCall) {
        // The tests below have no effects, so the costly ones (`terminated`, `guarded`) come last.
        let arg = &m.args[0];
        if is_literal_or_const(arg) || format_ends_with_separator(arg) {
            return;
        }
        let (rk, ak) = (flow.kind_of(&m.receiver), flow.kind_of(arg));
        let raw_uri = is_root_uri_field(flow, arg);
        let string_check = rk.is_some_and(Kind::is_str)
            && (rk.is_some_and(Kind::rooted)
                || matches!(ak, Some(Kind::RootStr | Kind::RootNamed))
                || rk == Some(Kind::PathStr));
        // Whatever the receiver is (but a path we know), a root's raw URI is no path prefix.
        let uri_check = raw_uri && !rk.is_some_and(Kind::is_path);
        if !string_check && !uri_check {
            return;
        }
        let body = self.body;
        if self.terminated.get_or_insert_with(|| separator_terminated(body)).contains(&normalized(arg)) {
            return;
        }
        let whole = self.cx.node_range(m);
        match &self.guarded {
            None => {
                self.needs_guards = true;
                return;
            }
            Some(guarded) if guarded.contains(&(whole.start, whole.end)) => return,
            Some(_) => {}
        }
        let range = method_call_range(self.cx, m);
        let method = m.method.to_string();
        let recv_range = self.cx.node_range(&*m.receiver);
        let recv = compact(self.cx.text(recv_range.clone()));
        let inside =
            if rk.is_some_and(Kind::rooted) || ak.is_some_and(Kind::rooted) { "a root" } else { "a directory" };
        let message = if raw_uri {
            format!(
                "`{recv}.{method}(..)` decides whether a path lies inside a root by prefix against the root's raw \
                 `file://` URI: a URI is not a path, and a string prefix is not a directory boundary (`/srv/app-evil` \
                 starts with `/srv/app`)"
            )
        } else {
            format!(
                "`{recv}.{method}(..)` decides whether a path lies inside {inside} by string prefix: `/srv/app-evil` \
                 starts with `/srv/app`, so a path outside passes the check"
            )
        };
        let recv_label = base_range(self.cx, &m.receiver, recv_range);
        let d = self.cx.report(&META, range, message, "string prefix, not a directory boundary");
        if rk.is_some_and(Kind::is_str) {
            d.label(recv_label, "compared as a string, character by character");
        }
    }
}

fn base_range(cx: &Cx, e: &Expr, fallback: Range<usize>) -> Range<usize> {
    let r = cx.node_range(base_of(e));
    if r.is_empty() { fallback } else { r }
}

/// The argument is a root's `uri` field (`&root.uri`, `r.uri.as_str()`, `root["uri"]`).
fn is_root_uri_field(flow: &mut Flow, arg: &Expr) -> bool {
    let base = base_of(arg);
    let field = match base {
        Expr::Field(f) => matches!(&f.member, syn::Member::Named(i) if i == "uri"),
        Expr::Index(i) => {
            matches!(strip(&i.index), Expr::Lit(l) if matches!(&l.lit, Lit::Str(s) if s.value() == "uri"))
        }
        _ => false,
    };
    field && flow.kind_of(base) == Some(Kind::RootStr)
}

/// `"file://"`, `'/'`, `b"x"`, `MAIN_SEPARATOR`, `PREFIX`: a fixed prefix, not a root.
fn is_literal_or_const(e: &Expr) -> bool {
    match strip(e) {
        Expr::Lit(_) => true,
        Expr::Reference(r) => is_literal_or_const(&r.expr),
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        }),
        _ => false,
    }
}

/// `format!("{root}/")` or `format!("{}{}", root, MAIN_SEPARATOR)`: a prefix that ends at a boundary.
fn format_ends_with_separator(e: &Expr) -> bool {
    match strip(e) {
        Expr::Reference(r) => format_ends_with_separator(&r.expr),
        Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "format") => {
            let first = m.mac.tokens.clone().into_iter().next();
            let lit_ends = matches!(first, Some(TokenTree::Literal(l)) if {
                let s = l.to_string();
                s.ends_with("/\"") || s.ends_with("\\\\\"")
            });
            lit_ends || mentions_separator(&m.mac.tokens)
        }
        _ => false,
    }
}

/// Ranges of the `starts_with` / `strip_prefix` calls in an expression.
fn prefix_calls(cx: &Cx, e: &Expr) -> Vec<(usize, usize)> {
    struct V<'c, 'a>(&'c Cx<'a>, Vec<(usize, usize)>);
    impl<'ast> Visit<'ast> for V<'_, '_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if m.method == "starts_with" || m.method == "strip_prefix" {
                let r = self.0.node_range(m);
                self.1.push((r.start, r.end));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut v = V(cx, Vec::new());
    v.visit_expr(e);
    v.1
}

/// Prefixes the function terminates with a separator: `root.push('/')`, `root.push_str("/")`,
/// `root.push(MAIN_SEPARATOR)`, or tests with `root.ends_with('/')`.
fn separator_terminated(body: &syn::Block) -> HashSet<String> {
    tested_receivers(body, |m| {
        ["push", "push_str", "ends_with"].iter().any(|n| m.method == n)
            && m.args.len() == 1
            && mentions_separator(&quote::ToTokens::to_token_stream(&m.args[0]))
    })
}

#[cfg(test)]
mod tests {

    fn check(text: &str) -> Vec<String> {
        crate::rules::test_support::spans_of("root-prefix-check", "lib.rs", text).into_iter().map(|(_, s)| s).collect()
    }

    const HEAD: &str = "use rmcp::model::{ListRootsResult, Root};\n";

    #[test]
    fn string_prefixes_against_roots() {
        let text = format!(
            "{HEAD}fn f(listed: &ListRootsResult, uri: &str, p: &std::path::Path) -> bool {{\n\
             let a = listed.roots.iter().any(|root| uri.starts_with(&root.uri));\n\
             let b = listed.roots.iter().any(|r| req.target.starts_with(&r.uri));\n\
             let known_path = listed.roots.iter().any(|r| p.starts_with(&r.uri));\n\
             let dirs: Vec<&str> = listed.roots.iter().filter_map(|r| r.uri.strip_prefix(\"file://\")).collect();\n\
             let c = dirs.iter().any(|d| p.to_str().unwrap().starts_with(d));\n\
             let d = p.to_string_lossy().starts_with(\"/tmp\");\n\
             a && b && c && d\n\
             }}\n\
             fn g(path: &str, root_str: &str) -> bool {{ path.starts_with(root_str) }}\n\
             fn h(path: &str, root_str: &str) -> Option<&str> {{ let shown = path.strip_prefix(root_str); let rest = path.strip_prefix(root_str)?; shown }}\n"
        );
        assert_eq!(
            check(&text),
            [
                "starts_with(&root.uri)",
                "starts_with(&r.uri)",
                "starts_with(d)",
                "starts_with(root_str)",
                "strip_prefix(root_str)"
            ]
        );
    }

    /// A guarded and an unguarded check in one function (the walk that collects the `&&` guards
    /// replaces the first one's findings), and a path turned into a string in a function that
    /// never names a root.
    #[test]
    fn guards_and_path_strings() {
        let text = format!(
            "{HEAD}fn g(s: &str, root_str: &str) -> bool {{\n\
             let a = s.starts_with(root_str);\n\
             a || (s.strip_prefix(root_str).is_some() && s[root_str.len()..].starts_with('/'))\n\
             }}\n\
             fn p(p: &std::path::Path, base: &str) -> bool {{ p.to_str().unwrap().starts_with(base) }}\n"
        );
        assert_eq!(check(&text), ["starts_with(root_str)", "starts_with(base)"]);
    }

    #[test]
    fn path_comparisons_are_silent() {
        let text = format!(
            "{HEAD}fn f(roots: &[Root], arg: &str) -> bool {{\n\
             let p = std::path::Path::new(arg).canonicalize().unwrap();\n\
             roots.iter().filter_map(|r| url::Url::parse(&r.uri).ok()?.to_file_path().ok()).any(|root| p.starts_with(&root))\n\
             }}\n\
             fn g(uri: &str, root: &str) -> bool {{ uri.starts_with(\"file://\") || uri.starts_with('/') }}\n\
             fn h(s: &str, root_str: &str) -> bool {{ s.starts_with(root_str) && s[root_str.len()..].starts_with('/') }}\n\
             fn k(s: &str, root_str: &str) -> bool {{ s.starts_with(&format!(\"{{root_str}}/\")) }}\n\
             fn m(s: &str, mut root_str: String) -> bool {{ if !root_str.ends_with('/') {{ root_str.push('/'); }} s.starts_with(&root_str) }}\n"
        );
        assert!(check(&text).is_empty(), "{:?}", check(&text));
    }
}
