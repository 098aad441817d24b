//! `Cx`: what a rule sees of the file being checked, and the one way it reports a finding.

use crate::rust::test_code::TestCode;
use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::context::{CrateContext, Role, Sdk};
use crate::diagnostic::Diagnostic;
use crate::json::JsonNode;
use crate::rules::RuleMeta;
use crate::rust::macro_body::{MacroBodies, MacroBody};
use crate::rust::parse::file_range;
use crate::source::SourceFile;

/// Where the node a rule is looking at came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Rust source (including `json!` bodies, which are Rust files' tokens).
    Rust,
    /// A `.json`, `.jsonc` or `.jsonl` file.
    JsonFile,
}

/// A `json!` body as read: its tree, or `None` when it is not JSON.
type JsonBody = Option<Rc<JsonNode>>;

/// A `Cx::file_fact`, once found.
struct FileFact<T>(Option<T>);

impl<T> Default for FileFact<T> {
    fn default() -> Self {
        FileFact(None)
    }
}

pub struct Cx<'a> {
    pub file: &'a SourceFile,
    pub crate_ctx: &'a CrateContext,
    /// The file's role from its role words (see `context::SERVER_WORDS`).
    pub file_role: Role,
    /// The role of the innermost impl or fn being visited, when it tells one.
    pub scope_role: Role,
    /// The last name of the self type of the impl being visited (what `Self` names there).
    pub impl_self: Option<String>,
    pub origin: Origin,
    /// Bytes before the text the parser saw (a BOM): added to every span's range.
    pub base: usize,
    /// SDKs the file imports (`use rmcp::…`), which can be more precise than the crate's.
    pub file_sdks: Vec<Sdk>,
    /// The file's test code (see `rust::test_code`), found before the rules run.
    pub test_code: TestCode,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Per-file state of rules (see `state`), dropped with the file.
    states: HashMap<TypeId, Box<dyn Any>>,
    macro_bodies: MacroBodies,
    /// `json!` bodies read so far, by the range of their delimiters (see `json_macro`).
    json_bodies: RefCell<HashMap<(usize, usize), JsonBody>>,
    /// How many places that name strings without sending them (`rust::quoted`) enclose the node
    /// being visited; the visitor keeps it.
    pub(crate) quoting: u32,
    /// How many calls that hand a server's message to this process's own handler
    /// (`client.handle_server_request(req)`) enclose the node being visited (`quoted::receives`).
    pub(crate) receiving: u32,
}

impl<'a> Cx<'a> {
    pub fn new(file: &'a SourceFile, crate_ctx: &'a CrateContext, origin: Origin) -> Self {
        Cx {
            file,
            crate_ctx,
            file_role: Role::Unknown,
            scope_role: Role::Unknown,
            impl_self: None,
            origin,
            base: 0,
            file_sdks: Vec::new(),
            test_code: TestCode::default(),
            diagnostics: Vec::new(),
            states: HashMap::new(),
            macro_bodies: MacroBodies::default(),
            json_bodies: RefCell::default(),
            quoting: 0,
            receiving: 0,
        }
    }

    /// Whether the node being visited is named, not sent or handled: in an assertion, a refusing
    /// call's arguments, or a list of what 2026-07-28 removed (`rust::quoted`).
    pub fn quoted(&self) -> bool {
        self.quoting > 0
    }

    /// Whether the node being visited is a message handed to this process's own handler of the
    /// server's messages: received (a client, or its test), not sent.
    pub fn received(&self) -> bool {
        self.receiving > 0
    }

    /// Whether Rust code at `range` is test code (never true in a JSON file).
    pub fn in_test_code(&self, range: &Range<usize>) -> bool {
        self.origin == Origin::Rust && self.test_code.contains(range)
    }

    /// A macro's body read as code (see `rust::macro_body`), parsed once per file.
    pub fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>> {
        // Empty for tokens made in memory (no location).
        self.macro_bodies.get(m, self.span_range(crate::rust::macro_body::delimiters_span(m)))
    }

    /// A `json!` body as a JSON tree (`None` when it is not JSON), read once per file: the
    /// visitor and several rules' walkers ask for the same bodies.
    pub fn json_macro(&self, m: &syn::Macro) -> Option<Rc<JsonNode>> {
        let range = self.span_range(crate::rust::macro_body::delimiters_span(m));
        let read = || crate::json::macro_body::parse_json_macro(m.tokens.clone(), &|s| self.span_range(s)).map(Rc::new);
        if range.is_empty() {
            // Tokens made in memory: nothing to key by.
            return read();
        }
        let key = (range.start, range.end);
        if let Some(root) = self.json_bodies.borrow().get(&key) {
            return root.clone();
        }
        let root = read();
        self.json_bodies.borrow_mut().insert(key, root.clone());
        root
    }

    /// The role of the code at hand: the enclosing impl's or fn's when known, else the file's.
    pub fn role(&self) -> Role {
        if self.scope_role != Role::Unknown { self.scope_role } else { self.file_role }
    }

