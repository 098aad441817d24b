//! `--roots-to mrtr` for a request a helper makes on behalf of the tools that call it
//! (`async fn first_root(&self, peer: &Peer<RoleServer>)`): every calling tool reads the answer
//! from its retry before the call (or returns the `input_required` result) and hands it to the
//! helper, whose awaited request becomes that answer. The helper's peer or context parameter
//! becomes the answer when the request was its only use, else the answer joins it.
//!
//! Only helpers whose every caller is a `#[tool]` that awaits the call in its own body, once, with
//! its own context or peer, are rewritten: anything else has no result to carry the request, or
//! is something the rewrite cannot see.

use std::collections::HashSet;
use std::ops::Range;

use quote::ToTokens;
use syn::Expr;
use syn::visit::{self, Visit};

use super::super::index::FnSite;
use super::super::text::{count_ident, mentions_ident};
use super::{
    ANSWER, Crate, answer_edits, context_param, find_request, innermost_stmt, join_or_replace, tool_edits, used_outside,
};
use crate::diagnostic::Edit;

/// The rewrite of one helper and of the tools calling it.
pub struct HelperPlan {
    /// (file, edit), the helper's and the tools'.
    pub edits: Vec<(usize, Edit)>,
    /// The tools that now return the `input_required` result.
    pub tools: Vec<usize>,
    /// The helper awaited its request under `tokio::time::timeout`.
    pub timed: bool,
    /// What the applied note says of the helper.
    pub note: String,
}

/// Plans the helper `hi` (its request at `ranges`); `requesters` are the functions requesting the
/// roots themselves, `claimed` the tools an earlier helper's rewrite already gave the round trip.
pub fn plan(
    cx: &Crate,
    hi: usize,
    ranges: &[Range<usize>],
    requesters: &[usize],
    claimed: &HashSet<usize>,
) -> Result<HelperPlan, String> {
    let site = &cx.index.fns[hi];
    let name = site.name();
    if let Some(place) = cx.purposes.roots_place(hi) {
        return Err(format!(
            "`{name}` is not a `#[tool]` method and keeps the roots in `self.{place}` (a roots cache): only a tool's \
             own request, or one a helper makes for the tool awaiting it, can become an `input_required` result"
        ));
    }
    let what = format!("the helper `{name}`");
    // Calls are found by name: another function of that name could be what a call reaches.
    if let Some(other) = cx.index.fns.iter().enumerate().find(|(j, f)| *j != hi && f.name() == name) {
        let other = other.1.imp.map_or_else(
            || "a free function".to_owned(),
            |imp| format!("a method of `{}`", imp.self_ty.to_token_stream().to_string().replace(' ', "")),
        );
        return Err(format!(
            "the crate has another function named `{name}` ({other}), so the codemod cannot tell which one a call \
             reaches"
        ));
    }
    let callers: Vec<usize> =
        cx.index.fns.iter().enumerate().filter(|(j, f)| *j != hi && f.mentions(&name)).map(|(j, _)| j).collect();
    if callers.is_empty() {
        return Err(format!(
            "{what} is called from no function of the crate, so no tool's result can carry its request"
        ));
    }
    for &c in &callers {
        let caller = &cx.index.fns[c];
        let cname = caller.name();
        if cx.purposes.is_test(c, caller) {
            return Err(format!(
                "{what} is also called from the test `{cname}`, which has no tool result to carry the request: \
                 update the test once the helper takes the answer"
            ));
        }
        if !caller.is_tool {
            return Err(format!(
                "{what} is called from `{cname}`, which is not a `#[tool]` method: only a tool can return the \
                 `input_required` result that carries the request"
            ));
        }
        if requesters.contains(&c) {
            return Err(format!(
                "{what} is called from the tool `{cname}`, which also requests the roots itself: the codemod gives a \
                 tool one request"
            ));
        }
        if claimed.contains(&c) {
            return Err(format!(
                "{what} is called from the tool `{cname}`, which also calls another helper requesting the roots: the \
                 codemod gives a tool one request"
            ));
        }
    }
    let src = cx.src(site.file);
    let request = find_request(&src, site, ranges, &what)?;
    let Some((position, param)) = context_param(site.sig, &request.receiver) else {
        return Err(format!(
            "in {what}, the roots are requested on `{}`, not on one of its parameters of type `RequestContext` or \
             `Peer` (which the calling tools would pass)",
            request.receiver
        ));
    };
    let body = src.range(site.block);
    if mentions_ident(&src.text[body.clone()], ANSWER) {
        return Err(format!("{what} already names `{ANSWER}`, the name the rewrite gives the answer"));
    }
    // The peer stays when the helper uses it for more than the request.
    let keeps = used_outside(&src, site.block, Some(request.awaited.clone()), &request.receiver);

    let mut edits: Vec<(usize, Edit)> = Vec::new();
    for &c in &callers {
        let caller = &cx.index.fns[c];
        let call = Call { helper: &name, position, has_receiver: site.sig.receiver().is_some(), keeps };
        let tool_edits = caller_edits(cx, caller, &call).map_err(|e| format!("{what}: {e}"))?;
        edits.extend(tool_edits.into_iter().map(|e| (caller.file, e)));
    }

    // The helper: the answer in place of the request, and as its parameter.
    let mut own = answer_edits(&src, site.block, &request);
    own.push(join_or_replace(src.range(param), keeps, &format!("{ANSWER}: &rmcp::serde_json::Value")));
    own.extend(super::allow_deprecated(&src, site));
    edits.extend(own.into_iter().map(|e| (site.file, e)));
    let receiver = &request.receiver;
    let note = if keeps {
        format!("`{name}` takes the answer beside `{receiver}`")
    } else {
        format!("`{name}` takes the answer in place of `{receiver}`")
    };
    Ok(HelperPlan { edits, tools: callers, timed: request.limit.is_some(), note })
}

