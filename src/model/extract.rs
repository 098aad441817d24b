//! One walk over a parsed file that keeps what the crate model needs (`FileFacts`), on the worker
//! that parsed it, while the tree and its spans exist. Macro bodies are read as the visitor reads
//! them (`Cx::macro_body`, parsed once per file).

use foldhash::{HashMap, HashMapExt};
use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Expr, Member};

use super::{
    ArmFact, CallFact, Callee, ConstArm, FieldAccess, FileFacts, FnFact, GlobalFact, GlobalKind, ImplFact,
    LiteralFields, Origins, Param, Root, TypeFact, TypeKind, UseFact, WriteOp, handlers, requests, state, within,
};
use crate::context::Role;
use crate::cx::Cx;
use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{has_attr, is_self, sig_mentions};

/// Fields of what a client declared in `initialize` (rmcp's `InitializeRequestParams`) and JSON keys
/// of the same data.
pub(super) const CLIENT_FIELDS: &[&str] = &["capabilities", "client_info", "protocol_version"];
const CLIENT_KEYS: &[&str] = &["capabilities", "clientInfo", "protocolVersion"];

/// Methods that put a value into their receiver (`OnceCell::set`, `Option::replace`,
/// `HashMap::insert`, `watch::Sender::send`, …): a call on a `self` place writes it.
const STORE_METHODS: &[&str] =
    &["set", "replace", "insert", "store", "push", "send", "send_replace", "get_or_init", "swap", "extend"];

/// Impl attributes that make an impl server code.
const SERVER_IMPL_ATTRS: &[&str] = &["tool_router", "tool_handler", "prompt_router", "prompt_handler"];

/// `roots_in_crate`: whether some file of the crate has roots words (`roots::ROOTS_WORDS`). Where
/// none has, no list of the crate is the client's roots, so no function's roots facts are kept
/// (their walk is a large part of the facts' cost). `retries_in_crate`: whether some file of the
/// crate has MRTR words (`rust::mrtr_mentions::MRTR_WORDS`); where none has, no function's
/// `retries` facts are kept.
pub fn file_facts(
    cx: &Cx,
    file: &syn::File,
    module: Vec<String>,
    roots_in_crate: bool,
    retries_in_crate: bool,
) -> FileFacts {
    let state = super::request_state::file_state(cx);
    let out = FileFacts { module: module.clone(), role: cx.file_role, ..Default::default() };
    let roots = roots_in_crate.then(|| (super::roots::file_fields_seen(cx, file), super::roots::file_evidence(cx)));
    let retries = retries_in_crate.then(|| super::retries::FileGate::of(cx));
    let sends = super::senders::file_gate(cx);
    let gates = super::init_gates::file_gate(cx);
    // The same gate as the roots facts, whose cuts they are.
    let scheme_consts = if roots.is_some() { super::uri_cuts::SchemeConsts::seen(cx, file) } else { Vec::new() };
    let mut e = Extract { cx, out, state, roots, retries, sends, gates, scheme_consts };
    e.items(&file.items, &module);
    e.out
}

struct Extract<'c, 'a> {
    cx: &'c Cx<'a>,
    out: FileFacts,
    /// What `request_state::value_facts` needs of the file, when it mentions `requestState`.
    state: Option<super::request_state::FileState>,
    /// The file's `self` fields that hold roots, and whether it has roots words (`roots`); `None`
    /// where no file of the crate has roots words.
    roots: Option<(Vec<(String, super::flow::Elem)>, bool)>,
    /// Where some file of the crate has MRTR words: what `retries::fn_facts` needs of this file.
    retries: Option<super::retries::FileGate>,
    /// The file has the words of a server-sent request (`senders::file_gate`).
    sends: bool,
    /// The file has the words of a handshake gate (`init_gates::file_gate`).
    gates: bool,
    /// The file's consts that hold a `file://` scheme (`uri_cuts::SchemeConsts`).
    scheme_consts: Vec<String>,
}

/// The impl around a method: its index and role.
type ImplScope = Option<(usize, Role)>;

impl Extract<'_, '_> {
    fn items(&mut self, items: &[syn::Item], module: &[String]) {
        for item in items {
            self.item(item, module);
        }
    }

