//! `--roots-to mrtr` (issue #17): a `#[tool]` that awaits `list_roots()` on its own
//! `RequestContext`/`Peer` asks for the roots through the 2026-07-28 round trip instead. The first
//! call returns an `input_required` result holding a `roots/list` request under the key "roots";
//! the retry's `inputResponses` carry the answer, read where the request was awaited. rmcp has
//! the extractor and the result types from 3.1.1 on. The roots capability and handlers stay: the
//! server still uses roots, through results.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::Path;

use syn::visit::{self, Visit};
use syn::{Expr, FnArg, Pat, ReturnType, Stmt};

use super::index::{FnSite, Index};
use super::purpose::Purposes;
use super::text::{Src, indent_at, mentions_ident, skip_ws};
use super::{CrateOutcome, use_leaves};
use crate::diagnostic::Edit;

mod helper;
mod imports;

/// The key of the roots request in `inputRequests` and of its answer in `inputResponses`.
const KEY: &str = "roots";

/// The variable the rewritten tool binds the answer to (a `&serde_json::Value`).
const ANSWER: &str = "roots_answer";

/// What the codemod imports for the rewrite, by the name the rewritten text uses. The deprecated
/// roots types are spelled out instead: a `use` of them warns, and no `#[allow]` reaches it.
const IMPORTS: &[(&str, &str)] = &[
    ("InputResponses", "rmcp::handler::server::tool::InputResponses"),
    ("CallToolResponse", "rmcp::model::CallToolResponse"),
    ("InputRequest", "rmcp::model::InputRequest"),
    ("InputRequiredResult", "rmcp::model::InputRequiredResult"),
];

/// The rmcp version the crate builds with: its `Cargo.lock` (here or in a folder above), else the
/// lowest version its `Cargo.toml` requirement allows.
fn rmcp_version(manifest: &Path) -> Option<String> {
    let dir = manifest.parent()?;
    for lock in dir.ancestors().map(|d| d.join("Cargo.lock")).filter(|l| l.is_file()) {
        let table = std::fs::read_to_string(&lock).ok()?.parse::<toml::Table>().ok()?;
        let packages = table.get("package").and_then(|p| p.as_array()).cloned().unwrap_or_default();
        let found = packages.iter().find(|p| p.get("name").and_then(|n| n.as_str()) == Some("rmcp"));
        if let Some(v) = found.and_then(|p| p.get("version")).and_then(|v| v.as_str()) {
            return Some(v.to_owned());
        }
    }
    let table = std::fs::read_to_string(manifest).ok()?.parse::<toml::Table>().ok()?;
    let dep = table.get("dependencies")?.get("rmcp")?;
    let req = dep.as_str().or_else(|| dep.get("version").and_then(|v| v.as_str()))?;
    Some(req.trim_start_matches(['^', '=', '~', ' ']).to_owned())
}

/// The applied note of a tool that now asks for the roots through its result; `helper` says what
/// became of the helper that requested them for it.
fn applied_note(tool: &str, timed: bool, helper: Option<&str>) -> String {
    let timeout = if timed {
        "; its `tokio::time::timeout` goes, as nothing is awaited (the answer comes with the retry), and so does \
         its time-out arm's error"
    } else {
        ""
    };
    let helper = helper.map(|h| format!("; {h}")).unwrap_or_default();
    format!(
        "the tool `{tool}` asks for the roots through an `input_required` result: a client that answers input \
         requests (2026-07-28) gets the same result after its retry; a client of an older revision, which cannot, \
         now gets an error where it got the result, and a failed roots request becomes a malformed \
         `inputResponses` answer{timeout}{helper}"
    )
}

/// Whether `version` is at least 3.1.1 (missing parts count as 0).
fn has_mrtr(version: &str) -> bool {
    let parts: Vec<u64> =
        version.split(['.', '-', '+']).take(3).map(|p| p.parse().unwrap_or(0)).chain([0, 0, 0]).take(3).collect();
    (parts[0], parts[1], parts[2]) >= (3, 1, 1)
}

/// What `--roots-to mrtr` reads of the crate.
pub struct Crate<'c, 'a> {
    pub index: &'c Index<'a>,
    pub texts: &'c [String],
    pub bases: &'c [usize],
    pub asts: &'c [Option<&'c syn::File>],
    pub purposes: &'c Purposes,
}

