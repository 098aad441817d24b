//! The server's state and its message loop: the LSP lifecycle (initialize, shutdown, exit), open
//! documents synced from the editor, diagnostics published after each change, code actions.

use std::collections::HashMap;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams, CodeActionProviderCapability,
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, InitializeResult, LogMessageParams, MessageType, PositionEncodingKind,
    PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};
use serde::de::DeserializeOwned;

use super::codemod::{Codemods, Editor};
use super::convert;
use super::document::{Document, document_path};
use super::position::Encoding;
use super::transport::{self, Incoming};
use crate::diagnostic::{Applicability, Diagnostic};

/// How long typing must pause before a changed document is checked again...
const QUIET: Duration = Duration::from_millis(150);
/// ...and the longest a change waits for that pause.
const MAX_WAIT: Duration = Duration::from_millis(1000);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Waiting for `initialize`.
    Starting,
    Running,
    /// `shutdown` was answered; only `exit` is expected now.
    ShuttingDown,
}

pub struct Server<W: Write> {
    out: W,
    /// Set when the client can no longer be written to; the loop then ends.
    output_failed: bool,
    state: State,
    encoding: Encoding,
    /// Whether the client accepts `documentChanges` (edits tied to a document version).
    versioned_edits: bool,
    /// Whether the client shows code actions offered disabled, with the reason.
    disabled_actions: bool,
    documents: HashMap<Uri, Document>,
    /// When the first and the last unpublished change arrived (see `QUIET` and `MAX_WAIT`).
    unpublished: Option<(Instant, Instant)>,
    /// Configuration and crate contexts, found once and reused by every check.
    workspace: crate::engine::Workspace,
    /// The roots codemod's plans for the documents as they are (dropped on every change).
    codemods: Codemods,
}

impl<W: Write> Server<W> {
    pub fn new(out: W) -> Server<W> {
        Server {
            out,
            output_failed: false,
            state: State::Starting,
            encoding: Encoding::Utf16,
            versioned_edits: false,
            disabled_actions: false,
            documents: HashMap::new(),
            unpublished: None,
            workspace: crate::engine::Workspace::default(),
            codemods: Codemods::default(),
        }
    }

    /// Serves until `exit` (status 0 after `shutdown`, 1 without, as LSP asks) or until the input
    /// ends or the output fails (1).
    pub fn serve(mut self, incoming: Receiver<Incoming>) -> ExitCode {
        while !self.output_failed {
            let next = match self.unpublished {
                None => incoming.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some((first, last)) => {
                    let due = (last + QUIET).min(first + MAX_WAIT);
                    incoming.recv_timeout(due.saturating_duration_since(Instant::now()))
                }
            };
            match next {
                Ok(Incoming::Message(Message::Notification(n))) if n.method == "exit" => {
                    return if self.state == State::ShuttingDown { ExitCode::SUCCESS } else { ExitCode::FAILURE };
                }
                Ok(Incoming::Message(Message::Request(r))) => self.request(r),
                Ok(Incoming::Message(Message::Notification(n))) => self.notification(n),
                // The server sends no requests, so there is nothing to match a response with.
                Ok(Incoming::Message(Message::Response(_))) => {}
                Ok(Incoming::Broken(why)) => self.broken(why),
                Err(RecvTimeoutError::Timeout) => self.publish_unpublished(),
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        ExitCode::FAILURE
    }

    fn request(&mut self, r: Request) {
        match (self.state, r.method.as_str()) {
            (State::Starting, "initialize") => self.initialize(r),
            (State::Starting, _) => self.error(r.id, ErrorCode::ServerNotInitialized, "`initialize` must come first"),
            (State::ShuttingDown, _) => self.error(r.id, ErrorCode::InvalidRequest, "the server is shutting down"),
            (State::Running, "initialize") => self.error(r.id, ErrorCode::InvalidRequest, "already initialized"),
            (State::Running, "shutdown") => {
                self.state = State::ShuttingDown;
                self.respond(r.id, serde_json::Value::Null);
            }
            (State::Running, "textDocument/codeAction") => {
                if let Some(params) = self.params::<CodeActionParams>(&r) {
                    let actions = self.code_actions(params);
                    self.respond(r.id, actions);
                }
            }
            (State::Running, method) => {
                let message = format!("mcp-lint does not handle `{method}`");
                self.error(r.id, ErrorCode::MethodNotFound, &message);
            }
        }
    }

    fn notification(&mut self, n: Notification) {
        if self.state != State::Running {
            return; // before `initialize` and after `shutdown`, notifications other than `exit` are dropped
        }
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Some(p) = self.notification_params::<DidOpenTextDocumentParams>(&n) {
                    self.open(p);
                }
            }
            "textDocument/didChange" => {
                if let Some(p) = self.notification_params::<DidChangeTextDocumentParams>(&n) {
                    self.change(p);
                }
            }
            "textDocument/didSave" => {
                if let Some(p) = self.notification_params::<DidSaveTextDocumentParams>(&n) {
                    self.save(p);
                }
            }
            "textDocument/didClose" => {
                if let Some(p) = self.notification_params::<DidCloseTextDocumentParams>(&n) {
                    self.close(p);
                }
            }
            // The editor watches files the server reads from disk (VS Code's extension watches the
            // configuration and the manifests), changed by any program, not only saved in the editor.
            "workspace/didChangeWatchedFiles" => {
                if let Some(p) = self.notification_params::<DidChangeWatchedFilesParams>(&n)
                    && p.changes.iter().any(|change| rereads_workspace(&change.uri))
                {
                    self.reread_workspace();
                }
            }
            // `initialized`, `$/cancelRequest` (every request is answered at once), settings, …
            _ => {}
        }
    }

