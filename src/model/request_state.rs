//! What the crate model knows about values one function hands to another, for the `requestState`
//! rules (`request-state-tampering`, `unprotected-request-state`): facts of each function
//! (`ValueFacts`, on `FnFact::values`), extracted in the model's one walk, and the crate-wide
//! answers built on the model's resolved calls (`CrateModel::verifies_integrity`,
//! `CrateModel::state_ops`).
//!
//! Per function:
//! - `checks_integrity`: it checks data's integrity: an HMAC or `Mac`, a `verify…` step, AEAD or
//!   `decrypt`, a sealing codec's `.open(…)` (rmcp's `RequestStateCodec`), JWT, a constant-time
//!   comparison (`INTEGRITY_WORDS`, `SEAL_METHODS`);
//! - `decodes_param`: the first of its parameters it decodes (deserializes, parses, base64) when it
//!   checks no integrity itself;
//! - `request_state`, for a function that mentions the state: a walk of its body (`StateFacts`).
//!   The walk tracks which values are the state: reads of it (`x.request_state`,
//!   `x["requestState"]`, `x.get("requestState")`, rmcp's `RequestState(s)` extractor, parameters
//!   named `request_state`), and locals bound from them through value-preserving steps (`&`, `?`,
//!   `.clone()`, `.as_deref()`, `.unwrap()`, `Some(..)`, `if let`, `match`, closure parameters of
//!   `.map(…)`), or through a decoding (then the value is "derived"). It records the operations
//!   applied to the state (`Op`), the states a client request makes up (`Invented`), and the calls
//!   that hand the state to another function (`StatePass`). Each read of the state gets a side
//!   from the names on its way (`resp["result"]`: the client's; `req.params`, `RequestState`: the
//!   server's), which decides whose rule it is in unknown-role code.
//!
//! Across the crate: a call that hands the state to a crate function that decodes that parameter
//! and verifies nothing is a decoding of the state, wherever that function is (resolved through
//! the model's calls and `use` declarations, never by a name alone); a function verifies
//! integrity when it, or a crate function it calls, checks it.
//!
//! Facts are kept for files that mention the state (`STATE_WORDS`): a decoding or verifying helper
//! in a file that never names it is not known, so its callers' uses stay as the caller shows them.

use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, Lit, Member, Pat};

use super::{Callee, CrateModel, FileId, FnId};
use crate::context::Role;
use crate::cx::Cx;
use crate::json::{self, JsonKind, JsonNode, Step};
use crate::rust::syntax::{
    block_text, fn_text, last_ident, method_call_range, str_value, text_may_mention, tokens_mention, tokens_mention_any,
};

/// How the state is spelled in code: its JSON key, rmcp's field and extractor.
pub const STATE_WORDS: &[&str] = &["request_state", "RequestState", "requestState"];

/// A function's facts about the values it handles (empty in files that never name the state).
#[derive(Debug, Clone, Default)]
pub struct ValueFacts {
    pub checks_integrity: bool,
    pub decodes_param: Option<ParamDecode>,
    pub request_state: Option<Box<StateFacts>>,
}

/// A parameter a function decodes, and the decoding.
#[derive(Debug, Clone)]
pub struct ParamDecode {
    /// Index among the parameters other than `self`.
    pub param: usize,
    pub range: Range<usize>,
    /// For messages: "`serde_json::from_str`".
    pub what: String,
}

/// How one function handles the state, as its body shows it.
#[derive(Debug, Clone, Default)]
pub struct StateFacts {
    /// The file uses an MCP SDK or speaks of MRTR (`mcp_context`).
    pub mcp: bool,
    pub ops: Vec<Op>,
    pub invented: Vec<Invented>,
    pub passes: Vec<StatePass>,
    /// The function returns the state as it was read (its tail or a `return`; not a value
    /// decoded from it, whose decoding is this function's finding), read on this side.
    pub returns: Option<Side>,
}

/// A call that hands the state (or a value decoded from it) to another function.
#[derive(Debug, Clone)]
pub struct StatePass {
    /// The call as the model's `CallFact::range` spans it.
    pub call: Range<usize>,
    /// The callee as written (its last name).
    pub name: String,
    /// The argument's index (after the receiver).
    pub arg: usize,
    pub val: StateVal,
    /// How many of the function's own operations come before it.
    pub at: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    /// Read from a result: the client's copy.
    Client,
    /// Read from a request's params: the server's input.
    Server,
    Unknown,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OpKind {
    Decode,
    Rewrite,
}

#[derive(Clone, PartialEq, Debug)]
pub struct Op {
    /// The decoding or rewriting expression, in the function's file (for a helper of the same
    /// file, the decoding inside it; for one in another file, the call).
    pub range: Range<usize>,
    pub kind: OpKind,
    /// For messages: "`serde_json::from_str`", "`.replace(…)`".
    pub what: String,
    pub side: Side,
    /// Where the state was read.
    pub source: Range<usize>,
    /// The input was already decoded (a later step of the same decoding).
    pub derived: bool,
    /// For a decoding inside a helper function.
    pub helper: Option<HelperCall>,
    /// The input is what this call returns (`StateVal::via`); `state_ops` keeps the operation
    /// only where the callee returns the state.
    pub via: Option<Range<usize>>,
}

/// The call that hands the state to a decoding helper.
#[derive(Clone, PartialEq, Debug)]
pub struct HelperCall {
    pub call: Range<usize>,
    pub name: String,
    /// The helper's file and its decoding, when that is another file than the caller's.
    pub elsewhere: Option<(FileId, usize)>,
}

/// A state a client request makes up.
#[derive(Debug, Clone)]
pub struct Invented {
    pub range: Range<usize>,
    pub message: String,
    pub label: &'static str,
    pub help: String,
    pub side: Side,
    /// The state is a member of a `json!` request (an object with `method`), so the code builds
    /// a request: a client's, whatever the role words say.
    pub in_request: bool,
}

#[derive(Clone, Debug)]
pub struct StateVal {
    pub side: Side,
    pub source: Range<usize>,
    pub derived: bool,
    /// The value a crate function returns, from this call (its `CallFact::range`): the state
    /// only if that function returns the state (`StateFacts::returns`), which the model decides.
    pub via: Option<Range<usize>>,
}

/// What the value facts need of a file that mentions the state, found once a file.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileState {
    mcp: bool,
}

/// `Some` for a file that mentions the state (the others get no value facts).
pub(super) fn file_state(cx: &Cx) -> Option<FileState> {
    STATE_WORDS.iter().any(|w| cx.file.text.contains(w)).then(|| FileState { mcp: mcp_context(cx) })
}

