//! `retry-reuses-request-id`: an MRTR retry (the request re-sent after an `input_required` result)
//! that carries the JSON-RPC id of the original request. MCP 2026-07-28 requires a new id.
//!
//! Rust: the rule asks the crate model (`model::retries`). For each client (or unknown-role) fn
//! that mentions MRTR (`rust::mrtr_mentions`) the model keeps what one walk of it collected:
//! request constructions (`json!` objects and struct literals with `id` + `method`, SDK-style
//! `request(id, "tools/call", …)` calls), bindings, loops, branches, assignments and send-like
//! calls; and, through the crate's calls, the attempts its helpers make for it
//! (`CrateModel::retry_attempts`): a call of a helper that makes a parameter a request's `id`
//! is a construction with that argument as its id, a call of a helper that sends a parameter is
//! a send of that argument. Trait default methods and functions declared in macro bodies, which
//! the model does not hold as functions, are judged on their own attempts. This rule judges the
//! reuse patterns on those attempts:
//! 1. a request built in a loop that retries on `input_required`, whose id is a binding from before
//!    the loop (never reassigned in it) or a literal; or two attempts built with the same binding or
//!    literal id, an MRTR step between them;
//! 2. a request whose id is copied from another request (`original.id`, `req["id"].clone()`, a
//!    `JsonRpcRequest { ..original }` update) after the fn handled `inputResponses`/`requestState`;
//! 3. one request value (or a clone of it) sent again, after an MRTR step or in a retry loop, with no
//!    new id assigned in between; or a clone of a JSON-RPC request parameter that keeps its id.
//!
//! JSON transcripts: a client request whose id equals an earlier client request's id with the same
//! method, when the earlier one got `input_required` or the later one carries MRTR retry params.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::context::Impact;
use crate::cx::{CrateCx, Cx};
use crate::json::JsonNode;
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage, is_input_required_result};
use crate::model::retries::{
    Attempts, Binding, Build, IdSource, Init, Loop, RetryFacts, RetryWalk, SendEv, own_attempts, resolve,
};
use crate::model::{CrateModel, FileId, FnId};
use crate::rules::{Rule, RuleMeta};
use crate::rust::loops::exclusive;
use crate::rust::mrtr_mentions::MRTR_WORDS;

pub struct RetryReusesRequestId;

const HELP: &str = "give every attempt a fresh JSON-RPC id (a counter or `next_id()`), and resend the same method \
and params plus `inputResponses` and the echoed `requestState`";

static META: RuleMeta = RuleMeta {
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: CRATE_WORDS,
    name: crate::model::retries::RULE,
    summary: "An MRTR retry (after `input_required`) reuses the JSON-RPC id of the original request",
    impact: Impact::Violation,
    triggers: MRTR_WORDS,
    help: Some(HELP),
    fixable: false,
    doc: include_str!("../../rules/retry-reuses-request-id.md"),
};

/// Words of a file with a request helper and no MRTR word (`fn call(&self, id: u64, method: &str,
/// …) { json!({"jsonrpc": "2.0", "id": id, …}) }`, `JsonRpcRequest { id, method, … }`): it joins
/// the crate model where another file of its crate has MRTR words. The `"jsonrpc"` key and request
/// type names, not every `JsonRpc…` name: an SDK's files are full of those.
const CRATE_WORDS: &[&str] = &["\"jsonrpc\"", "RpcRequest", "JSONRPCRequest", "JsonrpcRequest"];