    fn item(&mut self, item: &syn::Item, module: &[String]) {
        match item {
            syn::Item::Struct(s) => {
                let fields = s
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.ident.as_ref().map_or_else(|| i.to_string(), |n| n.to_string()), type_text(&f.ty)))
                    .collect();
                let name = s.ident.to_string();
                if !s.generics.params.is_empty() {
                    let generics = super::delegation::bounds(&s.generics);
                    self.out.delegation.struct_generics.push((self.out.types.len(), generics));
                }
                self.out.types.push(TypeFact { module: module.to_vec(), name, kind: TypeKind::Struct, fields });
            }
            syn::Item::Enum(en) => {
                let mut fields = Vec::new();
                for v in &en.variants {
                    for (i, f) in v.fields.iter().enumerate() {
                        let field = f.ident.as_ref().map_or_else(|| i.to_string(), |n| n.to_string());
                        fields.push((format!("{}::{field}", v.ident), type_text(&f.ty)));
                    }
                }
                let name = en.ident.to_string();
                self.out.types.push(TypeFact { module: module.to_vec(), name, kind: TypeKind::Enum, fields });
            }
            syn::Item::Static(s) => self.global(module, &s.ident, &s.ty, GlobalKind::Static, None),
            syn::Item::Const(c) => {
                let method = super::uri_cuts::lit_str(&c.expr)
                    .filter(|v| handlers::is_mcp_method(v))
                    .map(|v| (v, self.cx.node_range(&*c.expr)));
                self.global(module, &c.ident, &c.ty, GlobalKind::Const, method)
            }
            syn::Item::Macro(m) => {
                let name = m.mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                if name == "lazy_static" || name == "thread_local" {
                    self.lazy_globals(module, &m.mac.tokens);
                }
            }
            syn::Item::Mod(m) => {
                let inner = [module, &[m.ident.to_string()]].concat();
                self.out.modules.push(inner.clone());
                if let Some((_, items)) = &m.content {
                    self.items(items, &inner);
                }
            }
            syn::Item::Use(u) => use_tree(&u.tree, module, &mut Vec::new(), &mut self.out.uses),
            syn::Item::Trait(t) => {
                let index = self.out.delegation.traits.len();
                self.out.delegation.traits.push(super::delegation::trait_fact(self.cx, t, module));
                // Default methods, where a request may be sent (`senders`), apart from the model's
                // functions.
                let gate = self.sends;
                for it in t.items.iter().filter(|_| gate) {
                    if let syn::TraitItem::Fn(f) = it
                        && let Some(body) = &f.default
                    {
                        let at = self.out.fns.len();
                        let range = self.cx.join(f.sig.fn_token.span, body.brace_token.span.close());
                        self.func(&f.attrs, &f.sig, body, range, module, None);
                        let fact = self.out.fns.remove(at);
                        self.out.traits.defaults.push((index, fact));
                    }
                }
            }
            syn::Item::Type(t) => {
                let ty = type_text(&t.ty);
                if ty.contains("dyn ") {
                    self.out.traits.aliases.push((module.to_vec(), t.ident.to_string(), ty));
                }
            }
            syn::Item::Impl(i) => {
                let trait_ = i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
                let trait_path = i
                    .trait_
                    .as_ref()
                    .map_or_else(Vec::new, |(_, p, _)| p.segments.iter().map(|s| s.ident.to_string()).collect());
                let role = match trait_.as_deref() {
                    Some(t) if t.starts_with("ServerHandler") => Role::Server,
                    Some(t) if t.starts_with("ClientHandler") => Role::Client,
                    _ if SERVER_IMPL_ATTRS.iter().any(|a| has_attr(&i.attrs, a)) => Role::Server,
                    _ => Role::Unknown,
                };
                let self_ty = match &*i.self_ty {
                    syn::Type::Path(p) => p.path.segments.iter().map(|s| s.ident.to_string()).collect(),
                    other => vec![type_text(other)],
                };
                let index = self.out.impls.len();
                let attrs = i
                    .attrs
                    .iter()
                    .filter_map(|a| a.path().segments.last().map(|s| (s.ident.to_string(), a)))
                    .filter(|(n, _)| SERVER_IMPL_ATTRS.contains(&n.as_str()))
                    .map(|(n, a)| (n, self.cx.node_range(a)))
                    .collect();
                let has_trait = !trait_path.is_empty();
                self.out.impls.push(ImplFact { module: module.to_vec(), trait_, trait_path, role, self_ty, attrs });
                self.out.delegation.impls.extend(super::delegation::impl_trait(i, index));
                for it in &i.items {
                    match it {
                        syn::ImplItem::Fn(f) => {
                            let range = self.cx.join(f.sig.fn_token.span, f.block.brace_token.span.close());
                            self.func(&f.attrs, &f.sig, &f.block, range, module, Some((index, role)));
                        }
                        // `const COMMAND: &str = "initialize";` (`senders::trait_const_methods`).
                        syn::ImplItem::Const(c) if has_trait => {
                            if let Some((value, range)) = crate::rust::syntax::str_value(self.cx, &c.expr)
                                && handlers::is_mcp_method(&value)
                            {
                                let (impl_, name) = (index, c.ident.to_string());
                                self.out.traits.consts.push(super::senders::ImplConst { impl_, name, value, range });
                            }
                        }
                        _ => {}
                    }
                }
            }
            syn::Item::Fn(f) => {
                let range = self.cx.join(f.sig.fn_token.span, f.block.brace_token.span.close());
                self.func(&f.attrs, &f.sig, &f.block, range, module, None);
            }
            _ => {}
        }
        if let Some(gate) = self.retries {
            super::retries::loose_fns(self.cx, item, gate, &mut self.out.retry_defaults);
        }
    }

    fn global(
        &mut self,
        module: &[String],
        name: &syn::Ident,
        ty: &syn::Type,
        kind: GlobalKind,
        method: Option<(String, std::ops::Range<usize>)>,
    ) {
        let ty = type_text(ty);
        let lazy = ["OnceCell", "OnceLock", "Lazy", "LazyLock", "LazyCell"].iter().any(|w| ty.contains(w));
        let kind = if lazy { GlobalKind::LazyInit } else { kind };
        self.out.globals.push(GlobalFact { module: module.to_vec(), name: name.to_string(), ty, kind, method });
    }

    /// `static ref NAME: Ty = …;` (`lazy_static!`) and `static NAME: Ty = …;` (`thread_local!`).
    fn lazy_globals(&mut self, module: &[String], tokens: &proc_macro2::TokenStream) {
        let tokens: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
        for (i, t) in tokens.iter().enumerate() {
            let proc_macro2::TokenTree::Ident(id) = t else { continue };
            if id != "static" {
                continue;
            }
            let mut j = i + 1;
            if matches!(tokens.get(j), Some(proc_macro2::TokenTree::Ident(r)) if r == "ref") {
                j += 1;
            }
            if let Some(proc_macro2::TokenTree::Ident(name)) = tokens.get(j) {
                let ty = match tokens.get(j + 2) {
                    Some(proc_macro2::TokenTree::Ident(ty)) => ty.to_string(),
                    _ => String::new(),
                };
                let (name, kind) = (name.to_string(), GlobalKind::LazyInit);
                self.out.globals.push(GlobalFact { module: module.to_vec(), name, ty, kind, method: None });
            }
        }
    }

    fn func(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        body: &syn::Block,
        range: std::ops::Range<usize>,
        module: &[String],
        scope: ImplScope,
    ) {
        let (tool, prompt) = (has_attr(attrs, "tool"), has_attr(attrs, "prompt"));
        let role = if sig_mentions(sig, &["RoleServer"]) || tool || prompt {
            Role::Server
        } else if sig_mentions(sig, &["RoleClient"]) {
            Role::Client
        } else {
            scope.map_or(Role::Unknown, |(_, r)| r)
        };
        let mut params = Vec::new();
        let mut env = HashMap::new();
        let mut locals = state::Locals::default();
        let mut has_self = false;
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(_) => has_self = true,
                syn::FnArg::Typed(t) => {
                    let bit =
                        Origins { client_data: false, params: 1u32.checked_shl(params.len() as u32).unwrap_or(0) };
                    let names = pat_idents(&t.pat);
                    for n in &names {
                        env.insert(n.clone(), bit);
                    }
                    locals.param(&t.pat, &t.ty);
                    let ty = type_text(&t.ty);
                    if let syn::Pat::Ident(p) = &*t.pat {
                        locals.typed(p.ident.to_string(), ty.clone());
                    }
                    params.push(Param { name: names.into_iter().next(), ty });
                }
            }
        }
        let ret = match &sig.output {
            syn::ReturnType::Type(_, ty) => Some(type_text(ty)),
            syn::ReturnType::Default => None,
        };
        let test = self.cx.in_test_code(&range);
        let roots = self
            .roots
            .as_ref()
            .and_then(|(fields, evidence)| super::roots::fn_facts(self.cx, sig, body, fields, *evidence));
        // The same gate as the roots facts.
        let uri_cuts = self
            .roots
            .as_ref()
            .and_then(|_| super::uri_cuts::fn_facts(self.cx, sig, body, roots.as_deref(), &self.scheme_consts));
        // Handler overrides only: what they hand their request on to.
        let trait_ = scope.and_then(|(i, _)| self.out.impls[i].trait_.as_deref());
        let delegations = match trait_.and_then(|t| handlers::trait_method(t, &sig.ident.to_string())) {
            Some(_) => super::delegation::fn_facts(self.cx, sig, body),
            None => Vec::new(),
        };
        let peer_info = super::peer_info::fn_facts(self.cx, body, &params);
        let fact = FnFact {
            module: module.to_vec(),
            name: sig.ident.to_string(),
            impl_: scope.map(|(i, _)| i),
            has_self,
            params,
            ret,
            range,
            name_range: self.cx.span_range(sig.ident.span()),
            role,
            test,
            rejects: crate::rust::rejects::block_rejects(body),
            tool,
            prompt,
            calls: Vec::new(),
            fields: Vec::new(),
            arms: Vec::new(),
            variant_arms: Vec::new(),
            const_arms: Vec::new(),
            places: Vec::new(),
            list_changed: Vec::new(),
            guards: Vec::new(),
            getter_tests: Vec::new(),
            on_inits: Vec::new(),
            values: super::request_state::value_facts(self.cx, sig, body, self.state),
            request_method_params: 0,
            roots,
            // The same gate as the roots facts: no use of a parameter is roots where no file has them.
            param_dirs: if self.roots.is_some() { super::roots::param_dirs(sig, body) } else { (0, 0) },
            retry: self.retries.and_then(|gate| super::retries::fn_facts(self.cx, sig, body, role, gate)),
            uri_cuts,
            delegations,
            sends: None,
            peer_info,
        };
        let server = fact.role == Role::Server || (fact.role == Role::Unknown && self.out.role == Role::Server);
        let mut senders = super::senders::BodySends::new(self.sends, server, &sig.generics);
        if senders.gated() {
            senders.input_builders(crate::rust::requests::input_request_builders(self.cx, body));
        }
        let mut body_walk = Body {
            cx: self.cx,
            fact,
            env,
            nested: Vec::new(),
            locals,
            senders,
            gates: self.gates,
            copies: CheckedCopies::default(),
        };
        body_walk.visit_block(body);
        let Body { mut fact, nested, senders, copies, .. } = body_walk;
        copies.finish(self.cx, body, &mut fact.guards);
        if self.gates
            && fact.has_self
            && fact.params.is_empty()
            && fact.ret.as_deref() == Some("bool")
            && let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last()
        {
            let mut tested = Vec::new();
            flag_tests(tail, &mut tested);
            fact.getter_tests = tested.into_iter().map(|e| self.cx.node_range(e)).collect();
        }
        fact.sends = senders.finish();
        fact.request_method_params &= requests::string_params(&fact.params);
        self.out.fns.push(fact);
        // Items inside the body are the module's, not the function's.
        for item in nested {
            self.item(item, module);
        }
    }
}

