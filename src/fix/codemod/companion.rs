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
            let value = one_line(&param.schema());
            if let Ok(e) = add_property(text, schema, &param.name, &value, param.required(), "  ") {
                edits.extend(e);
            }
        });
    }
    edits
}

/// Adds property `name` with the schema `value` (JSON text) to a JSON Schema object (creating `properties` if
/// it has none), and to its `required` array when `required`. `indent_unit` is one level of the
/// file's indentation. Fails when `properties` or `required` is not written out as JSON (a Rust
/// expression inside a `json!` body).
pub fn add_property(
    text: &str,
    schema: &JsonNode,
    name: &str,
    value: &str,
    required: bool,
    indent_unit: &str,
) -> Result<Vec<Edit>, &'static str> {
    if !schema.is_object() {
        return Err("the schema is not an object written out");
    }
    let quoted = serde_json::Value::String(name.to_owned()).to_string();
    let member = format!("{quoted}: {value}");
    let req = schema.get("required");
    if req.is_some_and(|r| !matches!(r.kind, JsonKind::Array(_))) {
        return Err("its `required` is not an array written out");
    }
    let add_required = |req: &JsonNode| match req.elements().last() {
        Some(last) => Edit::replace(last.range.end..last.range.end, format!(", {quoted}")),
        None => Edit::replace(req.range.start + 1..req.range.end - 1, quoted.clone()),
    };
    let mut edits = Vec::new();
    match schema.member("properties") {
        Some(props) => {
            if !props.value.is_object() {
                return Err("its `properties` is not an object written out");
            }
            edits.push(append_members(text, &props.value, &[member], props.range.start, indent_unit));
            match req {
                Some(req) if required => edits.push(add_required(req)),
                None if required => {
                    let at = props.range.end;
                    let one_line = line_start(text, props.range.start) == line_start(text, schema.range.start);
                    let gap =
                        if one_line { " ".to_owned() } else { format!("\n{}", indent_at(text, props.range.start)) };
                    edits.push(Edit::replace(at..at, format!(",{gap}\"required\": [{quoted}]")));
                }
                _ => {}
            }
        }
        None => {
            let mut members = vec![format!("\"properties\": {{{member}}}")];
            match req {
                Some(req) if required => edits.push(add_required(req)),
                None if required => members.push(format!("\"required\": [{quoted}]")),
                _ => {}
            }
            edits.push(append_members(text, schema, &members, schema.range.start, indent_unit));
        }
    }
    Ok(edits)
}

/// Appends `members` to an object, in the layout of its last member (or, for an empty object, on
/// lines of their own under the key at `at`, unless the object closes on a line with more after it).
fn append_members(text: &str, obj: &JsonNode, members: &[String], at: usize, indent_unit: &str) -> Edit {
    match obj.members().last() {
        Some(last) => {
            let end = last.range.end;
            if line_start(text, last.range.start) == line_start(text, obj.range.start) {
                Edit::replace(end..end, members.iter().map(|m| format!(", {m}")).collect::<String>())
            } else {
                let indent = indent_at(text, last.range.start);
                Edit::replace(end..end, members.iter().map(|m| format!(",\n{indent}{m}")).collect::<String>())
            }
        }
        None => {
            let inner = obj.range.start + 1..obj.range.end - 1;
            let rest = text[obj.range.end..].split('\n').next().unwrap_or("").trim();
            if !(rest.is_empty() || rest == ",") {
                return Edit::replace(inner, members.join(", "));
            }
            let outer = indent_at(text, at);
            let sep = format!(",\n{outer}{indent_unit}");
            Edit::replace(inner, format!("\n{outer}{indent_unit}{}\n{outer}", members.join(&sep)))
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