impl Crate<'_, '_> {
    fn src(&self, file: usize) -> Src<'_> {
        Src { text: &self.texts[file], base: self.bases[file] }
    }
}

/// Plans `--roots-to mrtr` for the crate: `calls` are the functions requesting the roots, with
/// the ranges of their requests (as `server-roots-request` reports them).
pub fn plan(out: &mut CrateOutcome, cx: &Crate, calls: &[(usize, Vec<Range<usize>>)], manifest: Option<&Path>) {
    let (index, texts, bases, asts) = (cx.index, cx.texts, cx.bases, cx.asts);
    let refuse = |out: &mut CrateOutcome, fi: usize, ranges: &[Range<usize>], why: String| {
        for r in ranges {
            out.refused.push((index.fns[fi].file, r.clone(), why.clone()));
        }
    };
    let version = manifest.and_then(rmcp_version);
    if let Some(why) = match &version {
        None => Some(
            "`--roots-to mrtr` needs rmcp >= 3.1.1, and no rmcp version was found in the crate's Cargo.lock \
                      or Cargo.toml"
                .to_owned(),
        ),
        Some(v) if !has_mrtr(v) => Some(format!(
            "`--roots-to mrtr` needs rmcp >= 3.1.1 (its `InputResponses` extractor and `InputRequiredResult`), and \
             the crate builds with rmcp {v}"
        )),
        _ => None,
    } {
        for (fi, ranges) in calls {
            refuse(out, *fi, ranges, why.clone());
        }
        return;
    }
    let mut per_file: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
    // The files of rewritten tools, which need the imports.
    let mut tool_files: HashSet<usize> = HashSet::new();
    let requesters: Vec<usize> = calls.iter().map(|(fi, _)| *fi).collect();
    // Tools a helper's rewrite gave the round trip.
    let mut claimed: HashSet<usize> = HashSet::new();
    for (fi, ranges) in calls {
        let site = &index.fns[*fi];
        // A helper (a method or a free function): the tools calling it ask for the roots.
        if !site.is_tool && site.impl_trait.is_none() {
            match helper::plan(cx, *fi, ranges, &requesters, &claimed) {
                Ok(plan) => {
                    for (f, e) in plan.edits {
                        per_file.entry(f).or_default().push(e);
                    }
                    for t in plan.tools {
                        let tool = &index.fns[t];
                        claimed.insert(t);
                        tool_files.insert(tool.file);
                        out.applied.push((tool.file, applied_note(&tool.tool_name(), plan.timed, Some(&plan.note))));
                    }
                }
                Err(why) => refuse(out, *fi, ranges, format!("`--roots-to mrtr`: {why}")),
            }
            continue;
        }
        let src = cx.src(site.file);
        match rewrite(&src, site, ranges) {
            Ok((edits, timed)) => {
                per_file.entry(site.file).or_default().extend(edits);
                tool_files.insert(site.file);
                out.applied.push((site.file, applied_note(&site.tool_name(), timed, None)));
            }
            Err(why) => refuse(out, *fi, ranges, format!("`--roots-to mrtr`: {why}")),
        }
    }
    for (f, mut edits) in per_file {
        if let Some(ast) = asts[f]
            && tool_files.contains(&f)
        {
            let known: Vec<String> = use_leaves(ast).into_iter().map(|(l, _)| l).collect();
            let paths: Vec<&str> =
                IMPORTS.iter().filter(|(leaf, _)| !known.iter().any(|k| k == leaf)).map(|(_, path)| *path).collect();
            edits.extend(imports::import_edits(&cx.src(f), ast, &paths));
        }
        let eol = super::line_ending(&texts[f]);
        let new = crate::fix::apply_edits(&texts[f], &edits, eol);
        let parsed = match crate::rust::parse::parse_rust(&new) {
            Ok(p) => p,
            Err(e) => {
                out.dropped = Some(format!("a file would not parse after `--roots-to mrtr` ({})", e.message));
                out.applied.clear();
                out.texts.clear();
                return;
            }
        };
        // The context parameters the rewrite replaced may leave their imports unused.
        let before_uses: Vec<Range<usize>> = asts[f]
            .map(|a| {
                let s = Src { text: &texts[f], base: bases[f] };
                a.items.iter().filter(|it| matches!(it, syn::Item::Use(_))).map(|it| s.range(it)).collect()
            })
            .unwrap_or_default();
        let candidates: HashSet<String> =
            ["RequestContext", "Peer", "RoleServer", "Duration"].iter().map(|s| s.to_string()).collect();
        let src = Src { text: &new, base: parsed.base };
        let unused = super::unused_imports(&src, &parsed.file, &texts[f], &before_uses, &candidates);
        let new = if unused.is_empty() { new.clone() } else { crate::fix::apply_edits(&new, &unused, eol) };
        out.texts.insert(f, new);
    }
}

