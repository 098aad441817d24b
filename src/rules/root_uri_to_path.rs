//! `root-uri-to-path`: a `file://` root URI turned into a path by cutting the scheme off
//! (`strip_prefix("file://")`, `trim_start_matches("file://")`, `replace("file://", "")`,
//! `&uri[7..]`, `Url::parse(..)?.path()`) instead of a URL library's `to_file_path`.
//!
//! A URI is not a path: its characters are percent-encoded (`/home/ana/My%20Project`), a Windows
//! drive is `file:///C:/work` (cut to `/C:/work`) and a share is `file://host/share` (cut to
//! `host/share`). Only `url::Url::to_file_path` (or an equivalent) decodes and applies the
//! platform's rules.
//!
//! Where it fires (never in client code or tests):
//! - on a root's URI anywhere: the string flows from a roots list (`r.uri` in a closure over
//!   `listed.roots`, `first.uri` after `let first = roots.first()`, a `root_uri` parameter);
//! - in a crate function that a root's URI, or a list of them, is handed to (`rust_crate`, from the
//!   crate model's `uri_cuts`): through its parameters, maybe through other helpers and other
//!   files (`store.adopt(uris)` → `to_path(p)` for each → `p.strip_prefix("file://")`), reported
//!   at the cut with the function that held the roots;
//! - in server code (a `#[tool]`, a `ServerHandler` impl, a function taking `RoleServer`, or a
//!   file that only has server words), on any `file://` URI the request brought (`request.uri` in
//!   `read_resource`, a `uri` parameter and what is bound from it): resource URIs have the same
//!   problem, when the function works on files (mentions `Path`, `PathBuf`, `fs`, `File`, …). URIs
//!   the server made itself (`format!("file://{}", ..)` stored in its index) round-trip consistently
//!   and are left alone.
//!
//! A function that percent-decodes what it cut (`percent_decode_str`, `urlencoding::decode`) is left
//! alone: it did the conversion's main work by hand.
//!
//! `&uri[7..]` is only trusted on a root's URI, or in server code when the function also tests
//! `uri.starts_with("file://")` or slices with `"file://".len()`.

use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;

use syn::Expr;

use crate::context::{Impact, Role};
use crate::cx::{CrateCx, Cx};
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::model::CrateModel;
use crate::model::flow::{Flow, Kind, Sink, Walker, compact, normalized, strip, tested_receivers};
use crate::model::roots::{self, ROOTS_WORDS, may_hold_roots, server_code_with_roots};
use crate::model::uri_cuts::{
    SchemeConsts, is_file_scheme, is_scheme_cut, lit_str, root_uri_cuts, slice_range, slice_start,
};
use crate::rules::{FnRef, Rule, RuleMeta, concat_words};
use crate::rust::macro_body::MacroBody;
use crate::rust::syntax::{block_text, fn_text, idents_any, method_call_range, text_may_mention, tokens_mention_any};

pub struct RootUriToPath;

/// `file://` and a quoted `"file:"` for the string forms (a bare `file:` is in every other doc
/// comment); the roots words (`roots::ROOTS_WORDS`) for `&uri[7..]` on a root's URI.
const TRIGGERS: &[&str] = &concat_words::<2, 13, 15>(FILE_WORDS, ROOTS_WORDS);

/// Words of a file that may hand a root's URI on to a helper without any trigger word of its own
/// (`fn valid_roots(&self, roots: Vec<&str>)`): it joins the crate model where another file of the
/// crate has the rule's words, so the flow from the roots to the cut can cross it. Identifiers that
/// start with `roots`, `uris` or `root_uri` (a list of roots' URIs, or one, by the usual names):
/// broader words (`root`, `uri`) made 5–7% more of the ecosystem check's files parsed for no finding.
const CRATE_WORDS: &[&str] = &["\\broots", "\\buris", "\\broot_uri"];

/// The trigger words beyond the roots words.
const FILE_WORDS: [&str; 2] = ["file://", "\"file:\""];

