//! The client's roots as a value, across the crate: where a roots list comes from and what the
//! code does with it.
//!
//! Per function, on the worker that parsed it (`fn_facts`, walking with `flow::Walker`), the model
//! keeps `RootsFacts`: the uses of roots lists and of their elements (`RootsUse`: the first one
//! picked, a working directory, a containment check, passed on whole, returned, stored), the
//! `self` places the function fills with one, and whether it returns one. A value the function
//! cannot place itself (a field of `self`, a helper's result) is kept as a source
//! (`SourceFact`) that `RootsFlow` resolves over the whole crate: a place is the client's roots when
//! a method of its type (or of the type holding it, `self.inner.roots` through `Arc<Inner>`)
//! stores a roots list there, in any file (also through a shared copy of a field, or behind a lock
//! in a parameter that a method hands such a copy: `param_stores`); a call gives roots when every function it resolves to
//! returns a roots list (through a `match`, `?`, `if let`, `let … else`, `tokio::time::timeout`, or
//! another such helper or place). What the code does not show stays unknown: a use is only
//! reported (`RootsFlow::uses`) when its list is the client's roots locally (by type, field, name,
//! in a file with roots words) or through resolved places and calls.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::ops::Range;
use std::rc::Rc;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Lit, Pat};

use super::flow::{self, Elem, Flow, Kind, Sink, SourceRef, Walker, base_of, int_lit, normalized, strip, strip_pat};
use super::{CrateModel, FnId, TypeKey};
use crate::context::Role;
use crate::cx::{Cx, Origin};
use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{fn_text, method_call_range, text_may_mention};

/// Words that show a file deals with MCP roots. A roots list is only trusted as the client's in a
/// file that has one of them (the roots rules' trigger words too), unless the crate model traced
/// it there.
pub const ROOTS_WORDS: [&str; 13] = [
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

fn roots_search() -> &'static AhoCorasick {
    static ROOTS_SEARCH: OnceLock<AhoCorasick> = OnceLock::new();
    // Leftmost matching lets the search use its SIMD searcher; any match says the same.
    ROOTS_SEARCH.get_or_init(|| {
        AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(ROOTS_WORDS).expect("plain words")
    })
}

