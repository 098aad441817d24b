//! Gives a tool its new directory parameter: a documented field in its `Parameters<T>` struct
//! (wherever in the crate `T` is defined), or a new struct and `Parameters(…)` argument when the tool
//! had none; then drops the context or peer argument the tool no longer uses, and an
//! `#[allow(deprecated)]` that only the roots needed.

use std::ops::Range;

use quote::ToTokens;
use syn::{FnArg, Pat};

use super::index::{FnSite, Index};
use super::lookup::{Need, PARAM, Refusal, type_last_ident};
use super::text::{Src, camel, deletion, indent_at, line_start, mentions_ident, render, skip_ws};
use crate::diagnostic::Edit;

/// The parameter a rewritten tool gained, as clients see it.
#[derive(Debug, Clone)]
pub struct NewParam {
    /// The tool's name on the wire.
    pub tool: String,
    /// The property's name in the input schema.
    pub name: String,
    pub need: Need,
    pub description: &'static str,
    /// The struct that was created for it, if the tool had no parameters.
    pub created: Option<String>,
}

impl NewParam {
    pub fn rust_type(&self) -> &'static str {
        match self.need {
            Need::First => "String",
            Need::FirstOptional => "Option<String>",
            Need::All => "Vec<String>",
        }
    }

    pub fn required(&self) -> bool {
        self.need != Need::FirstOptional
    }

    /// The property's JSON Schema, as `schemars` writes it for the field.
    pub fn schema(&self) -> serde_json::Value {
        match self.need {
            Need::First => serde_json::json!({"type": "string", "description": self.description}),
            Need::FirstOptional => serde_json::json!({"type": ["string", "null"], "description": self.description}),
            Need::All => {
                serde_json::json!({"type": "array", "items": {"type": "string"}, "description": self.description})
            }
        }
    }
}

/// Edits to apply, per file.
pub type FileEdits = Vec<(usize, Edit)>;

/// A rewritten tool: its edits, the parameter it gained, and an import its file may need.
pub struct ToolPlan {
    /// The tool's file.
    pub file: usize,
    pub edits: FileEdits,
    pub param: NewParam,
    /// The file that needs `use rmcp::handler::server::wrapper::Parameters;`.
    pub needs_parameters_import: Option<usize>,
}

/// How derives are spelled in a struct the codemod creates.
pub struct Derives {
    pub serde: bool,
    pub schemars: bool,
}

pub(super) const SINGULAR: &[&str] = &["path", "directory", "dir", "workdir", "project_path"];
pub(super) const PLURAL: &[&str] = &["paths", "directories", "dirs", "workdirs", "project_paths"];

pub fn description(need: Need) -> &'static str {
    match need {
        Need::First => "Absolute path of the directory to work in.",
        Need::FirstOptional => "Absolute path of the directory to work in; when omitted, the tool uses its default.",
        Need::All => "Absolute paths of the directories to work in.",
    }
}

/// Idents the rmcp roots, sampling and logging APIs are deprecated under; an `#[allow(deprecated)]`
/// stays while the function still mentions one.
pub(super) const DEPRECATED_NAMES: &[&str] = &[
    "list_roots",
    "roots",
    "uri",
    "Root",
    "ListRootsResult",
    "ListRootsRequest",
    "create_message",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "SamplingMessage",
    "notify_logging_message",
    "LoggingMessageNotificationParam",
    "LoggingLevel",
    "enable_roots",
    "enable_roots_list_changed",
    "enable_sampling",
    "enable_logging",
];

/// The parts of a tool's signature the codemod works with.
struct Signature {
    /// The `Parameters(…)` argument: its index, the struct's name, and how the struct is bound.
    parameters: Option<(usize, String, Binding)>,
    /// Context or peer arguments by index and name.
    peers: Vec<(usize, String)>,
}

enum Binding {
    /// `Parameters(args)`.
    Name(String),
    /// `Parameters(SearchArgs { query, .. })`: the pattern.
    Fields(Box<syn::PatStruct>),
}

