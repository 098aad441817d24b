//! Client data that code answering `initialize` keeps: the state places (`state`) written, while
//! answering it, with client data (`Origins::client_data`) or with the `initialize` request's
//! parameters, followed into the helpers the handler calls. The store and a later read may be in
//! different files. `inferred-client-capabilities` asks it (`InitHandlers::of`, `find_stores`).

use foldhash::{HashSet, HashSetExt};
use std::ops::Range;

use super::state::{Place, PlaceRoot};
use super::{CrateModel, FieldAccess, FileId, FnId, Handler, HandlerKind, Root, within};
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
        let path: String = members.iter().map(|m| format!(".{m}")).collect();
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
            .flat_map(|m| model.handlers_for(m))
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

    /// An `initialize` override, or a helper only `initialize` code calls: its reads answer no
    /// other request.
    pub fn only_for_initialize(&self, model: &CrateModel, id: FnId) -> bool {
        let is_override = |f: FnId| self.handlers.iter().any(|h| h.fn_ == f && h.kind == HandlerKind::Override);
        is_override(id)
            || self.reached.contains(&id)
                && model.callers_of(id).iter().all(|c| self.reached.contains(c) || is_override(*c))
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
        // The `initialize` request itself: `request: InitializeRequestParams`.
        let taint = f
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ty.contains("InitializeRequest"))
            .fold(0u32, |bits, (i, _)| bits | 1u32.checked_shl(i as u32).unwrap_or(0));
        let init_fn = if h.kind == HandlerKind::Arm { h.method.clone() } else { f.name.clone() };
        let mut seen = HashSet::new();
        let mut stack = vec![(h.fn_, taint, h.arm.clone(), 0)];
        while let Some((id, taint, arm, depth)) = stack.pop() {
            if !seen.insert((id, taint)) {
                continue;
            }
            let f = model.func(id);
            let inside = |r: &Range<usize>| arm.as_ref().is_none_or(|a| within(r, a));
            for access in f.fields.iter().chain(&f.places) {
                let Some(value) = access.write else { continue };
                if (value.client_data || value.params & taint != 0)
                    && inside(&access.full_range())
                    && let Some(place) = place_of(id, access)
                {
                    add_store(&mut out, model, place, access, model.file_of(id), &init_fn);
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

/// Adds a store, unless its place is not one to follow (a type's whole value, a parameter no caller
/// binds) or another store covers it.
fn add_store(
    out: &mut Vec<Store>,
    model: &CrateModel,
    place: &Place,
    access: &FieldAccess,
    file: FileId,
    init_fn: &str,
) {
    match &place.root {
        // A type's whole value (`self.session.insert(..)` with `session: SessionState`) would make
        // every read of that type a read of the client data: not a flow we can tell.
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
    // `self.<field>` as the statement spells it; the whole place when reached through a local.
    let range = if access.aliased || access.root != Root::SelfValue { access.full_range() } else { access.range(1) };
    out.push(Store { place: place.clone(), file, range, init_fn: init_fn.to_owned() });
}
