//! The one pass over a parsed Rust file. It keeps track of the role of the code it is in (server or
//! client, from the enclosing impl or fn), offers each node to the rules that are active for the
//! file, and reads macro bodies: `json!` bodies become JSON trees, other macro bodies are parsed as
//! expressions or statements when they are, so code inside `matches!`, `vec!`, `tokio::select!`
//! arms or a logging macro is checked like any other.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::visit::{self, Visit};

use crate::context::{Role, Sdk};
use crate::cx::Cx;
use crate::json::{self, JsonKind, JsonNode};
use crate::rules::{FnRef, Rule};
use crate::rust::macro_body::MacroBody;
use crate::rust::quoted;
use crate::rust::syntax::{has_attr, sig_mentions};

pub struct RuleVisitor<'c, 'a> {
    pub cx: &'c mut Cx<'a>,
    pub rules: &'c [&'static dyn Rule],
    impl_trait: Option<String>,
}

impl<'c, 'a> RuleVisitor<'c, 'a> {
    pub fn new(cx: &'c mut Cx<'a>, rules: &'c [&'static dyn Rule]) -> Self {
        RuleVisitor { cx, rules, impl_trait: None }
    }

    pub fn run(&mut self, file: &syn::File) {
        self.cx.file_sdks = imported_sdks(file, &self.cx.crate_ctx.own_crates);
        self.cx.test_code = crate::rust::test_code::TestCode::of(self.cx, file);
        if self.cx.file_role == Role::Unknown && !self.cx.test_code.ranges.is_empty() {
            // A server file whose unit tests drive it with a client (`impl ClientHandler for
            // TestClient`) has both sides' words; the code outside its tests decides.
            self.cx.file_role = crate::context::role_outside(&self.cx.file.text, &self.cx.test_code.ranges);
        }
        for rule in self.rules {
            rule.rust_file(self.cx, file);
        }
        self.visit_file(file);
    }

    fn enter_fn(&mut self, attrs: &[syn::Attribute], sig: &syn::Signature, body: &syn::Block) -> Role {
        let saved = self.cx.scope_role;
        if sig_mentions(sig, &["RoleServer"]) || has_attr(attrs, "tool") || has_attr(attrs, "prompt") {
            self.cx.scope_role = Role::Server;
        } else if sig_mentions(sig, &["RoleClient"]) {
            self.cx.scope_role = Role::Client;
        }
        if crate::rust::test_code::is_test_attr(attrs) {
            // Item-level tests were found before the pass; this adds tests nested in bodies.
            let range = self.cx.node_range(sig).start..self.cx.block_range(body).end;
            if !self.cx.test_code.contains(&range) {
                self.cx.test_code.ranges.push(range);
            }
        }
        let f = FnRef { attrs, sig, body, impl_trait: self.impl_trait.clone() };
        for rule in self.rules {
            rule.rust_fn(self.cx, &f);
        }
        saved
    }

    /// A raw string literal holding a JSON-RPC message (`r#"{"jsonrpc":"2.0","method":…}"#`, as
    /// tests post to HTTP servers) is read as JSON, like a `json!` body. Only raw strings: their
    /// text is the value byte for byte, so every JSON range is a range of the file.
    fn visit_json_literal(&mut self, l: &syn::LitStr) {
        let range = self.cx.span_range(l.span());
        let written = self.cx.text(range.clone());
        if !written.starts_with('r') {
            return;
        }
        let (Some(open), Some(close)) = (written.find('"'), written.rfind('"')) else { return };
        if close <= open {
            return;
        }
        let parsed = json::parse::parse_json_at(&written[open + 1..close], range.start + open + 1);
        if parsed.errors.is_empty() {
            let before = self.cx.diagnostics.len();
            for root in &parsed.roots {
                self.visit_json(root);
            }
            // Such bodies are mostly what tests send on purpose: an edit to one changes the test,
            // so the findings here carry no fix.
            for d in &mut self.cx.diagnostics[before..] {
                d.fix = None;
            }
        }
    }

    /// Offers every node of a JSON tree built from a `json!` body to the rules, then visits the
    /// Rust expressions interpolated into it.
    fn visit_json(&mut self, root: &JsonNode) {
        let mut exprs: Vec<TokenStream> = Vec::new();
        json::walk(root, |node, path| {
            for rule in self.rules {
                rule.json_node(self.cx, node, path);
            }
            if let JsonKind::Expr(tokens) = &node.kind {
                exprs.push(tokens.clone());
            }
        });
        for tokens in exprs {
            if let Ok(expr) = syn::parse2::<syn::Expr>(tokens) {
                self.visit_expr(&expr);
            }
        }
    }
}

