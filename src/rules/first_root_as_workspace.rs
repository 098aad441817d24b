//! `first-root-as-workspace`: server code that takes the first of the client's roots
//! (`roots[0]`, `.first()`, `.iter().next()`, `.get(0)`, `[first, ..]`) as "the" workspace.
//!
//! Roots are an unordered set and a client may share several of them (multi-root workspaces are
//! ordinary), so picking the first one makes a tool work in an arbitrary folder: on every MCP
//! revision, not only 2026-07-28.
//!
//! A roots list is recognised by type, field and flow, one function body at a time (see `Flow`):
//! the `roots` field of a `ListRootsResult` (or of a cache of them), `roots_list()` (mcp-attr), a
//! local or parameter named like `roots` or typed `Vec<Root>` / `&[Root]`, `value["roots"]` of an
//! MRTR `inputResponses` answer read back, and anything derived from one element by element
//! (`.iter().map(..)`, `.filter_map(..)`, `.collect()`).
//!
//! Not flagged: `.first().is_some()` / `.is_none()` (an emptiness test), lists whose length the
//! function compares with 1 or 2 (code that handles the several-roots case), `.find(..)` (a choice by
//! a criterion), client code, tests, and files that show no sign of MCP roots (no `list_roots`,
//! `ListRootsResult`, `Vec<Root>`, `inputResponses`, … anywhere), where a `roots` field is more
//! likely a server's own configuration.
//!
//! This file also holds the small flow analysis the three roots rules share (`Flow`, `Walker`):
//! `root-prefix-check` and `root-uri-to-path` use it too.

use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Lit, Pat, Type, UnOp};

use crate::context::{Impact, Role};
use crate::cx::{Cx, Origin};
use crate::rules::{FnRef, Rule, RuleMeta};
use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{fn_text, method_call_range, path_ends_with};

pub struct FirstRootAsWorkspace;

/// Words that show a file deals with MCP roots. A roots list is only trusted as the client's in a
/// file that has one of them (they are the rule's trigger words too).
pub(crate) const ROOTS_EVIDENCE: &[&str] = &ROOTS_WORDS;

/// `ROOTS_EVIDENCE` as an array, for rules whose trigger words add to it (`concat_words`).
pub(crate) const ROOTS_WORDS: [&str; 13] = [
    "list_roots",
    "roots_list",
    "request_root_list",
    "request_client_roots",
    "ListRoots",
    "roots/list",
    "Vec<Root>",
    "[Root]",
    "::Root]",
    "::Root>",
    "inputResponses",
    "InputResponses",
    "input_responses",
];

static META: RuleMeta = RuleMeta {
    name: "first-root-as-workspace",
    summary: "Takes the first of the client's roots as the workspace; roots are unordered and a client may share several",
    impact: Impact::Violation,
    triggers: ROOTS_EVIDENCE,
    json_triggers: &[],
    mcp_triggers: &[],
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

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        FileFacts::compute(cx, file);
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        if !applies(cx, f, &[]) {
            return;
        }
        let fields = root_fields(cx);
        // Every pick reported is of a roots list (`Kind::List`), which needs a sign of roots.
        if !may_hold_roots(fn_text(cx, f.sig, f.body), &fields) {
            return;
        }
        let mut sink = FirstPick { cx, body: f.body, len_checked: None, emptiness_tests: HashSet::new() };
        Walker::run(f, fields, &mut sink);
    }
}

/// What the roots rules learn about a file before its functions are walked: the fields of `self`
/// that hold roots (`*self.folders.write().await = listed.roots…`).
/// Computed once per file, by whichever of the roots rules runs first.
#[derive(Default)]
pub(crate) struct FileFacts {
    computed: bool,
    fields: Vec<(String, Elem)>,
}

impl FileFacts {
    pub(crate) fn compute(cx: &mut Cx, file: &syn::File) {
        if cx.state_ref::<FileFacts>().is_some_and(|f| f.computed) {
            return;
        }
        let mut fields = Vec::new();
        if file_mentions(cx, &[]) {
            let mut sink = FieldWrites(&mut fields, cx);
            for_each_fn(&file.items, &mut |sig, body| {
                // A field is recorded only when given a roots list (`Kind::List`); with no fields
                // known yet, that needs a sign of roots in the function's own text.
                if may_hold_roots(fn_text(sink.1, sig, body), &[]) {
                    Walker::walk(sig, body, Vec::new(), &mut sink);
                }
            });
        }
        *cx.state::<FileFacts>() = FileFacts { computed: true, fields };
    }
}

/// Every function and method of the file, at any depth of modules and impls.
fn for_each_fn(items: &[syn::Item], f: &mut dyn FnMut(&syn::Signature, &syn::Block)) {
    for item in items {
        match item {
            syn::Item::Fn(i) => f(&i.sig, &i.block),
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(m) = it {
                        f(&m.sig, &m.block);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    for_each_fn(items, f);
                }
            }
            _ => {}
        }
    }
}

/// Records the fields of `self` given a roots list: `*self.folders.write().await = dirs`,
/// `self.roots = listed.roots`, `Self { folders: dirs, .. }`.
/// The fields found so far, and the file's `Cx` for its macro bodies.
struct FieldWrites<'f, 'c, 'a>(&'f mut Vec<(String, Elem)>, &'c Cx<'a>);

impl FieldWrites<'_, '_, '_> {
    fn record(&mut self, field: String, kind: Option<Kind>) {
        if let Some(Kind::List(e)) = kind
            && !self.0.iter().any(|(f, _)| *f == field)
        {
            self.0.push((field, e));
        }
    }
}

