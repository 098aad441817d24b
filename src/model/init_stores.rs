//! Client data that code answering `initialize` keeps: the state places (`state`) written, while
//! answering it, with client data (`Origins::client_data`) or with the `initialize` request's
//! parameters (in the handler, or a helper's `InitializeRequest*` parameter), followed into the
//! helpers the handler calls; a struct literal stored whole stores the fields given that data. The
//! store and a later read may be in different files. `inferred-client-capabilities` asks it (`InitHandlers::of`, `find_stores`).

use foldhash::{HashSet, HashSetExt};
use std::ops::Range;

use super::state::{Place, PlaceRoot, member_shown};
use super::{CrateModel, FieldAccess, FileId, FnId, Handler, HandlerKind, Origins, Root, within};
use crate::context::Role;

/// The MCP methods whose handlers see the `initialize` exchange.
const INIT_METHODS: &[&str] = &["initialize", "notifications/initialized"];

/// How far stores are followed into the helpers an `initialize` handler calls.
const MAX_CALL_DEPTH: usize = 4;

/// Client data stored in a state place while answering `initialize`.
pub struct Store {
    /// The state place the client data went to (`Workspace.client`, `Inner.sessions.caps`, a loop
    /// local of `main`).
    pub place: Place,
    /// The stored place as the storing statement spells it, and its file.
    pub file: FileId,
    pub range: Range<usize>,
    pub init_fn: String,
}

impl Store {
    /// A read of `place` reads the stored value, or a part of it.
    pub fn holds(&self, place: &Place) -> bool {
        place.root == self.place.root && place.path.starts_with(&self.place.path)
    }

    /// The place as a reader in function `reader` would name it.
    pub fn shown(&self, model: &CrateModel, reader: FnId) -> String {
        let (head, members) = match &self.place.root {
            PlaceRoot::Type(ty) if model.owner(reader) == Some(ty) => ("self".to_owned(), &self.place.path[..]),
            PlaceRoot::Type(ty) => (ty.rsplit("::").next().unwrap_or(ty).to_owned(), &self.place.path[..]),
            PlaceRoot::Local(_, name) | PlaceRoot::Global(name) => {
                (name.rsplit("::").next().unwrap_or(name).to_owned(), &self.place.path[..])
            }
        };
        let path: String = members.iter().map(|m| format!(".{}", member_shown(m))).collect();
        format!("`{head}{path}`")
    }
}

/// The server's `initialize` handlers: trait overrides and dispatcher arms, and every function
/// they reach.
pub struct InitHandlers<'m> {
    handlers: Vec<&'m Handler>,
    /// (dispatcher, arm): code in the arm answers `initialize`.
    pub arms: Vec<(FnId, Range<usize>)>,
    reached: HashSet<FnId>,
}

impl<'m> InitHandlers<'m> {
    pub fn of(model: &'m CrateModel) -> Self {
        let handlers: Vec<&Handler> = INIT_METHODS
            .iter()
            .flat_map(|m| model.handlers_for(m).chain(model.variant_handlers_for(m)))
            .filter(|h| match h.kind {
                HandlerKind::Override => h.side == Role::Server,
                HandlerKind::Arm => h.side != Role::Client,
                HandlerKind::Attribute => false,
            })
            .collect();
        let arms = handlers.iter().filter_map(|h| h.arm.clone().map(|a| (h.fn_, a))).collect();
        let mut reached = HashSet::new();
        for h in &handlers {
            for (_, callee) in model.handler_callees(h) {
                reached.extend(model.reachable_from(callee));
            }
        }
        InitHandlers { handlers, arms, reached }
    }

    pub fn is_empty(&self) -> bool {
        self.handlers.is_empty()
    }

