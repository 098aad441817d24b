//! Delegation: a handler override that hands the request it answers on to a method of a `self`
//! field whose declared type is one of the crate's own traits (`resources: Option<R>` with
//! `R: ResourcesProvider`, `Arc<dyn LoggingProvider>`, `Box<dyn …>`). That trait's method, declared
//! with a default body or not, and every impl of it in the crate answer the same MCP method.
//! `removed-method` asks it (`delegated`).
//!
//! Facts kept on the worker (`FileDelegation`, `FnFact::delegations`): the crate's traits with
//! their methods, the generic parameters and bounds of structs and impls, each trait impl's trait
//! path, and, in handler overrides only, the method calls on a `self` field (or on a local bound
//! to one: `match &self.resources { Some(p) => p.subscribe(request, cx) }`, `if let`, `let`, `for`,
//! a closure given to the field's `map`) that are given one of the override's parameters. A call
//! that passes none of them (`self.store.subscribe(uri)` built from nothing of the request) is not
//! delegation, and a method of the same name on a trait the override does not call is nothing.

use foldhash::{HashMap, HashMapExt};
use std::ops::Range;

use syn::Expr;
use syn::visit::{self, Visit};

use super::{CrateModel, FileId, FnId, HandlerKind, TypeKey, key};
use crate::cx::Cx;

/// A trait of the crate and its methods.
#[derive(Debug, Clone)]
pub struct TraitFact {
    pub module: Vec<String>,
    pub name: String,
    pub methods: Vec<TraitMethod>,
}

#[derive(Debug, Clone)]
pub struct TraitMethod {
    pub name: String,
    pub name_range: Range<usize>,
    /// Declared with a default body, and whether that body only rejects.
    pub default: bool,
    pub rejects: bool,
}

/// Generic parameters in order, each with the paths of its trait bounds (inline and `where`).
pub type Bounds = Vec<(String, Vec<Vec<String>>)>;

/// A trait impl's or a generic impl's generics.
#[derive(Debug, Clone)]
pub struct ImplTrait {
    /// Index into the file's `impls`.
    pub impl_: usize,
    /// The self type's generic arguments as written (`Server<T, R>` → `["T", "R"]`).
    pub self_args: Vec<String>,
    pub bounds: Bounds,
}

/// What one file says about traits and generics.
#[derive(Debug, Clone, Default)]
pub struct FileDelegation {
    pub traits: Vec<TraitFact>,
    /// Generic structs: (index into the file's `types`, their parameters).
    pub struct_generics: Vec<(usize, Bounds)>,
    /// Trait impls and generic impls.
    pub impls: Vec<ImplTrait>,
}

impl FileDelegation {
    pub fn is_empty(&self) -> bool {
        self.traits.is_empty() && self.struct_generics.is_empty() && self.impls.is_empty()
    }
}

/// A method call on a `self` field, or on a local bound to one, given some of the function's
/// parameters.
#[derive(Debug, Clone)]
pub struct Delegation {
    /// The field path after `self` (`["resources"]`).
    pub field: Vec<String>,
    pub method: String,
    /// Parameters (bits as in `Origins::params`) that flow into its arguments.
    pub params: u32,
    pub range: Range<usize>,
}

pub fn trait_fact(cx: &Cx, t: &syn::ItemTrait, module: &[String]) -> TraitFact {
    let methods = t
        .items
        .iter()
        .filter_map(|it| match it {
            syn::TraitItem::Fn(f) => Some(TraitMethod {
                name: f.sig.ident.to_string(),
                name_range: cx.span_range(f.sig.ident.span()),
                default: f.default.is_some(),
                rejects: f.default.as_ref().is_some_and(crate::rust::rejects::block_rejects),
            }),
            _ => None,
        })
        .collect();
    TraitFact { module: module.to_vec(), name: t.ident.to_string(), methods }
}

