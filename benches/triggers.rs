//! Prints every enabled rule's trigger words, one per line as `rule<TAB>kind<TAB>word` (`kind` is
//! `any`, `json`, `mcp` or `crate`), then the words that make a Rust file MCP code for the `mcp` ones, as
//! `-<TAB>mcp-code<TAB>word`: the benchmark gives ripgrep the same rule words as an equivalent
//! search, and the list shows which words make files expensive.

use mcp_lint::context::{CLIENT_WORDS, MCP_CODE_WORDS, MCP_EVIDENCE, SERVER_WORDS};
use mcp_lint::rules::TriggerKind;

fn main() {
    for rule in mcp_lint::rules::ALL {
        let meta = rule.meta();
        for (kind, words) in meta.trigger_lists() {
            let kind = match kind {
                TriggerKind::Any => "any",
                TriggerKind::Json => "json",
                TriggerKind::Mcp => "mcp",
                TriggerKind::Crate => "crate",
            };
            for w in words {
                println!("{}\t{kind}\t{w}", meta.name);
            }
        }
    }
    for w in SERVER_WORDS.iter().chain(CLIENT_WORDS).chain(MCP_EVIDENCE).chain(MCP_CODE_WORDS) {
        println!("-\tmcp-code\t{w}");
    }
}