/// The value facts of one function, for `extract`.
pub(super) fn value_facts(cx: &Cx, sig: &syn::Signature, body: &syn::Block, file: Option<FileState>) -> ValueFacts {
    let Some(file) = file else { return ValueFacts::default() };
    let checks_integrity = has_integrity_check(cx, sig, body);
    let decodes_param = if checks_integrity { None } else { param_decode(cx, sig, body) };
    // A function that never names the state may still get it from a helper (`StateVal::via`).
    let walk = walk_fn(cx, sig, body, fn_mentions_state(cx, sig, body));
    let (ops, invented, passes, returns) = (walk.ops, walk.invented, walk.passes, walk.returns);
    let request_state = (!ops.is_empty() || !invented.is_empty() || !passes.is_empty() || returns.is_some())
        .then(|| Box::new(StateFacts { mcp: file.mcp, ops, invented, passes, returns }));
    ValueFacts { checks_integrity, decodes_param, request_state }
}

impl CrateModel {
    /// The functions that handle the state in MCP code (a known role, or a file or crate that
    /// uses an MCP SDK or speaks of MRTR: other APIs name a field `requestState` too), with
    /// their role and what they do with it.
    pub fn state_fns(&self) -> impl Iterator<Item = (FnId, Role, &StateFacts)> + '_ {
        self.fn_ids().filter_map(|id| {
            let facts = self.func(id).values.request_state.as_deref()?;
            let role = self.role(id);
            (role != Role::Unknown || facts.mcp).then_some((id, role, facts))
        })
    }

    /// Whether `id` checks the integrity of data: itself, or a crate function it calls.
    pub fn verifies_integrity(&self, id: FnId) -> bool {
        self.func(id).values.checks_integrity
            || self.callees_of(id).iter().any(|&(_, callee)| self.func(callee).values.checks_integrity)
    }

    /// The operations on the state in `id`: its own, and the decodings inside the crate
    /// functions it hands the state to (a call whose every target decodes that parameter and
    /// verifies nothing), in the order of its body. A value a call returns is the state only
    /// where every target of that call returns the state (`StateFacts::returns`).
    pub fn state_ops(&self, id: FnId) -> Vec<Op> {
        let f = self.func(id);
        let Some(facts) = f.values.request_state.as_deref() else { return Vec::new() };
        let file = self.file_of(id);
        let mut helper_ops: Vec<(usize, Op)> = Vec::new();
        for pass in &facts.passes {
            let Some(val) = self.resolve(id, &pass.val) else { continue };
            let decodes = |t: FnId, callee: &Callee| {
                let g = self.func(t);
                g.has_self == callee.has_receiver()
                    && g.values.decodes_param.as_ref().is_some_and(|d| d.param == pass.arg)
                    && !self.verifies_integrity(t)
            };
            let Some(helper) = self.every_target(id, &pass.call, decodes) else { continue };
            let decode = self.func(helper).values.decodes_param.as_ref().expect("checked by `decodes`");
            let helper_file = self.file_of(helper);
            let elsewhere = (helper_file != file).then_some((helper_file, decode.range.start));
            let op = Op {
                range: if elsewhere.is_some() { pass.call.clone() } else { decode.range.clone() },
                kind: OpKind::Decode,
                what: format!("{} in `{}`", decode.what, pass.name),
                side: val.side,
                source: val.source,
                derived: val.derived,
                helper: Some(HelperCall { call: pass.call.clone(), name: pass.name.clone(), elsewhere }),
                via: None,
            };
            helper_ops.push((pass.at, op));
        }
        let mut ops = Vec::with_capacity(facts.ops.len() + helper_ops.len());
        let mut helper_ops = helper_ops.into_iter().peekable();
        for (i, op) in facts.ops.iter().enumerate() {
            while let Some((_, h)) = helper_ops.next_if(|(at, _)| *at <= i) {
                ops.push(h);
            }
            let resolved = match &op.via {
                None => Some(op.clone()),
                Some(_) => self
                    .resolve(
                        id,
                        &StateVal {
                            side: op.side,
                            source: op.source.clone(),
                            derived: op.derived,
                            via: op.via.clone(),
                        },
                    )
                    .map(|v| Op { side: v.side, via: None, ..op.clone() }),
            };
            ops.extend(resolved);
        }
        ops.extend(helper_ops.map(|(_, h)| h));
        ops
    }

    /// A value of `id` as the state: as it is, or, for what a call returns (`StateVal::via`),
    /// read on the side the callees read it, when every target returns the state.
    fn resolve(&self, id: FnId, val: &StateVal) -> Option<StateVal> {
        let Some(call) = &val.via else { return Some(val.clone()) };
        let returns = |t: FnId| self.func(t).values.request_state.as_ref().and_then(|s| s.returns);
        let target = self.every_target(id, call, |t, _| returns(t).is_some())?;
        Some(StateVal { side: returns(target)?, source: call.clone(), derived: val.derived, via: None })
    }

    /// The first target of `id`'s call at `call` (a `CallFact::range`), when it resolves and
    /// every target passes `test`.
    fn every_target(&self, id: FnId, call: &Range<usize>, test: impl Fn(FnId, &Callee) -> bool) -> Option<FnId> {
        let f = self.func(id);
        let index = f.calls.iter().position(|c| c.range == *call)?;
        let callee = &f.calls[index].callee;
        let mut targets = self.callees_of(id).iter().filter(|(i, _)| *i == index).map(|&(_, t)| t).peekable();
        let first = *targets.peek()?;
        targets.all(|t| test(t, callee)).then_some(first)
    }
}

const INTEGRITY_WORDS: &[&str] = &[
    "hmac",
    "verify",
    "aead",
    "decrypt",
    "unseal",
    "signature",
    "jwt",
    "jws",
    "jsonwebtoken",
    "fernet",
    "paseto",
    "chacha",
    "aesgcm",
    "aes_gcm",
    "aes256gcm",
    "poly1305",
    "ct_eq",
    "constant_time",
    "requeststatecodec",
];
/// Method names of sealing codecs (rmcp's `RequestStateCodec`, `ring::aead`): only as methods
/// (`.open(…)`), so `File::open` says nothing.
const SEAL_METHODS: &[&str] = &[
    "open",
    "open_with",
    "open_json",
    "open_json_with",
    "open_in_place",
    "seal",
    "seal_with",
    "seal_json",
    "seal_json_with",
];