impl<'ast> Visit<'ast> for RuleVisitor<'_, '_> {
    // Attributes hold doc comments and cfgs: nothing a rule should read as code.
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let saved_role = self.cx.scope_role;
        let saved_trait = self.impl_trait.take();
        let trait_name = i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
        let role = match trait_name.as_deref() {
            Some(t) if t.starts_with("ServerHandler") => Role::Server,
            Some(t) if t.starts_with("ClientHandler") => Role::Client,
            _ if ["tool_router", "tool_handler", "prompt_router", "prompt_handler"]
                .iter()
                .any(|a| has_attr(&i.attrs, a)) =>
            {
                Role::Server
            }
            _ => saved_role,
        };
        self.cx.scope_role = role;
        self.impl_trait = trait_name;
        let self_type = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let saved_self = std::mem::replace(&mut self.cx.impl_self, self_type);
        visit::visit_item_impl(self, i);
        self.cx.scope_role = saved_role;
        self.impl_trait = saved_trait;
        self.cx.impl_self = saved_self;
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        // A free fn is not inside the impl that may enclose it lexically (it cannot be).
        let saved_trait = self.impl_trait.take();
        let saved_self = self.cx.impl_self.take();
        let saved = self.enter_fn(&f.attrs, &f.sig, &f.block);
        visit::visit_item_fn(self, f);
        self.cx.scope_role = saved;
        self.impl_trait = saved_trait;
        self.cx.impl_self = saved_self;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let saved = self.enter_fn(&f.attrs, &f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
        self.cx.scope_role = saved;
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        let saved = self.cx.scope_role;
        if let Some(body) = &f.default {
            self.enter_fn(&f.attrs, &f.sig, body);
        }
        visit::visit_trait_item_fn(self, f);
        self.cx.scope_role = saved;
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        // Named once for every rule (most hooks start by comparing the name).
        let name = e.method.to_string();
        let saved = self.enter_call(None, &name);
        for rule in self.rules {
            rule.method_call(self.cx, e, &name);
        }
        let receives = u32::from(quoted::receives(&name));
        self.cx.receiving += receives;
        visit::visit_expr_method_call(self, e);
        self.cx.receiving -= receives;
        self.cx.quoting = saved;
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        let func = match &*e.func {
            syn::Expr::Path(p) => Some(&p.path),
            _ => None,
        };
        let callee = func.and_then(|p| p.segments.last()).map(|s| s.ident.to_string());
        let saved = callee.as_deref().map(|name| self.enter_call(func, name));
        for rule in self.rules {
            rule.call(self.cx, e, callee.as_deref());
        }
        let receives = u32::from(callee.as_deref().is_some_and(quoted::receives));
        self.cx.receiving += receives;
        visit::visit_expr_call(self, e);
        self.cx.receiving -= receives;
        if let Some(saved) = saved {
            self.cx.quoting = saved;
        }
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        // `"roots/list" | "notifications/roots/list_changed" => "roots"` (a logger's category) or
        // `=> {}`: an arm that only labels or ignores what it matched handles nothing, so its
        // pattern names the strings (`Cx::quoted`).
        if crate::rust::rejects::is_label(&arm.body) {
            arm.attrs.iter().for_each(|a| self.visit_attribute(a));
            self.cx.quoting += 1;
            self.visit_pat(&arm.pat);
            self.cx.quoting -= 1;
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
            return;
        }
        visit::visit_arm(self, arm);
    }

    fn visit_expr_array(&mut self, e: &'ast syn::ExprArray) {
        let list = quoted::is_removal_array(e);
        self.cx.quoting += u32::from(list);
        visit::visit_expr_array(self, e);
        self.cx.quoting -= u32::from(list);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        for rule in self.rules {
            rule.expr_path(self.cx, e);
        }
        visit::visit_expr_path(self, e);
    }

    fn visit_pat_tuple_struct(&mut self, p: &'ast syn::PatTupleStruct) {
        for rule in self.rules {
            rule.pat_path(self.cx, &p.path);
        }
        visit::visit_pat_tuple_struct(self, p);
    }