impl Sink for FieldWrites<'_, '_, '_> {
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>> {
        self.1.macro_body(m)
    }

    fn expr(&mut self, flow: &mut Flow, e: &Expr) {
        match e {
            Expr::Assign(a) => {
                if let Some(field) = self_field(&a.left) {
                    let k = flow.kind_of(&a.right);
                    self.record(field, k);
                }
            }
            Expr::Struct(s) if s.path.is_ident("Self") => {
                for f in &s.fields {
                    if let syn::Member::Named(i) = &f.member {
                        let k = flow.kind_of(&f.expr);
                        self.record(i.to_string(), k);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `F` in `self.F`, `*self.F.write().await`, `*self.F.lock().unwrap()`.
fn self_field(e: &Expr) -> Option<String> {
    match e {
        Expr::Field(f) if matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self")) => match &f.member {
            syn::Member::Named(i) => Some(i.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => self_field(&u.expr),
        Expr::Paren(p) => self_field(&p.expr),
        Expr::Await(a) => self_field(&a.base),
        Expr::Try(t) => self_field(&t.expr),
        Expr::MethodCall(m)
            if ["write", "lock", "borrow_mut", "unwrap", "expect", "get_mut"].iter().any(|n| m.method == n) =>
        {
            self_field(&m.receiver)
        }
        _ => None,
    }
}

/// Whether a roots rule looks at this function: Rust code that is not client code nor a test, in a
/// file that has one of the roots words or of `extra` (the rule's trigger words beyond them).
pub(crate) fn applies(cx: &mut Cx, f: &FnRef, extra: &'static [&'static str]) -> bool {
    if cx.origin != Origin::Rust || cx.role() == Role::Client {
        return false;
    }
    // The body's range is only worked out when the file has test code.
    if !cx.test_code.is_empty() && cx.in_test_code(&cx.block_range(f.body)) {
        return false;
    }
    file_mentions(cx, extra)
}

/// Whether the file's text has one of `ROOTS_WORDS` or of `extra`: searched once per file, not once
/// per function (a file of a thousand functions would otherwise be read a thousand times), the
/// roots words in one pass.
pub(crate) fn file_mentions(cx: &mut Cx, extra: &'static [&'static str]) -> bool {
    #[derive(Default)]
    struct Mentions {
        roots: Option<bool>,
        extra: Vec<(&'static str, bool)>,
    }
    static ROOTS_SEARCH: OnceLock<AhoCorasick> = OnceLock::new();
    let file = cx.file;
    let mentions = cx.state::<Mentions>();
    let roots = *mentions.roots.get_or_insert_with(|| {
        // Leftmost matching lets the search use its SIMD searcher; any match says the same.
        let search = || AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(ROOTS_WORDS);
        ROOTS_SEARCH.get_or_init(|| search().expect("plain words")).is_match(&file.text)
    });
    roots
        || extra.iter().any(|&w| match mentions.extra.iter().find(|(k, _)| *k == w) {
            Some(&(_, found)) => found,
            None => {
                let found = file.text.contains(w);
                mentions.extra.push((w, found));
                found
            }
        })
}

/// Whether a function's text (`fn_text`: signature and body, macro bodies included) may give a
/// value a rooted `Kind` (`Kind::rooted`). Every rooted kind starts from a name or type that says
/// `root` in any case (`roots`, `root_dir`, `Vec<Root>`, `roots_list()`, `ROOTS`, `format!("{root}")`),
/// a `"roots"` key (written plainly, or with an escape: a backslash), or a field of `self` the file
/// fills with roots (`fields`, named in the text by `self.<field>`); all of them are tokens of the
/// function, so where the text has none of these, the roots flow finds nothing. `None` (no text
/// known) may hold anything.
pub(crate) fn may_hold_roots(text: Option<&str>, fields: &[(String, Elem)]) -> bool {
    static ROOT_WORD: OnceLock<AhoCorasick> = OnceLock::new();
    let Some(text) = text else { return true };
    // Every spelling of `root` as its own word (the search is faster than one without case).
    let root_word = ROOT_WORD.get_or_init(|| {
        let spellings = (0..16u8).map(|bits| {
            "root"
                .bytes()
                .enumerate()
                .map(|(i, b)| if bits & (1 << i) != 0 { b.to_ascii_uppercase() } else { b })
                .collect::<Vec<u8>>()
        });
        AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(spellings).expect("plain words")
    });
    root_word.is_match(text) || text.contains('\\') || fields.iter().any(|(f, _)| text.contains(f.as_str()))
}

/// The fields of `self` the file fills with roots.
pub(crate) fn root_fields(cx: &Cx) -> Vec<(String, Elem)> {
    cx.state_ref::<FileFacts>().map(|f| f.fields.clone()).unwrap_or_default()
}

/// Reports the first-element picks of a roots list.
struct FirstPick<'c, 'a, 'f> {
    cx: &'c mut Cx<'a>,
    /// The function's body, read for `len_checked` when a pick is found.
    body: &'f syn::Block,
    /// Lists (as normalized text) whose length the function compares with 1 or 2: read from the
    /// body on the first pick of a list (most functions have none).
    len_checked: Option<HashSet<String>>,
    /// Ranges of picks that are only tested for presence (`roots.first().is_some()`).
    emptiness_tests: HashSet<(usize, usize)>,
}

impl FirstPick<'_, '_, '_> {
    fn report(&mut self, range: Range<usize>, shown: &str, list: &Expr) {
        let list_range = self.cx.node_range(base_of(list));
        let d = self.cx.report(
            &META,
            range.clone(),
            format!(
                "`{shown}` takes the first of the client's roots as the workspace; roots are an unordered set and a \
                 client may share several (multi-root workspaces), so this picks an arbitrary folder"
            ),
            "the first root, arbitrarily",
        );
        if list_range.end <= range.start || list_range.start >= range.end {
            d.label(list_range, "the client's roots: no order, often more than one");
        }
    }

    fn checked(&mut self, list: &Expr) -> bool {
        let body = self.body;
        self.len_checked.get_or_insert_with(|| len_checked_lists(body)).contains(&normalized(list))
    }
}

impl Sink for FirstPick<'_, '_, '_> {
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>> {
        self.cx.macro_body(m)
    }

    fn expr(&mut self, flow: &mut Flow, e: &Expr) {
        match e {
            Expr::MethodCall(m) => {
                let name = &m.method;
                if (name == "is_some" || name == "is_none") && m.args.is_empty() {
                    // Only a pick's range is ever looked up here, and a pick is a method call or an
                    // index (under no parentheses: they would widen the range); other receivers
                    // need not be printed for their range.
                    if could_be_pick(&m.receiver) {
                        let r = self.cx.node_range(&*m.receiver);
                        self.emptiness_tests.insert((r.start, r.end));
                    }
                    return;
                }
                let pick = if name == "first" {
                    m.args.is_empty()
                } else if name == "get" || name == "nth" {
                    m.args.len() == 1 && int_lit(&m.args[0]) == Some(0)
                } else if name == "next" {
                    // `roots.iter().next()`; a bare iterator variable's `next()` may be a loop over
                    // every root, so only a chain counts.
                    m.args.is_empty() && matches!(strip(&m.receiver), Expr::MethodCall(_))
                } else {
                    false
                };
                if !pick || !matches!(flow.kind_of(&m.receiver), Some(Kind::List(_))) {
                    return;
                }
                if name != "first" && chain_reorders(&m.receiver) {
                    return;
                }
                let whole = self.cx.node_range(e);
                if self.emptiness_tests.contains(&(whole.start, whole.end)) || self.checked(&m.receiver) {
                    return;
                }
                let range = pick_range(self.cx, m);
                let shown = compact(self.cx.text(range.clone()));
                self.report(range, &shown, &m.receiver);
            }
            Expr::Index(i) if int_lit(&i.index) == Some(0) => {
                if !matches!(flow.kind_of(&i.expr), Some(Kind::List(_))) || self.checked(&i.expr) {
                    return;
                }
                let whole = self.cx.node_range(e);
                if self.emptiness_tests.contains(&(whole.start, whole.end)) {
                    return;
                }
                let text = compact(self.cx.text(whole.clone()));
                let (range, shown) = if text.len() <= 40 {
                    (whole, text)
                } else {
                    (self.cx.join(i.bracket_token.span.open(), i.bracket_token.span.close()), "[0]".to_owned())
                };
                self.report(range, &shown, &i.expr);
            }
            _ => {}
        }
    }

    fn pat(&mut self, flow: &mut Flow, pat: &Pat, value: &Expr) {
        // `let [first, ..] = roots.as_slice()`, `if let [root, ..] = &listed.roots[..]`.
        let Pat::Slice(s) = strip_pat(pat) else { return };
        let first_binds = s.elems.first().is_some_and(|p| matches!(strip_pat(p), Pat::Ident(_)));
        let has_rest = s.elems.iter().any(|p| matches!(strip_pat(p), Pat::Rest(_)));
        if first_binds && has_rest && matches!(flow.kind_of(value), Some(Kind::List(_))) && !self.checked(value) {
            let range = self.cx.node_range(pat);
            let shown = compact(self.cx.text(range.clone()));
            self.report(range, &shown, value);
        }
    }
}

/// Whether an expression may be one `FirstPick` reports (a method call or an index), or an
/// invisible group around one (which has the same range).
fn could_be_pick(e: &Expr) -> bool {
    match e {
        Expr::Group(g) => could_be_pick(&g.expr),
        Expr::MethodCall(_) | Expr::Index(_) => true,
        _ => false,
    }
}

/// The span of a pick: from the first link that is not a plain accessor of the list (`iter()` in
/// `roots.iter().next()`) to the closing parenthesis, so `first()` or `iter().next()`.
fn pick_range(cx: &Cx, m: &syn::ExprMethodCall) -> Range<usize> {
    let end = method_call_range(cx, m).end;
    let mut start = method_call_range(cx, m).start;
    if m.method == "next"
        && let Expr::MethodCall(inner) = strip(&m.receiver)
        && ["iter", "into_iter", "iter_mut"].iter().any(|n| inner.method == n)
    {
        start = method_call_range(cx, inner).start;
    }
    start..end
}

/// Whether the chain between the list and `next()` changes which element comes first.
fn chain_reorders(e: &Expr) -> bool {
    let mut e = strip(e);
    while let Expr::MethodCall(m) = e {
        if ["rev", "skip", "skip_while", "step_by", "sorted_by", "sorted_by_key", "last", "find"]
            .iter()
            .any(|n| m.method == n)
        {
            return true;
        }
        e = strip(&m.receiver);
    }
    false
}

/// Normalized text of the lists whose `len()` the function compares with 1 or 2 (`roots.len() == 1`,
/// `listed.roots.len() > 1`, `match roots.len() { 1 => .. }`): code that handles several roots.
fn len_checked_lists(body: &syn::Block) -> HashSet<String> {
    struct V(HashSet<String>);
    impl<'ast> Visit<'ast> for V {
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            let cmp =
                matches!(b.op, BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_));
            if cmp {
                for (a, other) in [(&*b.left, &*b.right), (&*b.right, &*b.left)] {
                    if let Some(list) = len_receiver(a)
                        && matches!(int_lit(other), Some(1 | 2))
                    {
                        self.0.insert(normalized(list));
                    }
                }
            }
            visit::visit_expr_binary(self, b);
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            if let Some(list) = len_receiver(&m.expr)
                && m.arms
                    .iter()
                    .any(|a| matches!(&a.pat, Pat::Lit(l) if matches!(&l.lit, Lit::Int(i) if i.base10_digits() == "1")))
            {
                self.0.insert(normalized(list));
            }
            visit::visit_expr_match(self, m);
        }
    }
    let mut v = V(HashSet::new());
    v.visit_block(body);
    v.0
}

