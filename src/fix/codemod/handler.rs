//! Hand-written `call_tool` handlers (shape A without the tool macros): an `impl ServerHandler`
//! whose `call_tool` dispatches with a `match` on `request.name`, each tool's input schema written
//! by hand in `list_tools` (`Tool::new(name, description, schema)`).
//!
//! Per arm that reads the roots (itself, through a helper that derives a directory, or through a
//! method it calls with the context or peer), the lookup becomes a read of a new argument: from
//! `request.arguments` (a `JsonObject`), or a field added to the struct the arm deserialises its
//! arguments into. The tool's schema gets the property: in its `json!` object, or in the struct
//! that `schema_for!` derives it from. A handler is rewritten whole or not at all.

use std::collections::HashMap;
use std::ops::Range;

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, FnArg, Pat, Stmt};

use super::companion::add_property;
use super::index::{FnSite, Index, ParsedFile};
use super::lookup::{HelperInline, Need, PARAM, Refusal, Rewriter, ident_of, type_last_ident};
use super::text::{Src, count_ident, indent_at, line_start, mentions_ident, render};
use super::tool::{
    FileEdits, NewParam, PLURAL, SINGULAR, add_field, allow_deprecated_edits, arg_deletion, description,
};
use crate::diagnostic::Edit;
use crate::json::JsonNode;
use crate::rust::syntax::tokens_mention;

/// What the crate's plan hands a handler: the helpers (shape C) its arms call, and the methods its
/// arms call with the context or peer, which request the roots themselves.
#[derive(Default)]
pub struct HandlerJob {
    pub helpers: HashMap<String, HelperInline>,
    pub methods: Vec<usize>,
    /// A cell filled on first use that some of `methods` read through its `ensure_*` method
    /// instead of requesting the roots themselves.
    pub lazy: Option<super::cache::LazyRead>,
}

/// A rewritten handler: its edits (in the handler's file and wherever the schemas, structs and
/// methods are) and the parameters its tools gained.
pub struct HandlerPlan {
    pub file: usize,
    pub edits: FileEdits,
    pub params: Vec<NewParam>,
}

/// A tool described by hand: `Tool::new("name", …, schema)` or `Tool { name, input_schema, .. }`.
pub struct ToolDef {
    pub file: usize,
    pub name: String,
    pub schema: Expr,
}

/// The crate as the handler planner sees it.
pub struct Crate<'a> {
    pub index: &'a Index<'a>,
    pub texts: &'a [String],
    pub bases: &'a [usize],
    pub tools: &'a [ToolDef],
}

impl Crate<'_> {
    fn src(&self, file: usize) -> Src<'_> {
        Src { text: &self.texts[file], base: self.bases[file] }
    }
}

/// Whether a function is a hand-written `call_tool` handler.
pub fn is_handler(site: &FnSite) -> bool {
    site.name() == "call_tool" && site.impl_trait.is_some()
}

/// Every tool described by hand in the crate, `vec![…]` bodies included.
pub fn tool_defs(parsed: &[Option<ParsedFile>]) -> Vec<ToolDef> {
    struct Find {
        file: usize,
        found: Vec<ToolDef>,
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let Expr::Path(p) = &*c.func {
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let is_new =
                    matches!(segs.as_slice(), [.., t, n] if t == "Tool" && (n == "new" || n == "new_with_raw"));
                if is_new
                    && c.args.len() == 3
                    && let Some(name) = literal_name(&c.args[0])
                {
                    self.found.push(ToolDef { file: self.file, name, schema: c.args[2].clone() });
                }
            }
            visit::visit_expr_call(self, c);
        }
        fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
            if s.path.segments.last().is_some_and(|l| l.ident == "Tool") {
                let field = |n: &str| {
                    s.fields.iter().find(|f| matches!(&f.member, syn::Member::Named(i) if i == n)).map(|f| &f.expr)
                };
                if let (Some(name), Some(schema)) = (field("name").and_then(literal_name), field("input_schema")) {
                    self.found.push(ToolDef { file: self.file, name, schema: schema.clone() });
                }
            }
            visit::visit_expr_struct(self, s);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(args) = macro_exprs(mac) {
                args.iter().for_each(|a| self.visit_expr(a));
            }
        }
    }
    let mut out = Vec::new();
    for (file, p) in parsed.iter().enumerate() {
        if let Some(p) = p {
            let mut find = Find { file, found: Vec::new() };
            find.visit_file(&p.ast);
            out.extend(find.found);
        }
    }
    out
}

/// The body of a macro other than `json!` read as comma-separated expressions (`vec![…]`).
fn macro_exprs(mac: &syn::Macro) -> Option<Punctuated<Expr, syn::Token![,]>> {
    if mac.path.segments.last().is_some_and(|s| s.ident == "json") {
        return None;
    }
    let parser = Punctuated::<Expr, syn::Token![,]>::parse_terminated;
    syn::parse::Parser::parse2(parser, mac.tokens.clone()).ok()
}

/// `"name"`, `"name".into()`, `"name".to_string()`, `Cow::Borrowed("name")`.
fn literal_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
        Expr::MethodCall(m) if m.args.is_empty() => literal_name(&m.receiver),
        Expr::Call(c) if c.args.len() == 1 => literal_name(&c.args[0]),
        Expr::Group(g) => literal_name(&g.expr),
        Expr::Paren(p) => literal_name(&p.expr),
        _ => None,
    }
}

/// What the handler's signature says.
struct HandlerSig {
    /// The `CallToolRequestParams` argument.
    request: String,
    /// The `RequestContext` argument: its name's range and the name.
    context: Option<(Range<usize>, String)>,
    /// The error type of its `Result`, as written (`McpError`, `rmcp::ErrorData`).
    error: String,
}

