//! rustc-style output: a code frame per finding with its labels and help line.

use codespan_reporting::diagnostic::{Diagnostic as Frame, Label as FrameLabel};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::WriteColor};

use crate::diagnostic::Severity;
use crate::engine::RunResult;

pub fn write(out: &mut dyn WriteColor, result: &RunResult) -> std::io::Result<()> {
    write_findings(out, result)?;
    // Severities depend on the era assumed for each crate: say which, and why.
    for krate in result.crates() {
        let name = match (&krate.name, &krate.manifest) {
            (Some(n), Some(m)) => format!("crate `{n}` ({})", crate::discover::display_path(m)),
            (None, Some(m)) => crate::discover::display_path(m),
            _ => "files outside any crate".to_owned(),
        };
        writeln!(out, "note: {name}: era assumed: {}: {}", krate.era.era.as_str(), krate.era.reason)?;
    }
    let (errors, warnings) = result.diagnostics().fold((0, 0), |(e, w), (_, d)| match d.severity {
        Severity::Error => (e + 1, w),
        Severity::Warning => (e, w + 1),
    });
    let files = result.reports.len();
    if errors + warnings == 0 {
        writeln!(out, "mcp-lint: no findings ({})", checked(result))?;
    } else {
        writeln!(
            out,
            "mcp-lint: {errors} {}, {warnings} {} in {files} {} ({})",
            plural(errors, "error"),
            plural(warnings, "warning"),
            plural(files, "file"),
            checked(result)
        )?;
    }
    Ok(())
}

/// How much was read and how much of it needed parsing (the rest had no word any rule needs).
fn checked(result: &RunResult) -> String {
    format!("{} files checked, {} parsed", result.files_scanned, result.files_parsed)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { word.to_owned() } else { format!("{word}s") }
}

/// Only the code frames (what `--quiet` prints): no era notes, no summary line.
pub fn write_findings(out: &mut dyn WriteColor, result: &RunResult) -> std::io::Result<()> {
    for (report, d) in result.diagnostics() {
        write_diagnostic(out, &report.file, d)?;
    }
    Ok(())
}

/// One finding's code frame (also cargo-json's `rendered` text).
pub fn write_diagnostic(
    out: &mut dyn WriteColor,
    source: &crate::source::SourceFile,
    d: &crate::diagnostic::Diagnostic,
) -> std::io::Result<()> {
    let file = SimpleFile::new(source.display.as_str(), source.text.as_str());
    let frame = match d.severity {
        Severity::Error => Frame::error(),
        Severity::Warning => Frame::warning(),
    };
    let mut labels = vec![FrameLabel::primary((), d.range.clone()).with_message(&d.label)];
    labels.extend(d.labels.iter().map(|l| FrameLabel::secondary((), l.range.clone()).with_message(&l.message)));
    let mut notes = Vec::new();
    if let Some(help) = &d.help {
        notes.push(format!("help: {help}"));
    }
    if let Some(fix) = &d.fix {
        notes.push(format!("fix ({}): {}", fix.applicability.as_str(), fix.title));
    }
    let frame = frame.with_code(d.rule).with_message(&d.message).with_labels(labels).with_notes(notes);
    term::emit(out, &term::Config::default(), &file, &frame).map_err(std::io::Error::other)
}
