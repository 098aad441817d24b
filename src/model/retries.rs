//! JSON-RPC request ids in client code, for `retry-reuses-request-id`: per function, what one walk
//! of it collects (`walk`: request constructions with where their id comes from, sends, retry
//! loops, bindings, writes, MRTR mentions), and across functions which helpers make a parameter the
//! `id` of a request they build (`fn call(&self, id: u64, method: &str, …) { json!({"id": id,
//! "method": method, …}) }`) and which send a request value they are given (`fn post(&self, msg:
//! &Value)`), through the crate's calls. A retry loop in one function that calls such a helper with
//! the same id binding or literal on every attempt reuses the id as much as one that builds the
//! request itself; a helper that mints its own id (`let id = self.next_id();` inside it) never
//! takes one from its caller, so its callers send a fresh id each time.
//!
//! Kept only in crates with a file that has MRTR words (the rule's own trigger words): there,
//! every function that is not server code and takes a parameter is walked for the helper facts;
//! the whole walk is kept only for functions that mention MRTR (`rust::mrtr_mentions`), the ones
//! the rule judges. Functions the model does not hold (trait default methods, functions declared
//! in macro bodies) that mention MRTR are kept beside it (`loose_fns`, `RetryWalk::macro_fns`),
//! judged on their own attempts.

mod walk;

/// The rule that asks these facts: a crate gets them where a file selects it by its own words.
pub const RULE: &str = "retry-reuses-request-id";

pub(crate) use walk::{Binding, Build, CallSite, IdSource, Init, Loop, SendEv, Write, resolve};

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

use super::{CrateModel, FnId};
use crate::context::Role;
use crate::cx::Cx;
use crate::rust::macro_body::MacroBody;
use crate::rust::mrtr_mentions::{MRTR_WORDS, Mentions, mentions_mrtr_text};
use crate::rust::syntax::fn_text;

/// A function's facts about request ids.
#[derive(Debug, Clone, Default)]
pub struct RetryFacts {
    /// Parameters (bits as in `Origins::params`) that become the `id` of a request the body builds.
    pub id_params: u32,
    /// Parameters (bits) that the body passes whole to a send-like call.
    pub sent_params: u32,
    /// Calls of what may be the crate's functions: for a function the rule judges, every one that
    /// may take an id or a value to send; for a helper, those that pass one of its parameters on.
    pub(crate) calls: Vec<CallSite>,
    /// For a function that mentions MRTR: the rest of its walk.
    pub(crate) walk: Option<RetryWalk>,
}

/// What the rule judges in a function that mentions MRTR.
#[derive(Debug, Clone)]
pub(crate) struct RetryWalk {
    pub(crate) mentions: Mentions,
    pub(crate) loops: Vec<Loop>,
    pub(crate) bindings: Vec<Binding>,
    pub(crate) builds: Vec<Build>,
    pub(crate) sends: Vec<SendEv>,
    pub(crate) writes: Vec<Write>,
    pub(crate) returned: Vec<(String, usize)>,
    /// The functions declared in its macro bodies that mention MRTR (no functions of the model):
    /// judged on their own attempts.
    pub(crate) macro_fns: Vec<RetryFacts>,
}

/// A function's attempts: its own request constructions and sends, then those its calls of the
/// crate's helpers make (`CrateModel::retry_attempts`).
pub(crate) struct Attempts {
    pub(crate) builds: Vec<Build>,
    /// How many of `builds` the function builds itself (the first ones).
    pub(crate) own_builds: usize,
    pub(crate) sends: Vec<SendEv>,
}

/// What `fn_facts` needs of the file: whether it has MRTR words at all (when it has none, none of
/// its functions is searched for them).
#[derive(Debug, Clone, Copy)]
pub struct FileGate {
    mrtr: bool,
}

impl FileGate {
    /// Most files have no MRTR word: one pass over the text for all of them as plain words, then
    /// the words as the prefilter counts them only where one is there.
    pub fn of(cx: &Cx) -> FileGate {
        static SEARCH: OnceLock<AhoCorasick> = OnceLock::new();
        let search = SEARCH.get_or_init(|| {
            let words = MRTR_WORDS.iter().map(|w| crate::prefilter::split_word(w).0);
            // Leftmost matching lets the search use its SIMD searcher; any match says the same.
            AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(words).expect("plain words")
        });
        let text = &cx.file.text;
        FileGate { mrtr: search.is_match(text) && mentions_mrtr_text(text) }
    }
}