fn read_sig(site: &FnSite, src: &Src) -> Result<HandlerSig, String> {
    let mut request = None;
    let mut context = None;
    for arg in &site.sig.inputs {
        let FnArg::Typed(pt) = arg else { continue };
        match type_last_ident(&pt.ty).as_deref() {
            Some("CallToolRequestParams" | "CallToolRequestParam") => match &*pt.pat {
                Pat::Ident(p) if p.subpat.is_none() => request = Some(p.ident.to_string()),
                _ => {
                    return Err(
                        "its request is destructured; the codemod follows `request: CallToolRequestParams`".into()
                    );
                }
            },
            Some("RequestContext") => {
                if let Pat::Ident(p) = &*pt.pat {
                    context = Some((src.range(&p.ident), p.ident.to_string()));
                }
            }
            _ => {}
        }
    }
    let request = request.ok_or("it has no `CallToolRequestParams` argument")?;
    let error = match &site.sig.output {
        syn::ReturnType::Type(_, t) => error_type(t),
        syn::ReturnType::Default => None,
    }
    .ok_or("its return type is not a `Result<…, E>` whose error type the codemod can name")?;
    let name = type_last_ident(error).unwrap_or_default();
    let rmcp_error = name == "ErrorData" || name == "McpError" || src.text.contains(&format!("ErrorData as {name}"));
    if !rmcp_error {
        return Err(format!(
            "its error type `{}` is not rmcp's `ErrorData`, so the codemod cannot write the missing-argument error",
            src.node_text(error)
        ));
    }
    Ok(HandlerSig { request, context, error: src.node_text(error).to_owned() })
}

/// `E` of `Result<T, E>`, also inside `impl Future<Output = Result<T, E>>`.
fn error_type(t: &syn::Type) -> Option<&syn::Type> {
    match t {
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            if last.ident != "Result" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
            let types: Vec<&syn::Type> = a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect();
            match types.as_slice() {
                [_, e] => Some(e),
                _ => None,
            }
        }
        syn::Type::ImplTrait(it) => it.bounds.iter().find_map(|b| {
            let syn::TypeParamBound::Trait(tb) = b else { return None };
            let last = tb.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
            a.args.iter().find_map(|g| match g {
                syn::GenericArgument::AssocType(at) if at.ident == "Output" => error_type(&at.ty),
                _ => None,
            })
        }),
        syn::Type::Group(g) => error_type(&g.elem),
        syn::Type::Paren(p) => error_type(&p.elem),
        _ => None,
    }
}

/// The statements of the handler: its block, or the `async move { … }` block a `fn call_tool(…) ->
/// impl Future<…>` returns (a `?` there returns from the future, as in an `async fn`).
fn handler_body(block: &syn::Block) -> &syn::Block {
    match block.stmts.as_slice() {
        [Stmt::Expr(Expr::Async(a), None)] => &a.block,
        _ => block,
    }
}

/// The `match` on `request.name` in the handler's body (not inside closures or async blocks, where
/// a `?` would not return from the handler).
fn find_dispatch<'a>(block: &'a syn::Block, request: &str) -> Vec<&'a syn::ExprMatch> {
    struct Find<'a, 'r> {
        request: &'r str,
        found: Vec<&'a syn::ExprMatch>,
    }
    impl<'a> Visit<'a> for Find<'a, '_> {
        fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
            if names_field(&m.expr, self.request, "name") {
                self.found.push(m);
            }
            visit::visit_expr_match(self, m);
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut find = Find { request, found: Vec::new() };
    find.visit_block(block);
    find.found
}

/// Whether `e` reads `base.field` (`request.name.as_ref()`, `&*request.name`, `&request.name[..]`).
fn names_field(e: &Expr, base: &str, field: &str) -> bool {
    match e {
        Expr::Field(f) => {
            matches!(&f.member, syn::Member::Named(i) if i == field) && ident_of(&f.base).as_deref() == Some(base)
        }
        Expr::MethodCall(m) if m.args.is_empty() => names_field(&m.receiver, base, field),
        Expr::Reference(r) => names_field(&r.expr, base, field),
        Expr::Unary(u) => names_field(&u.expr, base, field),
        Expr::Index(i) => names_field(&i.expr, base, field),
        Expr::Paren(p) => names_field(&p.expr, base, field),
        Expr::Group(g) => names_field(&g.expr, base, field),
        Expr::Cast(c) => names_field(&c.expr, base, field),
        _ => false,
    }
}

/// Plans the rewrite of one handler.
pub fn plan_handler(cr: &Crate, site: &FnSite, job: &HandlerJob) -> Result<HandlerPlan, Refusal> {
    let src = cr.src(site.file);
    let refuse = |reason: String| Refusal {
        range: src.range(&site.sig.ident),
        reason: format!("the hand-written `call_tool` handler: {reason}"),
    };
    let sig = read_sig(site, &src).map_err(refuse)?;
    let body = handler_body(site.block);
    let matches = find_dispatch(body, &sig.request);
    let [dispatch] = matches.as_slice() else {
        return Err(refuse(format!(
            "it does not dispatch with one `match` on `{}.name`, so the codemod cannot tell which tool requests the roots",
            sig.request
        )));
    };
    let methods: Vec<&FnSite> = job.methods.iter().map(|i| &cr.index.fns[*i]).collect();
    let mut lookup_names: Vec<String> = vec!["list_roots".into()];
    lookup_names.extend(job.helpers.keys().cloned());
    lookup_names.extend(methods.iter().map(|m| m.name()));
    let count =
        |tokens: &proc_macro2::TokenStream| -> usize { lookup_names.iter().map(|n| count_ident(tokens, n)).sum() };
    let in_arms: usize = dispatch.arms.iter().map(|a| count(&a.body.to_token_stream())).sum();
    if count(&site.block.to_token_stream()) != in_arms {
        return Err(refuse(format!(
            "the roots are requested outside the arms of the `match` on `{}.name`, not for one tool",
            sig.request
        )));
    }
    let mut edits: FileEdits = Vec::new();
    let mut params = Vec::new();
    for arm in &dispatch.arms {
        let arm_tokens = arm.body.to_token_stream();
        if !lookup_names.iter().any(|n| tokens_mention(&arm_tokens, n)) {
            continue;
        }
        let plan =
            ArmPlanner { cr, site, body, src: &src, sig: &sig, dispatch, arm, job, methods: &methods }.plan().map_err(
                |r| Refusal { range: r.range, reason: format!("the hand-written `call_tool` handler: {}", r.reason) },
            )?;
        edits.extend(plan.0);
        params.push(plan.1);
    }
    if params.is_empty() {
        return Err(refuse("no arm of it derives a directory from the roots".into()));
    }
    // The context argument is the trait's signature and stays; unused, it is renamed `_context`.
    let own: Vec<Edit> = edits.iter().filter(|(f, _)| *f == site.file).map(|(_, e)| e.clone()).collect();
    let new_body = render(src.text, src.range(site.block), &own);
    if let Some((range, name)) = &sig.context
        && !name.starts_with('_')
        && !mentions_ident(&new_body, name)
    {
        edits.push((site.file, Edit::replace(range.clone(), format!("_{name}"))));
    }
    edits.extend(allow_deprecated_edits(&src, site.attrs, &new_body).into_iter().map(|e| (site.file, e)));
    Ok(HandlerPlan { file: site.file, edits, params })
}

