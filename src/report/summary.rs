//! `--format summary`: a Markdown audit report to paste into a migration ticket: the totals, the
//! era assumed per crate (which decides severities), findings per rule and per file, what
//! `mcp-lint fix` does by itself, and a checklist of what needs a person.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;

use crate::context::CrateContext;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Severity};
use crate::engine::{FileReport, RunResult};
use crate::rules;
use crate::words::plural;

/// What happens to a finding when someone runs `mcp-lint fix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// `mcp-lint fix` applies it.
    Safe,
    /// `mcp-lint fix --unsafe-fixes` applies it; the change needs review.
    Unsafe,
    /// Someone has to migrate the code (a display-only suggestion included).
    Manual,
}

/// What happens to each finding, knowing which ones the roots codemod's rewrite removes.
struct Outcomes {
    /// Findings (by address) on code the codemod's edits replace: `first()` of a roots list it no
    /// longer requests, the `file://` cut of a root it replaced. They go with `--unsafe-fixes`.
    swept: HashSet<usize>,
}

impl Outcomes {
    fn new(result: &RunResult) -> Outcomes {
        // The codemod's edits, per file as reports show it.
        let mut edits: HashMap<&str, Vec<&Edit>> = HashMap::new();
        for (report, d) in result.diagnostics() {
            let Some(fix) = d.fix.as_ref().filter(|f| f.applicability == Applicability::Unsafe) else { continue };
            if d.rule != "server-roots-request" {
                continue;
            }
            edits.entry(report.file.display.as_str()).or_default().extend(&fix.edits);
            for other in &d.fix_elsewhere {
                edits.entry(other.display.as_str()).or_default().extend(&other.edits);
            }
        }
        let mut swept = HashSet::new();
        for (report, d) in result.diagnostics() {
            if Self::own(d) != Outcome::Manual {
                continue;
            }
            let Some(text) = report.file.text.get(d.range.clone()) else { continue };
            let covered = edits.get(report.file.display.as_str()).is_some_and(|es| {
                es.iter().any(|e| {
                    // The edit rewrites where the finding starts (its end may reach past a merged
                    // edit's by a bracket), and does not write the same code again.
                    e.byte_range.start <= d.range.start
                        && d.range.start < e.byte_range.end
                        && !e.replacement.contains(text)
                })
            });
            if covered {
                swept.insert(std::ptr::from_ref(d) as usize);
            }
        }
        Outcomes { swept }
    }

    fn own(d: &Diagnostic) -> Outcome {
        match d.fix.as_ref().map(|f| f.applicability) {
            Some(Applicability::Safe) => Outcome::Safe,
            Some(Applicability::Unsafe) => Outcome::Unsafe,
            Some(Applicability::DisplayOnly) | None => Outcome::Manual,
        }
    }

    fn of(&self, d: &Diagnostic) -> Outcome {
        if self.swept.contains(&(std::ptr::from_ref(d) as usize)) { Outcome::Unsafe } else { Self::own(d) }
    }

    fn swept(&self, d: &Diagnostic) -> bool {
        self.swept.contains(&(std::ptr::from_ref(d) as usize))
    }
}

#[derive(Default)]
struct Tally {
    findings: usize,
    errors: usize,
    warnings: usize,
    safe: usize,
    unsafe_: usize,
    manual: usize,
    /// Of the findings, those in test code.
    in_test: usize,
}

impl Tally {
    fn add(&mut self, d: &Diagnostic, outcomes: &Outcomes) {
        self.findings += 1;
        self.in_test += usize::from(d.in_test);
        match d.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
        match outcomes.of(d) {
            Outcome::Safe => self.safe += 1,
            Outcome::Unsafe => self.unsafe_ += 1,
            Outcome::Manual => self.manual += 1,
        }
    }
}

