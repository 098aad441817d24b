//! `retry-reuses-request-id`: placeholder until the rule is written.

use crate::context::Impact;
use crate::rules::{Rule, RuleMeta};

pub struct RetryReusesRequestId;

static META: RuleMeta = RuleMeta {
    name: "retry-reuses-request-id",
    summary: "TODO",
    impact: Impact::Removed,
    triggers: &["TODO_NEVER_MATCHES"],
    help: None,
    fixable: false,
    doc: include_str!("../../rules/retry-reuses-request-id.md"),
};

impl Rule for RetryReusesRequestId {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