    /// The overriding functions (`ServerHandler::initialize`, `on_initialized`).
    pub(super) fn overrides(&self) -> impl Iterator<Item = FnId> + '_ {
        self.handlers.iter().filter(|h| h.kind == HandlerKind::Override).map(|h| h.fn_)
    }

    /// Dispatcher arms answering `initialize`: (dispatcher, arm, method).
    pub(super) fn arm_methods(&self) -> Vec<(FnId, Range<usize>, String)> {
        self.handlers.iter().filter_map(|h| Some((h.fn_, h.arm.clone()?, h.method.clone()))).collect()
    }

    /// Every function the handlers' code calls, directly or not.
    pub(super) fn reached(&self) -> &HashSet<FnId> {
        &self.reached
    }

    /// An `initialize` override, or a helper only `initialize` code calls: its reads answer no
    /// other request.
    pub fn only_for_initialize(&self, model: &CrateModel, id: FnId) -> bool {
        let is_override = |f: FnId| self.handlers.iter().any(|h| h.fn_ == f && h.kind == HandlerKind::Override);
        // A dispatcher calling it from its `initialize` arm only; a test calling the handler
        // (`handle_initialize` in its unit test) answers nothing.
        let from_arms_only = |c: FnId| {
            let calls = &model.func(c).calls;
            model
                .callees_of(c)
                .iter()
                .filter(|&&(_, to)| to == id)
                .all(|&(i, _)| self.arms.iter().any(|(f, arm)| *f == c && super::within(&calls[i].range, arm)))
        };
        is_override(id)
            || self.reached.contains(&id)
                && model
                    .callers_of(id)
                    .iter()
                    .all(|&c| self.reached.contains(&c) || is_override(c) || model.func(c).test || from_arms_only(c))
                && !self.arms.iter().any(|(f, _)| *f == id)
    }
}

/// The places `init`'s handlers store client data in, the outermost where one lies under another:
/// writes of client data or of the `initialize` request's parameters, in the handler (its arm for
/// a dispatcher) and in the helpers it hands them to, `MAX_CALL_DEPTH` calls deep.
pub fn find_stores(model: &CrateModel, init: &InitHandlers) -> Vec<Store> {
    let mut out: Vec<Store> = Vec::new();
    for h in &init.handlers {
        // Every access the handler's code makes, with the place the model gives it.
        let state = model.handler_state(h, &|_| true);
        let place_of = |id: FnId, access: &FieldAccess| {
            state.uses.iter().find(|u| u.fn_ == id && std::ptr::eq(u.access, access)).map(|u| &u.place)
        };
        let f = model.func(h.fn_);
        let init_fn = if h.kind == HandlerKind::Arm { h.method.clone() } else { f.name.clone() };
        let mut seen = HashSet::new();
        let mut stack = vec![(h.fn_, 0, h.arm.clone(), 0)];
        while let Some((id, taint, arm, depth)) = stack.pop() {
            // The `initialize` request itself, in the handler and in a helper it hands the
            // request to (`self.initialize(params.to()?)`): `p: InitializeRequestParams`.
            let taint = taint | initialize_params(model, id);
            if !seen.insert((id, taint)) {
                continue;
            }
            let f = model.func(id);
            let file = model.file_of(id);
            let inside = |r: &Range<usize>| arm.as_ref().is_none_or(|a| within(r, a));
            for access in f.fields.iter().chain(&f.places) {
                let Some(value) = access.write else { continue };
                let tainted = |o: &Origins| o.client_data || o.params & taint != 0;
                if !tainted(&value) || !inside(&access.full_range()) {
                    continue;
                }
                // `self.data = Some(Arc::new(Data { init: p, .. }))`: the literal's fields that
                // hold the data are the places, where the model knows the type; for a keyed map's
                // entry (`sessions.insert(id, Session { caps, .. })`), members of the map's place.
                let fields: Vec<(Place, Range<usize>)> = access
                    .literal
                    .iter()
                    .flat_map(|lit| {
                        lit.fields.iter().filter(|(_, o, _)| tainted(o)).filter_map(|(name, _, range)| {
                            let place = if lit.entry {
                                let map = place_of(id, access)?;
                                Place {
                                    root: map.root.clone(),
                                    path: [&map.path[..], std::slice::from_ref(name)].concat(),
                                }
                            } else {
                                model.literal_place(id, &lit.ty, name)?
                            };
                            Some((place, range.clone()))
                        })
                    })
                    .collect();
                if !fields.is_empty() {
                    for (place, range) in &fields {
                        add_store(&mut out, model, place, range.clone(), file, &init_fn);
                    }
                } else if let Some(place) = place_of(id, access) {
                    // `self.bag.insert(v)` on an object of the crate's own type, no typed entry:
                    // where the value goes is that type's business, as for a type's whole value.
                    let by_method = access.op.as_ref().is_some_and(|op| op.how != "=" && op.how != "+=");
                    if by_method && model.is_unseen_crate_object(place) {
                        continue;
                    }
                    // `self.<field>` as the statement spells it; the whole place when reached through a local.
                    let range = if access.aliased || access.root != Root::SelfValue {
                        access.full_range()
                    } else {
                        access.range(1)
                    };
                    add_store(&mut out, model, place, range, file, &init_fn);
                }
            }
            if depth == MAX_CALL_DEPTH {
                continue;
            }
            for &(i, callee) in model.callees_of(id) {
                let call = &f.calls[i];
                if !inside(&call.range) {
                    continue;
                }
                // A path call to a method (`Self::m(self, x)`) passes the receiver first.
                let skip = !call.callee.has_receiver() && model.func(callee).has_self;
                let bits = call.args.iter().skip(skip as usize).enumerate().fold(0u32, |bits, (j, a)| {
                    let tainted = a.client_data || a.params & taint != 0;
                    if tainted { bits | 1u32.checked_shl(j as u32).unwrap_or(0) } else { bits }
                });
                stack.push((callee, bits, None, depth + 1));
            }
        }
    }
    out
}