    fn visit_pat_struct(&mut self, p: &'ast syn::PatStruct) {
        for rule in self.rules {
            rule.pat_path(self.cx, &p.path);
        }
        visit::visit_pat_struct(self, p);
    }

    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        // syn models a unit pattern (`Kind::Roots =>`) as an expression path; it is a pattern.
        if let syn::Pat::Path(pp) = p {
            for rule in self.rules {
                rule.pat_path(self.cx, &pp.path);
            }
            return;
        }
        visit::visit_pat(self, p);
    }

    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        // A message built inside an assertion is a message (`rust::quoted`).
        let saved = self.cx.quoting;
        if saved > 0 && quoted::is_message_literal(e) {
            self.cx.quoting = 0;
        }
        for rule in self.rules {
            rule.struct_lit(self.cx, e);
        }
        visit::visit_expr_struct(self, e);
        self.cx.quoting = saved;
    }

    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        // Unescaped once for every rule.
        let value = self.cx.lit_str_value(l);
        for rule in self.rules {
            rule.lit_str(self.cx, l, &value);
        }
        if value.contains("\"jsonrpc\"") {
            self.visit_json_literal(l);
        }
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        // A `macro_rules!` definition is a pattern language, not code: its body is not read.
        if m.ident.is_none() {
            self.visit_macro(&m.mac);
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let assertion = quoted::is_assertion_macro(&name);
        self.cx.quoting += u32::from(assertion);
        self.visit_macro_body(m, &name);
        self.cx.quoting -= u32::from(assertion);
    }
}

impl RuleVisitor<'_, '_> {
    /// Around a call: its arguments are quoted when its name says it refuses them, and a message
    /// again when it sends (`rust::quoted`). Returns the count to restore.
    fn enter_call(&mut self, func: Option<&syn::Path>, name: &str) -> u32 {
        let saved = self.cx.quoting;
        if saved > 0 && quoted::builds_message(func, name) {
            self.cx.quoting = 0;
        } else if quoted::names_a_refusal(name) {
            self.cx.quoting += 1;
        }
        saved
    }

    fn visit_macro_body(&mut self, m: &syn::Macro, name: &str) {
        if name == "json" {
            if let Some(root) = self.cx.json_macro(m) {
                self.visit_json(&root);
            }
            return;
        }
        // `matches!(value, Pattern if guard)`: the second half is a pattern, not an expression.
        if matches!(name, "matches" | "assert_matches" | "debug_assert_matches")
            && let Ok(m) = MatchesBody::parse.parse2(m.tokens.clone())
        {
            self.visit_expr(&m.value);
            let list = quoted::is_removal_pattern(&m.pat);
            self.cx.quoting += u32::from(list);
            self.visit_pat(&m.pat);
            self.cx.quoting -= u32::from(list);
            if let Some(guard) = &m.guard {
                self.visit_expr(guard);
            }
            for e in &m.rest {
                self.visit_expr(e);
            }
            return;
        }
        // `select!`-style arms: `pattern = future => handler`.
        if name == "select"
            && let Ok(arms) = SelectArms::parse.parse2(m.tokens.clone())
        {
            for arm in &arms.0 {
                self.visit_pat(&arm.pat);
                self.visit_expr(&arm.future);
                if let Some(guard) = &arm.guard {
                    self.visit_expr(guard);
                }
                self.visit_expr(&arm.handler);
            }
            return;
        }
        // Most macros take comma-separated expressions (format args, vec!, assert!); others take
        // statements. Whatever parses is visited like ordinary code.
        match self.cx.macro_body(m).as_deref() {
            Some(MacroBody::Exprs(exprs)) => exprs.iter().for_each(|e| self.visit_expr(e)),
            Some(MacroBody::Stmts(stmts)) => stmts.iter().for_each(|s| self.visit_stmt(s)),
            None => {}
        }
    }
}

/// SDKs named by the file's `use` declarations (`use rmcp::…`, `use rust_mcp_sdk::…`), not the
/// crate's own crates (`own`, its workspace's: `use lr_mcp::…` is the project's code).
pub(crate) fn imported_sdks(file: &syn::File, own: &[String]) -> Vec<Sdk> {
    let mut out = Vec::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            let root = match &u.tree {
                syn::UseTree::Path(p) => p.ident.to_string(),
                syn::UseTree::Name(n) => n.ident.to_string(),
                syn::UseTree::Rename(r) => r.ident.to_string(),
                _ => continue,
            };
            if let Some(sdk) = Sdk::from_use_root(&root)
                && !out.contains(&sdk)
                && !own.iter().any(|c| c.replace('-', "_") == root)
            {
                out.push(sdk);
            }
        }
    }
    out
}

/// Whether the visitor reads this macro's body as code (then the ordinary hooks see what is in
/// it); rules that scan other macro bodies token by token use this to avoid reporting twice. The
/// same cases as `visit_macro`, with the body it reads (`Cx::macro_body`, parsed once per file).
pub fn reads_macro_body(cx: &Cx, m: &syn::Macro, name: &str) -> bool {
    name == "json"
        || matches!(name, "matches" | "assert_matches" | "debug_assert_matches")
            && MatchesBody::parse.parse2(m.tokens.clone()).is_ok()
        || name == "select" && SelectArms::parse.parse2(m.tokens.clone()).is_ok()
        || cx.macro_body(m).is_some()
}

