//! `per-connection-list`: `tools/list`, `prompts/list` or `resources/list` results that depend on
//! state other requests change (a tool that appears after another tool was called).
//!
//! MCP 2026-07-28 (C05, SEP-2567): the set a list returns MAY change over time and MAY depend on the
//! request's authorization, but MUST NOT vary per connection or as a side effect of other requests
//! on the connection. A `connect_database` call that makes a `query` tool appear is the example
//! SEP-2567 gives: expose the tools unconditionally and let them take a handle.
//!
//! What fires, from one look at the file's items (`rust_file`):
//! - a list handler of a server type (rmcp `ServerHandler::list_tools` / `list_prompts` /
//!   `list_resources` / `list_resource_templates`, rust-mcp-sdk `handle_list_tools_request` and
//!   siblings, hand-rolled `handle_tools_list`) that reads a field of `self` which a request
//!   handler of the same type writes: a `#[tool]` / `#[prompt]` method, `call_tool`, `get_prompt`,
//!   `read_resource`, `initialize`, `on_initialized`, … (directly or through the type's own helper
//!   methods). For resource lists only writes that switch state count (a flag, a connection handle):
//!   resources are data, and a tool that adds a note may add a resource. The finding is on the read,
//!   with a label on every write and on the `notify_*_list_changed()` that announces it;
//! - the same in a hand-rolled `match method { "tools/list" => …, "tools/call" => … }`;
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

use std::cell::OnceCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Pat, UnOp};

use crate::context::{Impact, Role};
use crate::cx::{Cx, Origin};
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage};
use crate::json::{self, JsonKind, JsonNode};
use crate::rules::{Rule, RuleMeta};
use crate::rust::syntax::{block_text, has_attr, method_call_range, text_may_mention};

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

impl Rule for PerConnectionList {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        if cx.origin != Origin::Rust || !TRIGGERS.iter().any(|t| cx.file.text.contains(t)) {
            return;
        }
        let mut types: HashMap<String, TypeInfo> = HashMap::new();
        let mut free: Vec<Facts> = Vec::new();
        collect_items(cx, &file.items, &mut types, &mut free);
        let mut reported: HashSet<(usize, usize)> = HashSet::new();
        let mut names: Vec<String> = types.keys().cloned().collect();
        names.sort();
        for name in names {
            let t = types.get_mut(&name).expect("a collected type");
            if t.client {
                continue;
            }
            // What the methods read and write matters only for a server's type (or in a server's
            // file). A method with a hand-rolled dispatcher (`Facts::arms`) makes its type a
            // server's, and only a body that may name a list method can have one.
            for m in t.methods.iter().filter(|m| may_dispatch(cx, m.body)) {
                t.server |= !m.facts(cx).arms.is_empty();
            }
            if !(t.server || cx.file_role == Role::Server) {
                continue;
            }
            // The other methods' facts are collected when `check_type` asks for them: a helper
            // that no handler calls is never read.
            check_type(cx, t, &mut reported);
        }
        if cx.file_role != Role::Client {
            for f in &free {
                for group in &f.arms {
                    check_arms(cx, group, None, &mut reported);
                }
            }
        }
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        check_transcript(cx, messages);
    }
}

// ---------------------------------------------------------------------------------------------
// Rust: what each method reads and writes.
// ---------------------------------------------------------------------------------------------

/// A read or write of state: the field path from its root (`["self", "state", "enabled"]`).
#[derive(Clone, Debug)]
struct Access {
    path: Vec<String>,
    range: Range<usize>,
    /// A router mutation (`add_route`, …): which list it changes.
    router: Option<&'static str>,
    /// A write that switches state (`= true`, `store(true, ..)`, `= Some(conn)`, `take()`, a router
    /// mutation) rather than adding data (`insert(uri, note)`).
    switch: bool,
    /// A read of a whole value bound to a local (`let st = self.state.lock()`): the local's own uses
    /// say which fields matter, so it only relates to writes of the whole value.
    weak: bool,
}

