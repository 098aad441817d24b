//! `legacy-error-code`: JSON-RPC error codes that MCP 2026-07-28 retired or renumbered (C19).
//!
//! - `-32002` for a missing resource: now `-32602` (Invalid params, SEP-2164). Safe fix where the
//!   crate is known to serve 2026-07-28 alone; unsafe where it also serves older revisions, which keep
//!   -32002, and where nothing tells.
//! - `-32042` (URL elicitation required): retired, MUST NOT be sent. No fix.
//! - The draft-era numbers `-32001` / `-32003` / `-32004` for HeaderMismatch /
//!   MissingRequiredClientCapability / UnsupportedProtocolVersion: now `-32020` / `-32021` /
//!   `-32022`. Safe fix.
//!
//! `-32001`…`-32004` are popular custom codes (the TypeScript SDK's request timeout is `-32001`),
//! so they fire only when the code around them says what they mean: a message, a const or variant
//! name, the enclosing function's name, or the error's `data` shape (`uri`; `supported` +
//! `requested`; `requiredCapabilities`). `-32042` has no other use and needs no context.
//!
//! Where codes are found: integer literals in function bodies (one body at a time, from
//! `rust_fn`), in `const` / `static` items and enum discriminants (from `rust_file`), and `code`
//! members of error objects in JSON files and `json!` bodies (`json_node`).
//!
//! Receiving is not sending: a client matching `-32002` is fine (legacy servers still send it) as
//! long as it accepts `-32602` too, and handling `-32042` from a legacy server is fine. rmcp (since
//! 1.8) rewrites a handler's `-32002` to `-32602` for 2026-07-28 peers, so `-32002` in rmcp code
//! (outside hand-written `json!` wire bodies) is left alone.

use std::ops::Range;

use syn::visit::{self, Visit};

use crate::context::{Impact, Role, Sdk};
use crate::cx::{Cx, Origin};
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::json::{JsonKind, JsonNode, Step};
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::syntax::{block_text, text_may_mention};

pub struct LegacyErrorCode;

static META: RuleMeta = RuleMeta {
    name: "legacy-error-code",
    summary: "Error codes MCP 2026-07-28 retired or renumbered (-32002 → -32602, -32042, draft-era -32001/-32003/-32004)",
    impact: Impact::Removed,
    // Every finding is one of these codes, written out (with its minus sign) in the file.
    triggers: &["-32001", "-32002", "-32003", "-32004", "-32042"],
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: &[],
    help: None,
    fixable: true,
    doc: include_str!("../../rules/legacy-error-code.md"),
};

/// The most context text read around a literal: a frame larger than this says nothing specific.
const MAX_CONTEXT: usize = 1500;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Code {
    /// -32002, resource not found → -32602.
    ResourceNotFound,
    /// -32042, URL elicitation required: retired.
    UrlElicitation,
    /// -32001 → -32020.
    HeaderMismatch,
    /// -32003 → -32021.
    MissingCapability,
    /// -32004 → -32022.
    UnsupportedVersion,
}

impl Code {
    const ALL: [Code; 5] = [
        Code::ResourceNotFound,
        Code::UrlElicitation,
        Code::HeaderMismatch,
        Code::MissingCapability,
        Code::UnsupportedVersion,
    ];

    fn from_digits(digits: &str) -> Option<Code> {
        Some(match digits {
            "32002" => Code::ResourceNotFound,
            "32042" => Code::UrlElicitation,
            "32001" => Code::HeaderMismatch,
            "32003" => Code::MissingCapability,
            "32004" => Code::UnsupportedVersion,
            _ => return None,
        })
    }

