//! Which handler-trait method answers which MCP method or notification: rmcp's `ServerHandler` and
//! `ClientHandler` (every method that answers the peer, notification handlers included) and
//! rust-mcp-sdk's `handle_*` methods.

use crate::context::Role;

/// rmcp `ServerHandler` and rust-mcp-sdk `ServerHandler` methods: (method, what it answers).
pub const SERVER_METHODS: &[(&str, &str)] = &[
    ("initialize", "initialize"),
    ("ping", "ping"),
    ("complete", "completion/complete"),
    ("set_level", "logging/setLevel"),
    ("get_prompt", "prompts/get"),
    ("list_prompts", "prompts/list"),
    ("list_resources", "resources/list"),
    ("list_resource_templates", "resources/templates/list"),
    ("read_resource", "resources/read"),
    ("subscribe", "resources/subscribe"),
    ("unsubscribe", "resources/unsubscribe"),
    ("call_tool", "tools/call"),
    ("list_tools", "tools/list"),
    ("list_tasks", "tasks/list"),
    ("get_task_info", "tasks/get"),
    ("get_task_result", "tasks/result"),
    ("cancel_task", "tasks/cancel"),
    ("discover", "server/discover"),
    ("on_cancelled", "notifications/cancelled"),
    ("on_progress", "notifications/progress"),
    ("on_initialized", "notifications/initialized"),
    ("on_roots_list_changed", "notifications/roots/list_changed"),
    ("handle_initialize_request", "initialize"),
    ("handle_ping_request", "ping"),
    ("handle_complete_request", "completion/complete"),
    ("handle_set_level_request", "logging/setLevel"),
    ("handle_get_prompt_request", "prompts/get"),
    ("handle_list_prompts_request", "prompts/list"),
    ("handle_list_resources_request", "resources/list"),
    ("handle_list_resource_templates_request", "resources/templates/list"),
    ("handle_read_resource_request", "resources/read"),
    ("handle_subscribe_request", "resources/subscribe"),
    ("handle_unsubscribe_request", "resources/unsubscribe"),
    ("handle_call_tool_request", "tools/call"),
    ("handle_list_tools_request", "tools/list"),
    ("handle_list_tasks_request", "tasks/list"),
    ("handle_get_task_payload_request", "tasks/result"),
    ("handle_initialized_notification", "notifications/initialized"),
    ("handle_cancelled_notification", "notifications/cancelled"),
    ("handle_progress_notification", "notifications/progress"),
    ("handle_roots_list_changed_notification", "notifications/roots/list_changed"),
];

/// rmcp `ClientHandler` and rust-mcp-sdk `ClientHandler` methods.
pub const CLIENT_METHODS: &[(&str, &str)] = &[
    ("ping", "ping"),
    ("create_message", "sampling/createMessage"),
    ("list_roots", "roots/list"),
    ("create_elicitation", "elicitation/create"),
    ("on_cancelled", "notifications/cancelled"),
    ("on_progress", "notifications/progress"),
    ("on_logging_message", "notifications/message"),
    ("on_resource_updated", "notifications/resources/updated"),
    ("on_resource_list_changed", "notifications/resources/list_changed"),
    ("on_tool_list_changed", "notifications/tools/list_changed"),
    ("on_prompt_list_changed", "notifications/prompts/list_changed"),
    ("on_elicitation_complete", "notifications/elicitation/complete"),
    ("on_url_elicitation_complete", "notifications/elicitation/complete"),
    ("handle_ping_request", "ping"),
    ("handle_create_message_request", "sampling/createMessage"),
    ("handle_list_roots_request", "roots/list"),
    ("handle_elicit_request", "elicitation/create"),
    ("handle_logging_message_notification", "notifications/message"),
    ("handle_elicitation_complete_notification", "notifications/elicitation/complete"),
];

/// The side and the MCP method a handler trait's method answers, if it is one.
pub fn trait_method(trait_name: &str, method: &str) -> Option<(Role, &'static str)> {
    let (side, table) = if trait_name.starts_with("ServerHandler") {
        (Role::Server, SERVER_METHODS)
    } else if trait_name.starts_with("ClientHandler") {
        (Role::Client, CLIENT_METHODS)
    } else {
        return None;
    };
    table.iter().find(|(name, _)| *name == method).map(|(_, m)| (side, *m))
}

/// Whether a string is an MCP method or notification name (a dispatcher arm's pattern).
pub fn is_mcp_method(s: &str) -> bool {
    SERVER_METHODS.iter().chain(CLIENT_METHODS).any(|(_, m)| *m == s)
}

/// Whether a string starts like an MCP method other than the generic words (`tools/…`,
/// `notifications/…`, …), listed or not.
pub fn has_mcp_prefix(value: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "tools/",
        "resources/",
        "prompts/",
        "notifications/",
        "completion/",
        "logging/",
        "sampling/",
        "elicitation/",
        "roots/",
        "server/",
        "tasks/",
        "subscriptions/",
    ];
    PREFIXES.iter().any(|p| value.starts_with(p))
}

/// A method of another JSON-RPC protocol that also opens with `initialize`: the Agent Client
/// Protocol's (`session/prompt`, `fs/read_text_file`) or the Language Server Protocol's
/// (`textDocument/didOpen`, `$/cancelRequest`). A dispatcher with such arms and no MCP one serves
/// that protocol.
pub fn is_other_protocol_method(value: &str) -> bool {
    const PREFIXES: &[&str] = &["session/", "fs/", "terminal/", "textDocument/", "workspace/", "window/", "$/"];
    PREFIXES.iter().any(|p| value.starts_with(p))
}

/// The MCP method a request enum's variant stands for, by the server handler method of the same
/// name (`Initialize`, `InitializeRequest` → `initialize`; `ListTools` → `tools/list`).
pub fn variant_method(variant: &str) -> Option<&'static str> {
    let mut snake = String::with_capacity(variant.len() + 4);
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        } else {
            snake.push(c);
        }
    }
    let name = snake.strip_suffix("_request").unwrap_or(&snake);
    SERVER_METHODS.iter().find(|(n, _)| *n == name && !n.starts_with("handle_")).map(|(_, m)| *m)
}

/// The MCP method a constant stands for by its SCREAMING name (`INITIALIZE`, `TOOLS_LIST`,
/// `RESOURCES_TEMPLATES_LIST`): the wire name with `/` for `_`, when that is one.
pub fn const_method(name: &str) -> Option<&'static str> {
    if !name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
        return None;
    }
    let wire = name.to_ascii_lowercase().replace('_', "/");
    SERVER_METHODS.iter().chain(CLIENT_METHODS).find(|(_, m)| *m == wire).map(|(_, m)| *m)
}

#[cfg(test)]
mod tests {
    use super::{const_method, variant_method};

    #[test]
    fn method_constants_by_their_names() {
        assert_eq!(const_method("INITIALIZE"), Some("initialize"));
        assert_eq!(const_method("RESOURCES_TEMPLATES_LIST"), Some("resources/templates/list"));
        assert_eq!(const_method("Initialize"), None);
        assert_eq!(const_method("SET_LEVEL"), None);
    }

    #[test]
    fn request_enum_variants_by_handler_names() {
        assert_eq!(variant_method("Initialize"), Some("initialize"));
        assert_eq!(variant_method("InitializeRequest"), Some("initialize"));
        assert_eq!(variant_method("ListTools"), Some("tools/list"));
        assert_eq!(variant_method("CallToolRequest"), Some("tools/call"));
        assert_eq!(variant_method("Initializing"), None);
        assert_eq!(variant_method("HandleInitializeRequest"), None);
    }
}