/// The facts of one function, on the worker that parsed it; `None` for server code, and for a
/// function that neither mentions MRTR nor takes a parameter.
pub fn fn_facts(
    cx: &Cx,
    sig: &syn::Signature,
    body: &syn::Block,
    role: Role,
    gate: FileGate,
) -> Option<Box<RetryFacts>> {
    // A server answers with the request's own id, which is right; only senders of requests retry.
    let role = if role == Role::Unknown { cx.file_role } else { role };
    if role == Role::Server {
        return None;
    }
    // Every MRTR word in a token is in the function's source (`mentions` counts the same way).
    let mrtr = gate.mrtr && fn_text(cx, sig, body).is_none_or(mentions_mrtr_text);
    let mentions = if mrtr { Mentions::of_fn(cx, sig, body) } else { Mentions::default() };
    let judged = !mentions.all.is_empty();
    let has_params = sig.inputs.iter().any(|i| matches!(i, syn::FnArg::Typed(_)));
    if !judged && !has_params {
        return None;
    }
    let w = walk::Walk::of_fn(cx, sig, body, judged);
    let param_of = |name: &str, at: usize| match resolve(&w.bindings, name, at) {
        Some(Binding { init: Init::Param { index, .. }, .. }) if *index < 32 => Some(*index),
        _ => None,
    };
    let mut facts = RetryFacts::default();
    for b in &w.builds {
        if let IdSource::Ident(name) = &b.id
            && let Some(i) = param_of(name, b.id_range.start)
        {
            facts.id_params |= 1 << i;
        }
    }
    for s in &w.sends {
        if let Some(i) = param_of(&s.ident, s.at) {
            facts.sent_params |= 1 << i;
        }
    }
    let mut calls = w.calls;
    for call in &mut calls {
        for arg in &mut call.args {
            if let IdSource::Ident(name) = &arg.id {
                arg.param = param_of(name, arg.range.start);
            }
            arg.value_params = arg.values.iter().filter_map(|(n, at)| param_of(n, *at)).fold(0, |b, i| b | 1 << i);
        }
    }
    if !judged {
        calls.retain(|c| c.args.iter().any(|a| a.param.is_some() || a.value_params != 0));
        if facts.id_params == 0 && facts.sent_params == 0 && calls.is_empty() {
            return None;
        }
    }
    facts.calls = calls;
    facts.walk = judged.then_some(RetryWalk {
        mentions,
        loops: w.loops,
        bindings: w.bindings,
        builds: w.builds,
        sends: w.sends,
        writes: w.writes,
        returned: w.returned,
        macro_fns: w.macro_fns,
    });
    Some(Box::new(facts))
}

