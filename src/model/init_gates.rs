//! Handshake gates: state that only code answering `initialize` (or `notifications/initialized`)
//! sets, checked by other code before it answers (`if !self.ready { return Err(..) }`, a match
//! guard `_ if !initialized => error_response(..)`). A 2026-07-28 client never sends `initialize`,
//! so such a check turns every request of that client away. `removed-method` asks it
//! (`find_gates`).
//!
//! Conservative: a place counts only when every write of it in the crate that may turn it on is in
//! `initialize` code (an override, the dispatcher's arm, or a function only that code calls; a
//! `false` / `None` / `take()` elsewhere turns it off); client data that
//! `initialize` keeps is `init_stores`'. Whether the condition also reads the request's own
//! protocol declaration (a dual-era server's legacy gate) is the rule's to read in the text.

use foldhash::{HashSet, HashSetExt};
use std::ops::Range;

use super::init_stores::{InitHandlers, find_stores};
use super::state::{Place, PlaceRoot, StateUses};
use super::{CrateModel, FieldAccess, FileId, FnId, Root, within};
use crate::context::Role;

/// Parts of the words of a file that may hold a handshake gate (the flag's name, its error
/// message, the `on_initialized` hook): only there are guards kept (`FnFact::guards`).
const GATE_WORD_PARTS: &[&str] = &["nitialized", "NITIALIZED", "andshake"];

/// The words that make the prefilter read a file with a gate where `removed-method` is selected
/// (its crate words): narrower than `GATE_WORD_PARTS`, which generated bindings are full of
/// (`E_NOT_INITIALIZED`), and each one of them.
pub const GATE_WORDS: &[&str] = &["not initialized", "Not initialized", ".initialized", "handshake"];

pub fn file_gate(cx: &crate::cx::Cx) -> bool {
    has_gate_words(&cx.file.text)
}

fn has_gate_words(text: &str) -> bool {
    // Three passes over the text.
    GATE_WORD_PARTS.iter().any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some())
}

#[cfg(test)]
#[test]
fn every_gate_word_keeps_guards() {
    for word in GATE_WORDS {
        assert!(has_gate_words(word), "{word}");
    }
}

/// A check of handshake state before a request is answered.
pub struct Gate<'m> {
    /// The function that checks, and the read in its condition.
    pub fn_: FnId,
    pub read: &'m FieldAccess,
    /// The condition the read stands in.
    pub guard: Range<usize>,
    /// Where the condition reads the place through a getter (`!self.is_ready()`): that call, in
    /// `fn_`, and the getter, whose body holds `read`.
    pub via: Option<(Range<usize>, FnId)>,
    pub place: Place,
    /// One write of the place in `initialize` code.
    pub set_in: FileId,
    pub set_at: Range<usize>,
    pub init_fn: String,
}

impl<'m> Gate<'m> {
    fn new(
        fn_: FnId,
        read: &'m FieldAccess,
        guard: Range<usize>,
        via: Option<(Range<usize>, FnId)>,
        place: Place,
    ) -> Self {
        Gate { fn_, read, guard, via, place, set_in: 0, set_at: 0..0, init_fn: String::new() }
    }
}

