//! The rule registry. A rule is one file here (its metadata and checks; a large data table may sit
//! in a submodule, `removed_method/methods.rs`) plus its page in `rules/` at the repository root. To add a rule: write the file, add it to `ALL`, write the page and
//! fixtures.
//!
//! Rules never walk the syntax tree themselves: the visitor in `rust::visitor` makes one pass over
//! each file and calls the hooks below on the nodes rules care about; JSON trees (files and `json!`
//! bodies) are walked once and every node is offered to `json_node`.

use crate::context::Impact;
use crate::cx::{CrateCx, Cx};
use crate::json::jsonrpc::TranscriptMessage;
use crate::json::{JsonNode, Step};
use crate::model::CrateModel;

pub mod deprecated_feature;
pub mod first_root_as_workspace;
pub mod inferred_client_capabilities;
pub mod input_required_misuse;
pub mod legacy_error_code;
pub mod legacy_protocol_version;
pub mod missing_request_meta;
pub mod missing_result_type;
pub mod per_connection_list;
pub mod removed_method;
pub mod request_state_tampering;
pub mod retry_reuses_request_id;
pub mod root_prefix_check;
pub mod root_uri_to_path;
pub mod roots_list_changed;
pub mod server_initiated_request;
pub mod server_roots_request;
pub mod session_header;
pub mod unprotected_request_state;

/// Two word lists as one, at compile time: for a rule whose trigger words are another list plus
/// its own, so the shared list is written once.
pub(crate) const fn concat_words<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N, "N must be A + B");
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}

/// What a rule is, apart from its checks.
#[derive(Debug)]
pub struct RuleMeta {
    /// Stable, kebab-case; part of the output contract.
    pub name: &'static str,
    /// One line for `mcp-lint rules`.
    pub summary: &'static str,
    pub impact: Impact,
    /// Case-sensitive words a file must contain for the rule to fire at all. The prefilter skips
    /// parsing files that contain none of the enabled rules' words, so every way the rule can fire
    /// must need one of them (a test runs every fixture with the prefilter off to prove it). A word
    /// written `\bWord` counts only where an identifier starts (`prefilter::WORD_START`): for
    /// names that other APIs embed in longer ones (`SetServerCapabilities`, `playlistChanged`).
    pub triggers: &'static [&'static str],
    /// Words that matter only inside JSON: they activate the rule for JSON files, and for a Rust
    /// file only when it also contains `json!` (a quoted key such as `"result"` is common in Rust
    /// code, but a rule reading JSON-RPC objects in Rust only reads `json!` bodies).
    pub json_triggers: &'static [&'static str],
    /// Words that activate the rule in a Rust file only when it is MCP code: its crate depends on
    /// an MCP SDK, or its text has one of `context::MCP_CODE_WORDS` (an SDK's name, a role word, a
    /// `tool`/`prompt` attribute, an MCP method family). For names common outside MCP (`"ping"`,
    /// `client_version`) where every way the rule fires on them needs that evidence (an SDK in
    /// use, a server role, `removed-method`'s evidence test). In JSON files they count as triggers.
    pub mcp_triggers: &'static [&'static str],
    /// Words that make a file feed the rule's crate model without firing the rule: a file with
    /// only these is parsed for the rule, and joins its model, when another file of its crate has
    /// one of the rule's other words (a helper taking a `method:` parameter, a `#[tool_router]`
    /// impl beside the handler that stores what `initialize` gave). A crate where no file has such
    /// a word can have no finding of the rule, so its files are never parsed for it. Only for
    /// rules that use the model (`tests::crate_words_belong_to_model_rules_with_words_of_their_own`).
    pub crate_triggers: &'static [&'static str],
    /// The default help line (a finding may replace it).
    pub help: Option<&'static str>,
    /// Whether some findings carry a fix.
    pub fixable: bool,
    /// The rule's page, `rules/<name>.md`.
    pub doc: &'static str,
}

/// Which of a rule's lists a trigger word is in (`RuleMeta::trigger_lists`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerKind {
    /// `triggers`: counts in every file.
    Any,
    /// `json_triggers`: in JSON files, and in Rust files beside `json!`.
    Json,
    /// `mcp_triggers`: in JSON files, and in Rust files of MCP code.
    Mcp,
    /// `crate_triggers`: in Rust files of a crate where another word of the rule is.
    Crate,
}

impl RuleMeta {
    /// Every list of trigger words, with what kind it is.
    pub fn trigger_lists(&self) -> [(TriggerKind, &'static [&'static str]); 4] {
        [
            (TriggerKind::Any, self.triggers),
            (TriggerKind::Json, self.json_triggers),
            (TriggerKind::Mcp, self.mcp_triggers),
            (TriggerKind::Crate, self.crate_triggers),
        ]
    }
}

