//! `roots-list-changed`: placeholder until the rule is written.

use crate::context::Impact;
use crate::rules::{Rule, RuleMeta};

pub struct RootsListChanged;

static META: RuleMeta = RuleMeta {
    name: "roots-list-changed",
    summary: "TODO",
    impact: Impact::Removed,
    triggers: &["TODO_NEVER_MATCHES"],
    help: None,
    fixable: false,
    doc: include_str!("../../rules/roots-list-changed.md"),
};

impl Rule for RootsListChanged {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