/// Flattens a `use` tree into (alias, target) pairs.
fn use_tree(tree: &syn::UseTree, module: &[String], prefix: &mut Vec<String>, out: &mut Vec<UseFact>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, module, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            // `use a::b::{self}` imports `b`.
            let (alias, target) = if name == "self" {
                (prefix.last().cloned().unwrap_or_default(), prefix.clone())
            } else {
                (name.clone(), [prefix.as_slice(), &[name]].concat())
            };
            out.push(UseFact { module: module.to_vec(), alias, target, glob: false });
        }
        syn::UseTree::Rename(r) => {
            let target = [prefix.as_slice(), &[r.ident.to_string()]].concat();
            out.push(UseFact { module: module.to_vec(), alias: r.rename.to_string(), target, glob: false });
        }
        syn::UseTree::Glob(_) => {
            out.push(UseFact { module: module.to_vec(), alias: String::new(), target: prefix.clone(), glob: true })
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_tree(t, module, prefix, out)),
    }
}

/// A type as written, path segments by their last names (`Arc<RwLock<Option<Caps>>>`); enough to
/// recognise a wrapper or a request type, never printed through tokens.
pub fn type_text(ty: &syn::Type) -> String {
    let mut out = String::new();
    write_type(ty, &mut out);
    out
}

fn write_type(ty: &syn::Type, out: &mut String) {
    match ty {
        syn::Type::Path(p) => {
            if let Some(seg) = p.path.segments.last() {
                out.push_str(&seg.ident.to_string());
                if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                    out.push('<');
                    for (i, arg) in args.args.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        match arg {
                            syn::GenericArgument::Type(t) => write_type(t, out),
                            _ => out.push('_'),
                        }
                    }
                    out.push('>');
                }
            }
        }
        syn::Type::Reference(r) => {
            out.push('&');
            if r.mutability.is_some() {
                out.push_str("mut ");
            }
            write_type(&r.elem, out);
        }
        syn::Type::Paren(p) => write_type(&p.elem, out),
        syn::Type::Group(g) => write_type(&g.elem, out),
        syn::Type::Slice(s) => {
            out.push('[');
            write_type(&s.elem, out);
            out.push(']');
        }
        syn::Type::Array(a) => {
            out.push('[');
            write_type(&a.elem, out);
            out.push_str("; _]");
        }
        syn::Type::Tuple(t) => {
            out.push('(');
            for (i, e) in t.elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(e, out);
            }
            out.push(')');
        }
        syn::Type::TraitObject(t) => {
            out.push_str("dyn ");
            trait_bounds(&t.bounds, out);
        }
        syn::Type::ImplTrait(t) => {
            out.push_str("impl ");
            trait_bounds(&t.bounds, out);
        }
        _ => out.push('_'),
    }
}

fn trait_bounds(bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>, out: &mut String) {
    for b in bounds {
        if let syn::TypeParamBound::Trait(t) = b
            && let Some(seg) = t.path.segments.last()
        {
            out.push_str(&seg.ident.to_string());
            return;
        }
    }
    out.push('_');
}

/// Names bound by a pattern.
pub fn pat_idents(pat: &syn::Pat) -> Vec<String> {
    struct Idents(Vec<String>);
    impl<'ast> Visit<'ast> for Idents {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            visit::visit_pat_ident(self, p);
        }
        // A type ascription (`|i: &ClientInfo|`) names no binding.
        fn visit_type(&mut self, _: &'ast syn::Type) {}
    }
    let mut v = Idents(Vec::new());
    v.visit_pat(pat);
    v.0
}

/// Locals bound once and tested by rejecting guards (`let state = { self.state.read().await.clone() };
/// if !state.is_ready() { return .. }`): where every use of such a local is in those guards or in
/// what runs when they reject, its value only decides whether the request is turned away, so the
/// guards test its initializer too.
#[derive(Default)]
struct CheckedCopies {
    /// A guard's tested value rooted at a local: the local, the condition and the rejecting code.
    tested: Vec<(String, Range<usize>, Range<usize>)>,
}

impl CheckedCopies {
    /// Adds to `guards` the initializers of the locals that only guards use.
    fn finish(self, cx: &Cx, body: &syn::Block, guards: &mut Vec<(Range<usize>, Range<usize>)>) {
        if self.tested.is_empty() {
            return;
        }
        let mut names: Vec<&str> = self.tested.iter().map(|(n, ..)| n.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            let (lets, uses) = local_lets_and_uses(cx, body, name);
            // Bound once: a second `let` (a shadow) could hold anything.
            let [init] = &lets[..] else { continue };
            let checks: Vec<_> = self.tested.iter().filter(|(n, ..)| n == name).collect();
            let allowed = |use_: &Range<usize>| {
                checks.iter().any(|(_, cond, rejecting)| within(use_, cond) || within(use_, rejecting))
            };
            if uses.iter().all(allowed) {
                for (_, cond, _) in checks {
                    guards.push((cond.clone(), init.clone()));
                }
            }
        }
    }
}

/// Where `name` is bound and used in `body`, outside its items (found after the walk, and only
/// for the locals a guard tests: most bodies have none): the values of its `let name = value;`
/// statements (a plain name), and its uses as a value: path expressions, and macro calls whose
/// tokens name it (a `format!` argument), each macro as a whole.
fn local_lets_and_uses(cx: &Cx, body: &syn::Block, name: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    struct Local<'n, 'c, 'a> {
        cx: &'c Cx<'a>,
        name: &'n str,
        lets: Vec<Range<usize>>,
        uses: Vec<Range<usize>>,
    }
    impl<'ast> Visit<'ast> for Local<'_, '_, '_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (syn::Pat::Ident(p), Some(init)) = (&l.pat, &l.init)
                && p.subpat.is_none()
                && p.ident == self.name
            {
                self.lets.push(self.cx.node_range(&*init.expr));
            }
            visit::visit_local(self, l);
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.qself.is_none() && p.path.is_ident(self.name) {
                self.uses.push(self.cx.node_range(p));
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if crate::rust::syntax::tokens_mention_any(&m.tokens, &[self.name]) {
                self.uses.push(self.cx.node_range(m));
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut local = Local { cx, name, lets: Vec::new(), uses: Vec::new() };
    local.visit_block(body);
    (local.lets, local.uses)
}

/// The local a tested value reads (`state` in `state.is_ready()`, `state.phase`, `*state`).
fn local_root(value: &Expr) -> Option<String> {
    match crate::rust::rejects::strip(value) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => local_root(&f.base),
        Expr::MethodCall(m) => local_root(&m.receiver),
        Expr::Reference(r) => local_root(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => local_root(&u.expr),
        _ => None,
    }
}

/// The walk of one function body.
struct Body<'c, 'a, 'ast> {
    cx: &'c Cx<'a>,
    fact: FnFact,
    /// Locals and parameters, with where their values come from. Flat: a later binding of the
    /// same name replaces it.
    env: HashMap<String, Origins>,
    /// Items declared inside the body, read after it.
    nested: Vec<&'ast syn::Item>,
    /// Which names are state places (`state::Locals`).
    locals: state::Locals,
    /// What it sends (`senders`), and the locals bound to `self` fields.
    senders: super::senders::BodySends,
    /// Its rejecting guards are kept (`FnFact::guards`): the file has a handshake gate's words.
    gates: bool,
    /// Locals a rejecting guard tests, to find those that only hold a copy for the check.
    copies: CheckedCopies,
}