    fn initialize(&mut self, r: Request) {
        // Read only what the server uses, so an odd field elsewhere in a client's capabilities
        // cannot keep it from starting.
        let offered: Option<Vec<PositionEncodingKind>> = r
            .params
            .pointer("/capabilities/general/positionEncodings")
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        self.encoding = Encoding::negotiate(offered.as_deref());
        self.versioned_edits = r.params.pointer("/capabilities/workspace/workspaceEdit/documentChanges")
            == Some(&serde_json::Value::Bool(true));
        self.disabled_actions = r.params.pointer("/capabilities/textDocument/codeAction/disabledSupport")
            == Some(&serde_json::Value::Bool(true));
        let capabilities = ServerCapabilities {
            position_encoding: Some(self.encoding.kind()),
            text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(false) })),
                ..Default::default()
            })),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, convert::fix_all_kind()]),
                resolve_provider: Some(false),
                ..Default::default()
            })),
            ..Default::default()
        };
        let result = InitializeResult {
            capabilities,
            server_info: Some(ServerInfo { name: "mcp-lint".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        };
        self.state = State::Running;
        self.respond(r.id, result);
    }

    fn open(&mut self, p: DidOpenTextDocumentParams) {
        let item = p.text_document;
        let Some(path) = document_path(&item.uri) else { return };
        self.documents.insert(item.uri.clone(), Document::new(path, item.version, item.text, self.encoding));
        self.codemods.clear();
        self.publish(&item.uri);
    }

    fn change(&mut self, p: DidChangeTextDocumentParams) {
        let Some(doc) = self.documents.get_mut(&p.text_document.uri) else { return };
        doc.apply(p.text_document.version, p.content_changes, self.encoding);
        self.codemods.clear();
        let now = Instant::now();
        self.unpublished = Some((self.unpublished.map_or(now, |(first, _)| first), now));
    }

    fn save(&mut self, p: DidSaveTextDocumentParams) {
        let uri = p.text_document.uri;
        if let Some(doc) = self.documents.get_mut(&uri) {
            if let Some(text) = p.text {
                let version = doc.version;
                let whole = lsp_types::TextDocumentContentChangeEvent { range: None, range_length: None, text };
                doc.apply(version, vec![whole], self.encoding);
            }
            doc.diagnostics = None;
            self.codemods.clear();
            self.publish(&uri);
        }
        if rereads_workspace(&uri) {
            self.reread_workspace();
        }
    }

    /// Finds configuration and crate contexts again and re-checks every open document with them.
    fn reread_workspace(&mut self) {
        self.workspace = crate::engine::Workspace::default();
        self.codemods.clear();
        for doc in self.documents.values_mut() {
            doc.diagnostics = None;
        }
        self.publish_unpublished();
    }

    fn close(&mut self, p: DidCloseTextDocumentParams) {
        let uri = p.text_document.uri;
        if self.documents.remove(&uri).is_some() {
            self.codemods.clear();
            let params = PublishDiagnosticsParams { uri, diagnostics: Vec::new(), version: None };
            self.notify("textDocument/publishDiagnostics", params);
        }
    }

    /// Checks the document if it changed since it was last checked, and publishes its findings.
    fn publish(&mut self, uri: &Uri) {
        let Some(doc) = self.documents.get_mut(uri) else { return };
        let mut failure = None;
        if doc.diagnostics.is_none() {
            let (diagnostics, failed) = check(&self.workspace, &doc.path, doc.text.clone());
            doc.diagnostics = Some(diagnostics);
            failure = failed;
        }
        let doc = &self.documents[uri];
        let diagnostics = doc.diagnostics.iter().flatten().map(|d| convert::diagnostic(d, uri, doc)).collect();
        let params = PublishDiagnosticsParams { uri: uri.clone(), diagnostics, version: Some(doc.version) };
        self.notify("textDocument/publishDiagnostics", params);
        if let Some(why) = failure {
            self.log(MessageType::ERROR, format!("checking {} failed: {why}", uri.as_str()));
        }
    }

    fn publish_unpublished(&mut self) {
        self.unpublished = None;
        let stale: Vec<Uri> =
            self.documents.iter().filter(|(_, d)| d.diagnostics.is_none()).map(|(u, _)| u.clone()).collect();
        for uri in stale {
            self.publish(&uri);
        }
    }

    fn code_actions(&mut self, p: CodeActionParams) -> Vec<CodeActionOrCommand> {
        let uri = p.text_document.uri;
        if self.documents.get(&uri).is_some_and(|d| d.diagnostics.is_none()) {
            self.publish(&uri); // the editor sees the findings the actions are for
        }
        let Some(doc) = self.documents.get(&uri) else { return Vec::new() };
        let findings = doc.diagnostics.as_deref().unwrap_or_default();
        let wanted = |kind: &CodeActionKind| match &p.context.only {
            None => true,
            Some(only) => only.iter().any(|k| kind_within(kind, k)),
        };
        let asked = doc.lines.byte_range(&doc.text, p.range);
        let mut actions: Vec<CodeActionOrCommand> = Vec::new();
        if wanted(&CodeActionKind::QUICKFIX) {
            let touching: Vec<&Diagnostic> =
                findings.iter().filter(|d| d.range.start <= asked.end && asked.start <= d.range.end).collect();
            actions.extend(
                touching.iter().filter_map(|d| convert::quick_fix(d, &uri, doc, self.versioned_edits)).map(Into::into),
            );
            // The roots codemod's rewrite of the crate, for a `server-roots-request` finding.
            let editor = Editor {
                documents: &self.documents,
                encoding: self.encoding,
                versioned: self.versioned_edits,
                disabled_support: self.disabled_actions,
            };
            actions
                .extend(self.codemods.actions(&self.workspace, &editor, &uri, &touching).into_iter().map(Into::into));
        }
        let any_safe = findings.iter().any(|d| d.fix.as_ref().is_some_and(|f| f.applicability == Applicability::Safe));
        if any_safe
            && wanted(&convert::fix_all_kind())
            && let Some(fixed) = fix_all_safe(&self.workspace, doc)
        {
            actions.extend(convert::fix_all(&uri, doc, &fixed, self.versioned_edits).map(Into::into));
        }
        actions
    }

    /// A frame that could not be read as a message: JSON-RPC's answer to it is a parse error with
    /// a `null` id; the server goes on.
    fn broken(&mut self, why: String) {
        let answer = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": ErrorCode::ParseError as i32, "message": format!("cannot read the message: {why}") },
        });
        if transport::write_raw(&mut self.out, &answer).is_err() {
            self.output_failed = true;
        }
    }

    /// A request's parameters, or an `InvalidParams` answer.
    fn params<P: DeserializeOwned>(&mut self, r: &Request) -> Option<P> {
        match serde_json::from_value(r.params.clone()) {
            Ok(p) => Some(p),
            Err(e) => {
                let message = format!("invalid parameters for `{}`: {e}", r.method);
                self.error(r.id.clone(), ErrorCode::InvalidParams, &message);
                None
            }
        }
    }

    /// A notification's parameters; notifications get no answer, so a bad one is logged.
    fn notification_params<P: DeserializeOwned>(&mut self, n: &Notification) -> Option<P> {
        match serde_json::from_value(n.params.clone()) {
            Ok(p) => Some(p),
            Err(e) => {
                self.log(MessageType::ERROR, format!("ignored `{}` with invalid parameters: {e}", n.method));
                None
            }
        }
    }

    fn respond(&mut self, id: RequestId, result: impl serde::Serialize) {
        self.send(Message::Response(Response::new_ok(id, result)));
    }

    fn error(&mut self, id: RequestId, code: ErrorCode, message: &str) {
        self.send(Message::Response(Response::new_err(id, code as i32, message.to_owned())));
    }

    fn notify(&mut self, method: &str, params: impl serde::Serialize) {
        self.send(Message::Notification(Notification::new(method.to_owned(), params)));
    }

    fn log(&mut self, typ: MessageType, message: String) {
        self.notify("window/logMessage", LogMessageParams { typ, message });
    }

    fn send(&mut self, message: Message) {
        if transport::write_message(&mut self.out, &message).is_err() {
            self.output_failed = true;
        }
    }
}

