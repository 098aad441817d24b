//! `request-state-tampering`: a client that parses, decodes or rewrites the `requestState` of an
//! `input_required` result, or sends one the server never gave. Since MCP 2026-07-28 the client
//! echoes `requestState` byte for byte in the retry if and only if the server sent one, and MUST NOT
//! inspect it (C07).
//!
//! Rust (client and unknown-role code; one walk per fn that mentions `requestState`, see `flow`):
//! - decoding or parsing the state (`serde_json::from_str`, a base64 engine's `decode`, `.parse()`,
//!   `.split_once(…)`, a helper fn of the file that does so) and rewriting it (`.replace(…)`,
//!   `.trim()`, `push_str`, `+`, a `format!` with more than the state);
//! - a retry that sends a state of its own: a literal, a default when the result had none
//!   (`.unwrap_or_default()`), or a JSON-value read (`result["requestState"]`, `.get("requestState")`)
//!   copied unconditionally, which sends `null` when the result carried none.
//!
//! In unknown-role code a state counts as the client's when it is read from a result (`resp`,
//! `result`, `InputRequiredResult`); one read from a request's params is the server's (see
//! `unprotected-request-state`).
//!
//! JSON transcripts: a retry whose `params.requestState` differs from the `requestState` of the
//! `input_required` result it answers, or that carries one when that result had none.
//!
//! The `flow` module is shared with `unprotected-request-state`, which looks at the server's side of
//! the same value.

use std::collections::HashMap;

use crate::context::{Impact, Role};
use crate::cx::Cx;
use crate::json::JsonNode;
use crate::json::jsonrpc::{MessageKind, Sender, TranscriptMessage, is_input_required_result};
use crate::rules::{FnRef, Rule, RuleMeta};

pub struct RequestStateTampering;

const HELP: &str = "treat `requestState` as opaque: copy the string from the `input_required` result into the retry's \
     `params.requestState` unchanged, and leave it out when the result had none";

static META: RuleMeta = RuleMeta {
    name: "request-state-tampering",
    summary: "A client parses, decodes or rewrites `requestState`, or sends one the server never gave",
    impact: Impact::Violation,
    // Every finding is about the state itself: its JSON key or one of the SDK spellings.
    triggers: &["requestState", "request_state", "\\bRequestState"],
    json_triggers: &[],
    mcp_triggers: &[],
    help: Some(HELP),
    fixable: false,
    doc: include_str!("../../rules/request-state-tampering.md"),
};