    fn digits(self) -> &'static str {
        match self {
            Code::ResourceNotFound => "32002",
            Code::UrlElicitation => "32042",
            Code::HeaderMismatch => "32001",
            Code::MissingCapability => "32003",
            Code::UnsupportedVersion => "32004",
        }
    }

    /// The 2026-07-28 number, when there is one.
    fn replacement(self) -> Option<&'static str> {
        match self {
            Code::ResourceNotFound => Some("32602"),
            Code::UrlElicitation => None,
            Code::HeaderMismatch => Some("32020"),
            Code::MissingCapability => Some("32021"),
            Code::UnsupportedVersion => Some("32022"),
        }
    }

    fn is_draft(self) -> bool {
        matches!(self, Code::HeaderMismatch | Code::MissingCapability | Code::UnsupportedVersion)
    }

    /// Whether text around the code says it means what this code meant to MCP.
    fn meant_by(self, text: &str) -> bool {
        let w = words(text);
        let has = |p: &str| w.contains(p);
        let any = |ps: &[&str]| ps.iter().any(|p| w.contains(p));
        match self {
            Code::UrlElicitation => true,
            Code::ResourceNotFound => {
                (has(" resource")
                    && any(&[
                        " not found",
                        " no such",
                        " does not exist",
                        " doesn t exist",
                        " missing",
                        " unknown",
                        " nonexistent",
                    ]))
                    || (has(" not found") && has(" uri "))
            }
            Code::HeaderMismatch => {
                has(" header")
                    && any(&[" mismatch", " not match", " doesn t match", " differ", " disagree", " inconsistent"])
            }
            Code::MissingCapability => {
                has(" capabilit")
                    && any(&[" missing", " required", " requires", " not declared", " undeclared", " lack"])
            }
            Code::UnsupportedVersion => {
                (has(" version") && any(&[" unsupported", " not supported"]))
                    || (has(" supported ") && has(" requested "))
            }
        }
    }

    fn meaning(self) -> &'static str {
        match self {
            Code::ResourceNotFound => "resource not found",
            Code::UrlElicitation => "URL elicitation required",
            Code::HeaderMismatch => "header mismatch",
            Code::MissingCapability => "missing required client capability",
            Code::UnsupportedVersion => "unsupported protocol version",
        }
    }
}

/// Text as lower-case words, camelCase and snake_case split, with a space at both ends, so
/// `" not found"` matches `ResourceNotFound`, `RESOURCE_NOT_FOUND` and "Resource not found".
fn words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    out.push(' ');
    let mut prev_lower = false;
    let mut prev_space = true;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                out.push(' ');
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            out.extend(c.to_lowercase());
            prev_space = false;
        } else {
            if !prev_space {
                out.push(' ');
            }
            prev_lower = false;
            prev_space = true;
        }
    }
    if !prev_space {
        out.push(' ');
    }
    out
}

/// Whether a code is being sent (built into an error) or received (matched, compared).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Use {
    Send,
    /// In a pattern (`-32002 =>`), where the fix can widen the pattern.
    Pattern,
    /// In an `==` / `!=` comparison.
    Compare,
}

/// Whether the Rust code at hand is about MCP at all: an MCP SDK, a known role, or MCP named in
/// the file. A JSON-RPC library's own `-32003` is none of this rule's business.
fn mcp_context(cx: &Cx) -> bool {
    if !cx.file_sdks.is_empty() || !cx.crate_ctx.sdks.is_empty() || cx.role() != Role::Unknown {
        return true;
    }
    let t = cx.file.text.as_str();
    t.contains("mcp") || t.contains("Mcp") || t.contains("MCP") || t.contains("modelcontextprotocol")
}

