//! `inferred-client-capabilities`: server code that takes the client's capabilities, identity or
//! protocol version from connection-scoped state (what `initialize` left behind) instead of the
//! request it is handling. MCP 2026-07-28 has no `initialize`; every request declares its own
//! capabilities in `_meta`, and servers MUST NOT infer them from earlier requests (C04).
//!
//! Four shapes, server code only:
//! - rmcp `peer_info()` whose value reaches `.capabilities` / `.client_info` / `.protocol_version`,
//!   in the same chain (closures passed along the chain included) or through a binding (`let`,
//!   `if let`, `match`): `rust_fn` asks `model::peer_info` about that one body;
//! - `set_peer_info(..)`, which caches `initialize` data on the connection (`method_call`);
//! - capability data stored in a state place while answering `initialize` (an rmcp or rust-mcp-sdk
//!   override, `on_initialized`, a hand-written dispatcher's `"initialize"` arm, or a helper they
//!   pass it to) and read by code answering another request, in any file of the crate
//!   (`rust_crate`, comparing the stores `model::init_stores` finds with the crate model's
//!   `state_uses` places: `self` fields, fields behind `Arc<Inner>`, per-session map entries,
//!   entries of a map keyed by type, fields of a stored struct literal, guard locals, loop locals,
//!   statics), labelled at the read and, in the same file, the store;
//! - SDK helpers that answer from the cached `initialize` data: rust-mcp-sdk
//!   `client_supports_sampling()` & co, rmcp `supported_elicitation_modes()` /
//!   `supports_sampling_tools()`, fastmcp `client_supports_roots()`, and, only when that SDK is in
//!   use, rust-mcp-sdk `client_info()`, mcp-attr `client_capabilities()` / `client_info()` /
//!   `protocol_version()`, pmcp/mcp-core
//!   `get_client_capabilities()` (`method_call`).
//!
//! Silent on client code (there `peer_info()` is the server's info) and on per-request reads
//! (rmcp 3.x `context.client_capabilities()`, `_meta["io.modelcontextprotocol/clientCapabilities"]`).

use std::ops::Range;

use crate::context::{Impact, Role, Sdk};
use crate::cx::{CrateCx, Cx};
use crate::model::init_stores::{InitHandlers, Store, find_stores};
use crate::model::peer_info::client_data_reads;
use crate::model::state::{Place, member_shown, quiet_macro_ranges};
use crate::model::{CrateModel, FieldAccess, FnId, Root, within};
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::requests::peer_like_receiver;
use crate::rust::syntax::{block_text, method_call_range, text_may_mention};

pub struct InferredClientCapabilities;

static META: RuleMeta = RuleMeta {
    name: "inferred-client-capabilities",
    summary: "Client capabilities, info or protocol version read from the connection (`initialize` data) \
              instead of the current request, which MCP 2026-07-28 forbids",
    impact: Impact::Violation,
    // `peer_info` covers `peer_info()` and `set_peer_info`; the field-store shape starts in an
    // `impl ServerHandler*` (`initialize`, `on_initialized`, `handle_initialize_request`), so its
    // file names `ServerHandler`; the helper names are listed (`client_info` also covers
    // `get_client_info`, `client_capabilities` covers `get_client_capabilities`;
    // `protocol_version()` is mcp-attr's, always called without arguments).
    triggers: &[
        "peer_info",
        "ServerHandler",
        "client_supports_root_list",
        "client_supports_sampling",
        "client_supports_experimental",
        "client_supports_roots",
        "supported_elicitation_modes",
        "supports_sampling_tools",
        "supports_elicitation",
        "set_client_details",
    ],
    json_triggers: &[],
    // Names other libraries use (`client_version` in TLS code): the calls fire only where their
    // SDK is in use, and every other shape needs server code or a `ServerHandler` impl.
    // `"initialize"`: a hand-written dispatcher's arm.
    mcp_triggers: &["client_info", "client_version", "client_capabilities", "protocol_version()", "\"initialize\""],
    // Server code that may read what another file's `initialize` stored (the crate model holds
    // only the files some word of the rule selects), and an object of the server's own that keeps
    // the client's declarations (`Session { caps: Option<ClientCapabilities> }`), and a dispatcher
    // that matches the method against constants (`methods::request::INITIALIZE => …`).
    crate_triggers: &[
        "RoleServer",
        "tool_router",
        "ClientCapabilities",
        "InitializeRequestParam",
        "::INITIALIZE",
        // A helper handed `peer_info()` (`fn client_identity(info: Option<&ClientInfo>)`).
        "ClientInfo",
    ],
    help: Some(HELP),
    fixable: false,
    doc: include_str!("../../rules/inferred-client-capabilities.md"),
};

