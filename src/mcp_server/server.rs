//! The protocol side, on rmcp: the five tools (their schemas from the argument and answer types in
//! `tools`), and the rule pages as resources. The tools are stateless: each call names all it
//! needs, and nothing of a call or of a client is kept for the next one. The server sends no
//! requests to the client and asks it for nothing; rmcp answers `server/discover`, stamps
//! `resultType` and the cache hints on 2026-07-28 results, and still answers `initialize` for
//! legacy clients.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde_json::Value;

use super::confine::Folders;
use super::tools::{self, Reply};

const INSTRUCTIONS: &str = "mcp-lint finds what MCP revision 2026-07-28 breaks or deprecates in Rust MCP servers and \
clients and the JSON around them, and fixes what it can. Start with `check` (findings, each with a rule, a range and \
whether a fix exists), read a rule's page with `explain` or the `mcp-lint://rules/<name>` resource, preview the fixes \
with `fix` (a diff; nothing is written without `write: true`), and write an audit with `summary`. Paths are relative \
to the server's first allowed folder; nothing outside the allowed folders is read or written.";

/// A tool's input schema, without the formats schemars adds for Rust's integer types.
fn input_schema<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    portable(&schema_for_type::<T>())
}

/// A tool's output schema, as `input_schema`.
fn output_schema<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    portable(&schema_for_output::<T>())
}

/// Drops `format` values that are not JSON Schema's (`uint`, `int64`, `double`: schemars names Rust
/// types with them), which clients' validators warn about or reject.
fn portable(schema: &JsonObject) -> Arc<JsonObject> {
    let mut schema = schema.clone();
    drop_numeric_formats(&mut schema);
    Arc::new(schema)
}

fn drop_numeric_formats(object: &mut JsonObject) {
    let numeric = |f: &str| ["int", "uint", "float", "double"].iter().any(|p| f.starts_with(p));
    if object.get("format").and_then(Value::as_str).is_some_and(numeric) {
        object.remove("format");
    }
    for value in object.values_mut() {
        match value {
            Value::Object(inner) => drop_numeric_formats(inner),
            Value::Array(items) => items.iter_mut().filter_map(Value::as_object_mut).for_each(drop_numeric_formats),
            _ => {}
        }
    }
}

#[derive(Clone)]
pub struct LintServer {
    folders: Arc<Folders>,
    tool_router: ToolRouter<LintServer>,
}

impl LintServer {
    pub fn new(folders: Folders) -> LintServer {
        LintServer { folders: Arc::new(folders), tool_router: Self::tool_router() }
    }

    /// Runs a tool off the protocol's thread (the engine is CPU-bound and parallel). A tool's error,
    /// or a panic in it, becomes a tool error the client sees; the server goes on.
    async fn run<F>(&self, work: F) -> CallToolResult
    where
        F: FnOnce(&Folders) -> Result<Reply, String> + Send + 'static,
    {
        let folders = Arc::clone(&self.folders);
        match tokio::task::spawn_blocking(move || work(&folders)).await {
            Ok(Ok(reply)) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(reply.text)]);
                result.structured_content = Some(reply.structured);
                result
            }
            Ok(Err(message)) => CallToolResult::error(vec![ContentBlock::text(format!("error: {message}"))]),
            Err(_) => CallToolResult::error(vec![ContentBlock::text(
                "error: mcp-lint stopped on this input (an internal error; please report it with the input)",
            )]),
        }
    }
}