/// Methods that keep the value (a copy, a view, an unwrapping).
const PRESERVING: &[&str] = &[
    "clone",
    "cloned",
    "to_string",
    "to_owned",
    "into",
    "as_str",
    "as_deref",
    "as_ref",
    "as_bytes",
    "as_slice",
    "unwrap",
    "expect",
    "ok",
    "ok_or",
    "ok_or_else",
    "into_bytes",
    "to_vec",
    "borrow",
    "map",
    "and_then",
    "filter",
    "inspect",
    "take",
    "as_mut",
    "as_deref_mut",
    "map_err",
    "context",
    "with_context",
    "wrap_err",
    "wrap_err_with",
];
/// Methods on the state that fall back to a made-up value when there is none.
const DEFAULTING: &[&str] = &["unwrap_or_default", "unwrap_or", "unwrap_or_else", "map_or", "map_or_else"];
/// Methods that parse their receiver.
const RECEIVER_DECODERS: &[&str] = &[
    "parse",
    "split",
    "split_once",
    "rsplit_once",
    "splitn",
    "rsplitn",
    "rsplit",
    "split_terminator",
    "from_base64",
    "from_hex",
];
/// Methods that change a string (or build a changed copy).
const REWRITERS: &[&str] = &[
    "replace",
    "replacen",
    "push_str",
    "push",
    "insert",
    "insert_str",
    "truncate",
    "trim",
    "trim_start",
    "trim_end",
    "trim_matches",
    "trim_start_matches",
    "trim_end_matches",
    "strip_prefix",
    "strip_suffix",
    "to_uppercase",
    "to_lowercase",
    "to_ascii_uppercase",
    "to_ascii_lowercase",
    "make_ascii_uppercase",
    "make_ascii_lowercase",
    "retain",
    "drain",
    "clear",
    "pop",
    "extend",
    "repeat",
];
/// Last path segments of deserializing functions (`serde_json::from_str`, `bincode::deserialize`).
const FN_DECODERS: &[&str] = &[
    "from_str",
    "from_slice",
    "from_value",
    "from_reader",
    "from_bytes",
    "from_base64",
    "deserialize",
    "decode_from_slice",
];
/// Words that make a path or receiver an encoding (`base64::decode`, `STANDARD.decode`).
const ENCODING_WORDS: &[&str] = &[
    "base64",
    "b64",
    "base32",
    "base58",
    "bs58",
    "hex",
    "standard",
    "url_safe",
    "general_purpose",
    "engine",
    "data_encoding",
    "percent",
    "urlencoding",
];

/// Words that say a file deals with MCP's multi round-trip requests (other APIs name a field
/// `requestState` too).
const MCP_WORDS: &[&str] = &[
    "input_required",
    "InputRequired",
    "inputRequests",
    "inputResponses",
    "input_responses",
    "InputResponses",
    "tools/call",
    "prompts/get",
    "resources/read",
    "modelcontextprotocol",
];

/// Whether the code at hand is MCP code: the file or crate uses an MCP SDK, or the file speaks
/// of MRTR. Needed where no role says so.
fn mcp_context(cx: &Cx) -> bool {
    !cx.file_sdks.is_empty() || !cx.crate_ctx.sdks.is_empty() || MCP_WORDS.iter().any(|w| cx.file.text.contains(w))
}

/// Whether a function mentions the state at all (its key, a field, the extractor).
fn fn_mentions_state(cx: &Cx, sig: &syn::Signature, body: &syn::Block) -> bool {
    // What `mentions_state` looks for, as it reads in the source.
    text_may_mention(fn_text(cx, sig, body), STATE_WORDS)
        && (mentions_state(&sig.to_token_stream()) || mentions_state(&body.to_token_stream()))
}

fn mentions_state(tokens: &TokenStream) -> bool {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) => {
                let s = i.to_string();
                if s.contains("request_state") || s == "RequestState" {
                    return true;
                }
            }
            Some(TokenTree::Literal(l)) if l.to_string().contains("requestState") => return true,
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    false
}

/// Whether a function checks integrity (see `INTEGRITY_WORDS`, `SEAL_METHODS`).
fn has_integrity_check(cx: &Cx, sig: &syn::Signature, body: &syn::Block) -> bool {
    integrity_may_be_in(fn_text(cx, sig, body))
        && (integrity_in(&sig.to_token_stream()) || integrity_in(&body.to_token_stream()))
}
fn integrity_may_be_in(text: Option<&str>) -> bool {
    let Some(text) = text else { return true };
    let lower = text.to_ascii_lowercase();
    INTEGRITY_WORDS.iter().chain(&["mac"]).any(|w| lower.contains(w)) || SEAL_METHODS.iter().any(|w| text.contains(w))
}

fn integrity_in(tokens: &TokenStream) -> bool {
    let mut stack = vec![tokens.clone().into_iter()];
    let mut after_dot = false;
    while let Some(top) = stack.last_mut() {
        let Some(tt) = top.next() else {
            stack.pop();
            continue;
        };
        match tt {
            TokenTree::Ident(i) => {
                let s = i.to_string();
                let lower = s.to_ascii_lowercase();
                if INTEGRITY_WORDS.iter().any(|w| lower.contains(w))
                    || s == "Mac"
                    || s == "mac"
                    || (after_dot && SEAL_METHODS.contains(&s.as_str()))
                {
                    return true;
                }
                after_dot = false;
            }
            TokenTree::Punct(p) => after_dot = p.as_char() == '.',
            TokenTree::Group(g) => {
                after_dot = false;
                stack.push(g.stream().into_iter());
            }
            TokenTree::Literal(_) => after_dot = false,
        }
    }
    false
}

/// The first parameter a function decodes (one with no integrity check: the caller checks).
fn param_decode(cx: &Cx, sig: &syn::Signature, body: &syn::Block) -> Option<ParamDecode> {
    let params: Vec<&syn::PatType> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => Some(t),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    // Only a parameter bound to a name is walked: a function with none (`&self` alone) decodes none.
    if !params.iter().any(|p| matches!(&*p.pat, Pat::Ident(_))) {
        return None;
    }
    let decoders = || FN_DECODERS.iter().chain(RECEIVER_DECODERS).chain(&["decode"]);
    // Every function of the file comes here: the text test spares printing most bodies to tokens.
    let text = block_text(cx, body);
    if text.is_some_and(|text| !decoders().any(|w| text.contains(w))) {
        return None;
    }
    if !tokens_mention_any(&body.to_token_stream(), &decoders().copied().collect::<Vec<_>>()) {
        return None;
    }
    // A walk finds a decoding of a parameter through its name, or of a read of the state
    // (`x.request_state`, `x["requestState"]`), whichever parameter is bound. A string escape
    // could spell the key, so a backslash counts as a possible read.
    let may_read_state =
        text.is_none_or(|t| t.contains('\\') || t.contains("request_state") || t.contains("requestState"));
    for (index, p) in params.iter().enumerate() {
        let Pat::Ident(pi) = &*p.pat else { continue };
        let name = pi.ident.to_string();
        if !may_read_state && text.is_some_and(|t| !t.contains(name.as_str())) {
            continue;
        }
        let mut walk = Walk::new(cx, false);
        let source = cx.node_range(&pi.ident);
        walk.bind(&name, Some(StateVal { side: Side::Unknown, source, derived: false, via: None }));
        walk.visit_block(body);
        if let Some(op) = walk.ops.into_iter().find(|op| op.kind == OpKind::Decode && !op.derived && op.via.is_none()) {
            return Some(ParamDecode { param: index, range: op.range, what: op.what });
        }
    }
    None
}