/// Every handshake gate of the crate.
pub fn find_gates<'m>(model: &'m CrateModel, init: &InitHandlers) -> Vec<Gate<'m>> {
    if init.is_empty() {
        return Vec::new();
    }
    let code = init.code(model);
    // Reads in a guard, outside `initialize` code.
    let mut gates: Vec<Gate> = Vec::new();
    for id in model.fn_ids() {
        let f = model.func(id);
        if f.guards.is_empty() || f.test || model.role(id) == Role::Client || code.only.contains(&id) {
            continue;
        }
        for u in model.state_uses(id, None, &|_| false).uses {
            let range = u.access.full_range();
            if u.access.write.is_some() || code.in_arm(id, &range) {
                continue;
            }
            let Some((guard, _)) = f.guards.iter().find(|(_, tested)| within(&range, tested)) else { continue };
            gates.push(Gate::new(id, u.access, guard.clone(), None, u.place));
        }
        // Through a getter the guard calls: what the getter's result tests is read by the guard.
        for &(i, getter) in model.callees_of(id) {
            let call = &f.calls[i].range;
            let g = model.func(getter);
            let Some((guard, _)) = f.guards.iter().find(|(_, tested)| within(call, tested)) else { continue };
            if g.getter_tests.is_empty() || code.only.contains(&getter) || code.in_arm(id, call) {
                continue;
            }
            for u in model.state_uses(getter, None, &|_| false).uses {
                let range = u.access.full_range();
                if u.access.write.is_none() && g.getter_tests.iter().any(|tested| within(&range, tested)) {
                    gates.push(Gate::new(id, u.access, guard.clone(), Some((call.clone(), getter)), u.place));
                }
            }
        }
    }
    if gates.is_empty() {
        return gates;
    }
    // Client data kept by `initialize` is a store, not a gate.
    let stores = find_stores(model, init);
    gates.retain(|g| !stores.iter().any(|s| s.place.related(&g.place)));
    // Every write of the gated places: all of them in `initialize` code, one at least.
    let mut outside: Vec<bool> = vec![false; gates.len()];
    let mut seen = HashSet::new();
    // Only functions that name a gated member where they write or hand on a place can write it
    // (a helper given `&mut self.ready` writes through its parameter, as the caller's place).
    let root_name = |g: &Gate| match &g.place.root {
        PlaceRoot::Local(_, name) | PlaceRoot::Global(name) => {
            Some(name.rsplit("::").next().unwrap_or(name).to_owned())
        }
        PlaceRoot::Type(_) => None,
    };
    // The read's own members too: a field whose type is a crate type (`stage: Stage`) is that
    // type's place, with no member left (`model::state`'s `through_fields`).
    let members: HashSet<String> =
        gates.iter().flat_map(|g| g.place.path.iter().chain(&g.read.path).cloned().chain(root_name(g))).collect();
    let names = |path: &[String]| path.iter().any(|m| members.contains(m));
    let may_write = |id: FnId| {
        let f = model.func(id);
        f.fields.iter().chain(&f.places).any(|a| a.write.is_some() && names(&a.path))
            || f.calls.iter().flat_map(|c| c.arg_places.iter().flatten()).any(|(_, path)| names(path))
    };
    for id in model.fn_ids().filter(|&id| may_write(id)) {
        for u in model.state_uses(id, None, &|_| true).uses {
            let range = u.access.full_range();
            if u.access.write.is_none() || !seen.insert((u.fn_, range.start, u.place.clone())) {
                continue;
            }
            let in_init = code.only.contains(&u.fn_) || code.in_arm(u.fn_, &range);
            // Turning it off again elsewhere (`"shutdown" => self.ready = false`) never opens it.
            let resets = u.access.op.as_ref().is_some_and(|op| op.resets);
            if !in_init && resets {
                continue;
            }
            for (i, g) in gates.iter_mut().enumerate() {
                if !g.place.related(&u.place) {
                    continue;
                }
                if !in_init {
                    outside[i] = true;
                } else if g.init_fn.is_empty() {
                    g.set_in = model.file_of(u.fn_);
                    g.set_at = range.clone();
                    g.init_fn = code.init_fn(model, u.fn_, &range);
                }
            }
        }
    }
    // A struct literal outside `initialize` code that starts the flag on: the gate is open from the
    // start (`Server { ready: AtomicBool::new(true), .. }` in `main`).
    for id in model.fn_ids().filter(|id| !model.func(*id).on_inits.is_empty() && !code.only.contains(id)) {
        let f = model.func(id);
        for (ty, field) in &f.on_inits {
            let key = match ty.as_slice() {
                [one] if one == "Self" => model.owner(id).cloned(),
                _ => Some(model.resolve_type(&f.module, ty)),
            };
            for (i, g) in gates.iter().enumerate() {
                if let PlaceRoot::Type(owner) = &g.place.root
                    && Some(owner) == key.as_ref()
                    && g.place.path.first() == Some(field)
                {
                    outside[i] = true;
                }
            }
        }
    }
    // A flag handed in by the caller (`fn handle(ready: &mut bool, ..)`): the caller may turn it on.
    for (i, g) in gates.iter().enumerate() {
        if let PlaceRoot::Local(f, name) = &g.place.root
            && model.func(*f).params.iter().any(|p| p.name.as_ref() == Some(name))
        {
            outside[i] |= callers_may_turn_on(model, &code, *f, name);
        }
    }
    let mut i = 0;
    gates.retain(|g| {
        i += 1;
        !outside[i - 1] && !g.init_fn.is_empty()
    });
    gates
}