impl Rule for LegacyErrorCode {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        item_codes(cx, &file.items);
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        // Every finding here is a literal of the body with a code's digits as written.
        if !text_may_mention(block_text(cx, f.body), &Code::ALL.map(Code::digits)) {
            return;
        }
        let mut walker = Walker::new(cx);
        walker.fn_name = Some(f.sig.ident.to_string());
        walker.visit_block(f.body);
    }

    fn json_node(&self, cx: &mut Cx, node: &JsonNode, _path: &[Step]) {
        let Some(code_member) = node.member("code") else { return };
        let JsonKind::Number(n) = &code_member.value.kind else { return };
        let Some(digits) = n.strip_prefix('-') else { return };
        let Some(code) = Code::from_digits(digits) else { return };
        // An error object: a message beside the code.
        if node.member("message").is_none() {
            return;
        }
        let range = code_member.value.range.clone();
        // `json!` turns `-32_002` into the number; only the digits as written count.
        if !cx.text(range.clone()).contains(code.digits()) {
            return;
        }
        if cx.origin == Origin::Rust && (cx.role() == Role::Client || cx.quoted() || !mcp_context(cx)) {
            return;
        }
        let context = cx.text(node.range.clone());
        if context.len() > MAX_CONTEXT * 2 || !code.meant_by(context) {
            return;
        }
        let digits_range = digit_range(cx, range, code);
        report(cx, code, Use::Send, digits_range, None);
    }
}

/// `const` / `static` items, enum discriminants and associated consts, at any depth of modules
/// and impls (items inside function bodies are reached by the body walk).
fn item_codes(cx: &mut Cx, items: &[syn::Item]) {
    for item in items {
        match item {
            syn::Item::Const(c) => item_expr(cx, &c.ident, &c.expr),
            syn::Item::Static(s) => item_expr(cx, &s.ident, &s.expr),
            syn::Item::Enum(e) => {
                for v in &e.variants {
                    if let Some((_, expr)) = &v.discriminant {
                        item_expr(cx, &v.ident, expr);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    item_codes(cx, inner);
                }
            }
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Const(c) = it {
                        item_expr(cx, &c.ident, &c.expr);
                    }
                }
            }
            _ => {}
        }
    }
}

fn item_expr(cx: &mut Cx, name: &syn::Ident, expr: &syn::Expr) {
    let mut walker = Walker::new(cx);
    walker.item_name = Some(name.to_string());
    walker.visit_expr(expr);
}

/// A syntax node around a literal whose text may say what the code means.
struct Frame {
    range: Range<usize>,
    /// A statement or match arm: context is not looked for beyond it (except names).
    boundary: bool,
}

/// Walks one function body (or one item's expression) for negative integer literals.
struct Walker<'c, 'a> {
    cx: &'c mut Cx<'a>,
    frames: Vec<Frame>,
    patterns: usize,
    comparisons: usize,
    fn_name: Option<String>,
    item_name: Option<String>,
}

impl<'c, 'a> Walker<'c, 'a> {
    fn new(cx: &'c mut Cx<'a>) -> Self {
        Walker { cx, frames: Vec::new(), patterns: 0, comparisons: 0, fn_name: None, item_name: None }
    }

    fn framed(&mut self, range: Range<usize>, boundary: bool, f: impl FnOnce(&mut Self)) {
        self.frames.push(Frame { range, boundary });
        f(self);
        self.frames.pop();
    }

    /// Whether the code around the literal says it means `code`.
    fn context_says(&self, code: Code) -> bool {
        if self.item_name.as_deref().is_some_and(|n| code.meant_by(n)) {
            return true;
        }
        for frame in self.frames.iter().rev() {
            let text = self.cx.text(frame.range.clone());
            if text.len() > MAX_CONTEXT {
                break;
            }
            if code.meant_by(text) {
                return true;
            }
            if frame.boundary {
                break;
            }
        }
        self.fn_name.as_deref().is_some_and(|n| code.meant_by(n))
    }

    /// The innermost statement or arm, for "does this also accept -32602".
    fn boundary_text(&self) -> &str {
        self.frames.iter().rev().find(|f| f.boundary).map_or("", |f| self.cx.text(f.range.clone()))
    }

