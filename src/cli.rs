//! The command line: `check`, `rules`, `explain`. Exit codes: 0 no findings, 1 findings,
//! 2 usage error, unreadable named path, or internal error.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

use crate::engine::{self, Options};
use crate::report::{self, Format};
use crate::rules::{self, Rule};

#[derive(Parser)]
#[command(
    name = "mcp-lint",
    version,
    about = "Finds what MCP 2026-07-28 breaks or deprecates in Rust MCP servers and clients"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check files and folders (default: the current folder).
    Check(CheckArgs),
    /// Apply fixes: safe ones by default, unsafe ones too with --unsafe-fixes.
    Fix(FixArgs),
    /// List the rules.
    Rules,
    /// Print a rule's page: what it finds, why, and how to migrate.
    Explain {
        /// A rule name, e.g. server-roots-request.
        rule: String,
    },
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files and folders to check. Folders are walked honouring .gitignore; target/ and .git/ are never read.
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Only these rules (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    select: Vec<String>,
    /// Not these rules (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Parse every file, even those without any rule's trigger word (for measuring; findings are the same).
    #[arg(long)]
    no_prefilter: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Skip files larger than this many bytes, with a note.
    #[arg(long, default_value_t = 10 * 1024 * 1024)]
    max_file_size: u64,
}

#[derive(clap::Args)]
struct FixArgs {
    /// Files and folders to fix (default: the current folder).
    paths: Vec<PathBuf>,
    /// Also apply unsafe fixes (they change behaviour or a public contract, e.g. a tool's input schema).
    #[arg(long)]
    unsafe_fixes: bool,
    /// Write nothing; print the unified diff of what would change, and exit 1 if anything would.
    #[arg(long)]
    diff: bool,
    /// Write files that have uncommitted changes in their git work tree.
    #[arg(long)]
    allow_dirty: bool,
    /// Write files that are not in any git work tree.
    #[arg(long)]
    allow_no_vcs: bool,
    /// Only these rules (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    select: Vec<String>,
    /// Not these rules (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Skip files larger than this many bytes, with a note.
    #[arg(long, default_value_t = 10 * 1024 * 1024)]
    max_file_size: u64,
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    match cli.command {
        Command::Check(args) => check(args),
        Command::Fix(args) => crate::fix::cli::run(args.into()),
        Command::Rules => {
            let mut out = std::io::stdout().lock();
            for meta in rules::all_meta() {
                let _ = writeln!(out, "{:<30} {}", meta.name, meta.summary);
            }
            ExitCode::SUCCESS
        }
        Command::Explain { rule } => match rules::all_meta().find(|m| m.name == rule) {
            Some(meta) => {
                print!("{}", meta.doc);
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("error: unknown rule `{rule}`; `mcp-lint rules` lists them");
                ExitCode::from(2)
            }
        },
    }
}

pub(crate) fn selected_rules(select: &[String], ignore: &[String]) -> Result<Vec<&'static dyn Rule>, String> {
    for name in select.iter().chain(ignore) {
        if rules::find(name).is_none() {
            return Err(format!("unknown rule `{name}`; `mcp-lint rules` lists them"));
        }
    }
    Ok(rules::ALL
        .iter()
        .copied()
        .filter(|r| select.is_empty() || select.iter().any(|s| s == r.meta().name))
        .filter(|r| !ignore.iter().any(|s| s == r.meta().name))
        .collect())
}

fn check(args: CheckArgs) -> ExitCode {
    let rules = match selected_rules(&args.select, &args.ignore) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths };
    let opts =
        Options { rules, prefilter: !args.no_prefilter, max_file_size: args.max_file_size, threads: args.threads };
    let result = engine::check_paths(&paths, &opts);

    for note in result.notes.iter() {
        eprintln!("note: {}: {}", note.path, note.message);
    }
    for note in result.unreadable.iter() {
        eprintln!("error: {}: {}", note.path, note.message);
    }
    let written = match args.format {
        Format::Human => {
            let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal();
            let stdout = StandardStream::stdout(if color { ColorChoice::Auto } else { ColorChoice::Never });
            let mut lock = stdout.lock();
            report::human::write(&mut lock, &result)
        }
        Format::Json => {
            let mut out = std::io::stdout().lock();
            serde_json::to_writer_pretty(&mut out, &report::json::to_value(&result))
                .map_err(std::io::Error::other)
                .and_then(|_| writeln!(out))
        }
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot write the report: {e}");
        return ExitCode::from(2);
    }
    if !result.unreadable.is_empty() {
        ExitCode::from(2)
    } else if result.diagnostics().next().is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

impl From<FixArgs> for crate::fix::cli::FixRequest {
    fn from(a: FixArgs) -> Self {
        crate::fix::cli::FixRequest {
            paths: if a.paths.is_empty() { vec![PathBuf::from(".")] } else { a.paths },
            unsafe_fixes: a.unsafe_fixes,
            diff: a.diff,
            allow_dirty: a.allow_dirty,
            allow_no_vcs: a.allow_no_vcs,
            select: a.select,
            ignore: a.ignore,
            max_file_size: a.max_file_size,
        }
    }
}