pub fn write(out: &mut dyn Write, result: &RunResult) -> std::io::Result<()> {
    let outcomes = Outcomes::new(result);
    let mut total = Tally::default();
    let mut per_rule: BTreeMap<&str, Tally> = BTreeMap::new();
    for (_, d) in result.diagnostics() {
        total.add(d, &outcomes);
        per_rule.entry(d.rule).or_default().add(d, &outcomes);
    }

    writeln!(out, "# MCP 2026-07-28 migration audit\n")?;
    writeln!(
        out,
        "Checked with mcp-lint {}: {} {} scanned, {} with findings.\n",
        env!("CARGO_PKG_VERSION"),
        result.files_scanned,
        plural(result.files_scanned, "file"),
        result.reports.len()
    )?;
    writeln!(out, "| | findings |\n|---|---:|")?;
    writeln!(out, "| total | {} ({} errors, {} warnings) |", total.findings, total.errors, total.warnings)?;
    if total.in_test > 0 {
        writeln!(out, "| of them in test code | {} |", total.in_test)?;
    }
    writeln!(out, "| fixed by `mcp-lint fix` (safe) | {} |", total.safe)?;
    writeln!(out, "| fixed by `mcp-lint fix --unsafe-fixes` (review the change) | {} |", total.unsafe_)?;
    writeln!(out, "| need a person | {} |", total.manual)?;

    write_crates(out, result)?;
    if total.findings == 0 {
        writeln!(out, "\nNo findings: nothing to migrate for the rules that ran.")?;
        return write_not_checked(out, result);
    }

    writeln!(out, "\n## Findings per rule\n")?;
    writeln!(out, "| rule | findings | errors | warnings | safe fix | unsafe fix | need a person | what it finds |")?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---|")?;
    for (rule, t) in &per_rule {
        let summary = rules::all_meta().find(|m| m.name == *rule).map(|m| m.summary).unwrap_or("");
        let name = match super::rule_page_uri(rule) {
            Some(uri) => format!("[`{rule}`]({uri})"),
            None => format!("`{rule}`"),
        };
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            t.findings,
            t.errors,
            t.warnings,
            t.safe,
            t.unsafe_,
            t.manual,
            cell(summary)
        )?;
    }
    writeln!(out, "\n`mcp-lint explain <rule>` prints a rule's page: why, and how to migrate.")?;

    writeln!(out, "\n## Findings per file\n")?;
    writeln!(out, "| file | findings | errors | warnings | fixed automatically | need a person |")?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|")?;
    for report in &result.reports {
        let mut t = Tally::default();
        report.diagnostics.iter().for_each(|d| t.add(d, &outcomes));
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            code(&report.file.display),
            t.findings,
            t.errors,
            t.warnings,
            t.safe + t.unsafe_,
            t.manual
        )?;
    }

    if total.safe + total.unsafe_ > 0 {
        writeln!(out, "\n## What `mcp-lint fix` does\n")?;
        for (report, d) in result.diagnostics() {
            if outcomes.swept(d) {
                let how = "unsafe: `--unsafe-fixes`, review it";
                writeln!(out, "- {} `{}`: goes with the roots codemod's rewrite ({how})", location(report, d), d.rule)?;
            } else if let Some(fix) = d.fix.as_ref().filter(|_| outcomes.of(d) != Outcome::Manual) {
                let how = if outcomes.of(d) == Outcome::Safe { "safe" } else { "unsafe: `--unsafe-fixes`, review it" };
                writeln!(out, "- {} `{}`: {} ({how})", location(report, d), d.rule, line(&fix.title))?;
            }
        }
    }
    if total.manual > 0 {
        writeln!(out, "\n## What needs a person\n")?;
        for (report, d) in result.diagnostics() {
            if outcomes.of(d) == Outcome::Manual {
                let why = d.note.as_deref().map(|n| format!(" ({})", line(n))).unwrap_or_default();
                writeln!(out, "- [ ] {} `{}`: {}{why}", location(report, d), d.rule, line(&d.shown_message()))?;
            }
        }
    }
    write_not_checked(out, result)
}

/// The crates whose files have findings, with their SDK and the era their severities assume.
fn write_crates(out: &mut dyn Write, result: &RunResult) -> std::io::Result<()> {
    let crates = result.crates();
    if crates.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n## Crates and the era assumed\n")?;
    writeln!(out, "| crate | manifest | MCP SDK | findings | era assumed | why |")?;
    writeln!(out, "|---|---|---|---:|---|---|")?;
    for krate in crates {
        let findings: usize =
            result.reports.iter().filter(|r| r.crate_ctx.manifest == krate.manifest).map(|r| r.diagnostics.len()).sum();
        writeln!(
            out,
            "| {} | {} | {} | {findings} | {} | {} |",
            krate.name.as_deref().map(code).unwrap_or_else(|| "(files outside any crate)".into()),
            krate.manifest.as_deref().map(|m| code(&crate::discover::display_path(m))).unwrap_or_default(),
            sdks(krate),
            krate.era.era.as_str(),
            cell(&krate.era.reason)
        )?;
    }
    Ok(())
}

fn write_not_checked(out: &mut dyn Write, result: &RunResult) -> std::io::Result<()> {
    if result.notes.is_empty() && result.unreadable.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n## Not checked\n")?;
    for note in result.unreadable.iter().chain(&result.notes) {
        writeln!(out, "- {}: {}", code(&note.path), line(&note.message))?;
    }
    Ok(())
}

fn sdks(krate: &CrateContext) -> String {
    if krate.sdks.is_empty() {
        return "none found".into();
    }
    let names: Vec<String> = krate
        .sdks
        .iter()
        .map(|d| {
            let version = d.version.as_deref().unwrap_or("(version unknown)");
            match &d.via {
                Some(via) => format!("{} {version} (through {})", d.crate_name, code(via)),
                None => format!("{} {version}", d.crate_name),
            }
        })
        .collect();
    cell(&names.join(", "))
}

fn location(report: &FileReport, d: &Diagnostic) -> String {
    let start = report.file.lines.line_col(&report.file.text, d.range.start);
    code(&format!("{}:{}:{}", report.file.display, start.line, start.column))
}

/// Text on one line (a list item or a table cell ends at a line break).
fn line(text: &str) -> String {
    text.split(['\r', '\n']).filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join(" ")
}

/// Text in a table cell: on one line, with `|` escaped (GitHub honours `\|` in code spans too).
fn cell(text: &str) -> String {
    line(text).replace('|', "\\|")
}

/// A code span that survives backticks and `|` in the text.
fn code(text: &str) -> String {
    let text = cell(text);
    if text.contains('`') { format!("`` {text} ``") } else { format!("`{text}`") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escaping() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
        assert_eq!(code("x`y"), "`` x`y ``");
        assert_eq!(code("src/a.rs"), "`src/a.rs`");
    }
}
