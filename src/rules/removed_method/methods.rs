//! The data of `removed-method`: each removed method with what to do instead, and the SDK enum
//! variants that name one.

/// One removed method, with what to do instead.
pub(super) struct Removed {
    pub(super) wire: &'static str,
    /// A common word (`initialize`, `ping`): only a method where the code says so.
    pub(super) generic: bool,
    /// Also a plausible method name outside MCP (`tasks/list` in a to-do app's JSON-RPC): needs
    /// other MCP evidence in the file.
    pub(super) needs_evidence: bool,
    pub(super) help: &'static str,
}

pub(super) const INITIALIZE: &str = "initialize";
pub(super) const PING: &str = "ping";

pub(super) const REMOVED: &[Removed] = &[
    Removed {
        wire: INITIALIZE,
        generic: true,
        // LSP and other JSON-RPC protocols have `initialize` and `ping` too.
        needs_evidence: true,
        help: "2026-07-28 has no handshake: clients may call `server/discover` and send `io.modelcontextprotocol/protocolVersion` \
               and `io.modelcontextprotocol/clientCapabilities` in every request's `_meta`; answer `initialize` only to \
               serve legacy clients (dual-era), or reject it naming the supported versions",
    },
    Removed {
        wire: "notifications/initialized",
        generic: false,
        needs_evidence: false,
        help: "drop it: there is no handshake to complete in 2026-07-28; do per-connection setup lazily, and read what \
               a request needs from that request's `_meta`",
    },
    Removed {
        wire: PING,
        generic: true,
        needs_evidence: true,
        help: "delete it: 2026-07-28 has no `ping` in either direction; any ordinary request proves liveness, and \
               transports keep connections alive themselves (SSE comment lines on HTTP)",
    },
    Removed {
        wire: "logging/setLevel",
        generic: false,
        needs_evidence: false,
        help: "the log level is per request now: clients send `_meta[\"io.modelcontextprotocol/logLevel\"]` with each \
               request, and servers log only for requests that carry it (logging itself is deprecated)",
    },
    Removed {
        wire: "resources/subscribe",
        generic: false,
        needs_evidence: false,
        help: "use `subscriptions/listen` with `params.notifications.resourceSubscriptions`; the subscription lasts \
               as long as that request's stream",
    },
    Removed {
        wire: "resources/unsubscribe",
        generic: false,
        needs_evidence: false,
        help: "a `subscriptions/listen` subscription ends when its stream closes (or with `notifications/cancelled` \
               on stdio); there is nothing to unsubscribe",
    },
    Removed {
        wire: "tasks/result",
        generic: false,
        needs_evidence: true,
        help: "tasks moved to the `io.modelcontextprotocol/tasks` extension, which has `tasks/get`, `tasks/update`, \
               `tasks/cancel` and `notifications/tasks` but no `tasks/result`: read the outcome through `tasks/get`",
    },
    Removed {
        wire: "tasks/list",
        generic: false,
        needs_evidence: true,
        help: "tasks moved to the `io.modelcontextprotocol/tasks` extension, which has no `tasks/list`: keep the task \
               ids you created and query each with `tasks/get`",
    },
    Removed {
        wire: "notifications/elicitation/complete",
        generic: false,
        needs_evidence: false,
        help: "drop it: after a URL-mode elicitation the client retries the request, and the server decides from \
               `requestState` (or its own store) whether the interaction finished",
    },
];

/// The removed method whose wire name is `value`.
pub(super) fn removed(value: &str) -> Option<&'static Removed> {
    REMOVED.iter().find(|r| r.wire == value)
}

/// SDK enum variants (rmcp, rust-mcp-schema, pmcp): (enum, variant, method).
pub(super) const VARIANTS: &[(&str, &str, &str)] = &[
    ("ClientRequest", "InitializeRequest", INITIALIZE),
    ("ClientRequest", "Initialize", INITIALIZE),
    ("ClientNotification", "InitializedNotification", "notifications/initialized"),
    ("ClientNotification", "Initialized", "notifications/initialized"),
    ("ClientRequest", "PingRequest", PING),
    ("ClientRequest", "Ping", PING),
    ("ClientRequest", "SetLevelRequest", "logging/setLevel"),
    ("ClientRequest", "SetLevel", "logging/setLevel"),
    ("ClientRequest", "SubscribeRequest", "resources/subscribe"),
    ("ClientRequest", "Subscribe", "resources/subscribe"),
    ("ClientRequest", "UnsubscribeRequest", "resources/unsubscribe"),
    ("ClientRequest", "Unsubscribe", "resources/unsubscribe"),
    ("ClientRequest", "ListTasksRequest", "tasks/list"),
    ("ClientRequest", "GetTaskPayloadRequest", "tasks/result"),
    ("ServerNotification", "ElicitationCompleteNotification", "notifications/elicitation/complete"),
    ("ServerNotification", "ElicitationCompletionNotification", "notifications/elicitation/complete"),
];

/// The enums of `VARIANTS` and of the `ServerRequest` pings `sdk_variant` matches.
pub(super) const SDK_ENUMS: &[&str] = &["ClientRequest", "ClientNotification", "ServerRequest", "ServerNotification"];