/// The type parameters of `g` with their trait bounds, inline and in the `where` clause.
pub fn bounds(g: &syn::Generics) -> Bounds {
    let paths = |bs: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| -> Vec<Vec<String>> {
        bs.iter()
            .filter_map(|b| match b {
                syn::TypeParamBound::Trait(t) => Some(t.path.segments.iter().map(|s| s.ident.to_string()).collect()),
                _ => None,
            })
            .collect()
    };
    let mut out: Bounds = g.type_params().map(|p| (p.ident.to_string(), paths(&p.bounds))).collect();
    for pred in g.where_clause.iter().flat_map(|w| &w.predicates) {
        let syn::WherePredicate::Type(pt) = pred else { continue };
        let syn::Type::Path(tp) = &pt.bounded_ty else { continue };
        let Some(name) = tp.path.get_ident().map(|i| i.to_string()) else { continue };
        if let Some((_, bs)) = out.iter_mut().find(|(n, _)| *n == name) {
            bs.extend(paths(&pt.bounds));
        }
    }
    out
}

/// An impl's generics, for a trait impl or a generic impl (its trait's path is `ImplFact::trait_path`).
pub fn impl_trait(i: &syn::ItemImpl, index: usize) -> Option<ImplTrait> {
    if i.trait_.is_none() && i.generics.params.is_empty() {
        return None;
    }
    let self_args = match &*i.self_ty {
        syn::Type::Path(p) => match p.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(super::extract::type_text(t)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    Some(ImplTrait { impl_: index, self_args, bounds: bounds(&i.generics) })
}

/// The method calls of a handler override's body on a `self` field (or a local bound to one) that
/// are given some of its parameters.
pub fn fn_facts(cx: &Cx, sig: &syn::Signature, body: &syn::Block) -> Vec<Delegation> {
    let params = sig
        .inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(t) => Some(super::extract::pat_idents(&t.pat).into_iter().next().unwrap_or_default()),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let mut walk = Walk { cx, params, bound: HashMap::new(), out: Vec::new() };
    walk.visit_block(body);
    walk.out
}

struct Walk<'c, 'a> {
    cx: &'c Cx<'a>,
    /// Parameter names after `self`, by position.
    params: Vec<String>,
    /// Locals bound to a `self` field (the field's path).
    bound: HashMap<String, Vec<String>>,
    out: Vec<Delegation>,
}

impl Walk<'_, '_> {
    /// The `self` field an expression is, through references, guards and `Option` accessors, or
    /// the field a local bound to one stands for.
    fn field_of(&self, e: &Expr) -> Option<Vec<String>> {
        if let Some(path) = super::flow::self_path(e) {
            return Some(path);
        }
        let mut e = e;
        loop {
            e = match e {
                Expr::Path(p) => return self.bound.get(&p.path.get_ident()?.to_string()).cloned(),
                Expr::Reference(r) => &r.expr,
                Expr::Paren(p) => &p.expr,
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
                Expr::MethodCall(m)
                    if m.args.is_empty() && ["as_ref", "as_deref", "clone", "iter"].iter().any(|n| m.method == n) =>
                {
                    &m.receiver
                }
                _ => return None,
            };
        }
    }

    /// Binds what a pattern names (`p`, `Some(p)`, `Ok(p)`, `&p`) to a field.
    fn bind(&mut self, pat: &syn::Pat, field: Option<Vec<String>>) {
        let names = super::extract::pat_idents(pat);
        for n in &names {
            self.bound.remove(n);
        }
        let Some(field) = field else { return };
        if let Some(name) = super::state::bound_name(strip_ref(pat)) {
            self.bound.insert(name, field);
        }
    }

    /// Which parameters an expression mentions.
    fn param_bits(&self, e: &Expr) -> u32 {
        struct Scan<'p> {
            params: &'p [String],
            bits: u32,
        }
        impl<'ast> Visit<'ast> for Scan<'_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(i) = p.path.get_ident()
                    && let Some(n) = self.params.iter().position(|n| i == n)
                {
                    self.bits |= 1u32.checked_shl(n as u32).unwrap_or(0);
                }
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut scan = Scan { params: &self.params, bits: 0 };
        scan.visit_expr(e);
        scan.bits
    }
}

fn strip_ref(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Reference(r) => strip_ref(&r.pat),
        other => other,
    }
}