/// The edits that turn the tool's one awaited `list_roots()` into the round trip, and whether it
/// was awaited under `tokio::time::timeout`.
fn rewrite(src: &Src, site: &FnSite, ranges: &[Range<usize>]) -> Result<(Vec<Edit>, bool), String> {
    let name = site.name();
    if !site.is_tool {
        return Err(format!(
            "`{name}` is not a `#[tool]` method: only a tool's own request can become an `input_required` result \
             (a helper, a roots cache or `on_initialized` would need the tool's result to carry it)"
        ));
    }
    let what = format!("the tool `{name}`");
    let request = find_request(src, site, ranges, &what)?;
    let Some((_, param)) = context_param(site.sig, &request.receiver) else {
        return Err(format!(
            "in the tool `{name}`, the roots are requested on `{}`, not on the tool's `RequestContext` or `Peer` \
             parameter",
            request.receiver
        ));
    };
    let mut edits = tool_edits(src, site, request.stmt_start, param, Some(request.awaited.clone()))?;
    edits.extend(answer_edits(src, site.block, &request));
    Ok((edits, request.limit.is_some()))
}

/// Where a function awaits its one request for the roots.
struct Request {
    /// From the receiver (or `tokio::time::timeout`) to `.await`.
    awaited: Range<usize>,
    /// The variable the request is sent on.
    receiver: String,
    /// The time limit of a request under `tokio::time::timeout(limit, …)`.
    limit: Option<Expr>,
    /// Where the body's statement holding it starts.
    stmt_start: usize,
}

/// The one request of `site` (`what` names it in a refusal), awaited in its own body.
fn find_request(src: &Src, site: &FnSite, ranges: &[Range<usize>], what: &str) -> Result<Request, String> {
    if ranges.len() != 1 {
        return Err(format!("{what} requests the roots {} times; the codemod rewrites one request", ranges.len()));
    }
    let mut find = FindAwait { src, call: ranges[0].clone(), found: None, depth: 0, nested: false, limit: None };
    find.visit_block(site.block);
    let found = find.found.clone();
    let (Some((awaited, receiver)), Some(stmt_start)) =
        (found.clone(), found.and_then(|(r, _)| innermost_stmt(src, site.block, r.start)))
    else {
        return Err(format!(
            "in {what}, `list_roots()` is not awaited in its body, itself or under `tokio::time::timeout` (it is in \
             a macro's body, or not followed by `.await`)"
        ));
    };
    if find.nested {
        return Err(format!(
            "in {what}, `list_roots()` is awaited inside a closure or an `async` block, which cannot return the \
             tool's `input_required` result"
        ));
    }
    Ok(Request { awaited, receiver, limit: find.limit, stmt_start })
}

/// The start of the innermost statement holding byte `at` in `block` and its nested blocks (not
/// those of closures, `async` blocks or items): the round trip goes right before it, so a request
/// made in one branch is asked for only there.
fn innermost_stmt(src: &Src, block: &syn::Block, at: usize) -> Option<usize> {
    struct Innermost<'s> {
        src: &'s Src<'s>,
        at: usize,
        start: Option<usize>,
    }
    impl<'ast> Visit<'ast> for Innermost<'_> {
        fn visit_block(&mut self, b: &'ast syn::Block) {
            if let Some(stmt) = b.stmts.iter().find(|s| self.src.range(*s).contains(&self.at)) {
                self.start = Some(self.src.range(stmt).start);
                visit::visit_stmt(self, stmt);
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = Innermost { src, at, start: None };
    find.visit_block(block);
    find.start
}

/// The parameter named `receiver` when it is a `RequestContext` or a `Peer` (or a reference to
/// one), with its position in the signature.
fn context_param<'s>(sig: &'s syn::Signature, receiver: &str) -> Option<(usize, &'s syn::PatType)> {
    sig.inputs.iter().enumerate().find_map(|(i, a)| match a {
        FnArg::Typed(t) => match &*t.pat {
            Pat::Ident(p)
                if p.ident == receiver
                    && super::lookup::type_last_ident(&t.ty).is_some_and(|n| n == "RequestContext" || n == "Peer") =>
            {
                Some((i, t))
            }
            _ => None,
        },
        FnArg::Receiver(_) => None,
    })
}

