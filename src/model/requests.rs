//! Which functions send a JSON-RPC request whose method is one of their parameters, and the MCP
//! method names callers hand them: `self.dispatch("sampling/createMessage", params)` where
//! `dispatch` builds `OutgoingRequest { id, method: method.to_string(), … }`, or a test's
//! `make_req("initialize", …)`. The rules about removed requests report such a literal as sent.
//!
//! A parameter becomes a request method when the body puts it (or a local made from it) into the
//! `method` of a struct literal that also has an `id`, into the `"method"` of a `json!` object that
//! also has an `"id"`, or into a distinctive sending call (`send_request(method, …)`); or when it
//! is passed to such a parameter of another function of the crate. Only parameters typed as a
//! string (`&str`, `String`, `impl Into<String>`, `Cow<str>`) count.

use std::ops::Range;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::Expr;

use super::{Callee, CrateModel, FnId, Param, handlers};
use crate::cx::{CrateCx, Cx};
use crate::rust::requests::{REQUEST_VERBS, raw_spells};
use crate::rust::syntax::str_value;

/// The generic verbs of `rust::requests::REQUEST_VERBS`: a channel's `send(msg)` says nothing
/// about what the message is, so a parameter handed to one is not a request method.
const GENERIC_VERBS: &[&str] = &["send", "call", "request", "rpc"];

/// Whether a call of this name sends (or builds) a request from a method argument.
pub fn sends_its_method_argument(name: &str) -> bool {
    REQUEST_VERBS.contains(&name) && !GENERIC_VERBS.contains(&name)
}

/// The parameters (bits) typed as a string.
pub fn string_params(params: &[Param]) -> u32 {
    let mut bits = 0;
    for (i, p) in params.iter().enumerate().take(32) {
        let t = p.ty.as_str();
        let stringy = t.contains("str") || t.contains("String") || t == "impl Into" || t == "impl AsRef";
        if stringy && !t.starts_with('[') && !t.contains("Vec") {
            bits |= 1 << i;
        }
    }
    bits
}

/// The arguments that are string literals naming an MCP method.
pub fn method_args(cx: &Cx, args: &[&Expr]) -> Vec<(usize, String, Range<usize>)> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if let Some((value, range)) = str_value(cx, a)
            && handlers::is_mcp_method(&value)
            && raw_spells(cx, &range, &value)
        {
            out.push((i, value, range));
        }
    }
    out
}

/// In a `json!` body, the names that are the whole `"method"` value of an object that also has
/// an `"id"` (`"method": method`, `"method": method.to_string()`).
pub fn json_request_method_names(tokens: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    object_methods(tokens, false, &mut |value| {
        if let Some(TokenTree::Ident(name)) = value.first()
            && (value.len() == 1 || matches!(value.get(1), Some(TokenTree::Punct(p)) if p.as_char() == '.'))
        {
            out.push(name.to_string());
        }
    });
    out
}

/// In a `json!` body, the string literals that are the whole `"method"` value of an object that
/// also has an `"id"`, with their spans; not under `"inputRequests"` (MRTR input requests are not
/// sent).
pub fn json_request_method_literals(tokens: &TokenStream) -> Vec<(String, proc_macro2::Span)> {
    let mut out = Vec::new();
    object_methods(tokens, true, &mut |value| {
        if let [TokenTree::Literal(l)] = value
            && let Ok(syn::Lit::Str(s)) = syn::parse2::<syn::Lit>(TokenTree::Literal(l.clone()).into())
        {
            out.push((s.value(), l.span()));
        }
    });
    out
}

/// Calls `found` with the value (up to the next top-level comma) of each `"method"` key of an
/// object that also has an `"id"`; with `skip_input`, not in the value of an `"inputRequests"` key.
fn object_methods(tokens: &TokenStream, skip_input: bool, found: &mut dyn FnMut(&[TokenTree])) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let is_key = |t: &TokenTree, key: &str| matches!(t, TokenTree::Literal(l) if l.to_string() == format!("\"{key}\""));
    let is_colon = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
    let has_id = trees.windows(2).any(|w| is_key(&w[0], "id") && is_colon(Some(&w[1])));
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Group(g) if matches!(g.delimiter(), Delimiter::Brace | Delimiter::Bracket) => {
                let input = i >= 2 && is_key(&trees[i - 2], "inputRequests") && is_colon(trees.get(i - 1));
                if !(skip_input && input) {
                    object_methods(&g.stream(), skip_input, found);
                }
            }
            _ if has_id && is_key(t, "method") && is_colon(trees.get(i + 1)) => {
                let value: Vec<TokenTree> = trees[i + 2..]
                    .iter()
                    .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                    .cloned()
                    .collect();
                found(&value);
            }
            _ => {}
        }
    }
}

/// An MCP method name a caller hands to a function that sends it as a request's method.
#[derive(Debug, Clone)]
pub struct SentMethod<'m> {
    pub caller: FnId,
    pub callee: FnId,
    pub method: &'m str,
    /// The literal, in the caller's file.
    pub range: Range<usize>,
}

