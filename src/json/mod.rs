//! JSON: one spanned tree (`tree`), two front ends (`parse` for JSON/JSONC/JSONL text, `macro_body`
//! for `json!` token streams), and a small JSON-RPC layer (`jsonrpc`) that classifies messages and
//! reads transcripts.

pub mod edit;
pub mod jsonrpc;
pub mod macro_body;
pub mod parse;
pub mod tree;

pub use tree::{JsonKind, JsonMember, JsonNode, Step, walk};