/// The body of `matches!`: `value, pattern (if guard)? (, message args)*`.
struct MatchesBody {
    value: syn::Expr,
    pat: syn::Pat,
    guard: Option<syn::Expr>,
    rest: Vec<syn::Expr>,
}

impl MatchesBody {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let value: syn::Expr = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
        let guard = if input.peek(syn::Token![if]) {
            input.parse::<syn::Token![if]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        let mut rest = Vec::new();
        while input.parse::<Option<syn::Token![,]>>()?.is_some() && !input.is_empty() {
            rest.push(input.parse()?);
        }
        Ok(MatchesBody { value, pat, guard, rest })
    }
}

/// One arm of `tokio::select!` / `futures::select!`: `pattern = future (, if guard)? => handler`.
/// An `else => handler` arm has the wildcard pattern and no future.
struct SelectArm {
    pat: syn::Pat,
    future: syn::Expr,
    guard: Option<syn::Expr>,
    handler: syn::Expr,
}

struct SelectArms(Vec<SelectArm>);

impl SelectArms {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let mut arms = Vec::new();
        // `biased;` may open the body.
        if input.peek(syn::Ident) && input.peek2(syn::Token![;]) {
            input.parse::<syn::Ident>()?;
            input.parse::<syn::Token![;]>()?;
        }
        while !input.is_empty() {
            let (pat, future) = if input.peek(syn::Token![else]) || input.peek(syn::Token![default]) {
                input.parse::<proc_macro2::TokenTree>()?;
                (syn::parse_quote!(_), syn::parse_quote!(()))
            } else {
                let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                input.parse::<syn::Token![=]>()?;
                (pat, syn::Expr::parse_without_eager_brace(input)?)
            };
            let guard = if input.peek(syn::Token![,]) && input.peek2(syn::Token![if]) {
                input.parse::<syn::Token![,]>()?;
                input.parse::<syn::Token![if]>()?;
                Some(syn::Expr::parse_without_eager_brace(input)?)
            } else {
                None
            };
            input.parse::<syn::Token![=>]>()?;
            let handler: syn::Expr = input.parse()?;
            arms.push(SelectArm { pat, future, guard, handler });
            if !input.is_empty() {
                // A block handler needs no comma.
                let _ = input.parse::<Option<syn::Token![,]>>()?;
            }
        }
        Ok(SelectArms(arms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{CrateContext, Impact};
    use crate::cx::Origin;
    use crate::rules::RuleMeta;
    use crate::source::SourceFile;

    static META: RuleMeta = RuleMeta {
        name: "probe",
        summary: "",
        impact: Impact::Removed,
        triggers: &[],
        json_triggers: &[],
        mcp_triggers: &[],
        crate_triggers: &[],
        help: None,
        fixable: false,
        doc: "",
    };

    /// Reports every method call and every path in a pattern, to see what the visitor offers.
    struct Probe;
    impl Rule for Probe {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }
        fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
            let r = cx.node_range(&call.method);
            cx.report(&META, r, format!("call {name}"), "");
        }
        fn pat_path(&self, cx: &mut Cx, path: &syn::Path) {
            let r = cx.node_range(path);
            cx.report(&META, r, format!("pat {}", quote::quote!(#path).to_string().replace(' ', "")), "");
        }
        fn expr_path(&self, cx: &mut Cx, path: &syn::ExprPath) {
            let r = cx.node_range(path);
            cx.report(&META, r, format!("expr {}", quote::quote!(#path).to_string().replace(' ', "")), "");
        }
    }

    fn offered(src: &str) -> Vec<String> {
        let file = SourceFile::new("x.rs".into(), "x.rs".into(), src.into());
        let krate = CrateContext::default();
        let mut cx = Cx::new(&file, &krate, Origin::Rust);
        let parsed = crate::rust::parse::parse_rust(src).unwrap();
        RuleVisitor::new(&mut cx, &[&Probe]).run(&parsed.file);
        proc_macro2::extra::invalidate_current_thread_spans();
        cx.diagnostics.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn matches_pattern_is_a_pattern() {
        let got = offered("fn f(r: R) -> bool { matches!(r.kind(), Req::Roots(_) | Req::Other if r.ok()) }");
        assert_eq!(got, ["call kind", "expr r", "pat Req::Roots", "pat Req::Other", "call ok", "expr r"]);
    }

    #[test]
    fn select_arms_are_read() {
        let src = "async fn f() { tokio::select! { biased; Ok(r) = peer.list_roots() => { r.go() } _ = stop.recv(), if armed => {}, else => done() } }";
        let got = offered(src);
        for want in ["pat Ok", "call list_roots", "call go", "call recv", "expr armed", "expr done"] {
            assert!(got.contains(&want.to_owned()), "{want} missing from {got:?}");
        }
    }
}