/// The checks of a rule. Every hook has an empty default; a rule implements those it needs.
pub trait Rule: Sync + Send {
    fn meta(&self) -> &'static RuleMeta;

    /// Once per parsed Rust file, before the walk. For rules that relate several functions of a file.
    fn rust_file(&self, _cx: &mut Cx, _file: &syn::File) {}
    /// A function or method (free, inherent, trait impl), before its body is walked.
    fn rust_fn(&self, _cx: &mut Cx, _f: &FnRef) {}
    /// A method call, with the method's name as written (`r#` kept).
    fn method_call(&self, _cx: &mut Cx, _call: &syn::ExprMethodCall, _name: &str) {}
    /// A call, with the last segment of the callee's path as written when the callee is a path.
    fn call(&self, _cx: &mut Cx, _call: &syn::ExprCall, _callee: Option<&str>) {}
    /// A path in expression position (`ServerRequest::ListRootsRequest`).
    fn expr_path(&self, _cx: &mut Cx, _path: &syn::ExprPath) {}
    /// A path in a pattern (`ClientNotification::RootsListChangedNotification(_) =>`).
    fn pat_path(&self, _cx: &mut Cx, _path: &syn::Path) {}
    fn struct_lit(&self, _cx: &mut Cx, _lit: &syn::ExprStruct) {}
    /// A string literal in code (attributes and doc comments are never offered).
    fn lit_str(&self, _cx: &mut Cx, _lit: &syn::LitStr, _value: &str) {}

    /// Every node of a JSON document or `json!` body, with the steps from its root.
    fn json_node(&self, _cx: &mut Cx, _node: &JsonNode, _path: &[Step]) {}
    /// A JSON file that is a transcript of JSON-RPC messages, in order.
    fn transcript(&self, _cx: &mut Cx, _messages: &[TranscriptMessage]) {}

    /// Whether the rule asks the crate model (`rust_crate`): then the files its trigger words
    /// select keep their facts (`model::extract`), and once every file of the crate was checked,
    /// the crate's model is built and `rust_crate` runs.
    fn uses_model(&self) -> bool {
        false
    }
    /// Once per crate (a crate's files that the rule's words selected; one document in an
    /// editor), after the per-file hooks: for facts that span functions and files.
    fn rust_crate(&self, _cx: &mut CrateCx, _model: &CrateModel) {}
}

/// A function as the visitor offers it to rules.
pub struct FnRef<'a> {
    pub attrs: &'a [syn::Attribute],
    pub sig: &'a syn::Signature,
    pub body: &'a syn::Block,
    /// The trait of the enclosing `impl Trait for Type`, last path segment (`ServerHandler`).
    pub impl_trait: Option<String>,
}

/// Every rule, in the order `mcp-lint rules` lists them.
pub static ALL: &[&dyn Rule] = &[
    &server_roots_request::ServerRootsRequest,
    &roots_list_changed::RootsListChanged,
    &inferred_client_capabilities::InferredClientCapabilities,
    &retry_reuses_request_id::RetryReusesRequestId,
    &server_initiated_request::ServerInitiatedRequest,
    &removed_method::RemovedMethod,
    &deprecated_feature::DeprecatedFeature,
    &input_required_misuse::InputRequiredMisuse,
    &request_state_tampering::RequestStateTampering,
    &unprotected_request_state::UnprotectedRequestState,
    &missing_request_meta::MissingRequestMeta,
    &missing_result_type::MissingResultType,
    &legacy_error_code::LegacyErrorCode,
    &session_header::SessionHeader,
    &legacy_protocol_version::LegacyProtocolVersion,
    &per_connection_list::PerConnectionList,
    &first_root_as_workspace::FirstRootAsWorkspace,
    &root_prefix_check::RootPrefixCheck,
    &root_uri_to_path::RootUriToPath,
];

/// Not a rule one can disable: a file that cannot be parsed.
pub static PARSE_ERROR: RuleMeta = RuleMeta {
    name: "parse-error",
    summary: "A Rust or JSON file that cannot be parsed (it is reported, not analysed)",
    impact: Impact::Violation,
    triggers: &[],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: None,
    fixable: false,
    doc: include_str!("../../rules/parse-error.md"),
};

/// Not a rule one can select: a suppression comment that matched nothing or names no rule. It
/// can be turned off like a rule (`ignore`, `severity = "off"`, `per-path-ignores`).
pub static UNUSED_SUPPRESSION: RuleMeta = RuleMeta {
    name: "unused-suppression",
    summary: "A `// mcp-lint: allow(…)` comment that suppresses nothing, or names no rule",
    impact: Impact::Housekeeping,
    triggers: &[],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: Some("delete it: a suppression that matches nothing would silently hide a future finding"),
    fixable: true,
    doc: include_str!("../../rules/unused-suppression.md"),
};