/// Walks one function, also for made-up states in requests (`mentions`: it names the state;
/// else only what helpers return is looked at).
fn walk_fn<'c, 'a>(cx: &'c Cx<'a>, sig: &syn::Signature, body: &syn::Block, mentions: bool) -> Walk<'c, 'a> {
    let mut walk = Walk::new(cx, mentions);
    for input in &sig.inputs {
        let syn::FnArg::Typed(t) = input else { continue };
        let ty = t.ty.to_token_stream();
        let ty_name = type_name(&t.ty);
        let side = match ty_name.as_deref() {
            Some("InputRequiredResult" | "CallToolResponse" | "GetPromptResponse" | "ReadResourceResponse") => {
                Some(Side::Client)
            }
            Some("RequestState" | "ToolCallContext") => Some(Side::Server),
            _ => None,
        };
        if tokens_mention(&ty, "RequestState") {
            // rmcp's extractor: `RequestState(state): RequestState` or `rs: RequestState`.
            for (name, range) in pat_idents(cx, &t.pat) {
                walk.bind(&name, Some(StateVal { side: Side::Server, source: range, derived: false, via: None }));
            }
            continue;
        }
        for (name, range) in pat_idents(cx, &t.pat) {
            if let Some(side) = side {
                walk.typed.push((name.clone(), side));
            }
            if name.contains("request_state") {
                walk.bind(&name, Some(StateVal { side: Side::Unknown, source: range, derived: false, via: None }));
            }
        }
    }
    walk.visit_block(body);
    if let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last()
        && let Some(v) = walk.known(tail).filter(|v| !v.derived)
    {
        walk.returns = Some(v.side);
    }
    walk
}

fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => last_ident(&p.path),
        syn::Type::Reference(r) => type_name(&r.elem),
        _ => None,
    }
}

/// The identifiers a pattern binds, with their ranges.
fn pat_idents(cx: &Cx, pat: &Pat) -> Vec<(String, Range<usize>)> {
    struct Idents<'c, 'a> {
        cx: &'c Cx<'a>,
        out: Vec<(String, Range<usize>)>,
    }
    impl<'ast> Visit<'ast> for Idents<'_, '_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.out.push((p.ident.to_string(), self.cx.node_range(&p.ident)));
            visit::visit_pat_ident(self, p);
        }
        // `Some(x)` and `Kind::Variant { a, .. }` bind `x` and `a`, not their paths.
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut v = Idents { cx, out: Vec::new() };
    v.visit_pat(pat);
    v.out
}

pub struct Walk<'c, 'a> {
    cx: &'c Cx<'a>,
    /// Look for made-up states (the client's rule).
    client: bool,
    /// Bindings in order; the latest of a name wins (`None`: a shadowing non-state binding).
    taints: Vec<(String, Option<StateVal>)>,
    /// Parameters whose type tells whose state they hold.
    typed: Vec<(String, Side)>,
    /// Depth of `if`/`match` whose condition looks at the state (a copy inside is conditional).
    guards: usize,
    /// Locals holding a JSON-value read of the state that is `null`/`None` when the result had
    /// none (`let state = result.get("requestState").cloned()`).
    maybe_absent: Vec<String>,
    ops: Vec<Op>,
    invented: Vec<Invented>,
    passes: Vec<StatePass>,
    returns: Option<Side>,
    /// Depth of closures (a `return` there is the closure's).
    closures: usize,
}

impl<'c, 'a> Walk<'c, 'a> {
    fn new(cx: &'c Cx<'a>, client: bool) -> Self {
        Walk {
            cx,
            client,
            taints: Vec::new(),
            typed: Vec::new(),
            guards: 0,
            maybe_absent: Vec::new(),
            ops: Vec::new(),
            invented: Vec::new(),
            passes: Vec::new(),
            returns: None,
            closures: 0,
        }
    }

    /// `state_value`, only when the value surely is the state (not a helper's return value).
    fn known(&self, e: &Expr) -> Option<StateVal> {
        self.state_value(e).filter(|v| v.via.is_none())
    }