static META: RuleMeta = RuleMeta {
    name: "root-uri-to-path",
    summary: "Turns a `file://` root URI into a path by cutting off the scheme (no percent-decoding, no platform rules)",
    impact: Impact::Violation,
    triggers: TRIGGERS,
    json_triggers: &[],
    mcp_triggers: &[],
    crate_triggers: CRATE_WORDS,
    help: Some(
        "parse the URI and convert it with a URL library: `url::Url::parse(&root.uri)` then `.to_file_path()` decodes \
         `%20` and follows the platform's rules (`file:///C:/x`, `file://host/share`); better, since roots are \
         deprecated in MCP 2026-07-28, take the directory as an explicit tool parameter",
    ),
    fixable: true,
    doc: include_str!("../../rules/root-uri-to-path.md"),
};

/// What the text of a function with a cut has: one of `CUTS`, `path` (`Url::parse(..)?.path()`), or
/// the `..` of a slice (`&uri[7..]`, `uri.get(7..)`).
const CUT_WORDS: &[&str] = &["strip_prefix", "trim_start_matches", "trim_left_matches", "replace", "path", ".."];

impl Rule for RootUriToPath {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn uses_model(&self) -> bool {
        true
    }

    /// A root's URI handed to a crate function (maybe through others, in other files) that cuts
    /// the scheme off its parameter: reported at the cut. A cut the function's own walk already
    /// reports (`rust_fn`) is the same finding, kept once by the engine.
    fn rust_crate(&self, cx: &mut CrateCx, model: &CrateModel) {
        for c in root_uri_cuts(model) {
            let source = model.func(c.source);
            let owner = model.owner(c.source).map(|o| o.rsplit("::").next().unwrap_or(o));
            let caller = match owner {
                Some(o) => format!("{o}::{}", source.name),
                None => source.name.clone(),
            };
            let at = cx.place(model.file_of(c.source), c.handed_at.start);
            let through = c.chain.iter().map(|f| format!("`{}`", model.func(*f).name)).collect::<Vec<_>>().join(" → ");
            let (shown, param, recv) = (&c.cut.shown, &c.cut.param, &c.cut.receiver);
            let message = format!(
                "`{shown}` turns a root's `file://` URI into a path by cutting off the scheme: `{caller}` ({at}) \
                 hands the client's roots to {through}, where `{param}` is cut; percent-escapes stay (`%20`), and \
                 `file:///C:/x` or `file://host/share` become wrong paths"
            );
            let file = model.file_of(c.fn_);
            let label = format!("cuts the scheme off a root's URI (from `{caller}`)");
            let (title, suggestion) = url_fix(cx.files[file].crate_ctx, recv);
            let d = cx.report(&META, file, c.cut.range.clone(), message, label);
            d.fix(Fix {
                title,
                applicability: Applicability::DisplayOnly,
                edits: vec![Edit::replace(c.cut.fix.clone(), suggestion)],
            });
        }
    }

    fn rust_file(&self, cx: &mut Cx, file: &syn::File) {
        roots::file_fields(cx, file);
        SchemeConsts::of(cx, file);
    }

    fn rust_fn(&self, cx: &mut Cx, f: &FnRef) {
        if !server_code_with_roots(cx, f.body, &FILE_WORDS) {
            return;
        }
        // Every cut reported is a call of a `CUTS` method or `path`, or a slice from `n..`: words
        // of the function's text.
        let whole_text = fn_text(cx, f.sig, f.body);
        if !text_may_mention(whole_text, CUT_WORDS) {
            return;
        }
        let fields = roots::known_fields(cx);
        let text = block_text(cx, f.body);
        let consts = SchemeConsts::with_locals(SchemeConsts::known(cx), f.body);
        let mut sink = UriCut {
            cx,
            body: f.body,
            text,
            consts,
            server: None,
            decodes: None,
            scheme_tested: None,
            body_tokens: None,
        };
        // Every cut reported is of a root's string (which needs a sign of roots in the text), or
        // in server code.
        if !may_hold_roots(whole_text, &fields) && !sink.server() {
            return;
        }
        Walker::walk(f.sig, f.body, fields, &mut sink);
    }
}

/// Identifiers that show a function works on the filesystem.
const FS_WORDS: &[&str] =
    &["Path", "PathBuf", "fs", "File", "read_dir", "read_to_string", "canonicalize", "metadata", "WalkDir"];