pub fn find(name: &str) -> Option<&'static dyn Rule> {
    ALL.iter().copied().find(|r| r.meta().name == name)
}

/// Every rule's metadata plus `parse-error` and `unused-suppression`, for listings and `explain`.
pub fn all_meta() -> impl Iterator<Item = &'static RuleMeta> {
    ALL.iter().map(|r| r.meta()).chain([&PARSE_ERROR, &UNUSED_SUPPRESSION])
}

/// What rule unit tests share. A rule's tests run the engine and the fixer, the layers above the
/// rules: they reach them here, in one place, and nowhere else in `rules/`.
#[cfg(test)]
pub(crate) mod test_support {
    /// Every finding in `text`, checked as the file at `path` (its crate found from there).
    pub fn check_text(path: &std::path::Path, text: impl Into<String>) -> Vec<crate::diagnostic::Diagnostic> {
        crate::engine::check_text(path, text.into())
    }

    /// The findings of `rules` in `file`, in the crate `krate`, as the engine's worker finds them.
    pub fn check_file(
        file: &crate::source::SourceFile,
        krate: &crate::context::CrateContext,
        rules: &[&'static dyn super::Rule],
        role: crate::context::Role,
    ) -> Vec<crate::diagnostic::Diagnostic> {
        crate::engine::check_file(file, krate, rules, role)
    }

    /// Every rule's findings in `file`, in the crate `krate`.
    pub fn check_in_crate(
        file: &crate::source::SourceFile,
        krate: &crate::context::CrateContext,
    ) -> Vec<crate::diagnostic::Diagnostic> {
        check_file(file, krate, super::ALL, crate::context::Role::Unknown)
    }

    /// `text` after `fix`'s safe fixes of `rule`, checked as a lone file named `name`.
    pub fn safe_fixes_of(rule: &str, name: &str, text: &str) -> String {
        let rules = [super::find(rule).unwrap()];
        let krate = crate::context::CrateContext::default();
        let role = crate::context::Role::Unknown;
        crate::fix::fix_text(name.into(), name.into(), text.into(), &krate, &rules, role, crate::fix::Mode::Safe).fixed
    }

    /// (line, text) of one rule's findings in `text`, checked as a standalone file named `name`.
    pub fn spans_of(rule: &str, name: &str, text: &str) -> Vec<(usize, String)> {
        let dir = tempfile::tempdir().unwrap();
        crate::engine::check_text(&dir.path().join(name), text.to_owned())
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| (text[..d.range.start].lines().count().max(1), text[d.range.clone()].to_owned()))
            .collect()
    }

    /// Every rule's findings in `text`, checked as the file at (relative) path `name`, shown so, in
    /// an empty folder: not in mcp-lint's own crate, whose manifest (it depends on rmcp) would make
    /// every sample MCP code.
    pub fn check_sample(name: &str, text: &str) -> Vec<crate::diagnostic::Diagnostic> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        let scan = crate::prefilter::Prefilter::every_rule().scan(text.as_bytes(), crate::source::FileKind::of(&path));
        let crate_ctx = crate::context::CrateContexts::default().for_file(&path);
        let file = crate::source::SourceFile::new(path, name.to_owned(), text.to_owned());
        crate::engine::check_file(&file, &crate_ctx, &scan.active, scan.role)
    }

    /// One rule's findings in `text`, as `check_sample` finds them.
    pub fn diagnostics_of(rule: &str, name: &str, text: &str) -> Vec<crate::diagnostic::Diagnostic> {
        check_sample(name, text).into_iter().filter(|d| d.rule == rule).collect()
    }

    /// `text` with the findings' fixes applied: the safe ones, or every one with `unsafe_too`.
    pub fn with_fixes(text: &str, findings: Vec<crate::diagnostic::Diagnostic>, unsafe_too: bool) -> String {
        use crate::diagnostic::Applicability;
        let mut edits: Vec<_> = findings
            .into_iter()
            .filter_map(|d| d.fix)
            .filter(|f| unsafe_too || f.applicability == Applicability::Safe)
            .flat_map(|f| f.edits)
            .collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.byte_range.start));
        let mut out = text.to_owned();
        for e in edits {
            out.replace_range(e.byte_range, &e.replacement);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::ALL;

    /// A crate word only makes a file feed a crate model, so only a rule that asks one may have
    /// them; and it must have words of its own, or no crate would ever select it.
    #[test]
    fn crate_words_belong_to_model_rules_with_words_of_their_own() {
        for rule in ALL {
            let meta = rule.meta();
            if meta.crate_triggers.is_empty() {
                continue;
            }
            assert!(rule.uses_model(), "{} has crate words but asks no crate model", meta.name);
            let own = meta.triggers.len() + meta.json_triggers.len() + meta.mcp_triggers.len();
            assert!(own > 0, "{} has only crate words", meta.name);
        }
    }
}