impl<'ast> Body<'_, '_, 'ast> {
    /// A `let … else` whose `else` rejects: the values its pattern requires to be set (`Some(_)`,
    /// `Ok(_)`, `true`), element by element of a tuple.
    fn let_else_guard(&mut self, pat: &syn::Pat, value: &Expr) {
        let range = self.cx.node_range(value);
        let mut tested = Vec::new();
        required_values(pat, value, &mut tested);
        for value in tested {
            let value = self.cx.node_range(value);
            self.fact.guards.push((range.clone(), value));
        }
    }

    /// Keeps a rejecting guard's condition with each value it tests for being set; `rejecting` is
    /// the code that runs when the guard turns the request away.
    fn guard(&mut self, cond: &Expr, rejecting: Range<usize>) {
        let mut tested = Vec::new();
        flag_tests(cond, &mut tested);
        let range = self.cx.node_range(cond);
        for value in tested {
            if let Some(local) = local_root(value) {
                self.copies.tested.push((local, range.clone(), rejecting.clone()));
            }
            let value = self.cx.node_range(value);
            self.fact.guards.push((range.clone(), value));
        }
    }
    /// Where an expression's value comes from.
    fn origins(&self, e: &Expr) -> Origins {
        struct Scan<'e> {
            env: &'e HashMap<String, Origins>,
            found: Origins,
        }
        impl<'ast> Visit<'ast> for Scan<'_> {
            fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
                if matches!(&f.member, Member::Named(n) if CLIENT_FIELDS.iter().any(|c| n == c)) {
                    self.found.client_data = true;
                }
                visit::visit_expr_field(self, f);
            }
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                if m.method == "peer_info" && m.args.is_empty() {
                    self.found.client_data = true;
                }
                if m.method == "get" && m.args.first().is_some_and(is_client_key) {
                    self.found.client_data = true;
                }
                visit::visit_expr_method_call(self, m);
            }
            fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
                if is_client_key(&i.index) {
                    self.found.client_data = true;
                }
                visit::visit_expr_index(self, i);
            }
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(found) = p.path.get_ident().and_then(|i| self.env.get(&i.to_string())) {
                    self.found = self.found.or(*found);
                }
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut scan = Scan { env: &self.env, found: Origins::default() };
        scan.visit_expr(e);
        scan.found
    }

    fn bind(&mut self, pat: &syn::Pat, origins: Origins) {
        for name in pat_idents(pat) {
            self.locals.declare(&name);
            self.senders.forget(&name);
            if origins.is_empty() {
                self.env.remove(&name);
            } else {
                self.env.insert(name, origins);
            }
        }
    }

    /// The `self` place an expression is rooted at, through guards and accessors
    /// (`*self.f.write().await`, `self.f.lock().unwrap().x`), with the expressions met on the way
    /// that are not part of the place (method arguments, indexes).
    fn place(&self, mut e: &'ast Expr, side: &mut Vec<&'ast Expr>) -> Option<FieldAccess> {
        loop {
            e = match e {
                Expr::Field(f) => return self.place_of_field(f, side),
                Expr::Path(p) => return self.locals.root(self.cx, p, Vec::new()),
                other => peel(other, side)?,
            };
        }
    }

    /// `place`, from a field access.
    fn place_of_field(&self, f: &'ast syn::ExprField, side: &mut Vec<&'ast Expr>) -> Option<FieldAccess> {
        let mut members: Vec<(String, usize)> = Vec::new();
        let mut f = f;
        loop {
            let Member::Named(name) = &f.member else { return None };
            members.push((name.to_string(), self.cx.span_range(name.span()).end));
            if is_self(&f.base) {
                members.reverse();
                let start = match &*f.base {
                    Expr::Path(p) => p.path.segments.first().map_or(0, |s| self.cx.span_range(s.ident.span()).start),
                    _ => 0,
                };
                let (path, ends) = members.into_iter().unzip();
                return Some(FieldAccess { path, start, ends, write: None, ..Default::default() });
            }
            let mut e: &'ast Expr = &f.base;
            f = loop {
                e = match e {
                    Expr::Field(inner) => break inner,
                    Expr::Path(p) => {
                        members.reverse();
                        return self.locals.root(self.cx, p, members);
                    }
                    other => peel(other, side)?,
                };
            };
        }
    }

    /// Records a write of the place `target` roots at; false when it roots at no state place.
    /// `stored` is the value written whole (`= v`, `set(v)`, `insert(v)`; with `true`, a keyed map's
    /// `insert(k, v)`): a struct literal's fields are kept (`FieldAccess::literal`), and for a typed map's `insert(v)` (`entry`) the entry of
    /// the value's client-data type is the place.
    fn write(
        &mut self,
        target: &'ast Expr,
        value: Origins,
        op: WriteOp,
        stored: Option<(&Expr, bool)>,
        entry: Option<&str>,
    ) -> bool {
        let mut side = Vec::new();
        let Some(mut access) = self.place(target, &mut side) else { return false };
        if let Some(ty) = entry {
            access.path.push(state::entry_member(ty));
            access.ends.push(op.end);
        }
        if let Some((v, keyed)) = stored
            && !value.is_empty()
        {
            access.literal = self.literal_fields(v);
            if let Some(lit) = access.literal.as_mut() {
                lit.entry = keyed;
            }
        }
        access.write = Some(value);
        access.op = Some(op);
        self.push(access);
        for e in side {
            self.visit_expr(e);
        }
        true
    }

    /// The type of a value as written, where it names client data: a typed local or parameter
    /// (through `&`, `.clone()`), or a struct literal.
    fn type_text_of(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Path(p) => self.locals.type_of(&p.path.get_ident()?.to_string()).map(str::to_owned),
            Expr::Reference(r) => self.type_text_of(&r.expr),
            Expr::Paren(p) => self.type_text_of(&p.expr),
            Expr::MethodCall(m)
                if m.args.is_empty() && matches!(m.method.to_string().as_str(), "clone" | "to_owned") =>
            {
                self.type_text_of(&m.receiver)
            }
            Expr::Struct(s) => Some(s.path.segments.last()?.ident.to_string()),
            _ => None,
        }
    }

    /// The client-data type a value is (`CLIENT_TYPES`), as far as its bindings show it.
    fn client_type_of(&self, e: &Expr) -> Option<&'static str> {
        state::client_type(&self.type_text_of(e)?)
    }

    /// Types what a pattern binds from a value of type `ty` (as written): `x`, `x: T`, `Some(x)`.
    fn bind_type(&mut self, pat: &syn::Pat, ty: Option<&str>) {
        match pat {
            syn::Pat::Ident(p) if p.subpat.is_none() => {
                if let Some(t) = ty {
                    self.locals.typed(p.ident.to_string(), t.to_owned());
                }
            }
            syn::Pat::Type(t) => self.bind_type(&t.pat, Some(&type_text(&t.ty))),
            syn::Pat::Reference(r) => self.bind_type(&r.pat, ty),
            syn::Pat::TupleStruct(t)
                if t.elems.len() == 1
                    && t.path.segments.last().is_some_and(|s| s.ident == "Some" || s.ident == "Ok") =>
            {
                self.bind_type(&t.elems[0], ty.and_then(state::unwrapped_type));
            }
            _ => {}
        }
    }

    /// A struct literal stored whole (under `Some`, `Ok`, `Arc::new`, `Mutex::new`, `.into()`, …),
    /// with the fields given data from somewhere.
    fn literal_fields(&self, e: &Expr) -> Option<Box<LiteralFields>> {
        const WRAPPERS: &[&str] = &["Arc", "Rc", "Box", "Mutex", "RwLock", "RefCell", "Cell", "OnceCell", "OnceLock"];
        let wraps = |f: &Expr| match f {
            Expr::Path(p) => {
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                match segs.as_slice() {
                    [one] => one == "Some" || one == "Ok",
                    [.., ty, f] => (f == "new" || f == "from") && WRAPPERS.contains(&ty.as_str()),
                    _ => false,
                }
            }
            _ => false,
        };
        let mut e = e;
        let lit = loop {
            e = match e {
                Expr::Struct(lit) => break lit,
                Expr::Call(c) if c.args.len() == 1 && wraps(&c.func) => &c.args[0],
                Expr::MethodCall(m) if m.method == "into" && m.args.is_empty() => &m.receiver,
                Expr::Paren(p) => &p.expr,
                _ => return None,
            };
        };
        let fields: Vec<(String, Origins, std::ops::Range<usize>)> = lit
            .fields
            .iter()
            .filter_map(|f| {
                let Member::Named(name) = &f.member else { return None };
                let origins = self.origins(&f.expr);
                (!origins.is_empty()).then(|| (name.to_string(), origins, self.cx.node_range(f)))
            })
            .collect();
        let ty = lit.path.segments.iter().map(|s| s.ident.to_string()).collect();
        (!fields.is_empty()).then(|| Box::new(LiteralFields { ty, fields, entry: false }))
    }

    /// `x.get::<T>()` with `T` a client-data type: a read of the entry of `T` in the typed map the
    /// receiver names, a place (`self.session`) or what a `self` accessor returns (`self.session()?`).
    fn typed_entry_read(&mut self, m: &'ast syn::ExprMethodCall) {
        let Some(ty) = turbofish_client_type(m) else { return };
        let mut access = match self.place(&m.receiver, &mut Vec::new()) {
            Some(access) => access,
            None => {
                let Some(call) = self_accessor(&m.receiver) else { return };
                let start = self.cx.node_range(&*call.receiver).start;
                let end = self.cx.span_range(call.paren_token.span.close()).end;
                FieldAccess { path: vec![format!("{}()", call.method)], start, ends: vec![end], ..Default::default() }
            }
        };
        access.path.push(state::entry_member(ty));
        access.ends.push(self.cx.span_range(m.paren_token.span.close()).end);
        self.push(access);
    }

    fn call(&mut self, callee: Callee, range: std::ops::Range<usize>, args: &[&Expr]) {
        if let Callee::Path(path) = &callee
            && path.last().is_some_and(|n| requests::sends_its_method_argument(n))
        {
            self.sends_method_from(args);
        }
        let name = match &callee {
            Callee::SelfMethod(n) | Callee::FieldMethod(_, n) => n.as_str(),
            Callee::Path(p) => p.last().map_or("", String::as_str),
        };
        self.senders.call(Some(self.fact.calls.len()), name, args);
        let method_args = requests::method_args(self.cx, args);
        let arg_places = args.iter().map(|a| self.locals.arg_place(a)).collect();
        let args = args.iter().map(|a| self.origins(a)).collect();
        self.fact.calls.push(CallFact { callee, range, args, arg_places, method_args });
    }

    /// A sending call whose method is one of `args`: the parameters flowing into them become
    /// request methods.
    fn sends_method_from(&mut self, args: &[&Expr]) {
        for a in args {
            self.fact.request_method_params |= self.origins(a).params;
        }
    }

    /// Keeps an access: `self.…` ones in `fields`, the others in `places`.
    fn push(&mut self, mut access: FieldAccess) {
        access.quiet = self.locals.quiet > 0;
        if access.root == Root::SelfValue && !access.aliased {
            self.fact.fields.push(access);
        } else {
            self.fact.places.push(access);
        }
    }
}