/// Whether a change to this file can change what every open document's crate uses (a manifest)
/// or which rules apply (a configuration), so that the workspace must be found again.
fn rereads_workspace(uri: &Uri) -> bool {
    let name = uri.as_str().rsplit('/').next().unwrap_or("");
    matches!(name, "Cargo.toml" | "Cargo.lock" | "mcp-lint.toml" | ".mcp-lint.toml")
}

/// Whether an action of `kind` is among those asked for by `asked`: the same kind or one below it
/// (`source.fixAll.mcp-lint` is within `source`); the empty kind asks for all.
fn kind_within(kind: &CodeActionKind, asked: &CodeActionKind) -> bool {
    let (kind, asked) = (kind.as_str(), asked.as_str());
    asked.is_empty() || kind == asked || kind.strip_prefix(asked).is_some_and(|rest| rest.starts_with('.'))
}

/// Runs every rule on the text. A rule that panics costs this check its findings, not the server
/// its life; the reason comes back with the (empty) findings.
fn check(workspace: &crate::engine::Workspace, path: &Path, text: String) -> (Vec<Diagnostic>, Option<String>) {
    match catch_unwind(AssertUnwindSafe(|| workspace.check_document(path, text))) {
        Ok(diagnostics) => (diagnostics, None),
        Err(panic) => (Vec::new(), Some(panic_message(&panic))),
    }
}

/// The document with every safe fix applied (bounded passes, re-checked, and dropped if the result
/// would not parse), or `None` when that changes nothing.
fn fix_all_safe(workspace: &crate::engine::Workspace, doc: &Document) -> Option<String> {
    let run = || workspace.fix_document(&doc.path, doc.text.clone(), crate::fix::Mode::Safe);
    let fixed = catch_unwind(AssertUnwindSafe(run)).ok()?;
    fixed.changed().then_some(fixed.fixed)
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a rule panicked".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asked_kinds_cover_their_sub_kinds() {
        let fix_all = convert::fix_all_kind();
        assert!(kind_within(&fix_all, &CodeActionKind::SOURCE));
        assert!(kind_within(&fix_all, &CodeActionKind::SOURCE_FIX_ALL));
        assert!(kind_within(&fix_all, &fix_all));
        assert!(kind_within(&fix_all, &CodeActionKind::EMPTY));
        assert!(!kind_within(&fix_all, &CodeActionKind::QUICKFIX));
        assert!(!kind_within(&CodeActionKind::QUICKFIX, &CodeActionKind::new("quick")));
        assert!(!kind_within(&CodeActionKind::SOURCE, &fix_all));
    }
}