    /// The first argument that is the state: one surely, else a helper's return value.
    fn state_arg<'e>(&self, mut args: impl Iterator<Item = &'e Expr> + Clone) -> Option<StateVal> {
        args.clone().find_map(|a| self.known(a)).or_else(|| args.find_map(|a| self.state_value(a)))
    }

    /// What a call of a crate function returns, the state or not (`StateVal::via`).
    fn returned(&self, call: Range<usize>) -> StateVal {
        StateVal { side: Side::Unknown, source: call.clone(), derived: false, via: Some(call) }
    }

    fn bind(&mut self, name: &str, val: Option<StateVal>) {
        self.taints.push((name.to_owned(), val));
    }

    fn bind_pat(&mut self, pat: &Pat, val: Option<StateVal>) {
        for (name, _) in pat_idents(self.cx, pat) {
            self.bind(&name, val.clone());
        }
    }

    fn lookup_known(&self, name: &str) -> bool {
        self.lookup(name).is_some_and(|v| v.via.is_none())
    }

    fn lookup(&self, name: &str) -> Option<StateVal> {
        self.taints.iter().rev().find(|(n, _)| n == name).and_then(|(_, v)| v.clone())
    }

    /// Whose state a read is, from the names on its way (nearest first).
    fn side_of_chain(&self, mut e: &Expr) -> Side {
        loop {
            let name: Option<String> = match e {
                Expr::Field(f) => {
                    let n = match &f.member {
                        Member::Named(i) => Some(i.to_string()),
                        Member::Unnamed(_) => None,
                    };
                    e = &f.base;
                    n
                }
                Expr::Index(i) => {
                    let n = match &*i.index {
                        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                        _ => None,
                    };
                    e = &i.expr;
                    n
                }
                Expr::MethodCall(m) => {
                    let n = match m.args.first() {
                        Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) => Some(s.value()),
                        _ => Some(m.method.to_string()),
                    };
                    e = &m.receiver;
                    n
                }
                Expr::Reference(r) => {
                    e = &r.expr;
                    None
                }
                Expr::Paren(p) => {
                    e = &p.expr;
                    None
                }
                Expr::Try(t) => {
                    e = &t.expr;
                    None
                }
                Expr::Unary(u) => {
                    e = &u.expr;
                    None
                }
                Expr::Path(p) => {
                    let Some(ident) = p.path.get_ident() else { return Side::Unknown };
                    let name = ident.to_string();
                    if let Some((_, side)) = self.typed.iter().rev().find(|(n, _)| *n == name) {
                        return *side;
                    }
                    if let Some(v) = self.lookup(&name) {
                        return v.side;
                    }
                    return side_of_name(&name);
                }
                _ => return Side::Unknown,
            };
            if let Some(n) = name {
                let side = side_of_name(&n);
                if side != Side::Unknown {
                    return side;
                }
            }
        }
    }

    /// The state an expression evaluates to, if it is (a copy of) the state or decoded from it.
    fn state_value(&self, e: &Expr) -> Option<StateVal> {
        match e {
            Expr::Reference(r) => self.state_value(&r.expr),
            Expr::Paren(p) => self.state_value(&p.expr),
            Expr::Group(g) => self.state_value(&g.expr),
            Expr::Try(t) => self.state_value(&t.expr),
            Expr::Unary(u) => self.state_value(&u.expr),
            Expr::Cast(c) => self.state_value(&c.expr),
            Expr::Await(a) => self.state_value(&a.base),
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
            Expr::Field(f) => match &f.member {
                Member::Named(i) if i == "request_state" => Some(self.read(e, &f.base)),
                // `state.0` of the `RequestState` extractor.
                Member::Unnamed(_) => self.state_value(&f.base),
                Member::Named(_) => None,
            },
            Expr::Index(i) => match &*i.index {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if s.value() == "requestState" => {
                    Some(self.read(e, &i.expr))
                }
                _ => None,
            },
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if name == "request_state" && m.args.is_empty() {
                    return Some(self.read(e, &m.receiver));
                }
                if is_state_key_access(m) {
                    return Some(self.read(e, &m.receiver));
                }
                if PRESERVING.contains(&name.as_str()) || DEFAULTING.contains(&name.as_str()) {
                    return self.state_value(&m.receiver);
                }
                if RECEIVER_DECODERS.contains(&name.as_str()) {
                    return self.state_value(&m.receiver).map(derive);
                }
                if is_engine_decode(self.cx, m) {
                    return self.state_arg(m.args.iter()).map(derive);
                }
                let on_self = matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self"));
                on_self.then(|| self.returned(method_call_range(self.cx, m)))
            }
            Expr::Call(c) => {
                if self.decoder_fn(&c.func).is_some() {
                    return self.state_arg(c.args.iter()).map(derive);
                }
                let wraps = matches!(&*c.func, Expr::Path(p) if last_ident(&p.path).is_some_and(|n|
                    matches!(n.as_str(), "Some" | "Ok" | "from")));
                if wraps && c.args.len() == 1 {
                    return self.state_value(&c.args[0]);
                }
                // A function of the crate, maybe (as the model records calls: not `Ok(..)`).
                let Expr::Path(p) = &*c.func else { return None };
                let constructor = p.path.segments.len() == 1
                    && p.path.segments[0].ident.to_string().starts_with(|ch: char| ch.is_ascii_uppercase());
                (p.qself.is_none() && !constructor).then(|| self.returned(super::extract::call_range(self.cx, c, p)))
            }
            _ => None,
        }
    }

    /// A read of the state from `base` (`base.request_state`, `base["requestState"]`).
    fn read(&self, whole: &Expr, base: &Expr) -> StateVal {
        StateVal { side: self.side_of_chain(base), source: self.cx.node_range(whole), derived: false, via: None }
    }

    /// `serde_json::from_str`, `base64::decode`, `bincode::deserialize`: the name for messages.
    fn decoder_fn(&self, func: &Expr) -> Option<String> {
        let Expr::Path(p) = func else { return None };
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let last = segs.last()?;
        let shown = segs.join("::");
        if FN_DECODERS.contains(&last.as_str()) {
            // `String::from_str` copies.
            if segs.len() >= 2 && matches!(segs[segs.len() - 2].as_str(), "String" | "str" | "Cow" | "PathBuf") {
                return None;
            }
            return Some(shown);
        }
        if last == "decode" || last.starts_with("decode_") {
            let encoded = segs[..segs.len() - 1].iter().any(|s| encoding_word(s));
            // A bare `decode(…)` imported from the base64 crate (its 0.1x API).
            // Not one the file defines: the model resolves a call of that (`StatePass`).
            let text = &self.cx.file.text;
            let bare = segs.len() == 1
                && text.contains("base64")
                && !text.contains(&format!("fn {last}("))
                && !text.contains(&format!("fn {last}<"));
            if encoded || bare {
                return Some(shown);
            }
        }
        None
    }

    fn record(&mut self, range: Range<usize>, kind: OpKind, what: String, val: StateVal) {
        let (side, source, derived, via) = (val.side, val.source, val.derived, val.via);
        self.ops.push(Op { range, kind, what, side, source, derived, helper: None, via });
    }

    /// A call that hands the state to another function (`call`: its range as the model's
    /// `CallFact` spans it): resolved by the model (`CrateModel::state_ops`).
    fn pass_on(&mut self, name: &str, args: &[&Expr], call: Range<usize>) {
        for (arg, a) in args.iter().enumerate() {
            if let Some(val) = self.state_value(a) {
                let at = self.ops.len();
                let (call, name) = (call.clone(), name.to_owned());
                self.passes.push(StatePass { call, name, arg, val, at });
            }
        }
    }

    /// Runs `inner` inside an `if`/`match` on `cond`: a guard when `cond` looks at the state
    /// (its key, or a local holding it).
    fn guarded(&mut self, cond: &Expr, inner: impl FnOnce(&mut Self)) {
        let tokens = cond.to_token_stream();
        let g = mentions_state(&tokens)
            || idents_of(&tokens).iter().any(|i| self.lookup_known(i) || self.maybe_absent.contains(i));
        self.guards += usize::from(g);
        inner(self);
        self.guards -= usize::from(g);
    }

    /// A value the client puts into a request's `requestState`: reports made-up ones.
    fn sent_value(&mut self, value: &Expr, range: Range<usize>, in_request: bool) {
        let Some(kind) = self.invention(value) else { return };
        let side = self.state_value(value).map_or(Side::Unknown, |v| v.side);
        self.invent(kind, range, side, in_request);
    }

    fn invent(&mut self, kind: Invention, range: Range<usize>, side: Side, in_request: bool) {
        let (message, label, help) = match kind {
            Invention::Literal => (
                "this request sends a `requestState` the client made up; since MCP 2026-07-28 a retry echoes \
                 the server's `requestState` exactly, and sends none when the server gave none"
                    .to_owned(),
                "made-up `requestState`",
                "copy `requestState` from the `input_required` result this request retries, or leave it out".to_owned(),
            ),
            Invention::Default(how) => (
                format!(
                    "`{how}` sends a `requestState` even when the `input_required` result had none; since MCP \
                     2026-07-28 the client MUST NOT include one then"
                ),
                "made up when the server sent none",
                "include `requestState` only when the result carried one (`if let Some(state) = …`)".to_owned(),
            ),
            Invention::NullWhenAbsent => (
                "this copies `requestState` unconditionally: when the `input_required` result had none, the retry \
                 sends `\"requestState\": null`; since MCP 2026-07-28 the client MUST NOT include one then"
                    .to_owned(),
                "`null` when the result had no `requestState`",
                "add `requestState` to the retry only when the result carried one (`if let Some(state) = \
                 result.get(\"requestState\")`)"
                    .to_owned(),
            ),
            Invention::Rewritten => (
                "this request sends a rewritten `requestState`; since MCP 2026-07-28 the client MUST echo it \
                 byte for byte"
                    .to_owned(),
                "rewritten `requestState`",
                "send the string from the `input_required` result unchanged".to_owned(),
            ),
        };
        self.invented.push(Invented { range, message, label, help, side, in_request });
    }

    /// Whether a value sent as `requestState` is made up, and how.
    fn invention(&self, value: &Expr) -> Option<Invention> {
        let value = peel(value);
        if str_value(self.cx, value).is_some() {
            return Some(Invention::Literal);
        }
        match value {
            Expr::Lit(_) => return Some(Invention::Literal),
            Expr::Macro(m) if last_ident(&m.mac.path).as_deref() == Some("json") => {
                return match syn::parse2::<Expr>(m.mac.tokens.clone()) {
                    Ok(inner) => self.invention(&inner),
                    // `json!(null)`, `json!({…})`: not the server's string either way.
                    Err(_) => Some(Invention::Literal),
                };
            }
            Expr::Macro(m) if last_ident(&m.mac.path).as_deref() == Some("format") => {
                return self.format_rewrites(&m.mac).then_some(Invention::Rewritten);
            }
            Expr::Path(p) if last_ident(&p.path).as_deref() == Some("Null") => return Some(Invention::Literal),
            Expr::Call(c) => {
                if let Expr::Path(p) = &*c.func {
                    let last = last_ident(&p.path).unwrap_or_default();
                    if c.args.is_empty() && matches!(last.as_str(), "new" | "default" | "new_v4" | "new_v7") {
                        return Some(Invention::Literal);
                    }
                    if c.args.len() == 1 && matches!(last.as_str(), "Some" | "String" | "from") {
                        return self.invention(&c.args[0]);
                    }
                }
            }
            Expr::Binary(b)
                if matches!(b.op, syn::BinOp::Add(_))
                    && (self.known(&b.left).is_some() || self.known(&b.right).is_some()) =>
            {
                return Some(Invention::Rewritten);
            }
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if DEFAULTING.contains(&name.as_str()) && self.known(&m.receiver).is_some() {
                    let shown = format!(".{name}(…)");
                    return Some(Invention::Default(if m.args.is_empty() { format!(".{name}()") } else { shown }));
                }
                if m.args.is_empty() && matches!(name.as_str(), "to_string" | "to_owned" | "into" | "clone") {
                    return self.invention(&m.receiver);
                }
            }
            _ => {}
        }
        let absent_local = matches!(value, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.maybe_absent.contains(&i.to_string())));
        if self.guards == 0 && (null_when_absent(value) || absent_local) {
            return Some(Invention::NullWhenAbsent);
        }
        None
    }

    /// Whether a `format!` call builds something other than the state alone from a state.
    fn format_rewrites(&self, mac: &syn::Macro) -> bool {
        let Ok(args) = Punctuated::<Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone()) else {
            return false;
        };
        let mut it = args.iter();
        let Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(fmt), .. })) = it.next() else { return false };
        let fmt = fmt.value();
        let rest: Vec<&Expr> = it.map(|e| if let Expr::Assign(a) = e { &*a.right } else { e }).collect();
        let inline = inline_names(&fmt).iter().any(|n| self.lookup_known(n));
        let uses_state = inline || rest.iter().any(|e| self.known(e).is_some());
        let bare = matches!(fmt.as_str(), "{}" | "{0}")
            || (fmt.starts_with('{')
                && fmt.ends_with('}')
                && inline_names(&fmt).len() == 1
                && !fmt.contains(':')
                && fmt.matches('{').count() == 1);
        uses_state && !bare
    }

    /// `json!` bodies: a request's `requestState` member, then the Rust expressions inside.
    fn json_macro(&mut self, mac: &syn::Macro) {
        let Some(root) = json::macro_body::parse_json_macro(mac.tokens.clone(), &|s| self.cx.span_range(s)) else {
            return;
        };
        let mut members: Vec<(&JsonNode, Range<usize>, bool)> = Vec::new();
        let mut exprs: Vec<TokenStream> = Vec::new();
        let mut objects: Vec<(&JsonNode, Vec<Step>)> = Vec::new();
        json::walk(&root, |node, path| {
            if let JsonKind::Expr(tokens) = &node.kind {
                exprs.push(tokens.clone());
            }
            if node.is_object() {
                objects.push((node, path.to_vec()));
            }
        });
        let in_request = root.get("method").is_some() || objects.iter().any(|(o, _)| o.get("method").is_some());
        for (obj, path) in &objects {
            let Some(m) = obj.member("requestState") else { continue };
            // Only a request's params: beside `inputResponses`, or under `params` of a request.
            let params_of_request =
                path.last() == Some(&Step::Key("params")) && parent_has_method(&root, &path[..path.len() - 1]);
            if obj.get("resultType").is_some() || !(obj.get("inputResponses").is_some() || params_of_request) {
                continue;
            }
            members.push((&m.value, m.range.clone(), in_request));
        }
        if self.client {
            for (value, range, in_request) in members {
                match &value.kind {
                    JsonKind::Expr(tokens) => {
                        if let Ok(e) = syn::parse2::<Expr>(tokens.clone()) {
                            self.sent_value(&e, range, in_request);
                        }
                    }
                    // A JSON literal (`"state-1"`, `null`, an object): not the server's string.
                    _ => self.invent(Invention::Literal, range, Side::Unknown, in_request),
                }
            }
        }
        for tokens in exprs {
            if let Ok(e) = syn::parse2::<Expr>(tokens) {
                self.visit_expr(&e);
            }
        }
    }
}