impl<'ast> Visit<'ast> for Walk<'_, '_> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let field = self.field_of(&m.expr);
        for arm in &m.arms {
            self.bind(&arm.pat, field.clone());
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
        let field = self.field_of(&e.expr);
        self.bind(&e.pat, field);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let field = l.init.as_ref().and_then(|init| {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
            self.field_of(&init.expr)
        });
        self.bind(&l.pat, field);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let field = self.field_of(&f.expr);
        self.bind(&f.pat, field);
        self.visit_block(&f.body);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if let Some(field) = self.field_of(&m.receiver) {
            let params = m.args.iter().fold(0, |bits, a| bits | self.param_bits(a));
            if params != 0 {
                let range =
                    self.cx.span_range(m.method.span()).start..self.cx.span_range(m.paren_token.span.close()).end;
                self.out.push(Delegation { field: field.clone(), method: m.method.to_string(), params, range });
            }
            // `self.resources.as_ref().map(|p| p.subscribe(request, cx))`: the closure's parameter is the field.
            for a in &m.args {
                if let Expr::Closure(c) = a
                    && let Some(first) = c.inputs.first()
                {
                    self.bind(first, Some(field.clone()));
                }
            }
        }
        visit::visit_expr_method_call(self, m);
    }
}

/// A trait method (declared, or in an impl) that answers an MCP method because a handler override
/// hands its request on to it.
pub struct Delegated {
    /// The override that delegates, and the MCP method it answers.
    pub handler: FnId,
    pub method: String,
    /// The trait and its method (`ResourcesProvider`, `subscribe`).
    pub trait_name: String,
    pub trait_method: String,
    /// The impl's self type as written, for a method of an impl; `None` for the declaration.
    pub impl_self: Option<String>,
    /// The impl is a blanket impl (`impl<T: ServerHandler> Provider for T`).
    pub blanket: bool,
    pub file: FileId,
    /// The method's name.
    pub range: Range<usize>,
}

/// Resolves a trait's path as written in a module to a trait of the crate.
type Resolve<'r> = dyn Fn(&[String], &[String]) -> Option<TypeKey> + 'r;

/// Every trait method a handler override delegates its request to, declaration and impls, once
/// each; declarations and impls whose body only rejects are left out.
pub fn delegated(model: &CrateModel) -> Vec<Delegated> {
    let mut traits: HashMap<TypeKey, (FileId, usize)> = HashMap::new();
    for (file, f) in model.files.iter().enumerate() {
        for (i, t) in f.delegation.traits.iter().enumerate() {
            traits.entry(key(&t.module, &t.name)).or_insert((file, i));
        }
    }
    if traits.is_empty() {
        return Vec::new();
    }
    let resolve = |module: &[String], path: &[String]| -> Option<TypeKey> {
        let k = model.resolve_type(module, path);
        traits.contains_key(&k).then_some(k)
    };
    let mut out: Vec<Delegated> = Vec::new();
    for h in model.handlers().iter().filter(|h| h.kind == HandlerKind::Override) {
        let f = model.func(h.fn_);
        if f.delegations.is_empty() {
            continue;
        }
        let request = request_params(model, h.fn_);
        for d in f.delegations.iter().filter(|d| d.params & request != 0) {
            for trait_key in field_traits(model, h.fn_, &d.field, &resolve) {
                let (tfile, ti) = traits[&trait_key];
                let t = &model.files[tfile].delegation.traits[ti];
                let Some(decl) = t.methods.iter().find(|m| m.name == d.method) else { continue };
                let mut push = |impl_self: Option<(String, bool)>, file: FileId, range: Range<usize>| {
                    if !out.iter().any(|o| o.file == file && o.range == range) {
                        out.push(Delegated {
                            handler: h.fn_,
                            method: h.method.clone(),
                            trait_name: t.name.clone(),
                            trait_method: decl.name.clone(),
                            blanket: impl_self.as_ref().is_some_and(|(_, b)| *b),
                            impl_self: impl_self.map(|(t, _)| t),
                            file,
                            range,
                        });
                    }
                };
                if !decl.rejects {
                    push(None, tfile, decl.name_range.clone());
                }
                for id in trait_impls(model, &trait_key, &d.method, &resolve) {
                    let g = model.func(id);
                    if g.rejects {
                        continue;
                    }
                    let shown = model.impl_of(id).map(|i| {
                        // `impl<T: ServerHandler> Provider for T`: every such type.
                        let (file, index) = model.fn_loc[id.0 as usize];
                        let generic = model.files[file].fns[index].impl_.is_some_and(|n| {
                            let imps = &model.files[file].delegation.impls;
                            imps.iter()
                                .any(|it| it.impl_ == n && it.bounds.iter().any(|(b, _)| [b.clone()] == i.self_ty[..]))
                        });
                        (i.self_ty.join("::"), generic)
                    });
                    push(shown, model.file_of(id), g.name_range.clone());
                }
            }
        }
    }
    out
}