#[derive(Default, Clone, Debug)]
struct Facts {
    reads: Vec<Access>,
    writes: Vec<Access>,
    /// `self.helper(..)` calls, by method name.
    self_calls: Vec<String>,
    /// `notify_*_list_changed()` calls.
    notifies: Vec<Range<usize>>,
    /// Hand-rolled `match method { "tools/list" => .., .. }` dispatchers.
    arms: Vec<ArmGroup>,
}

#[derive(Clone, Debug, Default)]
struct ArmGroup {
    /// (the list method, what the arm reads and writes)
    lists: Vec<(&'static str, Facts)>,
    /// (the request method, what the arm reads and writes)
    others: Vec<(String, Facts)>,
}

enum MethodRole {
    /// Answers this list method.
    List(&'static str),
    /// Handles another request or notification; described for messages.
    Handler(String),
    Other,
}

struct Method<'ast> {
    name: String,
    role: MethodRole,
    body: &'ast syn::Block,
    /// What the body reads and writes, collected on first use (`Method::facts`).
    facts: OnceCell<Facts>,
}

impl Method<'_> {
    fn facts(&self, cx: &Cx) -> &Facts {
        self.facts.get_or_init(|| self.collect(cx))
    }

    /// What the body reads and writes, `self` being the type's value.
    fn collect(&self, cx: &Cx) -> Facts {
        Collector::facts_of(cx, vec!["self".to_owned()], self.body)
    }
}

/// Whether a body may hold a hand-rolled dispatcher: a `match` with an arm for a list method
/// (`"tools/list"`, …, `wire_list`). Each of them has `/list`, written so in the literal unless
/// with an escape (a backslash); where the text has neither, the body has no such arm.
fn may_dispatch(cx: &Cx, body: &syn::Block) -> bool {
    text_may_mention(block_text(cx, body), &["/list", "\\"])
}

#[derive(Default)]
struct TypeInfo<'ast> {
    methods: Vec<Method<'ast>>,
    /// Some impl of the type is a server's (`ServerHandler`, `#[tool_router]`, `#[tool]` methods, a
    /// hand-rolled list dispatcher).
    server: bool,
    client: bool,
    /// `#[tool_handler]` / `#[prompt_handler]` attributes: (range, which list).
    handler_attrs: Vec<(Range<usize>, &'static str)>,
}

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

fn handler_role(name: &str, attrs: &[syn::Attribute]) -> Option<String> {
    if has_attr(attrs, "tool") {
        return Some(format!("the tool `{name}`"));
    }
    if has_attr(attrs, "prompt") {
        return Some(format!("the prompt `{name}`"));
    }
    let wire = match name {
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
    };
    Some(format!("`{name}` (`{wire}`)"))
}

fn collect_items<'ast>(
    cx: &Cx,
    items: &'ast [syn::Item],
    types: &mut HashMap<String, TypeInfo<'ast>>,
    free: &mut Vec<Facts>,
) {
    for item in items {
        match item {
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_items(cx, items, types, free);
                }
            }
            syn::Item::Impl(i) => collect_impl(cx, i, types),
            syn::Item::Fn(f) => {
                // Only a free function's dispatchers (`Facts::arms`) are used, outside client files.
                let roots = state_params(&f.sig);
                if !roots.is_empty() && cx.file_role != Role::Client && may_dispatch(cx, &f.block) {
                    free.push(Collector::facts_of(cx, roots, &f.block));
                }
            }
            _ => {}
        }
    }
}

