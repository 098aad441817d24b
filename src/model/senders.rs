//! Which functions send which MCP requests, through the crate's call graph, and which trait consts
//! are a request's method.
//!
//! A function sends a method when its body does (`SendFacts::methods`: a `ServerRequest::<Variant>`
//! value in server code, or handed to a sending call (a sending verb, `dispatch…`, `send…`; not a
//! handler's `handle_request`); a struct literal or `json!` object with a literal `method` and an
//! `id`; a sending call with the method string), when it hands the method literal to a crate
//! function that makes its parameter a request's method (`requests`), or when it calls a crate
//! function that sends it. Calls resolve as the model's calls do; a method called on a `self` field
//! (or a local bound to one) whose declared type is a trait object of the crate's trait
//! (`Arc<dyn Requester>`, also through a `type` alias), and `self.m()` in the trait's default
//! methods (kept apart from the model's functions, `TraitFacts::defaults`), resolve to that method
//! of the crate's impls of the trait (from non-test code, only the impls outside tests). Client code
//! sends nothing. A function whose code only builds an MRTR input request sends nothing: such a
//! request has no `id` and no sending call.
//!
//! A generic function (`fn execute<C: Command>`) that makes `C::NAME` a request's method, itself
//! or through a crate function's method parameter, makes every value of `NAME` in the crate's
//! impls of the trait a method the crate sends (`trait_const_methods`).
//!
//! Facts are kept only in files with the words of a server-sent request (`SEND_WORDS`), and for
//! trait consts only in functions with generic parameters bound by a trait; the traits, `dyn`
//! type aliases and MCP method strings of trait impls' consts are kept in every file.

use std::ops::Range;

use foldhash::{HashMap, HashSet};
use syn::Expr;

use super::{Callee, CrateModel, FileId, FnId, key};
use crate::context::Role;
use crate::cx::Cx;
use crate::rust::requests::{SERVER_REQUEST_VARIANTS, is_send_verb};

/// Words of a file whose functions may send a request to the client: the wire strings of the
/// requests a server sent and the SDK enum that carries them.
const SEND_WORDS: &[&str] =
    &["sampling/createMessage", "elicitation/create", "roots/list", "\"ping\"", "ServerRequest"];

/// Whether a file's functions' sends are kept.
pub fn file_gate(cx: &Cx) -> bool {
    SEND_WORDS.iter().any(|w| cx.file.text.contains(w))
}

/// Item facts of one file.
#[derive(Debug, Clone, Default)]
pub struct TraitFacts {
    /// `type Name = …;` whose type names a trait object: (module, name, the type as written).
    pub aliases: Vec<(Vec<String>, String, String)>,
    /// Consts of trait impls whose value is an MCP method string.
    pub consts: Vec<ImplConst>,
    /// In files with `SEND_WORDS`, the default methods of traits (an index into the file's
    /// `delegation.traits`, the traits it defines), which
    /// are no function of the model: only their sends and calls are read.
    pub defaults: Vec<(usize, super::FnFact)>,
}

/// `impl Trait for T { const NAME: &str = "initialize"; }`.
#[derive(Debug, Clone)]
pub struct ImplConst {
    /// The impl, an index into the file's `impls`.
    pub impl_: usize,
    pub name: String,
    pub value: String,
    /// The literal.
    pub range: Range<usize>,
}

/// What one function sends.
#[derive(Debug, Clone, Default)]
pub struct SendFacts {
    /// MCP methods its body sends as requests, with the range of the literal or request value.
    pub methods: Vec<(String, Range<usize>)>,
    /// `C::NAME` of a parameter `C: Trait` made a request's method.
    pub trait_consts: Vec<TraitConstUse>,
}

#[derive(Debug, Clone)]
pub struct TraitConstUse {
    /// The bound as written (`McpCommand`, `crate::cmd::Command`).
    pub trait_: Vec<String>,
    pub name: String,
    /// `None`: put into a request by the body; else handed as argument `.1` of call `.0` (an index
    /// into `calls`).
    pub call: Option<(usize, usize)>,
}

/// What `BodySends::enter_call` counted, for `leave_call`.
#[derive(Clone, Copy)]
pub struct CallMark {
    receives: bool,
    defers: bool,
}