/// What is known of the function is read when first needed: most functions have no cut.
struct UriCut<'c, 'a, 'f> {
    cx: &'c mut Cx<'a>,
    body: &'f syn::Block,
    /// The body's text (`block_text`).
    text: Option<&'a str>,
    /// The scheme consts in scope (`SchemeConsts`).
    consts: Vec<String>,
    /// The code at hand is a server's, and works on files: request URIs count, not only roots'.
    server: Option<bool>,
    /// The function percent-decodes what it cut: it did the conversion's main work by hand.
    decodes: Option<bool>,
    /// Strings the function tests with `starts_with("file://")`, normalized.
    scheme_tested: Option<HashSet<String>>,
    /// The body as tokens, printed when first needed (`body_tokens`).
    body_tokens: Option<proc_macro2::TokenStream>,
}

impl UriCut<'_, '_, '_> {
    /// Whether the code is a server's and works on files. Like `decodes`, read once, and the body
    /// is printed to tokens only when its text has a word looked for.
    fn server(&mut self) -> bool {
        if self.server.is_none() {
            // Outside roots, only code that works on files is turning the URI into a path.
            let server = self.cx.role() == Role::Server
                && text_may_mention(self.text, FS_WORDS)
                && tokens_mention_any(self.body_tokens(), FS_WORDS);
            self.server = Some(server);
        }
        self.server == Some(true)
    }

    fn decodes(&mut self) -> bool {
        if self.decodes.is_none() {
            let decodes = text_may_mention(self.text, &["decode", "unescape"])
                && idents_any(self.body_tokens(), &|i| i.contains("decode") || i.contains("unescape"));
            self.decodes = Some(decodes);
        }
        self.decodes == Some(true)
    }

    /// The body printed to tokens, once for both `server` and `decodes`.
    fn body_tokens(&mut self) -> &proc_macro2::TokenStream {
        let body = self.body;
        self.body_tokens.get_or_insert_with(|| quote::ToTokens::to_token_stream(body))
    }

    fn scheme_tested(&mut self) -> &HashSet<String> {
        let body = self.body;
        self.scheme_tested.get_or_insert_with(|| scheme_tested(body))
    }

    fn report(&mut self, range: Range<usize>, receiver: &Expr, rooted: bool, fix_range: Range<usize>) {
        if self.decodes() {
            return;
        }
        let shown = compact(self.cx.text(range.clone()));
        let recv = compact(self.cx.text(self.cx.node_range(receiver)));
        let recv = recv.trim_start_matches('&').to_owned();
        let what = if rooted { "a root's `file://` URI" } else { "a `file://` URI" };
        let (title, suggestion) = url_fix(self.cx.crate_ctx, &recv);
        let d = self.cx.report(
            &META,
            range,
            format!(
                "`{shown}` turns {what} into a path by cutting off the scheme: percent-escapes stay (`%20`), and \
                 `file:///C:/x` or `file://host/share` become wrong paths"
            ),
            if rooted { "cuts the scheme off a root's URI" } else { "cuts the scheme off a URI" },
        );
        d.fix(Fix {
            title,
            applicability: Applicability::DisplayOnly,
            edits: vec![Edit::replace(fix_range, suggestion)],
        });
    }

    /// Whether to fire on a cut of `receiver`'s string: a root's URI anywhere; in server code, a
    /// URI the request brought (`request.uri`, a `uri` parameter), not one the server made itself.
    fn fires(&mut self, flow: &mut Flow, receiver: &Expr) -> Option<bool> {
        let k = flow.kind_of(receiver);
        if k.is_some_and(Kind::is_path) || matches!(k, Some(Kind::List(_) | Kind::Root)) {
            return None;
        }
        let rooted = matches!(k, Some(Kind::RootStr | Kind::RootNamed));
        (rooted || (flow.is_request_data(receiver) && self.server())).then_some(rooted)
    }
}

