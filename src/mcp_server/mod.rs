//! `mcp-lint mcp`: mcp-lint as an MCP server over stdio, for the coding agents that do migrations.
//! Tools `check`, `explain`, `rules`, `fix` (a preview unless told to write) and `summary`, and each
//! rule's page as the resource `mcp-lint://rules/<name>`.
//!
//! It serves MCP 2026-07-28 statelessly (each request carries its version and capabilities in
//! `_meta`; `server/discover` answers what the server is) and still answers `initialize` for
//! legacy clients, on rmcp 3.x (the official Rust SDK). It never sends the client a request.
//!
//! `confine` keeps every path a client names inside the folders the server was started with,
//! `tools` runs the engine as the CLI does and shapes the answers, `server` is the protocol side.
//! Built with the `mcp-server` cargo feature (on by default).

#[cfg(feature = "mcp-server")]
pub mod confine;
#[cfg(feature = "mcp-server")]
mod server;
#[cfg(feature = "mcp-server")]
pub mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

/// Serves MCP on stdin/stdout until the client closes stdin. `allow`: the folders the server may
/// read and write (the working directory when empty).
#[cfg(feature = "mcp-server")]
pub fn run(allow: &[PathBuf]) -> ExitCode {
    use rmcp::ServiceExt;

    let folders = match confine::Folders::new(allow) {
        Ok(folders) => folders,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // The tools run on blocking threads with a large stack, as the engine's workers have: `syn`
    // recurses per nesting level.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().thread_stack_size(64 << 20).build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the MCP server: {e}");
            return ExitCode::from(2);
        }
    };
    let served = runtime.block_on(async move {
        let service = server::LintServer::new(folders).serve(rmcp::transport::stdio()).await?;
        service.waiting().await.map_err(|e| std::io::Error::other(e.to_string()))?;
        Ok::<(), Box<dyn std::error::Error>>(())
    });
    // A pending read of stdin cannot be cancelled: do not wait for it at shutdown.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the MCP server stopped: {e}");
            ExitCode::from(2)
        }
    }
}

/// Without the `mcp-server` feature there is no server to run; the verb says so.
#[cfg(not(feature = "mcp-server"))]
pub fn run(_allow: &[PathBuf]) -> ExitCode {
    eprintln!(
        "error: this mcp-lint was built without the `mcp-server` feature; reinstall it with default features (`cargo install --path .`)"
    );
    ExitCode::from(2)
}