/// How the helper is called: its name, the position of its peer or context parameter in its
/// signature (`self` counted), and whether that parameter stays.
struct Call<'n> {
    helper: &'n str,
    position: usize,
    has_receiver: bool,
    keeps: bool,
}

/// The tool's edits: the round trip before its one awaited call of the helper, which is handed the
/// answer instead of (or beside) the tool's own context or peer.
fn caller_edits(cx: &Crate, tool: &FnSite, call: &Call) -> Result<Vec<Edit>, String> {
    let src = cx.src(tool.file);
    let (helper, tname) = (call.helper, tool.name());
    let mut find = HelperCalls { name: helper, depth: 0, found: Vec::new() };
    find.visit_block(tool.block);
    let named = count_ident(&tool.block.to_token_stream(), helper);
    if find.found.len() != named {
        return Err(format!(
            "the tool `{tname}` names `{helper}` where the rewrite cannot see a call of it (in a macro's body, in a \
             nested item, or as a value)"
        ));
    }
    let [found] = find.found.as_slice() else {
        return Err(format!("the tool `{tname}` calls `{helper}` {} times; the codemod rewrites one call", named));
    };
    if found.nested {
        return Err(format!(
            "the tool `{tname}` calls `{helper}` inside a closure or an `async` block (a spawned task, a future \
             kept for later), which cannot return the tool's `input_required` result"
        ));
    }
    if !found.awaited {
        return Err(format!(
            "the tool `{tname}` does not await its call of `{helper}` where it makes it, so the tool's \
             `input_required` result cannot come before it"
        ));
    }
    let index = match found.receiver {
        Some(r) if !crate::rust::syntax::is_self(r) => {
            return Err(format!("the tool `{tname}` calls `{helper}` on `{}`, not on `self`", src.node_text(r)));
        }
        Some(_) if !call.has_receiver => {
            return Err(format!("the tool `{tname}` calls a method `{helper}` of `self`, not the helper"));
        }
        Some(_) => call.position - 1,
        None => call.position,
    };
    let Some(arg) = found.args.get(index) else {
        return Err(format!("the tool `{tname}` calls `{helper}` with fewer arguments than it takes"));
    };
    let Some((_, param)) = arg_root(arg).and_then(|r| context_param(tool.sig, &r)) else {
        return Err(format!(
            "the tool `{tname}` passes `{}` to `{helper}`, not its own `RequestContext` or `Peer` parameter",
            src.node_text(*arg)
        ));
    };
    let Some(stmt_start) = innermost_stmt(&src, tool.block, src.range(found.call).start) else {
        return Err(format!("the tool `{tname}` calls `{helper}` outside its body's statements"));
    };
    let arg_range = src.range(*arg);
    let mut edits = tool_edits(&src, tool, stmt_start, param, (!call.keeps).then(|| arg_range.clone()))?;
    edits.push(join_or_replace(arg_range, call.keeps, ANSWER));
    Ok(edits)
}

/// The variable an argument comes from: `&context.peer`, `peer.clone()`, `(&ctx)`.
fn arg_root(e: &Expr) -> Option<String> {
    match e {
        Expr::Reference(r) => arg_root(&r.expr),
        Expr::Paren(p) => arg_root(&p.expr),
        Expr::Field(f) => arg_root(&f.base),
        Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => arg_root(&m.receiver),
        e => super::super::lookup::ident_of(e),
    }
}

/// One call of the helper in a tool's body.
struct HelperCall<'ast> {
    call: &'ast Expr,
    receiver: Option<&'ast Expr>,
    args: Vec<&'ast Expr>,
    awaited: bool,
    /// Inside a closure or an `async` block.
    nested: bool,
}

/// Every call of the function `name` in a body (`name(..)`, `path::name(..)`, `x.name(..)`),
/// outside nested items.
struct HelperCalls<'n, 'ast> {
    name: &'n str,
    depth: usize,
    found: Vec<HelperCall<'ast>>,
}

impl<'ast> HelperCalls<'_, 'ast> {
    /// Records `e` when it calls the helper.
    fn record(&mut self, e: &'ast Expr, awaited: bool) -> bool {
        let (receiver, args) = match e {
            Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == self.name)) => {
                (None, c.args.iter().collect())
            }
            Expr::MethodCall(m) if m.method == self.name => (Some(&*m.receiver), m.args.iter().collect()),
            _ => return false,
        };
        self.found.push(HelperCall { call: e, receiver, args, awaited, nested: self.depth > 0 });
        true
    }
}

impl<'ast> Visit<'ast> for HelperCalls<'_, 'ast> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Await(a) if self.record(&a.base, true) => match &*a.base {
                Expr::Call(c) => visit::visit_expr_call(self, c),
                Expr::MethodCall(m) => visit::visit_expr_method_call(self, m),
                _ => {}
            },
            Expr::Call(_) | Expr::MethodCall(_) if self.record(e, false) => match e {
                Expr::Call(c) => visit::visit_expr_call(self, c),
                Expr::MethodCall(m) => visit::visit_expr_method_call(self, m),
                _ => {}
            },
            Expr::Closure(_) | Expr::Async(_) => {
                self.depth += 1;
                visit::visit_expr(self, e);
                self.depth -= 1;
            }
            _ => visit::visit_expr(self, e),
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