enum Invention {
    Literal,
    Default(String),
    NullWhenAbsent,
    Rewritten,
}

fn derive(v: StateVal) -> StateVal {
    StateVal { derived: true, ..v }
}

fn side_of_name(name: &str) -> Side {
    let n = name.to_ascii_lowercase();
    if n.contains("request_state") || n == "requeststate" {
        return Side::Unknown;
    }
    if n.contains("result")
        || n.starts_with("resp")
        || n.contains("response")
        || n.contains("reply")
        || n == "res"
        || n == "outcome"
    {
        Side::Client
    } else if n.contains("param")
        || n.starts_with("req")
        || n.contains("request")
        || n == "args"
        || n.contains("argument")
        || n == "ctx"
        || n.contains("context")
    {
        Side::Server
    } else {
        Side::Unknown
    }
}

fn encoding_word(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    ENCODING_WORDS.iter().any(|w| lower.contains(w))
}

/// `STANDARD.decode(x)`, `general_purpose::URL_SAFE_NO_PAD.decode(x)`, `self.engine.decode(x)`.
fn is_engine_decode(cx: &Cx, m: &syn::ExprMethodCall) -> bool {
    let name = m.method.to_string();
    (name == "decode" || name.starts_with("decode_")) && !m.args.is_empty() && {
        let receiver = cx.text(cx.node_range(&*m.receiver));
        encoding_word(receiver)
    }
}