fn len_receiver(e: &Expr) -> Option<&Expr> {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => Some(&m.receiver),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// The flow analysis shared by the roots rules.
// ---------------------------------------------------------------------------------------------

/// What a value is, as far as the roots rules care.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// A list or iterator of the client's roots, or of values derived from them one by one.
    List(Elem),
    /// One root (`Root`, `&Root`, an `Option` of one).
    Root,
    /// A string from a root: its URI, or what is left of it after string surgery.
    RootStr,
    /// A `Path` / `PathBuf` made from a root.
    RootPath,
    /// Named like a root (`root`, `workspace_root`, `root_dir`), type unknown.
    RootNamed,
    /// A string not known to come from a root (an MCP `uri` field, a `&str` parameter).
    Str,
    /// A whole filesystem path turned into a string (`p.to_str()`, `p.to_string_lossy()`).
    PathStr,
    /// A `Path` / `PathBuf` not known to come from a root.
    Path,
}

/// The elements of a roots-derived list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Elem {
    Root,
    Str,
    Path,
    Other,
}

impl Kind {
    /// Comes from the client's roots (or is named like one).
    pub(crate) fn rooted(self) -> bool {
        matches!(self, Kind::List(_) | Kind::Root | Kind::RootStr | Kind::RootPath | Kind::RootNamed)
    }