/// A call that stores a function to run later: `set_request_callback`, `add_handler`,
/// `register_listener`, `on_message`.
fn installs_callback(name: &str) -> bool {
    name.starts_with("on_")
        || (["set_", "add_", "register", "install", "with_"].iter().any(|p| name.starts_with(p))
            && ["callback", "handler", "listener", "hook"].iter().any(|w| name.contains(w)))
}

/// The walk's state for one function body.
#[derive(Default)]
pub struct BodySends {
    /// The file has `SEND_WORDS`.
    gate: bool,
    /// Server code (`new`).
    server: bool,
    /// Generic parameters with their trait bound (`C: McpCommand` → `("C", ["McpCommand"])`).
    bounds: Vec<(String, Vec<String>)>,
    /// Locals bound to a `self` field (`let r = self.requester.as_ref()?`): the field path.
    field_locals: HashMap<String, Vec<String>>,
    facts: SendFacts,
    /// How many calls that hand a server's message to the process's own handler enclose the
    /// expression walked (`quoted::receives`): a request built there is received, not sent.
    receiving: u32,
    /// How many calls that install a callback enclose the expression walked (`enter_call`).
    deferred: u32,
    /// What the body builds for its result's `inputRequests` through a local
    /// (`requests::input_request_builders`): MRTR input requests, asked for, not sent.
    input_builders: Vec<std::ops::Range<usize>>,
}

impl BodySends {
    /// `server`: the function is server code, where a `ServerRequest` value is one the server sends.
    pub fn new(gate: bool, server: bool, generics: &syn::Generics) -> BodySends {
        let mut bounds = Vec::new();
        let path_of = |b: &syn::TypeParamBound| match b {
            syn::TypeParamBound::Trait(t) => Some(t.path.segments.iter().map(|s| s.ident.to_string()).collect()),
            _ => None,
        };
        for p in &generics.params {
            if let syn::GenericParam::Type(t) = p {
                bounds.extend(t.bounds.iter().filter_map(path_of).map(|b| (t.ident.to_string(), b)));
            }
        }
        for w in generics.where_clause.iter().flat_map(|w| &w.predicates) {
            if let syn::WherePredicate::Type(t) = w
                && let syn::Type::Path(ty) = &t.bounded_ty
                && let Some(name) = ty.path.get_ident()
            {
                bounds.extend(t.bounds.iter().filter_map(path_of).map(|b| (name.to_string(), b)));
            }
        }
        BodySends { gate, server, bounds, ..Default::default() }
    }

    /// Whether the file has the words of a server-sent request.
    pub fn gated(&self) -> bool {
        self.gate
    }

    /// The facts, if any.
    pub fn finish(self) -> Option<Box<SendFacts>> {
        let f = self.facts;
        (!f.methods.is_empty() || !f.trait_consts.is_empty()).then(|| Box::new(f))
    }

    /// `let name = <init>`: a local bound to a `self` field through unwrapping accessors.
    pub fn bind(&mut self, pat: &syn::Pat, init: &Expr) {
        // Most `let`s bind no field and shadow none (this runs for every `let` of every function).
        let path = unwrapped_self_path(init);
        if path.is_none() && self.field_locals.is_empty() {
            return;
        }
        let Some(name) = super::state::bound_name(pat) else { return };
        match path {
            Some(path) => self.field_locals.insert(name, path),
            None => self.field_locals.remove(&name),
        };
    }

    /// A new binding of `name`: no longer a `self` field's.
    pub fn forget(&mut self, name: &str) {
        if !self.field_locals.is_empty() {
            self.field_locals.remove(name);
        }
    }

    /// The field path a method call's receiver is bound to, if it is such a local.
    pub fn field_local(&self, receiver: &Expr) -> Option<Vec<String>> {
        let Expr::Path(p) = receiver else { return None };
        let ident = p.path.get_ident()?;
        // Without allocating the name: this is asked for every method call on a plain name.
        self.field_locals.iter().find(|(name, _)| ident == name.as_str()).map(|(_, path)| path.clone())
    }