const HELP_SET_PEER_INFO: &str = "don't keep `initialize` data: read what each request declares, rmcp 3.x \
     `context.client_capabilities()` / `context.client_info()` (from the request's `_meta`)";

const HELP: &str = "read what the current request declares: rmcp 3.x `context.client_capabilities()` / \
     `context.client_info()` (from the request's `_meta`), or `params._meta[\"io.modelcontextprotocol/clientCapabilities\"]` \
     in a hand-rolled server";

const HELP_RUST_MCP_SDK: &str = "read what the current request declares in its `_meta` \
     (`io.modelcontextprotocol/clientCapabilities`, `io.modelcontextprotocol/clientInfo`); rust-mcp-sdk releases \
     that serve 2026-07-28 carry them in the per-request `RequestContext` (`client_capabilities`, `client_info`)";

const STATELESS: &str = "MCP 2026-07-28 removed `initialize`, and servers MUST NOT infer a client's capabilities, \
     version or identity from earlier requests";

impl Rule for InferredClientCapabilities {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        // Every finding here is at a `peer_info()` call of the body.
        if cx.role() != Role::Server || !text_may_mention(block_text(cx, f.body), &["peer_info"]) {
            return;
        }
        let reads = client_data_reads(cx, f.body);
        // The handshake's own hooks (`removed-method` reports them) read the snapshot as it is
        // made: one they only log (`info!("client {} connected", info.client_info.name)`) keeps
        // nothing for later. Elsewhere a logged read still reports the wrong client on
        // 2026-07-28, and is reported.
        let handshake = ["initialize", "on_initialized"].iter().any(|n| f.sig.ident == n)
            && f.impl_trait.as_deref().is_some_and(|t| t.starts_with("ServerHandler"));
        let logged = if handshake && !reads.is_empty() { quiet_macro_ranges(cx, f.body) } else { Vec::new() };
        for read in reads {
            if logged.iter().any(|m| within(&read.field, m)) {
                continue;
            }
            let (range, hit) = (read.call, read.field);
            let (what, label) = field_words(read.name);
            cx.report(
                &META,
                range,
                format!("client {what} read from `peer_info()`, the connection's `initialize` snapshot; {STATELESS}"),
                "the connection's `initialize` data",
            )
            .label(hit, label);
        }
    }

    fn method_call(&self, cx: &mut Cx, call: &syn::ExprMethodCall, name: &str) {
        let role = cx.role();
        // rmcp's `set_peer_info`, and rust-mcp-sdk's `set_client_details` in a custom
        // `handle_initialize_request`.
        let caches = name == "set_peer_info" || (name == "set_client_details" && cx.uses_sdk(Sdk::RustMcpSdk));
        if caches {
            if role != Role::Client && (role == Role::Server || name == "set_client_details") {
                let help = if name == "set_peer_info" { HELP_SET_PEER_INFO } else { HELP_RUST_MCP_SDK };
                cx.report(
                    &META,
                    method_call_range(cx, call),
                    format!("`{name}` caches the client's `initialize` data on the connection; {STATELESS}"),
                    "caches capabilities on the connection",
                )
                .help(help);
            }
            return;
        }
        if !call.args.is_empty() {
            return;
        }
        // Helper names that exist only on server-side objects of one SDK: that SDK must be in use,
        // and the code must not be a client's. Elsewhere the names mean other things (rmcp 3.x
        // `context.client_info()` reads the request's `_meta`).
        let sdk_in_use = match name {
            "client_info" => Some(cx.uses_sdk(Sdk::RustMcpSdk) || cx.uses_sdk(Sdk::McpAttr)),
            "get_client_info" | "client_version" => Some(cx.uses_sdk(Sdk::RustMcpSdk)),
            "get_client_capabilities" => Some(cx.uses_sdk(Sdk::Pmcp) || cx.uses_sdk(Sdk::McpCore)),
            // mcp-attr's `RequestContext` answers these from the session's `initialize`.
            "client_capabilities" | "protocol_version" => Some(cx.uses_sdk(Sdk::McpAttr)),
            // rmcp 0.x–1.x `Peer<RoleServer>::supports_elicitation()` answers from `peer_info()`;
            // other crates' `ClientCapabilities` have a method of that name, so only on a peer.
            "supports_elicitation" => Some(cx.uses_sdk(Sdk::Rmcp) && peer_like_receiver(cx, &call.receiver)),
            _ => None,
        };
        let fires = match sdk_in_use {
            Some(in_use) => in_use && role != Role::Client,
            // Names only these SDKs use: rust-mcp-sdk, fastmcp (`client_supports_roots`), rmcp.
            None => {
                role == Role::Server
                    && matches!(
                        name,
                        "client_supports_root_list"
                            | "client_supports_sampling"
                            | "client_supports_experimental"
                            | "client_supports_roots"
                            | "supported_elicitation_modes"
                            | "supports_sampling_tools"
                    )
            }
        };
        if !fires {
            return;
        }
        let help = if cx.uses_sdk(Sdk::RustMcpSdk) && !cx.uses_sdk(Sdk::McpAttr) { HELP_RUST_MCP_SDK } else { HELP };
        cx.report(
            &META,
            method_call_range(cx, call),
            format!("`{name}()` answers from the client's `initialize` data cached on the connection; {STATELESS}"),
            "connection-scoped client data",
        )
        .help(help);
    }

    fn uses_model(&self) -> bool {
        true
    }

    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        passed_peer_info(cx, model);
        let init = InitHandlers::of(model);
        let stores = find_stores(model, &init);
        if stores.is_empty() {
            return;
        }
        for id in model.fn_ids() {
            let f = model.func(id);
            // Reads in the server's own code: its handler impls, inherent impls and free functions.
            // Other trait impls (`Clone`, `Debug`, …) copy or print the field, they do not act on it.
            let other_trait = model.impl_of(id).is_some_and(|imp| imp.trait_.is_some() && imp.role != Role::Server);
            if other_trait || f.test || f.role == Role::Client || init.only_for_initialize(model, id) {
                continue;
            }
            // This function's own accesses, each as a crate-wide place.
            let reads: Vec<(&FieldAccess, Place, &Store)> = model
                .state_uses(id, None, &|_| false)
                .uses
                .into_iter()
                .filter(|u| u.access.write.is_none())
                .filter(|u| !init.arms.iter().any(|(fn_, arm)| *fn_ == id && within(&u.access.full_range(), arm)))
                .filter_map(|u| {
                    let store = stores.iter().find(|s| s.holds(&u.place))?;
                    Some((u.access, u.place, store))
                })
                .collect();
            for (access, place, store) in &reads {
                // `let g = self.state.lock().unwrap(); g.caps`: the read of `self.state` is the one.
                let direct = |s: &Store| reads.iter().any(|(a, _, o)| !a.aliased && std::ptr::eq(*o, s));
                if access.aliased && direct(store) {
                    continue;
                }
                // The members of the access that name the stored place: the rest lie under it.
                let depth = access.path.len().saturating_sub(place.path.len() - store.place.path.len());
                let range = access.range(depth.max(1));
                let file = model.file_of(id);
                let elsewhere =
                    (store.file != file).then(|| format!(" (stored at {})", cx.place(store.file, store.range.start)));
                let d = cx.report(
                    &META,
                    file,
                    range,
                    format!(
                        "{} holds client data stored during `{}`{}: this reads the connection's view of \
                         the client instead of the current request's; {STATELESS}",
                        shown(access, depth.max(1), &cx.files[file].file.text)
                            .unwrap_or_else(|| store.shown(model, id)),
                        store.init_fn,
                        elsewhere.as_deref().unwrap_or("")
                    ),
                    "connection-scoped client data read here",
                );
                if store.file == file {
                    d.label(store.range.clone(), format!("stored here during `{}`", store.init_fn));
                }
            }
        }
    }
}