impl Rule for RetryReusesRequestId {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn uses_model(&self) -> bool {
        true
    }

    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        let mut judged: Vec<(FileId, &RetryWalk, Attempts)> = Vec::new();
        // Functions the model does not hold (trait default methods, functions in macro bodies):
        // their own attempts only.
        let mut loose: Vec<(FileId, &RetryFacts)> = Vec::new();
        for id in model.fn_ids() {
            let Some(walk) = model.func(id).retry.as_ref().and_then(|r| r.walk.as_ref()) else { continue };
            loose.extend(walk.macro_fns.iter().map(|r| (model.file_of(id), r)));
            judged.push((model.file_of(id), walk, model.retry_attempts(id, walk)));
        }
        for (file, f) in model.files.iter().enumerate() {
            loose.extend(f.retry_defaults.iter().map(|r| (file, r)));
        }
        for (file, r) in loose {
            if let Some(walk) = &r.walk {
                judged.push((file, walk, own_attempts(walk)));
            }
        }
        for (file, walk, attempts) in judged {
            for finding in judge(walk, &attempts) {
                let mut message = finding.message;
                if let Some(helper) = finding.via {
                    let f = model.func(helper);
                    let place = cx.place(model.file_of(helper), f.name_range.start);
                    message.push_str(&format!(" (`{}` ({place}) makes this argument the request's id)", f.name));
                }
                let d = cx.report(&META, file, finding.range, message, finding.label);
                for (range, message) in finding.labels {
                    d.label(range, message);
                }
            }
        }
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        struct Attempt<'a> {
            /// The id of the first request sent with this id and method.
            first: &'a JsonNode,
            method: &'a str,
            /// Whether the latest attempt was answered with `input_required`.
            input_required: bool,
        }
        let mut attempts: HashMap<String, Attempt> = HashMap::new();
        // Whether the latest request with each id came from the client, so a response is matched
        // to the request it answers (servers number their own requests).
        let mut latest_from_client: HashMap<String, bool> = HashMap::new();
        for m in messages {
            match m.kind {
                MessageKind::Request { method, id, .. } => {
                    let Some(key) = id.scalar_key() else { continue };
                    let from_client = m.sender != Sender::Server;
                    latest_from_client.insert(key.clone(), from_client);
                    if !from_client {
                        continue;
                    }
                    let params = m.message.get("params");
                    let retry_params =
                        params.is_some_and(|p| p.get("inputResponses").is_some() || p.get("requestState").is_some());
                    match attempts.get_mut(&key) {
                        Some(prev) if prev.method == method && (prev.input_required || retry_params) => {
                            let id_text = cx.text(id.range.clone()).to_owned();
                            let why = if prev.input_required {
                                "after its `input_required` result"
                            } else {
                                "with `inputResponses`/`requestState`"
                            };
                            cx.report(
                                &META,
                                id.range.clone(),
                                format!(
                                    "this `{method}` retry ({why}) reuses the JSON-RPC id {id_text} of the \
                                     original request; since MCP 2026-07-28 the retry MUST have a new id"
                                ),
                                "same id as the original request",
                            )
                            .label(prev.first.range.clone(), "first sent with this id here");
                            prev.input_required = false;
                        }
                        Some(prev) => {
                            // A plain duplicate (another method, or no MRTR in between): not this rule's.
                            *prev = Attempt { first: id, method, input_required: false };
                        }
                        None => {
                            attempts.insert(key, Attempt { first: id, method, input_required: false });
                        }
                    }
                }
                MessageKind::Response { id, result: Some(result), .. } if m.sender != Sender::Client => {
                    let Some(key) = id.scalar_key() else { continue };
                    if latest_from_client.get(&key) == Some(&true)
                        && let Some(prev) = attempts.get_mut(&key)
                    {
                        prev.input_required = is_input_required_result(result);
                    }
                }
                _ => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Judging what was collected.

struct Finding {
    range: Range<usize>,
    message: String,
    label: String,
    labels: Vec<(Range<usize>, String)>,
    /// The helper that builds the request, for an attempt made through one.
    via: Option<FnId>,
}

fn judge(walk: &RetryWalk, attempts: &Attempts) -> Vec<Finding> {
    let mentions = &walk.mentions;
    let within = |list: &[usize], r: Range<usize>| {
        let i = list.partition_point(|&m| m < r.start);
        list.get(i).is_some_and(|&m| m < r.end)
    };
    let has_mention = |r: Range<usize>| within(&mentions.all, r);
    let has_retry_word = |r: Range<usize>| within(&mentions.retry, r);
    // A loop that retries on `input_required` (not one that only repeats a request after a
    // transport error and hands an `input_required` result back).
    let retry_loop = |l: &Loop| {
        l.retries || has_retry_word(l.range.clone()) || l.continues.iter().any(|&c| has_mention(l.range.start..c))
    };
    let mut out: Vec<Finding> = Vec::new();
    // Builds already reported, so a request is reported once, by the most specific pattern.
    let mut fired: HashSet<usize> = HashSet::new();

    // 1. Built inside an MRTR loop with an id that does not change between iterations.
    for (bi, b) in attempts.builds.iter().enumerate() {
        let Some(&li) = b.loops.last() else { continue };
        let l = &walk.loops[li];
        if !retry_loop(l) {
            continue;
        }
        let within = |at: usize| l.range.contains(&at);
        let (message, labels) = match &b.id {
            IdSource::Ident(name) => {
                let Some(binding) = resolve(&walk.bindings, name, b.id_range.start) else { continue };
                if within(binding.range.start) {
                    continue; // bound anew on each iteration
                }
                if walk.writes.iter().any(|w| w.ident == *name && w.whole && within(w.at)) {
                    continue; // a counter advanced in the loop
                }
                (
                    format!(
                        "every attempt of this retry loop sends the JSON-RPC id `{}`, bound once before the loop; \
                         since MCP 2026-07-28 an MRTR retry MUST use a different id than the original request",
                        b.id_text
                    ),
                    vec![
                        (
                            binding.range.clone(),
                            match binding.init {
                                Init::Param { .. } => "a parameter: the same value on every attempt",
                                _ => "bound once here, outside the retry loop",
                            }
                            .to_owned(),
                        ),
                        (l.keyword.clone(), "retried by this loop".to_owned()),
                    ],
                )
            }
            IdSource::Literal(_) => (
                format!(
                    "every attempt of this retry loop sends the literal JSON-RPC id {}; since MCP 2026-07-28 an \
                     MRTR retry MUST use a different id than the original request",
                    b.id_text
                ),
                vec![(l.keyword.clone(), "retried by this loop".to_owned())],
            ),
            _ => continue,
        };
        fired.insert(bi);
        let label = "same id on every attempt".into();
        out.push(Finding { range: b.id_range.clone(), message, label, labels, via: b.via });
    }

    // 1b. Two attempts built with the same binding or literal id, an MRTR step between them.
    for (bi, b) in attempts.builds.iter().enumerate() {
        if fired.contains(&bi) {
            continue;
        }
        let same = |a: &Build| match (&a.id, &b.id) {
            (IdSource::Literal(x), IdSource::Literal(y)) => x == y,
            (IdSource::Ident(x), IdSource::Ident(y)) if x == y => {
                let (ba, bb) =
                    (resolve(&walk.bindings, x, a.id_range.start), resolve(&walk.bindings, y, b.id_range.start));
                matches!((ba, bb), (Some(p), Some(q)) if std::ptr::eq(p, q))
                    && !walk
                        .writes
                        .iter()
                        .any(|w| w.ident == *x && w.whole && (a.id_range.end..b.id_range.start).contains(&w.at))
            }
            _ => false,
        };
        // Earlier in the walk, or made through a helper (those come after the fn's own).
        let own = attempts.own_builds;
        let earlier = attempts.builds.iter().enumerate().filter(|(ai, _)| *ai < bi || (bi < own && *ai >= own));
        let first = earlier.map(|(_, a)| a).find(|a| {
            a.container.end <= b.container.start
                && same(a)
                && (a.method.is_none() || b.method.is_none() || a.method == b.method)
                && !exclusive(&a.branches, &b.branches)
                && has_mention(a.container.end..b.container.end)
        });
        if let Some(a) = first {
            fired.insert(bi);
            out.push(Finding {
                range: b.id_range.clone(),
                message: format!(
                    "this retry is sent with the same JSON-RPC id `{}` as the first attempt; since MCP 2026-07-28 an \
                     MRTR retry MUST use a different id than the original request",
                    b.id_text
                ),
                label: "same id as the first attempt".into(),
                labels: vec![(a.id_range.clone(), "first attempt sent with this id".into())],
                via: b.via,
            });
        }
    }

    // 2. The id copied from another request.
    for (bi, b) in attempts.builds.iter().enumerate() {
        if fired.contains(&bi) {
            continue;
        }
        let (base, via) = match &b.id {
            IdSource::Copied(base) => (base.clone(), None),
            IdSource::Ident(name) => match resolve(&walk.bindings, name, b.id_range.start) {
                Some(binding @ Binding { init: Init::CopiedId, .. }) => (None, Some(binding)),
                _ => continue,
            },
            _ => continue,
        };
        if base.as_deref().is_some_and(|b| b == "self" || b == "Self") {
            continue;
        }
        // Only a retry: `inputResponses`/`requestState` handled before it is built. (Serializing a
        // queued request `{id: call.id, method: call.method, …}` copies its id too, rightly.)
        if !has_retry_word(0..b.container.end) {
            continue;
        }
        // `state.id` advanced elsewhere in the fn is a counter, not another request's id.
        if let Some(base) = &base
            && walk.writes.iter().any(|w| w.ident == *base && w.id)
        {
            continue;
        }
        let mut labels = Vec::new();
        if let Some(binding) = via {
            labels.push((binding.range.clone(), "copied from the original request here".to_owned()));
        } else if let Some(base) = &base
            && let Some(binding) = resolve(&walk.bindings, base, b.id_range.start)
        {
            labels.push((binding.range.clone(), "the original request".to_owned()));
        }
        fired.insert(bi);
        out.push(Finding {
            range: b.id_range.clone(),
            message: format!(
                "this retry copies the original request's JSON-RPC id (`{}`); since MCP 2026-07-28 the retry after \
                 `input_required` MUST use a different id",
                b.id_text
            ),
            label: "id of the original request".into(),
            labels,
            via: b.via,
        });
    }

    // 3. One request value sent again. Sends are grouped by the construction they carry.
    // The construction a binding holds: its own, or one a helper built (`let m = envelope(id, …)`).
    let built = |init: &Init| match init {
        Init::Family(i) => Some(*i),
        Init::Call(range) => attempts.builds.iter().position(|b| b.via.is_some() && b.container == *range),
        _ => None,
    };
    let family = |s: &SendEv| -> Option<(&Binding, Option<usize>)> {
        let b = resolve(&walk.bindings, &s.ident, s.at)?;
        match (&b.init, built(&b.init)) {
            (_, Some(i)) => Some((b, Some(i))),
            (Init::CloneOfParam { .. }, _) => Some((b, None)),
            _ => None,
        }
    };
    let resets = |ident_of: &dyn Fn(&str, usize) -> bool, range: Range<usize>| {
        walk.writes.iter().any(|w| (w.whole || w.id) && range.contains(&w.at) && ident_of(&w.ident, w.at))
    };
    let mut families_fired: HashSet<usize> = fired.clone();
    for (si, s) in attempts.sends.iter().enumerate() {
        let Some((binding, build)) = family(s) else { continue };
        if build.is_some_and(|i| families_fired.contains(&i)) {
            continue;
        }
        // A write to this binding, or (for a family) any binding of the same family.
        let same_family = |ident: &str, at: usize| match resolve(&walk.bindings, ident, at) {
            Some(b) => match (built(&b.init), build) {
                (Some(i), Some(j)) => i == j,
                _ => std::ptr::eq(b, binding),
            },
            None => false,
        };
        // In a loop that the value was bound outside of.
        let outer_loop =
            s.loops.iter().rev().map(|&li| &walk.loops[li]).find(|l| !l.range.contains(&binding.range.start));
        let mut hit: Option<Finding> = None;
        if let Some(l) = outer_loop
            && retry_loop(l)
            && !resets(&same_family, l.range.clone())
        {
            hit = Some(Finding {
                range: s.range.clone(),
                message: format!(
                    "every attempt of this retry loop sends the same request value `{}`, with the same JSON-RPC id; \
                     since MCP 2026-07-28 an MRTR retry MUST use a different id than the original request",
                    s.ident
                ),
                label: "sent again with its original id".into(),
                labels: vec![(l.keyword.clone(), "retried by this loop".into())],
                via: None,
            });
        }
        if hit.is_none() {
            // Straight-line: an earlier send of the same value, an MRTR step between, no new id.
            let prev = attempts.sends[..si].iter().find(|p| {
                family(p).is_some_and(|(pb, pbuild)| match (pbuild, build) {
                    (Some(i), Some(j)) => i == j,
                    _ => std::ptr::eq(pb, binding),
                }) && !exclusive(&p.branches, &s.branches)
                    && has_mention(p.range.end..s.range.start)
                    && !resets(&same_family, p.range.end..s.range.end)
            });
            if let Some(p) = prev {
                hit = Some(Finding {
                    range: s.range.clone(),
                    message: format!(
                        "the retry sends the request value `{}` again with the JSON-RPC id of the first attempt; \
                         since MCP 2026-07-28 an MRTR retry MUST use a different id than the original request",
                        s.ident
                    ),
                    label: "sent again with its original id".into(),
                    labels: vec![(p.range.clone(), format!("first sent here (`{}`)", p.name))],
                    via: None,
                });
            }
        }
        if let Some(mut f) = hit {
            match build.map(|i| &attempts.builds[i]) {
                Some(b) => f.labels.push((b.id_range.clone(), "id set once here".into())),
                None => f.labels.push((binding.range.clone(), "a copy of the original request".into())),
            }
            if let Some(i) = build {
                families_fired.insert(i);
            }
            out.push(f);
        }
    }

    // 3b. A clone of a JSON-RPC request parameter, never given a new id, in a retry fn.
    for b in &walk.bindings {
        let Init::CloneOfParam { clone_range } = &b.init else { continue };
        let written_id = walk.writes.iter().any(|w| {
            (w.id || w.whole)
                && w.at >= b.visible_from
                && resolve(&walk.bindings, &w.ident, w.at).is_some_and(|r| std::ptr::eq(r, b))
        });
        let is_b = |ident: &str, at: usize| resolve(&walk.bindings, ident, at).is_some_and(|r| std::ptr::eq(r, b));
        // Only a copy that becomes the retry: given `inputResponses`/`requestState`, sent, or returned
        // (not one kept aside, say in a map of pending requests).
        let made_retry = walk.writes.iter().any(|w| w.mrtr && w.at >= b.visible_from && is_b(&w.ident, w.at))
            || attempts.sends.iter().any(|s| is_b(&s.ident, s.at))
            || walk.returned.iter().any(|(ident, at)| is_b(ident, *at));
        let reported = out.iter().any(|f| f.labels.iter().any(|(r, _)| *r == b.range));
        if written_id || reported || !made_retry || !has_retry_word(b.visible_from..usize::MAX) {
            continue;
        }
        out.push(Finding {
            range: clone_range.clone(),
            message: format!(
                "the retry `{}` is a copy of the original request and keeps its JSON-RPC id; since MCP 2026-07-28 an \
                 MRTR retry MUST use a different id",
                b.name
            ),
            label: "copied with the original id".into(),
            labels: vec![(b.range.clone(), "never given a new id".into())],
            via: None,
        });
    }

    out.sort_by_key(|f| (f.range.start, f.range.end));
    out.dedup_by(|a, b| a.range == b.range);
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn findings(src: &str) -> Vec<(usize, String)> {
        crate::rules::test_support::check_text(Path::new("/nonexistent/retry.rs"), src.to_owned())
            .into_iter()
            .filter(|d| d.rule == "retry-reuses-request-id")
            .map(|d| (src[..d.range.start].lines().count().max(1), src[d.range].to_owned()))
            .collect()
    }

    /// `Mentions::of_fn` reads the tree; in debug builds it asserts that it finds what printing the
    /// fn to tokens finds. These fns hold mentions where the two could part: tokens kept verbatim,
    /// tokens the tree holds twice, attributes, lifetimes, raw identifiers, suffixes, macros.
    #[test]
    fn mentions_read_from_the_tree_are_the_printed_tokens_mentions() {
        let srcs = [
            "fn a() { struct S; impl S { fn g(input_required: u8); type T; } }",
            "fn b() { extern \"C\" { fn h() { input_required } } }",
            "fn c(r: Req) { let Req { request_state, .. } = r; send(Req { request_state, id: 1 }); }",
            "fn d() { #[doc = \"input_required\"] let x = 1; vec![#[cfg(input_required)] requestState, 2]; }",
            "fn e<'input_required>(x: &'input_required str) -> impl Fn() + 'input_required { || () }",
            "fn f() { let r#input_required = \"x\"input_required; let n = 1input_responses; }",
            "fn g() { m! { #![inner(requestState)] # [x] request_state } }",
            "fn h() -> InputRequired<'static> { let RequestState(x) = y; br\"input_required\" }",
            "fn i() { let x: unsafe extern \"C\" fn(input_required: u8) = f; }",
        ];
        for src in srcs {
            let diagnostics =
                crate::rules::test_support::check_text(Path::new("/nonexistent/mentions.rs"), src.to_owned());
            assert!(diagnostics.iter().all(|d| d.rule != "parse-error"), "{src}");
        }
    }

    #[test]
    fn id_bound_before_mrtr_loop() {
        let src = r#"
fn run(client: &Client) {
    let id = 7;
    loop {
        let resp = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}));
        if resp["result"]["resultType"] == "input_required" { continue; }
        break;
    }
}
"#;
        assert_eq!(findings(src), [(5, "id".to_owned())]);
    }

    #[test]
    fn counter_in_loop_is_fresh() {
        let src = r#"
fn run(client: &Client) {
    let mut id = 7;
    loop {
        id += 1;
        let resp = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}));
        if resp["result"]["resultType"] == "input_required" { continue; }
        break;
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn transport_retry_outside_mrtr_is_silent() {
        // The loop only retries transport errors; the MRTR check is after it.
        let src = r#"
fn run(client: &Client) {
    let req = json!({"jsonrpc": "2.0", "id": next_id(), "method": "tools/call"});
    let resp = loop {
        match client.send(&req) { Ok(r) => break r, Err(_) => continue }
    };
    if resp["result"]["resultType"] == "input_required" { todo!() }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn exclusive_branches_are_one_send() {
        let src = r#"
fn run(stdio: bool, req: Value) {
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"requestState": "s"}});
    if stdio { pipe.send(&req); } else { http.post(&req); }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn clone_sent_after_mutation() {
        let src = r#"
fn run(client: &Client) {
    let first = json!({"jsonrpc": "2.0", "id": next_id(), "method": "tools/call"});
    let resp = client.send(&first);
    let mut retry = first.clone();
    retry["params"]["inputResponses"] = answers(&resp);
    client.send(&retry);
}
"#;
        assert_eq!(findings(src), [(7, "send(&retry)".to_owned())]);
    }

    #[test]
    fn new_id_between_sends_is_fresh() {
        let src = r#"
fn run(client: &Client) {
    let mut req = json!({"jsonrpc": "2.0", "id": next_id(), "method": "tools/call"});
    let resp = client.send(&req);
    req["params"]["inputResponses"] = answers(&resp);
    req["id"] = json!(next_id());
    client.send(&req);
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn serializing_a_queued_request_is_not_a_retry() {
        let src = r#"
async fn pump(&mut self) {
    while let Some(call) = self.queue.recv().await {
        let resp = self.post(json!({"jsonrpc": "2.0", "id": call.id, "method": call.method, "params": call.params})).await;
        if resp["result"]["resultType"] == "input_required" {
            self.waiting.push(call);
        }
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn loop_pattern_and_match_arms_are_fresh() {
        let src = r#"
fn run(client: &Client, tools: &[&str]) {
    for (id, tool) in tools.iter().enumerate() {
        let resp = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}}));
        if resp["result"]["resultType"] == "input_required" { continue; }
    }
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"});
    match transport {
        Transport::Stdio(p) => { let _ = "requestState"; p.send(&req) }
        Transport::Http(h) => { let _ = "inputResponses"; h.post(&req) }
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn copied_id_in_retry_helper() {
        let src = r#"
fn retry(original: &Request, answers: Value) -> Request {
    let mut params = original.params.clone();
    params["inputResponses"] = answers;
    Request { id: original.id.clone(), method: original.method.clone(), params }
}
"#;
        assert_eq!(findings(src), [(5, "original.id.clone()".to_owned())]);
    }

    #[test]
    fn loop_that_hands_input_required_back_is_not_a_retry_loop() {
        let src = r#"
fn call(client: &Client) -> Outcome {
    let id = next_id();
    let mut attempts = 0;
    loop {
        match client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"})) {
            Err(_) if attempts < 3 => { attempts += 1; continue; }
            Err(e) => return Outcome::Failed(e),
            Ok(r) if r["result"]["resultType"] == "input_required" => return Outcome::NeedsInput(r),
            Ok(r) => return Outcome::Done(r),
        }
    }
}
"#;
        assert!(findings(src).is_empty());
    }

    #[test]
    fn loop_that_exits_unless_input_required_retries() {
        let src = r#"
fn call(client: &Client) -> Value {
    let id = next_id();
    let mut params = json!({});
    loop {
        let r = client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
        if r["result"]["resultType"] != "input_required" {
            return r;
        }
        params = answers(&r);
    }
}
"#;
        assert_eq!(findings(src), [(6, "id".to_owned())]);
    }

    #[test]
    fn helper_that_takes_the_id_is_an_attempt_and_one_that_mints_it_is_fresh() {
        let src = r#"
fn wrap(n: u64, method: &str, p: Value) -> Value { json!({"jsonrpc": "2.0", "id": n, "method": method, "params": p}) }
impl C {
    fn fresh(&mut self, method: &str, p: Value) -> Value { let n = self.mint(); self.pipe.send(wrap(n, method, p)) }
    fn run(&mut self) -> Value {
        let n = self.mint();
        loop {
            let r = self.pipe.send(wrap(n, "tools/call", json!({})));
            if r["result"]["resultType"] != "input_required" { return r; }
        }
    }
    fn run_fresh(&mut self) -> Value {
        loop {
            let r = self.fresh("tools/call", json!({}));
            if r["result"]["resultType"] != "input_required" { return r; }
        }
    }
}
"#;
        assert_eq!(findings(src), [(8, "n".to_owned())]);
    }

    #[test]
    fn trait_default_methods_are_judged() {
        let src = r#"
trait Caller {
    fn send(&self, v: Value) -> Value;
    fn call_tool(&self, name: &str) -> Value {
        let id = 3;
        let mut params = json!({"name": name});
        loop {
            let r = self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
            if r["result"]["resultType"] != "input_required" { return r; }
            params["inputResponses"] = json!({});
        }
    }
}
"#;
        assert_eq!(findings(src), [(8, "id".to_owned())]);
    }

    #[test]
    fn functions_declared_in_macro_bodies_are_judged() {
        let src = r#"
fn outer() {
    suite! {
        fn run(c: &Client) {
            let id = 7;
            loop {
                let r = c.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}));
                if r["result"]["resultType"] == "input_required" { continue; }
                break;
            }
        }
    }
}
suite! {
    fn run(c: &Client) {
        let r = c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}));
        if r["result"]["resultType"] == "input_required" {
            c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"inputResponses": {}}}));
        }
    }
}
"#;
        assert_eq!(findings(src), [(7, "id".to_owned()), (18, "1".to_owned())]);
    }
}