impl Rule for RequestStateTampering {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        flow::prepare_helpers(cx, file);
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        let role = cx.role();
        if !flow::fn_mentions_state(cx, f) || (role == Role::Unknown && !flow::mcp_context(cx)) {
            return;
        }
        let (ops, invented) = flow::walk_fn(cx, f, true).into_parts();
        // `unprotected-request-state` runs next on this fn and needs the same operations.
        flow::keep_ops(cx, f, &ops);
        // In unknown-role code only a state read from a result is surely the client's; in a server,
        // only that (a proxy relaying an upstream server's state).
        let ours = |side: flow::Side| role == Role::Client || side == flow::Side::Client;
        let ops: Vec<&flow::Op> = ops.iter().filter(|op| ours(op.side)).collect();
        let invented: Vec<flow::Invented> = invented
            .into_iter()
            .filter(|i| role == Role::Client || i.side == flow::Side::Client || (role != Role::Server && i.in_request))
            .collect();
        if let Some(first) = ops.iter().find(|op| !op.derived).or(ops.first()) {
            let verb = match first.kind {
                flow::OpKind::Decode => "decodes",
                flow::OpKind::Rewrite => "rewrites",
            };
            let message = format!(
                "this client {verb} `requestState` ({}); since MCP 2026-07-28 clients MUST NOT inspect or change it",
                first.what
            );
            let d = cx.report(&META, first.range.clone(), message, format!("{verb} the server's opaque state"));
            d.label(first.source.clone(), "`requestState` read here");
            if let Some((call, name)) = &first.helper_call {
                d.label(call.clone(), format!("passed to `{name}` here"));
            }
            for op in ops.iter().filter(|op| !std::ptr::eq(**op, *first)).take(3) {
                d.label(op.range.clone(), format!("and {}", op.what));
            }
        }
        for i in invented {
            cx.report(&META, i.range, i.message, i.label).help(i.help);
        }
    }

    fn transcript(&self, cx: &mut Cx, messages: &[TranscriptMessage]) {
        /// An `input_required` result not yet answered by a retry.
        struct Pending<'a> {
            method: &'a str,
            target: Option<&'a str>,
            state: Option<&'a JsonNode>,
            result: &'a JsonNode,
        }
        let mut pending: Vec<Pending> = Vec::new();
        // The latest client request per id: (method, target).
        let mut requests: HashMap<String, (&str, Option<&str>)> = HashMap::new();
        for m in messages {
            match m.kind {
                MessageKind::Request { method, id, .. } if m.sender != Sender::Server => {
                    let params = m.message.get("params");
                    let target = params.and_then(target_of);
                    if let Some(key) = id.scalar_key() {
                        requests.insert(key, (method, target));
                    }
                    let Some(params) = params else { continue };
                    let retry_state = params.member("requestState");
                    if params.get("inputResponses").is_none() && retry_state.is_none() {
                        continue;
                    }
                    // The latest unanswered `input_required` of the same call.
                    let Some(i) = pending.iter().rposition(|p| {
                        p.method == method && (p.target.is_none() || target.is_none() || p.target == target)
                    }) else {
                        continue;
                    };
                    let p = pending.remove(i);
                    let Some(sent) = retry_state else { continue };
                    match p.state {
                        Some(given) if given.as_str().is_some() && given.as_str() == sent.value.as_str() => {}
                        Some(given) => {
                            let how = if sent.value.as_str().is_some() {
                                "differs from the `requestState` of the `input_required` result it answers"
                            } else {
                                "is not the string the server sent (it was parsed or replaced)"
                            };
                            cx.report(
                                &META,
                                sent.value.range.clone(),
                                format!(
                                    "this `{method}` retry's `requestState` {how}; since MCP 2026-07-28 the client MUST echo \
                                     it byte for byte"
                                ),
                                "changed `requestState`",
                            )
                            .label(given.range.clone(), "the server sent this");
                        }
                        None => {
                            cx.report(
                                &META,
                                sent.range.clone(),
                                format!(
                                    "this `{method}` retry sends a `requestState`, but the `input_required` result it \
                                     answers had none; since MCP 2026-07-28 the client MUST NOT include one then"
                                ),
                                "`requestState` the server never sent",
                            )
                            .label(p.result.range.clone(), "this result has no `requestState`");
                        }
                    }
                }
                MessageKind::Response { id, result: Some(result), .. } if m.sender != Sender::Client => {
                    if !is_input_required_result(result) {
                        continue;
                    }
                    let Some(&(method, target)) = id.scalar_key().and_then(|k| requests.get(&k)) else { continue };
                    pending.push(Pending { method, target, state: result.get("requestState"), result });
                }
                _ => {}
            }
        }
    }
}

/// What a call is about: the tool or prompt name, or the resource URI (so a retry is matched to
/// the result of the same call when calls interleave).
fn target_of(params: &JsonNode) -> Option<&str> {
    params.get("name").or_else(|| params.get("uri")).and_then(JsonNode::as_str)
}

/// The analysis of one fn's handling of `requestState`, shared by `request-state-tampering` (the
/// client's side) and `unprotected-request-state` (the server's side).
///
/// A walk of the fn body tracks which values are the state: reads of it (`x.request_state`,
/// `x["requestState"]`, `x.get("requestState")`, rmcp's `RequestState(s)` extractor, parameters named
/// `request_state`), and locals bound from them through value-preserving steps (`&`, `?`, `.clone()`,
/// `.as_deref()`, `.unwrap()`, `Some(..)`, `if let`, `match`, closure parameters of `.map(…)`), or
/// through a decoding (then the value is "derived"). It records the operations applied to the state
/// (`Op`) and, for clients, the states a request makes up (`Invented`). Each read of the state gets a
/// side from the names on its way (`resp["result"]`: the client's; `req.params`, `RequestState`: the
/// server's), which decides whose rule it is in unknown-role code.
pub(crate) mod flow {
    use std::collections::HashMap;
    use std::ops::Range;