#[tool_router]
impl LintServer {
    /// Check files and folders, or an inline text, as `mcp-lint check` does.
    #[tool(
        description = "Check Rust MCP servers and clients and their JSON (configs, transcripts, fixtures) for what MCP 2026-07-28 breaks or deprecates. Returns the findings as `mcp-lint check --format json` writes them: rule, severity, path and range, message, help, the protocol era assumed, and the fix when one exists. Paths default to the allowed folders; `text` with `file_name` checks unsaved text.",
        input_schema = input_schema::<tools::CheckArgs>(),
        output_schema = output_schema::<tools::CheckOutput<'static>>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn check(&self, Parameters(args): Parameters<tools::CheckArgs>) -> CallToolResult {
        self.run(move |folders| tools::check(folders, args)).await
    }

    /// A rule's page.
    #[tool(
        description = "A rule's page (Markdown): what it finds, why (the spec section), a failing and a migrated example, and what its fix does and how safe it is.",
        input_schema = input_schema::<tools::ExplainArgs>(),
        output_schema = output_schema::<tools::ExplainOutput>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn explain(&self, Parameters(args): Parameters<tools::ExplainArgs>) -> CallToolResult {
        self.run(move |_| tools::explain(args)).await
    }

    /// The rule list.
    #[tool(
        description = "The rules: name, one-line summary, whether findings carry a fix, and the resource of each rule's page.",
        input_schema = input_schema::<tools::RulesArgs>(),
        output_schema = output_schema::<tools::RulesOutput>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn rules(&self, Parameters(args): Parameters<tools::RulesArgs>) -> CallToolResult {
        self.run(move |_| tools::rules_list(args)).await
    }

    /// `mcp-lint fix`: a preview unless told to write.
    #[tool(
        description = "Preview or apply mcp-lint's fixes. By default nothing is written: the answer is the unified diff of the safe fixes, what they fix per rule, and the findings left with why. `unsafe: true` adds the unsafe fixes (the roots codemod moves tools off MCP roots onto an explicit directory parameter; its notes and reasons are in the answer). `write: true` writes the files atomically, refusing files with uncommitted git changes (unless `allow_dirty`) or outside git (unless `allow_no_vcs`), as `mcp-lint fix` does.",
        input_schema = input_schema::<tools::FixArgs>(),
        output_schema = output_schema::<tools::FixOutput>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn fix(&self, Parameters(args): Parameters<tools::FixArgs>) -> CallToolResult {
        self.run(move |folders| tools::fix(folders, args)).await
    }

    /// The Markdown audit.
    #[tool(
        description = "A Markdown audit of a folder for a migration ticket (`mcp-lint check --format summary`): totals, the era assumed per crate, findings per rule and per file, what `fix` does by itself, and a checklist of what needs a person.",
        input_schema = input_schema::<tools::SummaryArgs>(),
        output_schema = output_schema::<tools::SummaryOutput>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn summary(&self, Parameters(args): Parameters<tools::SummaryArgs>) -> CallToolResult {
        self.run(move |folders| tools::summary(folders, args)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LintServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("mcp-lint", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let pages = crate::rules::all_meta().map(|meta| {
            Resource::new(tools::rule_uri(meta.name), meta.name)
                .with_title(format!("mcp-lint rule {}", meta.name))
                .with_description(meta.summary)
                .with_mime_type("text/markdown")
                .with_size(meta.doc.len() as u64)
        });
        Ok(ListResourcesResult::with_all_items(pages.collect()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let name = request.uri.strip_prefix(tools::RULE_URI_PREFIX);
        let Some(meta) = name.and_then(|n| tools::find_rule(n).ok()) else {
            // -32602: 2026-07-28 retired -32002 for a missing resource.
            return Err(ErrorData::invalid_params(
                format!("no such resource: {}; `resources/list` lists the rule pages", request.uri),
                None,
            ));
        };
        let page = ResourceContents::text(meta.doc, request.uri.clone()).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![page]).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_name_no_rust_integer_formats() {
        let schemas = [input_schema::<tools::CheckArgs>(), output_schema::<tools::CheckOutput<'static>>()];
        for schema in schemas {
            let text = Value::Object((*schema).clone()).to_string();
            assert!(text.contains("\"integer\"") && !text.contains("\"format\""), "{text}");
        }
    }
}