    /// A call (`index` in `calls`, or `None` for one the model keeps no call of, on a receiver of
    /// unknown type) named `name` (the last segment of its path, or the method), with its arguments.
    pub fn call(&mut self, index: Option<usize>, name: &str, args: &[&Expr]) {
        if self.bounds.is_empty() {
            return;
        }
        // A call the model does not resolve counts only by a distinctive sending name.
        let direct = index.is_none() && super::requests::sends_its_method_argument(name);
        for (i, a) in args.iter().enumerate() {
            if let Some((trait_, const_)) = self.trait_const(a)
                && (index.is_some() || direct)
            {
                self.facts.trait_consts.push(TraitConstUse { trait_, name: const_, call: index.map(|c| (c, i)) });
            }
        }
    }

    /// Any call named `name` (a method's, or a path's last segment): one that sends (a sending verb,
    /// `dispatch…`, `send…`) sends the MCP method strings and `ServerRequest` values among its
    /// arguments, whatever the side of the code (a handler's `handle_request(ServerRequest::…)`
    /// receives one).
    pub fn sending_call(&mut self, cx: &Cx, name: &str, args: &[&Expr]) {
        if !self.gate
            || self.deferred > 0
            || !(is_send_verb(name) || name.starts_with("dispatch") || name.starts_with("send"))
        {
            return;
        }
        for (_, value, range) in super::requests::method_args(cx, args) {
            self.facts.methods.push((value, range));
        }
        for a in args {
            if let Some((path, method)) = request_value_of(a) {
                self.facts.methods.push((method.to_owned(), cx.node_range(path)));
            }
        }
    }

    /// A request value written as a path (`ServerRequest::Ping`, the callee of
    /// `ServerRequest::CreateMessage(p)`): in server code, one the server sends.
    pub fn request_value(&mut self, path: &[String], range: Range<usize>) {
        if self.gate
            && self.server
            && self.deferred == 0
            && let Some(method) = server_request_variant(path)
        {
            self.facts.methods.push((method.to_owned(), range));
        }
    }

    /// The `method` of a request the body builds (a struct literal's, with an `id`).
    /// Around a call of `name`: whether it hands what it is given to the process's own handler
    /// (`client.handle_server_request(req)`); `leave_call` with the answer after its arguments.
    /// Asked only where sends are kept (`gate`).
    /// Also whether it installs what it is given as a callback (`set_request_callback(Arc::new(
    /// move |req| ..))`): a request built there is sent when the callback runs, in answer to
    /// something else, not by this function (the sending code is reported where it is written).
    pub fn enter_call(&mut self, name: Option<&str>) -> CallMark {
        let receives = self.gate && name.is_some_and(crate::rust::quoted::receives);
        let defers = self.gate && name.is_some_and(installs_callback);
        self.receiving += u32::from(receives);
        self.deferred += u32::from(defers);
        CallMark { receives, defers }
    }

    pub fn leave_call(&mut self, mark: CallMark) {
        self.receiving -= u32::from(mark.receives);
        self.deferred -= u32::from(mark.defers);
    }

    pub fn request_method(&mut self, cx: &Cx, method: &Expr) {
        if self.gate
            && self.receiving == 0
            && self.deferred == 0
            && let Some((value, range)) = crate::rust::syntax::str_value(cx, method)
            && super::handlers::is_mcp_method(&value)
        {
            self.facts.methods.push((value, range));
        }
        if let Some((trait_, name)) = self.trait_const(method) {
            self.facts.trait_consts.push(TraitConstUse { trait_, name, call: None });
        }
    }

    /// The ranges of what the body builds for its result's `inputRequests`.
    pub fn input_builders(&mut self, ranges: Vec<std::ops::Range<usize>>) {
        self.input_builders = ranges;
    }

    /// The string literals a `json!` body at `range` (its delimiters) makes the `"method"` of an
    /// object with an `"id"`.
    pub fn json(&mut self, cx: &Cx, tokens: &proc_macro2::TokenStream, range: std::ops::Range<usize>) {
        if !self.gate
            || self.receiving > 0
            || self.deferred > 0
            || self.input_builders.iter().any(|b| super::within(&range, b))
        {
            return;
        }
        for (value, span) in super::requests::json_request_method_literals(tokens) {
            if super::handlers::is_mcp_method(&value) {
                self.facts.methods.push((value, cx.span_range(span)));
            }
        }
    }