impl Sink for UriCut<'_, '_, '_> {
    fn macro_body(&self, m: &syn::Macro) -> Option<Rc<MacroBody>> {
        self.cx.macro_body(m)
    }

    fn expr(&mut self, flow: &mut Flow, e: &Expr) {
        match e {
            Expr::MethodCall(m) => {
                let name = &m.method;
                if is_scheme_cut(m, &self.consts) {
                    if let Some(rooted) = self.fires(flow, &m.receiver) {
                        let range = method_call_range(self.cx, m);
                        let fix = self.cx.node_range(&*m.receiver).start..range.end;
                        self.report(range, &m.receiver, rooted, fix);
                    }
                } else if name == "get" && m.args.len() == 1 {
                    // `uri.get(7..)`
                    if let Expr::Range(r) = strip(&m.args[0])
                        && let Some(rooted) = self.slice_fires(flow, &m.receiver, r)
                    {
                        let range = method_call_range(self.cx, m);
                        let fix = self.cx.node_range(&*m.receiver).start..range.end;
                        self.report(range, &m.receiver, rooted, fix);
                    }
                } else if name == "path" && m.args.is_empty() {
                    // `Url::parse(&root.uri)?.path()`: the path part, still percent-encoded; also
                    // on a local bound to it (`if let Ok(u) = Url::parse(&root.uri)`, then
                    // `u.path()`): a root's string has no `path()` of its own, so it was parsed.
                    let parsed_root = match url_parse_arg(&m.receiver) {
                        Some(arg) => flow.kind_of(arg).is_some_and(|k| matches!(k, Kind::RootStr | Kind::RootNamed)),
                        None => {
                            matches!(strip(&m.receiver), Expr::Path(p) if p.path.get_ident().is_some())
                                && flow.kind_of(&m.receiver) == Some(Kind::RootStr)
                        }
                    };
                    if parsed_root && !self.decodes() {
                        let range = method_call_range(self.cx, m);
                        let shown = self.cx.text(range.clone()).to_owned();
                        let d = self.cx.report(
                            &META,
                            range.clone(),
                            format!(
                                "`{shown}` of a root's URI is the URL's path, still percent-encoded (`%20`) and \
                                 without the platform's rules (`/C:/x` on Windows): it is not a filesystem path"
                            ),
                            "the URL's path, not a file path",
                        );
                        d.fix(Fix {
                            title: "use `to_file_path()`, which decodes the path and follows the platform's rules"
                                .into(),
                            applicability: Applicability::DisplayOnly,
                            edits: vec![Edit::replace(range, "to_file_path()")],
                        });
                    }
                }
            }
            Expr::Index(i) => {
                if let Expr::Range(r) = strip(&i.index)
                    && let Some(rooted) = self.slice_fires(flow, &i.expr, r)
                {
                    let whole = self.cx.node_range(e);
                    let range = slice_range(self.cx, e, i);
                    // `uri[7..]` (the `&` before it stays: `&PathBuf` reads like `&str` did).
                    self.report(range, &i.expr, rooted, whole);
                }
            }
            _ => {}
        }
    }
}

impl UriCut<'_, '_, '_> {
    /// `s[7..]`, `s["file://".len()..]`: whether slicing `s` from there cuts a `file://` scheme.
    fn slice_fires(&mut self, flow: &mut Flow, base: &Expr, r: &syn::ExprRange) -> Option<bool> {
        let (_, scheme_len) = slice_start(r, &self.consts)?;
        let k = flow.kind_of(base);
        if !k.is_some_and(|k| k.is_str() || k == Kind::RootNamed) {
            return None;
        }
        let rooted = matches!(k, Some(Kind::RootStr | Kind::RootNamed));
        if rooted {
            return Some(true);
        }
        (flow.is_request_data(base)
            && self.server()
            && (scheme_len || self.scheme_tested().contains(&normalized(base))))
        .then_some(false)
    }
}

/// The argument of `Url::parse(x)` under `?`, `.unwrap()`, `.expect(..)`, `.ok()`.
fn url_parse_arg(e: &Expr) -> Option<&Expr> {
    match strip(e) {
        Expr::Try(t) => url_parse_arg(&t.expr),
        Expr::MethodCall(m) if ["unwrap", "expect", "ok", "map_err"].iter().any(|n| m.method == n) => {
            url_parse_arg(&m.receiver)
        }
        Expr::Call(c) => match strip(&c.func) {
            Expr::Path(p) if crate::rust::syntax::path_ends_with(&p.path, &["Url", "parse"]) => c.args.first(),
            _ => None,
        },
        _ => None,
    }
}

