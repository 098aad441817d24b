//! rustc-style output: a code frame per finding with its labels and help line.

use codespan_reporting::diagnostic::{Diagnostic as Frame, Label as FrameLabel};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::WriteColor};
use unicode_width::UnicodeWidthStr;

use super::shortened::{LabelSpan, Layout, Shortened};
use super::terminal::{Width, wrap_words};
use crate::diagnostic::Severity;
use crate::engine::RunResult;
use crate::words::{count, plural};

pub fn write(out: &mut dyn WriteColor, result: &RunResult, width: Width) -> std::io::Result<()> {
    write_findings(out, result, width)?;
    // Severities depend on the era assumed for each crate: say which, and why.
    for krate in result.crates() {
        let name = match (&krate.name, &krate.manifest) {
            (Some(n), Some(m)) => format!("crate `{n}` ({})", crate::discover::display_path(m)),
            (None, Some(m)) => crate::discover::display_path(m),
            _ => "files outside any crate".to_owned(),
        };
        let note = format!("note: {name}: era assumed: {}: {}", krate.era.era.as_str(), krate.era.reason);
        let note = if width.wrap_prose { wrap_words(&note, width.columns, 0, 2, "  ") } else { note };
        writeln!(out, "{note}")?;
    }
    let (errors, warnings) = result.diagnostics().fold((0, 0), |(e, w), (_, d)| match d.severity {
        Severity::Error => (e + 1, w),
        Severity::Warning => (e, w + 1),
    });
    let files = result.reports.len();
    if errors + warnings == 0 {
        // A path that could not be read was not checked: "no findings" would claim it was.
        if result.unreadable.is_empty() {
            writeln!(out, "mcp-lint: no findings ({})", checked(result))?;
        }
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
    format!("{} checked, {} parsed", count(result.files_scanned, "file"), result.files_parsed)
}

/// Only the code frames (what `--quiet` prints): no era notes, no summary line.
pub fn write_findings(out: &mut dyn WriteColor, result: &RunResult, width: Width) -> std::io::Result<()> {
    for (report, d) in result.diagnostics() {
        write_diagnostic(out, &report.file, d, Some(width))?;
    }
    Ok(())
}

/// One finding's code frame (also cargo-json's `rendered` text, with no width: lines kept whole).
pub fn write_diagnostic(
    out: &mut dyn WriteColor,
    source: &crate::source::SourceFile,
    d: &crate::diagnostic::Diagnostic,
    width: Option<Width>,
) -> std::io::Result<()> {
    let config = term::Config::default();
    // Prose is wrapped where the screen ends: a header goes on two columns in, a note's lines
    // all start past the gutter, where codespan-reporting puts them.
    let wrap = |text: String, first: usize, indent: usize, pad: &str| match width {
        Some(w) if w.wrap_prose => wrap_words(&text, w.columns, first, indent, pad),
        _ => text,
    };
    let (severity, frame) = match d.severity {
        Severity::Error => ("error", Frame::error()),
        Severity::Warning => ("warning", Frame::warning()),
    };
    let header = severity.len() + d.rule.len() + "[]: ".len();
    let message = wrap(d.shown_message().into_owned(), header, 2, "  ");
    let mut notes = Vec::new();
    if let Some(help) = &d.help {
        notes.push(format!("help: {help}"));
    }
    if let Some(fix) = &d.fix {
        let elsewhere: Vec<&str> = d.fix_elsewhere.iter().map(|f| f.display.as_str()).collect();
        let also = if elsewhere.is_empty() { String::new() } else { format!(" (also edits {})", elsewhere.join(", ")) };
        notes.push(format!("fix ({}): {}{also}", fix.applicability.as_str(), fix.title));
    }
    if let Some(note) = &d.note {
        notes.push(format!("note: {note}"));
    }
    let last_line = std::iter::once(&d.range)
        .chain(d.labels.iter().map(|l| &l.range))
        .map(|r| source.lines.line_col(&source.text, r.end).line)
        .max()
        .unwrap_or(1);
    let gutter = last_line.to_string().len() + " = ".len();
    let notes: Vec<String> = notes.into_iter().map(|n| wrap(n, gutter, gutter, "")).collect();

    let mut spans = vec![LabelSpan { range: d.range.clone(), message_columns: d.label.width(), primary: true }];
    spans.extend(d.labels.iter().map(|l| LabelSpan {
        range: l.range.clone(),
        message_columns: l.message.width(),
        primary: false,
    }));
    let layout = width.map(|w| Layout {
        columns: w.columns,
        tab_width: config.tab_width,
        start_context_lines: config.start_context_lines,
        end_context_lines: config.end_context_lines,
    });
    let shortened = layout.and_then(|layout| Shortened::new(source, &spans, &layout));
    let range = |r: &std::ops::Range<usize>| shortened.as_ref().map_or(r.clone(), |s| s.map(r));
    let mut labels = vec![FrameLabel::primary((), range(&d.range)).with_message(&d.label)];
    labels.extend(d.labels.iter().map(|l| FrameLabel::secondary((), range(&l.range)).with_message(&l.message)));
    let frame = frame.with_code(d.rule).with_message(message).with_labels(labels).with_notes(notes);
    let emitted = match &shortened {
        Some(view) => term::emit(out, &config, view, &frame),
        None => term::emit(out, &config, &SimpleFile::new(source.display.as_str(), source.text.as_str()), &frame),
    };
    emitted.map_err(std::io::Error::other)
}
