//! Where the `--roots-to mrtr` imports go: into the file's `use rmcp::{…}` tree when it has one
//! (the deepest group the path continues: `rmcp::model::{…}` for `rmcp::model::InputRequest`,
//! else `rmcp::{…}`), at its place in the group's order when the group is sorted; else a `use`
//! line of their own after the file's last `use`. `fix` lays the file out with the user's
//! `rustfmt` afterwards when it was `rustfmt`-clean.

use std::collections::BTreeMap;

use syn::{UseGroup, UseTree};

use super::super::text::{Src, indent_at, line_start};
use crate::diagnostic::Edit;

/// The edits that import `paths` (full paths, `rmcp::model::InputRequest`) into the file.
pub fn import_edits(src: &Src, file: &syn::File, paths: &[&str]) -> Vec<Edit> {
    // By the group each goes into (its opening brace), the rest of the path after the group.
    let mut into: BTreeMap<usize, (&UseGroup, Vec<String>)> = BTreeMap::new();
    let mut lines = String::new();
    for path in paths {
        let segs: Vec<&str> = path.split("::").collect();
        match group_for(file, &segs) {
            Some((g, depth)) => {
                let at = src.span(g.brace_token.span.open()).start;
                into.entry(at).or_insert_with(|| (g, Vec::new())).1.push(segs[depth..].join("::"));
            }
            None => lines.push_str(&format!("use {path};\n")),
        }
    }
    let mut edits = Vec::new();
    for (g, rests) in into.into_values() {
        edits.extend(group_edits(src, g, rests));
    }
    if !lines.is_empty() {
        let at = file
            .items
            .iter()
            .rev()
            .find(|i| matches!(i, syn::Item::Use(_)))
            .map(|u| {
                let r = src.range(u);
                src.text[r.end..].find('\n').map_or(src.text.len(), |n| r.end + n + 1)
            })
            .unwrap_or(src.base);
        edits.push(Edit::replace(at..at, lines));
    }
    edits
}