fn read_signature(site: &FnSite) -> Result<Signature, &'static str> {
    let mut out = Signature { parameters: None, peers: Vec::new() };
    for (i, arg) in site.sig.inputs.iter().enumerate() {
        let FnArg::Typed(pt) = arg else { continue };
        let ty = type_last_ident(&pt.ty);
        match ty.as_deref() {
            Some("Parameters") => {
                let syn::Type::Path(tp) = &*pt.ty else { return Err("its `Parameters` type is not a plain path") };
                let inner = match &tp.path.segments.last().unwrap().arguments {
                    syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => type_last_ident(t),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(inner) = inner else { return Err("its `Parameters<…>` type is not a struct name") };
                let binding = match &*pt.pat {
                    Pat::TupleStruct(ts) if ts.elems.len() == 1 => match &ts.elems[0] {
                        Pat::Ident(p) if p.subpat.is_none() => Binding::Name(p.ident.to_string()),
                        Pat::Struct(ps) => Binding::Fields(Box::new(ps.clone())),
                        _ => return Err("its `Parameters(…)` pattern is neither a name nor the struct's fields"),
                    },
                    _ => return Err("its `Parameters` argument is not matched as `Parameters(…)`"),
                };
                out.parameters = Some((i, inner, binding));
            }
            Some("RequestContext" | "Peer") => {
                if let Pat::Ident(p) = &*pt.pat {
                    out.peers.push((i, p.ident.to_string()));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Plans the signature and struct side of a tool rewrite, given the body's edits (written with
/// `PARAM`) and what the body needs.
pub fn plan_tool(
    index: &Index,
    texts: &[String],
    bases: &[usize],
    site: &FnSite,
    body_edits: Vec<Edit>,
    need: Need,
    derives: &Derives,
) -> Result<ToolPlan, Refusal> {
    let src = Src { text: &texts[site.file], base: bases[site.file] };
    let refuse = |reason: String| Refusal { range: src.range(&site.sig.ident), reason };
    let sig = read_signature(site).map_err(|why| refuse(format!("the tool `{}`: {why}", site.name())))?;
    let fn_text = src.slice(site.range.clone());
    let plural = need == Need::All;
    let candidates = if plural { PLURAL } else { SINGULAR };
    let mut edits: FileEdits = Vec::new();
    let description = description(need);
    let ty = NewParam { tool: String::new(), name: String::new(), need, description, created: None }.rust_type();
    let mut needs_import = None;
    let (field, place, created) = match &sig.parameters {
        Some((_, struct_name, binding)) => {
            let found = index.structs_named(struct_name);
            let [st] = found.as_slice() else {
                return Err(refuse(format!(
                    "its parameter type `{struct_name}` is {} in this crate",
                    if found.is_empty() { "not defined" } else { "defined more than once" }
                )));
            };
            // Another tool taking the same struct would get the field too.
            if let Some(other) = index.fns.iter().find(|f| {
                f.is_tool
                    && !(f.file == site.file && f.range == site.range)
                    && read_signature(f).ok().and_then(|s| s.parameters).is_some_and(|(_, n, _)| &n == struct_name)
            }) {
                return Err(refuse(format!(
                    "its parameter struct `{struct_name}` is shared with the tool `{}`, which would get the new field too",
                    other.name()
                )));
            }
            let syn::Fields::Named(named) = &st.item.fields else {
                return Err(refuse(format!("its parameter struct `{struct_name}` has no named fields")));
            };
            let st_src = Src { text: &texts[st.file], base: bases[st.file] };
            let taken: Vec<String> =
                named.named.iter().filter_map(|f| f.ident.as_ref().map(|i| i.to_string())).collect();
            let attrs_text = st_src.node_text(st.item).to_owned();
            let field = candidates
                .iter()
                .find(|c| {
                    !taken.iter().any(|t| t == *c)
                        && !attrs_text.contains(&format!("\"{c}\""))
                        && (matches!(binding, Binding::Name(_)) || !mentions_ident(fn_text, c))
                })
                .ok_or_else(|| {
                    refuse(format!("every name the codemod would give the parameter is taken in `{struct_name}`"))
                })?
                .to_string();
            edits.push((st.file, add_field(&st_src, st.item, &field, ty, description)?));
            let place = match binding {
                Binding::Name(n) => format!("{n}.{field}"),
                Binding::Fields(ps) => {
                    edits.push((site.file, add_to_pattern(&src, ps, &field)));
                    field.clone()
                }
            };
            (field, place, None)
        }
        None => {
            let field = candidates[0].to_string();
            let binding = ["params", "args", "input", "arguments"]
                .iter()
                .find(|b| !mentions_ident(fn_text, b))
                .ok_or_else(|| refuse("every name for the new argument is taken in the tool".into()))?;
            let mut struct_name = format!("{}Params", camel(&site.name()));
            while index.type_names.contains(&struct_name) {
                struct_name.push('_');
            }
            let Some(imp) = site.imp else { return Err(refuse("the tool is not a method".into())) };
            let imp_start = line_start(src.text, src.range(imp).start);
            let indent = indent_at(src.text, imp_start).to_owned();
            edits.push((
                site.file,
                Edit::replace(
                    imp_start..imp_start,
                    new_struct(&struct_name, &site.tool_name(), &field, ty, description, derives, &indent),
                ),
            ));
            let arg = format!("Parameters({binding}): Parameters<{struct_name}>");
            // The new argument takes the place of the context argument when that one goes.
            let replaced = sig.peers.iter().find(|(_, name)| !body_mentions(&src, site, &body_edits, name, &field));
            match replaced {
                Some((i, _)) => {
                    let r = src.range(&site.sig.inputs[*i]);
                    edits.push((site.file, Edit::replace(r, arg)));
                }
                None => edits.push((site.file, insert_arg(&src, site, &arg))),
            }
            if !mentions_ident(src.text, "Parameters") {
                needs_import = Some(site.file);
            }
            let place = format!("{binding}.{field}");
            (field, place, Some(struct_name))
        }
    };
    let body_edits: Vec<Edit> =
        body_edits.into_iter().map(|e| Edit::replace(e.byte_range, e.replacement.replace(PARAM, &place))).collect();
    // Context and peer arguments the body no longer uses.
    for (i, name) in &sig.peers {
        let still_used = mentions_ident(&render(src.text, src.range(site.block), &body_edits), name);
        let replaced = created.is_some()
            && edits.iter().any(|(f, e)| *f == site.file && e.byte_range == src.range(&site.sig.inputs[*i]));
        if !still_used && !replaced {
            edits.push((site.file, Edit::delete(arg_deletion(&src, site, *i))));
        }
    }
    // `#[allow(deprecated)]` that only the roots needed.
    let new_body = render(src.text, src.range(site.block), &body_edits);
    edits.extend(allow_deprecated_edits(&src, site.attrs, &new_body).into_iter().map(|e| (site.file, e)));
    edits.extend(body_edits.into_iter().map(|e| (site.file, e)));
    let param = NewParam { tool: site.tool_name(), name: field, need, description, created };
    Ok(ToolPlan { file: site.file, edits, param, needs_parameters_import: needs_import })
}

/// Deletes an `#[allow(deprecated)]` of a function whose new body no longer mentions anything
/// deprecated that the codemod knows of.
pub(super) fn allow_deprecated_edits(src: &Src, attrs: &[syn::Attribute], new_body: &str) -> Vec<Edit> {
    if DEPRECATED_NAMES.iter().any(|n| mentions_ident(new_body, n)) {
        return Vec::new();
    }
    attrs
        .iter()
        .filter(|a| {
            a.path().is_ident("allow") && a.meta.to_token_stream().to_string().replace(' ', "") == "allow(deprecated)"
        })
        .map(|a| Edit::delete(deletion(src.text, src.range(a))))
        .collect()
}

fn body_mentions(src: &Src, site: &FnSite, body_edits: &[Edit], name: &str, field: &str) -> bool {
    let edits: Vec<Edit> =
        body_edits.iter().map(|e| Edit::replace(e.byte_range.clone(), e.replacement.replace(PARAM, field))).collect();
    mentions_ident(&render(src.text, src.range(site.block), &edits), name)
}

/// A field at the end of a struct with named fields, in the layout of the field before it.
pub(super) fn add_field(src: &Src, st: &syn::ItemStruct, field: &str, ty: &str, doc: &str) -> Result<Edit, Refusal> {
    let syn::Fields::Named(named) = &st.fields else { unreachable!() };
    let Some(last) = named.named.last() else {
        let open = src.span(named.brace_token.span.open()).end;
        let close = src.span(named.brace_token.span.close()).start;
        let indent = indent_at(src.text, src.range(st).start).to_owned();
        return Ok(Edit::replace(
            open..close,
            format!("\n{indent}    /// {doc}\n{indent}    pub {field}: {ty},\n{indent}"),
        ));
    };
    let last_range = src.range(last);
    let after = skip_ws(src.text, last_range.end);
    let (at, comma) =
        if src.text.as_bytes().get(after) == Some(&b',') { (after + 1, "") } else { (last_range.end, ",") };
    let vis = match &last.vis {
        syn::Visibility::Inherited => String::new(),
        v => format!("{} ", src.node_text(v)),
    };
    let open_line = line_start(src.text, src.span(named.brace_token.span.open()).start);
    if line_start(src.text, last_range.start) == open_line {
        // A struct on one line: a doc comment would run to its end, so the doc is an attribute.
        return Ok(Edit::replace(at..at, format!("{comma} #[doc = \" {doc}\"] {vis}{field}: {ty}")));
    }
    let indent = indent_at(src.text, last_range.start);
    Ok(Edit::replace(at..at, format!("{comma}\n{indent}/// {doc}\n{indent}{vis}{field}: {ty},")))
}

/// `Parameters(SearchArgs { query })` → `Parameters(SearchArgs { query, path })`.
fn add_to_pattern(src: &Src, ps: &syn::PatStruct, field: &str) -> Edit {
    if let Some(rest) = &ps.rest {
        let at = src.range(rest).start;
        return Edit::replace(at..at, format!("{field}, "));
    }
    match ps.fields.pairs().next_back() {
        Some(pair) if pair.punct().is_none() => {
            let at = src.range(pair.value()).end;
            Edit::replace(at..at, format!(", {field}"))
        }
        Some(pair) => {
            let at = src.range(pair.punct().unwrap()).end;
            Edit::replace(at..at, format!(" {field}"))
        }
        None => {
            let at = src.span(ps.brace_token.span.open()).end;
            Edit::replace(at..at, format!(" {field} "))
        }
    }
}

fn new_struct(name: &str, tool: &str, field: &str, ty: &str, doc: &str, derives: &Derives, indent: &str) -> String {
    let serde = if derives.serde { "serde" } else { "rmcp::serde" };
    let schemars = if derives.schemars { "schemars" } else { "rmcp::schemars" };
    let mut out = format!(
        "{indent}/// Arguments of the `{tool}` tool.\n{indent}#[derive(Debug, {serde}::Deserialize, {schemars}::JsonSchema)]\n"
    );
    if !derives.serde {
        out.push_str(&format!("{indent}#[serde(crate = \"rmcp::serde\")]\n"));
    }
    if !derives.schemars {
        out.push_str(&format!("{indent}#[schemars(crate = \"rmcp::schemars\")]\n"));
    }
    out.push_str(&format!(
        "{indent}pub struct {name} {{\n{indent}    /// {doc}\n{indent}    pub {field}: {ty},\n{indent}}}\n\n"
    ));
    out
}

/// The range that removes argument `i` with one comma, and its line when it has one of its own.
pub(super) fn arg_deletion(src: &Src, site: &FnSite, i: usize) -> Range<usize> {
    let pairs: Vec<_> = site.sig.inputs.pairs().collect();
    let arg = src.range(pairs[i].value());
    if let Some(p) = pairs[i].punct() {
        return deletion(src.text, arg.start..src.range(p).end);
    }
    if i > 0 {
        return src.range(pairs[i - 1].value()).end..arg.end;
    }
    arg
}

/// Inserts an argument after the receiver (or first).
fn insert_arg(src: &Src, site: &FnSite, arg: &str) -> Edit {
    let pairs: Vec<_> = site.sig.inputs.pairs().collect();
    let Some(first) = pairs.first() else {
        let at = src.span(site.sig.paren_token.span.open()).end;
        return Edit::replace(at..at, arg.to_owned());
    };
    let first_end = src.range(first.value()).end;
    if let (Some(comma), Some(next)) = (first.punct(), pairs.get(1)) {
        let comma_end = src.range(comma).end;
        let next_start = src.range(next.value()).start;
        if src.text[comma_end..next_start].contains('\n') {
            let indent = indent_at(src.text, next_start);
            return Edit::replace(comma_end..comma_end, format!("\n{indent}{arg},"));
        }
    }
    if matches!(first.value(), FnArg::Receiver(_)) {
        Edit::replace(first_end..first_end, format!(", {arg}"))
    } else {
        let start = src.range(first.value()).start;
        Edit::replace(start..start, format!("{arg}, "))
    }
}
