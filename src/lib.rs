//! mcp-lint: finds and fixes what MCP revision 2026-07-28 breaks or deprecates in Rust MCP servers
//! and clients, and in the JSON files around them.
//!
//! The flow of one run: `discover` → per file in parallel (`engine`): read, `prefilter`, parse
//! (`rust::parse`, `json::parse`), analyze (`rust::visitor` offering nodes to `rules`) → per crate, the `model` for the rules
//! that ask it → `report`.

pub mod allocator;
pub mod baseline;
pub mod cli;
pub mod config;
pub mod context;
pub mod cx;
pub mod diagnostic;
pub mod discover;
pub mod engine;
pub mod fix;
pub mod json;
pub mod lsp;
pub mod mcp_server;
pub mod model;
pub mod prefilter;
pub mod report;
pub mod rules;
pub mod rust;
pub mod source;
pub mod suppress;
pub mod words;