fn collect_impl<'ast>(cx: &Cx, i: &'ast syn::ItemImpl, types: &mut HashMap<String, TypeInfo<'ast>>) {
    let syn::Type::Path(tp) = &*i.self_ty else { return };
    let Some(name) = tp.path.segments.last().map(|s| s.ident.to_string()) else { return };
    let trait_name = i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
    let t = types.entry(name).or_default();
    if trait_name.as_deref().is_some_and(|n| n.starts_with("ClientHandler")) {
        t.client = true;
        return;
    }
    if trait_name.as_deref().is_some_and(|n| n.starts_with("ServerHandler"))
        || ["tool_router", "tool_handler", "prompt_router", "prompt_handler"].iter().any(|a| has_attr(&i.attrs, a))
    {
        t.server = true;
    }
    for a in &i.attrs {
        let last = a.path().segments.last().map(|s| s.ident.to_string());
        match last.as_deref() {
            Some("tool_handler") => t.handler_attrs.push((cx.node_range(a), "tools/list")),
            Some("prompt_handler") => t.handler_attrs.push((cx.node_range(a), "prompts/list")),
            _ => {}
        }
    }
    for it in &i.items {
        let syn::ImplItem::Fn(f) = it else { continue };
        let name = f.sig.ident.to_string();
        if has_attr(&f.attrs, "tool") || has_attr(&f.attrs, "prompt") {
            t.server = true;
        }
        let role = if let Some(l) = list_method(&name) {
            MethodRole::List(l)
        } else if let Some(h) = handler_role(&name, &f.attrs) {
            MethodRole::Handler(h)
        } else {
            MethodRole::Other
        };
        t.methods.push(Method { name, role, body: &f.block, facts: OnceCell::new() });
    }
}

/// Parameters of a free function that hold server state (`state: &mut State`, `server: &Server`):
/// the roots of the paths a hand-rolled dispatcher reads and writes. Requests are not state.
fn state_params(sig: &syn::Signature) -> Vec<String> {
    const REQUEST_NAMES: &[&str] =
        &["req", "request", "msg", "message", "params", "args", "input", "line", "value", "json", "body", "raw"];
    let mut out = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(t) = input else { continue };
        let Pat::Ident(p) = &*t.pat else { continue };
        let name = p.ident.to_string();
        let by_ref = matches!(&*t.ty, syn::Type::Reference(_))
            || matches!(&*t.ty, syn::Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident == "Arc" || s.ident == "Rc"));
        if by_ref && !REQUEST_NAMES.contains(&name.as_str()) {
            out.push(name);
        }
    }
    out
}

/// Methods that hand on their receiver: guards, unwraps.
const GUARDS: &[&str] = &[
    "lock",
    "read",
    "write",
    "borrow",
    "borrow_mut",
    "unwrap",
    "expect",
    "get_mut",
    "as_ref",
    "as_mut",
    "deref",
    "deref_mut",
    "blocking_lock",
    "blocking_read",
    "blocking_write",
    "lock_owned",
    "read_owned",
    "write_owned",
    "try_lock",
    "try_read",
    "try_write",
    "load",
    "load_full",
];

/// Methods that change what their receiver holds.
const MUTATORS: &[&str] = &[
    "store",
    "swap",
    "fetch_add",
    "fetch_sub",
    "fetch_or",
    "fetch_and",
    "fetch_xor",
    "fetch_nand",
    "fetch_max",
    "fetch_min",
    "fetch_update",
    "compare_exchange",
    "compare_exchange_weak",
    "compare_and_swap",
    "insert",
    "push",
    "push_back",
    "push_front",
    "pop",
    "pop_back",
    "pop_front",
    "remove",
    "swap_remove",
    "extend",
    "append",
    "clear",
    "retain",
    "truncate",
    "drain",
    "set",
    "replace",
    "take",
    "get_or_insert",
    "get_or_insert_with",
    "entry",
    "send_replace",
    "send_modify",
    "rcu",
    "add_route",
    "remove_route",
    "merge",
    "disable_route",
    "enable_route",
];

const ROUTER_MUTATORS: &[&str] = &["add_route", "remove_route", "merge", "disable_route", "enable_route"];

/// Logging and assertion macros: what they mention does not shape a result.
const QUIET_MACROS: &[&str] = &[
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "log",
    "event",
    "println",
    "eprintln",
    "print",
    "eprint",
    "dbg",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
];

/// Collects what one function body reads and writes of its state roots.
struct Collector<'c, 'a> {
    cx: &'c Cx<'a>,
    roots: Vec<String>,
    /// `let guard = self.state.lock().unwrap();`: `guard` stands for `self.state`.
    aliases: Vec<(String, Vec<String>)>,
    facts: Facts,
}