    /// A string (so `starts_with` is `str::starts_with`).
    pub(crate) fn is_str(self) -> bool {
        matches!(self, Kind::RootStr | Kind::Str | Kind::PathStr)
    }

    pub(crate) fn is_path(self) -> bool {
        matches!(self, Kind::RootPath | Kind::Path)
    }

    fn elem(self) -> Elem {
        match self {
            Kind::Root => Elem::Root,
            Kind::RootStr => Elem::Str,
            Kind::RootPath => Elem::Path,
            _ => Elem::Other,
        }
    }
}

impl Elem {
    fn item(self) -> Option<Kind> {
        match self {
            Elem::Root => Some(Kind::Root),
            Elem::Str => Some(Kind::RootStr),
            Elem::Path => Some(Kind::RootPath),
            Elem::Other => None,
        }
    }
}

/// Methods that hand their receiver on (a guard, a clone, an unwrap, an iterator over it).
const TRANSPARENT: &[&str] = &[
    "clone",
    "to_owned",
    "as_ref",
    "as_mut",
    "borrow",
    "borrow_mut",
    "read",
    "write",
    "lock",
    "blocking_read",
    "blocking_write",
    "blocking_lock",
    "unwrap",
    "expect",
    "unwrap_or_default",
    "unwrap_or",
    "unwrap_or_else",
    "ok",
    "ok_or",
    "ok_or_else",
    "context",
    "with_context",
    "map_err",
    "cloned",
    "copied",
    "as_deref",
    "into_owned",
    "deref",
    "as_slice",
    "to_vec",
    "into",
    "as_path",
    "as_os_str",
    "iter",
    "into_iter",
    "iter_mut",
    "filter",
    "take",
    "skip",
    "rev",
    "peekable",
    "fuse",
    "skip_while",
    "take_while",
    "inspect",
    "collect",
    "flatten",
    "drain",
    "sorted",
    "as_array",
];

/// Macros that only print or log.
const OUTPUT_MACROS: &[&str] = &[
    "trace", "debug", "info", "warn", "error", "log", "event", "println", "eprintln", "print", "eprint", "dbg",
    "write", "writeln",
];

/// Methods whose closure argument receives the receiver's element.
const CLOSURE_METHODS: &[&str] = &[
    "map",
    "filter_map",
    "filter",
    "find",
    "find_map",
    "any",
    "all",
    "for_each",
    "position",
    "and_then",
    "map_or",
    "map_or_else",
    "is_some_and",
    "is_none_or",
    "inspect",
    "flat_map",
    "take_while",
    "skip_while",
    "max_by_key",
    "min_by_key",
    "retain",
];

/// String methods whose result is (part of) the receiver string.
const STRING_OPS: &[&str] = &[
    "strip_prefix",
    "strip_suffix",
    "trim_start_matches",
    "trim_left_matches",
    "trim_end_matches",
    "trim_matches",
    "trim",
    "trim_start",
    "trim_end",
    "replace",
    "replacen",
    "to_lowercase",
];

/// The kinds of the local names in scope, innermost last.
#[derive(Default)]
pub(crate) struct Flow {
    scope: Vec<(String, Option<Kind>)>,
    /// Fields of `self` that hold roots (see `FileFacts`).
    fields: Vec<(String, Elem)>,
    /// The function's parameters, and locals bound from them: data the request brought.
    from_request: Vec<String>,
}

impl Flow {
    pub(crate) fn mark(&self) -> usize {
        self.scope.len()
    }

    pub(crate) fn reset(&mut self, mark: usize) {
        self.scope.truncate(mark);
    }

    /// The innermost binding of `name`: a `str`, or an identifier compared in place.
    fn lookup<N: PartialEq<String> + ?Sized>(&self, name: &N) -> Option<Option<Kind>> {
        self.scope.iter().rev().find(|(n, _)| name == n).map(|(_, k)| *k)
    }

    /// Binds the names of a pattern matched against a value of `kind`. A name whose value says
    /// nothing keeps what its name says (`root_dir`), so a later binding shadows an earlier one.
    pub(crate) fn bind_pat(&mut self, pat: &Pat, kind: Option<Kind>) {
        match pat {
            Pat::Ident(p) => {
                let name = p.ident.to_string();
                let kind = kind.or_else(|| name_kind(&name));
                self.scope.push((name, kind));
            }
            Pat::Reference(r) => self.bind_pat(&r.pat, kind),
            Pat::Paren(p) => self.bind_pat(&p.pat, kind),
            Pat::Type(t) => self.bind_typed(&t.pat, &t.ty, kind),
            Pat::TupleStruct(ts) => {
                let wraps = ts.path.segments.last().is_some_and(|s| s.ident == "Some" || s.ident == "Ok");
                for (i, p) in ts.elems.iter().enumerate() {
                    self.bind_pat(p, if wraps && i == 0 { kind } else { None });
                }
            }
            Pat::Struct(ps) => {
                for f in &ps.fields {
                    let field = match &f.member {
                        syn::Member::Named(i) => i.to_string(),
                        syn::Member::Unnamed(_) => String::new(),
                    };
                    let k = match (field.as_str(), kind) {
                        ("uri", Some(Kind::Root)) => Some(Kind::RootStr),
                        ("roots", _) => Some(Kind::List(Elem::Root)),
                        _ => None,
                    };
                    self.bind_pat(&f.pat, k);
                }
            }
            Pat::Slice(s) => {
                let item = match kind {
                    Some(Kind::List(e)) => e.item(),
                    _ => None,
                };
                for p in &s.elems {
                    self.bind_pat(p, item);
                }
            }
            Pat::Tuple(t) => {
                for p in &t.elems {
                    self.bind_pat(p, None);
                }
            }
            Pat::Or(o) => {
                if let Some(first) = o.cases.first() {
                    self.bind_pat(first, kind);
                }
            }
            _ => {}
        }
    }