/// The stored place as the read spells it (`self.session.proto`), when it is written out there; a
/// local bound to a place (`let Some(state) = sessions.get(id) …; state.caps`) as the text has it.
fn shown(access: &FieldAccess, depth: usize, text: &str) -> Option<String> {
    let members = access.path.get(..depth)?.iter().map(|m| member_shown(m)).collect::<Vec<_>>().join(".");
    match access.root {
        _ if access.aliased => None,
        Root::SelfValue => Some(format!("`self.{members}`")),
        Root::Local => {
            let written = text.get(access.range(depth))?;
            let plain = written.len() <= 80 && !written.contains('\n');
            Some(if plain { format!("`{written}`") } else { format!("`{members}`") })
        }
        Root::Global => Some(format!("`{members}`")),
    }
}

/// `peer_info()` handed to a crate function that reads a client field of its parameter
/// (`client_identity(context.peer.peer_info().as_deref())`, whose body reads `.client_info`):
/// reported at the `peer_info()` call, naming the read.
fn passed_peer_info(cx: &mut CrateCx, model: &CrateModel) {
    for id in model.fn_ids() {
        let f = model.func(id);
        let Some(facts) = &f.peer_info else { continue };
        if facts.passed.is_empty() || model.role(id) != Role::Server {
            continue;
        }
        for passed in &facts.passed {
            let Some((callee, hit, name)) = param_read(model, id, passed.at, passed.arg, 4) else { continue };
            let (what, _) = field_words(name);
            let helper = &model.func(callee).name;
            let at = cx.place(model.file_of(callee), hit.start);
            cx.report(
                &META,
                model.file_of(id),
                passed.call.clone(),
                format!(
                    "client {what} read from `peer_info()`, the connection's `initialize` snapshot, by `{helper}` \
                     ({at}); {STATELESS}"
                ),
                "the connection's `initialize` data, handed on",
            )
            .help(HELP);
        }
    }
}