/// Whether the file's text has one of `ROOTS_WORDS` or of `extra`: searched once per file, not once
/// per function (a file of a thousand functions would otherwise be read a thousand times), the
/// roots words in one pass.
pub fn file_mentions(cx: &mut Cx, extra: &'static [&'static str]) -> bool {
    #[derive(Default)]
    struct Mentions {
        roots: Option<bool>,
        extra: Vec<(&'static str, bool)>,
    }
    let file = cx.file;
    let mentions = cx.state::<Mentions>();
    let roots = *mentions.roots.get_or_insert_with(|| roots_search().is_match(&file.text));
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

/// Whether a per-function roots rule looks at a body: Rust code that is not client code nor a
/// test, in a file that has one of the roots words or of `extra`.
pub fn server_code_with_roots(cx: &mut Cx, body: &syn::Block, extra: &'static [&'static str]) -> bool {
    if cx.origin != Origin::Rust || cx.role() == Role::Client {
        return false;
    }
    // The body's range is only worked out when the file has test code.
    if !cx.test_code.is_empty() && cx.in_test_code(&cx.block_range(body)) {
        return false;
    }
    file_mentions(cx, extra)
}

/// Whether a function's text (`fn_text`: signature and body, macro bodies included) may give a
/// value a rooted `Kind` (`Kind::rooted`). Every rooted kind starts from a name or type that says
/// `root` in any case (`roots`, `root_dir`, `Vec<Root>`, `roots_list()`, `ROOTS`, `format!("{root}")`),
/// a `"roots"` key (written plainly, or with an escape: a backslash), or a field of `self` the file
/// fills with roots (`fields`, named in the text by `self.<field>`); all of them are tokens of the
/// function, so where the text has none of these, the roots flow finds nothing. `None` (no text
/// known) may hold anything.
pub fn may_hold_roots(text: Option<&str>, fields: &[(String, Elem)]) -> bool {
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

/// The fields of `self` a file fills with roots lists (`*self.folders.write().await = dirs`,
/// `self.roots = listed.roots`, `Self { folders: dirs, .. }`), found once per file and kept in the
/// file's `Cx` (`Cx::file_fact`) for every roots rule and the model's facts.
pub fn file_fields(cx: &mut Cx, file: &syn::File) -> Vec<(String, Elem)> {
    cx.file_fact(|cx| FileFields(fields_of(cx, file))).0
}

/// `file_fields` for the model's facts, which see the file's `Cx` after the rules: the fields a
/// rule found, else found again.
pub fn file_fields_seen(cx: &Cx, file: &syn::File) -> Vec<(String, Elem)> {
    cx.known_fact::<FileFields>().map_or_else(|| fields_of(cx, file), |f| f.0)
}

/// The fields `file_fields` found for this file (none before it ran).
pub fn known_fields(cx: &Cx) -> Vec<(String, Elem)> {
    cx.known_fact::<FileFields>().map(|f| f.0).unwrap_or_default()
}

#[derive(Clone)]
struct FileFields(Vec<(String, Elem)>);

fn fields_of(cx: &Cx, file: &syn::File) -> Vec<(String, Elem)> {
    if !roots_search().is_match(&cx.file.text) {
        return Vec::new();
    }
    let mut stores = Stores::new(cx, Vec::new());
    for_each_fn(&file.items, &mut |sig, body| {
        // A field is recorded only when given a roots list (`Kind::List`); with no fields known yet,
        // that needs a sign of roots in the function's own text.
        if may_hold_roots(fn_text(stores.cx, sig, body), &[]) {
            Walker::walk(sig, body, Vec::new(), &mut stores);
        }
    });
    let mut fields: Vec<(String, Elem)> = Vec::new();
    for (path, kind) in stores.out {
        if let (1, Kind::List(e)) = (path.len(), kind)
            && !fields.iter().any(|(f, _)| *f == path[0])
        {
            fields.push((path[0].clone(), e));
        }
    }
    fields
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

/// Records the `self` places given a roots list (or a source): `*self.folders.write().await = dirs`,
/// `self.inner.roots = listed.roots`, `Self { folders: dirs, .. }`, `self.roots.set(list)`.
struct Stores<'c, 'a> {
    cx: &'c Cx<'a>,
    out: Vec<(Vec<String>, Kind)>,
    /// The function's parameter names, and what it stores behind them (`RootsFacts::param_stores`).
    params: Vec<String>,
    param_out: Vec<(String, Vec<String>, Kind)>,
    /// Locals bound to a `self` place (`let mut allowed = self.allowed.write().await`).
    guards: Vec<(String, Vec<String>, bool)>,
}

/// Where a store goes: a `self` place, or one behind a parameter.
enum Place {
    OfSelf(Vec<String>),
    OfParam(String, Vec<String>),
}

/// Whether a place expression goes through a lock's write access (`x.dirs.write().await`,
/// `x.dirs.lock().unwrap()`).
fn through_lock(e: &Expr) -> bool {
    const LOCKS: &[&str] = &["write", "lock", "borrow_mut", "blocking_write", "blocking_lock"];
    let mut e = e;
    loop {
        e = match e {
            Expr::MethodCall(m) if LOCKS.iter().any(|n| m.method == n) && m.args.is_empty() => return true,
            Expr::MethodCall(m) => &m.receiver,
            Expr::Field(f) => &f.base,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Reference(r) => &r.expr,
            Expr::Try(t) => &t.expr,
            Expr::Await(a) => &a.base,
            Expr::Unary(u) => &u.expr,
            _ => return false,
        };
    }
}

/// Methods that add their argument to a list (`allowed.push(dir)`, `dirs.extend(roots)`).
const ADD_METHODS: &[&str] = &["push", "extend", "append", "extend_from_slice"];

/// Methods that put their argument into a `self` place (`OnceCell::set`, `Option::replace`, a
/// `watch::Sender::send`).
const STORE_METHODS: &[&str] =
    &["set", "replace", "insert", "store", "send", "send_replace", "swap", "get_or_init", "get_or_try_init"];

impl<'c, 'a> Stores<'c, 'a> {
    fn new(cx: &'c Cx<'a>, params: Vec<String>) -> Self {
        Stores { cx, out: Vec::new(), params, param_out: Vec::new(), guards: Vec::new() }
    }

    /// The `self` place a local guard stands for (the latest binding of the name), and whether it
    /// was bound through a lock (`self.mounts.write().await`) rather than to a copy
    /// (`self.mounts.clone()`): only then does a write to its members reach the server's own value.
    fn binding(&self, name: &syn::Ident) -> Option<(&Vec<String>, bool)> {
        self.guards.iter().rev().find(|(g, _, _)| name == g).map(|(_, path, locked)| (path, *locked))
    }

    fn guard(&self, name: &syn::Ident) -> Option<&Vec<String>> {
        self.binding(name).map(|(path, _)| path)
    }
}

impl Stores<'_, '_> {
    /// The `self` place an expression names, directly or through a local bound to one
    /// (`shared.dirs` after `let shared = self.shared.clone()`).
    /// Through a local, only a write behind a lock counts: the local may be a clone, and only a
    /// lock (in an `Arc`, as a clone shares it) makes the write reach the server's own value.
    fn place(&self, e: &Expr) -> Option<Place> {
        if let Some(path) = flow::self_path(e) {
            return Some(Place::OfSelf(path));
        }
        let (base, members) = flow::place_parts(e)?;
        // A member of a lock's guard (`mounts.dirs` after `let mounts = self.mounts.write().await`)
        // is the lock's own value.
        if let Some((path, true)) = self.binding(base).filter(|_| !members.is_empty()) {
            return Some(Place::OfSelf([&path[..], &members[..]].concat()));
        }
        if !through_lock(e) {
            return None;
        }
        if let Some(path) = self.guard(base) {
            return Some(Place::OfSelf([&path[..], &members[..]].concat()));
        }
        let param = self.params.iter().find(|p| base == *p)?;
        Some(Place::OfParam(param.clone(), members))
    }

    fn record(&mut self, place: Place, kind: Option<Kind>) {
        let Some(k) = kind.filter(|k| k.is_list()) else { return };
        match place {
            Place::OfSelf(path) => {
                if !self.out.iter().any(|(p, _)| *p == path) {
                    self.out.push((path, k));
                }
            }
            Place::OfParam(param, path) => {
                if !self.param_out.iter().any(|(n, p, _)| *n == param && *p == path) {
                    self.param_out.push((param, path, k));
                }
            }
        }
    }

    /// `let g = self.place.write().await`: `g` stands for the place.
    fn bind(&mut self, pat: &Pat, value: &Expr) {
        let mut v = strip(value);
        while let Expr::Await(a) = v {
            v = strip(&a.base);
        }
        if let Pat::Ident(p) = strip_pat(pat)
            && let Some(path) = flow::self_path(v)
        {
            self.guards.push((p.ident.to_string(), path, through_lock(v)));
        }
    }

    fn see(&mut self, flow: &mut Flow, e: &Expr) {
        if let Expr::MethodCall(m) = e
            && ADD_METHODS.iter().any(|n| m.method == n)
            && m.args.len() == 1
        {
            let path = match strip(&m.receiver) {
                Expr::Path(p) => p.path.get_ident().and_then(|i| self.guard(i)).map(|path| Place::OfSelf(path.clone())),
                other => self.place(other),
            };
            if let Some(path) = path {
                let k = match flow.kind_of(&m.args[0]) {
                    Some(k) if k.is_list() => Some(k),
                    Some(Kind::Root) => Some(Kind::List(Elem::Root)),
                    Some(Kind::RootPath) => Some(Kind::List(Elem::Path)),
                    Some(Kind::RootStr) => Some(Kind::List(Elem::Str)),
                    _ => None,
                };
                self.record(path, k);
            }
        }
        match e {
            Expr::Assign(a) => {
                // `*self.roots.write().await = dirs`, or through a guard: `*guard = Some(dirs)`.
                let guarded = match strip(&a.left) {
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => match strip(&u.expr) {
                        Expr::Path(p) => {
                            p.path.get_ident().and_then(|i| self.guard(i)).map(|path| Place::OfSelf(path.clone()))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(path) = self.place(&a.left).or(guarded) {
                    let k = flow.kind_of(&a.right);
                    self.record(path, k);
                }
            }
            Expr::Struct(s) if s.path.is_ident("Self") => {
                for f in &s.fields {
                    if let syn::Member::Named(i) = &f.member {
                        let k = flow.kind_of(&f.expr);
                        self.record(Place::OfSelf(vec![i.to_string()]), k);
                    }
                }
            }
            Expr::MethodCall(m) if STORE_METHODS.iter().any(|n| m.method == n) && m.args.len() == 1 => {
                if let Some(path) = self.place(&m.receiver) {
                    let k = match strip(&m.args[0]) {
                        Expr::Closure(c) => flow.kind_of(&c.body),
                        arg => flow.kind_of(arg),
                    };
                    self.record(path, k);
                }
            }
            _ => {}
        }
    }
}

impl Sink for Stores<'_, '_> {
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>> {
        self.cx.macro_body(m)
    }

    fn pat(&mut self, _flow: &mut Flow, pat: &Pat, value: &Expr) {
        self.bind(pat, value);
    }

    fn expr(&mut self, flow: &mut Flow, e: &Expr) {
        self.see(flow, e);
    }
}

// ---------------------------------------------------------------------------------------------
// Per-function facts.
// ---------------------------------------------------------------------------------------------

/// What a use of a roots list (or of one root) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Takes the first element as the one to work with (`roots[0]`, `.first()`,
    /// `.iter().next()`, `.get(0)`, `let [first, ..] = …`).
    First,
    /// A tool's working directory: joined onto, walked, read, a command run in it.
    WorkingDir,
    /// A containment or allow-list check against another path (`starts_with`, `strip_prefix`,
    /// `.contains(..)`).
    Containment,
    /// Given whole to another function or component.
    PassedOn,
    /// One root (or a path made from one) given to another function as argument `arg`: what that
    /// function does with its parameter decides (`FnFact::param_dirs`).
    Handed { arg: u8 },
}

/// A value a function cannot place itself, kept for the crate model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceFact {
    /// `self.<path>`.
    Field(Vec<String>),
    /// A call: its range, as the model's `CallFact::range` (the callee's first token to `)`).
    Call(Range<usize>),
}

#[derive(Debug, Clone)]
pub struct RootsUse {
    pub purpose: Purpose,
    /// The list (or root) used: `Kind::List`/`Kind::Root…` when the function shows it is the client's
    /// roots, `Kind::Source(i)`/`Kind::SourceItem(i)` when `sources[i]` decides.
    pub of: Kind,
    /// The use, as a finding would show it.
    pub range: Range<usize>,
    /// The list's own range (a label), and the use's text, compacted.
    pub list_range: Range<usize>,
    pub shown: String,
    /// For a `Containment` by `starts_with` / `strip_prefix`: the receiver is a string, and the
    /// function tests a path separator somewhere (a boundary check may complete the prefix).
    pub string_prefix: bool,
    pub separator_tested: bool,
    /// For `PassedOn`: the function or method it is given to, by its name (`configure`,
    /// `Plugins::load`), and as which argument.
    pub callee: Option<String>,
    pub arg: Option<u8>,
    /// The used value is a helper's result (`Kind::Source`) used as one directory (`dir.join(..)`,
    /// `fs::read_dir(&dir)`): it is the client's roots only when the helper returns one root.
    pub promoted: bool,
}

/// The roots facts of one function.
#[derive(Debug, Clone, Default)]
pub struct RootsFacts {
    /// Its file has roots words (`ROOTS_WORDS`): a list it shows by name or type is trusted.
    pub evidence: bool,
    /// It is test code.
    pub test: bool,
    pub sources: Vec<SourceFact>,
    pub uses: Vec<RootsUse>,
    /// `self` places it fills with a roots list (or a source).
    pub stores: Vec<(Vec<String>, Kind)>,
    /// Places behind a parameter it fills, through a lock (`inner.lock().unwrap().folders = dirs`
    /// with `inner: Arc<Mutex<State>>`): (the parameter's name, the members after it, the list).
    /// Where a caller hands it a `self` place, that place holds what was stored.
    pub param_stores: Vec<(String, Vec<String>, Kind)>,
    /// What it returns, when that is a roots list or a source.
    pub returns: Option<Kind>,
    /// What it returns, when that is one root or a path or string made from one (`Ok(PathBuf::from(
    /// first.uri…))`).
    pub returns_item: Option<Kind>,
}

impl RootsFacts {
    fn is_empty(&self) -> bool {
        self.uses.is_empty()
            && self.stores.is_empty()
            && self.param_stores.is_empty()
            && self.returns.is_none()
            && self.returns_item.is_none()
    }
}

/// One function's roots facts, `None` when it has none. `fields`: `file_fields`.
pub fn fn_facts(
    cx: &Cx,
    sig: &syn::Signature,
    body: &syn::Block,
    fields: &[(String, Elem)],
    evidence: bool,
) -> Option<Box<RootsFacts>> {
    // Every fact starts from a roots list the text shows (`may_hold_roots`), a field of `self`, or
    // a helper's result picked from.
    let text = fn_text(cx, sig, body);
    let test = !cx.test_code.is_empty() && cx.in_test_code(&cx.block_range(body));
    if !may_hold_roots(text, fields)
        // Test code's uses are never reported nor migrated, and no tool or helper it could
        // inform the codemod of is a test: only its own roots count.
        && (test || !text_may_mention(text, &["self", "first", "next", "get(", "nth(", "[0]", ".."]))
    {
        return None;
    }
    let mut sink = Uses {
        cx,
        body,
        out: RootsFacts::default(),
        stores: Stores::new(cx, param_names(sig)),
        len_checked: None,
        emptiness_tests: HashSet::new(),
        separator_tested: None,
    };
    let sources = Walker::walk_tracking(sig, body, fields.to_vec(), &mut sink);
    let mut out = sink.out;
    out.stores = sink.stores.out;
    out.param_stores = sink.stores.param_out;
    if out.is_empty() {
        return None;
    }
    out.evidence = evidence;
    out.test = test;
    out.sources = sources
        .into_iter()
        .map(|s| match s {
            SourceRef::Field(path) => SourceFact::Field(path),
            SourceRef::Call(first, close) => SourceFact::Call(cx.join(first, close)),
        })
        .collect();
    Some(Box::new(out))
}

/// The names of a function's parameters bound by a plain name (`inner: Arc<Mutex<State>>`).
fn param_names(sig: &syn::Signature) -> Vec<String> {
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match strip_pat(&t.pat) {
                Pat::Ident(p) => Some(p.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// Whether the file has roots words, for `fn_facts`.
pub fn file_evidence(cx: &Cx) -> bool {
    mentions_roots_words(&cx.file.text)
}

/// Whether a text has one of `ROOTS_WORDS`.
pub fn mentions_roots_words(text: &str) -> bool {
    roots_search().is_match(text)
}

/// The walk of one function for its `RootsFacts`.
struct Uses<'c, 'a, 'f> {
    cx: &'c Cx<'a>,
    body: &'f syn::Block,
    out: RootsFacts,
    stores: Stores<'c, 'a>,
    /// Lists (as normalized text) whose length the function compares with 1 or 2: read from the
    /// body on the first pick of a list (most functions have none).
    len_checked: Option<HashSet<String>>,
    /// Ranges of picks that are only tested for presence (`roots.first().is_some()`).
    emptiness_tests: HashSet<(usize, usize)>,
    /// Whether the body mentions a path separator, read on the first string prefix check.
    separator_tested: Option<bool>,
}

/// Methods whose receiver is a working directory (`root.join(p)`, `dir.read_dir()`).
const DIR_METHODS: &[&str] = &["join", "read_dir", "push"];
/// Functions whose first argument is a working directory.
const DIR_CALLS: &[&[&str]] =
    &[&["fs", "read_dir"], &["WalkDir", "new"], &["set_current_dir"], &["Walk", "new"], &["WalkBuilder", "new"]];

/// Methods of std collections and strings: an argument given to them is not passed on to another
/// component.
const STD_METHODS: &[&str] = &[
    "extend",
    "push",
    "insert",
    "append",
    "contains",
    "eq",
    "ne",
    "chain",
    "zip",
    "extend_from_slice",
    "retain",
    "join",
    "starts_with",
    "strip_prefix",
    "get",
    "unwrap_or",
    "or",
    "ok_or",
    "clone_from",
    "cmp",
    "partial_cmp",
];

impl Uses<'_, '_, '_> {
    fn record(&mut self, purpose: Purpose, of: Kind, range: Range<usize>, list: &Expr) {
        let list_range = self.cx.node_range(base_of(list));
        let mut shown = flow::compact(self.cx.text(range.clone()));
        // A pick by closure is shown without its body: `into_iter().find_map(..)`.
        if let Some(at) = shown.find("find_map(") {
            shown.replace_range(at + "find_map(".len().., "..)");
        }
        let (string_prefix, separator_tested) = (false, false);
        let (callee, arg) = (None, None);
        self.out.uses.push(RootsUse {
            purpose,
            of,
            range,
            list_range,
            shown,
            string_prefix,
            separator_tested,
            callee,
            arg,
            promoted: false,
        });
    }

    fn checked(&mut self, list: &Expr) -> bool {
        let body = self.body;
        self.len_checked.get_or_insert_with(|| len_checked_lists(body)).contains(&normalized(list))
    }

    /// A root or a path made from one (or from a source's element).
    fn rooted_item(k: Option<Kind>) -> Option<Kind> {
        k.filter(|k| matches!(k, Kind::Root | Kind::RootPath | Kind::RootStr | Kind::RootNamed | Kind::SourceItem(_)))
    }

    /// `rooted_item`, or a helper's result used as one directory (recorded `promoted`).
    fn dir_item(k: Option<Kind>) -> Option<(Kind, bool)> {
        match k {
            Some(Kind::Source(i)) => Some((Kind::Source(i), true)),
            k => Self::rooted_item(k).map(|k| (k, false)),
        }
    }

    fn record_dir(&mut self, purpose: Purpose, (of, promoted): (Kind, bool), range: Range<usize>, list: &Expr) {
        self.record(purpose, of, range, list);
        self.out.uses.last_mut().expect("just recorded").promoted = promoted;
    }

    fn pick(&mut self, flow: &mut Flow, e: &Expr, m: &syn::ExprMethodCall) {
        let name = &m.method;
        if (name == "is_some" || name == "is_none") && m.args.is_empty() {
            // Only a pick's range is ever looked up here, and a pick is a method call or an index
            // (under no parentheses: they would widen the range).
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
            // `roots.iter().next()`; a bare iterator variable's `next()` may be a loop over every
            // root, so only a chain counts.
            m.args.is_empty() && matches!(strip(&m.receiver), Expr::MethodCall(_))
        } else if name == "find_map" {
            // `find_map(|r| r.uri.strip_prefix("file://").map(PathBuf::from))` is
            // `filter_map(..).next()`: a conversion each root passes. A closure that tests
            // something chooses by a criterion, as `find` does.
            m.args.len() == 1 && matches!(strip(&m.args[0]), Expr::Closure(c) if converts_only(&c.body))
        } else {
            false
        };
        if !pick {
            return;
        }
        let Some(list) = flow.kind_of(&m.receiver).filter(|k| k.is_list()) else { return };
        if name != "first" && chain_reorders(&m.receiver) {
            return;
        }
        let whole = self.cx.node_range(e);
        if self.emptiness_tests.contains(&(whole.start, whole.end)) || self.checked(&m.receiver) {
            return;
        }
        let range = pick_range(self.cx, m);
        self.record(Purpose::First, list, range, &m.receiver);
    }

    fn method(&mut self, flow: &mut Flow, e: &Expr, m: &syn::ExprMethodCall) {
        self.pick(flow, e, m);
        let name = m.method.to_string();
        if DIR_METHODS.contains(&name.as_str()) {
            if let Some(k) = Self::dir_item(flow.kind_of(&m.receiver)) {
                self.record_dir(Purpose::WorkingDir, k, method_call_range(self.cx, m), &m.receiver);
            }
        } else if name == "current_dir" && m.args.len() == 1 {
            if let Some(k) = Self::dir_item(flow.kind_of(&m.args[0])) {
                self.record_dir(Purpose::WorkingDir, k, method_call_range(self.cx, m), &m.args[0]);
            }
        } else if (name == "starts_with" || name == "strip_prefix") && m.args.len() == 1 {
            // `uri.starts_with("file://")` tests a scheme, not a containment.
            if matches!(strip(&m.args[0]), Expr::Lit(_)) {
                return;
            }
            let (rk, ak) = (flow.kind_of(&m.receiver), flow.kind_of(&m.args[0]));
            if let Some(k) = Self::rooted_item(ak).or(Self::rooted_item(rk)) {
                self.record(Purpose::Containment, k, method_call_range(self.cx, m), &m.args[0]);
                if rk.is_some_and(Kind::is_str) {
                    let body = self.body;
                    let tested = *self
                        .separator_tested
                        .get_or_insert_with(|| flow::mentions_separator(&quote::ToTokens::to_token_stream(body)));
                    let u = self.out.uses.last_mut().expect("just recorded");
                    (u.string_prefix, u.separator_tested) = (true, tested);
                }
            }
        } else if name == "contains" && m.args.len() == 1 {
            if let Some(k) = flow.kind_of(&m.receiver).filter(|k| k.is_list()) {
                self.record(Purpose::Containment, k, method_call_range(self.cx, m), &m.receiver);
            }
        } else {
            let stores_into_self = STORE_METHODS.contains(&name.as_str()) && flow::self_path(&m.receiver).is_some();
            if STD_METHODS.contains(&name.as_str()) || stores_into_self {
                return;
            }
            let cx = self.cx;
            self.passed_on(flow, &m.args.iter().collect::<Vec<_>>(), || method_call_range(cx, m), || name.clone());
        }
    }

    /// A roots list given whole as an argument.
    /// `range`: the call's, worked out only for a list passed (most calls pass none, and a
    /// node's range prints it to tokens); `callee`'s name, likewise.
    fn passed_on(
        &mut self,
        flow: &mut Flow,
        args: &[&Expr],
        range: impl Fn() -> Range<usize>,
        callee: impl Fn() -> String,
    ) {
        for (i, arg) in args.iter().enumerate() {
            if matches!(strip(arg), Expr::Closure(_)) {
                continue;
            }
            if let Some(k) = Self::rooted_item(flow.kind_of(arg))
                && let Ok(arg) = u8::try_from(i)
            {
                self.record(Purpose::Handed { arg }, k, range(), args[i]);
                continue;
            }
            if let Some(k) = flow.kind_of(arg).filter(|k| k.is_list()) {
                self.record(Purpose::PassedOn, k, range(), arg);
                let u = self.out.uses.last_mut().expect("just recorded");
                (u.callee, u.arg) = (Some(callee()), u8::try_from(i).ok());
                // A helper's result may be one directory, not a list (`files_in(&dir)` after
                // `let dir = workspace_dir(peer).await?`): then what the callee does with its
                // parameter decides. Only one of the two uses resolves (`RootsFlow::uses_in`).
                if let Kind::Source(_) = k
                    && let Ok(arg) = u8::try_from(i)
                {
                    self.record_dir(Purpose::Handed { arg }, (k, true), range(), args[i]);
                }
            }
        }
    }
}

impl Sink for Uses<'_, '_, '_> {
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>> {
        self.cx.macro_body(m)
    }

    fn expr(&mut self, flow: &mut Flow, e: &Expr) {
        self.stores.see(flow, e);
        match e {
            Expr::MethodCall(m) => self.method(flow, e, m),
            Expr::Index(i) if int_lit(&i.index) == Some(0) => {
                let Some(list) = flow.kind_of(&i.expr).filter(|k| k.is_list()) else { return };
                if self.checked(&i.expr) {
                    return;
                }
                let whole = self.cx.node_range(e);
                if self.emptiness_tests.contains(&(whole.start, whole.end)) {
                    return;
                }
                let range = if flow::compact(self.cx.text(whole.clone())).len() <= 40 {
                    whole
                } else {
                    self.cx.join(i.bracket_token.span.open(), i.bracket_token.span.close())
                };
                self.record(Purpose::First, list, range, &i.expr);
            }
            Expr::Call(c) => {
                let Expr::Path(p) = strip(&c.func) else { return };
                let cx = self.cx;
                let range = || cx.node_range(e);
                if DIR_CALLS.iter().any(|tail| crate::rust::syntax::path_ends_with(&p.path, tail))
                    && let Some(arg) = c.args.first()
                    && let Some(k) = Self::dir_item(flow.kind_of(arg))
                {
                    self.record_dir(Purpose::WorkingDir, k, range(), arg);
                    return;
                }
                // Wrappers and the standard collections (`HashSet::from_iter(roots.iter())` only
                // drops duplicates), and `drop` (a lock guard released early): the list is not
                // handed to another component.
                let wraps = [
                    "Some", "Ok", "Err", "Box", "Arc", "Rc", "PathBuf", "Path", "String", "Vec", "VecDeque", "HashSet",
                    "BTreeSet", "HashMap", "BTreeMap", "drop",
                ];
                if !p.path.segments.iter().any(|s| wraps.iter().any(|w| s.ident == w)) {
                    let callee = || p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
                    self.passed_on(flow, &c.args.iter().collect::<Vec<_>>(), range, callee);
                }
            }
            _ => {}
        }
    }

    fn pat(&mut self, flow: &mut Flow, pat: &Pat, value: &Expr) {
        self.stores.bind(pat, value);
        // `let [first, ..] = roots.as_slice()`, `if let [root, ..] = &listed.roots[..]`.
        let Pat::Slice(s) = strip_pat(pat) else { return };
        let first_binds = s.elems.first().is_some_and(|p| matches!(strip_pat(p), Pat::Ident(_)));
        let has_rest = s.elems.iter().any(|p| matches!(strip_pat(p), Pat::Rest(_)));
        if first_binds
            && has_rest
            && let Some(list) = flow.kind_of(value).filter(|k| k.is_list())
            && !self.checked(value)
        {
            let range = self.cx.node_range(pat);
            self.record(Purpose::First, list, range, value);
        }
    }

    fn returned(&mut self, flow: &mut Flow, value: &Expr) {
        if let Some(k) = flow.kind_of(value).filter(|k| matches!(k, Kind::Root | Kind::RootPath | Kind::RootStr)) {
            self.out.returns_item = Some(k);
        }
        if let Some(k) = flow.kind_of(value).filter(|k| k.is_list()) {
            self.out.returns = match self.out.returns {
                None => Some(k),
                Some(old) if old == k => Some(k),
                // Two different lists returned: only a known roots list stays sure.
                Some(old @ Kind::List(_)) => Some(old),
                Some(_) => Some(k).filter(|k| matches!(k, Kind::List(_))),
            };
        }
    }
}

/// Whether an expression may be a pick (a method call or an index), or an invisible group around
/// one (which has the same range).
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
    if (m.method == "next" || m.method == "find_map")
        && let Expr::MethodCall(inner) = strip(&m.receiver)
        && ["iter", "into_iter", "iter_mut"].iter().any(|n| inner.method == n)
    {
        start = method_call_range(cx, inner).start;
    }
    start..end
}

/// A closure body that only converts its element (`r.uri.strip_prefix("file://").map(..)`,
/// `Url::parse(&r.uri).ok()?.to_file_path().ok()`): no comparison, branch or look at the file
/// system, which would make the pick a choice by a criterion.
fn converts_only(body: &Expr) -> bool {
    const TESTS: &[&str] = &[
        "if",
        "match",
        "exists",
        "is_dir",
        "is_file",
        "metadata",
        "contains",
        "ends_with",
        "starts_with",
        "filter",
        "find",
        "any",
        "all",
        "then",
        "then_some",
    ];
    let tokens = quote::ToTokens::to_token_stream(body);
    let text = tokens.to_string();
    !text.contains("==") && !text.contains("!=") && !crate::rust::syntax::tokens_mention_any(&tokens, TESTS)
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
// Across the crate.
// ---------------------------------------------------------------------------------------------

/// How a use's list is known to be the client's roots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// The function itself shows it (type, `roots` field, name, in a file with roots words).
    Local,
    /// The `self` place read (`["inner", "folders"]`), which `writer` fills with roots (maybe in
    /// another file, maybe as the field of a struct the place holds).
    Field { path: Vec<String>, writer: FnId },
    /// What `helper` returns.
    Helper(FnId),
}

/// A use of the client's roots, resolved.
#[derive(Debug, Clone)]
pub struct ResolvedUse<'m> {
    pub fn_: FnId,
    pub use_: &'m RootsUse,
    pub via: Via,
    /// What the list's elements are (`Elem::Str` for URIs or strings cut from them).
    pub elem: Elem,
}

/// What a function does with the roots it holds, for a migration to choose from (issue #17).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootsPurpose {
    /// Used as a tool's working directory (joined onto, walked, a command run in it), never
    /// compared against: a documented tool parameter replaces it.
    WorkingDir,
    /// Only compared against other paths (a sandbox, an allow-list): server configuration.
    AllowList,
    /// Given whole to another function or component.
    PassedOn,
    /// None of these, or several: leave it.
    Unknown,
}

/// The crate's roots flow, resolved once (`CrateModel::roots`).
#[derive(Debug, Default)]
pub struct RootsFlow {
    /// (normalized place, the function that fills it with roots, the list's elements).
    places: Vec<(TypeKey, Vec<String>, FnId, Elem)>,
    /// Functions that return a roots list, with its elements.
    returning: HashMap<FnId, Elem>,
    /// Functions that return one root (or a path or string made from one).
    returning_item: HashMap<FnId, Elem>,
}

const DEPTH: usize = 6;

impl RootsFlow {
    pub fn new(model: &CrateModel) -> RootsFlow {
        let mut flow = RootsFlow::default();
        // Fixpoint over places and helpers: a store of a helper's result, a helper returning a
        // place, … each round resolves one more link.
        for _ in 0..DEPTH {
            let mut changed = false;
            for id in model.fn_ids() {
                let Some(facts) = model.func(id).roots.as_deref() else { continue };
                for (path, kind) in &facts.stores {
                    let Some(owner) = model.owner(id) else { continue };
                    if let Some((_, elem)) = flow.resolve(model, id, facts, *kind) {
                        let (ty, path) = normalize(model, owner, path);
                        if !flow.places.iter().any(|(t, p, _, _)| *t == ty && *p == path) {
                            flow.places.push((ty, path, id, elem));
                            changed = true;
                        }
                    }
                }
                changed |= flow.place_param_stores(model, id);
                if let Some(k) = facts.returns
                    && !flow.returning.contains_key(&id)
                    && let Some((_, elem)) = flow.resolve(model, id, facts, k)
                {
                    flow.returning.insert(id, elem);
                    changed = true;
                }
                if let Some(k) = facts.returns_item
                    && !flow.returning_item.contains_key(&id)
                    && let Some((_, elem)) = flow.resolve(model, id, facts, k)
                {
                    flow.returning_item.insert(id, elem);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        flow
    }

    /// The places the callees of `id` fill through a parameter that `id` hands a `self` place
    /// (`refresh(Arc::clone(&self.inner), peer)` where `refresh` stores into
    /// `inner.lock().unwrap().folders`): those places of `id`'s type hold roots, filled by the
    /// callee. Whether one was added.
    fn place_param_stores(&mut self, model: &CrateModel, id: FnId) -> bool {
        let mut changed = false;
        let Some(owner) = model.owner(id) else { return false };
        let caller = model.func(id);
        for &(i, callee) in model.callees_of(id) {
            let target = model.func(callee);
            let Some(facts) = target.roots.as_deref() else { continue };
            let call = &caller.calls[i];
            // `Type::method(receiver, ..)`: the first argument is the receiver.
            let skip = usize::from(!call.callee.has_receiver() && target.has_self);
            for (param, members, kind) in &facts.param_stores {
                let Some(index) = target.params.iter().position(|p| p.name.as_deref() == Some(param.as_str())) else {
                    continue;
                };
                let Some(Some((super::Root::SelfValue, path))) = call.arg_places.get(index + skip) else { continue };
                let Some((_, elem)) = self.resolve(model, callee, facts, *kind) else { continue };
                let (ty, place) = normalize(model, owner, &[&path[..], &members[..]].concat());
                if !self.places.iter().any(|(t, p, _, _)| *t == ty && *p == place) {
                    self.places.push((ty, place, callee, elem));
                    changed = true;
                }
            }
        }
        changed
    }

    /// Whether a list (or root) of `kind` in function `id` is the client's roots, how it is known,
    /// and what its elements are.
    fn resolve(&self, model: &CrateModel, id: FnId, facts: &RootsFacts, kind: Kind) -> Option<(Via, Elem)> {
        if kind.rooted() {
            let elem = match kind {
                Kind::List(e) => e,
                Kind::Root => Elem::Root,
                Kind::RootStr => Elem::Str,
                Kind::RootPath => Elem::Path,
                _ => Elem::Other,
            };
            return facts.evidence.then_some((Via::Local, elem));
        }
        let source = facts.sources.get(kind.source()? as usize)?;
        match source {
            SourceFact::Field(path) => {
                let owner = model.owner(id)?;
                let (ty, place) = normalize(model, owner, path);
                // The place read, or a place under it (`self.cache.roots` filled, `self.cache` read
                // is not the roots).
                let (_, _, writer, elem) = self
                    .places
                    .iter()
                    .find(|(t, p, _, _)| *t == ty && p.len() <= place.len() && place[..p.len()] == p[..])?;
                Some((Via::Field { path: path.clone(), writer: *writer }, *elem))
            }
            SourceFact::Call(range) => {
                let f = model.func(id);
                let index = f.calls.iter().position(|c| c.range == *range)?;
                let callees: Vec<FnId> =
                    model.callees_of(id).iter().filter(|(i, _)| *i == index).map(|(_, to)| *to).collect();
                // Every function the call may reach returns roots.
                let elems: Vec<Elem> = callees.iter().filter_map(|c| self.returning.get(c).copied()).collect();
                let elem = if elems.iter().all(|e| *e == elems[0]) { elems.first().copied()? } else { Elem::Other };
                (!callees.is_empty() && elems.len() == callees.len()).then(|| (Via::Helper(callees[0]), elem))
            }
        }
    }

    /// A helper's result (`Kind::Source` of a call) used as one directory: the client's roots when
    /// every function the call may reach returns one root.
    fn resolve_item(&self, model: &CrateModel, id: FnId, facts: &RootsFacts, kind: Kind) -> Option<(Via, Elem)> {
        let SourceFact::Call(range) = facts.sources.get(kind.source()? as usize)? else { return None };
        let index = model.func(id).calls.iter().position(|c| c.range == *range)?;
        let callees: Vec<FnId> = model.callees_of(id).iter().filter(|(i, _)| *i == index).map(|(_, to)| *to).collect();
        let elems: Vec<Elem> = callees.iter().filter_map(|c| self.returning_item.get(c).copied()).collect();
        (!callees.is_empty() && elems.len() == callees.len()).then(|| (Via::Helper(callees[0]), elems[0]))
    }

    /// Every use of the client's roots in the crate, in model order: those a function shows
    /// itself, and those through places and helpers the model resolved.
    pub fn uses<'m>(&'m self, model: &'m CrateModel) -> impl Iterator<Item = ResolvedUse<'m>> + 'm {
        model.fn_ids().flat_map(move |id| self.uses_in(model, id))
    }

    /// `uses` of one function.
    pub fn uses_in<'m>(&'m self, model: &'m CrateModel, id: FnId) -> impl Iterator<Item = ResolvedUse<'m>> + 'm {
        let facts = model.func(id).roots.as_deref();
        facts.into_iter().flat_map(move |facts| {
            facts.uses.iter().filter_map(move |u| {
                let (via, elem) = if u.promoted {
                    self.resolve_item(model, id, facts, u.of)?
                } else {
                    self.resolve(model, id, facts, u.of)?
                };
                Some(ResolvedUse { fn_: id, use_: u, via, elem })
            })
        })
    }

    /// Whether `id` returns the client's roots.
    pub fn returns_roots(&self, id: FnId) -> bool {
        self.returning.contains_key(&id)
    }

    /// Whether a state place is, or lies under or over, a place the crate fills with roots.
    pub fn holds(&self, place: &super::state::Place) -> bool {
        let super::state::PlaceRoot::Type(ty) = &place.root else { return false };
        self.places.iter().any(|(t, path, _, _)| t == ty && super::state::paths_related(path, &place.path))
    }

    /// The places filled with roots (type, path as seen from the deepest struct), and the function
    /// that fills each.
    pub fn places(&self) -> impl Iterator<Item = (&TypeKey, &[String], FnId)> {
        self.places.iter().map(|(t, p, f, _)| (t, p.as_slice(), *f))
    }

    /// What a function does with the roots it uses: working directory, allow-list, passed on, or
    /// unknown (see `RootsPurpose`).
    pub fn purpose(&self, model: &CrateModel, id: FnId) -> RootsPurpose {
        self.purpose_in(model, &[id])
    }

    /// `purpose` of several functions taken together (a tool and the helpers it calls, the tools
    /// reading one cache).
    pub fn purpose_in(&self, model: &CrateModel, ids: &[FnId]) -> RootsPurpose {
        let mut seen: HashMap<Purpose, usize> = HashMap::new();
        for u in ids.iter().flat_map(|&id| self.uses_in(model, id)) {
            *seen.entry(handed_purpose(model, &u).unwrap_or(u.use_.purpose)).or_default() += 1;
        }
        let has = |p| seen.contains_key(&p);
        match (has(Purpose::WorkingDir), has(Purpose::Containment), has(Purpose::PassedOn)) {
            (_, _, true) => RootsPurpose::PassedOn,
            (true, false, false) => RootsPurpose::WorkingDir,
            (false, true, false) => RootsPurpose::AllowList,
            _ => RootsPurpose::Unknown,
        }
    }
}

impl RootsFlow {
    /// Whether any of the functions compares a path against the roots (`starts_with`,
    /// `strip_prefix`, `.contains(..)`): the roots confine what a tool may touch, whatever else the
    /// code does with them.
    pub fn compares(&self, model: &CrateModel, ids: &[FnId]) -> bool {
        self.uses(model).any(|u| {
            ids.contains(&u.fn_) && handed_purpose(model, &u).unwrap_or(u.use_.purpose) == Purpose::Containment
        })
    }

    /// What the functions pass the whole roots list on to, by callee name (sorted, once each).
    pub fn passed_to(&self, model: &CrateModel, ids: &[FnId]) -> Vec<String> {
        let mut out: Vec<String> = self
            .uses(model)
            .filter(|u| ids.contains(&u.fn_) && handed_purpose(model, u).unwrap_or(u.use_.purpose) == Purpose::PassedOn)
            .filter_map(|u| u.use_.callee.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// What a root (or the list) handed to a function of the crate becomes there: a working
/// directory or a containment check by the callee's own use of that parameter (`None` for any
/// other use).
fn handed_purpose(model: &CrateModel, u: &ResolvedUse) -> Option<Purpose> {
    let arg = match u.use_.purpose {
        Purpose::Handed { arg } => arg,
        Purpose::PassedOn => u.use_.arg?,
        _ => return None,
    };
    let f = model.func(u.fn_);
    let index = f.calls.iter().position(|c| c.range.end == u.use_.range.end)?;
    let bit = 1u32.checked_shl(u32::from(arg))?;
    let mut out = None;
    for (_, to) in model.callees_of(u.fn_).iter().filter(|(i, _)| *i == index) {
        let (dirs, compared) = model.func(*to).param_dirs;
        if compared & bit != 0 {
            return Some(Purpose::Containment);
        }
        if dirs & bit != 0 {
            out = Some(Purpose::WorkingDir);
        }
    }
    Some(out.unwrap_or(u.use_.purpose))
}

/// Which path parameters of a function (bits as in `Origins::params`) its body uses as a working
/// directory (`dir.join(..)`, `fs::read_dir(dir)`, `WalkDir::new(dir)`, `.current_dir(dir)`, also
/// through `let d = Path::new(dir)`), and which it compares another path against (`p.starts_with(dir)`,
/// `p.strip_prefix(dir)`, `dir.starts_with(p)`). Only parameters whose type names a path or a string.
pub fn param_dirs(sig: &syn::Signature, body: &syn::Block) -> (u32, u32) {
    let mut names: Vec<(String, u32)> = Vec::new();
    let mut i = 0u32;
    for input in &sig.inputs {
        let syn::FnArg::Typed(t) = input else { continue };
        let ty = quote::ToTokens::to_token_stream(&t.ty).to_string();
        if let Pat::Ident(p) = strip_pat(&t.pat)
            && ["Path", "str", "String", "Root"].iter().any(|t| ty.contains(t))
            && let Some(bit) = 1u32.checked_shl(i)
        {
            names.push((p.ident.to_string(), bit));
        }
        i += 1;
    }
    if names.is_empty() {
        return (0, 0);
    }
    struct V {
        names: Vec<(String, u32)>,
        dirs: u32,
        compared: u32,
    }
    impl V {
        /// The parameter bit of an expression that is a parameter (or an alias), through `&`,
        /// `Path::new(..)`, `PathBuf::from(..)`, `.as_ref()`, `.to_path_buf()`, `.as_path()`.
        fn bit(&self, e: &Expr) -> u32 {
            match strip(e) {
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .and_then(|i| self.names.iter().rev().find(|(n, _)| i == n))
                    .map_or(0, |(_, b)| *b),
                Expr::Reference(r) => self.bit(&r.expr),
                // A root's `uri`.
                Expr::Field(f) if matches!(&f.member, syn::Member::Named(n) if n == "uri") => self.bit(&f.base),
                Expr::Call(c) if c.args.len() == 1 => {
                    let f = quote::ToTokens::to_token_stream(&c.func).to_string().replace(' ', "");
                    if f.ends_with("Path::new") || f.ends_with("PathBuf::from") { self.bit(&c.args[0]) } else { 0 }
                }
                Expr::MethodCall(m)
                    if m.args.is_empty()
                        && ["as_ref", "to_path_buf", "as_path", "clone", "to_owned"].iter().any(|n| m.method == n) =>
                {
                    self.bit(&m.receiver)
                }
                _ => 0,
            }
        }
    }
    impl V {
        /// `pat` binds the elements of `list` (`for d in dirs`, `dirs.iter().any(|d| …)`).
        fn alias_items(&mut self, pat: &Pat, list: &Expr) {
            let mut e = strip(list);
            while let Expr::MethodCall(m) = e
                && m.args.is_empty()
                && ["iter", "into_iter", "read", "lock", "unwrap"].iter().any(|n| m.method == n)
            {
                e = strip(&m.receiver);
            }
            let b = self.bit(e);
            let pat = match strip_pat(pat) {
                Pat::Reference(r) => strip_pat(&r.pat),
                p => p,
            };
            if b != 0
                && let Pat::Ident(p) = pat
            {
                self.names.push((p.ident.to_string(), b));
            }
        }
    }
    impl<'ast> Visit<'ast> for V {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (Pat::Ident(p), Some(init)) = (strip_pat(&l.pat), &l.init) {
                let b = self.bit(&init.expr);
                if b != 0 {
                    self.names.push((p.ident.to_string(), b));
                }
            }
            visit::visit_local(self, l);
        }
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            self.alias_items(&f.pat, &f.expr);
            visit::visit_expr_for_loop(self, f);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let name = m.method.to_string();
            // `dirs.iter().any(|d| …)`: `d` is an element of the parameter.
            if let Some(Expr::Closure(c)) = m.args.first().map(strip)
                && let Some(p) = c.inputs.first()
            {
                self.alias_items(p, &m.receiver);
            }
            if DIR_METHODS.contains(&name.as_str()) {
                self.dirs |= self.bit(&m.receiver);
            } else if name == "current_dir" && m.args.len() == 1 {
                self.dirs |= self.bit(&m.args[0]);
            } else if (name == "starts_with" || name == "strip_prefix")
                && m.args.len() == 1
                && !matches!(strip(&m.args[0]), Expr::Lit(_))
            {
                self.compared |= self.bit(&m.args[0]) | self.bit(&m.receiver);
            }
            visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let Expr::Path(p) = strip(&c.func)
                && DIR_CALLS.iter().any(|tail| crate::rust::syntax::path_ends_with(&p.path, tail))
                && let Some(a) = c.args.first()
            {
                self.dirs |= self.bit(a);
            }
            visit::visit_expr_call(self, c);
        }
    }
    let mut v = V { names, dirs: 0, compared: 0 };
    v.visit_block(body);
    (v.dirs, v.compared)
}

/// A place `owner.path` as seen from the deepest struct of the crate it lies in: `self.inner.roots`
/// of `Server { inner: Arc<Inner> }` is `Inner.roots`.
fn normalize(model: &CrateModel, owner: &TypeKey, path: &[String]) -> (TypeKey, Vec<String>) {
    let (mut ty, mut path) = (owner.clone(), path.to_vec());
    for _ in 0..DEPTH {
        if path.len() < 2 {
            break;
        }
        let Some(t) = model.type_fact(&ty) else { break };
        let Some((_, field_ty)) = t.fields.iter().find(|(f, _)| *f == path[0]) else { break };
        let inner = innermost(field_ty);
        let next = model.resolve_type(&t.module, &[inner.to_owned()]);
        if model.type_fact(&next).is_none() {
            break;
        }
        ty = next;
        path.remove(0);
    }
    (ty, path)
}

/// The type under wrappers: `Arc<RwLock<Inner>>` → `Inner`.
pub(super) fn innermost(ty: &str) -> &str {
    let mut t = ty.trim_start_matches('&').trim();
    for wrapper in ["Arc<", "Rc<", "Box<", "Mutex<", "RwLock<", "RefCell<", "Option<", "OnceCell<", "OnceLock<"] {
        if let Some(inner) = t.strip_prefix(wrapper).and_then(|r| r.strip_suffix('>')) {
            return innermost(inner);
        }
    }
    t = t.split('<').next().unwrap_or(t);
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::model_of;

    /// (function, purpose, shown, how) of every resolved use.
    fn uses(model: &CrateModel) -> Vec<(String, Purpose, String, Via)> {
        let flow = model.roots();
        flow.uses(model)
            .map(|u| (model.func(u.fn_).name.clone(), u.use_.purpose, u.use_.shown.clone(), u.via))
            .collect()
    }

    #[test]
    fn a_place_filled_in_one_file_and_read_in_another() {
        let model = model_of(&[
            (
                "src/state.rs",
                "pub struct Inner { dirs: RwLock<Vec<PathBuf>> }\n\
                 impl Inner { async fn learn(&self, peer: &Peer<RoleServer>) {\n\
                 let listed = peer.list_roots().await.unwrap();\n\
                 *self.dirs.write().unwrap() = listed.roots.iter().map(|r| PathBuf::from(&r.uri)).collect();\n\
                 } }\n",
            ),
            (
                "src/guard.rs",
                "use crate::state::Inner;\n\
                 impl Inner { fn main_dir(&self, p: &Path) -> bool {\n\
                 let allowed = self.dirs.read().unwrap();\n\
                 match allowed.first() { Some(d) => p.starts_with(d), None => false }\n\
                 } }\n",
            ),
        ]);
        let found = uses(&model);
        assert!(
            found.iter().any(|(f, p, s, _)| f == "main_dir" && *p == Purpose::First && s == "first()"),
            "{found:?}\n{:#?}",
            model.files.iter().flat_map(|f| f.fns.iter().map(|g| (&g.name, &g.roots))).collect::<Vec<_>>()
        );
    }

    #[test]
    fn helpers_that_return_roots_through_try_let_else_and_once_cells() {
        let model = model_of(&[
            (
                "src/roots.rs",
                "use rmcp::model::ListRootsResult;\n\
                 pub struct S { cache: OnceCell<Vec<PathBuf>> }\n\
                 impl S {\n\
                 async fn listed(&self, peer: &Peer<RoleServer>) -> Result<Vec<Root>, Error> {\n\
                     let listed = peer.list_roots().await?;\n\
                     Ok(listed.roots)\n\
                 }\n\
                 async fn fill(&self, peer: &Peer<RoleServer>) {\n\
                     if let Ok(listed) = peer.list_roots().await {\n\
                         let _ = self.cache.set(listed.roots.iter().map(|r| PathBuf::from(&r.uri)).collect());\n\
                     }\n\
                 }\n\
                 fn cached(&self) -> Vec<PathBuf> {\n\
                     let Some(dirs) = self.cache.get() else { return Vec::new() };\n\
                     dirs.clone()\n\
                 }\n\
                 }\n",
            ),
            (
                "src/tools.rs",
                "use crate::roots::S;\n\
                 impl S {\n\
                 async fn a(&self, peer: &Peer<RoleServer>) { let d = self.listed(peer).await.unwrap(); let x = d.first(); }\n\
                 fn b(&self) { let w = self.cached().get(0).cloned(); }\n\
                 fn c(&self) { let n = self.cached().len(); }\n\
                 }\n",
            ),
        ]);
        let found = uses(&model);
        let picks: Vec<(&str, &str)> =
            found.iter().filter(|u| u.1 == Purpose::First).map(|(f, _, s, _)| (f.as_str(), s.as_str())).collect();
        assert_eq!(picks, [("a", "first()"), ("b", "get(0)")], "{found:?}");
        let flow = model.roots();
        let cached = model.fn_by_path(&["roots", "S", "cached"]).unwrap();
        assert!(flow.returns_roots(cached));
        assert!(found.iter().any(|(f, _, _, via)| f == "b" && *via == Via::Helper(cached)));
    }

    /// A cell filled on first use (`get_or_try_init` with an async closure, or `if guard.is_none()
    /// { *guard = Some(…) }`) holds the roots, and the `ensure_*` method giving its value returns
    /// them: the tools picking from that value use the roots.
    #[test]
    fn cells_filled_on_first_use_hold_the_roots() {
        let model = model_of(&[(
            "src/lib.rs",
            "use rmcp::model::ListRootsResult;\n\
             pub struct S { once: OnceCell<Vec<PathBuf>>, lazy: Mutex<Option<Vec<PathBuf>>> }\n\
             impl S {\n\
             async fn ensure_once(&self, peer: &Peer<RoleServer>) -> Result<&[PathBuf], E> {\n\
                 let dirs = self.once.get_or_try_init(|| async {\n\
                     let listed = peer.list_roots().await?;\n\
                     Ok::<_, E>(listed.roots.iter().map(|r| PathBuf::from(&r.uri)).collect())\n\
                 }).await?;\n\
                 Ok(dirs.as_slice())\n\
             }\n\
             async fn ensure_lazy(&self, peer: &Peer<RoleServer>) -> Vec<PathBuf> {\n\
                 let mut guard = self.lazy.lock().await;\n\
                 if guard.is_none() {\n\
                     let listed = peer.list_roots().await.unwrap_or_default();\n\
                     *guard = Some(listed.roots.iter().map(|r| PathBuf::from(&r.uri)).collect());\n\
                 }\n\
                 guard.clone().unwrap_or_default()\n\
             }\n\
             async fn a(&self, peer: &Peer<RoleServer>) { let d = self.ensure_once(peer).await.unwrap(); let _ = std::fs::read_dir(d.first().unwrap()); }\n\
             async fn b(&self, peer: &Peer<RoleServer>) { let d = self.ensure_lazy(peer).await; let _ = d[0].join(\"x\"); }\n\
             }\n",
        )]);
        let flow = model.roots();
        let places: Vec<(String, Vec<String>)> =
            flow.places().map(|(_, p, w)| (model.func(w).name.clone(), p.to_vec())).collect();
        assert!(places.contains(&("ensure_once".into(), vec!["once".into()])), "{places:?}");
        assert!(places.contains(&("ensure_lazy".into(), vec!["lazy".into()])), "{places:?}");
        for name in ["ensure_once", "ensure_lazy"] {
            assert!(flow.returns_roots(model.fn_by_path(&["S", name]).unwrap()), "{name}");
        }
        for name in ["a", "b"] {
            assert_eq!(
                flow.purpose(&model, model.fn_by_path(&["S", name]).unwrap()),
                RootsPurpose::WorkingDir,
                "{name}"
            );
        }
    }

    #[test]
    fn a_member_of_a_lock_guard_is_the_place_a_copy_is_not() {
        let model = model_of(&[(
            "src/lib.rs",
            "use rmcp::model::ListRootsResult;\n\
             pub struct Shelf { dirs: Vec<PathBuf> }\n\
             pub struct S { shelf: Arc<RwLock<Shelf>>, seen: Arc<RwLock<Shelf>> }\n\
             impl S {\n\
             async fn mount(&self, listed: ListRootsResult) {\n\
                 let mut shelf = self.shelf.write().await;\n\
                 for root in &listed.roots { shelf.dirs.push(PathBuf::from(&root.uri)); }\n\
             }\n\
             async fn peek(&self, listed: ListRootsResult) {\n\
                 let mut seen = self.seen.clone();\n\
                 for root in &listed.roots { seen.dirs.push(PathBuf::from(&root.uri)); }\n\
             }\n\
             }\n",
        )]);
        let places: Vec<(String, Vec<String>)> =
            model.roots().places().map(|(_, p, w)| (model.func(w).name.clone(), p.to_vec())).collect();
        assert!(places.iter().any(|(f, _)| f == "mount"), "{places:?}");
        assert!(!places.iter().any(|(f, _)| f == "peek"), "{places:?}");
    }

    #[test]
    fn purposes_for_a_migration() {
        let model = model_of(&[(
            "src/lib.rs",
            "use rmcp::model::ListRootsResult;\n\
             fn workdir(listed: ListRootsResult) { let root = listed.roots.first().unwrap(); let p = PathBuf::from(&root.uri).join(\"Cargo.toml\"); }\n\
             fn sandbox(listed: ListRootsResult, p: &Path) -> bool { listed.roots.iter().any(|r| p.starts_with(&r.uri)) }\n\
             fn hand_over(listed: ListRootsResult, plugins: &Plugins) { plugins.configure(listed.roots); }\n\
             fn nothing(listed: ListRootsResult) -> usize { listed.roots.len() }\n\
             fn deduped(listed: ListRootsResult) -> usize { HashSet::<&Root>::from_iter(listed.roots.iter()).len() }\n",
        )]);
        let flow = model.roots();
        let purpose = |name: &str| flow.purpose(&model, model.fn_by_path(&[name]).unwrap());
        assert_eq!(purpose("workdir"), RootsPurpose::WorkingDir);
        assert_eq!(purpose("sandbox"), RootsPurpose::AllowList);
        assert_eq!(purpose("hand_over"), RootsPurpose::PassedOn);
        assert_eq!(flow.passed_to(&model, &[model.fn_by_path(&["hand_over"]).unwrap()]), ["configure"]);
        assert_eq!(purpose("nothing"), RootsPurpose::Unknown);
        // A standard collection built from the roots is no component they are handed to.
        assert!(flow.passed_to(&model, &[model.fn_by_path(&["deduped"]).unwrap()]).is_empty());
    }

    /// What a root becomes in the crate function it is handed to, a list pushed through a write
    /// guard, and a helper returning one root: issue #17's shapes for the codemod.
    #[test]
    fn purposes_through_callees_guards_and_returned_roots() {
        let model = model_of(&[
            (
                "src/lib.rs",
                "use rmcp::model::ListRootsResult;\n\
                 pub struct S { allowed: RwLock<Vec<PathBuf>> }\n\
                 impl S {\n\
                 async fn add(&self, peer: &Peer<RoleServer>) { let listed = peer.list_roots().await.unwrap();\n\
                     let mut g = self.allowed.write().await; for r in &listed.roots { g.push(PathBuf::from(&r.uri)); } }\n\
                 async fn read(&self, p: &Path) -> bool { self.allowed.read().await.iter().any(|d| p.starts_with(d)) }\n\
                 async fn first(peer: &Peer<RoleServer>) -> Result<PathBuf, E> { let l = peer.list_roots().await?;\n\
                     let r = l.roots.first().ok_or(E)?; Ok(PathBuf::from(&r.uri)) }\n\
                 async fn notes(&self, peer: &Peer<RoleServer>) { let dir = Self::first(peer).await.unwrap(); let _ = std::fs::read_dir(&dir); }\n\
                 fn walk(listed: ListRootsResult) { let r = listed.roots.first().unwrap(); crate::fsx::files_in(Path::new(&r.uri)); }\n\
                 fn guard(listed: ListRootsResult, p: &Path) -> bool { crate::fsx::inside(&listed.roots, p) }\n\
                 }\n",
            ),
            (
                "src/fsx.rs",
                "pub fn files_in(dir: &Path) { let _ = std::fs::read_dir(dir); }\n\
                 pub fn inside(dirs: &[Root], p: &Path) -> bool { dirs.iter().any(|d| p.starts_with(&d.uri)) }\n",
            ),
        ]);
        let flow = model.roots();
        let id = |name: &str| model.fn_by_path(&["S", name]).unwrap();
        assert_eq!(flow.purpose(&model, id("read")), RootsPurpose::AllowList, "through the guard's push");
        assert_eq!(flow.purpose(&model, id("notes")), RootsPurpose::WorkingDir, "a helper returning one root");
        assert_eq!(flow.purpose(&model, id("walk")), RootsPurpose::WorkingDir, "handed to `files_in`");
        assert!(flow.compares(&model, &[id("guard")]), "the list handed to `inside`, which compares");
        assert!(flow.passed_to(&model, &[id("guard")]).is_empty());
        assert_eq!(param_dirs_of(&model, &["fsx", "files_in"]), (1, 0));
        assert_eq!(param_dirs_of(&model, &["fsx", "inside"]), (0, 0b11), "both sides of the check");
    }

    fn param_dirs_of(model: &CrateModel, path: &[&str]) -> (u32, u32) {
        model.func(model.fn_by_path(path).unwrap()).param_dirs
    }

    /// A list the crate never fills with roots, and a helper of another crate, stay unknown.
    #[test]
    fn unknown_places_and_helpers_are_not_roots() {
        let model = model_of(&[(
            "src/lib.rs",
            "use rmcp::model::ListRootsResult;\n\
             struct S { dirs: Vec<PathBuf> }\n\
             impl S {\n\
             fn new(args: Args) -> S { S { dirs: args.dirs } }\n\
             fn a(&self) { let d = self.dirs.first(); let e = other_crate::folders().first(); }\n\
             }\n",
        )]);
        assert!(uses(&model).iter().all(|u| u.1 != Purpose::First), "{:?}", uses(&model));
    }
}
