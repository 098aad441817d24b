//! `--statistics`: how many findings each rule has, most first (like ruff's `--statistics`), as a
//! text table or, with `--format json`, a JSON array.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{Value, json};

use crate::diagnostic::Applicability;
use crate::engine::RunResult;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RuleCount {
    pub rule: &'static str,
    pub count: usize,
    pub safe_fixes: usize,
    pub unsafe_fixes: usize,
}

/// Counts per rule, most findings first, then by name.
pub fn per_rule(result: &RunResult) -> Vec<RuleCount> {
    let mut by_rule: BTreeMap<&'static str, RuleCount> = BTreeMap::new();
    for (_, d) in result.diagnostics() {
        let entry = by_rule.entry(d.rule).or_insert_with(|| RuleCount { rule: d.rule, ..Default::default() });
        entry.count += 1;
        match d.fix.as_ref().map(|f| f.applicability) {
            Some(Applicability::Safe) => entry.safe_fixes += 1,
            Some(Applicability::Unsafe) => entry.unsafe_fixes += 1,
            _ => {}
        }
    }
    let mut counts: Vec<RuleCount> = by_rule.into_values().collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then(a.rule.cmp(b.rule)));
    counts
}

pub fn write_text(out: &mut dyn Write, result: &RunResult) -> std::io::Result<()> {
    let counts = per_rule(result);
    let width = counts.iter().map(|c| c.rule.len()).max().unwrap_or(0);
    for c in &counts {
        let mut fixable = Vec::new();
        if c.safe_fixes > 0 {
            fixable.push(format!("{} safe", c.safe_fixes));
        }
        if c.unsafe_fixes > 0 {
            fixable.push(format!("{} unsafe", c.unsafe_fixes));
        }
        let fixable = if fixable.is_empty() { String::new() } else { format!("  fixable: {}", fixable.join(", ")) };
        writeln!(out, "{:>6}  {:<width$}{fixable}", c.count, c.rule)?;
    }
    let total: usize = counts.iter().map(|c| c.count).sum();
    writeln!(out, "{total:>6}  total")
}

pub fn to_value(result: &RunResult) -> Value {
    Value::Array(
        per_rule(result)
            .into_iter()
            .map(|c| {
                json!({
                    "rule": c.rule,
                    "count": c.count,
                    "safe_fixes": c.safe_fixes,
                    "unsafe_fixes": c.unsafe_fixes,
                })
            })
            .collect(),
    )
}