/// What every rewritten tool gets, wherever the request was: before the statement at
/// `stmt_start`, the roots read from the retry or the first call's `input_required` return; the
/// `CallToolResponse` return type with its `Ok`s converted; the extractor, in place of `param`
/// when nothing but the text at `moved` (which the rewrite replaces) names it; `#[allow(deprecated)]`.
fn tool_edits(
    src: &Src,
    site: &FnSite,
    stmt_start: usize,
    param: &syn::PatType,
    moved: Option<Range<usize>>,
) -> Result<Vec<Edit>, String> {
    let name = site.name();
    let output = match &site.sig.output {
        ReturnType::Type(_, t) => t,
        ReturnType::Default => return Err(format!("the tool `{name}` returns nothing")),
    };
    let Some(result_arg) = ok_type(src, output) else {
        return Err(format!(
            "the tool `{name}` returns `{}`, not `Result<CallToolResult, _>`",
            src.node_text(&**output)
        ));
    };
    let mut tails = Tails::default();
    tails
        .of(&Expr::Block(syn::ExprBlock { attrs: vec![], label: None, block: site.block.clone() }))
        .map_err(|e| format!("the tool `{name}` {e}"))?;
    let mut returns = Returns { tails: Tails::default(), other: None, depth: 0 };
    returns.visit_block(site.block);
    if let Some(r) = returns.other {
        return Err(format!("the tool `{name}` returns `{}` without `Ok(..)`", src.node_text(&r)));
    }
    let Tails { mut oks, mut results } = tails;
    oks.extend(returns.tails.oks);
    results.extend(returns.tails.results);

    let mut edits = Vec::new();
    let indent = indent_at(src.text, stmt_start).to_owned();
    edits.push(Edit::replace(
        stmt_start..stmt_start,
        format!(
            "// 2026-07-28: the roots come in the retry's `inputResponses`; the first call asks for them.\n\
             {indent}let Some({ANSWER}) = input_responses.as_ref().and_then(|answers| answers.get(\"{KEY}\")) else {{\n\
             {indent}    let ask = InputRequest::ListRoots(rmcp::model::ListRootsRequest::default());\n\
             {indent}    return Ok(InputRequiredResult::from_input_requests([(\"{KEY}\".to_owned(), ask)].into()).into());\n\
             {indent}}};\n{indent}"
        ),
    ));
    edits.push(Edit::replace(result_arg, "CallToolResponse".to_owned()));
    // A whole `Result<CallToolResult, _>` (`text(..)`, a helper's): its `Ok` converted.
    for whole in results {
        let r = src.range(&whole);
        edits.push(Edit::replace(r.end..r.end, ".map(Into::into)".to_owned()));
    }
    for arg in oks {
        let r = src.range(&arg);
        if matches!(arg, Expr::Call(_) | Expr::MethodCall(_) | Expr::Path(_) | Expr::Macro(_) | Expr::Field(_)) {
            edits.push(Edit::replace(r.end..r.end, ".into()".to_owned()));
        } else {
            edits.push(Edit::replace(r.start..r.start, "(".to_owned()));
            edits.push(Edit::replace(r.end..r.end, ").into()".to_owned()));
        }
    }
    // The parameter goes when the request was its only use, else the extractor joins it.
    let receiver = match &*param.pat {
        Pat::Ident(p) => p.ident.to_string(),
        _ => String::new(),
    };
    let keeps = used_outside(src, site.block, moved, &receiver);
    edits.push(join_or_replace(src.range(param), keeps, "InputResponses(input_responses): InputResponses"));
    edits.extend(allow_deprecated(src, site));
    Ok(edits)
}