impl<'c, 'a, 'ast> Body<'c, 'a, 'ast> {
    /// A walker of code that lives outside the tree (a macro body in the file's cache) carrying
    /// this function's facts and locals; `reattach` takes them back. Items it meets are not read.
    fn detach<'x>(&mut self) -> Body<'c, 'a, 'x> {
        Body {
            cx: self.cx,
            fact: std::mem::take(&mut self.fact),
            env: std::mem::take(&mut self.env),
            nested: Vec::new(),
            locals: std::mem::take(&mut self.locals),
            senders: std::mem::take(&mut self.senders),
            gates: self.gates,
            copies: std::mem::take(&mut self.copies),
        }
    }

    fn reattach(&mut self, inner: Body<'c, 'a, '_>) {
        (self.fact, self.env, self.locals, self.senders, self.copies) =
            (inner.fact, inner.env, inner.locals, inner.senders, inner.copies);
    }

    /// How many accesses were kept so far (`fields`, `places`).
    fn marks(&self) -> (usize, usize) {
        (self.fact.fields.len(), self.fact.places.len())
    }

    /// `let g = self.state.lock().unwrap();` (or `if let Some(s) = self.sessions.get_mut(&id)`):
    /// `g` stands for the place from now on, and the read of the place that binds it reads the
    /// whole value.
    fn alias(&mut self, pat: &syn::Pat, init: &'ast Expr, (fields, places): (usize, usize)) {
        let Some(name) = state::bound_name(pat) else { return };
        self.locals.clone_alias(name.clone(), init);
        // `let state = Arc::clone(&self.state)`: the same value, so the same place.
        let init = state::shared_handle_of(init).unwrap_or(init);
        let Some(place) = state::guarded(init).and_then(|e| self.place(e, &mut Vec::new())) else { return };
        for a in self.fact.fields[fields..].iter_mut().chain(self.fact.places[places..].iter_mut()) {
            if a.start == place.start && a.path == place.path {
                a.whole = true;
            }
        }
        self.locals.alias(name, place);
    }

