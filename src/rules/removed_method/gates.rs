//! Handshake gates (`model::init_gates`): a check that turns a request away until the client has
//! sent `initialize`, reported at the state it reads.

use crate::context::is_mcp_code;
use crate::cx::CrateCx;
use std::ops::Range;

use crate::model::Root;
use crate::model::init_gates::find_gates;
use crate::model::init_stores::InitHandlers;
use crate::model::state::member_shown;
use crate::model::{CrateModel, FnId, within};

use super::META;

const HELP: &str = "let requests through without a handshake: what the check stands for (a client that announced \
                    itself, a negotiated version) comes with each 2026-07-28 request, in `_meta` \
                    (`io.modelcontextprotocol/protocolVersion`, `io.modelcontextprotocol/clientCapabilities`); \
                    keep the check only for legacy clients, which did send `initialize`";

/// Words of a condition that also reads the request's own declaration: a dual-era server's gate
/// for legacy clients only.
const DUAL_ERA_WORDS: &[&str] = &["meta", "protocol", "version", "legacy"];

pub(super) fn handshake_gates(cx: &mut CrateCx, model: &CrateModel) {
    let init = InitHandlers::of(model);
    // One finding per check: `let (Some(data), true) = (&self.data, self.ready) else { .. }`
    // tests two places the handshake sets.
    let mut reported: Vec<(FnId, Range<usize>)> = Vec::new();
    for gate in find_gates(model, &init) {
        if reported.contains(&(gate.fn_, gate.guard.clone())) {
            continue;
        }
        let file = model.file_of(gate.fn_);
        let source = cx.files[file].file;
        // LSP servers gate on `initialize` too: only where the handshake code shows it is MCP.
        let init_file = &cx.files[gate.set_in];
        if !is_mcp_code(&init_file.file.text, init_file.crate_ctx, model.files[gate.set_in].role) {
            continue;
        }
        let condition = source.text.get(gate.guard.clone()).unwrap_or_default().to_ascii_lowercase();
        if DUAL_ERA_WORDS.iter().any(|w| condition.contains(w)) {
            continue;
        }
        let depth = gate.read.path.len().max(1);
        let read_range = gate.read.range(depth);
        let read_text = match gate.via {
            Some((_, getter)) => cx.files[model.file_of(getter)].file.text.as_str(),
            None => source.text.as_str(),
        };
        let mut shown = match gate.read.root {
            Root::SelfValue if !gate.read.aliased => {
                let members: Vec<String> = gate.read.path[..depth].iter().map(|m| member_shown(m)).collect();
                format!("`self.{}`", members.join("."))
            }
            _ => format!("`{}`", read_text.get(read_range.clone()).unwrap_or_default().trim()),
        };
        // Read through a getter: reported at the guard's call, named by what the getter reads. Read
        // into a local the guard tests (`let phase = self.phase.read().clone()`): at the guard.
        let copied = gate.via.is_none() && !within(&read_range, &gate.guard);
        let range = match &gate.via {
            Some((call, getter)) => {
                shown = format!("{shown}, which `{}()` tests,", model.func(*getter).name);
                call.clone()
            }
            None if copied => {
                shown = format!("{shown}, copied into what this check tests,");
                gate.guard.clone()
            }
            None => read_range.clone(),
        };
        reported.push((gate.fn_, gate.guard.clone()));
        let set_at = cx.place(gate.set_in, gate.set_at.start);
        let init_fn = &gate.init_fn;
        let d = cx.report(
            &META,
            file,
            range,
            format!(
                "{shown} is set only in the handshake (`{init_fn}`, {set_at}), and this check turns the request away \
                 until it is: 2026-07-28 clients make no handshake (no `initialize`, no `notifications/initialized`), \
                 so every request they make is refused here"
            ),
            "never set for a 2026-07-28 client",
        );
        if gate.set_in == file {
            d.label(gate.set_at.clone(), format!("set only in the handshake (`{init_fn}`)"));
        }
        if copied {
            d.label(read_range, "copied here");
        }
        d.help(HELP);
    }
}
