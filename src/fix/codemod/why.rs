//! Why the codemod did not even consider a `server-roots-request` finding (it neither rewrote nor
//! refused it): said in the code's terms, never "needs a person".

use std::ops::Range;
use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

use super::{CrateFile, CrateOutcome, plan_crate_with};
use crate::config::Settings;
use crate::context::{CrateContext, CrateContexts, Sdk};
use crate::rust::parse::ParsedRust;
use crate::source::FileKind;

fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The reason for a finding at `range` of the file `file_key` (canonical) that the codemod left
/// without a refusal of its own.
pub fn unseen(files: &[CrateFile], file_key: &Path, range: &Range<usize>, contexts: &CrateContexts) -> String {
    let Some(file) = files.iter().find(|f| key(&f.path) == file_key) else {
        return "the roots codemod did not read this file as part of its crate".into();
    };
    unseen_in(file, range, &contexts.for_file(&file.path))
}

/// `unseen` for one file read with its crate's context.
pub fn unseen_in(file: &CrateFile, range: &Range<usize>, crate_ctx: &CrateContext) -> String {
    let parsed = parse_for_reasons(file);
    let reason = unseen_parsed(file, parsed.as_ref(), range, crate_ctx);
    drop(parsed);
    proc_macro2::extra::invalidate_current_thread_spans();
    reason
}

/// The file parsed for `unseen_parsed` (`None`: not Rust, or it does not parse).
pub fn parse_for_reasons(file: &CrateFile) -> Option<ParsedRust> {
    (FileKind::of(&file.path) == FileKind::Rust).then(|| crate::rust::parse::parse_rust(&file.text).ok()).flatten()
}

/// Why a file in no crate is not rewritten where the codemod would rewrite it, planned alone.
pub const IN_NO_CRATE: &str = "rewrites a whole crate at once, and this file is in none (no `Cargo.toml` above it)";

/// A file the run's crate plans do not cover (it is in no crate, or `check` plans only rmcp
/// crates), planned as a crate of its own for the reasons of its findings.
pub fn plan_alone(file: &CrateFile, settings: &Settings) -> CrateOutcome {
    plan_crate_with(std::slice::from_ref(file), None, settings.roots_to_for(&file.path))
}

/// `unseen_in` with the file already parsed (`None`: it does not parse), for a file with several
/// findings. The caller invalidates the parse's spans when done.
pub fn unseen_parsed(
    file: &CrateFile,
    parsed: Option<&ParsedRust>,
    range: &Range<usize>,
    crate_ctx: &CrateContext,
) -> String {
    let shown = file.text.get(range.clone()).map(compact).unwrap_or_default();
    if FileKind::of(&file.path) != FileKind::Rust {
        return format!(
            "`{shown}` is a `roots/list` message in a data file; the roots codemod rewrites Rust code only"
        );
    }
    let named = |keep: &dyn Fn(Sdk) -> bool| -> Vec<String> {
        crate_ctx.sdks.iter().filter(|d| keep(d.sdk)).map(|d| format!("`{}`", d.crate_name)).collect()
    };
    let (sdks, others) = (named(&|s| s != Sdk::Rmcp && s != Sdk::Other), named(&|s| s == Sdk::Other));
    if !crate_ctx.uses(Sdk::Rmcp) && !sdks.is_empty() {
        return format!(
            "the crate uses {}, which the roots codemod does not rewrite (it rewrites rmcp servers only)",
            sdks.join(", ")
        );
    }
    // Crates merely named after MCP (often the workspace's own) are no SDK the codemod knows.
    if !crate_ctx.uses(Sdk::Rmcp) && !others.is_empty() {
        return format!(
            "the crate does not use rmcp (it builds on {}); the roots codemod rewrites rmcp servers only",
            others.join(", ")
        );
    }
    let Some(parsed) = parsed else {
        return "the file does not parse, so the roots codemod cannot rewrite it".into();
    };
    // The file's imports tell when the manifest does not (a file outside any crate).
    let imported = crate::rust::visitor::imported_sdks(&parsed.file, &crate_ctx.own_crates);
    let by_spelling =
        [("request_root_list(", Sdk::RustMcpSdk), ("roots_list(", Sdk::McpAttr), ("request_client_roots(", Sdk::Pmcp)]
            .iter()
            .find(|(w, _)| shown.starts_with(w))
            .map(|(_, sdk)| *sdk);
    let sdk = imported.iter().copied().find(|s| *s != Sdk::Rmcp && *s != Sdk::Other).or(by_spelling);
    if let Some(sdk) = sdk
        && !imported.contains(&Sdk::Rmcp)
    {
        return format!(
            "`{shown}` is {}'s request, which the roots codemod does not rewrite (it rewrites rmcp servers only)",
            sdk_name(sdk)
        );
    }
    let mut find = Where { base: parsed.base, range: range.clone(), macro_name: None, func: None, stack: Vec::new() };
    find.visit_file(&parsed.file);
    let in_fn = find.func.as_ref().map(|(n, _, _)| format!(" in `{n}`")).unwrap_or_default();
    if let Some((name, test, client)) = &find.func
        && (*test || *client)
    {
        if *test {
            format!("`{shown}` is in the test `{name}`: the codemod migrates server code, not tests")
        } else {
            format!("`{shown}` is in client code (`{name}` of an `impl ClientHandler`)")
        }
    } else if let Some(mac) = &find.macro_name {
        format!("`{shown}`{in_fn} is inside the body of the macro `{mac}!`, which the codemod does not rewrite")
    } else if shown.starts_with("ServerRequest::ListRootsRequest") {
        format!(
            "`{shown}`{in_fn} sends rmcp's typed `roots/list` request through `send_request`, a spelling the \
             codemod does not rewrite (it rewrites `Peer::list_roots()`)"
        )
    } else if !shown.starts_with("list_roots(") {
        format!(
            "`{shown}`{in_fn} builds or sends the `roots/list` request by hand (not rmcp's `Peer::list_roots()`), \
             which the codemod does not rewrite"
        )
    } else if shown != "list_roots()" {
        format!(
            "`{shown}`{in_fn} takes arguments, so it is not rmcp's `Peer::list_roots()`, the call the codemod rewrites"
        )
    } else {
        format!(
            "`{shown}`{in_fn} is called on `self` or outside any function the codemod follows (a tool, a helper of \
             tools, a roots cache, a `call_tool` handler)"
        )
    }
}

