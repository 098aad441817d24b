//! Edits beside the code: tool `inputSchema` JSON files that describe a rewritten tool, and the
//! roots capability (`enable_roots*()`, JSON `"roots"`) once nothing in the crate uses roots.

use std::ops::Range;

use syn::visit::{self, Visit};

use super::text::{Src, deletion, indent_at, line_start, skip_ws};
use super::tool::NewParam;
use crate::diagnostic::Edit;
use crate::json::{JsonKind, JsonNode, Step, walk};

/// A JSON value on one line, with a space after `:` and `,`.
fn one_line(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(m) => {
            let inner: Vec<String> =
                m.iter().map(|(k, v)| format!("{}: {}", serde_json::Value::String(k.clone()), one_line(v))).collect();
            format!("{{{}}}", inner.join(", "))
        }
        serde_json::Value::Array(a) => format!("[{}]", a.iter().map(one_line).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// Adds the new parameters to `inputSchema` objects of the tools they belong to.
pub fn schema_edits(text: &str, roots: &[JsonNode], params: &[NewParam]) -> Vec<Edit> {
    let mut edits = Vec::new();
    for root in roots {
        walk(root, |node, _| {
            let Some(name) = node.get("name").and_then(JsonNode::as_str) else { return };
            let Some(schema) = node.get("inputSchema").or_else(|| node.get("input_schema")) else { return };
            let Some(param) = params.iter().find(|p| p.tool == name) else { return };
            let Some(props) = schema.member("properties") else { return };
            if props.value.get(&param.name).is_some() {
                return;
            }
            let member = format!("{}: {}", serde_json::Value::String(param.name.clone()), one_line(&param.schema()));
            edits.push(append_member(text, &props.value, &member, props.range.start));
            if param.required() {
                match schema.get("required") {
                    Some(req) if matches!(req.kind, JsonKind::Array(_)) => {
                        let quoted = serde_json::Value::String(param.name.clone()).to_string();
                        edits.push(match req.elements().last() {
                            Some(last) => Edit::replace(last.range.end..last.range.end, format!(", {quoted}")),
                            None => Edit::replace(req.range.start + 1..req.range.end - 1, quoted),
                        });
                    }
                    Some(_) => {}
                    None => {
                        let indent = indent_at(text, props.range.start);
                        let at = props.range.end;
                        let sep = if text[skip_ws(text, at)..].starts_with(',') { "" } else { "," };
                        let q = serde_json::Value::String(param.name.clone());
                        let trailing = if sep.is_empty() { "," } else { "" };
                        edits.push(Edit::replace(at..at, format!("{sep}\n{indent}\"required\": [{q}]{trailing}")));
                    }
                }
            }
        });
    }
    edits
}

/// Appends `member` to an object, in the layout of its last member (or of the key `at` that holds
/// an empty object).
fn append_member(text: &str, obj: &JsonNode, member: &str, at: usize) -> Edit {
    match obj.members().last() {
        Some(last) => {
            let indent = indent_at(text, last.range.start);
            if line_start(text, last.range.start) == line_start(text, obj.range.start) {
                Edit::replace(last.range.end..last.range.end, format!(", {member}"))
            } else {
                Edit::replace(last.range.end..last.range.end, format!(",\n{indent}{member}"))
            }
        }
        None => {
            let outer = indent_at(text, at);
            Edit::replace(obj.range.start + 1..obj.range.end - 1, format!("\n{outer}  {member}\n{outer}"))
        }
    }
}

/// Deletes `"roots"` from capability objects (`capabilities`, `clientCapabilities`).
pub fn capability_edits(text: &str, roots: &[JsonNode]) -> Vec<Edit> {
    let mut edits = Vec::new();
    for root in roots {
        walk(root, |node, path| {
            let under_caps =
                matches!(path.last(), Some(Step::Key(k)) if *k == "capabilities" || *k == "clientCapabilities");
            if !under_caps {
                return;
            }
            let members = node.members();
            let Some(i) = members.iter().position(|m| m.key == "roots") else { return };
            let m = &members[i];
            let after = skip_ws(text, m.range.end);
            let range = if text.as_bytes().get(after) == Some(&b',') {
                deletion(text, m.range.start..after + 1)
            } else if i > 0 {
                members[i - 1].range.end..m.range.end
            } else {
                deletion(text, m.range.clone())
            };
            edits.push(Edit::delete(range));
        });
    }
    edits
}

/// `.enable_roots()`, `.enable_roots_with(…)`, `.enable_roots_list_changed()` links of builder chains.
pub fn enable_roots_edits(src: &Src, file: &syn::File) -> Vec<Edit> {
    struct Find<'a> {
        src: &'a Src<'a>,
        found: Vec<Range<usize>>,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let name = m.method.to_string();
            if matches!(name.as_str(), "enable_roots" | "enable_roots_with" | "enable_roots_list_changed") {
                let receiver_end = self.src.range(&*m.receiver).end;
                let end = self.src.span(m.paren_token.span.close()).end;
                let dot = self.src.span(m.dot_token.span).start;
                let gap = &self.src.text[receiver_end..dot];
                // On a line of its own the link goes with its line; else from the receiver's end.
                let own = deletion(self.src.text, dot..end);
                let range = if own.start < dot && !gap.contains("//") {
                    own
                } else if gap.contains("//") || gap.contains("/*") {
                    dot..end
                } else {
                    receiver_end..end
                };
                self.found.push(range);
            }
            visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find { src, found: Vec::new() };
    find.visit_file(file);
    find.found.into_iter().map(Edit::delete).collect()
}