impl<'c, 'a> Collector<'c, 'a> {
    fn facts_of(cx: &'c Cx<'a>, roots: Vec<String>, body: &syn::Block) -> Facts {
        let mut c = Collector { cx, roots, aliases: Vec::new(), facts: Facts::default() };
        c.visit_block(body);
        c.facts
    }

    fn sub(&self, e: &Expr) -> Facts {
        let mut c = Collector {
            cx: self.cx,
            roots: self.roots.clone(),
            aliases: self.aliases.clone(),
            facts: Facts::default(),
        };
        c.visit_expr(e);
        c.facts
    }

    fn field_path(&self, f: &syn::ExprField) -> Option<(Vec<String>, Range<usize>)> {
        let (mut p, r) = self.path(&f.base)?;
        p.push(match &f.member {
            syn::Member::Named(i) => i.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        });
        Some((p, r.start..self.cx.node_range(&f.member).end))
    }

    /// The state path an expression stands for, and the range of its field chain.
    fn path(&self, e: &Expr) -> Option<(Vec<String>, Range<usize>)> {
        match e {
            Expr::Field(f) => self.field_path(f),
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                // Most names are neither: compared in place, and their range found only on a match.
                let ident = &p.path.segments[0].ident;
                if let Some(root) = self.roots.iter().find(|r| ident == *r) {
                    return Some((vec![root.clone()], self.cx.node_range(p)));
                }
                self.aliases
                    .iter()
                    .rev()
                    .find(|(n, _)| ident == n)
                    .map(|(_, path)| (path.clone(), self.cx.node_range(p)))
            }
            Expr::MethodCall(m) if GUARDS.iter().any(|g| m.method == g) => self.path(&m.receiver),
            Expr::Await(a) => self.path(&a.base),
            Expr::Try(t) => self.path(&t.expr),
            Expr::Paren(p) => self.path(&p.expr),
            Expr::Group(g) => self.path(&g.expr),
            Expr::Reference(r) => self.path(&r.expr),
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => self.path(&u.expr),
            Expr::Index(i) => self.path(&i.expr),
            _ => None,
        }
    }

    /// Records a write of `lhs` (`lhs = ..`, `lhs += ..`) when it is state; the range ends with `lhs`.
    fn write(&mut self, lhs: &Expr, switch: bool) -> bool {
        match self.path(lhs) {
            Some((p, r)) if p.len() >= 2 => {
                let end = self.cx.node_range(lhs).end;
                self.facts.writes.push(Access { path: p, range: r.start..end, router: None, switch, weak: false });
                true
            }
            _ => false,
        }
    }
}

/// `true`, `false`, `Some(..)`, `None`: a value that switches state on or off.
fn is_switch_value(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Bool(_)),
        Expr::Path(p) => p.path.is_ident("None"),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")),
        Expr::Paren(p) => is_switch_value(&p.expr),
        _ => false,
    }
}

fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self"))
}

/// A `match` arm's string-literal patterns (`"tools/list"`, `"a" | "b"`).
fn arm_literals(pat: &Pat) -> Vec<String> {
    match pat {
        Pat::Lit(l) => match &l.lit {
            syn::Lit::Str(s) => vec![s.value()],
            _ => Vec::new(),
        },
        Pat::Or(o) => o.cases.iter().flat_map(arm_literals).collect(),
        Pat::Paren(p) => arm_literals(&p.pat),
        _ => Vec::new(),
    }
}