    /// Whether the code at hand uses this SDK: the file's imports decide when it has any,
    /// else the crate's dependencies.
    pub fn uses_sdk(&self, sdk: Sdk) -> bool {
        if self.file_sdks.is_empty() { self.crate_ctx.uses(sdk) } else { self.file_sdks.contains(&sdk) }
    }

    /// Byte range of a span in the file as read.
    pub fn span_range(&self, span: Span) -> Range<usize> {
        // `Span::byte_range` counts characters from a cached point in a B-tree (a few % of a
        // whole run); where the line is ASCII up to the span, its line and column say the same.
        let fast = self.offset_of(span.start()).zip(self.offset_of(span.end())).map(|(start, end)| start..end);
        let range = fast.unwrap_or_else(|| file_range(span, self.base));
        debug_assert_eq!(range, file_range(span, self.base));
        range
    }

    /// The byte offset of a position the parser gave (1-based line, column in characters of the
    /// text it saw, which starts after a BOM), when the line is ASCII up to it.
    fn offset_of(&self, at: proc_macro2::LineColumn) -> Option<usize> {
        if at.line == 1 && self.base > 0 {
            // The parser's first line starts after the BOM, the file's before it.
            let offset = self.base + at.column;
            let before = self.file.text.as_bytes().get(self.base..offset)?;
            return (before.is_ascii() && !before.contains(&b'\n')).then_some(offset);
        }
        self.file.lines.ascii_offset(at.line.checked_sub(1)?, at.column)
    }

    /// Byte range of a syntax node, from its first token to its last.
    pub fn node_range(&self, node: &impl Spanned) -> Range<usize> {
        self.span_range(node.span())
    }

    /// A block's range from its braces: the same as `node_range(block)` without printing the
    /// whole block to tokens (which `Spanned::span` does).
    pub fn block_range(&self, block: &syn::Block) -> Range<usize> {
        self.span_range(block.brace_token.span.join())
    }

    /// From the start of one span to the end of another.
    pub fn join(&self, first: Span, last: Span) -> Range<usize> {
        self.span_range(first).start..self.span_range(last).end
    }

    pub fn text(&self, range: Range<usize>) -> &'a str {
        self.file.text.get(range).unwrap_or("")
    }

    /// A string literal's value: borrowed from the file where the literal is written plainly
    /// (`"…"` with no escape, no CR, no suffix), else unescaped by syn (`LitStr::value` prints the
    /// token and allocates twice: a few % of a run, where most literals are plain).
    pub fn lit_str_value(&self, lit: &syn::LitStr) -> Cow<'a, str> {
        let written = self.text(self.span_range(lit.span()));
        let plain = crate::rust::syntax::plain_str_literal(written);
        let value = plain.map_or_else(|| Cow::Owned(lit.value()), Cow::Borrowed);
        debug_assert_eq!(value, lit.value());
        value
    }

    /// A fact of the file found once, by the first asker that has the tree (a rule's
    /// `rust_file`), and kept for later askers that have only the `Cx` (a rule's `rust_fn`, the
    /// model's facts, which run after the rules): `known_fact`. Keyed by `T`, so each fact is a
    /// type of its own (`roots::FileFields`, `uri_cuts::SchemeConsts`).
    pub fn file_fact<T: Clone + 'static>(&mut self, find: impl FnOnce(&Self) -> T) -> T {
        if let Some(found) = self.known_fact::<T>() {
            return found;
        }
        let found = find(self);
        self.state::<FileFact<T>>().0 = Some(found.clone());
        found
    }

    /// What `file_fact` found for this file (`None` before it ran).
    pub fn known_fact<T: Clone + 'static>(&self) -> Option<T> {
        self.state_ref::<FileFact<T>>().and_then(|f| f.0.clone())
    }

    /// A rule's state for this file, created on first use: rules are shared by every worker, so
    /// what a rule learns about a file (its consts, its functions) lives here, keyed by type.
    pub fn state<T: Default + 'static>(&mut self) -> &mut T {
        self.states
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()))
            .downcast_mut::<T>()
            .expect("state is keyed by its type")
    }

    /// A rule's state for this file, if it made one.
    pub fn state_ref<T: 'static>(&self) -> Option<&T> {
        self.states.get(&TypeId::of::<T>()).and_then(|b| b.downcast_ref::<T>())
    }

    /// Records a finding (see `finding`).
    pub fn report(
        &mut self,
        rule: &'static RuleMeta,
        range: Range<usize>,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Diagnostic {
        self.diagnostics.push(finding(rule, self.crate_ctx, range, message.into(), label.into()));
        self.diagnostics.last_mut().unwrap()
    }
}

/// A rule's finding as every hook reports it: severity from the crate context, never from the
/// rule; a deprecation's message carries its earliest removal date.
fn finding(
    rule: &'static RuleMeta,
    crate_ctx: &CrateContext,
    range: Range<usize>,
    mut message: String,
    label: String,
) -> Diagnostic {
    if let Some(date) = rule.impact.earliest_removal() {
        message.push_str(&format!(" (deprecated; earliest removal {date})"));
    }
    Diagnostic {
        rule: rule.name,
        severity: crate_ctx.severity_for(rule.impact),
        range,
        message,
        label,
        labels: Vec::new(),
        help: rule.help.map(str::to_owned),
        fix: None,
        fix_elsewhere: Vec::new(),
        note: None,
        in_test: false,
    }
}

