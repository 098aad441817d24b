//! `inferred-client-capabilities`: placeholder until the rule is written.

use crate::context::Impact;
use crate::rules::{Rule, RuleMeta};

pub struct InferredClientCapabilities;

static META: RuleMeta = RuleMeta {
    name: "inferred-client-capabilities",
    summary: "TODO",
    impact: Impact::Removed,
    triggers: &["TODO_NEVER_MATCHES"],
    help: None,
    fixable: false,
    doc: include_str!("../../rules/inferred-client-capabilities.md"),
};

impl Rule for InferredClientCapabilities {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