impl<'ast> Visit<'ast> for Collector<'_, '_> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init
            && init.diverge.is_none()
            && let Pat::Ident(p) = strip_type(&l.pat)
            && let Some((path, range)) = self.path(&init.expr)
            && path.len() >= 2
        {
            // The alias's own uses are the reads, field by field.
            self.facts.reads.push(Access { path: path.clone(), range, router: None, switch: false, weak: true });
            self.aliases.push((p.ident.to_string(), path));
            return;
        }
        visit::visit_local(self, l);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if !self.write(&a.left, is_switch_value(&a.right)) {
            self.visit_expr(&a.left);
        }
        self.visit_expr(&a.right);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        let compound = matches!(
            b.op,
            BinOp::AddAssign(_)
                | BinOp::SubAssign(_)
                | BinOp::MulAssign(_)
                | BinOp::DivAssign(_)
                | BinOp::RemAssign(_)
                | BinOp::BitXorAssign(_)
                | BinOp::BitAndAssign(_)
                | BinOp::BitOrAssign(_)
                | BinOp::ShlAssign(_)
                | BinOp::ShrAssign(_)
        );
        if compound && self.write(&b.left, false) {
            self.visit_expr(&b.right);
            return;
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = &m.method;
        if MUTATORS.iter().any(|n| name == n)
            && let Some((path, r)) = self.path(&m.receiver)
            && path.len() >= 2
        {
            let router = (ROUTER_MUTATORS.iter().any(|n| name == n) && path.iter().any(|s| s.contains("router")))
                .then(|| if path.iter().any(|s| s.contains("prompt")) { "prompts/list" } else { "tools/list" });
            let end = method_call_range(self.cx, m).end;
            let switch = router.is_some()
                || name == "take"
                || (["store", "swap", "set", "replace", "fetch_or", "fetch_and", "fetch_xor", "compare_exchange"]
                    .iter()
                    .any(|n| name == n)
                    && m.args.iter().any(is_switch_value));
            self.facts.writes.push(Access { path, range: r.start..end, router, switch, weak: false });
            for a in &m.args {
                self.visit_expr(a);
            }
            return;
        }
        if is_self(&m.receiver) {
            self.facts.self_calls.push(name.to_string());
            for a in &m.args {
                self.visit_expr(a);
            }
            return;
        }
        let name = name.to_string();
        if name.starts_with("notify_") && name.ends_with("list_changed") {
            self.facts.notifies.push(method_call_range(self.cx, m));
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if let Some((path, range)) = self.field_path(f) {
            if path.len() >= 2 {
                self.facts.reads.push(Access { path, range, router: None, switch: false, weak: false });
            }
            return;
        }
        visit::visit_expr_field(self, f);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none()
            && p.path.segments.len() == 1
            && let Some((_, path)) = self.aliases.iter().rev().find(|(n, _)| p.path.is_ident(n))
        {
            let path = path.clone();
            self.facts.reads.push(Access {
                path,
                range: self.cx.node_range(p),
                router: None,
                switch: false,
                weak: false,
            });
        }
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let mut group = ArmGroup::default();
        for arm in &m.arms {
            let lits = arm_literals(&arm.pat);
            if let Some(list) = lits.iter().find_map(|l| wire_list(l)) {
                group.lists.push((list, self.sub(&arm.body)));
            } else if let Some(first) = lits.first() {
                group.others.push((first.clone(), self.sub(&arm.body)));
            }
        }
        if group.lists.is_empty() {
            for arm in &m.arms {
                if let Some((_, g)) = &arm.guard {
                    self.visit_expr(g);
                }
                self.visit_expr(&arm.body);
            }
        } else {
            self.facts.arms.push(group);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let last = mac.path.segments.last().map(|s| &s.ident);
        if last.is_some_and(|i| QUIET_MACROS.iter().any(|n| i == n)) {
            return;
        }
        if last.is_some_and(|i| i == "json") {
            if let Some(root) = self.cx.json_macro(mac) {
                let mut exprs = Vec::new();
                json::walk(&root, |node, _| {
                    if let JsonKind::Expr(t) = &node.kind {
                        exprs.push(t.clone());
                    }
                });
                for t in exprs {
                    if let Ok(e) = syn::parse2::<Expr>(t) {
                        self.visit_expr(&e);
                    }
                }
            }
            return;
        }
        if let Some(body) = self.cx.macro_body(mac) {
            body.visit(self);
        }
    }
}

fn strip_type(p: &Pat) -> &Pat {
    match p {
        Pat::Type(t) => strip_type(&t.pat),
        p => p,
    }
}

// ---------------------------------------------------------------------------------------------
// Rust: relating reads of list handlers to writes of request handlers.
// ---------------------------------------------------------------------------------------------

/// One path is the other or lies under it.
fn related(a: &[String], b: &[String]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

fn shown(path: &[String]) -> String {
    path.join(".")
}

/// What a method does, with the type's helpers it calls folded in. `follow` says which called
/// methods count (list handlers never fold in request handlers' effects and vice versa).
fn effects<'t>(
    cx: &Cx,
    t: &'t TypeInfo,
    start: &'t Facts,
    follow: &dyn Fn(&Method) -> bool,
) -> (Vec<&'t Access>, Vec<&'t Access>, Vec<&'t Range<usize>>) {
    let (mut reads, mut writes, mut notifies) = (Vec::new(), Vec::new(), Vec::new());
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<(&Facts, usize)> = vec![(start, 0)];
    while let Some((f, depth)) = stack.pop() {
        reads.extend(f.reads.iter());
        writes.extend(f.writes.iter());
        notifies.extend(f.notifies.iter());
        if depth >= 4 {
            continue;
        }
        for call in &f.self_calls {
            if let Some(m) = t.methods.iter().find(|m| m.name == *call)
                && follow(m)
                && seen.insert(m.name.as_str())
            {
                stack.push((m.facts(cx), depth + 1));
            }
        }
    }
    (reads, writes, notifies)
}

/// A writer: what it is called in messages, and what it writes and announces.
struct Writer<'t> {
    desc: String,
    writes: Vec<&'t Access>,
    notifies: Vec<&'t Range<usize>>,
}