    /// `C::NAME` (through `.to_string()`, `&`, `.into()`) where `C` is a bound parameter.
    fn trait_const(&self, e: &Expr) -> Option<(Vec<String>, String)> {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
                let param = p.path.segments[0].ident.to_string();
                let name = p.path.segments[1].ident.to_string();
                let (_, bound) = self.bounds.iter().find(|(b, _)| *b == param)?;
                Some((bound.clone(), name))
            }
            Expr::Reference(r) => self.trait_const(&r.expr),
            Expr::Paren(p) => self.trait_const(&p.expr),
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(m.method.to_string().as_str(), "to_string" | "into" | "to_owned" | "as_str") =>
            {
                self.trait_const(&m.receiver)
            }
            _ => None,
        }
    }
}

/// The method a `ServerRequest::<Variant>` path stands for.
fn server_request_variant(path: &[String]) -> Option<&'static str> {
    let [.., enum_, variant] = path else { return None };
    if enum_ != "ServerRequest" {
        return None;
    }
    SERVER_REQUEST_VARIANTS.iter().find(|(v, _)| v == variant).map(|(_, m)| *m)
}

/// `ServerRequest::<Variant>(..)` or `ServerRequest::<Variant>` (through `.into()`, `&`,
/// parentheses): its path and method.
fn request_value_of(e: &Expr) -> Option<(&syn::ExprPath, &'static str)> {
    let segments = |p: &syn::ExprPath| p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>();
    match e {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => server_request_variant(&segments(p)).map(|m| (p, m)),
            _ => None,
        },
        Expr::Path(p) => server_request_variant(&segments(p)).map(|m| (p, m)),
        Expr::MethodCall(m) if m.args.is_empty() && m.method == "into" => request_value_of(&m.receiver),
        Expr::Reference(r) => request_value_of(&r.expr),
        Expr::Paren(p) => request_value_of(&p.expr),
        _ => None,
    }
}

/// The `self` field path of `self.a.b` under `as_ref()`, `clone()`, `ok_or(..)`, `?`, `.await`, `&`.
fn unwrapped_self_path(e: &Expr) -> Option<Vec<String>> {
    const UNWRAPS: &[&str] =
        &["as_ref", "as_deref", "clone", "ok_or", "ok_or_else", "unwrap", "expect", "context", "with_context"];
    match e {
        Expr::MethodCall(m) if UNWRAPS.iter().any(|u| m.method == u) => unwrapped_self_path(&m.receiver),
        Expr::Try(t) => unwrapped_self_path(&t.expr),
        Expr::Await(a) => unwrapped_self_path(&a.base),
        Expr::Reference(r) => unwrapped_self_path(&r.expr),
        Expr::Paren(p) => unwrapped_self_path(&p.expr),
        Expr::Field(_) => super::flow::self_path(e),
        _ => None,
    }
}

/// A call of a crate function that sends requests, and the methods its callee sends.
#[derive(Debug, Clone)]
pub struct SenderCall<'m> {
    /// The calling function, or `None` for a trait's default method (no function of the model).
    pub caller: Option<FnId>,
    pub caller_name: &'m str,
    pub file: FileId,
    /// The call.
    pub range: Range<usize>,
    pub role: Role,
    pub test: bool,
    pub callee: FnId,
    pub methods: Vec<&'m str>,
    /// For a call on a trait object (or on `self` in a trait's default method): the trait whose
    /// impl the callee is.
    pub trait_: Option<&'m str>,
}

/// A trait const's value that a generic function makes a request's method.
#[derive(Debug, Clone)]
pub struct ConstMethod<'m> {
    /// The generic function.
    pub sender: FnId,
    pub file: FileId,
    pub value: &'m str,
    pub range: Range<usize>,
    pub trait_: &'m str,
    pub name: &'m str,
}