    fn literal(&mut self, lit: &syn::LitInt) {
        // In a pattern, syn makes `-32002` one literal token; in an expression the `-` is an operator.
        let digits = lit.base10_digits();
        let Some(code) = Code::from_digits(digits.trim_start_matches('-')) else { return };
        let range = self.cx.node_range(lit);
        // Written with its digits together (`-32_002` is not what the trigger words see), and negative.
        if !self.cx.text(range.clone()).contains(code.digits()) {
            return;
        }
        let minus = if digits.starts_with('-') {
            range.start
        } else {
            let before = self.cx.file.text.get(..range.start).unwrap_or("").trim_end();
            if !before.ends_with('-') {
                return;
            }
            before.len() - 1
        };
        if !mcp_context(self.cx) {
            return;
        }
        let usage = if self.patterns > 0 {
            Use::Pattern
        } else if self.comparisons > 0 {
            Use::Compare
        } else {
            Use::Send
        };
        let client = self.cx.role() == Role::Client;
        match code {
            // Handling it from a legacy server is fine; a client never sends it.
            Code::UrlElicitation if usage != Use::Send || client => return,
            Code::ResourceNotFound => {
                // rmcp's server rewrites -32002 to -32602 for 2026-07-28 peers (SEP-2164, rmcp 1.8).
                if self.cx.uses_sdk(Sdk::Rmcp) && !client {
                    return;
                }
                match usage {
                    Use::Send if client => return,
                    // A server's table of codes to descriptions is not a client accepting errors.
                    Use::Pattern | Use::Compare if !client => return,
                    Use::Pattern | Use::Compare => {
                        let arm = self.boundary_text();
                        if arm.contains("32602") || arm.contains("INVALID_PARAMS") || arm.contains("InvalidParams") {
                            return;
                        }
                    }
                    Use::Send => {}
                }
            }
            _ => {}
        }
        if code != Code::UrlElicitation && !self.context_says(code) {
            return;
        }
        let digits = digit_range(self.cx, range, code);
        report(self.cx, code, usage, digits, Some(minus));
    }
}

impl<'ast> Visit<'ast> for Walker<'_, '_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        // Nested functions are offered to `rust_fn` on their own; a local const is not.
        match item {
            syn::Item::Const(c) => {
                let saved = self.item_name.replace(c.ident.to_string());
                self.visit_expr(&c.expr);
                self.item_name = saved;
            }
            syn::Item::Static(s) => {
                let saved = self.item_name.replace(s.ident.to_string());
                self.visit_expr(&s.expr);
                self.item_name = saved;
            }
            _ => {}
        }
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        let range = self.cx.node_range(s);
        self.framed(range, true, |w| visit::visit_stmt(w, s));
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        let range = self.cx.node_range(arm);
        self.framed(range, true, |w| visit::visit_arm(w, arm));
    }

    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        self.patterns += 1;
        visit::visit_pat(self, p);
        self.patterns -= 1;
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        let compare = matches!(e.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_));
        self.comparisons += compare as usize;
        visit::visit_expr_binary(self, e);
        self.comparisons -= compare as usize;
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        let range = self.cx.node_range(e);
        self.framed(range, false, |w| visit::visit_expr_call(w, e));
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        let range = self.cx.node_range(e);
        self.framed(range, false, |w| visit::visit_expr_method_call(w, e));
    }

    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        let range = self.cx.node_range(e);
        self.framed(range, false, |w| visit::visit_expr_struct(w, e));
    }

    fn visit_expr_tuple(&mut self, e: &'ast syn::ExprTuple) {
        let range = self.cx.node_range(e);
        self.framed(range, false, |w| visit::visit_expr_tuple(w, e));
    }

    fn visit_lit_int(&mut self, lit: &'ast syn::LitInt) {
        self.literal(lit);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        // `json!` bodies are JSON trees, offered to `json_node` by the engine; an assertion states a
        // code (`assert_ne!(code, Some(-32002))`), it does not send one (`rust::quoted`).
        if name == "json" || crate::rust::quoted::is_assertion_macro(&name) {
            return;
        }
        let range = self.cx.node_range(m);
        self.framed(range, false, |w| w.macro_body(&name, m));
    }
}