    use proc_macro2::{TokenStream, TokenTree};
    use quote::ToTokens;
    use syn::parse::Parser;
    use syn::punctuated::Punctuated;
    use syn::visit::{self, Visit};
    use syn::{Expr, Lit, Member, Pat};

    use crate::cx::Cx;
    use crate::json::{self, JsonKind, JsonNode, Step};
    use crate::rules::FnRef;
    use crate::rust::syntax::{
        block_text, fn_text, last_ident, method_call_range, str_value, text_may_mention, tokens_mention,
        tokens_mention_any,
    };

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
        /// The decoding or rewriting expression (for a helper, the decoding inside it).
        pub range: Range<usize>,
        pub kind: OpKind,
        /// For messages: "`serde_json::from_str`", "`.replace(…)`".
        pub what: String,
        pub side: Side,
        /// Where the state was read.
        pub source: Range<usize>,
        /// The input was already decoded (a later step of the same decoding).
        pub derived: bool,
        /// For a decoding inside a helper fn: the call that passes the state, and the helper's name.
        pub helper_call: Option<(Range<usize>, String)>,
    }

    /// A state a client request makes up.
    #[derive(Debug)]
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
    struct StateVal {
        side: Side,
        source: Range<usize>,
        derived: bool,
    }

    /// A fn of the file that decodes one of its parameters with no integrity check.
    #[derive(Clone, Debug)]
    pub(crate) struct Helper {
        /// Index among the parameters other than `self`.
        param: usize,
        /// `self.name(…)` rather than `name(…)` / `Type::name(…)`.
        method: bool,
        decode: Range<usize>,
        what: String,
    }

    #[derive(Default)]
    pub(crate) struct Helpers {
        ready: bool,
        by_name: HashMap<String, Helper>,
    }

    /// Names whose presence in a fn says its `requestState` is integrity-checked there: an HMAC or
    /// AEAD, a signature, rmcp's `RequestStateCodec`, a `verify…` step (lowercase substrings).
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
    pub fn mcp_context(cx: &Cx) -> bool {
        !cx.file_sdks.is_empty() || !cx.crate_ctx.sdks.is_empty() || MCP_WORDS.iter().any(|w| cx.file.text.contains(w))
    }

    /// What both rules ask about the fn at hand, found once: the visitor runs every rule on a fn
    /// before the next fn, so `unprotected-request-state` reuses what `request-state-tampering`
    /// found just before. The fn is known by its nodes' addresses (stable while the rules run on
    /// it) and its body's range.
    #[derive(Default)]
    pub(crate) struct FnFacts {
        key: Option<FnKey>,
        mentions: bool,
        /// The signature and body printed to tokens, where `fn_mentions_state` printed them.
        sig_tokens: Option<TokenStream>,
        body_tokens: Option<TokenStream>,
        /// The operations of the walk of the fn, once walked.
        ops: Option<Vec<Op>>,
    }

    type FnKey = (usize, usize, Range<usize>);

    fn fn_key(cx: &Cx, f: &FnRef) -> FnKey {
        (std::ptr::from_ref(f.sig) as usize, std::ptr::from_ref(f.body) as usize, cx.block_range(f.body))
    }

    /// The facts found for this fn, if they are the latest.
    fn facts<'c>(cx: &'c Cx, f: &FnRef) -> Option<&'c FnFacts> {
        cx.state_ref::<FnFacts>().filter(|m| m.key.as_ref() == Some(&fn_key(cx, f)))
    }

    /// Whether a fn mentions `requestState` at all (its key, a field, the extractor).
    pub fn fn_mentions_state(cx: &mut Cx, f: &FnRef) -> bool {
        if let Some(m) = facts(cx, f) {
            let mentions = m.mentions;
            debug_assert_eq!(mentions, fn_mentions_state_uncached(cx, f).0);
            return mentions;
        }
        let (mentions, sig_tokens, body_tokens) = fn_mentions_state_uncached(cx, f);
        *cx.state::<FnFacts>() = FnFacts { key: Some(fn_key(cx, f)), mentions, sig_tokens, body_tokens, ops: None };
        mentions
    }

    /// `fn_mentions_state`, with the signature and body as printed for it.
    fn fn_mentions_state_uncached(cx: &Cx, f: &FnRef) -> (bool, Option<TokenStream>, Option<TokenStream>) {
        // What `mentions_state` looks for, as it reads in the source.
        if !text_may_mention(fn_text(cx, f.sig, f.body), &["request_state", "RequestState", "requestState"]) {
            return (false, None, None);
        }
        let sig = f.sig.to_token_stream();
        if mentions_state(&sig) {
            return (true, Some(sig), None);
        }
        let body = f.body.to_token_stream();
        (mentions_state(&body), Some(sig), Some(body))
    }

    /// The operations `walk_fn` finds in a fn (they do not depend on `client`), from the latest
    /// walk of this fn when there was one.
    pub fn fn_ops(cx: &mut Cx, f: &FnRef) -> Vec<Op> {
        if let Some(ops) = cx.state::<FnFacts>().ops.take() {
            // `ops` is only set beside the key of the fn it was found for.
            if facts(cx, f).is_some() {
                debug_assert_eq!(ops, walk_fn(cx, f, false).ops);
                return ops;
            }
        }
        walk_fn(cx, f, false).ops
    }

    /// Keeps the operations of a walk of this fn for `fn_ops`.
    pub fn keep_ops(cx: &mut Cx, f: &FnRef, ops: &[Op]) {
        if facts(cx, f).is_some() {
            cx.state::<FnFacts>().ops = Some(ops.to_vec());
        }
    }

    pub(crate) fn mentions_state(tokens: &TokenStream) -> bool {
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

    /// Whether a fn checks integrity (see `INTEGRITY_WORDS`, `SEAL_METHODS`).
    pub fn has_integrity_check(cx: &Cx, f: &FnRef) -> bool {
        if !integrity_may_be_in(fn_text(cx, f.sig, f.body)) {
            return false;
        }
        // The tokens `fn_mentions_state` printed, where it did.
        let printed = facts(cx, f);
        let sig = printed.and_then(|m| m.sig_tokens.clone()).unwrap_or_else(|| f.sig.to_token_stream());
        integrity_in(&sig)
            || integrity_in(&printed.and_then(|m| m.body_tokens.clone()).unwrap_or_else(|| f.body.to_token_stream()))
    }

    /// Whether `integrity_in` can find anything in tokens cut from this text: the words it looks
    /// for, compared as it compares them.
    fn integrity_may_be_in(text: Option<&str>) -> bool {
        let Some(text) = text else { return true };
        let lower = text.to_ascii_lowercase();
        INTEGRITY_WORDS.iter().chain(&["mac"]).any(|w| lower.contains(w))
            || SEAL_METHODS.iter().any(|w| text.contains(w))
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

    /// Finds the file's helper fns that decode a parameter with no integrity check, once per file.
    pub fn prepare_helpers(cx: &mut Cx, file: &syn::File) {
        if cx.state_ref::<Helpers>().is_some_and(|h| h.ready) {
            return;
        }
        let mut found: HashMap<String, Helper> = HashMap::new();
        for item in &file.items {
            match item {
                syn::Item::Fn(f) => helper_of(cx, &f.sig, &f.block, false, &mut found),
                syn::Item::Impl(i) => {
                    for it in &i.items {
                        if let syn::ImplItem::Fn(f) = it {
                            let method = f.sig.receiver().is_some();
                            helper_of(cx, &f.sig, &f.block, method, &mut found);
                        }
                    }
                }
                _ => {}
            }
        }
        let h = cx.state::<Helpers>();
        h.ready = true;
        h.by_name = found;
    }

    fn helper_of(cx: &Cx, sig: &syn::Signature, body: &syn::Block, method: bool, out: &mut HashMap<String, Helper>) {
        let params: Vec<&syn::PatType> = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(t),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        // Only a parameter bound to a name is walked: a fn with none (`&self` alone) is no helper.
        if !params.iter().any(|p| matches!(&*p.pat, Pat::Ident(_))) {
            return;
        }
        let decoders = || FN_DECODERS.iter().chain(RECEIVER_DECODERS).chain(&["decode"]);
        // Every fn of the file comes here: the text test spares printing most bodies to tokens.
        let text = block_text(cx, body);
        if text.is_some_and(|text| !decoders().any(|w| text.contains(w))) {
            return;
        }
        let body_tokens = body.to_token_stream();
        let decodes = tokens_mention_any(&body_tokens, &decoders().copied().collect::<Vec<_>>());
        if !decodes {
            return;
        }
        // Reading the tokens for integrity words only where the fn's text has one.
        let integrity = || integrity_in(&body_tokens) || integrity_in(&sig.to_token_stream());
        if integrity_may_be_in(fn_text(cx, sig, body)) {
            if integrity() {
                return;
            }
        } else {
            debug_assert!(!integrity());
        }
        // A walk finds a decoding of a parameter through its name, or of a read of the state
        // (`x.request_state`, `x["requestState"]`), whichever parameter is bound. A string escape
        // could spell the key, so a backslash counts as a possible read.
        let may_read_state =
            text.is_none_or(|t| t.contains('\\') || t.contains("request_state") || t.contains("requestState"));
        for (index, p) in params.iter().enumerate() {
            let Pat::Ident(pi) = &*p.pat else { continue };
            let name = pi.ident.to_string();
            let walk = || {
                let mut walk = Walk::new(cx, None, false);
                walk.bind(
                    &name,
                    Some(StateVal { side: Side::Unknown, source: cx.node_range(&pi.ident), derived: false }),
                );
                walk.visit_block(body);
                walk.ops
            };
            let first_decode = |ops: &[Op]| ops.iter().find(|op| op.kind == OpKind::Decode && !op.derived).cloned();
            if !may_read_state && text.is_some_and(|t| !t.contains(name.as_str())) {
                debug_assert_eq!(first_decode(&walk()), None);
                continue;
            }
            if let Some(op) = first_decode(&walk()) {
                out.insert(sig.ident.to_string(), Helper { param: index, method, decode: op.range, what: op.what });
                return;
            }
        }
    }

    /// Walks one fn. `client` also looks for made-up states in requests.
    pub fn walk_fn<'c, 'a>(cx: &'c Cx<'a>, f: &FnRef, client: bool) -> Walk<'c, 'a> {
        let helpers = cx.state_ref::<Helpers>();
        let mut walk = Walk::new(cx, helpers, client);
        for input in &f.sig.inputs {
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
                    walk.bind(&name, Some(StateVal { side: Side::Server, source: range, derived: false }));
                }
                continue;
            }
            for (name, range) in pat_idents(cx, &t.pat) {
                if let Some(side) = side {
                    walk.typed.push((name.clone(), side));
                }
                if name.contains("request_state") {
                    walk.bind(&name, Some(StateVal { side: Side::Unknown, source: range, derived: false }));
                }
            }
        }
        walk.visit_block(f.body);
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
        helpers: Option<&'c Helpers>,
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
        pub ops: Vec<Op>,
        pub invented: Vec<Invented>,
    }

    impl<'c, 'a> Walk<'c, 'a> {
        fn new(cx: &'c Cx<'a>, helpers: Option<&'c Helpers>, client: bool) -> Self {
            Walk {
                cx,
                helpers,
                client,
                taints: Vec::new(),
                typed: Vec::new(),
                guards: 0,
                maybe_absent: Vec::new(),
                ops: Vec::new(),
                invented: Vec::new(),
            }
        }

        pub fn into_parts(self) -> (Vec<Op>, Vec<Invented>) {
            (self.ops, self.invented)
        }

        fn bind(&mut self, name: &str, val: Option<StateVal>) {
            self.taints.push((name.to_owned(), val));
        }

        fn bind_pat(&mut self, pat: &Pat, val: Option<StateVal>) {
            for (name, _) in pat_idents(self.cx, pat) {
                self.bind(&name, val.clone());
            }
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
                        return m.args.iter().find_map(|a| self.state_value(a)).map(derive);
                    }
                    None
                }
                Expr::Call(c) => {
                    if self.decoder_fn(&c.func).is_some() {
                        return c.args.iter().find_map(|a| self.state_value(a)).map(derive);
                    }
                    let wraps = matches!(&*c.func, Expr::Path(p) if last_ident(&p.path).is_some_and(|n|
                        matches!(n.as_str(), "Some" | "Ok" | "from")));
                    if wraps && c.args.len() == 1 { self.state_value(&c.args[0]) } else { None }
                }
                _ => None,
            }
        }

        /// A read of the state from `base` (`base.request_state`, `base["requestState"]`).
        fn read(&self, whole: &Expr, base: &Expr) -> StateVal {
            StateVal { side: self.side_of_chain(base), source: self.cx.node_range(whole), derived: false }
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
                let bare = segs.len() == 1
                    && self.cx.file.text.contains("base64")
                    && !self.helpers.is_some_and(|h| h.by_name.contains_key(last));
                if encoded || bare {
                    return Some(shown);
                }
            }
            None
        }

        fn record(&mut self, range: Range<usize>, kind: OpKind, what: String, val: StateVal) {
            self.ops.push(Op {
                range,
                kind,
                what,
                side: val.side,
                source: val.source,
                derived: val.derived,
                helper_call: None,
            });
        }

        /// A helper fn of the file called with the state.
        fn helper_call(&mut self, name: &str, method: bool, args: &[&Expr], call_range: Range<usize>) {
            let Some(h) = self.helpers.and_then(|h| h.by_name.get(name)).cloned() else { return };
            if h.method != method {
                return;
            }
            let Some(val) = args.get(h.param).and_then(|a| self.state_value(a)) else { return };
            self.ops.push(Op {
                range: h.decode.clone(),
                kind: OpKind::Decode,
                what: format!("{} in `{name}`", h.what),
                side: val.side,
                source: val.source,
                derived: val.derived,
                helper_call: Some((call_range, name.to_owned())),
            });
        }

        /// Runs `inner` inside an `if`/`match` on `cond`: a guard when `cond` looks at the state
        /// (its key, or a local holding it).
        fn guarded(&mut self, cond: &Expr, inner: impl FnOnce(&mut Self)) {
            let tokens = cond.to_token_stream();
            let g = mentions_state(&tokens)
                || idents_of(&tokens).iter().any(|i| self.lookup(i).is_some() || self.maybe_absent.contains(i));
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
                    "copy `requestState` from the `input_required` result this request retries, or leave it out"
                        .to_owned(),
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
                        && (self.state_value(&b.left).is_some() || self.state_value(&b.right).is_some()) =>
                {
                    return Some(Invention::Rewritten);
                }
                Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    if DEFAULTING.contains(&name.as_str()) && self.state_value(&m.receiver).is_some() {
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
            let inline = inline_names(&fmt).iter().any(|n| self.lookup(n).is_some());
            let uses_state = inline || rest.iter().any(|e| self.state_value(e).is_some());
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
                && let Some(val) = c.args.iter().find_map(|a| self.state_value(a))
            {
                self.record(self.cx.node_range(c), OpKind::Decode, format!("`{what}`"), val);
            }
            if let Expr::Path(p) = &*c.func {
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                // `helper(…)` or `Self::helper(…)` / `Type::helper(…)`.
                if let Some(last) = segs.last() {
                    let args: Vec<&Expr> = c.args.iter().collect();
                    self.helper_call(last, false, &args, self.cx.node_range(c));
                }
            }
            visit::visit_expr_call(self, c);
        }

        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let name = m.method.to_string();
            if is_engine_decode(self.cx, m)
                && let Some(val) = m.args.iter().find_map(|a| self.state_value(a))
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
                self.helper_call(&name, true, &args, method_call_range(self.cx, m));
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
                && let Some(val) = self.state_value(&b.left).or_else(|| self.state_value(&b.right))
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
                    if matches!(&field.member, Member::Named(i) if i == "request_state") && field.colon_token.is_some()
                    {
                        let range = self.cx.node_range(field);
                        self.sent_value(&field.expr, range, true);
                    }
                }
            }
            visit::visit_expr_struct(self, s);
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
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::engine::check_text;

    /// (rule, line) of the findings of both `requestState` rules.
    fn found(name: &str, text: &str) -> Vec<(&'static str, usize)> {
        check_text(Path::new(name), text.to_owned())
            .into_iter()
            .filter(|d| d.rule == "request-state-tampering" || d.rule == "unprotected-request-state")
            .map(|d| (d.rule, text[..d.range.start].lines().count().max(1)))
            .collect()
    }

    #[test]
    fn file_open_is_no_integrity_check() {
        let src = r#"use rmcp::handler::server::tool::RequestState;
#[tool_router]
impl S {
    #[tool]
    async fn t(&self, RequestState(state): RequestState) -> String {
        let _f = std::fs::File::open("/tmp/x");
        let n: u32 = state.unwrap_or_default().parse().unwrap_or(0);
        n.to_string()
    }
}
"#;
        assert_eq!(found("x.rs", src), [("unprotected-request-state", 7)]);
    }

    #[test]
    fn helper_method_and_its_verifying_twin() {
        let src = r#"use serde_json::Value; // answers `tools/call` retries
struct S;
impl S {
    fn load(&self, raw: &str) -> Option<Value> {
        serde_json::from_str(raw).ok()
    }
    fn load_checked(&self, raw: &str) -> Option<Value> {
        self.verify_tag(raw)?;
        serde_json::from_str(raw).ok()
    }
    pub fn resume(&self, req: &Value) -> Option<Value> {
        self.load(req["params"]["requestState"].as_str()?)
    }
    pub fn resume_checked(&self, req: &Value) -> Option<Value> {
        self.load_checked(req["params"]["requestState"].as_str()?)
    }
}
"#;
        assert_eq!(found("x.rs", src), [("unprotected-request-state", 5)]);
    }

    #[test]
    fn kept_format_is_a_rewrite_and_a_log_line_is_not() {
        let src = r#"use serde_json::Value; // after an `input_required` result
pub fn next(resp: &Value) -> Option<String> {
    let state = resp["result"]["requestState"].as_str()?;
    tracing::info!("{}", format!("got {state}"));
    let state = format!("v2:{state}");
    Some(state)
}
"#;
        assert_eq!(found("x.rs", src), [("request-state-tampering", 5)]);
    }

    #[test]
    fn proxy_decoding_upstream_state_is_tampering() {
        let src = r#"use rmcp::{RoleServer, ServerHandler};
use rmcp::model::InputRequiredResult;
pub fn relay(upstream: InputRequiredResult, _peer: RoleServer) -> Option<u32> {
    upstream.request_state.as_deref()?.parse().ok()
}
"#;
        assert_eq!(found("x.rs", src), [("request-state-tampering", 4)]);
    }

    #[test]
    fn other_apis_with_a_request_state_field_are_not_mcp() {
        // A job API's `requestState`, parsed into its own enum, in a crate and file with no MCP.
        let src = r#"pub fn poll(response: &serde_json::Value) -> Option<JobState> {
    response["requestState"].as_str()?.parse().ok()
}
"#;
        assert!(found("x.rs", src).is_empty());
    }

    #[test]
    fn ambiguous_state_in_unknown_role_is_left_alone() {
        let src = r#"pub fn restore(request_state: &str) -> serde_json::Value {
    serde_json::from_str(request_state).unwrap()
}
"#;
        assert!(found("x.rs", src).is_empty());
    }

    #[test]
    fn transcript_compares_strings_not_escapes() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let text = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\",{meta}}}}}\n\
             {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"resultType\":\"input_required\",\"requestState\":\"ab\"}}}}\n\
             {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\",\"requestState\":\"a\\u0062\",{meta}}}}}\n"
        );
        assert!(found("t.jsonl", &text).is_empty());
        let changed = text.replace("a\\u0062", "ac");
        assert_eq!(found("t.jsonl", &changed), [("request-state-tampering", 3)]);
    }
}