/// Where the arm reads its arguments from.
enum Source {
    /// `request.arguments` (an `Option<JsonObject>`).
    Request(String),
    /// A `JsonObject` bound earlier: `let args = request.arguments.unwrap_or_default();`.
    Object(String),
}

/// `let args: ListArgs = serde_json::from_value(…request.arguments…)?;` in the arm.
struct Binding {
    name: String,
    ty: String,
    stmt: Range<usize>,
}

/// The input schema of the tool, as written in `list_tools`.
enum Schema {
    /// A `json!` object: its file and tree.
    Json(usize, JsonNode),
    /// Derived from a struct by `schema_for!(T)` or `schema_for_type::<T>()`.
    Struct(String),
}

/// Where the new value lives in the rewritten code.
enum Placement {
    /// A field of the arm's argument struct, read in the arm: `args.path`.
    ArmField(String),
    /// A local read from the JSON arguments at the top of the arm: `path`.
    ArmLocal,
    /// A field of the argument struct the method takes: `args.path` in the method.
    MethodField(String),
    /// A new argument of the method; the arm passes `args.path` (the binding's) or its local.
    MethodArg(Option<String>),
}

/// The call of a roots-requesting method in an arm.
struct MethodCall<'a> {
    site: &'a FnSite<'a>,
    args: &'a Punctuated<Expr, syn::Token![,]>,
    /// The argument that passes the context or peer.
    ctx_arg: usize,
    /// The method's context or peer input, and its name.
    ctx_input: usize,
    ctx_name: String,
    range: Range<usize>,
}

struct ArmPlanner<'a> {
    cr: &'a Crate<'a>,
    site: &'a FnSite<'a>,
    /// The handler's statements (inside `async move { … }` for a `fn … -> impl Future`).
    body: &'a syn::Block,
    src: &'a Src<'a>,
    sig: &'a HandlerSig,
    dispatch: &'a syn::ExprMatch,
    arm: &'a syn::Arm,
    job: &'a HandlerJob,
    methods: &'a [&'a FnSite<'a>],
}

