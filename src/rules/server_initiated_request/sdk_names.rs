//! The data of `server-initiated-request`: the SDK methods, request types and `ServerRequest`
//! variants that send the requests it reports.

use super::{ELICITATION, PING, SAMPLING};
use crate::context::Sdk;

/// An SDK method that sends one of the requests, with the SDKs that spell it so.
pub(super) struct Spelling {
    pub(super) name: &'static str,
    pub(super) method: &'static str,
    pub(super) sdks: &'static [Sdk],
    /// Names that unrelated code also uses (a chat store's `create_message`): they need a peer-like
    /// receiver or an SDK parameter type in the arguments.
    pub(super) generic: bool,
    /// Most arguments the SDK's method takes.
    pub(super) max_args: usize,
}

/// `Sdk::Other` (another crate with `mcp` in its name) is allowed for every spelling. turbomcp is
/// deliberately absent: its `create_message(key, ..)` / `elicit(key, ..)` become MRTR input
/// requests on 2026-07-28 sessions.
pub(super) const SPELLINGS: &[Spelling] = &[
    // rmcp `Peer<RoleServer>::create_message(params)`, rust-mcp-sdk's deprecated `create_message`.
    Spelling {
        name: "create_message",
        method: SAMPLING,
        sdks: &[Sdk::Rmcp, Sdk::RustMcpSdk, Sdk::Other],
        generic: true,
        max_args: 1,
    },
    Spelling {
        name: "request_message_creation",
        method: SAMPLING,
        sdks: &[Sdk::RustMcpSdk, Sdk::Other],
        generic: false,
        max_args: 1,
    },
    Spelling {
        name: "sampling_create_message",
        method: SAMPLING,
        sdks: &[Sdk::McpAttr, Sdk::Other],
        generic: false,
        max_args: 1,
    },
    Spelling {
        name: "create_elicitation",
        method: ELICITATION,
        sdks: &[Sdk::Rmcp, Sdk::Other],
        generic: false,
        max_args: 1,
    },
    Spelling {
        name: "create_elicitation_with_timeout",
        method: ELICITATION,
        sdks: &[Sdk::Rmcp, Sdk::Other],
        generic: false,
        max_args: 2,
    },
    // rmcp `elicit::<T>(message)`.
    Spelling { name: "elicit", method: ELICITATION, sdks: &[Sdk::Rmcp, Sdk::Other], generic: true, max_args: 1 },
    Spelling {
        name: "elicit_with_timeout",
        method: ELICITATION,
        sdks: &[Sdk::Rmcp, Sdk::Other],
        generic: false,
        max_args: 2,
    },
    Spelling { name: "elicit_url", method: ELICITATION, sdks: &[Sdk::Rmcp, Sdk::Other], generic: false, max_args: 3 },
    Spelling {
        name: "elicit_url_with_timeout",
        method: ELICITATION,
        sdks: &[Sdk::Rmcp, Sdk::Other],
        generic: false,
        max_args: 4,
    },
    Spelling {
        name: "request_elicitation",
        method: ELICITATION,
        sdks: &[Sdk::RustMcpSdk, Sdk::Other],
        generic: false,
        max_args: 1,
    },
    Spelling {
        name: "elicit_input",
        method: ELICITATION,
        sdks: &[Sdk::RustMcpSdk, Sdk::Other],
        generic: false,
        max_args: 1,
    },
    Spelling {
        name: "elicit_form",
        method: ELICITATION,
        sdks: &[Sdk::Fastmcp, Sdk::Other],
        generic: false,
        max_args: 2,
    },
];

/// SDK parameter types whose presence in the arguments makes a generic name the SDK's.
pub(super) const PARAM_TYPES: &[&str] = &[
    "CreateMessageRequestParam",
    "CreateMessageRequestParams",
    "CreateMessageParams",
    "SamplingMessage",
    "CreateElicitationRequestParam",
    "CreateElicitationRequestParams",
    "ElicitRequestParams",
];

/// `ServerRequest::<variant>` spellings (rmcp, rust-mcp-schema, pmcp) and the method each sends.
pub(super) use crate::rust::requests::SERVER_REQUEST_VARIANTS;

/// Request types that, handed to a request-sending call, send their method.
pub(super) const REQUEST_TYPES: &[(&str, &str)] = &[
    ("CreateMessageRequest", SAMPLING),
    ("CreateElicitationRequest", ELICITATION),
    ("ElicitRequest", ELICITATION),
    ("PingRequest", PING),
];
