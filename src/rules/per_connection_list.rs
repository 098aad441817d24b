//! `per-connection-list`: `tools/list`, `prompts/list` or `resources/list` results that depend on
//! state other requests change (a tool that appears after another tool was called).
//!
//! MCP 2026-07-28 (C05, SEP-2567): the set a list returns MAY change over time and MAY depend on the
//! request's authorization, but MUST NOT vary per connection or as a side effect of other requests
//! on the connection. A `connect_database` call that makes a `query` tool appear is the example
//! SEP-2567 gives: expose the tools unconditionally and let them take a handle.
//!
//! What fires, asking the crate model (`rust_crate`: the write and the read may be in different
//! files, the state in any state place of `model::state`):
//! - a list handler (rmcp `ServerHandler::list_tools` / `list_prompts` / `list_resources` /
//!   `list_resource_templates`, rust-mcp-sdk `handle_list_tools_request` and siblings, a
//!   hand-rolled `handle_tools_list` of a server type, the `"tools/list"` arm of a dispatcher
//!   `match`) that reads a state place which a request handler writes: a `#[tool]` / `#[prompt]`
//!   method, `call_tool`, `get_prompt`, `read_resource`, `initialize`, `on_initialized`, another
//!   arm of a dispatcher, … (directly or through the functions they call). For resource lists only
//!   writes that switch state count (a flag, a connection handle) or that fill a place with the
//!   client's roots (`model::roots`): resources are data, and a tool that adds a note may add a
//!   resource, but the roots are the connection's. The finding is on the read, with a label on
//!   every write and on the `notify_*_list_changed()` that announces it (in the read's file);
//! - rmcp router mutations (`self.tool_router…add_route(..)`, `remove_route`, `disable_route`,
//!   `enable_route`, `merge`) inside a request handler, when the type has no hand-written handler
//!   for that list (the one `#[tool_handler]` generates reads the router): the finding is on the
//!   mutation, with labels on the notification and on `#[tool_handler]`;
//! - in JSON transcripts, a complete `tools/list` or `prompts/list` result whose set differs from
//!   the previous one after a `tools/call`, `prompts/get` or `resources/read`.
//!
//! Silent: state written only by constructors, `main` or background tasks (configuration, "changes
//! over time"), the request's own data (authorization), writes the list handler makes itself (a
//! lazily filled cache), counters and logs, paginated list results, client code.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;

use crate::context::{Impact, Role};
use crate::cx::{CrateCx, Cx, Origin};
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage};
use crate::json::{JsonKind, JsonNode};
use crate::model::init_gates::guard_tests;
use crate::model::state::{StateUse, StateUses};
use crate::model::{CrateModel, FileId, FnId, HandlerKind, Root, TypeKey};
use crate::rules::{Rule, RuleMeta};

pub struct PerConnectionList;

const TRIGGERS: &[&str] = &[
    "list_tools",
    "list_prompts",
    "list_resources",
    "list_resource_templates",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    // Router changes: rmcp's mutators, and `merge` on a router field (`self.tool_router.merge(..)`).
    "add_route",
    "remove_route",
    "disable_route",
    "enable_route",
    "router.merge",
];

static META: RuleMeta = RuleMeta {
    name: "per-connection-list",
    summary: "A `tools/list`, `prompts/list` or `resources/list` result depends on state that other requests change",
    impact: Impact::Violation,
    triggers: TRIGGERS,
    json_triggers: &[],
    mcp_triggers: &[],
    // Files of request handlers that write what another file's list handler reads (the crate
    // model holds only the files some word of a model rule selects).
    crate_triggers: &["tool_router", "prompt_router", "ServerHandler"],
    help: Some(
        "list every tool (prompt, resource) unconditionally and let the tool take a handle argument for the state \
         it needs (SEP-2567); a list may depend on the server's configuration and on the request's authorization, \
         never on earlier requests",
    ),
    fixable: false,
    doc: include_str!("../../rules/per-connection-list.md"),
};