impl ArmPlanner<'_> {
    fn plan(&self) -> Result<(FileEdits, NewParam), Refusal> {
        let src = self.src;
        let arm_range = src.range(&self.arm.pat);
        let tool = match &self.arm.pat {
            Pat::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value(),
            _ => {
                return Err(Refusal {
                    range: arm_range,
                    reason: format!(
                        "its arm `{}` requests the roots but is not the arm of one tool named by a string",
                        src.node_text(&self.arm.pat)
                    ),
                });
            }
        };
        self.plan_tool(&tool)
            .map_err(|reason| Refusal { range: arm_range, reason: format!("its arm for the tool `{tool}`: {reason}") })
    }

    fn plan_tool(&self, tool: &str) -> Result<(FileEdits, NewParam), String> {
        let src = self.src;
        let cr = self.cr;
        // The tool's schema in `list_tools`.
        let defs: Vec<&ToolDef> = cr.tools.iter().filter(|t| t.name == tool).collect();
        let def = match defs.as_slice() {
            [d] => *d,
            [] => return Err(format!("no `Tool::new(\"{tool}\", …)` in the crate describes its input schema")),
            _ => return Err(format!("it is described by more than one `Tool::new(\"{tool}\", …)`")),
        };
        let schema = self.schema_of(def)?;
        let binding = self.binding()?;
        // The argument struct: the arm's, or the one the schema is derived from.
        let struct_name = match (&binding, &schema) {
            (Some(b), Schema::Struct(s)) if &b.ty != s => {
                return Err(format!("it parses its arguments into `{}` but its schema is derived from `{s}`", b.ty));
            }
            (Some(b), _) => Some(b.ty.clone()),
            (None, Schema::Struct(s)) => Some(s.clone()),
            (None, Schema::Json(..)) => None,
        };
        let st = match &struct_name {
            Some(name) => Some(self.argument_struct(name, def)?),
            None => None,
        };

        // The lookup: in the arm, or in one method the arm calls with the context.
        let body_tokens = self.arm.body.to_token_stream();
        let inline = tokens_mention(&body_tokens, "list_roots")
            || self.job.helpers.keys().any(|h| tokens_mention(&body_tokens, h));
        let called: Vec<&FnSite> =
            self.methods.iter().copied().filter(|m| tokens_mention(&body_tokens, &m.name())).collect();
        let method = match (inline, called.as_slice()) {
            (true, []) => None,
            (false, [m]) => Some(self.method_call(m)?),
            (true, _) => return Err("it both requests the roots and calls a method that does".into()),
            _ => return Err("it calls more than one method that requests the roots".into()),
        };
        let (rw_edits, need) = match &method {
            None => {
                let mut rw = Rewriter::new(src, &self.job.helpers);
                match &*self.arm.body {
                    Expr::Block(b) => rw.block(&b.block),
                    e => rw.visit_expr(e),
                }
                rw.finish();
                if let Some(r) = rw.refusal {
                    return Err(r.reason);
                }
                (rw.edits, rw.need)
            }
            Some(call) => {
                let msrc = &cr.src(call.site.file);
                match self.job.lazy.as_ref().filter(|l| call.site.mentions(&l.via)) {
                    // A method reading a cell filled on first use through its `ensure_*` method.
                    Some(lazy) => {
                        let (edits, need) = super::cache::rewrite_reader(msrc, call.site, lazy)
                            .map_err(|r| format!("the method `{}`: {}", call.site.name(), r.reason))?;
                        (edits, Some(need))
                    }
                    None => {
                        let mut rw = Rewriter::new(msrc, &self.job.helpers);
                        rw.fn_body(call.site.block);
                        rw.finish();
                        if let Some(r) = rw.refusal {
                            return Err(format!("the method `{}`: {}", call.site.name(), r.reason));
                        }
                        (rw.edits, rw.need)
                    }
                }
            }
        };
        let need = need.ok_or("it does not derive a directory from the roots")?;

        // Where the value goes.
        let placement = match (&method, &binding) {
            (None, Some(b)) => {
                let first = rw_edits.iter().map(|e| e.byte_range.start).min().unwrap_or(usize::MAX);
                if b.stmt.end > first {
                    return Err("it parses its arguments after it requests the roots".into());
                }
                Placement::ArmField(b.name.clone())
            }
            (None, None) => Placement::ArmLocal,
            (Some(call), _) => match struct_name.as_deref().and_then(|s| struct_input(call.site, s)) {
                Some(p) => Placement::MethodField(p),
                None => {
                    if let Some(b) = &binding
                        && bare_use(&self.arm.body, &b.name)
                    {
                        return Err(format!(
                            "it uses `{}` as a whole, so a field of it cannot be passed to `{}`",
                            b.name,
                            call.site.name()
                        ));
                    }
                    Placement::MethodArg(binding.as_ref().map(|b| b.name.clone()))
                }
            },
        };

        // The name: free in the struct and the schema, and, for a new local or argument, in the
        // code it lives in.
        let mut taken: Vec<String> = Vec::new();
        if let Some((file, item)) = &st {
            let syn::Fields::Named(named) = &item.fields else { unreachable!() };
            taken.extend(named.named.iter().filter_map(|f| f.ident.as_ref().map(|i| i.to_string())));
            let attrs = cr.src(*file).node_text(*item).to_owned();
            taken.extend(
                PLURAL.iter().chain(SINGULAR).filter(|c| attrs.contains(&format!("\"{c}\""))).map(|c| c.to_string()),
            );
        }
        if let Schema::Json(_, node) = &schema {
            let props = node.get("properties");
            taken.extend(
                props.map(|p| p.members().iter().map(|m| m.key.clone()).collect::<Vec<_>>()).unwrap_or_default(),
            );
        }
        let arm_text = src.node_text(&*self.arm.body);
        let needs_local = matches!(placement, Placement::ArmLocal | Placement::MethodArg(None));
        let method_text = method.as_ref().map(|c| cr.src(c.site.file).slice(c.site.range.clone()).to_owned());
        let candidates = if need == Need::All { PLURAL } else { SINGULAR };
        let field = candidates
            .iter()
            .find(|c| {
                let in_struct_or_schema = taken.iter().any(|t| t == *c);
                let in_arm = needs_local && mentions_ident(arm_text, c);
                let in_method = matches!(placement, Placement::MethodArg(_))
                    && method_text.as_deref().is_some_and(|t| mentions_ident(t, c));
                !(in_struct_or_schema || in_arm || in_method)
            })
            .ok_or("every name the codemod would give the argument is taken")?
            .to_string();
        let param = NewParam {
            tool: tool.to_owned(),
            name: field.clone(),
            need,
            description: description(need),
            created: None,
        };
        let ty = param.rust_type();

        let mut edits: FileEdits = Vec::new();
        // The schema: the struct's new field (schemars derives the property) and the `json!` object's.
        if let Some((file, item)) = &st {
            let e = add_field(&cr.src(*file), item, &field, ty, param.description).map_err(|r| r.reason)?;
            edits.push((*file, e));
        }
        if let Schema::Json(file, node) = &schema {
            let value = json_property(need, param.description);
            let e = add_property(&cr.texts[*file], node, &field, &value, param.required(), "    ")
                .map_err(|why| format!("its `json!` schema: {why}"))?;
            edits.extend(e.into_iter().map(|e| (*file, e)));
        }

        // The code.
        let place = match &placement {
            Placement::ArmField(b) | Placement::MethodField(b) => format!("{b}.{field}"),
            Placement::ArmLocal | Placement::MethodArg(_) => field.clone(),
        };
        let body_edits: Vec<Edit> =
            rw_edits.into_iter().map(|e| Edit::replace(e.byte_range, e.replacement.replace(PARAM, &place))).collect();
        let mut arm_edits: Vec<Edit> = Vec::new();
        match &method {
            None => arm_edits.extend(body_edits),
            Some(call) => {
                let msrc = cr.src(call.site.file);
                let mut medits = body_edits;
                let new_body = render(msrc.text, msrc.range(call.site.block), &medits);
                let ctx_kept = mentions_ident(&new_body, &call.ctx_name);
                let ctx_input_range = msrc.range(&call.site.sig.inputs[call.ctx_input]);
                let ctx_arg_range = src.range(&call.args[call.ctx_arg]);
                match &placement {
                    Placement::MethodField(_) => {
                        if !ctx_kept {
                            medits.push(Edit::delete(arg_deletion(&msrc, call.site, call.ctx_input)));
                            arm_edits.push(Edit::delete(call_arg_deletion(src, call.args, call.ctx_arg)));
                        }
                    }
                    Placement::MethodArg(b) => {
                        let input = format!("{field}: {ty}");
                        let value = match b {
                            Some(b) => format!("{b}.{field}"),
                            None => field.clone(),
                        };
                        if ctx_kept {
                            medits.push(append_input(&msrc, call.site, &input));
                            arm_edits.push(append_call_arg(src, call, &value));
                        } else {
                            medits.push(Edit::replace(ctx_input_range, input));
                            arm_edits.push(Edit::replace(ctx_arg_range, value));
                        }
                    }
                    _ => unreachable!(),
                }
                medits.extend(allow_deprecated_edits(&msrc, call.site.attrs, &new_body));
                edits.extend(medits.into_iter().map(|e| (call.site.file, e)));
            }
        }
        // A local read from the JSON arguments goes first in the arm, before what needs it.
        if needs_local {
            let anchor = match &method {
                Some(call) => call.range.start,
                None => arm_edits.iter().map(|e| e.byte_range.start).min().unwrap_or(src.range(&*self.arm.body).start),
            };
            let source = self.source(anchor)?;
            arm_edits =
                self.with_local(arm_edits, anchor, &field, &read_text(&source, &field, need, &self.sig.error))?;
        }
        edits.extend(arm_edits.into_iter().map(|e| (self.site.file, e)));
        Ok((edits, param))
    }

    /// The tool's input schema: one `json!` object, or one struct's derived schema.
    fn schema_of(&self, def: &ToolDef) -> Result<Schema, String> {
        struct Find {
            jsons: Vec<syn::Macro>,
            structs: Vec<String>,
        }
        impl<'ast> Visit<'ast> for Find {
            fn visit_macro(&mut self, mac: &'ast syn::Macro) {
                let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                if name == "json" {
                    self.jsons.push(mac.clone());
                } else if name == "schema_for" {
                    if let Ok(t) = syn::parse2::<syn::Type>(mac.tokens.clone()) {
                        self.structs.extend(type_last_ident(&t));
                    }
                } else if let Some(args) = macro_exprs(mac) {
                    args.iter().for_each(|a| self.visit_expr(a));
                }
            }
            fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
                // `schema_for_type::<T>()`, `cached_schema_for_type::<T>()`.
                if seg.ident.to_string().contains("schema_for")
                    && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
                    && let [syn::GenericArgument::Type(t)] = a.args.iter().collect::<Vec<_>>().as_slice()
                {
                    self.structs.extend(type_last_ident(t));
                }
                visit::visit_path_segment(self, seg);
            }
        }
        let mut find = Find { jsons: Vec::new(), structs: Vec::new() };
        find.visit_expr(&def.schema);
        match (find.jsons.as_slice(), find.structs.as_slice()) {
            ([mac], []) => {
                let node = crate::json::macro_body::parse_json_macro(
                    mac.tokens.clone(),
                    &crate::json::macro_body::shifted(self.cr.bases[def.file]),
                )
                .filter(JsonNode::is_object)
                .ok_or("its `json!` schema is not an object written out")?;
                Ok(Schema::Json(def.file, node))
            }
            ([], [s]) => Ok(Schema::Struct(s.clone())),
            _ => {
                Err("its input schema is neither one `json!` object nor derived from one struct with `schema_for!`"
                    .into())
            }
        }
    }

    /// The struct the arguments are parsed into, checked: defined once, with named fields, and used
    /// by no other tool (which would get the field too).
    fn argument_struct(&self, name: &str, def: &ToolDef) -> Result<(usize, &syn::ItemStruct), String> {
        let found = self.cr.index.structs_named(name);
        let [st] = found.as_slice() else {
            return Err(format!(
                "its argument struct `{name}` is {} in this crate",
                if found.is_empty() { "not defined" } else { "defined more than once" }
            ));
        };
        if !matches!(st.item.fields, syn::Fields::Named(_)) {
            return Err(format!("its argument struct `{name}` has no named fields"));
        }
        let in_other_arm = self
            .dispatch
            .arms
            .iter()
            .filter(|a| !std::ptr::eq(*a, self.arm))
            .any(|a| tokens_mention(&a.body.to_token_stream(), name));
        let in_other_tool = self
            .cr
            .tools
            .iter()
            .filter(|t| !std::ptr::eq(*t, def))
            .any(|t| tokens_mention(&t.schema.to_token_stream(), name));
        if in_other_arm || in_other_tool {
            return Err(format!(
                "its argument struct `{name}` is shared with another tool, which would get the new field too"
            ));
        }
        Ok((st.file, st.item))
    }

    /// `let args: Args = serde_json::from_value(…request.arguments…)?;` among the arm's statements
    /// (or from a `JsonObject` bound earlier).
    fn binding(&self) -> Result<Option<Binding>, String> {
        let Expr::Block(b) = &*self.arm.body else { return Ok(None) };
        for stmt in &b.block.stmts {
            let Stmt::Local(l) = stmt else { continue };
            let Some(init) = &l.init else { continue };
            let tokens = init.expr.to_token_stream();
            let reads_request = tokens_mention(&tokens, "arguments") && tokens_mention(&tokens, &self.sig.request);
            let start = self.src.range(stmt).start;
            let reads_object = self.object_locals(start).iter().any(|(o, _)| tokens_mention(&tokens, o));
            if !(reads_request || reads_object) || self.object_source(&init.expr) {
                continue;
            }
            let (name, annotated) = match &l.pat {
                Pat::Ident(p) => (p.ident.to_string(), None),
                Pat::Type(t) => match &*t.pat {
                    Pat::Ident(p) => (p.ident.to_string(), type_last_ident(&t.ty)),
                    _ => return Err("it destructures its parsed arguments".into()),
                },
                _ => continue,
            };
            let ty = annotated.or_else(|| turbofish_type(&init.expr));
            let ty = ty.filter(|t| self.cr.index.structs_named(t).len() == 1);
            match ty {
                Some(ty) => return Ok(Some(Binding { name, ty, stmt: self.src.range(stmt) })),
                None if tokens_mention(&tokens, "from_value") => {
                    return Err(format!("it parses its arguments into `{name}`, of a type the codemod cannot name"));
                }
                None => {}
            }
        }
        Ok(None)
    }

    /// `request.arguments[.clone()].unwrap_or_default()` (or `unwrap_or_else(…)`): a `JsonObject`.
    fn object_source(&self, e: &Expr) -> bool {
        let Expr::MethodCall(m) = e else { return false };
        if !matches!(m.method.to_string().as_str(), "unwrap_or_default" | "unwrap_or_else" | "unwrap_or") {
            return false;
        }
        let recv = match &*m.receiver {
            Expr::MethodCall(c) if c.method == "clone" && c.args.is_empty() => &*c.receiver,
            other => other,
        };
        matches!(recv, Expr::Field(f) if matches!(&f.member, syn::Member::Named(i) if i == "arguments")
            && ident_of(&f.base).as_deref() == Some(self.sig.request.as_str()))
    }

    /// The statements on the arm's path before `until`: the handler's before the `match`, then the
    /// arm's own.
    fn stmts_before(&self, until: usize) -> Vec<&Stmt> {
        let src = self.src;
        let dispatch_start = src.range(self.dispatch).start;
        let mut stmts: Vec<&Stmt> = self.body.stmts.iter().filter(|s| src.range(*s).end <= dispatch_start).collect();
        if let Expr::Block(b) = &*self.arm.body {
            stmts.extend(b.block.stmts.iter().filter(|s| src.range(*s).end <= until));
        }
        stmts
    }

    /// `JsonObject`s bound from the request's arguments before `until`, last first.
    fn object_locals(&self, until: usize) -> Vec<(String, Range<usize>)> {
        let mut out: Vec<(String, Range<usize>)> = self
            .stmts_before(until)
            .into_iter()
            .filter_map(|stmt| match stmt {
                Stmt::Local(l) => match (&l.pat, &l.init) {
                    (Pat::Ident(p), Some(init)) if self.object_source(&init.expr) => {
                        Some((p.ident.to_string(), self.src.range(stmt)))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        out.reverse();
        out
    }

    /// Where the arm can read the JSON arguments at `anchor`: a `JsonObject` bound before it (in
    /// the arm or before the `match`), else `request.arguments`, whichever nothing moved before.
    fn source(&self, anchor: usize) -> Result<Source, String> {
        let src = self.src;
        let dispatch_start = src.range(self.dispatch).start;
        let arm_body = src.range(&*self.arm.body);
        let in_path = |r: &Range<usize>| r.end <= dispatch_start || (r.start >= arm_body.start && r.end <= anchor);
        for (name, stmt) in self.object_locals(anchor) {
            let mut uses = Uses::new(src, &name, None);
            uses.visit_block(self.body);
            if !uses.moved(|r| r.start >= stmt.end && in_path(r)) {
                return Ok(Source::Object(name));
            }
        }
        let mut uses = Uses::new(src, &self.sig.request, Some("arguments"));
        uses.visit_block(self.body);
        if uses.moved(in_path) {
            return Err(format!(
                "`{}.arguments` is moved before the new argument would be read from it",
                self.sig.request
            ));
        }
        Ok(Source::Request(self.sig.request.clone()))
    }

    /// The arm's edits with `let FIELD = READ;` placed before the statement at `anchor` (a body that
    /// is no block becomes one).
    fn with_local(&self, edits: Vec<Edit>, anchor: usize, field: &str, read: &str) -> Result<Vec<Edit>, String> {
        let src = self.src;
        let text = src.text;
        if let Expr::Block(b) = &*self.arm.body
            && b.label.is_none()
            && b.attrs.is_empty()
        {
            let stmt = b
                .block
                .stmts
                .iter()
                .map(|s| src.range(s))
                .find(|r| r.end > anchor)
                .ok_or("the codemod cannot tell where in the arm to read the argument")?;
            let start = line_start(text, stmt.start);
            let mut out = edits;
            if text[start..stmt.start].trim().is_empty() {
                let indent = indent_at(text, stmt.start);
                out.push(Edit::replace(
                    start..start,
                    format!("{indent}let {field} = {};\n", indent_read(read, indent)),
                ));
            } else {
                out.push(Edit::replace(stmt.start..stmt.start, format!("let {field} = {}; ", read.replace('\n', " "))));
            }
            return Ok(out);
        }
        // `"tool" => expr,` becomes `"tool" => { let FIELD = READ; expr }` (without the comma).
        let mut body = src.range(&*self.arm.body);
        if let Some(comma) = &self.arm.comma {
            body.end = src.range(comma).end;
        }
        let indent = indent_at(text, src.range(&self.arm.pat).start).to_owned();
        let inner = format!("{indent}    ");
        let rendered = render(text, src.range(&*self.arm.body), &edits).replace('\n', "\n    ");
        Ok(vec![Edit::replace(
            body,
            format!("{{\n{inner}let {field} = {};\n{inner}{rendered}\n{indent}}}", indent_read(read, &inner)),
        )])
    }

    /// The call of `method` in the arm, with the argument that passes the context or peer.
    fn method_call<'m>(&'m self, method: &'m FnSite<'m>) -> Result<MethodCall<'m>, String> {
        let name = method.name();
        if count_ident(&self.site.block.to_token_stream(), &name) != 1 {
            return Err(format!("`{name}` is named more than once in `call_tool`"));
        }
        struct Find<'a, 'n> {
            name: &'n str,
            found: Option<(&'a Punctuated<Expr, syn::Token![,]>, bool, &'a Expr)>,
        }
        impl<'a> Visit<'a> for Find<'a, '_> {
            fn visit_expr(&mut self, e: &'a Expr) {
                match e {
                    Expr::MethodCall(m)
                        if m.method == self.name && ident_of(&m.receiver).as_deref() == Some("self") =>
                    {
                        self.found = Some((&m.args, true, e));
                    }
                    Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == self.name)) =>
                    {
                        self.found = Some((&c.args, false, e));
                    }
                    _ => {}
                }
                visit::visit_expr(self, e);
            }
        }
        let mut find = Find { name: &name, found: None };
        find.visit_expr(&self.arm.body);
        let (args, is_method_call, call) = find.found.ok_or_else(|| format!("it names `{name}` without calling it"))?;
        let ctx = self.sig.context.as_ref().map(|(_, n)| n.as_str()).ok_or("`call_tool` has no context argument")?;
        let passing: Vec<usize> =
            (0..args.len()).filter(|i| tokens_mention(&args[*i].to_token_stream(), ctx)).collect();
        let [ctx_arg] = passing.as_slice() else {
            return Err(format!("it does not pass `{ctx}` to `{name}` as exactly one argument"));
        };
        let offset = usize::from(is_method_call && method.sig.receiver().is_some());
        let ctx_input = ctx_arg + offset;
        let ctx_name = match method.sig.inputs.iter().nth(ctx_input) {
            Some(FnArg::Typed(pt))
                if matches!(type_last_ident(&pt.ty).as_deref(), Some("RequestContext" | "Peer"))
                    && matches!(&*pt.pat, Pat::Ident(_)) =>
            {
                let Pat::Ident(p) = &*pt.pat else { unreachable!() };
                p.ident.to_string()
            }
            _ => return Err(format!("`{name}` does not take the context or peer as a plain argument")),
        };
        Ok(MethodCall { site: method, args, ctx_arg: *ctx_arg, ctx_input, ctx_name, range: self.src.range(call) })
    }
}