    /// `visit_expr_method_call`, inside `BodySends::enter_call`.
    fn method_call(&mut self, m: &'ast syn::ExprMethodCall, name: String) {
        if m.method == "get" && m.args.is_empty() {
            self.typed_entry_read(m);
        }
        if self.senders.gated() {
            self.senders.sending_call(self.cx, &name, &m.args.iter().collect::<Vec<_>>());
        }
        let stores = STORE_METHODS.contains(&name.as_str()) || state::MUTATORS.contains(&name.as_str());
        if is_self(&m.receiver) {
            let range = self.cx.span_range(m.method.span()).start..self.cx.span_range(m.paren_token.span.close()).end;
            let args: Vec<&Expr> = m.args.iter().collect();
            self.call(Callee::SelfMethod(name), range, &args);
        } else if !stores && let Some(field) = super::flow::self_path(&m.receiver) {
            // `self.store.put(..)`: a method of the field's type where the crate defines it.
            let range = self.cx.span_range(m.method.span()).start..self.cx.span_range(m.paren_token.span.close()).end;
            let args: Vec<&Expr> = m.args.iter().collect();
            let sends = requests::sends_its_method_argument(&name);
            self.call(Callee::FieldMethod(field, name), range, &args);
            if sends {
                self.sends_method_from(&args);
            }
        } else if !stores && let Some(field) = self.senders.field_local(&m.receiver) {
            // `let r = self.requester.as_ref()?; r.ask(..)`: a method of the field's type.
            let range = self.cx.span_range(m.method.span()).start..self.cx.span_range(m.paren_token.span.close()).end;
            let args: Vec<&Expr> = m.args.iter().collect();
            self.call(Callee::FieldMethod(field, name.clone()), range, &args);
            if requests::sends_its_method_argument(&name) {
                self.sends_method_from(&args);
            }
        } else if requests::sends_its_method_argument(&name) {
            let args: Vec<&Expr> = m.args.iter().collect();
            self.senders.call(None, &name, &args);
            self.sends_method_from(&args);
        } else if stores {
            let value = m.args.iter().fold(Origins::default(), |acc, a| acc.or(self.origins(a)));
            let end = self.cx.span_range(m.paren_token.span.close()).end;
            let switch =
                name == "take" || state::SWITCH_METHODS.contains(&name.as_str()) && m.args.iter().any(state::is_switch);
            // One value stored whole (`set(v)`, `replace(v)`, a typed map's `insert(v)`, a keyed
            // map's `insert(k, v)`).
            let keyed = m.args.len() == 2 && name == "insert";
            let stored = (m.args.len() == 1 && matches!(name.as_str(), "set" | "replace" | "insert" | "get_or_insert"))
                .then(|| &m.args[0])
                .or_else(|| keyed.then(|| &m.args[1]));
            // A typed map's `insert(v)` (one argument): keyed by the value's type, spelled out
            // (`insert::<T>(v)`) or declared for the local it passes.
            let entry = match stored {
                Some(v) if name == "insert" && !keyed => turbofish_client_type(m).or_else(|| self.client_type_of(v)),
                _ => None,
            };
            let stored = stored.map(|v| (v, keyed));
            let resets = name == "take" || m.args.first().is_some_and(state::is_reset) && !keyed;
            if self.write(&m.receiver, value, WriteOp { how: name, switch, resets, end }, stored, entry) {
                m.args.iter().for_each(|a| self.visit_expr(a));
                return;
            }
        } else if name.starts_with("notify_") && name.ends_with("list_changed") {
            self.fact.list_changed.push(crate::rust::syntax::method_call_range(self.cx, m));
        }
        visit::visit_expr_method_call(self, m);
    }

    /// `visit_expr_call`, inside `BodySends::enter_call`.
    fn fn_call(&mut self, c: &'ast syn::ExprCall) {
        // `Ok(..)`, `Some(..)`, `Wrapper(..)`: constructors, not functions.
        let constructor = |p: &syn::Path| {
            p.segments.len() == 1 && p.segments[0].ident.to_string().starts_with(|c: char| c.is_ascii_uppercase())
        };
        if let Expr::Path(p) = &*c.func
            && p.qself.is_none()
            && !constructor(&p.path)
        {
            let path: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let range = call_range(self.cx, c, p);
            self.senders.request_value(&path, range.clone());
            if self.senders.gated() {
                self.senders.sending_call(
                    self.cx,
                    path.last().map_or("", String::as_str),
                    &c.args.iter().collect::<Vec<_>>(),
                );
            }
            let args: Vec<&Expr> = c.args.iter().collect();
            self.call(Callee::Path(path), range, &args);
            c.args.iter().for_each(|a| self.visit_expr(a));
            return;
        }
        visit::visit_expr_call(self, c);
    }
}

/// One accessor of a place (`.lock()`, `.await`, `?`, `*`, `[i]`): the expression under it.
fn peel<'ast>(e: &'ast Expr, side: &mut Vec<&'ast Expr>) -> Option<&'ast Expr> {
    Some(match e {
        Expr::MethodCall(m) => {
            side.extend(m.args.iter());
            &m.receiver
        }
        Expr::Await(a) => &a.base,
        Expr::Try(t) => &t.expr,
        Expr::Paren(p) => &p.expr,
        Expr::Group(g) => &g.expr,
        Expr::Reference(r) => &r.expr,
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
        Expr::Index(i) => {
            side.push(&i.index);
            &i.expr
        }
        _ => return None,
    })
}

fn is_client_key(e: &Expr) -> bool {
    matches!(e, Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if CLIENT_KEYS.contains(&s.value().as_str()))
}