/// The cap on labels of one kind on one finding.
const MAX_LABELS: usize = 3;

const ROUTER_MUTATORS: &[&str] = &["add_route", "remove_route", "merge", "disable_route", "enable_route"];

impl Rule for PerConnectionList {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn uses_model(&self) -> bool {
        true
    }

    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        let sides = Sides::of(model);
        if sides.lists.is_empty() && sides.requests.is_empty() {
            return;
        }
        let writers: Vec<Writer> = sides.requests.iter().map(|s| Writer::of(model, s, &sides)).collect();
        let mut reported: HashSet<(FileId, usize, usize)> = HashSet::new();
        let mut labelled: HashSet<(FileId, usize, usize)> = HashSet::new();
        for list in &sides.lists {
            relate(cx, model, list, &sides, &writers, &mut reported, &mut labelled);
        }
        router_mutations(cx, model, &sides, &writers, &labelled, &mut reported);
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        check_transcript(cx, messages);
    }
}

// ---------------------------------------------------------------------------------------------
// Rust: which code answers a list, which answers other requests.
// ---------------------------------------------------------------------------------------------

/// A handler: a function, or one arm of a dispatcher in it.
struct Side {
    fn_: FnId,
    arm: Option<Range<usize>>,
    /// The MCP method it answers (`tools/list`), for a list handler.
    list: Option<&'static str>,
    /// What it is called in messages.
    desc: String,
}

struct Sides {
    lists: Vec<Side>,
    requests: Vec<Side>,
    /// Functions that are handlers themselves (not followed as helpers), and list handlers (not
    /// followed from request handlers).
    handler_fns: HashSet<FnId>,
    list_fns: HashSet<FnId>,
}

impl Sides {
    fn of(model: &CrateModel) -> Sides {
        let mut server_types: HashSet<&TypeKey> = HashSet::new();
        let mut client_types: HashSet<&TypeKey> = HashSet::new();
        for id in model.fn_ids() {
            let (Some(owner), Some(imp)) = (model.owner(id), model.impl_of(id)) else { continue };
            let f = model.func(id);
            if imp.trait_.as_deref().is_some_and(|t| t.starts_with("ClientHandler")) {
                client_types.insert(owner);
            } else if imp.role == Role::Server
                || f.tool
                || f.prompt
                || model.role(id) == Role::Server
                || !f.arms.is_empty()
            {
                server_types.insert(owner);
            }
        }
        let mut sides =
            Sides { lists: Vec::new(), requests: Vec::new(), handler_fns: HashSet::new(), list_fns: HashSet::new() };
        let client = |id: FnId| model.owner(id).is_some_and(|o| client_types.contains(o));
        for h in model.handlers() {
            if h.side == Role::Client || client(h.fn_) {
                continue;
            }
            let name = &model.func(h.fn_).name;
            let desc = match h.kind {
                HandlerKind::Arm => format!("the `{}` handler", h.method),
                HandlerKind::Attribute if model.func(h.fn_).tool => format!("the tool `{name}`"),
                HandlerKind::Attribute => format!("the prompt `{name}`"),
                HandlerKind::Override => format!("`{name}` (`{}`)", h.method),
            };
            sides.push(h.fn_, h.arm.clone(), wire_list(&h.method), desc);
        }
        // Hand-rolled handlers of a server type, by name (`handle_tools_list`).
        for id in model.fn_ids() {
            let Some(owner) = model.owner(id) else { continue };
            let name = &model.func(id).name;
            if sides.handler_fns.contains(&id) || client(id) || !server_types.contains(owner) {
                continue;
            }
            if let Some(list) = list_method(name) {
                sides.push(id, None, Some(list), String::new());
            } else if let Some(wire) = request_method(name) {
                sides.push(id, None, None, format!("`{name}` (`{wire}`)"));
            }
        }
        sides
    }

