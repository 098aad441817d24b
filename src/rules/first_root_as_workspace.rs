//! `first-root-as-workspace`: server code that takes the first of the client's roots
//! (`roots[0]`, `.first()`, `.iter().next()`, `.get(0)`, `[first, ..]`) as "the" workspace.
//!
//! Roots are an unordered set and a client may share several of them (multi-root workspaces are
//! ordinary), so picking the first one makes a tool work in an arbitrary folder: on every MCP
//! revision, not only 2026-07-28.
//!
//! The rule asks the crate model (`model::roots`): every pick (`roots::Purpose::First`) of a list
//! that is the client's roots, shown by the function itself (the `roots` field of a
//! `ListRootsResult` or of a cache of them, `roots_list()`, a local or parameter named like `roots`
//! or typed `Vec<Root>` / `&[Root]`, `value["roots"]` of an MRTR answer, anything derived from one
//! element by element), or traced by the model: a `self` place another method fills with roots
//! (in any file, behind `Arc<Inner>` too), a helper that returns them.
//!
//! Not flagged: `.first().is_some()` / `.is_none()` (an emptiness test), lists whose length the
//! function compares with 1 or 2 (code that handles the several-roots case), `.find(..)` (a choice by
//! a criterion), client code, tests, and lists a function shows only by name or type in a file with
//! no sign of MCP roots (no `list_roots`, `ListRootsResult`, `Vec<Root>`, `inputResponses`, …),
//! where a `roots` field is more likely a server's own configuration. A function that only checks
//! paths against the first root (no working directory) is told so, not called a workspace.

use crate::context::{Impact, Role};
use crate::cx::CrateCx;
use crate::model::CrateModel;
use crate::model::roots::{Purpose, ROOTS_WORDS, RootsPurpose, Via};
use crate::rules::{Rule, RuleMeta};

pub struct FirstRootAsWorkspace;

static META: RuleMeta = RuleMeta {
    name: "first-root-as-workspace",
    summary: "Takes the first of the client's roots as the workspace; roots are unordered and a client may share several",
    impact: Impact::Violation,
    triggers: &ROOTS_WORDS,
    json_triggers: &[],
    mcp_triggers: &[],
    // Server code whose tools may read roots another file stored (the crate model holds only
    // the files some word of a model rule selects).
    crate_triggers: &["RoleServer", "tool_router", "ServerHandler"],
    help: Some(
        "use every root (search or check each of them), or better, since roots are deprecated in MCP 2026-07-28, \
         take the directory as an explicit tool parameter",
    ),
    fixable: false,
    doc: include_str!("../../rules/first-root-as-workspace.md"),
};

impl Rule for FirstRootAsWorkspace {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn uses_model(&self) -> bool {
        true
    }

    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        let flow = model.roots();
        let mut purposes = std::collections::HashMap::new();
        for u in flow.uses(model).filter(|u| u.use_.purpose == Purpose::First) {
            let facts = model.func(u.fn_).roots.as_deref();
            if model.role(u.fn_) == Role::Client || facts.is_some_and(|f| f.test) {
                continue;
            }
            let file = model.file_of(u.fn_);
            let from = match &u.via {
                Via::Local => String::new(),
                Via::Field { path, writer } => {
                    let at = cx.place(model.file_of(*writer), model.func(*writer).name_range.start);
                    format!(
                        " (`self.{}`, filled with the client's roots by `{}` at {at})",
                        path.join("."),
                        model.func(*writer).name
                    )
                }
                Via::Helper(helper) => format!(" (the client's roots, as `{}` returns them)", model.func(*helper).name),
            };
            let shown = &u.use_.shown;
            let (message, label) = if *purposes.entry(u.fn_).or_insert_with(|| flow.purpose(model, u.fn_))
                == RootsPurpose::AllowList
            {
                (
                    format!(
                        "`{shown}` checks paths against the first of the client's roots only{from}; roots are an \
                         unordered set and a client may share several, so paths inside the other roots are refused"
                    ),
                    "only the first root, arbitrarily",
                )
            } else {
                (
                    format!(
                        "`{shown}` takes the first of the client's roots as the workspace{from}; roots are an unordered \
                         set and a client may share several (multi-root workspaces), so this picks an arbitrary folder"
                    ),
                    "the first root, arbitrarily",
                )
            };
            let (range, list) = (u.use_.range.clone(), u.use_.list_range.clone());
            let d = cx.report(&META, file, range.clone(), message, label);
            if !list.is_empty() && (list.end <= range.start || list.start >= range.end) {
                d.label(list, "the client's roots: no order, often more than one");
            }
        }
    }
}