/// The parameters of a handler (bits) that carry its request: typed as a request or its params,
/// not its context (`request: SubscribeRequestParams`, not `context: RequestContext<RoleServer>`).
fn request_params(model: &CrateModel, id: FnId) -> u32 {
    model.func(id).params.iter().enumerate().fold(0u32, |bits, (i, p)| {
        let request = (p.ty.contains("Request") || p.ty.contains("Params")) && !p.ty.contains("Context");
        if request { bits | 1u32.checked_shl(i as u32).unwrap_or(0) } else { bits }
    })
}

/// The crate traits a `self` field of method `id`'s type is declared as: `Arc<dyn T>`,
/// `Box<dyn T>`, or a generic parameter of the struct bound by `T` (on the struct, or on the impl
/// that `id` is a method of).
fn field_traits(model: &CrateModel, id: FnId, field: &[String], resolve: &Resolve) -> Vec<TypeKey> {
    let Some(owner) = model.owner(id) else { return Vec::new() };
    let Some((last, prefix)) = field.split_last() else { return Vec::new() };
    let holder = if prefix.is_empty() { Some(owner.clone()) } else { model.field_type(owner, prefix) };
    let Some(holder) = holder else { return Vec::new() };
    let Some(&(tfile, ti)) = model.types.get(&holder) else { return Vec::new() };
    let fact = &model.files[tfile].types[ti];
    let Some((_, written)) = fact.fields.iter().find(|(n, _)| n == last) else { return Vec::new() };
    let inner = unwrapped(written);
    if let Some(name) = inner.strip_prefix("dyn ").or_else(|| inner.strip_prefix("impl ")) {
        return resolve(&fact.module, &[name.to_owned()]).into_iter().collect();
    }
    // A generic parameter of the struct: its bounds there, and the bounds the impl puts on the
    // argument in its place (`impl<R: P> ServerHandler for Server<R>`).
    let files = &model.files;
    let Some((pos, (_, struct_bounds))) = files[tfile]
        .delegation
        .struct_generics
        .iter()
        .find(|(t, _)| *t == ti)
        .and_then(|(_, g)| g.iter().enumerate().find(|(_, (n, _))| n == inner))
    else {
        return Vec::new();
    };
    let mut out: Vec<TypeKey> = struct_bounds.iter().filter_map(|b| resolve(&fact.module, b)).collect();
    let (file, index) = model.fn_loc[id.0 as usize];
    let f = &files[file].fns[index];
    if prefix.is_empty()
        && let Some(imp) = f.impl_.and_then(|i| files[file].delegation.impls.iter().find(|it| it.impl_ == i))
        && let Some(arg) = imp.self_args.get(pos)
        && let Some((_, bs)) = imp.bounds.iter().find(|(n, _)| n == arg)
    {
        out.extend(bs.iter().filter_map(|b| resolve(&f.module, b)));
    }
    out.sort();
    out.dedup();
    out
}

/// The type under `Option`, `Arc`, `Box`, `Rc`, `Vec` and locks (`Option<Arc<dyn P>>` → `dyn P`).
fn unwrapped(ty: &str) -> &str {
    const WRAPPERS: &[&str] = &["Option", "Arc", "Box", "Rc", "Vec", "Mutex", "RwLock", "RefCell"];
    let mut t = ty.trim().trim_start_matches('&').trim();
    while let Some((outer, rest)) = t.split_once('<') {
        match rest.strip_suffix('>') {
            Some(inner) if WRAPPERS.contains(&outer.trim()) => t = inner.trim(),
            _ => break,
        }
    }
    t
}

