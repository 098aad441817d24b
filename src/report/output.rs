//! Where `check`'s report goes and what its exit code is: the format, `--output-file`,
//! `--statistics`, `--quiet`, `--exit-zero`, `--fail-on` and `--color`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codespan_reporting::term::termcolor::{BufferWriter, ColorChoice, NoColor, WriteColor};

use super::Format;
use super::terminal::{ColorWhen, Width};
use crate::diagnostic::Severity;
use crate::engine::RunResult;

#[derive(clap::Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report to this file (replaced atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "PATH")]
    pub output_file: Option<PathBuf>,
    /// Print the number of findings per rule instead of the findings (with --output-file the report
    /// still goes to the file). A JSON array with --format json.
    #[arg(long)]
    pub statistics: bool,
    /// Print only the findings: no summary line, no era notes, no notes about skipped files.
    #[arg(long, short)]
    pub quiet: bool,
    /// Exit 0 even when there are findings (still 2 on errors).
    #[arg(long)]
    pub exit_zero: bool,
    /// Which findings make the exit code 1: `warning` (any finding, the default) or `error` (errors only).
    #[arg(long, value_enum, default_value_t = FailOn::Warning, value_name = "SEVERITY")]
    pub fail_on: FailOn,
    /// Colour the human report: `auto` (on a terminal, unless NO_COLOR, CLICOLOR=0, FORCE_COLOR or
    /// CLICOLOR_FORCE say otherwise), `always`, or `never`. A report written with --output-file has none.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
}

impl FailOn {
    fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity == Severity::Error,
            FailOn::Warning => true,
        }
    }
}

/// Prints the notes, writes the report, and says how the run ends: 2 when a named path could not
/// be read or the report could not be written, 1 when a finding fails the run, else 0.
pub fn finish(args: &OutputArgs, result: &RunResult) -> ExitCode {
    if !args.quiet {
        for note in &result.notes {
            eprintln!("note: {}: {}", note.path, note.message);
        }
    }
    for note in &result.unreadable {
        eprintln!("error: {}: {}", note.path, note.message);
    }
    let failing = result.diagnostics().any(|(_, d)| args.fail_on.fails(d.severity));
    // cargo-json's closing record says what `cargo check` would: did the run pass.
    let success = !failing && result.unreadable.is_empty();

    let written = match (&args.output_file, args.statistics) {
        (Some(path), statistics) => {
            let mut buffer = NoColor::new(Vec::new());
            let rendered = render(args, &mut buffer, result, success, Width::fallback());
            let written = rendered.and_then(|_| write_atomically(path, &buffer.into_inner())).map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot write the report to {}: {e}", path.display()))
            });
            match written {
                Ok(()) if statistics => write_statistics(args, &mut std::io::stdout().lock(), result),
                other => other,
            }
        }
        (None, true) => write_statistics(args, &mut std::io::stdout().lock(), result),
        (None, false) => {
            let color = args.format == Format::Human && super::terminal::stdout_color(args.color);
            // Rendered whole, then written at once: stdout is line-buffered, and a write per line
            // of a large report cost more than rendering it. `Always`: the choice is made above
            // (termcolor's `Auto` would read NO_COLOR again, empty or not).
            let stdout = BufferWriter::stdout(if color { ColorChoice::Always } else { ColorChoice::Never });
            let mut buffer = stdout.buffer();
            render(args, &mut buffer, result, success, Width::of_stdout()).and_then(|_| stdout.print(&buffer))
        }
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if !result.unreadable.is_empty() {
        ExitCode::from(2)
    } else if failing && !args.exit_zero {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn render(
    args: &OutputArgs,
    out: &mut dyn WriteColor,
    result: &RunResult,
    success: bool,
    width: Width,
) -> std::io::Result<()> {
    match args.format {
        Format::Human if args.quiet => super::human::write_findings(out, result, width),
        Format::Human => super::human::write(out, result, width),
        Format::Json => pretty(out, &super::json::findings(result)),
        Format::Sarif => pretty(out, &super::sarif::to_value(result)),
        Format::Github => super::github::write(out, result),
        Format::CargoJson => super::cargo_json::write(out, result, success),
        Format::Summary => super::summary::write(out, result),
    }
}

fn write_statistics(args: &OutputArgs, out: &mut dyn Write, result: &RunResult) -> std::io::Result<()> {
    match args.format {
        Format::Json => pretty(out, &super::statistics::to_value(result)),
        _ => super::statistics::write_text(out, result),
    }
}

fn pretty(out: &mut dyn Write, value: &impl serde::Serialize) -> std::io::Result<()> {
    // Into a plain vector first: serde writes many small pieces, each a dynamic call otherwise.
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io_error)?;
    bytes.push(b'\n');
    out.write_all(&bytes)
}

/// Keeps the kind of an I/O error inside a serde_json error (a closed pipe stays a closed pipe).
pub(crate) fn io_error(e: serde_json::Error) -> std::io::Error {
    match e.io_error_kind() {
        Some(kind) => std::io::Error::new(kind, e),
        None => std::io::Error::other(e),
    }
}

/// Writes the whole report to a temporary file beside `path`, then renames it over `path`: a
/// reader (a CI upload step, an editor) never sees half a report. An existing file's permissions
/// are kept; a new one gets 0644.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".mcp-lint-report-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    match std::fs::metadata(path) {
        Ok(meta) => std::fs::set_permissions(tmp.path(), meta.permissions())?,
        Err(_) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
            }
        }
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Reads standard input for `check -`, and the path it stands for: `--stdin-filename` when given
/// (its extension decides the kind, its folder the crate), else `<stdin>`, read as JSON when it
/// starts with `{` or `[` and as Rust otherwise.
pub fn read_stdin(filename: Option<&Path>) -> Result<(PathBuf, String, String), String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("standard input is not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to()))?;
    Ok(match filename {
        Some(path) => (path.to_path_buf(), crate::discover::display_path(path), text),
        None => {
            let json = text.trim_start_matches('\u{feff}').trim_start().starts_with(['{', '[']);
            let path = PathBuf::from(if json { "<stdin>.json" } else { "<stdin>.rs" });
            (path, "<stdin>".to_owned(), text)
        }
    })
}