/// The deepest group of a plain top-level `use` (no attribute, not `pub`) that `segs` continues,
/// below its first segment, and how many segments lead to it.
fn group_for<'f>(file: &'f syn::File, segs: &[&str]) -> Option<(&'f UseGroup, usize)> {
    fn descend<'f>(tree: &'f UseTree, segs: &[&str], depth: usize, best: &mut Option<(&'f UseGroup, usize)>) {
        match tree {
            UseTree::Path(p) if depth + 1 < segs.len() && p.ident == segs[depth] => {
                descend(&p.tree, segs, depth + 1, best)
            }
            UseTree::Group(g) if depth >= 1 && !g.items.is_empty() => {
                if best.is_none_or(|(_, d)| depth > d) {
                    *best = Some((g, depth));
                }
                for t in &g.items {
                    descend(t, segs, depth, best);
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    for item in &file.items {
        if let syn::Item::Use(u) = item
            && u.attrs.is_empty()
            && matches!(u.vis, syn::Visibility::Inherited)
            && u.leading_colon.is_none()
        {
            descend(&u.tree, segs, 0, &mut best);
        }
    }
    best
}

/// What orders an item of a group: its first name (globs and groups last).
fn key(tree: &UseTree) -> String {
    match tree {
        UseTree::Path(p) => p.ident.to_string(),
        UseTree::Name(n) => n.ident.to_string(),
        UseTree::Rename(r) => r.ident.to_string(),
        UseTree::Glob(_) | UseTree::Group(_) => "~".to_owned(),
    }
}

/// The insertions of `rests` (paths below the group) into `g`: those sharing a first segment as one
/// nested group, each before the first item that sorts after it (or after the last item), on a
/// line of its own in a group written over several lines.
fn group_edits(src: &Src, g: &UseGroup, rests: Vec<String>) -> Vec<Edit> {
    let mut by_head: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for rest in rests {
        match rest.split_once("::") {
            Some((head, tail)) => by_head.entry(head.to_owned()).or_default().push(tail.to_owned()),
            None => {
                by_head.entry(rest).or_default();
            }
        }
    }
    let new: Vec<(String, String)> = by_head
        .into_iter()
        .map(|(head, tails)| {
            let text = match tails.as_slice() {
                [] => head.clone(),
                [one] => format!("{head}::{one}"),
                many => format!("{head}::{{{}}}", many.join(", ")),
            };
            (head, text)
        })
        .collect();
    let items: Vec<&UseTree> = g.items.iter().collect();
    let keys: Vec<String> = items.iter().map(|t| key(t)).collect();
    let sorted = keys.windows(2).all(|w| w[0] <= w[1]);
    let group = src.span(g.brace_token.span.join());
    let multi = src.text[group].contains('\n');
    // `group_for` chooses no empty group.
    let Some(last) = items.last().map(|t| src.range(*t)) else { return Vec::new() };
    let indent = indent_at(src.text, last.start).to_owned();
    // Where the closing brace's line starts, when nothing but indentation comes before it there
    // and the last item has its comma.
    let close = src.span(g.brace_token.span.close()).start;
    let close_line =
        Some(line_start(src.text, close)).filter(|s| src.text[*s..close].trim().is_empty() && g.items.trailing_punct());
    let mut edits = Vec::new();
    for (head, text) in new {
        let before = if sorted { keys.iter().position(|k| *k > head) } else { None };
        let edit = match (before, multi, close_line) {
            (Some(i), false, _) => {
                Edit::replace(src.range(items[i]).start..src.range(items[i]).start, format!("{text}, "))
            }
            (Some(i), true, _) => {
                let at = src.range(items[i]).start;
                Edit::replace(at..at, format!("{text},\n{}", indent_at(src.text, at)))
            }
            (None, false, _) => Edit::replace(last.end..last.end, format!(", {text}")),
            // A line of its own before the closing brace's line, after the trailing comma.
            (None, true, Some(at)) => Edit::replace(at..at, format!("{indent}{text},\n")),
            (None, true, None) => Edit::replace(last.end..last.end, format!(",\n{indent}{text}")),
        };
        edits.push(edit);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imported(code: &str, paths: &[&str]) -> String {
        let file = syn::parse_file(code).unwrap();
        let src = Src { text: code, base: 0 };
        crate::fix::apply_edits(code, &import_edits(&src, &file, paths), "\n")
    }

    #[test]
    fn paths_join_the_deepest_rmcp_group_in_its_order() {
        let code = "use rmcp::model::{CallToolResult, ServerConfig};\nuse rmcp::{ErrorData, tool};\n";
        let paths = [
            "rmcp::handler::server::tool::InputResponses",
            "rmcp::model::CallToolResponse",
            "rmcp::model::InputRequest",
        ];
        assert_eq!(
            imported(code, &paths),
            "use rmcp::model::{CallToolResponse, CallToolResult, InputRequest, ServerConfig};\n\
             use rmcp::{ErrorData, handler::server::tool::InputResponses, tool};\n"
        );
    }

    #[test]
    fn paths_sharing_a_module_join_as_one_group_and_multi_line_groups_get_lines() {
        let code = "use rmcp::{\n    ErrorData,\n    tool,\n};\n";
        let paths = ["rmcp::model::CallToolResponse", "rmcp::model::InputRequest"];
        assert_eq!(
            imported(code, &paths),
            "use rmcp::{\n    ErrorData,\n    model::{CallToolResponse, InputRequest},\n    tool,\n};\n"
        );
        let commented = "use rmcp::{\n    ErrorData,\n    tool /* the macro */,\n};\n";
        assert_eq!(
            imported(commented, &["rmcp::model::InputRequest"]),
            "use rmcp::{\n    ErrorData,\n    model::InputRequest,\n    tool /* the macro */,\n};\n"
        );
        let commented_last = "use rmcp::{\n    ErrorData,\n    tool /* the macro */,\n};\n";
        assert_eq!(
            imported(commented_last, &["rmcp::zeta::Z"]),
            "use rmcp::{\n    ErrorData,\n    tool /* the macro */,\n    zeta::Z,\n};\n"
        );
        let unsorted = "use rmcp::{tool, ErrorData};\n";
        assert_eq!(
            imported(unsorted, &["rmcp::model::InputRequest"]),
            "use rmcp::{tool, ErrorData, model::InputRequest};\n"
        );
    }

    #[test]
    fn without_an_rmcp_group_each_path_gets_a_line_after_the_last_use() {
        let code = "use rmcp::ErrorData;\npub use rmcp::{model::Tool};\n#[cfg(test)]\nuse rmcp::{tool};\n\nfn f() {}\n";
        assert_eq!(
            imported(code, &["rmcp::model::InputRequest"]),
            "use rmcp::ErrorData;\npub use rmcp::{model::Tool};\n#[cfg(test)]\nuse rmcp::{tool};\nuse rmcp::model::InputRequest;\n\nfn f() {}\n"
        );
    }
}