impl Walker<'_, '_> {
    /// A macro body read as code: `matches!(value, pattern)`, else comma-separated expressions,
    /// else statements (as the engine's visitor reads them).
    fn macro_body(&mut self, name: &str, m: &syn::Macro) {
        use syn::parse::Parser;
        if matches!(name, "matches" | "assert_matches" | "debug_assert_matches") {
            let parser = |input: syn::parse::ParseStream| {
                let value: syn::Expr = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                let rest: proc_macro2::TokenStream = input.parse()?;
                Ok((value, pat, rest))
            };
            if let Ok((value, pat, _)) = parser.parse2(m.tokens.clone()) {
                self.visit_expr(&value);
                self.visit_pat(&pat);
                return;
            }
        }
        if let Some(body) = self.cx.macro_body(m) {
            body.visit(self);
        }
    }
}

/// `-32002` → `-32602`, as safe as the crate's revisions make it: older revisions still say a
/// missing resource is -32002, so where the crate serves them its legacy clients would get another
/// code (a dual-era server chooses the code by the request's revision instead).
fn resource_fix(cx: &Cx, digits: Range<usize>) -> Fix {
    let (applicability, title) = cx.crate_ctx.era.fix_applicability(
        "use -32602",
        "whose clients are told -32002 for a missing resource; send -32602 to 2026-07-28 requests only",
        "which say -32002 for a missing resource",
    );
    Fix { title, applicability, edits: vec![Edit::replace(digits, "32602")] }
}

/// The range of the code's digits inside a literal (`32002` in `-32002i32`).
fn digit_range(cx: &Cx, lit: Range<usize>, code: Code) -> Range<usize> {
    let at = cx.text(lit.clone()).find(code.digits()).unwrap_or(0);
    lit.start + at..lit.start + at + code.digits().len()
}

/// Reports a code. `digits` covers the number's digits; `minus` is the `-` before them in Rust
/// (the primary span runs from it), `None` in JSON where the number token includes it.
fn report(cx: &mut Cx, code: Code, usage: Use, digits: Range<usize>, minus: Option<usize>) {
    let start = minus.unwrap_or_else(|| digits.start.saturating_sub(1));
    let range = start..digits.end;
    let old = code.digits();
    match (code, usage) {
        (Code::UrlElicitation, _) => {
            cx.report(
                &META,
                range,
                "error code -32042 (URL elicitation required) was retired in MCP 2026-07-28 and must not be sent",
                "retired error code",
            )
            .help(
                "ask for the URL interaction in the result instead: return an `input_required` result whose input \
                 request is a URL-mode `elicitation/create` (MRTR), and read the outcome from the retry",
            );
        }
        (Code::ResourceNotFound, Use::Pattern | Use::Compare) => {
            let d = cx.report(
                &META,
                range.clone(),
                "only -32002 is treated as \"resource not found\": MCP 2026-07-28 servers answer a missing resource \
                 with -32602 (Invalid params)",
                "misses -32602",
            );
            d.help("accept -32602 as well (servers on older revisions still send -32002)");
            if usage == Use::Pattern {
                d.fix(Fix {
                    title: "also match -32602".into(),
                    applicability: Applicability::Unsafe,
                    edits: vec![Edit::replace(range.end..range.end, " | -32602")],
                });
            }
        }
        (Code::ResourceNotFound, Use::Send) => {
            let fix = resource_fix(cx, digits);
            cx.report(
                &META,
                range,
                "error code -32002 for a missing resource was retired in MCP 2026-07-28: a missing resource is -32602 \
                 (Invalid params)",
                "retired error code",
            )
            .help("send -32602; clients keep accepting -32002 from servers on older revisions")
            .fix(fix);
        }
        (_, _) => {
            debug_assert!(code.is_draft());
            let new = code.replacement().unwrap_or_default();
            cx.report(
                &META,
                range,
                format!(
                    "-{old} is the draft-era number of the {} error; MCP 2026-07-28 renumbered it to -{new}",
                    code.meaning()
                ),
                format!("draft-era code for {}", code.meaning()),
            )
            .help(format!(
                "use -{new}: peers on 2026-07-28 do not know -{old} (the codes were renumbered before the release)"
            ))
            .fix(Fix {
                title: format!("use -{new}"),
                applicability: Applicability::Safe,
                edits: vec![Edit::replace(digits, new)],
            });
        }
    }
}