/// What a crate-level rule (`Rule::rust_crate`) sees besides the model: the crate's files, and
/// the one way it reports. A finding names its file; the engine then treats it as that file's own
/// (configuration, severity, suppression comments).
pub struct CrateCx<'a> {
    /// The crate context of each file of the model, by `model::FileId` (a file's configuration may
    /// set its own era, so severities are decided per file).
    pub files: Vec<CrateFile<'a>>,
    pub(crate) diagnostics: Vec<(crate::model::FileId, Diagnostic)>,
}

pub struct CrateFile<'a> {
    pub file: &'a SourceFile,
    pub crate_ctx: &'a CrateContext,
}

impl<'a> CrateCx<'a> {
    pub fn new(files: Vec<CrateFile<'a>>) -> Self {
        CrateCx { files, diagnostics: Vec::new() }
    }

    /// Records a finding in file `file`, as `Cx::report` does.
    pub fn report(
        &mut self,
        rule: &'static RuleMeta,
        file: crate::model::FileId,
        range: Range<usize>,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Diagnostic {
        let diagnostic = finding(rule, self.files[file].crate_ctx, range, message.into(), label.into());
        self.diagnostics.push((file, diagnostic));
        &mut self.diagnostics.last_mut().unwrap().1
    }

    /// `path:line` of an offset in a file, for a message that points into another file.
    pub fn place(&self, file: crate::model::FileId, offset: usize) -> String {
        let f = self.files[file].file;
        format!("{}:{}", f.display, f.lines.line_col(&f.text, offset).line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use proc_macro2::{TokenStream, TokenTree};

    /// `span_range` (line and column where the line is ASCII) gives exactly `Span::byte_range`
    /// plus the BOM, for every token of texts with a BOM, a shebang, CRLF and non-ASCII lines.
    #[test]
    fn span_ranges_are_the_parsers_byte_ranges() {
        fn spans(tokens: TokenStream, out: &mut Vec<Span>) {
            for t in tokens {
                out.push(t.span());
                if let TokenTree::Group(g) = t {
                    out.extend([g.span_open(), g.span_close()]);
                    spans(g.stream(), out);
                }
            }
        }
        let texts = [
            "fn f() { let s = \"ünïcode\"; let t = \"roots/list\"; }\r\nfn g() -> u8 { 1 }\n",
            "\u{feff}fn f() { let x = 'é'; x }\nfn g() {}",
            "#!/usr/bin/env rünner\nfn main() { println!(\"ok\"); }\n",
            "\u{feff}#!/bin/x\n// çà\nstruct S; /* ü */ impl S { fn m(&self) -> &str { \"ß\" } }",
        ];
        let ctx = CrateContext::default();
        for text in texts {
            let parsed = crate::rust::parse::parse_rust(text).unwrap();
            let file = SourceFile::new("a.rs".into(), "a.rs".into(), text.to_owned());
            let mut cx = Cx::new(&file, &ctx, Origin::Rust);
            cx.base = parsed.base;
            let mut all = Vec::new();
            spans(quote::ToTokens::to_token_stream(&parsed.file), &mut all);
            assert!(all.len() > 10);
            for span in all {
                assert_eq!(cx.span_range(span), file_range(span, parsed.base), "{text:?}");
            }
            proc_macro2::extra::invalidate_current_thread_spans();
        }
    }

    /// Plain literals are read from the file; escapes, CRs, suffixes and raw strings go to syn.
    #[test]
    fn string_literal_values_are_syns() {
        let text = "fn f() { g(\"é plain\", \"a\\\"b\\n\", \"crlf\r\nline\", \"x\"sfx, r#\"raw \"q\"\"#, \"\"); }";
        let parsed = crate::rust::parse::parse_rust(text).unwrap();
        let file = SourceFile::new("a.rs".into(), "a.rs".into(), text.to_owned());
        let ctx = CrateContext::default();
        let cx = Cx::new(&file, &ctx, Origin::Rust);
        struct Values<'c, 'a>(&'c Cx<'a>, Vec<(String, bool)>);
        impl<'ast> syn::visit::Visit<'ast> for Values<'_, '_> {
            fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
                let value = self.0.lit_str_value(l);
                self.1.push((value.to_string(), matches!(value, Cow::Borrowed(_))));
            }
        }
        let mut values = Values(&cx, Vec::new());
        syn::visit::Visit::visit_file(&mut values, &parsed.file);
        let expected = [
            ("é plain", true),
            ("a\"b\n", false),
            ("crlf\nline", false),
            ("x", false),
            ("raw \"q\"", false),
            ("", true),
        ];
        assert_eq!(values.1, expected.map(|(v, b)| (v.to_owned(), b)));
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}