/// The crate's traits and what each function sends (`CrateModel::senders`).
#[derive(Debug, Default)]
pub struct Senders {
    traits: HashSet<String>,
    /// The names a crate trait can be written by in some module: the traits' own names and the
    /// aliases of `use`s that lead to one (`use crate::p::Provider as P;`). Most impls are of other
    /// crates' traits (`From`, `Display`, serde's): their paths end in no such name and are not
    /// followed through the modules.
    trait_names: HashSet<String>,
    /// The method names of the crate traits' impls: a call by another name resolves to none of them.
    impl_method_names: HashSet<String>,
    /// Alias key → (its module, the type as written).
    aliases: HashMap<String, (Vec<String>, String)>,
    /// Trait key → its impls (file, index in `impls`).
    impls: HashMap<String, Vec<(FileId, usize)>>,
    /// The methods of each impl of a crate trait.
    impl_fns: HashMap<(FileId, usize), Vec<FnId>>,
    /// Calls that resolve to the impls of a trait object's trait: per function, (call, callee).
    dyn_callees: Vec<Vec<(usize, FnId)>>,
    /// The resolved calls of trait default methods: (file, index in its `defaults`, call, callee,
    /// whether through the trait's impls).
    default_calls: Vec<(FileId, usize, usize, FnId, bool)>,
    /// The methods sent, interned.
    methods: Vec<String>,
    /// Per function, the methods (bits into `methods`) it sends.
    bits: Vec<u64>,
}

impl Senders {
    fn new(model: &CrateModel) -> Senders {
        let mut s = Senders::default();
        for f in &model.files {
            for t in &f.delegation.traits {
                s.traits.insert(key(&t.module, &t.name));
            }
            for (module, name, ty) in &f.traits.aliases {
                s.aliases.insert(key(module, name), (module.clone(), ty.clone()));
            }
        }
        s.trait_names = model
            .written_names(model.files.iter().flat_map(|f| &f.delegation.traits).map(|t| t.name.clone()).collect());
        for (file, f) in model.files.iter().enumerate() {
            for (i, imp) in f.impls.iter().enumerate() {
                if !imp.trait_path.is_empty()
                    && let Some(t) = s.resolve_trait(model, &imp.module, &imp.trait_path)
                {
                    s.impls.entry(t).or_default().push((file, i));
                }
            }
        }
        if !s.impls.is_empty() {
            let of_traits: HashSet<(FileId, usize)> = s.impls.values().flatten().copied().collect();
            for id in model.fn_ids() {
                let (file, index) = model.fn_loc[id.0 as usize];
                if let Some(imp) = model.files[file].fns[index].impl_
                    && of_traits.contains(&(file, imp))
                {
                    s.impl_fns.entry((file, imp)).or_default().push(id);
                }
            }
            s.impl_method_names = s.impl_fns.values().flatten().map(|&id| model.func(id).name.clone()).collect();
        }
        s.dyn_callees = if s.impls.is_empty() {
            vec![Vec::new(); model.fn_loc.len()]
        } else {
            model.fn_ids().map(|id| s.find_dyn_callees(model, id)).collect()
        };
        s.default_calls = s.find_default_calls(model);
        s.propagate(model);
        s
    }

    /// The crate trait a path names in `module`.
    fn resolve_trait(&self, model: &CrateModel, module: &[String], path: &[String]) -> Option<String> {
        let (name, prefix) = path.split_last()?;
        if !self.trait_names.contains(name) {
            return None;
        }
        let module = if prefix.is_empty() { module.to_vec() } else { model.resolve_module(module, prefix, 0)? };
        self.follow(model, &module, name, 0, &|k| self.traits.contains(k))
    }

    /// `name` as seen from `module`, where `known` says which keys exist: defined there, imported
    /// by name, or through a glob.
    fn follow(
        &self,
        model: &CrateModel,
        module: &[String],
        name: &str,
        depth: usize,
        known: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        let here = key(module, name);
        if known(&here) {
            return Some(here);
        }
        if depth > 4 {
            return None;
        }
        let uses = model.uses.get(module)?;
        for u in uses.iter().filter(|u| !u.glob && u.alias == name) {
            let (last, prefix) = u.target.split_last()?;
            if let Some(m) = model.resolve_module(module, prefix, depth + 1)
                && let Some(found) = self.follow(model, &m, last, depth + 1, known)
            {
                return Some(found);
            }
        }
        for u in uses.iter().filter(|u| u.glob) {
            if let Some(m) = model.resolve_module(module, &u.target, depth + 1)
                && let Some(found) = self.follow(model, &m, name, depth + 1, known)
            {
                return Some(found);
            }
        }
        None
    }