    fn bind_typed(&mut self, pat: &Pat, ty: &Type, kind: Option<Kind>) {
        let Pat::Ident(p) = strip_pat(pat) else { return self.bind_pat(pat, kind) };
        let name = p.ident.to_string();
        let by_name = name_kind(&name);
        let rooted = by_name.is_some_and(Kind::rooted);
        let k = match type_class(ty) {
            TypeClass::Roots => Some(Kind::List(Elem::Root)),
            TypeClass::Root => Some(Kind::Root),
            TypeClass::Str => Some(if rooted || kind.is_some_and(Kind::rooted) { Kind::RootStr } else { Kind::Str }),
            TypeClass::Path => Some(if rooted || kind.is_some_and(Kind::rooted) { Kind::RootPath } else { Kind::Path }),
            TypeClass::Unknown => kind.or(by_name),
        };
        self.scope.push((name, k));
    }

    /// Binds a function's parameters from their types and names.
    pub(crate) fn bind_params(&mut self, sig: &syn::Signature) {
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                self.bind_typed(&t.pat, &t.ty, None);
                pat_idents(&t.pat, &mut self.from_request);
            }
        }
    }

    /// Whether an expression reads what the function was given (`request.uri`, `uri`), not data of
    /// the server's own (`self.index`, a search result).
    pub(crate) fn is_request_data(&self, e: &Expr) -> bool {
        base_ident(e).is_some_and(|i| self.from_request.contains(&i))
    }

    /// After `let pat = init;`: names bound from request data are request data too.
    fn note_binding(&mut self, pat: &Pat, init: &Expr) {
        if self.is_request_data(init) {
            pat_idents(pat, &mut self.from_request);
        }
    }

    /// What an expression is.
    pub(crate) fn kind_of(&mut self, e: &Expr) -> Option<Kind> {
        match e {
            Expr::Paren(p) => self.kind_of(&p.expr),
            Expr::Group(g) => self.kind_of(&g.expr),
            Expr::Reference(r) => self.kind_of(&r.expr),
            Expr::Try(t) => self.kind_of(&t.expr),
            Expr::Await(a) => self.kind_of(&a.base),
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => self.kind_of(&u.expr),
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                // Looked up by comparing the identifier in place; printed only for `name_kind`.
                let ident = &p.path.segments[0].ident;
                match self.lookup(ident) {
                    Some(k) => k,
                    None => name_kind(&ident.to_string()),
                }
            }
            Expr::Field(f) => match &f.member {
                syn::Member::Named(i) if i == "roots" => Some(Kind::List(Elem::Root)),
                syn::Member::Named(i)
                    if matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self"))
                        && let Some((_, e)) = self.fields.iter().find(|(n, _)| i == n) =>
                {
                    Some(Kind::List(*e))
                }
                syn::Member::Named(i) if i == "uri" => match self.kind_of(&f.base) {
                    Some(Kind::Root | Kind::RootNamed) => Some(Kind::RootStr),
                    // An MCP `uri` (a resource's, a request's) is a `String`.
                    _ => Some(Kind::Str),
                },
                _ => None,
            },
            Expr::Index(i) => {
                let base = self.kind_of(&i.expr);
                match strip(&i.index) {
                    Expr::Lit(l) => match &l.lit {
                        Lit::Str(s) if s.value() == "roots" => Some(Kind::List(Elem::Root)),
                        Lit::Str(s) if s.value() == "uri" && matches!(base, Some(Kind::Root | Kind::RootNamed)) => {
                            Some(Kind::RootStr)
                        }
                        Lit::Int(_) => match base {
                            Some(Kind::List(e)) => e.item(),
                            _ => None,
                        },
                        _ => None,
                    },
                    Expr::Range(_) => base.filter(|k| k.is_str()),
                    _ => match base {
                        Some(Kind::List(e)) => e.item(),
                        _ => None,
                    },
                }
            }
            Expr::MethodCall(m) => self.method_kind(m),
            Expr::Call(c) => self.call_kind(c),
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "format") => {
                let rooted = self.tokens_rooted(&m.mac.tokens);
                Some(if rooted { Kind::RootStr } else { Kind::Str })
            }
            Expr::Lit(l) if matches!(l.lit, Lit::Str(_)) => Some(Kind::Str),
            _ => None,
        }
    }

    fn method_kind(&mut self, m: &syn::ExprMethodCall) -> Option<Kind> {
        let name = m.method.to_string();
        let name = name.as_str();
        if name == "roots_list" && m.args.is_empty() {
            return Some(Kind::List(Elem::Root));
        }
        let rk = self.kind_of(&m.receiver);
        if TRANSPARENT.contains(&name) && !(name == "filter" && m.args.is_empty()) {
            return rk;
        }
        match name {
            "first" | "last" | "next" | "get" | "nth" | "find" | "pop" | "min" | "max" | "min_by_key"
            | "max_by_key" | "min_by" | "max_by" | "next_back" | "first_mut" | "last_mut" | "get_mut" => match rk {
                Some(Kind::List(e)) => e.item(),
                _ => None,
            },
            "map" | "filter_map" | "and_then" | "flat_map" | "find_map" => {
                let elem = match rk {
                    Some(Kind::List(e)) => e.item(),
                    Some(k) if k.rooted() => Some(k),
                    _ => None,
                };
                let body = m.args.iter().last().and_then(|a| self.closure_result(a, elem));
                match rk {
                    Some(Kind::List(_)) if name != "find_map" => {
                        Some(Kind::List(body.filter(|k| k.rooted()).map_or(Elem::Other, Kind::elem)))
                    }
                    _ => body,
                }
            }
            n if STRING_OPS.contains(&n) => match rk {
                Some(Kind::RootNamed) => Some(Kind::RootStr),
                Some(k) if k.is_str() => Some(k),
                Some(k) if k.is_path() && n == "strip_prefix" => Some(k),
                None if n != "strip_prefix" => Some(Kind::Str),
                _ => None,
            },
            "to_str" | "to_string_lossy" | "display" => {
                if chain_has(&m.receiver, &["file_name", "file_stem", "extension"]) {
                    Some(Kind::Str)
                } else {
                    match rk {
                        Some(k) if k.rooted() => Some(Kind::RootStr),
                        Some(Kind::Str) => Some(Kind::Str),
                        _ => Some(Kind::PathStr),
                    }
                }
            }
            "canonicalize" | "join" | "parent" | "to_path_buf" | "with_file_name" | "with_extension" => match rk {
                Some(Kind::List(_)) => None,
                Some(k) if k.rooted() => Some(Kind::RootPath),
                _ => Some(Kind::Path),
            },
            "file_name" | "file_stem" | "extension" => Some(Kind::Str),
            // `String::as_str`, `Value::as_str`, `Url::as_str`, `Display::to_string`: a string.
            "as_str" | "to_string" => match rk {
                Some(Kind::RootNamed) => Some(Kind::RootStr),
                Some(Kind::List(_) | Kind::Root) => None,
                Some(k) if k.is_str() => Some(k),
                _ => Some(Kind::Str),
            },
            _ => None,
        }
    }

    /// What a closure (or a function path like `PathBuf::from`) given an element of `elem` returns.
    fn closure_result(&mut self, arg: &Expr, elem: Option<Kind>) -> Option<Kind> {
        match strip(arg) {
            Expr::Closure(c) => {
                let mark = self.mark();
                for (i, p) in c.inputs.iter().enumerate() {
                    self.bind_pat(p, if i == 0 { elem } else { None });
                }
                let k = self.kind_of(&c.body);
                self.reset(mark);
                k
            }
            Expr::Path(p)
                if path_ends_with(&p.path, &["PathBuf", "from"]) || path_ends_with(&p.path, &["Path", "new"]) =>
            {
                Some(if elem.is_some_and(Kind::rooted) { Kind::RootPath } else { Kind::Path })
            }
            _ => None,
        }
    }

    fn call_kind(&mut self, c: &syn::ExprCall) -> Option<Kind> {
        let Expr::Path(func) = strip(&c.func) else { return None };
        let p = &func.path;
        let arg = c.args.first()?;
        let is = |tail: &[&str]| path_ends_with(p, tail);
        if is(&["PathBuf", "from"])
            || is(&["Path", "new"])
            || is(&["PathBuf", "from_str"])
            || is(&["fs", "canonicalize"])
            || is(&["dunce", "canonicalize"])
            || p.is_ident("canonicalize")
        {
            let rooted = self.kind_of(arg).is_some_and(Kind::rooted);
            return Some(if rooted { Kind::RootPath } else { Kind::Path });
        }
        if is(&["String", "from"]) || is(&["Cow", "from"]) || is(&["Cow", "Borrowed"]) || is(&["Cow", "Owned"]) {
            return Some(self.kind_of(arg).filter(|k| k.is_str()).unwrap_or(Kind::Str));
        }
        if p.is_ident("Some")
            || p.is_ident("Ok")
            || is(&["Box", "new"])
            || is(&["Arc", "new"])
            || is(&["Rc", "new"])
            || is(&["Arc", "clone"])
            || is(&["Rc", "clone"])
        {
            return self.kind_of(arg);
        }
        None
    }

    /// Whether a token stream (a `format!` body) names something from a root.
    fn tokens_rooted(&mut self, tokens: &TokenStream) -> bool {
        for t in tokens.clone() {
            match t {
                TokenTree::Ident(i) => {
                    let name = i.to_string();
                    let k = match self.lookup(&name) {
                        Some(k) => k,
                        None => name_kind(&name),
                    };
                    if k.is_some_and(Kind::rooted) {
                        return true;
                    }
                }
                TokenTree::Group(g) if self.tokens_rooted(&g.stream()) => return true,
                TokenTree::Literal(l) => {
                    // Inline format arguments: `format!("{root}/")`.
                    let s = l.to_string();
                    let mut rest = s.as_str();
                    while let Some(open) = rest.find('{') {
                        rest = &rest[open + 1..];
                        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                        if !name.is_empty() {
                            let k = match self.lookup(&name) {
                                Some(k) => k,
                                None => name_kind(&name),
                            };
                            if k.is_some_and(Kind::rooted) {
                                return true;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        false
    }
}

/// What a name says: `roots`, `client_roots` are root lists; `root_uri`, `root_str` a root's string;
/// `root`, `root_dir`, `workspace_root` a root of unknown type; `uri`, `*_str` strings.
pub(crate) fn name_kind(name: &str) -> Option<Kind> {
    // The parts between underscores, compared without case (as lowercased ASCII).
    let has = |w: &str| name.split('_').any(|p| p.eq_ignore_ascii_case(w));
    if has("roots") {
        return Some(Kind::List(Elem::Root));
    }
    if has("root") {
        if ["uri", "url", "str", "string", "prefix"].iter().any(|w| has(w)) {
            return Some(Kind::RootStr);
        }
        return Some(Kind::RootNamed);
    }
    let last = name.split('_').rfind(|p| !p.is_empty());
    if has("uri") || last.is_some_and(|p| p.eq_ignore_ascii_case("str") || p.eq_ignore_ascii_case("string")) {
        return Some(Kind::Str);
    }
    None
}

enum TypeClass {
    Roots,
    Root,
    Str,
    Path,
    Unknown,
}

fn type_class(ty: &Type) -> TypeClass {
    match ty {
        Type::Reference(r) => type_class(&r.elem),
        Type::Paren(p) => type_class(&p.elem),
        Type::Group(g) => type_class(&g.elem),
        Type::Slice(s) => match type_class(&s.elem) {
            TypeClass::Root => TypeClass::Roots,
            _ => TypeClass::Unknown,
        },
        Type::Array(a) => match type_class(&a.elem) {
            TypeClass::Root => TypeClass::Roots,
            _ => TypeClass::Unknown,
        },
        Type::Path(p) => {
            let Some(last) = p.path.segments.last() else { return TypeClass::Unknown };
            let first_arg = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            match last.ident.to_string().as_str() {
                "Root" => TypeClass::Root,
                "str" | "String" => TypeClass::Str,
                "Path" | "PathBuf" => TypeClass::Path,
                "Cow" => match first_arg.map(type_class) {
                    Some(TypeClass::Str) => TypeClass::Str,
                    Some(TypeClass::Path) => TypeClass::Path,
                    _ => TypeClass::Unknown,
                },
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => match first_arg.map(type_class) {
                    Some(TypeClass::Root) => TypeClass::Roots,
                    _ => TypeClass::Unknown,
                },
                "Option" | "Box" | "Arc" | "Rc" | "RwLock" | "Mutex" => {
                    first_arg.map(type_class).unwrap_or(TypeClass::Unknown)
                }
                _ => TypeClass::Unknown,
            }
        }
        _ => TypeClass::Unknown,
    }
}

/// What a walk over one function body reports to.
pub(crate) trait Sink {
    /// Every expression, before its sub-expressions, with the names in scope.
    fn expr(&mut self, flow: &mut Flow, e: &Expr);
    /// A pattern about to be matched against `value` (`let`, `if let`, `match` arms, `for`).
    fn pat(&mut self, _flow: &mut Flow, _pat: &Pat, _value: &Expr) {}
    /// A macro's body read as code: `Cx::macro_body`, so every walk shares the file's parses.
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>>;
}

/// Walks one function body in order, keeping `Flow` up to date: `let` bindings, closure
/// parameters of methods over a roots list, `for` loops, `if let` / `while let` and `match` arms.
/// Nested items are left alone (the engine offers them to `rust_fn` itself); macro bodies that
/// parse as expressions or statements are walked like code.
pub(crate) struct Walker<'s, S: Sink> {
    flow: Flow,
    sink: &'s mut S,
}

impl<'s, S: Sink> Walker<'s, S> {
    /// Walks a function the engine offers, with what the file's `FileFacts` know. The sink holds
    /// the `Cx`, so the fields are read before.
    pub(crate) fn run(f: &FnRef, fields: Vec<(String, Elem)>, sink: &'s mut S) {
        Walker::walk(f.sig, f.body, fields, sink);
    }

    pub(crate) fn walk(sig: &syn::Signature, body: &syn::Block, fields: Vec<(String, Elem)>, sink: &'s mut S) {
        let mut w = Walker { flow: Flow { scope: Vec::new(), fields, from_request: Vec::new() }, sink };
        w.flow.bind_params(sig);
        w.visit_block(body);
    }

    fn bind_cond(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(l) => {
                self.visit_expr(&l.expr);
                self.sink.pat(&mut self.flow, &l.pat, &l.expr);
                let k = self.flow.kind_of(&l.expr);
                self.flow.bind_pat(&l.pat, k);
                self.flow.note_binding(&l.pat, &l.expr);
            }
            Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => {
                self.bind_cond(&b.left);
                self.bind_cond(&b.right);
            }
            other => self.visit_expr(other),
        }
    }
}

impl<'ast, S: Sink> Visit<'ast> for Walker<'_, S> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_block(&mut self, b: &'ast syn::Block) {
        let mark = self.flow.mark();
        visit::visit_block(self, b);
        self.flow.reset(mark);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let Some(init) = &l.init else {
            self.flow.bind_pat(&l.pat, None);
            return;
        };
        self.visit_expr(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
        }
        self.sink.pat(&mut self.flow, &l.pat, &init.expr);
        let k = self.flow.kind_of(&init.expr);
        self.flow.bind_pat(&l.pat, k);
        self.flow.note_binding(&l.pat, &init.expr);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        self.sink.expr(&mut self.flow, e);
        match e {
            Expr::Closure(c) => {
                let mark = self.flow.mark();
                for p in &c.inputs {
                    self.flow.bind_pat(p, None);
                }
                self.visit_expr(&c.body);
                self.flow.reset(mark);
            }
            Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                let mark = self.flow.mark();
                let item = match self.flow.kind_of(&f.expr) {
                    Some(Kind::List(e)) => e.item(),
                    _ => None,
                };
                self.sink.pat(&mut self.flow, &f.pat, &f.expr);
                self.flow.bind_pat(&f.pat, item);
                self.visit_block(&f.body);
                self.flow.reset(mark);
            }
            Expr::If(i) => {
                let mark = self.flow.mark();
                self.bind_cond(&i.cond);
                self.visit_block(&i.then_branch);
                self.flow.reset(mark);
                if let Some((_, els)) = &i.else_branch {
                    self.visit_expr(els);
                }
            }
            Expr::While(w) => {
                let mark = self.flow.mark();
                self.bind_cond(&w.cond);
                self.visit_block(&w.body);
                self.flow.reset(mark);
            }
            Expr::Match(m) => {
                self.visit_expr(&m.expr);
                let k = self.flow.kind_of(&m.expr);
                for arm in &m.arms {
                    let mark = self.flow.mark();
                    self.sink.pat(&mut self.flow, &arm.pat, &m.expr);
                    self.flow.bind_pat(&arm.pat, k);
                    if let Some((_, guard)) = &arm.guard {
                        self.visit_expr(guard);
                    }
                    self.visit_expr(&arm.body);
                    self.flow.reset(mark);
                }
            }
            Expr::MethodCall(m) => {
                self.visit_expr(&m.receiver);
                let elem = if CLOSURE_METHODS.iter().any(|n| m.method == n) {
                    match self.flow.kind_of(&m.receiver) {
                        Some(Kind::List(e)) => e.item(),
                        Some(k) if k.rooted() => Some(k),
                        _ => None,
                    }
                } else {
                    None
                };
                for arg in &m.args {
                    match strip(arg) {
                        Expr::Closure(c) if elem.is_some() => {
                            let mark = self.flow.mark();
                            for (i, p) in c.inputs.iter().enumerate() {
                                self.flow.bind_pat(p, if i == 0 { elem } else { None });
                            }
                            self.visit_expr(&c.body);
                            self.flow.reset(mark);
                        }
                        _ => self.visit_expr(arg),
                    }
                }
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `json!` bodies are data; what a log line or a `println!` shows decides nothing.
        if m.path.segments.last().is_some_and(|s| s.ident == "json" || OUTPUT_MACROS.iter().any(|n| s.ident == n)) {
            return;
        }
        match self.sink.macro_body(m).as_deref() {
            Some(MacroBody::Exprs(exprs)) => exprs.iter().for_each(|e| self.visit_expr(e)),
            Some(MacroBody::Stmts(stmts)) => {
                let mark = self.flow.mark();
                stmts.iter().for_each(|s| self.visit_stmt(s));
                self.flow.reset(mark);
            }
            None => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Small syntax helpers shared by the roots rules.
// ---------------------------------------------------------------------------------------------

pub(crate) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

pub(crate) fn strip_pat(p: &Pat) -> &Pat {
    match p {
        Pat::Paren(x) => strip_pat(&x.pat),
        Pat::Reference(r) => strip_pat(&r.pat),
        Pat::Type(t) => strip_pat(&t.pat),
        p => p,
    }
}

pub(crate) fn int_lit(e: &Expr) -> Option<u64> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a method chain below `e` has one of these methods.
pub(crate) fn chain_has(e: &Expr, names: &[&str]) -> bool {
    let mut e = strip(e);
    loop {
        match e {
            Expr::MethodCall(m) => {
                if names.iter().any(|n| m.method == n) {
                    return true;
                }
                e = strip(&m.receiver);
            }
            Expr::Try(t) => e = strip(&t.expr),
            Expr::Await(a) => e = strip(&a.base),
            Expr::Reference(r) => e = strip(&r.expr),
            _ => return false,
        }
    }
}

/// The expression under references, `?`, `.await` and the methods that hand their receiver on:
/// `listed.roots` in `&listed.roots.iter()`.
pub(crate) fn base_of(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => base_of(&p.expr),
        Expr::Group(g) => base_of(&g.expr),
        Expr::Reference(r) => base_of(&r.expr),
        Expr::Try(t) => base_of(&t.expr),
        Expr::Await(a) => base_of(&a.base),
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => base_of(&u.expr),
        Expr::MethodCall(m) if TRANSPARENT.iter().any(|n| m.method == n) => base_of(&m.receiver),
        e => e,
    }
}

/// The identifier at the bottom of a chain of fields, methods, indexes and references:
/// `request` in `&request.params.uri.as_str()`.
pub(crate) fn base_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => Some(p.path.segments[0].ident.to_string()),
        Expr::Field(f) => base_ident(&f.base),
        Expr::MethodCall(m) => base_ident(&m.receiver),
        Expr::Index(i) => base_ident(&i.expr),
        Expr::Paren(p) => base_ident(&p.expr),
        Expr::Group(g) => base_ident(&g.expr),
        Expr::Reference(r) => base_ident(&r.expr),
        Expr::Try(t) => base_ident(&t.expr),
        Expr::Await(a) => base_ident(&a.base),
        Expr::Unary(u) => base_ident(&u.expr),
        _ => None,
    }
}

/// The names a pattern binds.
fn pat_idents(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Ident(i) => out.push(i.ident.to_string()),
        Pat::Reference(r) => pat_idents(&r.pat, out),
        Pat::Paren(x) => pat_idents(&x.pat, out),
        Pat::Type(t) => pat_idents(&t.pat, out),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|e| pat_idents(e, out)),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pat_idents(e, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pat_idents(&f.pat, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|e| pat_idents(e, out)),
        Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                pat_idents(first, out);
            }
        }
        _ => {}
    }
}