/// `x.get("requestState")`, `x.remove("requestState")`, `x.pointer("/params/requestState")`.
fn is_state_key_access(m: &syn::ExprMethodCall) -> bool {
    let name = m.method.to_string();
    let Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) = m.args.first() else { return false };
    let key = s.value();
    match name.as_str() {
        "get" | "remove" | "get_mut" | "swap_remove" => key == "requestState",
        "pointer" | "pointer_mut" => key.ends_with("/requestState"),
        _ => false,
    }
}

/// A JSON-value read of the state that is `null` (or `None`, serialized as `null`) when the key is
/// absent: `x["requestState"]`, `x.get("requestState")`, `x["requestState"].as_str()`.
fn null_when_absent(e: &Expr) -> bool {
    match peel(e) {
        Expr::Index(i) => {
            matches!(&*i.index, Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if s.value() == "requestState")
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            if is_state_key_access(m) {
                return true;
            }
            matches!(name.as_str(), "clone" | "cloned" | "to_owned" | "as_str" | "to_string" | "as_deref")
                && null_when_absent(&m.receiver)
        }
        _ => false,
    }
}

fn peel(e: &Expr) -> &Expr {
    match e {
        Expr::Reference(r) => peel(&r.expr),
        Expr::Paren(p) => peel(&p.expr),
        Expr::Group(g) => peel(&g.expr),
        e => e,
    }
}

/// The identifiers in a token stream, at any depth.
fn idents_of(tokens: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) => out.push(i.to_string()),
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    out
}

/// `{name}` / `{name:?}` placeholders of a format string.
fn inline_names(fmt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = fmt;
    while let Some(open) = rest.find('{') {
        if rest[open + 1..].starts_with('{') {
            rest = &rest[open + 2..];
            continue;
        }
        let Some(close) = rest[open..].find('}') else { break };
        let inner = &rest[open + 1..open + close];
        let name = inner.split(':').next().unwrap_or("");
        if !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.chars().all(|c| c.is_ascii_digit())
        {
            out.push(name.to_owned());
        }
        rest = &rest[open + close + 1..];
    }
    out
}

fn parent_has_method(root: &JsonNode, path: &[Step]) -> bool {
    let mut node = root;
    for step in path {
        node = match step {
            Step::Key(k) => match node.get(k) {
                Some(n) => n,
                None => return false,
            },
            Step::Index(i) => match node.elements().get(*i) {
                Some(n) => n,
                None => return false,
            },
        };
    }
    node.get("method").is_some()
}

/// A made-up value assigned to a request's state: `params["requestState"] = …`,
/// `map.insert("requestState".into(), …)`, `params.request_state = Some(…)`.
fn assigned_state_target(e: &Expr) -> bool {
    match e {
        Expr::Index(i) => {
            matches!(&*i.index, Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if s.value() == "requestState")
        }
        Expr::Field(f) => matches!(&f.member, Member::Named(i) if i == "request_state"),
        _ => false,
    }
}

/// rmcp's request parameter structs that carry `request_state` (a client's retry).
const RETRY_PARAM_STRUCTS: &[&str] =
    &["CallToolRequestParams", "CallToolRequestParam", "GetPromptRequestParams", "ReadResourceRequestParams"];