/// Normalized strings the function tests with `starts_with("file://")` (or `"file:"`).
fn scheme_tested(body: &syn::Block) -> HashSet<String> {
    tested_receivers(body, |m| {
        m.method == "starts_with" && m.args.first().and_then(lit_str).is_some_and(|s| is_file_scheme(&s))
    })
}

/// The display-only fix's title and text: the `url` crate's conversion, as an `Option<PathBuf>`
/// (it fits where the cut gave an `Option`, with no `?` that the surrounding closure or function
/// might not allow), and the dependency to add where the manifest lacks it.
fn url_fix(crate_ctx: &crate::context::CrateContext, recv: &str) -> (String, String) {
    let suggestion = format!("url::Url::parse(&{recv}).ok().and_then(|u| u.to_file_path().ok())");
    let add = if crate_ctx.depends_on("url") { "" } else { " (add `url` to the dependencies)" };
    (format!("convert the URI with the `url` crate: `{suggestion}`{add}"), suggestion)
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Applicability;

    fn check(text: &str) -> Vec<String> {
        crate::rules::test_support::spans_of("root-uri-to-path", "lib.rs", text).into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn cuts_of_a_root_uri() {
        let text = "use rmcp::model::ListRootsResult;\n\
                    fn f(listed: ListRootsResult, root_uri: &str) {\n\
                    let a: Vec<_> = listed.roots.iter().filter_map(|r| r.uri.strip_prefix(\"file://\")).collect();\n\
                    let first = listed.roots.first().unwrap();\n\
                    let b = first.uri.trim_start_matches(\"file://\");\n\
                    let c = first.uri.replace(\"file://\", \"\");\n\
                    let d = &root_uri[7..];\n\
                    let e = url::Url::parse(&first.uri).unwrap().path();\n\
                    }\n";
        assert_eq!(
            check(text),
            [
                "strip_prefix(\"file://\")",
                "trim_start_matches(\"file://\")",
                "replace(\"file://\", \"\")",
                "root_uri[7..]",
                "path()"
            ]
        );
    }

    #[test]
    fn server_code_any_file_uri() {
        let text = "use rmcp::{ServerHandler, model::*};\n\
                    impl ServerHandler for S {\n\
                      async fn read_resource(&self, request: ReadResourceRequestParams) {\n\
                        let p = request.uri.strip_prefix(\"file://\").map(std::fs::read);\n\
                        let uri = request.uri.as_str();\n\
                        if uri.starts_with(\"file://\") { let q = &uri[7..]; }\n\
                        let z = &uri[7..];\n\
                        let w = uri.replace(\"file://\", \"https://\");\n\
                        let own: Vec<_> = self.index.iter().filter_map(|r| r.uri.strip_prefix(\"file://\")).collect();\n\
                      }\n\
                    }\n";
        assert_eq!(check(text), ["strip_prefix(\"file://\")", "uri[7..]", "uri[7..]"]);
    }

    #[test]
    fn decoding_and_non_file_work_are_silent() {
        let text = "use rmcp::ServerHandler;\n\
                    impl ServerHandler for S {\n\
                      async fn read_resource(&self, request: ReadResourceRequestParams) {\n\
                        let raw = request.uri.trim_start_matches(\"file://\");\n\
                        let path = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();\n\
                      }\n\
                    }\n\
                    impl S { fn repo_file(&self, uri: &str) -> Vec<String> { uri.trim_start_matches(\"file://\").split('/').map(str::to_owned).collect() } }\n";
        assert!(check(text).is_empty(), "{:?}", check(text));
    }

    /// Decoding silences every cut of the function, the root's too, and `path()`.
    #[test]
    fn decoding_silences_root_cuts() {
        let text = "use rmcp::model::Root;\n\
                    fn f(root: &Root) { let p = root.uri.strip_prefix(\"file://\"); let q = urlencoding::decode(p); }\n\
                    fn g(root: &Root) { let p = url::Url::parse(&root.uri).unwrap().path(); let q = percent_decode_str(p); }\n\
                    fn h(root: &Root) { let p = url::Url::parse(&root.uri).unwrap().path(); let q = root.uri.get(7..); }\n";
        assert_eq!(check(text), ["path()", "get(7..)"]);
    }

    /// A root's URI handed to a helper that cuts it: one finding at the cut, naming the caller;
    /// a helper whose parameter is named like a root is the per-file walk's finding, kept once;
    /// roots held in test code or client code, and a helper in test code, give none.
    #[test]
    fn helpers_reached_by_a_root_uri() {
        let text = "use rmcp::model::ListRootsResult;\n\
                    fn to_dir(s: &str) -> &str { s.trim_start_matches(\"file://\") }\n\
                    fn named(root_uri: &str) -> &str { root_uri.strip_prefix(\"file://\").unwrap() }\n\
                    fn go(listed: ListRootsResult) { for r in &listed.roots { to_dir(&r.uri); named(&r.uri); } }\n\
                    fn in_test(x: &str) -> &str { x.strip_prefix(\"file:\").unwrap() }\n\
                    #[cfg(test)] fn t(listed: ListRootsResult) { for r in &listed.roots { in_test(&r.uri); } }\n";
        assert_eq!(check(text), ["trim_start_matches(\"file://\")", "strip_prefix(\"file://\")"]);
        let found = crate::rules::test_support::diagnostics_of("root-uri-to-path", "lib.rs", text);
        assert!(
            found[0].message.contains("`go` (lib.rs:4) hands the client's roots to `to_dir`, where `s` is cut"),
            "{}",
            found[0].message
        );
        let client = "use rmcp::{ClientHandler, model::ListRootsResult};\n\
                      fn to_dir(s: &str) -> &str { s.trim_start_matches(\"file://\") }\n\
                      struct C;\nimpl ClientHandler for C {}\n\
                      impl C { fn go(&self, listed: ListRootsResult) { for r in &listed.roots { to_dir(&r.uri); } } }\n";
        assert!(check(client).is_empty(), "{:?}", check(client));
    }

    #[test]
    fn cut_words_cover_the_cuts() {
        for cut in crate::model::uri_cuts::CUTS {
            assert!(super::CUT_WORDS.iter().any(|w| cut.contains(w)), "{cut}");
        }
    }

    #[test]
    fn unknown_role_needs_a_root() {
        let text = "fn f(s: &str) { let p = s.strip_prefix(\"file://\"); let q = &s[7..]; }\n";
        assert!(check(text).is_empty());
    }

    #[test]
    fn triggers_cover_the_roots_words() {
        for w in crate::model::roots::ROOTS_WORDS {
            assert!(super::TRIGGERS.contains(&w), "{w} is missing from the triggers");
        }
    }

    #[test]
    fn the_suggestion_is_display_only() {
        let text = "use rmcp::model::Root;\nfn f(root: &Root) { let p = root.uri.strip_prefix(\"file://\"); }\n";
        let dir = tempfile::tempdir().unwrap();
        let found = crate::rules::test_support::check_text(&dir.path().join("lib.rs"), text.to_owned());
        let d = found.iter().find(|d| d.rule == "root-uri-to-path").expect("a finding");
        let fix = d.fix.as_ref().unwrap();
        assert_eq!(fix.applicability, Applicability::DisplayOnly);
        assert_eq!(fix.edits[0].replacement, "url::Url::parse(&root.uri).ok().and_then(|u| u.to_file_path().ok())");
        assert_eq!(&text[fix.edits[0].byte_range.clone()], "root.uri.strip_prefix(\"file://\")");
        assert!(fix.title.ends_with("(add `url` to the dependencies)"), "{}", fix.title);
        // A crate that has `url` already is not told to add it.
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"s\"\n[dependencies]\nurl = \"2\"\n")
            .unwrap();
        let found = crate::rules::test_support::check_text(&dir.path().join("lib.rs"), text.to_owned());
        let d = found.iter().find(|d| d.rule == "root-uri-to-path").expect("a finding");
        assert!(!d.fix.as_ref().unwrap().title.contains("add `url`"), "{:?}", d.fix);
    }
}
