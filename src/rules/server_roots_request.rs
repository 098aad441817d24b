//! `server-roots-request`: placeholder until the rule is written.

use crate::context::Impact;
use crate::rules::{Rule, RuleMeta};

pub struct ServerRootsRequest;

static META: RuleMeta = RuleMeta {
    name: "server-roots-request",
    summary: "TODO",
    impact: Impact::Removed,
    triggers: &["TODO_NEVER_MATCHES"],
    help: None,
    fixable: false,
    doc: include_str!("../../rules/server-roots-request.md"),
};

impl Rule for ServerRootsRequest {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