/// The functions the model does not hold that mention MRTR, in an item of a file with MRTR words:
/// a trait's default methods (their `self` has no type to resolve calls through), and functions
/// declared in an item macro's body (`suite! { fn run(..) { .. } }`). Only their own attempts
/// count.
pub fn loose_fns(cx: &Cx, item: &syn::Item, gate: FileGate, out: &mut Vec<RetryFacts>) {
    if !gate.mrtr {
        return;
    }
    match item {
        syn::Item::Trait(_) => loose_item(cx, item, out),
        syn::Item::Macro(m) if m.ident.is_none() => {
            if let Some(body) = cx.macro_body(&m.mac)
                && let MacroBody::Stmts(stmts) = &*body
            {
                for stmt in stmts {
                    if let syn::Stmt::Item(item) = stmt {
                        loose_item(cx, item, out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The judged facts of the functions of an item that is no part of the model (in a macro body, or
/// a trait's default methods), with those of the functions in their own macro bodies.
fn loose_item(cx: &Cx, item: &syn::Item, out: &mut Vec<RetryFacts>) {
    let sig_role = |attrs: &[syn::Attribute], sig: &syn::Signature, outer: Role| {
        let tool = crate::rust::syntax::has_attr(attrs, "tool") || crate::rust::syntax::has_attr(attrs, "prompt");
        if tool || crate::rust::syntax::sig_mentions(sig, &["RoleServer"]) {
            Role::Server
        } else if crate::rust::syntax::sig_mentions(sig, &["RoleClient"]) {
            Role::Client
        } else {
            outer
        }
    };
    let gate = FileGate { mrtr: true };
    let mut judge = |role: Role, sig: &syn::Signature, body: &syn::Block| {
        if let Some(mut facts) = fn_facts(cx, sig, body, role, gate).filter(|r| r.walk.is_some()) {
            let nested = facts.walk.as_mut().map(|w| std::mem::take(&mut w.macro_fns)).unwrap_or_default();
            out.push(*facts);
            out.extend(nested);
        }
    };
    match item {
        syn::Item::Fn(f) => judge(sig_role(&f.attrs, &f.sig, Role::Unknown), &f.sig, &f.block),
        syn::Item::Impl(i) => {
            let trait_ = i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
            let outer = match trait_.as_deref() {
                Some(t) if t.starts_with("ServerHandler") => Role::Server,
                Some(t) if t.starts_with("ClientHandler") => Role::Client,
                _ => Role::Unknown,
            };
            for it in &i.items {
                if let syn::ImplItem::Fn(f) = it {
                    judge(sig_role(&f.attrs, &f.sig, outer), &f.sig, &f.block);
                }
            }
        }
        syn::Item::Trait(t) => {
            for it in &t.items {
                if let syn::TraitItem::Fn(f) = it
                    && let Some(body) = &f.default
                {
                    judge(sig_role(&f.attrs, &f.sig, Role::Unknown), &f.sig, body);
                }
            }
        }
        syn::Item::Mod(m) => {
            for item in m.content.iter().flat_map(|(_, items)| items) {
                loose_item(cx, item, out);
            }
        }
        _ => {}
    }
}

/// The attempts a function makes itself, none through helpers.
pub(crate) fn own_attempts(w: &RetryWalk) -> Attempts {
    Attempts { builds: w.builds.clone(), own_builds: w.builds.len(), sends: w.sends.clone() }
}

impl CrateModel {
    /// The parameters (bits as in `Origins::params`) that become the `id` of a JSON-RPC request
    /// the function builds, itself or through the crate's functions it calls.
    pub fn request_id_params(&self, id: FnId) -> u32 {
        self.retry_bits()[id.0 as usize].0
    }

    /// The parameters (bits) the function sends whole, itself or through the crate's functions.
    pub fn sent_params(&self, id: FnId) -> u32 {
        self.retry_bits()[id.0 as usize].1
    }

    fn retry_bits(&self) -> &[(u32, u32)] {
        self.retry_bits.get_or_init(|| self.propagate_retry_bits())
    }

    /// The crate's functions each call site of `id`'s facts calls.
    fn call_site_callees(&self, id: FnId, site: &CallSite) -> impl Iterator<Item = (FnId, usize)> + '_ {
        let f = self.func(id);
        let range = site.range.clone();
        self.callees_of(id)
            .iter()
            .filter(move |(i, _)| f.calls[*i].range == range)
            .map(move |&(i, callee)| (callee, self.receiver_offset(&f.calls[i].callee, callee)))
    }

    /// The facts' own bits, then through calls until nothing changes: an argument that is a
    /// parameter, handed to a callee's id (or sent) parameter, makes it one too.
    fn propagate_retry_bits(&self) -> Vec<(u32, u32)> {
        let facts = |id: FnId| self.func(id).retry.as_deref();
        let mut bits: Vec<(u32, u32)> =
            self.fn_ids().map(|id| facts(id).map_or((0, 0), |r| (r.id_params, r.sent_params))).collect();
        if bits.iter().all(|b| *b == (0, 0)) {
            return bits;
        }
        let passing: Vec<FnId> = self.fn_ids().filter(|&id| facts(id).is_some_and(|r| !r.calls.is_empty())).collect();
        super::requests::settle(&mut bits, &passing, |id, bits| {
            let mut gained = bits[id.0 as usize];
            for site in facts(id).map_or(&[][..], |r| &r.calls) {
                for (callee, offset) in self.call_site_callees(id, site) {
                    let (ids, sent) = bits[callee.0 as usize];
                    for (arg, a) in site.args.iter().enumerate() {
                        let Some(param) = arg.checked_sub(offset).filter(|p| *p < 32) else { continue };
                        if ids & (1 << param) != 0
                            && let Some(p) = a.param
                        {
                            gained.0 |= 1 << p;
                        }
                        if sent & (1 << param) != 0 {
                            gained.1 |= a.value_params;
                        }
                    }
                }
            }
            gained
        });
        bits
    }

    /// The attempts of a function the rule judges: its own request constructions and sends, then
    /// a construction for each argument it hands to a helper's id parameter (whatever the
    /// argument is: `IdSource::Other` is a fresh id) and a send for each
    /// local it hands to a helper's sent parameter (where its own walk did not see one already).
    pub(crate) fn retry_attempts(&self, id: FnId, w: &RetryWalk) -> Attempts {
        let Attempts { mut builds, own_builds, mut sends } = own_attempts(w);
        let Some(r) = self.func(id).retry.as_deref() else { return Attempts { builds, own_builds, sends } };
        for site in &r.calls {
            for (callee, offset) in self.call_site_callees(id, site) {
                let (ids, sent) = self.retry_bits()[callee.0 as usize];
                for (arg, a) in site.args.iter().enumerate() {
                    let Some(param) = arg.checked_sub(offset).filter(|p| *p < 32) else { continue };
                    let seen = builds.iter().any(|b| b.id_range == a.range && b.container == site.range);
                    if ids & (1 << param) != 0 && !seen {
                        builds.push(Build {
                            id: a.id.clone(),
                            id_range: a.range.clone(),
                            id_text: a.text.clone(),
                            method: site.method.clone(),
                            container: site.range.clone(),
                            loops: site.loops.clone(),
                            branches: site.branches.clone(),
                            via: Some(callee),
                        });
                    }
                    if sent & (1 << param) == 0 {
                        continue;
                    }
                    for (ident, at) in &a.values {
                        if sends.iter().any(|s| s.at == *at) {
                            continue;
                        }
                        let send = SendEv {
                            range: site.range.clone(),
                            name: self.func(callee).name.clone(),
                            ident: ident.clone(),
                            at: *at,
                            loops: site.loops.clone(),
                            branches: site.branches.clone(),
                        };
                        // In source order among the function's own sends.
                        let i = sends.iter().position(|s| s.at > *at).unwrap_or(sends.len());
                        sends.insert(i, send);
                    }
                }
            }
        }
        Attempts { builds, own_builds, sends }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::tests::model_of;

    #[test]
    fn id_and_sent_parameters_through_helpers() {
        let model = model_of(&[
            (
                "src/wire.rs",
                "use crate::Conn;
pub fn frame(n: u64, method: &str, p: Value) -> Value { json!({\"jsonrpc\": \"2.0\", \"id\": n, \"method\": method, \"params\": p}) }
impl Conn {
    fn push(&mut self, msg: &Value) { writeln!(self.out, \"{}\", msg).unwrap(); }
    fn ask(&mut self, method: &str, n: u64) { let m = frame(n, method, json!({})); self.push(&m); }
    fn fresh(&mut self, method: &str) { let n = self.mint(); self.push(&frame(n, method, json!({}))); }
}
",
            ),
            ("src/lib.rs", "pub struct Conn { out: Stdout }\n"),
        ]);
        let frame = model.fn_by_path(&["wire", "frame"]).unwrap();
        assert_eq!(model.request_id_params(frame), 0b1);
        let push = model.fn_by_path(&["Conn", "push"]).unwrap();
        assert_eq!(model.sent_params(push), 0b1);
        let ask = model.fn_by_path(&["Conn", "ask"]).unwrap();
        assert_eq!(model.request_id_params(ask), 0b10, "`n` reaches `frame`'s id");
        let fresh = model.fn_by_path(&["Conn", "fresh"]).unwrap();
        assert_eq!((model.request_id_params(fresh), model.sent_params(fresh)), (0, 0), "it mints its own id");
    }

    #[test]
    fn server_code_and_fns_without_parameters_keep_no_facts() {
        let model = model_of(&[(
            "src/lib.rs",
            "struct S;
impl ServerHandler for S { fn reply(&self, id: u64) -> Value { json!({\"id\": id, \"method\": \"x\"}) } }
fn tick() { send(json!({\"id\": 1, \"method\": \"ping\"})); }
",
        )]);
        assert!(model.fn_ids().all(|id| model.func(id).retry.is_none()));
    }
}