#[cfg(test)]
mod tests {

    use crate::context::{CrateContext, Era, EraDecision};
    use crate::diagnostic::{Applicability, Diagnostic};

    fn findings(name: &str, text: &str) -> Vec<Diagnostic> {
        crate::rules::test_support::diagnostics_of("legacy-error-code", name, text)
    }

    fn spans(name: &str, text: &str) -> Vec<String> {
        findings(name, text).iter().map(|d| text[d.range.clone()].to_owned()).collect()
    }

    /// The findings in a crate of the given era (`findings` takes the era of the crate around
    /// the test, this repository's).
    fn findings_in(era: Era, name: &str, text: &str) -> Vec<Diagnostic> {
        let file = crate::source::SourceFile::new(name.into(), name.into(), text.to_owned());
        let krate = CrateContext { era: EraDecision { era, reason: "the era's reason".into() }, ..Default::default() };
        let scan =
            crate::prefilter::Prefilter::every_rule().scan(text.as_bytes(), crate::source::FileKind::of(name.as_ref()));
        crate::rules::test_support::check_file(&file, &krate, &scan.active, scan.role)
            .into_iter()
            .filter(|d| d.rule == "legacy-error-code")
            .collect()
    }

    /// `text` with the safe fixes applied, in a crate that targets 2026-07-28.
    fn fixed(name: &str, text: &str) -> String {
        crate::rules::test_support::with_fixes(text, findings_in(Era::Modern, name, text), false)
    }

    #[test]
    fn words_split_names() {
        assert_eq!(super::words("RESOURCE_NOT_FOUND"), " resource not found ");
        assert_eq!(super::words("ResourceNotFound(uri)"), " resource not found uri ");
        assert_eq!(super::words("\"doesn't match\""), " doesn t match ");
    }

    #[test]
    fn hand_rolled_server_codes() {
        let text = "const RESOURCE_NOT_FOUND: i64 = -32002;\n\
                    const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32004;\n\
                    const REQUEST_TIMEOUT: i64 = -32001;\n\
                    fn err(uri: &str) -> serde_json::Value { rpc_error(-32002, format!(\"Resource not found: {uri}\")) }\n\
                    fn mcp_header(h: &str) -> RpcError { RpcError::new(-32001, \"Mcp-Method header does not match the body\") }\n";
        assert_eq!(spans("server.rs", text), ["-32002", "-32004", "-32002", "-32001"]);
        let after = fixed("server.rs", text);
        assert!(after.contains("RESOURCE_NOT_FOUND: i64 = -32602;"), "{after}");
        assert!(after.contains("VERSION: i64 = -32022;"), "{after}");
        assert!(after.contains("TIMEOUT: i64 = -32001;"), "{after}");
        assert!(after.contains("RpcError::new(-32020,"), "{after}");
    }

    #[test]
    fn custom_codes_without_meaning_are_silent() {
        let text = "// mcp server\nconst TOOL_FAILED: i32 = -32001;\nconst VALIDATION: i32 = -32003;\n\
                    fn f() -> E { E::new(-32004, \"timeout\") }\n";
        assert!(spans("lib.rs", text).is_empty());
        // No MCP in sight: a JSON-RPC library's codes.
        assert!(spans("lib.rs", "const CAPABILITY_MISSING: i32 = -32003;\n").is_empty());
    }

    #[test]
    fn rmcp_rewrites_resource_not_found() {
        let text = "use rmcp::model::*;\n\
                    fn e() -> ErrorData { ErrorData::new(ErrorCode(-32002), \"resource not found\", None) }\n\
                    fn v() -> ErrorData { ErrorData::new(ErrorCode(-32004), \"unsupported protocol version\", None) }\n";
        assert_eq!(spans("lib.rs", text), ["-32004"]);
    }

