//! `--format github`: one GitHub Actions workflow command per finding, which the runner turns into
//! an annotation on the file's line in the pull request:
//! `::error file=src/a.rs,line=7,endLine=7,col=34,endColumn=46,title=mcp-lint (rule)::message`.
//! Columns are given only when the range is on one line (GitHub ignores them otherwise); like
//! every mcp-lint format (and ruff's), `endColumn` is exclusive.

use std::io::Write;

use crate::diagnostic::Severity;
use crate::engine::RunResult;

pub fn write(out: &mut dyn Write, result: &RunResult) -> std::io::Result<()> {
    for (report, d) in result.diagnostics() {
        let file = &report.file;
        let (start, end) = super::line_cols(file, &d.range);
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut properties =
            vec![("file", file.display.clone()), ("line", start.line.to_string()), ("endLine", end.line.to_string())];
        if start.line == end.line {
            properties.push(("col", start.column.to_string()));
            properties.push(("endColumn", end.column.max(start.column).to_string()));
        }
        properties.push(("title", format!("mcp-lint ({})", d.rule)));
        let properties: Vec<String> =
            properties.iter().map(|(key, value)| format!("{key}={}", escape_property(value))).collect();
        let mut message = d.shown_message().into_owned();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        if let Some(fix) = &d.fix {
            message.push_str(&format!("\nfix ({}): {}", fix.applicability.as_str(), fix.title));
        }
        if let Some(note) = &d.note {
            message.push_str("\nnote: ");
            message.push_str(note);
        }
        writeln!(out, "::{command} {}::{}", properties.join(","), escape_data(&message))?;
    }
    Ok(())
}

/// A command's message: `%`, CR and LF would end or corrupt the command.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A property value: also `:` (ends the properties) and `,` (separates them).
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb::c,d"), "50%25 a%0D%0Ab::c,d");
        assert_eq!(escape_property("a,b:c%\n"), "a%2Cb%3Ac%25%0A");
        // Escaping `%` first keeps an already escaped-looking text literal.
        assert_eq!(escape_data("%0A"), "%250A");
    }
}