impl<'ast> Visit<'ast> for Body<'_, '_, 'ast> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_item(&mut self, item: &'ast syn::Item) {
        self.nested.push(item);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let marks = self.marks();
        let origins = l.init.as_ref().map_or(Origins::default(), |init| {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                // `let (Some(data), true) = (&self.data, self.ready) else { bail!(..) }`.
                if self.gates && crate::rust::rejects::expr_rejects(diverge) {
                    self.let_else_guard(&l.pat, &init.expr);
                }
                self.visit_expr(diverge);
            }
            self.origins(&init.expr)
        });
        // Typed from the value before the binding shadows what it reads (`let info = info.clone()`).
        let ty = l.init.as_ref().and_then(|init| self.type_text_of(&init.expr));
        self.bind(&l.pat, origins);
        self.bind_type(&l.pat, ty.as_deref());
        if let Some(init) = &l.init {
            self.alias(&l.pat, &init.expr, marks);
            self.senders.bind(&l.pat, &init.expr);
        }
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        let marks = self.marks();
        self.visit_expr(&e.expr);
        let origins = self.origins(&e.expr);
        let ty = self.type_text_of(&e.expr);
        self.bind(&e.pat, origins);
        self.bind_type(&e.pat, ty.as_deref());
        self.alias(&e.pat, &e.expr, marks);
        self.senders.bind(&e.pat, &e.expr);
    }

    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.locals.loops += 1;
        self.visit_block(&l.body);
        self.locals.loops -= 1;
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.locals.loops += 1;
        self.visit_expr(&w.cond);
        self.visit_block(&w.body);
        self.locals.loops -= 1;
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.locals.loops += 1;
        let origins = self.origins(&f.expr);
        self.bind(&f.pat, origins);
        self.visit_block(&f.body);
        self.locals.loops -= 1;
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if state::is_compound_assign(&b.op) {
            let value = self.origins(&b.right);
            let end = self.cx.node_range(&*b.left).end;
            let op = WriteOp { how: "+=".to_owned(), switch: false, resets: false, end };
            if self.write(&b.left, value, op, None, None) {
                self.visit_expr(&b.right);
                return;
            }
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if self.senders.gated() && p.path.segments.iter().rev().nth(1).is_some_and(|s| s.ident == "ServerRequest") {
            let path: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.senders.request_value(&path, self.cx.node_range(p));
        }
        if let Some(mut access) = self.locals.root(self.cx, p, Vec::new()) {
            // A bare local names the whole place; a local bound to a place is used as it.
            access.whole = !p.path.get_ident().is_some_and(|i| self.locals.is_alias(&i.to_string()));
            self.push(access);
        }
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let origins = self.origins(&m.expr);
        let dispatcher = m.arms.iter().any(|arm| arm_methods(&arm.pat).iter().any(|s| handlers::is_mcp_method(s)));
        // A `match` on a request enum: two arms or more whose variants are named after MCP methods.
        let variants =
            !dispatcher && m.arms.iter().filter(|arm| arm_variant_method(&arm.pat).is_some()).nth(1).is_some();
        // `methods::INITIALIZE => ..` on the method: which const it names is the crate's to say.
        let on_method = dispatcher || crate::rust::syntax::mentions_method(&quote::ToTokens::to_token_stream(&m.expr));
        let cx = self.cx;
        for arm in &m.arms {
            let arm_range = || cx.node_range(&arm.pat).start..cx.node_range(&*arm.body).end;
            if on_method {
                let mut paths = Vec::new();
                const_paths(cx, &arm.pat, &mut paths);
                if !paths.is_empty() {
                    let rejects =
                        crate::rust::rejects::expr_rejects(&arm.body) || crate::rust::rejects::is_label(&arm.body);
                    for (path, pat) in paths {
                        self.fact.const_arms.push(ConstArm { path, pat, arm: arm_range(), rejects });
                    }
                }
            }
            if dispatcher {
                let range = arm_range();
                for method in arm_methods(&arm.pat) {
                    self.fact.arms.push(ArmFact { method, range: range.clone() });
                }
            }
            if variants && let Some(method) = arm_variant_method(&arm.pat) {
                self.fact.variant_arms.push(ArmFact { method: method.to_owned(), range: arm_range() });
            }
            self.bind(&arm.pat, origins);
            if let Some((_, guard)) = &arm.guard {
                if self.gates && crate::rust::rejects::expr_rejects(&arm.body) {
                    self.guard(guard, cx.node_range(&*arm.body));
                }
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        use crate::rust::rejects::{block_rejects, expr_rejects};
        // `if method == "initialize" { .. }` (also `else if`): the branch answers that method, as
        // a dispatcher's arm does.
        if let Some(method) = if_method(&e.cond) {
            let range = self.cx.node_range(&*e.cond).start..self.cx.block_range(&e.then_branch).end;
            self.fact.arms.push(ArmFact { method, range });
        }
        if self.gates {
            if block_rejects(&e.then_branch) {
                self.guard(&e.cond, self.cx.block_range(&e.then_branch));
            } else if let Some((_, other)) = &e.else_branch
                && expr_rejects(other)
            {
                self.guard(&e.cond, self.cx.node_range(&**other));
            }
        }
        visit::visit_expr_if(self, e);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        for input in &c.inputs {
            self.bind(input, Origins::default());
            self.bind_type(input, None);
        }
        self.visit_expr(&c.body);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        let value = self.origins(&a.right);
        let op = WriteOp {
            how: "=".to_owned(),
            switch: state::is_switch(&a.right),
            resets: state::is_reset(&a.right),
            end: self.cx.node_range(&*a.left).end,
        };
        if !self.write(&a.left, value, op, Some((&a.right, false)), None) {
            self.visit_expr(&a.left);
        }
        self.visit_expr(&a.right);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        // Named once for both.
        let name = m.method.to_string();
        let receives = self.senders.enter_call(Some(&name));
        self.method_call(m, name);
        self.senders.leave_call(receives);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        // `drop(guard)` ends a local's life (releases a lock early): it reads nothing.
        if let Expr::Path(f) = &*c.func
            && f.path.segments.last().is_some_and(|s| s.ident == "drop")
            && c.args.len() == 1
            && matches!(crate::rust::rejects::strip(&c.args[0]), Expr::Path(p) if p.path.get_ident().is_some())
        {
            return;
        }
        // Named only where sends are kept (most calls are not looked at by name).
        let name = match &*c.func {
            Expr::Path(p) if self.senders.gated() => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let receives = self.senders.enter_call(name.as_deref());
        self.fn_call(c);
        self.senders.leave_call(receives);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        let mut side = Vec::new();
        match self.place_of_field(f, &mut side) {
            Some(access) => {
                self.push(access);
                side.into_iter().for_each(|e| self.visit_expr(e));
            }
            None => visit::visit_expr_field(self, f),
        }
    }

    fn visit_expr_struct(&mut self, lit: &'ast syn::ExprStruct) {
        // `JsonRpcRequest { id, method: method.to_string(), .. }`: a request whose method is the value.
        let field = |name: &str| lit.fields.iter().find(|f| matches!(&f.member, Member::Named(i) if i == name));
        if let (Some(method), Some(_)) = (field("method"), field("id"))
            && !crate::rust::requests::is_message_record(lit)
        {
            self.fact.request_method_params |= self.origins(&method.expr).params;
            self.senders.request_method(self.cx, &method.expr);
        }
        if self.gates {
            let ty: Vec<String> = lit.path.segments.iter().map(|s| s.ident.to_string()).collect();
            for f in &lit.fields {
                if let Member::Named(name) = &f.member
                    && turned_on(&f.expr)
                {
                    self.fact.on_inits.push((ty.clone(), name.to_string()));
                }
            }
        }
        visit::visit_expr_struct(self, lit);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `json!` bodies are data, but for the expressions they interpolate, and a request object
        // whose `"method"` is a local or parameter.
        if m.path.segments.last().is_some_and(|seg| seg.ident == "json") {
            for name in requests::json_request_method_names(&m.tokens) {
                if let Some(origins) = self.env.get(&name) {
                    self.fact.request_method_params |= origins.params;
                }
            }
            let range = self.cx.span_range(crate::rust::macro_body::delimiters_span(m));
            self.senders.json(self.cx, &m.tokens, range);
            let exprs = state::json_exprs(self.cx, m);
            if !exprs.is_empty() {
                let mut inner = self.detach();
                exprs.iter().for_each(|e| inner.visit_expr(e));
                self.reattach(inner);
            }
            return;
        }
        let quiet = m.path.segments.last().is_some_and(|seg| state::QUIET_MACROS.iter().any(|q| seg.ident == q));
        self.locals.quiet += quiet as usize;
        // The body lives in the file's cache, not in the tree: walked by a walker of its own that
        // carries this function's facts and locals (items declared in a macro body are not read).
        if let Some(body) = self.cx.macro_body(m) {
            let mut inner = self.detach();
            match &*body {
                MacroBody::Exprs(exprs) => exprs.iter().for_each(|e| inner.visit_expr(e)),
                MacroBody::Stmts(stmts) => stmts.iter().for_each(|s| inner.visit_stmt(s)),
            }
            self.reattach(inner);
        }
        self.locals.quiet -= quiet as usize;
    }
}

/// The range of a call of a path, `CallFact::range`: from the path's first token (not
/// `node_range`, which prints the path to tokens) to the closing parenthesis.
pub(super) fn call_range(cx: &Cx, c: &syn::ExprCall, p: &syn::ExprPath) -> std::ops::Range<usize> {
    let first = match &p.path.leading_colon {
        Some(colon) => colon.spans[0],
        None => p.path.segments.first().map_or(c.paren_token.span.open(), |s| s.ident.span()),
    };
    cx.span_range(first).start..cx.span_range(c.paren_token.span.close()).end
}

/// The client-data type a call's turbofish names (`get::<Implementation>()`), if it has one type.
fn turbofish_client_type(m: &syn::ExprMethodCall) -> Option<&'static str> {
    let args = &m.turbofish.as_ref()?.args;
    match args.first() {
        Some(syn::GenericArgument::Type(t)) if args.len() == 1 => state::client_type(&type_text(t)),
        _ => None,
    }
}

/// `self.name()` (no arguments) under `?`, `.await`, `&`, `.as_ref()`, `.unwrap()`: an accessor of
/// `self` whose value the expression is.
fn self_accessor(e: &Expr) -> Option<&syn::ExprMethodCall> {
    let mut e = e;
    loop {
        e = match e {
            Expr::MethodCall(m) if is_self(&m.receiver) && m.args.is_empty() => return Some(m),
            Expr::MethodCall(m) if m.args.is_empty() && (m.method == "as_ref" || m.method == "unwrap") => &m.receiver,
            Expr::Try(t) => &t.expr,
            Expr::Await(a) => &a.base,
            Expr::Paren(p) => &p.expr,
            Expr::Reference(r) => &r.expr,
            _ => return None,
        };
    }
}

/// The MCP method an arm's enum variant pattern stands for (`McpRequest::Initialize(p)`), or its
/// path to a method constant (`methods::request::INITIALIZE`).
fn arm_variant_method(pat: &syn::Pat) -> Option<&'static str> {
    let path = match pat {
        syn::Pat::TupleStruct(t) => &t.path,
        syn::Pat::Struct(s) => &s.path,
        syn::Pat::Path(p) => &p.path,
        _ => return None,
    };
    if path.segments.len() < 2 {
        return None;
    }
    // `McpRequest::Initialize(p)`, or a constant of method names (`methods::request::INITIALIZE`).
    let last = path.segments.last()?.ident.to_string();
    handlers::variant_method(&last).or_else(|| handlers::const_method(&last))
}