impl SentMethod<'_> {
    /// What the callee does with the method, for a finding's message: "`dispatch`
    /// (src/context.rs:308) makes its `method` parameter the method of a JSON-RPC request".
    pub fn via(&self, model: &CrateModel, cx: &CrateCx) -> String {
        let callee = model.func(self.callee);
        let at = cx.place(model.file_of(self.callee), callee.name_range.start);
        let bits = model.request_method_params(self.callee);
        let param = (0..callee.params.len().min(32))
            .find(|i| bits & (1 << i) != 0)
            .and_then(|i| callee.params[i].name.as_deref())
            .map_or(String::new(), |p| format!(" `{p}`"));
        format!("`{}` ({at}) makes its parameter{param} the method of a JSON-RPC request", callee.name)
    }
}

impl CrateModel {
    /// The parameters (bits as in `Origins::params`) that become the `method` of a JSON-RPC
    /// request the function builds or sends, itself or through the crate's functions it calls.
    pub fn request_method_params(&self, id: FnId) -> u32 {
        self.method_params.get_or_init(|| self.propagate_method_params())[id.0 as usize]
    }

    /// Every MCP method literal passed to a parameter that becomes a request's method.
    pub fn sent_method_literals(&self) -> Vec<SentMethod<'_>> {
        let mut out = Vec::new();
        for caller in self.fn_ids() {
            let f = self.func(caller);
            if f.calls.iter().all(|c| c.method_args.is_empty()) {
                continue;
            }
            for &(index, callee) in self.callees_of(caller) {
                let call = &f.calls[index];
                let bits = self.request_method_params(callee);
                let offset = self.receiver_offset(&call.callee, callee);
                for (arg, method, range) in &call.method_args {
                    let Some(param) = arg.checked_sub(offset) else { continue };
                    if param < 32 && bits & (1 << param) != 0 {
                        out.push(SentMethod { caller, callee, method, range: range.clone() });
                    }
                }
            }
        }
        out
    }

    /// `Type::method(value, …)` passes the receiver as the first argument.
    pub(super) fn receiver_offset(&self, call: &Callee, callee: FnId) -> usize {
        usize::from(!call.has_receiver() && self.func(callee).has_self)
    }

    /// The facts' own bits, then through calls until nothing changes: a parameter passed whole to
    /// a callee's method parameter is a method parameter too.
    fn propagate_method_params(&self) -> Vec<u32> {
        let mut bits: Vec<u32> = self.fn_ids().map(|id| self.func(id).request_method_params).collect();
        if bits.iter().all(|b| *b == 0) {
            return bits;
        }
        // Only functions that pass a string parameter on can gain bits.
        let passing: Vec<FnId> = self
            .fn_ids()
            .filter(|&id| {
                let f = self.func(id);
                let strings = string_params(&f.params);
                strings != 0 && f.calls.iter().any(|c| c.args.iter().any(|a| a.params & strings != 0))
            })
            .collect();
        settle(&mut bits, &passing, |id, bits| {
            let f = self.func(id);
            let strings = string_params(&f.params);
            let mut gained = bits[id.0 as usize];
            for &(index, callee) in self.callees_of(id) {
                let call = &f.calls[index];
                let callee_bits = bits[callee.0 as usize];
                let offset = self.receiver_offset(&call.callee, callee);
                for (arg, origins) in call.args.iter().enumerate() {
                    let Some(param) = arg.checked_sub(offset) else { continue };
                    if param < 32 && callee_bits & (1 << param) != 0 {
                        gained |= origins.params & strings;
                    }
                }
            }
            gained
        });
        bits
    }
}

/// Per-function bits propagated through calls until nothing changes: `gain(id, bits)` is what
/// `id` has given its callees' current bits, and it can only add to them, so a chain of n helpers
/// settles within n rounds (at most 32 rounds are made).
pub(super) fn settle<T: Copy + PartialEq>(bits: &mut [T], passing: &[FnId], gain: impl Fn(FnId, &[T]) -> T) {
    for _ in 0..32 {
        let mut changed = false;
        for &id in passing {
            let gained = gain(id, bits);
            if gained != bits[id.0 as usize] {
                bits[id.0 as usize] = gained;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<String> {
        json_request_method_names(&src.parse().unwrap())
    }

    #[test]
    fn json_method_names_need_an_id() {
        assert_eq!(names(r#"{"jsonrpc": "2.0", "id": id, "method": method, "params": p}"#), ["method"]);
        assert_eq!(names(r#"{"id": 1, "method": m.to_string()}"#), ["m"]);
        assert!(names(r#"{"method": method, "params": p}"#).is_empty());
        assert!(names(r#"{"id": 1, "method": format!("{}", m)}"#).is_empty());
        assert_eq!(names(r#"[{"id": 1, "method": a}, {"method": b}]"#), ["a"]);
        let literals = |src: &str| -> Vec<String> {
            json_request_method_literals(&src.parse().unwrap()).into_iter().map(|(v, _)| v).collect()
        };
        assert_eq!(literals(r#"{"id": 1, "method": "ping"}"#), ["ping"]);
        assert!(literals(r#"{"inputRequests": {"a": {"method": "elicitation/create"}}}"#).is_empty());
    }
}