/// A method's input of the argument struct's type (`args: ListArgs`, `args: &ListArgs`): its name.
fn struct_input(site: &FnSite, name: &str) -> Option<String> {
    site.sig.inputs.iter().find_map(|a| match a {
        FnArg::Typed(pt) if type_last_ident(&pt.ty).as_deref() == Some(name) => match &*pt.pat {
            Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.to_string()),
            _ => None,
        },
        _ => None,
    })
}

/// The type of the first turbofish in `e` that names one type (`from_value::<Args>(…)`).
fn turbofish_type(e: &Expr) -> Option<String> {
    struct Find(Option<String>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
            if self.0.is_none()
                && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
                && let [syn::GenericArgument::Type(t)] = a.args.iter().collect::<Vec<_>>().as_slice()
            {
                self.0 = type_last_ident(t);
            }
            visit::visit_path_segment(self, seg);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if self.0.is_none()
                && let Some(t) = &m.turbofish
                && let [syn::GenericArgument::Type(t)] = t.args.iter().collect::<Vec<_>>().as_slice()
            {
                self.0 = type_last_ident(t);
            }
            visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find(None);
    find.visit_expr(e);
    find.0
}

/// Whether `name` is used other than as the base of a field access (`args` rather than `args.x`).
fn bare_use(e: &Expr, name: &str) -> bool {
    struct Find<'a>(&'a str, bool);
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
            if ident_of(&f.base).as_deref() != Some(self.0) {
                visit::visit_expr_field(self, f);
            }
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.path.is_ident(self.0) {
                self.1 = true;
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if tokens_mention(&mac.tokens, self.0) {
                self.1 = true;
            }
        }
    }
    let mut find = Find(name, false);
    find.visit_expr(e);
    find.1
}