/// The MCP method a condition compares a request's method with: `method == "initialize"`,
/// `req.method == "tools/list"`, `msg["method"].as_str() == Some("ping")` (either side). The
/// other side names a method as a dispatcher's scrutinee does (`syntax::mentions_method`).
fn if_method(cond: &Expr) -> Option<String> {
    use super::uri_cuts::lit_str;
    use crate::rust::rejects::strip;
    let Expr::Binary(b) = strip(cond) else { return None };
    if !matches!(b.op, syn::BinOp::Eq(_)) {
        return None;
    }
    // `"initialize"`, or `Some("initialize")` beside an `Option<&str>`.
    let literal = |e: &Expr| lit_str(crate::rust::syntax::inside_some(strip(e)));
    let (value, other) = match (literal(&b.left), literal(&b.right)) {
        (Some(v), None) => (v, &*b.right),
        (None, Some(v)) => (v, &*b.left),
        _ => return None,
    };
    let names_method = || crate::rust::syntax::mentions_method(&quote::ToTokens::to_token_stream(other));
    (handlers::is_mcp_method(&value) && names_method()).then_some(value)
}

/// The paths of an arm's pattern that can only be consts, with their ranges: `a::B`, or a
/// SCREAMING_CASE name (a lower-case one binds a variable), through `|` and parentheses.
fn const_paths(cx: &Cx, pat: &syn::Pat, out: &mut Vec<(Vec<String>, std::ops::Range<usize>)>) {
    let screaming = state::is_screaming;
    match pat {
        syn::Pat::Path(p) if p.qself.is_none() => {
            let names: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if names.last().is_some_and(|n| screaming(n)) {
                out.push((names, cx.node_range(&p.path)));
            }
        }
        syn::Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() && i.mutability.is_none() => {
            let name = i.ident.to_string();
            if screaming(&name) {
                out.push((vec![name], cx.span_range(i.ident.span())));
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|case| const_paths(cx, case, out)),
        syn::Pat::Paren(p) => const_paths(cx, &p.pat, out),
        _ => {}
    }
}

/// A value that starts a flag turned on: `true` or `Some(..)`, inside `AtomicBool::new(..)`,
/// `Arc::new(..)`, `Mutex::new(..)`, `RwLock::new(..)`, `Cell::new(..)` and the like.
fn turned_on(e: &Expr) -> bool {
    match crate::rust::rejects::strip(e) {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) => b.value,
        Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            Expr::Path(p) if p.path.is_ident("Some") => true,
            Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "new" || s.ident == "from") => {
                turned_on(&c.args[0])
            }
            _ => false,
        },
        _ => false,
    }
}

/// The string literals of an arm's pattern (`"a" | "b"`).
fn arm_methods(pat: &syn::Pat) -> Vec<String> {
    match pat {
        syn::Pat::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => vec![s.value()],
        syn::Pat::Or(o) => o.cases.iter().flat_map(arm_methods).collect(),
        syn::Pat::Paren(p) => arm_methods(&p.pat),
        _ => Vec::new(),
    }
}

/// The values a condition tests for being set, not against another runtime value: `!flag`, a
/// bare `flag`, `x.is_none()` / `x.is_some()`, `x == C` / `x != C` with `C` a literal or a path
/// (`State::Ready`), `let Some(_) = x`, through `&&`, `||` and parentheses. `state.owner != owner`
/// compares two values and tests none.
fn flag_tests<'e>(cond: &'e Expr, out: &mut Vec<&'e Expr>) {
    use crate::rust::rejects::strip;
    // A literal, or a path to a constant or variant (`State::Ready`, `READY`, `None`), not a local.
    let constant = |e: &Expr| match strip(e) {
        Expr::Lit(_) => true,
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| s.ident.to_string().starts_with(char::is_uppercase)),
        _ => false,
    };
    match strip(cond) {
        // `!flag`, `!*flag` (a `&mut bool` parameter).
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_) | syn::UnOp::Deref(_)) => flag_tests(&u.expr, out),
        Expr::Binary(b) => match b.op {
            syn::BinOp::And(_) | syn::BinOp::Or(_) => {
                flag_tests(&b.left, out);
                flag_tests(&b.right, out);
            }
            syn::BinOp::Eq(_) | syn::BinOp::Ne(_) if constant(&b.right) && !constant(&b.left) => out.push(&b.left),
            syn::BinOp::Eq(_) | syn::BinOp::Ne(_) if constant(&b.left) && !constant(&b.right) => out.push(&b.right),
            _ => {}
        },
        Expr::MethodCall(m) if m.args.is_empty() && (m.method == "is_none" || m.method == "is_some") => {
            out.push(&m.receiver)
        }
        Expr::Let(l) => out.push(&l.expr),
        // `self.ready.load(Ordering::Acquire)`, `self.is_ready()`: read as set or not; a call given
        // other values (`allowed.contains(&name)`) tests them against it.
        Expr::MethodCall(m) if m.args.is_empty() || m.method == "load" => out.push(cond),
        e @ (Expr::Field(_) | Expr::Path(_)) => out.push(e),
        _ => {}
    }
}

/// The parts of `value` that pattern `pat` requires to be set: a `Some(_)` / `Ok(_)` or `true`
/// pattern, element by element where both are tuples.
fn required_values<'e>(pat: &syn::Pat, value: &'e Expr, out: &mut Vec<&'e Expr>) {
    use crate::rust::rejects::strip;
    match (pat, strip(value)) {
        (syn::Pat::Tuple(p), Expr::Tuple(t)) if p.elems.len() == t.elems.len() => {
            p.elems.iter().zip(&t.elems).for_each(|(p, v)| required_values(p, v, out));
        }
        (syn::Pat::TupleStruct(p), _) if p.path.is_ident("Some") || p.path.is_ident("Ok") => out.push(value),
        (syn::Pat::Lit(l), _) if matches!(&l.lit, syn::Lit::Bool(b) if b.value) => out.push(value),
        _ => {}
    }
}