/// Whether a caller of `f` may turn on what it hands to `f`'s parameter `name`: it writes that
/// place itself (but for `false` / `None`), outside `initialize` code, or hands on a local or
/// something that is no place; or `f` has no caller to tell.
fn callers_may_turn_on(model: &CrateModel, code: &InitCode, f: FnId, name: &str) -> bool {
    let callee = model.func(f);
    let Some(index) = callee.params.iter().position(|p| p.name.as_deref() == Some(name)) else { return true };
    let callers = model.callers_of(f);
    callers.is_empty()
        || callers.iter().any(|&c| {
            let caller = model.func(c);
            model.callees_of(c).iter().filter(|(_, to)| *to == f).any(|&(i, _)| {
                let call = &caller.calls[i];
                // A path call to a method (`Self::m(self, x)`) passes the receiver first.
                let skip = usize::from(!call.callee.has_receiver() && callee.has_self);
                let Some(Some((root, path))) = call.arg_places.get(index + skip) else { return true };
                // A local of the caller: its `let` (`= cfg.open`) and writes outside a loop are
                // not all seen.
                if *root == Root::Local {
                    return true;
                }
                !code.only.contains(&c)
                    && caller.fields.iter().chain(&caller.places).any(|a| {
                        let turns_on = a.write.is_some() && !a.op.as_ref().is_some_and(|op| op.resets);
                        turns_on && a.root == *root && a.path.starts_with(path) && !code.in_arm(c, &a.full_range())
                    })
            })
        })
}

/// The code that answers `initialize`: the overrides and helpers only it calls, and the
/// dispatcher arms.
pub struct InitCode {
    pub only: HashSet<FnId>,
    arms: Vec<(FnId, Range<usize>, String)>,
}

impl InitCode {
    pub fn in_arm(&self, id: FnId, range: &Range<usize>) -> bool {
        self.arms.iter().any(|(f, arm, _)| *f == id && within(range, arm))
    }

    /// What the write at `range` in `id` answers, as a message names it.
    fn init_fn(&self, model: &CrateModel, id: FnId, range: &Range<usize>) -> String {
        match self.arms.iter().find(|(f, arm, _)| *f == id && within(range, arm)) {
            Some((_, _, method)) => method.clone(),
            None => model.func(id).name.clone(),
        }
    }
}

impl InitHandlers<'_> {
    /// The functions only `initialize` code runs: its overrides, and (to a fixed point) every
    /// function whose calls all stand in that code or in an `initialize` arm.
    pub fn code(&self, model: &CrateModel) -> InitCode {
        let arms = self.arm_methods();
        let mut only: HashSet<FnId> = self.overrides().collect();
        let in_arm = |id: FnId, r: &Range<usize>| arms.iter().any(|(f, arm, _)| *f == id && within(r, arm));
        let mut candidates: Vec<FnId> = self.reached().iter().copied().filter(|f| !only.contains(f)).collect();
        loop {
            let before = only.len();
            candidates.retain(|&id| {
                let callers = model.callers_of(id);
                let all_init = !callers.is_empty()
                    && callers.iter().all(|&c| {
                        only.contains(&c)
                            || model
                                .callees_of(c)
                                .iter()
                                .filter(|(_, to)| *to == id)
                                .all(|(i, _)| in_arm(c, &model.func(c).calls[*i].range))
                    });
                if all_init {
                    only.insert(id);
                }
                !all_init
            });
            if only.len() == before {
                break;
            }
        }
        InitCode { only, arms }
    }
}

/// Which of `uses` (of the code `state_uses` walked for them) only decide whether the request is
/// turned away: a read in a value a rejecting guard tests (`if !self.ready { return Err(..) }`), or
/// in what a `bool` getter tests where every call of it in that code stands in such a value
/// (`if !self.is_ready()`). Whatever the code answers when it does not turn the request away does
/// not depend on them. Known only where guards are kept (`FnFact::guards`).
pub fn guard_tests(model: &CrateModel, uses: &StateUses) -> Vec<bool> {
    let in_guard =
        |id: FnId, range: &Range<usize>| model.func(id).guards.iter().any(|(_, tested)| within(range, tested));
    // Every call of the getter in that code stands in a guard (and there is one).
    let getter_called_in_guards = |getter: FnId| {
        let calls: Vec<(FnId, &Range<usize>)> = uses
            .code
            .iter()
            .flat_map(|(c, range)| {
                let caller = model.func(*c);
                model
                    .callees_of(*c)
                    .iter()
                    .filter(move |&&(_, to)| to == getter)
                    .map(move |&(i, _)| (*c, &caller.calls[i].range))
                    .filter(move |(_, call)| range.as_ref().is_none_or(|r| within(call, r)))
            })
            .collect();
        !calls.is_empty() && calls.iter().all(|(c, call)| in_guard(*c, call))
    };
    uses.uses
        .iter()
        .map(|u| {
            let range = u.access.full_range();
            let f = model.func(u.fn_);
            u.access.write.is_none()
                && (in_guard(u.fn_, &range)
                    || (f.getter_tests.iter().any(|tested| within(&range, tested)) && getter_called_in_guards(u.fn_)))
        })
        .collect()
}