/// Whether everything the codemod would apply to the file keeps an allow-list as server
/// configuration (no tool gets a parameter there), for the hint without `--unsafe-fixes`.
pub fn only_allow_lists(outcome: &super::CrateOutcome, files: &[CrateFile], file_key: &Path) -> bool {
    let titles: Vec<&String> =
        outcome.applied.iter().filter(|(f, _)| key(&files[*f].path) == file_key).map(|(_, t)| t).collect();
    !titles.is_empty() && titles.iter().all(|t| t.starts_with("the allow-list"))
}

fn sdk_name(sdk: Sdk) -> &'static str {
    match sdk {
        Sdk::Rmcp => "rmcp",
        Sdk::RustMcpSdk => "rust-mcp-sdk",
        Sdk::Turbomcp => "turbomcp",
        Sdk::Pmcp => "pmcp",
        Sdk::UltrafastMcp => "ultrafast-mcp",
        Sdk::McpAttr => "mcp-attr",
        Sdk::Turul => "turul-mcp",
        Sdk::Fastmcp => "fastmcp",
        Sdk::McpCore => "mcp-core",
        Sdk::Other => "another MCP SDK",
    }
}

fn compact(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 50 { format!("{}…", one.chars().take(47).collect::<String>()) } else { one }
}

/// Finds the function and macro around a range.
struct Where {
    base: usize,
    range: Range<usize>,
    macro_name: Option<String>,
    /// (name, a test, client code).
    func: Option<(String, bool, bool)>,
    /// Enclosing `#[cfg(test)]` modules and `impl ClientHandler`s: (test, client).
    stack: Vec<(bool, bool)>,
}

impl Where {
    fn covers(&self, span: proc_macro2::Span) -> bool {
        let r = crate::rust::parse::file_range(span, self.base);
        r.start <= self.range.start && self.range.end <= r.end
    }

    fn inherited(&self) -> (bool, bool) {
        self.stack.iter().fold((false, false), |(t, c), (t2, c2)| (t || *t2, c || *c2))
    }

    fn func(&mut self, attrs: &[syn::Attribute], name: &syn::Ident, whole: proc_macro2::Span) -> bool {
        if !self.covers(whole) {
            return false;
        }
        let (test, client) = self.inherited();
        let test = test || crate::rust::test_code::is_test_attr(attrs);
        self.func = Some((name.to_string(), test, client));
        true
    }
}

impl<'ast> Visit<'ast> for Where {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.stack.push((crate::rust::test_code::is_test_attr(&m.attrs) || cfg_test(&m.attrs), false));
        visit::visit_item_mod(self, m);
        self.stack.pop();
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let client =
            i.trait_.as_ref().is_some_and(|(_, p, _)| p.segments.last().is_some_and(|s| s.ident == "ClientHandler"));
        self.stack.push((false, client));
        visit::visit_item_impl(self, i);
        self.stack.pop();
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if self.func(&f.attrs, &f.sig.ident, syn::spanned::Spanned::span(f)) {
            visit::visit_item_fn(self, f);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if self.func(&f.attrs, &f.sig.ident, syn::spanned::Spanned::span(f)) {
            visit::visit_impl_item_fn(self, f);
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if self.macro_name.is_none() && self.covers(crate::rust::macro_body::delimiters_span(m)) {
            self.macro_name = Some(m.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::"));
        }
    }
}

fn cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && quote::ToTokens::to_token_stream(&a.meta).to_string().replace(' ', "").contains("test")
    })
}