    #[test]
    fn client_matches() {
        let text = "use some_mcp::RoleClient;\n\
                    fn f(code: i64, r: RoleClient) -> E { match code {\n\
                      -32002 => E::ResourceNotFound,\n\
                      -32042 => E::UrlRequired,\n\
                      -32004 => E::UnsupportedVersion,\n\
                      _ => E::Other } }\n\
                    fn g(code: i64, r: RoleClient) -> bool { matches!(code, -32002 | -32602) }\n";
        assert_eq!(spans("client.rs", text), ["-32002", "-32004"]);
        let d = &findings("client.rs", text)[0];
        let fix = d.fix.as_ref().unwrap();
        assert_eq!(fix.applicability, Applicability::Unsafe);
        let mut widened = text.to_owned();
        widened.replace_range(fix.edits[0].byte_range.clone(), &fix.edits[0].replacement);
        assert!(widened.contains("\n-32002 | -32602 => E::ResourceNotFound,"), "{widened}");
        assert!(fixed("client.rs", text).contains("-32022 => E::UnsupportedVersion"));
    }

    #[test]
    fn json_error_objects() {
        let text = "{\"jsonrpc\": \"2.0\", \"id\": 4, \"error\": {\"code\": -32002, \"message\": \"Resource not found\", \"data\": {\"uri\": \"file:///a\"}}}\n\
                    {\"jsonrpc\": \"2.0\", \"id\": 5, \"error\": {\"code\": -32004, \"message\": \"Unsupported\", \"data\": {\"supported\": [\"2026-07-28\"], \"requested\": \"1\"}}}\n\
                    {\"jsonrpc\": \"2.0\", \"id\": 6, \"error\": {\"code\": -32042, \"message\": \"URL elicitation required\"}}\n\
                    {\"jsonrpc\": \"2.0\", \"id\": 7, \"error\": {\"code\": -32001, \"message\": \"Request timed out\"}}\n";
        assert_eq!(spans("t.jsonl", text), ["-32002", "-32004", "-32042"]);
        let after = fixed("t.jsonl", text);
        assert!(after.contains("\"code\": -32602"), "{after}");
        assert!(after.contains("\"code\": -32022"), "{after}");
        assert!(after.contains("\"code\": -32042"), "{after}");
    }

    #[test]
    fn a_missing_resource_code_is_safely_renumbered_only_for_a_crate_of_2026_07_28_alone() {
        let text = "// the MCP server's error codes\npub const RESOURCE_NOT_FOUND: i32 = -32002;\n";
        let fix_of = |era: Era| {
            let fix = findings_in(era, "lib.rs", text).into_iter().find_map(|d| d.fix).expect("a fix");
            (fix.applicability, fix.title)
        };
        assert_eq!(fix_of(Era::Modern), (Applicability::Safe, "use -32602".to_owned()));
        for (era, says) in [(Era::Dual, "also serves revisions before"), (Era::Legacy, "only revisions before")] {
            let (applicability, title) = fix_of(era);
            assert_eq!(applicability, Applicability::Unsafe, "{era:?}");
            assert!(title.contains(says) && title.contains("the era's reason"), "{title}");
        }
        // Nothing tells: maybe a legacy crate, whose clients are told -32002.
        let (applicability, title) = fix_of(Era::Unknown);
        assert_eq!(applicability, Applicability::Unsafe);
        assert!(title.contains("nothing tells whether") && title.contains("-32002"), "{title}");
    }

    #[test]
    fn json_macro_in_rust() {
        let text = "use rmcp::model::*;\n\
                    fn e(id: u64) -> serde_json::Value { serde_json::json!({\"id\": id, \"error\": {\"code\": -32002, \"message\": \"no such resource\"}}) }\n";
        assert_eq!(spans("lib.rs", text), ["-32002"]);
    }
}