    /// The crate trait a type as written in `module` is an object of (`Arc<dyn T>`,
    /// `Option<Box<dyn T>>`, a `type` alias of one).
    fn dyn_trait(&self, model: &CrateModel, module: &[String], written: &str, depth: usize) -> Option<String> {
        if let Some(at) = written.find("dyn ") {
            let name: String = written[at + 4..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            return self.resolve_trait(model, module, &[name]);
        }
        if depth > 2 || self.aliases.is_empty() {
            return None;
        }
        let name = super::roots::innermost(written).trim_start_matches('&');
        let alias = self.follow(model, module, name, 0, &|k| self.aliases.contains_key(k))?;
        let (alias_module, ty) = &self.aliases[&alias];
        self.dyn_trait(model, alias_module, ty, depth + 1)
    }

    /// The calls trait default methods make: `self.m(..)` resolves to `m` of the crate's impls of
    /// the trait (non-test impls from non-test code), a path as the model's calls do.
    fn find_default_calls(&self, model: &CrateModel) -> Vec<(FileId, usize, usize, FnId, bool)> {
        let mut out = Vec::new();
        for (file, f) in model.files.iter().enumerate() {
            for (d, (t, fact)) in f.traits.defaults.iter().enumerate() {
                let (module, name) = (&f.delegation.traits[*t].module, &f.delegation.traits[*t].name);
                let impls = self.impls.get(&key(module, name)).map_or(&[][..], Vec::as_slice);
                for (i, call) in fact.calls.iter().enumerate() {
                    match &call.callee {
                        Callee::SelfMethod(m) => {
                            for callee in self.impl_methods(model, impls, m, fact.test) {
                                out.push((file, d, i, callee, true));
                            }
                        }
                        Callee::Path(path) => {
                            for callee in model.resolve_fn_path(&fact.module, None, path).unwrap_or_default() {
                                out.push((file, d, i, callee, false));
                            }
                        }
                        Callee::FieldMethod(..) => {}
                    }
                }
            }
        }
        out
    }

    /// The methods named `name` of these impls; from non-test code, only those outside tests.
    fn impl_methods<'s>(
        &'s self,
        model: &'s CrateModel,
        impls: &'s [(FileId, usize)],
        name: &'s str,
        test: bool,
    ) -> impl Iterator<Item = FnId> + 's {
        impls.iter().flat_map(move |imp| self.impl_fns.get(imp).map_or(&[][..], Vec::as_slice)).copied().filter(
            move |&id| {
                let f = model.func(id);
                f.name == name && (test || !f.test)
            },
        )
    }

    fn find_dyn_callees(&self, model: &CrateModel, id: FnId) -> Vec<(usize, FnId)> {
        let mut out = Vec::new();
        let Some(owner) = model.owner(id) else { return out };
        let test = model.func(id).test;
        for (i, call) in model.func(id).calls.iter().enumerate() {
            let Callee::FieldMethod(path, name) = &call.callee else { continue };
            if !self.impl_method_names.contains(name) {
                continue;
            }
            let Some((last, parents)) = path.split_last() else { continue };
            let Some(holder) = model.field_type(owner, parents) else { continue };
            let Some(fact) = model.type_fact(&holder) else { continue };
            let Some((_, written)) = fact.fields.iter().find(|(f, _)| f == last) else { continue };
            let Some(t) = self.dyn_trait(model, &fact.module, written, 0) else { continue };
            let impls = self.impls.get(&t).map_or(&[][..], Vec::as_slice);
            out.extend(self.impl_methods(model, impls, name, test).map(|callee| (i, callee)));
        }
        out
    }

    fn method_bit(&mut self, method: &str) -> u64 {
        let i = match self.methods.iter().position(|m| m == method) {
            Some(i) => i,
            None => {
                self.methods.push(method.to_owned());
                self.methods.len() - 1
            }
        };
        if i < 64 { 1 << i } else { 0 }
    }

    /// Seeds (what bodies send and the method literals handed to request helpers), then through the
    /// calls until nothing changes. Client code and test code send nothing of their own; client
    /// code does not pass on what its callees send.
    fn propagate(&mut self, model: &CrateModel) {
        let mut bits = vec![0u64; model.fn_loc.len()];
        let seeds_in = |id: FnId| model.role(id) != Role::Client && !model.func(id).test;
        for id in model.fn_ids() {
            if !seeds_in(id) {
                continue;
            }
            let f = model.func(id);
            for (method, _) in f.sends.iter().flat_map(|s| &s.methods) {
                // A `ping` is sent to the client only by server code.
                if method != "ping" || model.role(id) == Role::Server {
                    bits[id.0 as usize] |= self.method_bit(method);
                }
            }
        }
        for sent in model.sent_method_literals() {
            let id = sent.caller;
            if seeds_in(id) && (sent.method != "ping" || model.role(id) == Role::Server) {
                bits[id.0 as usize] |= self.method_bit(sent.method);
            }
        }
        if bits.iter().any(|b| *b != 0) {
            let passing: Vec<FnId> = model
                .fn_ids()
                .filter(|&id| {
                    model.role(id) != Role::Client
                        && (!model.callees_of(id).is_empty() || !self.dyn_callees[id.0 as usize].is_empty())
                })
                .collect();
            super::requests::settle(&mut bits, &passing, |id, bits| {
                let mut gained = bits[id.0 as usize];
                for &(_, callee) in model.callees_of(id).iter().chain(&self.dyn_callees[id.0 as usize]) {
                    gained |= bits[callee.0 as usize];
                }
                gained
            });
        }
        self.bits = bits;
    }

    fn methods_of(&self, bits: u64) -> Vec<&str> {
        (0..self.methods.len().min(64)).filter(|i| bits & (1 << i) != 0).map(|i| self.methods[i].as_str()).collect()
    }
}

