//! `mcp-lint server`: a language server over stdio. Editors send the text of open `.rs`, `.json`,
//! `.jsonc` and `.jsonl` documents; the server checks that text (not the file on disk) with every
//! rule, in the crate context of the manifests around the document, publishes the findings as
//! diagnostics on open, change (after a short pause in typing) and save, and offers their fixes as
//! code actions: safe ones preferred, unsafe ones marked, plus `source.fixAll.mcp-lint`.
//!
//! `transport` frames messages, `server` runs the lifecycle and the documents, `document` holds
//! one open document, `position` converts byte offsets to LSP positions (UTF-16 unless the client
//! offers UTF-8), `convert` turns findings and fixes into LSP diagnostics and code actions, and
//! `codemod` offers the roots codemod's crate-wide rewrite as the action of its findings.

mod codemod;
mod convert;
mod document;
mod position;
mod server;
mod transport;

use std::io::{self, BufReader};
use std::process::ExitCode;

/// Serves LSP on stdin/stdout until `exit` or the end of input.
pub fn run() -> ExitCode {
    let incoming = transport::spawn_reader(BufReader::new(io::stdin()));
    // A large stack, as the engine's workers have: `syn` recurses per nesting level.
    let served = std::thread::Builder::new()
        .name("lsp-server".into())
        .stack_size(64 << 20)
        .spawn(move || server::Server::new(io::stdout().lock()).serve(incoming));
    match served.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: the language server stopped unexpectedly");
            ExitCode::from(2)
        }
    }
}