/// Uses of the JSON arguments in the handler: of `request.arguments` (or of a local `JsonObject`),
/// those that only borrow them, and uses of `request` as a whole.
struct Uses<'a> {
    src: &'a Src<'a>,
    base: &'a str,
    /// `Some("arguments")` for `request.arguments`, `None` for a local.
    field: Option<&'a str>,
    targets: Vec<Range<usize>>,
    borrowed: Vec<Range<usize>>,
    whole: Vec<Range<usize>>,
}

impl<'a> Uses<'a> {
    fn new(src: &'a Src<'a>, base: &'a str, field: Option<&'a str>) -> Self {
        Uses { src, base, field, targets: Vec::new(), borrowed: Vec::new(), whole: Vec::new() }
    }

    fn target(&self, e: &Expr) -> Option<Range<usize>> {
        match (e, self.field) {
            (Expr::Field(f), Some(field))
                if matches!(&f.member, syn::Member::Named(i) if i == field)
                    && ident_of(&f.base).as_deref() == Some(self.base) =>
            {
                Some(self.src.range(e))
            }
            (Expr::Path(p), None) if p.path.is_ident(self.base) => Some(self.src.range(e)),
            (Expr::Paren(p), _) => self.target(&p.expr),
            _ => None,
        }
    }

    /// Whether a use in `range` may move the arguments.
    fn moved(&self, within: impl Fn(&Range<usize>) -> bool) -> bool {
        self.targets.iter().any(|r| within(r) && !self.borrowed.contains(r)) || self.whole.iter().any(within)
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let borrows = matches!(
            m.method.to_string().as_str(),
            "as_ref"
                | "as_deref"
                | "as_mut"
                | "is_some"
                | "is_none"
                | "clone"
                | "iter"
                | "get"
                | "contains_key"
                | "len"
        );
        if borrows && let Some(r) = self.target(&m.receiver) {
            self.borrowed.push(r);
        }
        visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        if let Some(range) = self.target(&r.expr) {
            self.borrowed.push(range);
        }
        visit::visit_expr_reference(self, r);
    }
    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if let Some(field) = self.field
            && ident_of(&f.base).as_deref() == Some(self.base)
        {
            if matches!(&f.member, syn::Member::Named(i) if i == field) {
                self.targets.push(self.src.range(f));
            }
            return;
        }
        visit::visit_expr_field(self, f);
    }
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.path.is_ident(self.base) {
            let range = self.src.range(p);
            if self.field.is_some() { self.whole.push(range) } else { self.targets.push(range) }
        }
    }
}