#[cfg(test)]
mod tests {

    /// The text of this rule's findings in a standalone Rust file.
    fn check(text: &str) -> Vec<String> {
        crate::rules::test_support::spans_of("first-root-as-workspace", "lib.rs", text)
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    }

    const HEAD: &str = "use rmcp::model::ListRootsResult;\n";

    #[test]
    fn picks_of_a_listed_result() {
        let text = format!(
            "{HEAD}async fn f(listed: ListRootsResult) {{\n\
             let a = listed.roots.first();\n\
             let b = listed.roots.iter().next();\n\
             let c = &listed.roots[0];\n\
             let d = listed.roots.get(0);\n\
             let e = listed.roots.into_iter().filter_map(|r| r.uri.strip_prefix(\"file://\").map(str::to_owned)).next();\n\
             }}\n"
        );
        assert_eq!(check(&text), ["first()", "iter().next()", "listed.roots[0]", "get(0)", "next()"]);
    }

    #[test]
    fn flow_through_locals_and_caches() {
        let text = format!(
            "{HEAD}impl S {{ async fn f(&self) {{\n\
             let roots = self.roots.read().await;\n\
             let dir = roots.first();\n\
             let dirs: Vec<PathBuf> = self.cache.iter().map(PathBuf::from).collect();\n\
             let all = listed.roots.iter().map(|r| r.uri.clone()).collect::<Vec<_>>();\n\
             let one = all.first();\n\
             }} }}\n"
        );
        assert_eq!(check(&text), ["first()", "first()"]);
    }

    #[test]
    fn silent_cases() {
        let text = format!(
            "{HEAD}async fn f(listed: ListRootsResult, it: &mut std::slice::Iter<'_, Root>) {{\n\
             if listed.roots.first().is_none() {{ return; }}\n\
             let any = listed.roots.iter().next().is_some();\n\
             let found = listed.roots.iter().find(|r| r.name.as_deref() == Some(\"app\"));\n\
             let last = listed.roots.iter().rev().next();\n\
             while let Some(r) = it.next() {{}}\n\
             tracing::debug!(first = ?listed.roots.first(), \"roots listed\");\n\
             for root in &listed.roots {{}}\n\
             }}\n\
             fn g(listed: ListRootsResult) {{ if listed.roots.len() != 1 {{ return; }} let only = &listed.roots[0]; }}\n\
             #[test] fn t() {{ let r = listed.roots.first(); }}\n\
             #[cfg(test)] mod tests {{ fn h() {{ let r = listed.roots.first(); }} }}\n"
        );
        assert!(check(&text).is_empty(), "{:?}", check(&text));
    }

    #[test]
    fn client_code_and_files_without_roots_are_silent() {
        let client = "use rmcp::model::ListRootsResult;\n\
                      impl ClientHandler for C { async fn f(&self) { let r = self.roots.first(); } }\n";
        assert!(check(client).is_empty());
        // A server's own configured "roots", in a file with no sign of MCP roots.
        let config = "struct Cfg { roots: Vec<PathBuf> }\nfn f(c: &Cfg) { let d = c.roots.first(); }\n";
        assert!(check(config).is_empty());
    }

    /// Functions whose text never says `root` in lower case are still walked when a roots list
    /// can reach them: a field filled with roots elsewhere, a `"roots"` key written with an escape,
    /// a name in capitals (`may_hold_roots`).
    #[test]
    fn roots_reached_without_the_lowercase_word() {
        let text = format!(
            "{HEAD}impl S {{\n\
             async fn set(&self, listed: ListRootsResult) {{ *self.folders.write().await = listed.roots; }}\n\
             fn a(&self) {{ let d = self.folders.read().unwrap().first(); }}\n\
             }}\n\
             fn b(v: serde_json::Value) {{ let u = v[\"r\\x6fots\"][0][\"uri\"].as_str(); }}\n\
             fn c(MY_ROOTS: Vec<String>) {{ let x = MY_ROOTS.first(); }}\n"
        );
        assert_eq!(check(&text), ["first()", "v[\"r\\x6fots\"][0]", "first()"]);
    }

    #[test]
    fn slice_patterns_and_mrtr_answers() {
        let text = format!(
            "{HEAD}fn f(listed: ListRootsResult, v: serde_json::Value) {{\n\
             let [first, ..] = listed.roots.as_slice() else {{ return }};\n\
             let u = v[\"roots\"][0][\"uri\"].as_str();\n\
             }}\n"
        );
        assert_eq!(check(&text), ["[first, ..]", "v[\"roots\"][0]"]);
    }
}