fn check_type(cx: &mut Cx, t: &TypeInfo, reported: &mut HashSet<(usize, usize)>) {
    let not_list = |m: &Method| !matches!(m.role, MethodRole::List(_));
    let helper = |m: &Method| matches!(m.role, MethodRole::Other);
    let writers: Vec<Writer> = t
        .methods
        .iter()
        .filter_map(|m| match &m.role {
            MethodRole::Handler(desc) => {
                let (_, writes, notifies) = effects(cx, t, m.facts(cx), &not_list);
                Some(Writer { desc: desc.clone(), writes, notifies })
            }
            _ => None,
        })
        .collect();
    let mut labelled: HashSet<(usize, usize)> = HashSet::new();
    for m in &t.methods {
        let MethodRole::List(list) = m.role else { continue };
        let (reads, own_writes, _) = effects(cx, t, m.facts(cx), &helper);
        relate(cx, list, &reads, &own_writes, &writers, reported, &mut labelled);
    }
    // Hand-rolled dispatchers inside the type's methods. Every method that may have one
    // (`may_dispatch`) was collected in `rust_file`; a method not collected yet has none.
    for m in &t.methods {
        let Some(facts) = m.facts.get() else {
            debug_assert!(m.collect(cx).arms.is_empty());
            continue;
        };
        for group in &facts.arms {
            check_arms(cx, group, Some(t), reported);
        }
    }
    // Router mutations where the type has no list handler of its own for that list: the one
    // `#[tool_handler]` generates reads the router. (A hand-written list handler decides itself, and
    // is related to the mutation above when it reads the router.)
    for w in &writers {
        for a in &w.writes {
            let Some(list) = a.router else { continue };
            let own_list = t.methods.iter().any(|m| matches!(m.role, MethodRole::List(l) if l == list));
            if own_list
                || labelled.contains(&(a.range.start, a.range.end))
                || !reported.insert((a.range.start, a.range.end))
            {
                continue;
            }
            let d = cx.report(
                &META,
                a.range.clone(),
                format!(
                    "{} changes `{}` while handling a request, so `{list}` changes as a side effect of another \
                     request: since MCP 2026-07-28 a list result MUST NOT vary per connection or as a side effect \
                     of other requests",
                    w.desc,
                    shown(&a.path)
                ),
                format!("changes what `{list}` returns"),
            );
            for n in w.notifies.iter().take(MAX_LABELS) {
                d.label((*n).clone(), "announces the changed list");
            }
            for (r, l) in &t.handler_attrs {
                if *l == list {
                    d.label(r.clone(), format!("`{list}` lists this router's entries"));
                }
            }
        }
    }
}