/// What a client field read is called in a message, and the label at the read.
fn field_words(field: &str) -> (&'static str, &'static str) {
    match field {
        "capabilities" => ("capabilities", "connection-scoped capabilities read here"),
        "client_info" => ("info", "connection-scoped client info read here"),
        _ => ("protocol version", "connection-scoped protocol version read here"),
    }
}

/// The client field that a callee of `caller`'s call starting at `at` reads of its argument
/// `arg`, itself or through the functions it hands that parameter on to (up to `depth` calls
/// deep).
fn param_read(
    model: &CrateModel,
    caller: FnId,
    at: usize,
    arg: usize,
    depth: u8,
) -> Option<(FnId, Range<usize>, &'static str)> {
    let call = model.func(caller).calls.iter().position(|c| c.range.start == at)?;
    let callees = model.callees_of(caller).iter().filter(|(c, _)| *c == call);
    callees.into_iter().find_map(|&(_, callee)| {
        let facts = model.func(callee).peer_info.as_ref()?;
        if let Some((_, hit, name)) = facts.param_reads.iter().find(|(param, _, _)| *param == arg) {
            return Some((callee, hit.clone(), *name));
        }
        let forwarded = facts.forwarded.iter().filter(|(param, _, _)| *param == arg && depth > 0);
        forwarded.into_iter().find_map(|&(_, at, next)| param_read(model, callee, at, next, depth - 1))
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::rules::test_support::check_text;

    const RULE: &str = "inferred-client-capabilities";

    /// The 1-based lines of this rule's findings in `code`, checked as a file with no manifest.
    fn lines(code: &str) -> Vec<usize> {
        let found = check_text(Path::new("/nonexistent/mcp-lint-test/src/lib.rs"), code.to_string());
        found.iter().filter(|d| d.rule == RULE).map(|d| code[..d.range.start].matches('\n').count() + 1).collect()
    }

    #[test]
    fn unknown_role_is_silent() {
        // A generic helper: `peer_info()` could be either side's view.
        let code = "fn caps<R: ServiceRole>(peer: &Peer<R>) -> bool {\n    peer.peer_info().is_some_and(|i| i.capabilities.roots.is_some())\n}\n";
        assert!(lines(code).is_empty());
    }

    #[test]
    fn role_server_signature_fires_once_per_call() {
        let code = "fn caps(peer: &Peer<RoleServer>) -> bool {\n    let info = peer.peer_info();\n    let a = info.as_ref().is_some_and(|i| i.capabilities.roots.is_some());\n    a && info.is_some_and(|i| i.capabilities.sampling.is_some())\n}\n";
        assert_eq!(lines(code), vec![2]);
    }

    #[test]
    fn client_signature_is_silent() {
        let code = "fn caps(peer: &Peer<RoleClient>) -> bool {\n    peer.peer_info().is_some_and(|i| i.capabilities.tools.is_some() || i.protocol_version.is_empty())\n}\n";
        assert!(lines(code).is_empty());
    }

    #[test]
    fn shadowed_closure_parameter_is_not_the_info() {
        let code = "fn f(peer: &Peer<RoleServer>, other: Option<Cfg>) {\n    let i = peer.peer_info();\n    let x = other.map(|i| i.capabilities);\n    tracing::info!(\"{i:?} {x:?}\");\n}\n";
        assert!(lines(code).is_empty());
    }

    #[test]
    fn rebinding_unbinds() {
        let code = "fn f(peer: &Peer<RoleServer>, cfg: Cfg) {\n    let info = peer.peer_info();\n    tracing::info!(\"{info:?}\");\n    let info = cfg;\n    let _ = info.capabilities;\n}\n";
        assert!(lines(code).is_empty());
    }

    #[test]
    fn nested_fn_is_reported_once() {
        let code = "fn outer(peer: &Peer<RoleServer>) {\n    fn inner(peer: &Peer<RoleServer>) -> bool {\n        peer.peer_info().is_some_and(|i| i.capabilities.sampling.is_some())\n    }\n    inner(peer);\n}\n";
        assert_eq!(lines(code), vec![3]);
    }

    #[test]
    fn let_else_binding() {
        let code = "fn f(peer: &Peer<RoleServer>) -> Option<String> {\n    let Some(info) = peer.peer_info() else { return None };\n    Some(info.client_info.name.clone())\n}\n";
        assert_eq!(lines(code), vec![2]);
    }

    #[test]
    fn client_info_needs_rust_mcp_sdk() {
        let rmcp3 = "use rmcp::ServerHandler;\nstruct S;\nimpl ServerHandler for S {\n    async fn call_tool(&self, p: CallToolRequestParams, context: RequestContext<RoleServer>) {\n        let who = context.client_info();\n    }\n}\n";
        assert!(lines(rmcp3).is_empty());
        let sdk = "use rust_mcp_sdk::mcp_server::ServerHandler;\nstruct S;\nimpl ServerHandler for S {\n    async fn handle_call_tool_request(&self, r: CallToolRequest, runtime: Arc<dyn McpServer>) {\n        let who = runtime.client_info();\n        let v = runtime.client_version();\n    }\n}\n";
        assert_eq!(lines(sdk), vec![5, 6]);
    }

    #[test]
    fn mcp_attr_client_capabilities() {
        let code = "use mcp_attr::server::{McpServer, RequestContext, mcp_server};\nstruct S;\n#[mcp_server]\nimpl McpServer for S {\n    #[tool]\n    async fn hello(&self, cx: &RequestContext) -> Result<String> {\n        let caps = cx.client_capabilities();\n        let who = cx.client_info();\n        let v = cx.protocol_version();\n        Ok(format!(\"{caps:?} {who:?} {v:?}\"))\n    }\n}\n";
        assert_eq!(lines(code), vec![7, 8, 9]);
        // Without mcp-attr, `client_capabilities()` is someone else's (rmcp 3.x: per request).
        let rmcp =
            code.replace("use mcp_attr::server::{McpServer, RequestContext, mcp_server};", "use rmcp::model::X;");
        assert!(lines(&rmcp).is_empty());
    }

    #[test]
    fn pmcp_get_client_capabilities() {
        let code = "use pmcp::Server;\nasync fn gate(server: &Server) -> bool {\n    server.get_client_capabilities().await.is_some()\n}\n";
        assert_eq!(lines(code), vec![3]);
        let other = code.replace("use pmcp::Server;", "use lsp_server::Server;");
        assert!(lines(&other).is_empty());
    }

    #[test]
    fn fastmcp_client_supports_roots_in_a_tool() {
        let code = "use fastmcp::prelude::*;\n#[tool]\nasync fn files(ctx: &McpContext) -> String {\n    if ctx.client_supports_roots() { \"ask\".into() } else { \"cwd\".into() }\n}\n";
        assert_eq!(lines(code), vec![4]);
    }

    #[test]
    fn store_without_server_handler_is_silent() {
        let code = "struct A { caps: Cell<Option<Caps>> }\nimpl Agent for A {\n    fn initialize(&self, req: InitializeRequest) { self.caps.set(Some(req.capabilities)); }\n    fn prompt(&self) -> bool { self.caps.get().is_some() }\n}\n";
        assert!(lines(code).is_empty());
    }

    #[test]
    fn store_of_the_peer_alone_is_silent() {
        let code = "struct S { peer: Mutex<Option<Peer<RoleServer>>> }\nimpl ServerHandler for S {\n    async fn on_initialized(&self, cx: NotificationContext<RoleServer>) {\n        *self.peer.lock().unwrap() = Some(cx.peer.clone());\n    }\n}\n#[tool_router]\nimpl S {\n    #[tool]\n    async fn t(&self) { let p = self.peer.lock().unwrap().clone(); }\n}\n";
        assert!(lines(code).is_empty());
    }

    #[test]
    fn store_of_the_whole_request_and_read_in_clone_impl() {
        let code = "struct S { init: OnceLock<InitializeRequestParams> }\nimpl ServerHandler for S {\n    async fn initialize(&self, request: InitializeRequestParams, cx: RequestContext<RoleServer>) -> Result<InitializeResult, ErrorData> {\n        let _ = self.init.set(request);\n        Ok(self.get_info())\n    }\n    async fn list_tools(&self, _: Option<PaginatedRequestParams>, _: RequestContext<RoleServer>) {\n        let old = self.init.get().map(|r| r.protocol_version.clone());\n    }\n}\nimpl Clone for S {\n    fn clone(&self) -> Self { S { init: self.init.clone() } }\n}\n";
        assert_eq!(lines(code), vec![8]);
    }

    #[test]
    fn store_in_a_helper_that_initialize_calls() {
        let code = "struct S { caps: Mutex<Option<Caps>>, n: Mutex<u8> }\nimpl S {\n    fn keep(&self, c: Caps, n: u8) { *self.caps.lock().unwrap() = Some(c); *self.n.lock().unwrap() = n; }\n}\nimpl ServerHandler for S {\n    async fn initialize(&self, request: InitializeRequestParams, cx: RequestContext<RoleServer>) {\n        self.keep(request.capabilities, 1);\n    }\n    async fn list_tools(&self) { let c = self.caps.lock().unwrap().clone(); let n = *self.n.lock().unwrap(); }\n}\n";
        assert_eq!(lines(code), vec![9], "only the field given the request's data");
    }

    #[test]
    fn dispatcher_in_a_free_function_is_not_a_self_store() {
        let code = "fn serve(state: &mut State, method: &str, params: Value) {\n    match method {\n        \"initialize\" => state.caps = Some(params[\"capabilities\"].clone()),\n        \"tools/call\" => { let _ = &state.caps; }\n        _ => {}\n    }\n}\n";
        assert!(lines(code).is_empty());
    }

    #[test]
    fn loop_local_of_a_dispatcher_in_main() {
        // Declared before the read loop: it outlives every request the loop answers.
        let code = "fn main() {\n    let mut caps = None;\n    for line in stdin_lines() {\n        match line.method.as_str() {\n            \"initialize\" => { caps = Some(line.params[\"capabilities\"].clone()); }\n            \"tools/call\" => { if caps.is_some() { reply(&line); } }\n            _ => {}\n        }\n    }\n}\n";
        assert_eq!(lines(code), vec![6]);
    }

    #[test]
    fn store_through_arc_inner_read_in_the_inner_type() {
        let code = "struct Inner { caps: Mutex<Option<Caps>>, hits: Mutex<u32> }\nimpl Inner {\n    fn can_sample(&self) -> bool { self.caps.lock().unwrap().is_some() }\n    fn count(&self) -> u32 { *self.hits.lock().unwrap() }\n}\nstruct S { inner: Arc<Inner> }\nimpl ServerHandler for S {\n    async fn initialize(&self, request: InitializeRequestParams, cx: RequestContext<RoleServer>) {\n        *self.inner.caps.lock().unwrap() = Some(request.capabilities);\n        *self.inner.hits.lock().unwrap() = 0;\n    }\n}\n";
        assert_eq!(lines(code), vec![3], "`Inner.caps`, wherever it is spelled");
    }
}