/// The text that reads the new argument from the JSON arguments, one link per line (indented by
/// `indent_read`), failing with `invalid_params` when a required one is missing.
fn read_text(source: &Source, field: &str, need: Need, error: &str) -> String {
    let mut links: Vec<String> = match source {
        Source::Request(r) => {
            vec![r.clone(), ".arguments".into(), ".as_ref()".into(), format!(".and_then(|a| a.get(\"{field}\"))")]
        }
        Source::Object(o) => vec![o.clone(), format!(".get(\"{field}\")")],
    };
    match need {
        Need::First | Need::FirstOptional => {
            links.push(".and_then(|v| v.as_str())".into());
            links.push(".map(str::to_owned)".into());
        }
        Need::All => {
            links.push(".and_then(|v| v.as_array())".into());
            links.push(
                ".and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>())".into(),
            );
        }
    }
    let what = match need {
        Need::All => {
            format!("missing `{field}`: the absolute paths of the directories to work in, as an array of strings")
        }
        _ => format!("missing `{field}`: the absolute path of the directory to work in"),
    };
    if need != Need::FirstOptional {
        links.push(format!(".ok_or_else(|| {error}::invalid_params(\"{what}\", None))?"));
    }
    links.join("\n")
}

/// `read_text`'s links, each after the first on its own line under `indent`.
fn indent_read(read: &str, indent: &str) -> String {
    read.replace('\n', &format!("\n{indent}    "))
}