/// Reports a list handler's reads that request handlers write; one finding per list and field.
fn relate(
    cx: &mut Cx,
    list: &str,
    reads: &[&Access],
    own_writes: &[&Access],
    writers: &[Writer],
    reported: &mut HashSet<(usize, usize)>,
    labelled: &mut HashSet<(usize, usize)>,
) {
    let mut done_fields: HashSet<Vec<String>> = HashSet::new();
    let mut reads: Vec<&Access> = reads.to_vec();
    // Uses before bindings, the most specific read first, then in source order.
    reads.sort_by_key(|a| (a.weak, std::cmp::Reverse(a.path.len()), a.range.start));
    for read in reads {
        let field = read.path[..2.min(read.path.len())].to_vec();
        if done_fields.contains(&field) {
            continue;
        }
        let mut hits: Vec<(&str, &Access, &[&Range<usize>])> = Vec::new();
        for w in writers {
            for a in &w.writes {
                // Resources are data: a tool that adds a note may make a resource appear. Only a
                // switch (a flag, a connection handle) is connection state there.
                if list.starts_with("resources/") && !a.switch {
                    continue;
                }
                if read.weak && a.path.len() > read.path.len() {
                    continue;
                }
                // A write the list handler makes itself (a cache it fills) is no side effect.
                if related(&a.path, &read.path) && !own_writes.iter().any(|o| related(&o.path, &a.path)) {
                    hits.push((w.desc.as_str(), *a, w.notifies.as_slice()));
                }
            }
        }
        if hits.is_empty() {
            continue;
        }
        done_fields.insert(field);
        if !reported.insert((read.range.start, read.range.end)) {
            continue;
        }
        let (first_writer, first_write, _) = hits[0];
        let d = cx.report(
            &META,
            read.range.clone(),
            format!(
                "`{list}` depends on `{}`, which {first_writer} changes: since MCP 2026-07-28 a list result MUST NOT \
                 vary per connection or as a side effect of other requests",
                shown(&first_write.path)
            ),
            format!("read while answering `{list}`"),
        );
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        let mut notified: HashSet<(usize, usize)> = HashSet::new();
        for (desc, a, notifies) in &hits {
            if seen.len() < MAX_LABELS && seen.insert((a.range.start, a.range.end)) {
                labelled.insert((a.range.start, a.range.end));
                d.label(a.range.clone(), format!("changed by {desc}"));
            }
            for n in notifies.iter() {
                if notified.len() < MAX_LABELS && notified.insert((n.start, n.end)) {
                    d.label((*n).clone(), "announces the changed list");
                }
            }
        }
    }
}

/// A hand-rolled dispatcher: the list arms' reads against the other arms' writes.
fn check_arms(cx: &mut Cx, group: &ArmGroup, t: Option<&TypeInfo>, reported: &mut HashSet<(usize, usize)>) {
    let empty = TypeInfo::default();
    let t = t.unwrap_or(&empty);
    let not_list = |m: &Method| !matches!(m.role, MethodRole::List(_));
    let helper = |m: &Method| matches!(m.role, MethodRole::Other);
    let writers: Vec<Writer> = group
        .others
        .iter()
        .map(|(method, facts)| {
            let (_, writes, notifies) = effects(cx, t, facts, &not_list);
            Writer { desc: format!("the `{method}` handler"), writes, notifies }
        })
        .collect();
    let mut labelled = HashSet::new();
    for (list, facts) in &group.lists {
        let (reads, own_writes, _) = effects(cx, t, facts, &helper);
        relate(cx, list, &reads, &own_writes, &writers, reported, &mut labelled);
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
    use crate::engine::check_text;

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