    fn push(&mut self, fn_: FnId, arm: Option<Range<usize>>, list: Option<&'static str>, desc: String) {
        if arm.is_none() {
            self.handler_fns.insert(fn_);
            if list.is_some() {
                self.list_fns.insert(fn_);
            }
        }
        let side = Side { fn_, arm, list, desc };
        if list.is_some() { self.lists.push(side) } else { self.requests.push(side) }
    }
}

/// Hand-rolled list handlers' names.
fn list_method(name: &str) -> Option<&'static str> {
    Some(match name {
        "list_tools" | "handle_list_tools_request" | "handle_list_tools" | "handle_tools_list" | "tools_list" => {
            "tools/list"
        }
        "list_prompts"
        | "handle_list_prompts_request"
        | "handle_list_prompts"
        | "handle_prompts_list"
        | "prompts_list" => "prompts/list",
        "list_resources"
        | "handle_list_resources_request"
        | "handle_list_resources"
        | "handle_resources_list"
        | "resources_list" => "resources/list",
        "list_resource_templates" | "handle_list_resource_templates_request" => "resources/templates/list",
        _ => return None,
    })
}

fn wire_list(s: &str) -> Option<&'static str> {
    ["tools/list", "prompts/list", "resources/list", "resources/templates/list"].into_iter().find(|l| *l == s)
}