/// The property a `json!` schema gets, as JSON text (type first, as people write it).
fn json_property(need: Need, description: &str) -> String {
    let d = serde_json::Value::String(description.to_owned());
    match need {
        Need::All => format!("{{\"type\": \"array\", \"items\": {{\"type\": \"string\"}}, \"description\": {d}}}"),
        _ => format!("{{\"type\": \"string\", \"description\": {d}}}"),
    }
}

/// The range that removes call argument `i` with one comma.
fn call_arg_deletion(src: &Src, args: &Punctuated<Expr, syn::Token![,]>, i: usize) -> Range<usize> {
    let pairs: Vec<_> = args.pairs().collect();
    let arg = src.range(pairs[i].value());
    if let Some(p) = pairs[i].punct() {
        let after = src.range(p).end;
        let next = pairs.get(i + 1).map_or(after, |n| src.range(n.value()).start);
        return arg.start..next;
    }
    if i > 0 {
        return src.range(pairs[i - 1].value()).end..arg.end;
    }
    arg
}

/// Appends an input to a function's signature.
fn append_input(src: &Src, site: &FnSite, input: &str) -> Edit {
    match site.sig.inputs.last() {
        Some(last) => {
            let at = src.range(last).end;
            Edit::replace(at..at, format!(", {input}"))
        }
        None => {
            let at = src.span(site.sig.paren_token.span.open()).end;
            Edit::replace(at..at, input.to_owned())
        }
    }
}

/// Appends an argument to the method call.
fn append_call_arg(src: &Src, call: &MethodCall, value: &str) -> Edit {
    match call.args.last() {
        Some(last) => {
            let at = src.range(last).end;
            Edit::replace(at..at, format!(", {value}"))
        }
        None => Edit::replace(call.range.end - 1..call.range.end - 1, value.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_typed_by_need() {
        let one = read_text(&Source::Request("request".into()), "path", Need::First, "McpError");
        assert!(one.starts_with("request\n.arguments\n.as_ref()\n.and_then(|a| a.get(\"path\"))"), "{one}");
        assert!(one.ends_with(
            "McpError::invalid_params(\"missing `path`: the absolute path of the directory to work in\", None))?"
        ));
        let optional = read_text(&Source::Object("args".into()), "path", Need::FirstOptional, "E");
        assert_eq!(optional, "args\n.get(\"path\")\n.and_then(|v| v.as_str())\n.map(str::to_owned)");
        let all = read_text(&Source::Object("args".into()), "paths", Need::All, "E");
        assert!(all.contains("collect::<Option<Vec<_>>>()"), "{all}");
        assert_eq!(json_property(Need::First, "D."), "{\"type\": \"string\", \"description\": \"D.\"}");
    }

    #[test]
    fn the_error_type_is_read_from_async_and_desugared_signatures() {
        let error = |sig: &str| {
            let f: syn::ItemFn = syn::parse_str(&format!("{sig} {{}}")).unwrap();
            match &f.sig.output {
                syn::ReturnType::Type(_, t) => error_type(t).map(|e| e.to_token_stream().to_string()),
                syn::ReturnType::Default => None,
            }
        };
        assert_eq!(error("async fn f() -> Result<CallToolResponse, McpError>").as_deref(), Some("McpError"));
        assert_eq!(
            error("fn f() -> impl Future<Output = Result<CallToolResult, rmcp::ErrorData>> + Send + '_").as_deref(),
            Some("rmcp :: ErrorData")
        );
        assert_eq!(error("async fn f() -> anyhow::Result<CallToolResult>"), None);
    }

    #[test]
    fn the_dispatch_is_a_match_on_the_request_name() {
        let block = |body: &str| syn::parse_str::<syn::Block>(body).unwrap();
        let found = |b: &syn::Block| find_dispatch(handler_body(b), "request").len();
        assert_eq!(found(&block("{ match request.name.as_ref() { \"a\" => 1, _ => 2 } }")), 1);
        assert_eq!(found(&block("{ let r = match &*request.name { _ => 2 }; r }")), 1);
        assert_eq!(found(&block("{ async move { match &request.name[..] { _ => 2 } } }")), 1);
        // Not inside a closure or a spawned task, where `?` would not return from the handler.
        assert_eq!(found(&block("{ let f = || match request.name.as_ref() { _ => 2 }; f() }")), 0);
        assert_eq!(found(&block("{ tokio::spawn(async move { match request.name.as_ref() { _ => 2 } }); }")), 0);
        assert_eq!(found(&block("{ match other.name.as_ref() { _ => 2 } }")), 0);
    }
}