impl<'ast> Visit<'ast> for Walk<'_, '_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    // Nested items are fns of their own.
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
            let val = self.state_value(&init.expr);
            // `let state = format!("{prefix}{}", state)`: a rewrite kept for the retry.
            if let (Expr::Macro(m), Pat::Ident(pi)) = (peel(&init.expr), &l.pat)
                && last_ident(&m.mac.path).as_deref() == Some("format")
                && pi.ident.to_string().contains("state")
                && self.format_rewrites(&m.mac)
                && let Some(v) = self.format_state(&m.mac)
            {
                self.record(self.cx.node_range(&init.expr), OpKind::Rewrite, "`format!(…)`".into(), v.clone());
                self.bind_pat(&l.pat, Some(derive(v)));
                return;
            }
            if let Pat::Ident(pi) = &l.pat {
                let name = pi.ident.to_string();
                self.maybe_absent.retain(|n| *n != name);
                if self.guards == 0 && null_when_absent(&init.expr) {
                    self.maybe_absent.push(name);
                }
            }
            self.bind_pat(&l.pat, val);
        } else {
            self.bind_pat(&l.pat, None);
        }
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
        let val = self.state_value(&e.expr);
        self.bind_pat(&e.pat, val);
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.visit_expr(&e.cond);
        self.guarded(&e.cond, |w| {
            w.visit_block(&e.then_branch);
            if let Some((_, els)) = &e.else_branch {
                w.visit_expr(els);
            }
        });
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        self.visit_expr(&e.expr);
        let val = self.state_value(&e.expr);
        self.guarded(&e.expr, |w| {
            for arm in &e.arms {
                w.bind_pat(&arm.pat, val.clone());
                if let Some((_, g)) = &arm.guard {
                    w.visit_expr(g);
                }
                w.visit_expr(&arm.body);
            }
        });
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Some(what) = self.decoder_fn(&c.func)
            && let Some(val) = self.state_arg(c.args.iter())
        {
            self.record(self.cx.node_range(c), OpKind::Decode, format!("`{what}`"), val);
        }
        if let Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            // `helper(…)` or `Self::helper(…)` / `Type::helper(…)`.
            if let Some(last) = segs.last() {
                let args: Vec<&Expr> = c.args.iter().collect();
                self.pass_on(last, &args, super::extract::call_range(self.cx, c, p));
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        if is_engine_decode(self.cx, m)
            && let Some(val) = self.state_arg(m.args.iter())
        {
            let receiver = self.cx.text(self.cx.node_range(&*m.receiver)).split_whitespace().collect::<String>();
            self.record(method_call_range(self.cx, m), OpKind::Decode, format!("`{receiver}.{name}`"), val);
        } else if let Some(val) = self.state_value(&m.receiver) {
            let shown = if m.args.is_empty() { format!("`.{name}()`") } else { format!("`.{name}(…)`") };
            if RECEIVER_DECODERS.contains(&name.as_str()) {
                self.record(method_call_range(self.cx, m), OpKind::Decode, shown, val);
            } else if REWRITERS.contains(&name.as_str()) {
                self.record(method_call_range(self.cx, m), OpKind::Rewrite, shown, val);
            }
        }
        if matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self")) {
            let args: Vec<&Expr> = m.args.iter().collect();
            self.pass_on(&name, &args, method_call_range(self.cx, m));
        }
        // `map.insert("requestState".into(), value)`.
        if self.client
            && name == "insert"
            && m.args.len() == 2
            && str_value(self.cx, &m.args[0]).is_some_and(|(k, _)| k == "requestState")
        {
            let range = method_call_range(self.cx, m);
            self.sent_value(&m.args[1], range, false);
        }
        self.visit_expr(&m.receiver);
        // Closure parameters of `.map(|s| …)` on the state are the state.
        let val = self.state_value(&m.receiver);
        for arg in &m.args {
            if let (Expr::Closure(c), Some(v)) = (arg, &val) {
                for input in &c.inputs {
                    self.bind_pat(input, Some(v.clone()));
                }
            }
            self.visit_expr(arg);
        }
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::AddAssign(_))
            && let Some(val) = self.state_arg([&*b.left, &*b.right].into_iter())
        {
            self.record(self.cx.node_range(b), OpKind::Rewrite, "string concatenation".into(), val);
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if self.client && assigned_state_target(&a.left) {
            let range = self.cx.node_range(a);
            self.sent_value(&a.right, range, false);
        }
        visit::visit_expr_assign(self, a);
        if let Expr::Path(p) = &*a.left
            && let Some(i) = p.path.get_ident()
            && let Some(v) = self.state_value(&a.right)
        {
            self.bind(&i.to_string(), Some(v));
        }
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        if self.client && last_ident(&s.path).is_some_and(|n| RETRY_PARAM_STRUCTS.contains(&n.as_str())) {
            for field in &s.fields {
                if matches!(&field.member, Member::Named(i) if i == "request_state") && field.colon_token.is_some() {
                    let range = self.cx.node_range(field);
                    self.sent_value(&field.expr, range, true);
                }
            }
        }
        visit::visit_expr_struct(self, s);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.closures += 1;
        visit::visit_expr_closure(self, c);
        self.closures -= 1;
    }

    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        if self.closures == 0
            && let Some(v) = r.expr.as_deref().and_then(|e| self.known(e)).filter(|v| !v.derived)
        {
            self.returns = Some(v.side);
        }
        visit::visit_expr_return(self, r);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = last_ident(&m.path).unwrap_or_default();
        if name == "json" {
            self.json_macro(m);
            return;
        }
        if let Some(body) = self.cx.macro_body(m) {
            body.visit(self);
        }
    }
}

impl Walk<'_, '_> {
    /// The state a `format!` uses, if any.
    fn format_state(&self, mac: &syn::Macro) -> Option<StateVal> {
        let args = Punctuated::<Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone()).ok()?;
        let mut it = args.iter();
        let fmt = match it.next()? {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => s.value(),
            _ => return None,
        };
        inline_names(&fmt)
            .iter()
            .find_map(|n| self.lookup(n))
            .or_else(|| it.find_map(|e| self.state_value(if let Expr::Assign(a) = e { &a.right } else { e })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::model_of;

    #[test]
    fn helpers_in_other_modules_decode_verify_and_return_the_state() {
        let model = model_of(&[
            (
                "src/codec.rs",
                "//! requestState codec\npub fn load(raw: &str) -> Option<Value> { serde_json::from_str(raw).ok() }\n\
                 pub fn checked(raw: &str) -> Option<&str> { let mac = Hmac::new(KEY); mac.verify_slice(raw.as_bytes()).ok()?; Some(raw) }\n\
                 pub fn echoed(req: &Value) -> Option<&str> { req[\"params\"][\"requestState\"].as_str() }\n",
            ),
            (
                "src/main.rs",
                "mod codec;\nuse crate::codec::{load, checked};\n\
                 fn plain(req: &Value) { let s = req[\"params\"][\"requestState\"].as_str().unwrap(); load(s); }\n\
                 fn sealed(req: &Value) { let s = req[\"params\"][\"requestState\"].as_str().unwrap(); checked(s); load(s); }\n\
                 fn fetched(req: &Value) { let s = codec::echoed(req).unwrap(); s.parse::<u32>(); }\n\
                 fn other(req: &Value) { let n = codec::load(\"1\"); let t = req_name(req); t.parse::<u32>(); }\n",
            ),
        ]);
        let id = |path: &[&str]| model.fn_by_path(path).unwrap();
        assert_eq!(model.func(id(&["codec", "load"])).values.decodes_param.as_ref().map(|d| d.param), Some(0));
        assert!(model.func(id(&["codec", "checked"])).values.checks_integrity);
        assert_eq!(
            model.func(id(&["codec", "echoed"])).values.request_state.as_ref().unwrap().returns,
            Some(Side::Server)
        );

        let plain = model.state_ops(id(&["plain"]));
        assert_eq!(plain.len(), 1);
        let helper = plain[0].helper.as_ref().unwrap();
        assert_eq!((helper.name.as_str(), plain[0].side), ("load", Side::Server));
        assert_eq!(helper.elsewhere.map(|(file, _)| file), Some(0), "the decoding is in codec.rs");
        assert!(!model.verifies_integrity(id(&["plain"])));
        assert!(model.verifies_integrity(id(&["sealed"])));

        let fetched = model.state_ops(id(&["fetched"]));
        assert_eq!(
            fetched.iter().map(|op| (op.what.as_str(), op.side)).collect::<Vec<_>>(),
            [("`.parse()`", Side::Server)]
        );
        assert!(model.state_ops(id(&["other"])).is_empty(), "no state reaches `other`");
    }
}