/// Hand-rolled request handlers' names.
fn request_method(name: &str) -> Option<&'static str> {
    Some(match name {
        "call_tool" | "handle_call_tool_request" | "handle_call_tool" | "handle_tools_call" | "tools_call" => {
            "tools/call"
        }
        "get_prompt" | "handle_get_prompt_request" | "handle_prompts_get" => "prompts/get",
        "read_resource" | "handle_read_resource_request" | "handle_resources_read" => "resources/read",
        "complete" | "handle_complete_request" => "completion/complete",
        "subscribe" | "unsubscribe" | "handle_subscribe_request" | "handle_unsubscribe_request" => {
            "resources/subscribe"
        }
        "set_level" | "handle_set_level_request" => "logging/setLevel",
        "initialize" | "handle_initialize_request" => "initialize",
        "on_initialized" | "handle_initialized_notification" => "notifications/initialized",
        "on_roots_list_changed" | "handle_roots_list_changed_notification" => "notifications/roots/list_changed",
        "on_custom_request" => "a custom request",
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Rust: relating reads of list handlers to writes of request handlers.
// ---------------------------------------------------------------------------------------------

/// A request handler: what it writes (with what it calls, list handlers aside) and announces.
struct Writer<'m> {
    desc: String,
    writes: Vec<StateUse<'m>>,
    notifies: Vec<(FileId, Range<usize>)>,
}

impl<'m> Writer<'m> {
    fn of(model: &'m CrateModel, side: &Side, sides: &Sides) -> Writer<'m> {
        let StateUses { uses, code } = model.state_uses(side.fn_, side.arm.clone(), &|c| !sides.list_fns.contains(&c));
        let writes = uses.into_iter().filter(|u| u.access.write.is_some()).collect();
        let notifies = code
            .iter()
            .flat_map(|(id, range)| {
                let file = model.file_of(*id);
                model
                    .func(*id)
                    .list_changed
                    .iter()
                    .filter(move |n| range.as_ref().is_none_or(|r| crate::model::within(n, r)))
                    .map(move |n| (file, n.clone()))
            })
            .collect();
        Writer { desc: side.desc.clone(), writes, notifies }
    }
}

/// A place as the code names it: `self.state.enabled`, `state.unlocked`, `UNLOCKED`.
fn shown(u: &StateUse) -> String {
    match u.access.root {
        Root::SelfValue => format!("self.{}", u.access.path.join(".")),
        Root::Local | Root::Global => u.access.path.join("."),
    }
}

fn switches(u: &StateUse) -> bool {
    u.access.op.as_ref().is_some_and(|op| op.switch || ROUTER_MUTATORS.contains(&op.how.as_str()))
}

/// Reports a list handler's reads that request handlers write; one finding per list and field.
fn relate(
    cx: &mut CrateCx,
    model: &CrateModel,
    list: &Side,
    sides: &Sides,
    writers: &[Writer],
    reported: &mut HashSet<(FileId, usize, usize)>,
    labelled: &mut HashSet<(FileId, usize, usize)>,
) {
    let method = list.list.unwrap_or_default();
    let state = model.state_uses(list.fn_, list.arm.clone(), &|c| !sides.handler_fns.contains(&c));
    // A read that only decides whether the list request is turned away (`if !self.ready { return
    // Err(..) }`) does not make the list vary: that is a handshake gate (`removed-method`). So
    // is a binding whose use is such a read (`let st = self.state.lock(); if !st.ready {..}`).
    let gate_tests = guard_tests(model, &state);
    let uses = state.uses;
    let gated: Vec<&StateUse> = uses.iter().zip(&gate_tests).filter(|(_, g)| **g).map(|(u, _)| u).collect();
    let only_gates =
        |u: &StateUse| gated.iter().any(|g| std::ptr::eq(*g, u) || (u.access.whole && u.place.related(&g.place)));
    let own_writes: Vec<&StateUse> = uses.iter().filter(|u| u.access.write.is_some()).collect();
    let mut reads: Vec<&StateUse> =
        uses.iter().filter(|u| u.access.write.is_none() && !u.access.quiet && !only_gates(u)).collect();
    // Uses before bindings, the most specific read first, then in source order.
    reads
        .sort_by_key(|u| (u.access.whole, std::cmp::Reverse(u.place.path.len()), model.file_of(u.fn_), u.access.start));
    let mut done_fields = HashSet::new();
    for read in reads {
        let field = (read.place.root.clone(), read.place.path.first().cloned());
        if done_fields.contains(&field) {
            continue;
        }
        let mut hits: Vec<(&Writer, &StateUse)> = Vec::new();
        for w in writers {
            for u in &w.writes {
                // Resources are data: a tool that adds a note may make a resource appear. Only a
                // switch (a flag, a connection handle) or the client's roots (`model::roots`) are
                // connection state there: the roots are the connection's, whatever the write looks like.
                if method.starts_with("resources/") && !switches(u) && !model.roots().holds(&u.place) {
                    continue;
                }
                if read.access.whole && u.place.path.len() > read.place.path.len() {
                    continue;
                }
                // A write the list handler makes itself (a cache it fills) is no side effect.
                if read.place.related(&u.place) && !own_writes.iter().any(|o| o.place.related(&u.place)) {
                    hits.push((w, u));
                }
            }
        }
        // The most specific write names the place in the message.
        hits.sort_by_key(|(_, u)| std::cmp::Reverse(u.place.path.len()));
        let Some(&(first_writer, first_write)) = hits.first() else { continue };
        done_fields.insert(field);
        let (file, range) = (model.file_of(read.fn_), read.access.full_range());
        if !reported.insert((file, range.start, range.end)) {
            continue;
        }
        let write_file = model.file_of(first_write.fn_);
        let elsewhere =
            (write_file != file).then(|| format!(" (at {})", cx.place(write_file, first_write.access.start)));
        let d = cx.report(
            &META,
            file,
            range,
            format!(
                "`{method}` depends on `{}`, which {}{} changes: since MCP 2026-07-28 a list result MUST NOT \
                 vary per connection or as a side effect of other requests",
                shown(first_write),
                first_writer.desc,
                elsewhere.as_deref().unwrap_or("")
            ),
            format!("read while answering `{method}`"),
        );
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        let mut notified: HashSet<(usize, usize)> = HashSet::new();
        for (w, u) in &hits {
            let r = u.access.write_range();
            if model.file_of(u.fn_) == file && seen.len() < MAX_LABELS && seen.insert((r.start, r.end)) {
                labelled.insert((file, r.start, r.end));
                d.label(r, format!("changed by {}", w.desc));
            }
            for (nfile, n) in &w.notifies {
                if *nfile == file && notified.len() < MAX_LABELS && notified.insert((n.start, n.end)) {
                    d.label(n.clone(), "announces the changed list");
                }
            }
        }
    }
}

/// Router mutations where the type has no list handler of its own for that list: the one
/// `#[tool_handler]` generates reads the router. (A hand-written list handler decides itself, and
/// is related to the mutation in `relate` when it reads the router.)
fn router_mutations(
    cx: &mut CrateCx,
    model: &CrateModel,
    sides: &Sides,
    writers: &[Writer],
    labelled: &HashSet<(FileId, usize, usize)>,
    reported: &mut HashSet<(FileId, usize, usize)>,
) {
    for w in writers {
        for u in &w.writes {
            let Some(op) = &u.access.op else { continue };
            if !ROUTER_MUTATORS.contains(&op.how.as_str()) || !u.access.path.iter().any(|s| s.contains("router")) {
                continue;
            }
            let list = if u.access.path.iter().any(|s| s.contains("prompt")) { "prompts/list" } else { "tools/list" };
            let owner = model.owner(u.fn_);
            let own_list = sides.lists.iter().any(|l| l.list == Some(list) && model.owner(l.fn_) == owner);
            let (file, range) = (model.file_of(u.fn_), u.access.write_range());
            let key = (file, range.start, range.end);
            if own_list || labelled.contains(&key) || !reported.insert(key) {
                continue;
            }
            let d = cx.report(
                &META,
                file,
                range,
                format!(
                    "{} changes `{}` while handling a request, so `{list}` changes as a side effect of another \
                     request: since MCP 2026-07-28 a list result MUST NOT vary per connection or as a side effect \
                     of other requests",
                    w.desc,
                    shown(u)
                ),
                format!("changes what `{list}` returns"),
            );
            for (_, n) in w.notifies.iter().filter(|(f, _)| *f == file).take(MAX_LABELS) {
                d.label(n.clone(), "announces the changed list");
            }
            let attr = if list == "tools/list" { "tool_handler" } else { "prompt_handler" };
            for imp in &model.files[file].impls {
                if owner.is_some_and(|o| *o == model.resolve_type(&imp.module, &imp.self_ty)) {
                    for (_, r) in imp.attrs.iter().filter(|(n, _)| n == attr) {
                        d.label(r.clone(), format!("`{list}` lists this router's entries"));
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON transcripts.
// ---------------------------------------------------------------------------------------------

/// Requests after which a changed list is a side effect.
const CHANGERS: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// A list method's array member and the member that names an entry. Resource lists are data
/// (a tool that writes a file may add one), so transcripts are only checked for tools and prompts.
fn list_shape(method: &str) -> Option<(&'static str, &'static str)> {
    Some(match method {
        "tools/list" => ("tools", "name"),
        "prompts/list" => ("prompts", "name"),
        _ => return None,
    })
}

struct Seen<'a> {
    names: BTreeSet<String>,
    node: &'a JsonNode,
}

fn check_transcript(cx: &mut Cx, messages: &[TranscriptMessage]) {
    if cx.origin != Origin::JsonFile {
        return;
    }
    // Outstanding list requests by id: (method, whether it asked for the whole list).
    let mut pending: HashMap<String, (&str, bool)> = HashMap::new();
    let mut last: HashMap<&str, Seen> = HashMap::new();
    // Per list method, the state-changing requests since its last complete result.
    let mut since: HashMap<&str, Vec<(Range<usize>, String)>> = HashMap::new();
    for msg in messages {
        match msg.kind {
            MessageKind::Request { method, method_node, id } if msg.sender != Sender::Server => {
                let Some(key) = id.scalar_key() else { continue };
                if list_shape(method).is_some() {
                    let cursor = msg.message.get("params").and_then(|p| p.get("cursor")).is_some();
                    pending.insert(key, (method, !cursor));
                } else {
                    pending.remove(&key);
                    if CHANGERS.contains(&method) {
                        for l in ["tools/list", "prompts/list"] {
                            since.entry(l).or_default().push((method_node.range.clone(), method.to_owned()));
                        }
                    }
                }
            }
            MessageKind::Response { id, result: Some(result), .. } => {
                let Some(key) = id.scalar_key() else { continue };
                let Some((method, whole)) = pending.remove(&key) else { continue };
                if !whole || result.get("nextCursor").is_some() {
                    continue;
                }
                let Some((array_key, name_key)) = list_shape(method) else { continue };
                let Some(items) = result.get(array_key) else { continue };
                let JsonKind::Array(elements) = &items.kind else { continue };
                let mut names = BTreeSet::new();
                let mut named: Vec<(&str, &JsonNode)> = Vec::new();
                for e in elements {
                    let Some(n) = e.get(name_key) else { break };
                    let Some(s) = n.as_str() else { break };
                    names.insert(s.to_owned());
                    named.push((s, n));
                }
                if named.len() != elements.len() {
                    continue;
                }
                let changes = since.entry(method).or_default();
                if let Some(prev) = last.get(method)
                    && prev.names != names
                    && let Some((call_range, call)) = changes.last().cloned()
                {
                    let added = named.iter().find(|(s, _)| !prev.names.contains(*s));
                    let (range, what) = match added {
                        Some((s, n)) => (n.range.clone(), format!("`{s}` appears")),
                        None => (items.range.clone(), "entries disappear".to_owned()),
                    };
                    cx.report(
                        &META,
                        range,
                        format!(
                            "this `{method}` result differs from the earlier one after a `{call}` ({what}): since \
                             MCP 2026-07-28 a list result MUST NOT vary per connection or as a side effect of other \
                             requests"
                        ),
                        "changed after another request",
                    )
                    .label(prev.node.range.clone(), format!("the earlier `{method}` result"))
                    .label(call_range, format!("the `{call}` in between"));
                }
                changes.clear();
                last.insert(method, Seen { names, node: items });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::check_text;

    /// (text of the primary span, texts of the labels) of this rule's findings.
    fn check(name: &str, text: &str) -> Vec<(String, Vec<String>)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        check_text(&path, text.to_owned())
            .into_iter()
            .filter(|d| d.rule == "per-connection-list")
            .map(|d| {
                (text[d.range.clone()].to_owned(), d.labels.iter().map(|l| text[l.range.clone()].to_owned()).collect())
            })
            .collect()
    }

    #[test]
    fn flag_written_by_a_tool_read_by_list_tools() {
        let text = "use rmcp::{ServerHandler, tool, tool_router};\n\
                    struct Db { connected: AtomicBool }\n\
                    #[tool_router] impl Db {\n\
                      #[tool] async fn connect(&self) { self.connected.store(true, Relaxed); self.peer().notify_tool_list_changed().await; }\n\
                    }\n\
                    impl ServerHandler for Db {\n\
                      async fn list_tools(&self, _r: Option<P>, _c: RequestContext<RoleServer>) -> Result<ListToolsResult, E> {\n\
                        let mut tools = base_tools();\n\
                        if self.connected.load(Relaxed) { tools.push(query_tool()); }\n\
                        Ok(ListToolsResult::with_all_items(tools))\n\
                      }\n\
                    }\n";
        let found = check("lib.rs", text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "self.connected");
        assert_eq!(found[0].1, ["self.connected.store(true, Relaxed)", "notify_tool_list_changed()"]);
    }

    #[test]
    fn helpers_guards_and_aliases() {
        let text = "use rmcp::ServerHandler;\n\
                    impl S { fn enable(&self, n: &str) { let mut g = self.state.lock().unwrap(); g.enabled.insert(n.into()); } }\n\
                    impl ServerHandler for S {\n\
                      async fn call_tool(&self, r: CallToolRequestParams) { self.enable(&r.name); self.state.lock().unwrap().calls += 1; }\n\
                      async fn list_tools(&self) { let st = self.state.lock().unwrap(); let v = self.visible(&st.enabled); }\n\
                    }\n";
        let found = check("lib.rs", text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "st.enabled");
        assert_eq!(found[0].1, ["g.enabled.insert(n.into())"]);
    }

    #[test]
    fn configuration_counters_and_caches_are_silent() {
        let text = "use rmcp::ServerHandler;\n\
                    impl S { fn new(cfg: Config) -> Self { let s = S::default(); s.tools.write().unwrap().extend(cfg.tools); s } }\n\
                    impl S { fn cached(&self) -> Vec<Tool> { self.cache.get_or_init(load).clone() } fn fill(&self) { self.lazy.lock().unwrap().get_or_insert_with(load); } }\n\
                    impl ServerHandler for S {\n\
                      async fn call_tool(&self) { self.calls.fetch_add(1, Relaxed); self.fill(); tracing::info!(n = self.tools.read().unwrap().len()); }\n\
                      async fn list_tools(&self) { self.fill(); self.list_calls.fetch_add(1, Relaxed); let t = self.tools.read().unwrap().clone(); let l = self.lazy.lock().unwrap().clone(); }\n\
                    }\n";
        assert!(check("lib.rs", text).is_empty(), "{:?}", check("lib.rs", text));
    }

    #[test]
    fn router_mutation_in_a_tool() {
        let text = "use rmcp::{tool, tool_router, tool_handler, ServerHandler};\n\
                    #[tool_router] impl P {\n\
                      #[tool] async fn install(&self, cx: RequestContext<RoleServer>) {\n\
                        self.tool_router.write().await.add_route(plugin_route());\n\
                        cx.peer.notify_tool_list_changed().await.ok();\n\
                      }\n\
                    }\n\
                    #[tool_handler] impl ServerHandler for P {}\n";
        let found = check("lib.rs", text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "self.tool_router.write().await.add_route(plugin_route())");
        assert_eq!(found[0].1, ["notify_tool_list_changed()", "#[tool_handler]"]);
    }

    #[test]
    fn hand_rolled_dispatcher() {
        let text = "struct McpServer { unlocked: bool }\n\
                    impl McpServer {\n\
                      fn handle(&mut self, method: &str) -> Value {\n\
                        match method {\n\
                          \"tools/list\" => json!({\"tools\": if self.unlocked { all() } else { some() }}),\n\
                          \"tools/call\" => { self.unlocked = true; json!({}) }\n\
                          _ => json!(null),\n\
                        }\n\
                      }\n\
                    }\n";
        let found = check("server.rs", text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "self.unlocked");
        assert_eq!(found[0].1, ["self.unlocked"]);
    }

    /// A dispatcher whose list method is written with an escape has no `/list` in its text, and
    /// still makes its type a server's (`may_dispatch`), in a file of no known role.
    #[test]
    fn escaped_dispatcher_makes_a_server() {
        let text = "// Answers tools/list.\n\
                    struct Tools { unlocked: bool }\n\
                    impl Tools {\n\
                      fn handle(&mut self, method: &str) -> Value {\n\
                        match method {\n\
                          \"tools\\x2flist\" => json!({\"tools\": if self.unlocked { all() } else { some() }}),\n\
                          \"tools\\x2fcall\" => { self.unlocked = true; json!({}) }\n\
                          _ => json!(null),\n\
                        }\n\
                      }\n\
                    }\n";
        let found = check("lib.rs", text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "self.unlocked");
    }

    #[test]
    fn resources_need_a_switch() {
        let text = "use rmcp::ServerHandler;\n\
                    impl ServerHandler for S {\n\
                      async fn call_tool(&self) { self.notes.write().await.insert(k, v); self.online.store(true, SeqCst); }\n\
                      async fn list_resources(&self) { let a = self.notes.read().await.len(); let b = self.online.load(SeqCst); }\n\
                    }\n";
        let found = check("lib.rs", text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "self.online");
    }

    #[test]
    fn transcript_list_changes_after_a_call() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"connect\"}]}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"connect\"}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[{\"name\":\"connect\"},{\"name\":\"query\"}]}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"cursor\":\"x\"}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"tools\":[]}}\n";
        let found = check("t.jsonl", text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "\"query\"");
    }
}