/// Source text for a message: whitespace runs (line breaks of a chain) collapsed, no space before
/// a `.` (`listed\n    .roots` reads `listed.roots`).
pub(crate) fn compact(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace(" .", ".")
}

/// An expression's text with the accessors of `base_of` removed, for comparing two mentions of
/// the same value.
pub(crate) fn normalized(e: &Expr) -> String {
    quote::ToTokens::to_token_stream(base_of(e)).to_string()
}

#[cfg(test)]
mod tests {
    use super::{Elem, Kind};
    use crate::engine::check_text;

    /// The text of this rule's findings in a standalone Rust file.
    fn check(text: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lib.rs");
        check_text(&path, text.to_owned())
            .into_iter()
            .filter(|d| d.rule == "first-root-as-workspace")
            .map(|d| text[d.range.clone()].to_owned())
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

    /// `name_kind` reads the parts of a name without case, as the lowercased parts it replaced.
    #[test]
    fn name_kind_reads_parts_without_case() {
        fn by_lowercase(name: &str) -> Option<Kind> {
            let lower = name.to_ascii_lowercase();
            let parts: Vec<&str> = lower.split('_').filter(|p| !p.is_empty()).collect();
            let has = |w: &str| parts.contains(&w);
            if has("roots") {
                return Some(Kind::List(Elem::Root));
            }
            if has("root") {
                if ["uri", "url", "str", "string", "prefix"].iter().any(|w| has(w)) {
                    return Some(Kind::RootStr);
                }
                return Some(Kind::RootNamed);
            }
            if has("uri") || matches!(parts.last(), Some(&"str") | Some(&"string")) {
                return Some(Kind::Str);
            }
            None
        }
        let names = [
            "roots",
            "ROOTS",
            "client_Roots",
            "root",
            "Root_Uri",
            "workspace_root",
            "root_dir",
            "rootdir",
            "uri",
            "URI_",
            "base_str",
            "name_STRING__",
            "_str_",
            "str",
            "strs",
            "x",
            "",
            "_",
            "__root__",
            "Ürl_root",
        ];
        for n in names {
            assert_eq!(super::name_kind(n), by_lowercase(n), "{n}");
        }
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