impl CrateModel {
    fn senders(&self) -> &Senders {
        self.senders.get_or_init(|| Senders::new(self))
    }

    /// The MCP methods a function sends as requests, itself or through the functions it calls.
    pub fn sent_methods(&self, id: FnId) -> Vec<&str> {
        let s = self.senders();
        s.methods_of(s.bits[id.0 as usize])
    }

    /// Calls of functions that send requests (`sent_methods`), in code that is not a client's
    /// (trait default methods included).
    pub fn sender_calls(&self) -> Vec<SenderCall<'_>> {
        let s = self.senders();
        if s.bits.iter().all(|b| *b == 0) {
            return Vec::new();
        }
        let trait_of = |callee: FnId, on_object: bool| {
            if on_object { self.impl_of(callee).and_then(|i| i.trait_.as_deref()) } else { None }
        };
        let mut out = Vec::new();
        for caller in self.fn_ids() {
            let role = self.role(caller);
            if role == Role::Client {
                continue;
            }
            let f = self.func(caller);
            let resolved = self.callees_of(caller).iter().map(|&c| (c, false));
            let dyn_ = s.dyn_callees[caller.0 as usize].iter().map(|&c| (c, true));
            for ((call, callee), on_object) in resolved.chain(dyn_) {
                let bits = s.bits[callee.0 as usize];
                if bits != 0 && callee != caller {
                    out.push(SenderCall {
                        caller: Some(caller),
                        caller_name: &f.name,
                        file: self.file_of(caller),
                        range: f.calls[call].range.clone(),
                        role,
                        test: f.test,
                        callee,
                        methods: s.methods_of(bits),
                        trait_: trait_of(callee, on_object),
                    });
                }
            }
        }
        for &(file, d, call, callee, on_object) in &s.default_calls {
            let bits = s.bits[callee.0 as usize];
            let (_, f) = &self.files[file].traits.defaults[d];
            let role = if f.role != Role::Unknown { f.role } else { self.files[file].role };
            if bits != 0 && role != Role::Client {
                out.push(SenderCall {
                    caller: None,
                    caller_name: &f.name,
                    file,
                    range: f.calls[call].range.clone(),
                    role,
                    test: f.test,
                    callee,
                    methods: s.methods_of(bits),
                    trait_: trait_of(callee, on_object),
                });
            }
        }
        out
    }

    /// Every value of a trait const that a generic function makes a request's method, in the
    /// crate's impls of the trait.
    pub fn trait_const_methods(&self) -> Vec<ConstMethod<'_>> {
        let mut out = Vec::new();
        let users: Vec<FnId> = self
            .fn_ids()
            .filter(|&id| self.func(id).sends.as_ref().is_some_and(|s| !s.trait_consts.is_empty()))
            .collect();
        if users.is_empty() {
            return out;
        }
        let s = self.senders();
        for id in users {
            let f = self.func(id);
            for u in f.sends.iter().flat_map(|s| &s.trait_consts) {
                let is_method = match u.call {
                    None => true,
                    Some((call, arg)) => self.callees_of(id).iter().filter(|(i, _)| *i == call).any(|&(_, callee)| {
                        let offset = self.receiver_offset(&f.calls[call].callee, callee);
                        arg.checked_sub(offset)
                            .is_some_and(|p| p < 32 && self.request_method_params(callee) & (1 << p) != 0)
                    }),
                };
                if !is_method {
                    continue;
                }
                let Some(t) = s.resolve_trait(self, &f.module, &u.trait_) else { continue };
                for &(file, imp) in s.impls.get(&t).map_or(&[][..], Vec::as_slice) {
                    for c in self.files[file].traits.consts.iter().filter(|c| c.impl_ == imp && c.name == u.name) {
                        let trait_ = self.files[file].impls[imp].trait_.as_deref().unwrap_or_default();
                        out.push(ConstMethod {
                            sender: id,
                            file,
                            value: &c.value,
                            range: c.range.clone(),
                            trait_,
                            name: &c.name,
                        });
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::model::tests::model_of;

    #[test]
    fn sends_through_wrappers_and_trait_objects() {
        let model = model_of(&[
            (
                "src/out.rs",
                "pub trait Ask { fn model(&self, p: Value) -> Value; }
pub type AskRef = Arc<dyn Ask>;
pub struct Chan;
impl Chan { fn post(&self, method: &str, p: Value) { self.tx.send(Msg { id: 1, method: method.to_string(), p }); } }
impl Ask for Chan { fn model(&self, p: Value) -> Value { self.post(\"sampling/createMessage\", p) } }
",
            ),
            (
                "src/ctx.rs",
                "use crate::out::AskRef;
pub struct Ctx { ask: Option<AskRef>, other: Option<Arc<dyn Write>> }
impl Ctx {
    pub fn sample(&self, p: Value) { let a = self.ask.as_ref().unwrap(); a.model(p); }
    pub fn twice(&self) { self.sample(v); self.sample(v); }
    pub fn flush(&self) { if let Some(w) = &self.other { w.model(v); } }
    pub fn mrtr(&self) -> Value { json!({\"resultType\": \"input_required\", \"inputRequests\": {\"a\": {\"method\": \"sampling/createMessage\"}}}) }
}
",
            ),
        ]);
        let f = |path: &[&str]| model.fn_by_path(path).unwrap();
        assert_eq!(model.sent_methods(f(&["out", "Chan", "model"])), ["sampling/createMessage"]);
        assert!(model.sent_methods(f(&["out", "Chan", "post"])).is_empty(), "the method is its parameter");
        assert_eq!(model.sent_methods(f(&["ctx", "Ctx", "twice"])), ["sampling/createMessage"]);
        assert!(model.sent_methods(f(&["ctx", "Ctx", "flush"])).is_empty(), "another crate's trait");
        assert!(model.sent_methods(f(&["ctx", "Ctx", "mrtr"])).is_empty(), "an MRTR input request is not sent");
        let calls: Vec<(&str, &str, Option<&str>)> = model
            .sender_calls()
            .iter()
            .map(|c| (c.caller_name, model.func(c.callee).name.as_str(), c.trait_))
            .collect();
        assert_eq!(calls, [("sample", "model", Some("Ask")), ("twice", "sample", None), ("twice", "sample", None)]);
    }

    #[test]
    fn trait_consts_made_request_methods() {
        let model = model_of(&[
            (
                "src/cmd.rs",
                "pub trait Cmd { const NAME: &'static str; }
pub struct Init;
impl Cmd for Init { const NAME: &'static str = \"initialize\"; }
pub trait Label { const NAME: &'static str; }
impl Label for Init { const NAME: &'static str = \"ping\"; }
",
            ),
            (
                "src/client.rs",
                "use crate::cmd::{Cmd, Label};
pub struct Client;
impl Client {
    fn send(&self, method: &str) { write(json!({\"id\": 1, \"method\": method})); }
    pub fn run<C: Cmd>(&self) { self.send(C::NAME); }
    pub fn show<L>(&self) where L: Label { println!(\"{}\", L::NAME); }
}
",
            ),
        ]);
        let found: Vec<(&str, &str)> = model.trait_const_methods().iter().map(|c| (c.trait_, c.value)).collect();
        assert_eq!(found, [("Cmd", "initialize")]);
    }
}