/// Whether `name` is named in the body outside `cut` (the text the rewrite replaces).
fn used_outside(src: &Src, block: &syn::Block, cut: Option<Range<usize>>, name: &str) -> bool {
    let body = src.range(block);
    match cut {
        Some(c) => {
            mentions_ident(&src.text[body.start..c.start], name) || mentions_ident(&src.text[c.end..body.end], name)
        }
        None => mentions_ident(&src.text[body], name),
    }
}

/// `with` beside what is at `range` (`, with` after it) when that stays, else in its place.
fn join_or_replace(range: Range<usize>, keeps: bool, with: &str) -> Edit {
    if keeps { Edit::replace(range.end..range.end, format!(", {with}")) } else { Edit::replace(range, with.to_owned()) }
}

/// The awaited request replaced by the answer the retry carries, as the code around it expects it.
fn answer_edits(src: &Src, block: &syn::Block, request: &Request) -> Vec<Edit> {
    let answer = format!("rmcp::serde_json::from_value::<rmcp::model::ListRootsResult>({ANSWER}.clone())");
    // Under a timeout the answer is already there: it never times out, and the arms stay as written.
    let answer = match &request.limit {
        Some(_) => format!("Ok::<_, tokio::time::error::Elapsed>({answer})"),
        None => answer,
    };
    let mut edits = vec![Edit::replace(request.awaited.clone(), answer)];
    if let Some(limit) = &request.limit {
        edits.extend(unused_limit(src, block, limit, &request.awaited));
    }
    edits
}

/// `ListRootsRequest` and `ListRootsResult` are deprecated (SEP-2577), and so is reading them: an
/// `#[allow(deprecated)]` on the function, after its doc comment, unless it has one.
fn allow_deprecated(src: &Src, site: &FnSite) -> Option<Edit> {
    if site.attrs.iter().any(|a| quote::ToTokens::to_token_stream(a).to_string().contains("deprecated")) {
        return None;
    }
    let start = match site.attrs.iter().find(|a| !a.path().is_ident("doc")) {
        Some(a) => src.range(a).start,
        None => site.attrs.last().map_or(site.range.start, |d| skip_ws(src.text, src.range(d).end)),
    };
    let indent = indent_at(src.text, start).to_owned();
    Some(Edit::replace(start..start, format!("#[allow(deprecated)]\n{indent}")))
}

/// The range of `CallToolResult` in `Result<CallToolResult, _>`.
fn ok_type(src: &Src, t: &syn::Type) -> Option<Range<usize>> {
    let syn::Type::Path(p) = t else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(syn::Type::Path(tp))
            if tp.path.segments.last().is_some_and(|s| s.ident == "CallToolResult") =>
        {
            Some(src.span(tp.path.segments.last()?.ident.span()))
        }
        _ => None,
    }
}

/// What the tool's body ends with, through `if`, `match` and blocks: the arguments of its
/// `Ok(..)`s, and the whole results it returns as they are (`text(..)`, `self.helper().await`).
#[derive(Default)]
struct Tails {
    oks: Vec<Expr>,
    results: Vec<Expr>,
}

impl Tails {
    fn of(&mut self, e: &Expr) -> Result<(), String> {
        match e {
            Expr::Call(c) if is_path(&c.func, "Ok") && c.args.len() == 1 => self.oks.push(c.args[0].clone()),
            Expr::Call(c) if is_path(&c.func, "Err") => {}
            Expr::Return(_) | Expr::Macro(_) => {}
            Expr::Block(b) => {
                if let Some(Stmt::Expr(t, None)) = b.block.stmts.last() {
                    self.of(t)?;
                }
            }
            Expr::If(i) => {
                self.of(&Expr::Block(syn::ExprBlock { attrs: vec![], label: None, block: i.then_branch.clone() }))?;
                if let Some((_, e)) = &i.else_branch {
                    self.of(e)?;
                }
            }
            Expr::Match(m) => {
                for arm in &m.arms {
                    self.of(&arm.body)?;
                }
            }
            Expr::Paren(p) => self.of(&p.expr)?,
            // The tool's own return type: a `Result<CallToolResult, _>` made elsewhere.
            Expr::Call(_) | Expr::MethodCall(_) | Expr::Await(_) | Expr::Path(_) => self.results.push(e.clone()),
            _ => return Err("ends with a value that is not `Ok(..)` nor a call".into()),
        }
        Ok(())
    }
}