/// The methods named `method` of every impl of trait `trait_key` in the crate.
fn trait_impls(model: &CrateModel, trait_key: &TypeKey, method: &str, resolve: &Resolve) -> Vec<FnId> {
    let mut out = Vec::new();
    for id in model.fn_ids() {
        let (file, index) = model.fn_loc[id.0 as usize];
        let f = &model.files[file].fns[index];
        if f.name != method {
            continue;
        }
        let Some(i) = f.impl_ else { continue };
        let imp = &model.files[file].impls[i];
        if !imp.trait_path.is_empty() && resolve(&imp.module, &imp.trait_path).as_ref() == Some(trait_key) {
            out.push(id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::model_of;

    fn found(model: &CrateModel) -> Vec<(String, Option<String>, String)> {
        delegated(model).into_iter().map(|d| (d.trait_name, d.impl_self, d.method)).collect()
    }

    #[test]
    fn a_generic_field_bound_on_the_impl() {
        let model = model_of(&[
            (
                "src/providers.rs",
                "pub trait Feeds { fn subscribe(&self, r: SubscribeRequestParams) -> R; fn list(&self) -> R { todo!() } }\n",
            ),
            (
                "src/server.rs",
                "use crate::providers::Feeds;\npub struct Srv<F> { feeds: Option<F>, n: u8 }\n\
                 impl<F> ServerHandler for Srv<F> where F: Feeds {\n\
                   async fn subscribe(&self, request: SubscribeRequestParams, cx: RequestContext<RoleServer>) -> R {\n\
                     match &self.feeds { Some(f) => f.subscribe(request, cx).await, None => Err(nope()) }\n\
                   }\n\
                   async fn unsubscribe(&self, request: UnsubscribeRequestParams, cx: RequestContext<RoleServer>) -> R {\n\
                     self.feeds.as_ref().map(|f| f.list()); Ok(())\n\
                   }\n}\n",
            ),
            (
                "src/impls.rs",
                "use crate::providers::Feeds;\npub struct A;\npub struct B;\n\
                 impl Feeds for A { fn subscribe(&self, r: SubscribeRequestParams) -> R { Ok(()) } }\n\
                 impl Feeds for B { fn subscribe(&self, r: SubscribeRequestParams) -> R { Err(unsupported()) } }\n\
                 impl Other for B { fn subscribe(&self, r: SubscribeRequestParams) -> R { Ok(()) } }\n",
            ),
        ]);
        let feeds = || "Feeds".to_owned();
        let sub = || "resources/subscribe".to_owned();
        assert_eq!(found(&model), [(feeds(), None, sub()), (feeds(), Some("A".to_owned()), sub())]);
    }

    #[test]
    fn a_trait_object_field_and_no_request_passed() {
        let model = model_of(&[(
            "src/lib.rs",
            "pub trait Levels { fn set_level(&self, l: Level) -> R; }\n\
             pub trait Quiet { fn set_level(&self, l: Level) -> R; }\n\
             pub struct Srv { levels: Box<dyn Levels + Send>, quiet: Arc<dyn Quiet> }\n\
             impl ServerHandler for Srv {\n\
               async fn set_level(&self, request: SetLevelRequestParams, cx: RequestContext<RoleServer>) -> R {\n\
                 self.quiet.set_level(Level::Info); self.levels.set_level(request.level)\n\
               }\n}\n\
             impl Levels for Srv { fn set_level(&self, l: Level) -> R { Ok(()) } }\n\
             impl Quiet for Srv { fn set_level(&self, l: Level) -> R { Ok(()) } }\n",
        )]);
        let levels = || "Levels".to_owned();
        let set = || "logging/setLevel".to_owned();
        assert_eq!(found(&model), [(levels(), None, set()), (levels(), Some("Srv".to_owned()), set())]);
    }
}