/// The parameters of function `id` (bits as in `Origins::params`) that take the `initialize`
/// request (`request: InitializeRequestParams`).
fn initialize_params(model: &CrateModel, id: FnId) -> u32 {
    model
        .func(id)
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.ty.contains("InitializeRequest"))
        .fold(0u32, |bits, (i, _)| bits | 1u32.checked_shl(i as u32).unwrap_or(0))
}

/// Adds a store, unless its place is not one to follow (a type's whole value, a parameter no caller
/// binds) or another store covers it.
fn add_store(
    out: &mut Vec<Store>,
    model: &CrateModel,
    place: &Place,
    range: Range<usize>,
    file: FileId,
    init_fn: &str,
) {
    match &place.root {
        // A type's whole value (`self.session.insert(..)` with `session: SessionState`, and no
        // typed entry) would make every read of that type a read of the client data: not a flow
        // we can tell.
        PlaceRoot::Type(_) if place.path.is_empty() => return,
        // A parameter no caller binds (`fn serve(state: &mut State, ..)`): whether its value
        // outlives one request is the unseen caller's choice.
        PlaceRoot::Local(f, name) if model.func(*f).params.iter().any(|p| p.name.as_ref() == Some(name)) => return,
        _ => {}
    }
    // Stored where another store already covers, or under it: one store, the outermost.
    let under = |outer: &Place, inner: &Place| outer.root == inner.root && inner.path.starts_with(&outer.path);
    if out.iter().any(|s| under(&s.place, place)) {
        return;
    }
    out.retain(|s| !under(place, &s.place));
    out.push(Store { place: place.clone(), file, range, init_fn: init_fn.to_owned() });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::model_of;

    /// The stores `initialize` code makes, as (root, path).
    fn stores(model: &CrateModel) -> Vec<(PlaceRoot, Vec<String>)> {
        let init = InitHandlers::of(model);
        find_stores(model, &init).into_iter().map(|s| (s.place.root, s.place.path)).collect()
    }

    #[test]
    fn typed_map_entry_written_in_a_request_enum_arm() {
        let model = model_of(&[
            (
                "src/router.rs",
                "use crate::session::Bag;\npub struct Router { bag: Bag }\nimpl Router {\n\
                 fn keep(&self, info: Option<&proto::Implementation>, n: u8) { if let Some(info) = info { self.bag.insert(info.clone()); } self.bag.insert(n); }\n\
                 async fn handle(&self, req: Req) { match req {\n\
                   Req::Initialize(p) => { self.keep(Some(&p.client_info), 1); }\n\
                   Req::ListTools(_) => {}\n  _ => {}\n } }\n}\n",
            ),
            (
                "src/ctx.rs",
                "use crate::session::Bag;\npub struct Ctx { bag: Option<Bag> }\nimpl Ctx {\n\
                 fn bag(&self) -> Option<&Bag> { self.bag.as_ref() }\n\
                 pub fn who(&self) -> Option<Implementation> { self.bag()?.get::<Implementation>() }\n}\n",
            ),
        ]);
        let bag = PlaceRoot::Type("session::Bag".to_owned());
        let entry = vec!["<Implementation>".to_owned()];
        assert_eq!(stores(&model), [(bag.clone(), entry.clone())], "`n` is not client data, nor keyed by a type");
        // Read through the accessor, in another file: the same entry.
        let who = model.fn_by_path(&["ctx", "Ctx", "who"]).unwrap();
        let reads: Vec<Place> = model.state_uses(who, None, &|_| false).uses.into_iter().map(|u| u.place).collect();
        assert!(reads.contains(&Place { root: bag, path: entry }), "{reads:?}");
    }

    #[test]
    fn struct_literal_fields_of_a_helper_given_the_request() {
        let model = model_of(&[
            (
                "src/conn.rs",
                "pub(crate) struct Kept { pub(crate) hello: InitializeRequestParams, pub(crate) at: u64 }
                 pub struct Conn { kept: Option<Arc<Kept>> }
impl Conn {
                 fn on(&mut self, method: &str, params: Value) { match method {
                   \"initialize\" => self.begin(from_value(params)),
  \"tools/list\" => {}
  _ => {}
 } }
                 fn begin(&mut self, hello: InitializeRequestParams) { self.kept = Some(Arc::new(Kept { hello, at: now() })); }
}
",
            ),
            (
                "src/cx.rs",
                "use crate::conn::Kept;
pub struct Cx { kept: Arc<Kept> }
impl Cx {
                 fn who(&self) -> &Implementation { &self.kept.hello.client_info }
                 fn age(&self) -> u64 { self.kept.at }
}
",
            ),
        ]);
        let kept = PlaceRoot::Type("conn::Kept".to_owned());
        assert_eq!(stores(&model), [(kept.clone(), vec!["hello".to_owned()])], "the field, not `Conn.kept`");
        let who = model.fn_by_path(&["cx", "Cx", "who"]).unwrap();
        let reads: Vec<Place> = model.state_uses(who, None, &|_| false).uses.into_iter().map(|u| u.place).collect();
        let path = vec!["hello".to_owned(), "client_info".to_owned()];
        assert_eq!(reads, [Place { root: kept, path }], "a client-data type's members stay the field's");
    }

    #[test]
    fn a_keyed_entry_literal_behind_a_trait_object_parameter() {
        // The handshake arm matches a method constant; the store is a `&dyn Sessions` parameter
        // that no caller binds, read back in another file through `get(id)`.
        let model = model_of(&[
            (
                "src/route.rs",
                "use crate::keep::Sessions;\n\
                 fn hello(s: &dyn Sessions, req: &Req) { let p: InitializeRequestParams = parse(req); \
                   s.insert(sid(req), Seen { caps: p.capabilities.clone(), at: now() }); }\n\
                 fn route(s: &dyn Sessions, req: Req) { match req.method.as_str() {\n\
                   methods::INITIALIZE => hello(s, &req),\n  methods::TOOLS_LIST => {}\n  _ => {}\n } }\n",
            ),
            (
                "src/keep.rs",
                "pub struct Seen { pub caps: Value, pub at: u64 }\n\
                 pub trait Sessions { fn insert(&self, id: &str, s: Seen); fn get(&self, id: &str) -> Option<Seen>; }\n\
                 pub fn caps_of(s: &dyn Sessions, id: &str) -> Option<Value> { let seen = s.get(id)?; Some(seen.caps) }\n",
            ),
        ]);
        let sessions = PlaceRoot::Type("keep::Sessions".to_owned());
        assert_eq!(stores(&model), [(sessions.clone(), vec!["caps".to_owned()])], "`at` is the server's clock");
        let caps_of = model.fn_by_path(&["keep", "caps_of"]).unwrap();
        let reads: Vec<Place> = model.state_uses(caps_of, None, &|_| false).uses.into_iter().map(|u| u.place).collect();
        assert!(reads.contains(&Place { root: sessions, path: vec!["caps".to_owned()] }), "{reads:?}");
    }

    #[test]
    fn an_untyped_insert_into_an_object_of_the_crate_is_no_store() {
        // `Bag`'s file is not in the model: what its `insert` keys `n` by is not seen.
        let model = model_of(&[(
            "src/lib.rs",
            "use crate::bag::Bag;
pub struct S { bag: Bag, seen: HashSet<String> }
             impl ServerHandler for S {
               async fn initialize(&self, request: InitializeRequestParams) { let n = request.client_info.name.clone();                self.bag.insert(n.clone()); self.seen.insert(n); }
}
",
        )]);
        let s = PlaceRoot::Type("S".to_owned());
        assert_eq!(stores(&model), [(s, vec!["seen".to_owned()])], "a set of the standard library is one place");
    }
}