/// The `let limit = …;` of a timeout the rewrite removed, when nothing else reads it.
fn unused_limit(src: &Src, block: &syn::Block, limit: &Expr, removed: &Range<usize>) -> Option<Edit> {
    let name = super::lookup::ident_of(limit)?;
    let reads = |r: Range<usize>| {
        let (before, after) = (r.start..removed.start.clamp(r.start, r.end), removed.end.clamp(r.start, r.end)..r.end);
        mentions_ident(&src.text[before], &name) || mentions_ident(&src.text[after], &name)
    };
    let bound = super::lookup::unused_plain_local(src, block, &name, reads)?;
    Some(Edit::delete(bound))
}

fn is_path(e: &Expr, name: &str) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident(name))
}

/// The `.await` of the tool's `list_roots()` call and the variable it is called on.
struct FindAwait<'a> {
    src: &'a Src<'a>,
    call: Range<usize>,
    /// (range from the receiver to `.await`, the receiver's first identifier).
    found: Option<(Range<usize>, String)>,
    depth: usize,
    /// Found inside a closure or an `async` block.
    nested: bool,
    /// The time limit of a request under `tokio::time::timeout(limit, …)`.
    limit: Option<Expr>,
}

impl<'ast> Visit<'ast> for FindAwait<'_> {
    fn visit_expr_await(&mut self, a: &'ast syn::ExprAwait) {
        // `peer.list_roots().await`, or `tokio::time::timeout(limit, peer.list_roots()).await`.
        let (request, limit) = match &*a.base {
            Expr::Call(c)
                if c.args.len() == 2
                    && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "timeout")) =>
            {
                (&c.args[1], Some(c.args[0].clone()))
            }
            base => (base, None),
        };
        if let Expr::MethodCall(m) = request
            && self.src.span(m.method.span()).start == self.call.start
        {
            let mut root = &*m.receiver;
            while let Expr::Field(f) = root {
                root = &f.base;
            }
            if let Some(id) = super::lookup::ident_of(root) {
                let start =
                    if limit.is_some() { self.src.range(&*a.base).start } else { self.src.range(&*m.receiver).start };
                self.found = Some((start..self.src.range(a).end, id));
                self.limit = limit;
                self.nested = self.depth > 0;
            }
        }
        visit::visit_expr_await(self, a);
    }
    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.depth += 1;
        visit::visit_expr_closure(self, c);
        self.depth -= 1;
    }
    fn visit_expr_async(&mut self, b: &'ast syn::ExprAsync) {
        self.depth += 1;
        visit::visit_expr_async(self, b);
        self.depth -= 1;
    }
}

/// What the tool's `return`s give (not its closures'), as `Tails`, and the first other `return`.
struct Returns {
    tails: Tails,
    other: Option<Expr>,
    depth: usize,
}

impl<'ast> Visit<'ast> for Returns {
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        if self.depth == 0
            && let Some(e) = r.expr.as_deref()
            && self.tails.of(e).is_err()
            && self.other.is_none()
        {
            self.other = Some(e.clone());
        }
        visit::visit_expr_return(self, r);
    }
    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.depth += 1;
        visit::visit_expr_closure(self, c);
        self.depth -= 1;
    }
    fn visit_expr_async(&mut self, b: &'ast syn::ExprAsync) {
        self.depth += 1;
        visit::visit_expr_async(self, b);
        self.depth -= 1;
    }
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_round_trip_needs_rmcp_3_1_1() {
        for (v, ok) in [("3.1.1", true), ("3.11", true), ("3.11.0", true), ("4", true), ("3.1.0", false)] {
            assert_eq!(has_mrtr(v), ok, "{v}");
        }
        for v in ["3.0.0-beta.1", "2.2.0", "1.4", "0.9.1"] {
            assert!(!has_mrtr(v), "{v}");
        }
    }

    #[test]
    fn the_lock_file_wins_over_the_requirement() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(&manifest, "[package]\nname = \"s\"\n\n[dependencies]\nrmcp = { version = \"3\" }\n").unwrap();
        assert_eq!(rmcp_version(&manifest).as_deref(), Some("3"));
        std::fs::write(
            dir.path().join("Cargo.lock"),
            "version = 4\n\n[[package]]\nname = \"rmcp\"\nversion = \"3.0.2\"\n",
        )
        .unwrap();
        assert_eq!(rmcp_version(&manifest).as_deref(), Some("3.0.2"));
    }
}
