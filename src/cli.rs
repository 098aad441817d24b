//! The command line: `check`, `fix`, `rules`, `explain`, `server` (LSP) and `mcp` (MCP). Exit codes:
//! 0 no findings, 1 findings, 2 usage error, unreadable named path, or internal error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::engine::{self, Options};
use crate::report;
use crate::rules;

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
        /// `text`: rendered for reading (headings, wrapped prose, indented code); `markdown`: the
        /// page as written. Default: text on a terminal, Markdown into a pipe or a file.
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<PageFormat>,
    },
    /// Run the language server on stdin/stdout, for editors (diagnostics and quick fixes as you type).
    Server {
        /// Accepted for editor clients that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Run an MCP server on stdin/stdout, for coding agents: tools check, explain, rules, fix
    /// (a preview unless told to write) and summary, and the rule pages as resources.
    Mcp {
        /// A folder the server may read and write (repeatable). Default: the working directory.
        /// Paths outside these folders are refused, symbolic links and `..` included.
        #[arg(long, value_name = "DIR")]
        allow: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum PageFormat {
    Text,
    Markdown,
}

/// What `check` and `fix` read when no path is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultPaths {
    /// The current folder (`mcp-lint`).
    CurrentFolder,
    /// The package the current folder belongs to, as `cargo clippy` checks it (`cargo mcp-lint`).
    Package,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files and folders to check (default: the current folder; with `cargo mcp-lint`, the package the
    /// current folder belongs to). Folders are walked honouring .gitignore; target/ and .git/ are never read.
    /// `-` reads standard input (see --stdin-filename).
    paths: Vec<PathBuf>,
    /// With no paths: the whole cargo workspace the current folder belongs to.
    #[arg(long, conflicts_with = "paths")]
    workspace: bool,
    /// The path standard input stands for with `-`: its extension decides Rust or JSON, its folder the
    /// crate, and findings show it.
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    #[command(flatten)]
    output: report::output::OutputArgs,
    /// Only these rules (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    select: Vec<String>,
    /// Not these rules (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Use this configuration file for every file instead of searching for mcp-lint.toml, .mcp-lint.toml or
    /// Cargo.toml metadata upward from each file.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Record every current finding in FILE (a baseline) and exit 0 without reporting them.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    write_baseline: Option<PathBuf>,
    /// Report only findings that are not in the baseline FILE; its stale entries are listed as notes.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
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
    /// Files and folders to fix (default: the current folder; with `cargo mcp-lint`, the package the
    /// current folder belongs to).
    paths: Vec<PathBuf>,
    /// With no paths: the whole cargo workspace the current folder belongs to.
    #[arg(long, conflicts_with = "paths")]
    workspace: bool,
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
    /// Use this configuration file for every file instead of searching upward from each file.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// The roots codemod's migration for every roots use (default: what the crate model finds
    /// each use does). `param`: a documented tool parameter (refused for allow-lists: it would let
    /// clients choose any directory); `config`: keep the server's configured list, drop the
    /// client's refresh; `mrtr` (rmcp >= 3.1.1): the tool asks for the roots through the
    /// 2026-07-28 round trip (an `input_required` result) instead of a server request.
    #[arg(long, value_name = "MIGRATION", value_parser = ["param", "config", "mrtr"])]
    roots_to: Option<String>,
}

pub fn main() -> ExitCode {
    main_as("mcp-lint", DefaultPaths::CurrentFolder, std::env::args_os())
}

/// The CLI under the name it was started as (`cargo mcp-lint` for the cargo subcommand), which usage and
/// `--help` show; `args` starts with the program's path, as `std::env::args_os` does.
pub fn main_as(
    bin_name: &'static str,
    defaults: DefaultPaths,
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> ExitCode {
    let parsed = Cli::command()
        .bin_name(bin_name)
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    match cli.command {
        Command::Check(mut args) => {
            let stdin = args.paths.iter().any(|p| p.as_os_str() == "-") || args.stdin_filename.is_some();
            if args.paths.is_empty() && !stdin {
                match default_paths(defaults, args.workspace) {
                    Ok(paths) => args.paths = paths,
                    Err(e) => return usage_error(&e),
                }
            }
            check(args)
        }
        Command::Fix(mut args) => {
            if args.paths.is_empty() {
                match default_paths(defaults, args.workspace) {
                    Ok(paths) => args.paths = paths,
                    Err(e) => return usage_error(&e),
                }
            }
            crate::fix::cli::run(args.into())
        }
        Command::Rules => {
            let mut out = std::io::stdout().lock();
            for meta in rules::all_meta() {
                let _ = writeln!(out, "{:<30} {}", meta.name, meta.summary);
            }
            ExitCode::SUCCESS
        }
        Command::Server { stdio: _ } => crate::lsp::run(),
        Command::Mcp { allow } => crate::mcp_server::run(&allow),
        Command::Explain { rule, format } => explain(&rule, format),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// The paths to read when none is given: the current folder, or the folder of the package (or
/// with `--workspace`, the workspace) it belongs to, as `cargo locate-project` finds it, spelt
/// relative to the current folder so findings show paths as `cargo clippy` does.
fn default_paths(defaults: DefaultPaths, workspace: bool) -> Result<Vec<PathBuf>, String> {
    if defaults == DefaultPaths::CurrentFolder && !workspace {
        return Ok(vec![PathBuf::from(".")]);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut locate = std::process::Command::new(&cargo);
    locate.args(["locate-project", "--message-format", "plain"]);
    if workspace {
        locate.arg("--workspace");
    }
    let out = locate.output().map_err(|e| {
        format!("cannot run `{} locate-project` to find the package: {e}; name the paths to check", cargo.display())
    })?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim().trim_start_matches("error: ");
        return Err(format!("{why}; name the paths to check"));
    }
    let manifest = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let root = manifest.parent().ok_or("`cargo locate-project` named no folder")?;
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current folder: {e}"))?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    Ok(vec![match cwd.strip_prefix(&root) {
        Ok(below) if below.as_os_str().is_empty() => PathBuf::from("."),
        Ok(below) => below.components().map(|_| "..").collect(),
        Err(_) => root,
    }])
}

/// `explain`: a rule's page, rendered for a terminal unless it goes elsewhere or Markdown is asked.
fn explain(rule: &str, format: Option<PageFormat>) -> ExitCode {
    let Some(meta) = rules::all_meta().find(|m| m.name == rule) else {
        let hint = crate::words::hint(rule, rules::all_meta().map(|m| m.name), "; `mcp-lint rules` lists them");
        eprintln!("error: unknown rule `{rule}`{hint}");
        return ExitCode::from(2);
    };
    let on_terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let page = match format.unwrap_or(if on_terminal { PageFormat::Text } else { PageFormat::Markdown }) {
        PageFormat::Markdown => meta.doc.to_owned(),
        PageFormat::Text => {
            let color = report::terminal::stdout_color(report::terminal::ColorWhen::Auto);
            report::markdown::to_terminal(meta.doc, report::terminal::Width::of_stdout().columns, color)
        }
    };
    // A closed pipe (`explain x | head`) is not an error.
    let _ = std::io::stdout().lock().write_all(page.as_bytes());
    ExitCode::SUCCESS
}

fn check(args: CheckArgs) -> ExitCode {
    let mut opts = match Options::selected(&args.select, &args.ignore, args.config.as_deref(), None) {
        Ok(opts) => opts,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    (opts.prefilter, opts.max_file_size, opts.threads) = (!args.no_prefilter, args.max_file_size, args.threads);
    // `-` is standard input; `--stdin-filename` alone implies it, as in ruff.
    let stdin =
        args.paths.iter().any(|p| p.as_os_str() == "-") || (args.paths.is_empty() && args.stdin_filename.is_some());
    if args.stdin_filename.is_some() && !stdin {
        eprintln!("error: --stdin-filename names what `-` (standard input) stands for; add `-` to the paths");
        return ExitCode::from(2);
    }
    let mut paths: Vec<PathBuf> = args.paths.into_iter().filter(|p| p.as_os_str() != "-").collect();
    if paths.is_empty() && !stdin {
        paths.push(PathBuf::from("."));
    }
    // Read the baseline first: a bad one should not cost a whole run.
    let baseline = match args.baseline.as_deref().map(crate::baseline::Baseline::load).transpose() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let settings = opts.settings.clone();
    let mut result = if paths.is_empty() { engine::RunResult::default() } else { engine::check_paths(&paths, &opts) };
    if stdin && result.config_errors.is_empty() {
        let (path, shown, text) = match report::output::read_stdin(args.stdin_filename.as_deref()) {
            Ok(input) => input,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        result.merge(engine::check_source(&path, &shown, text, &opts));
    }
    if !result.config_errors.is_empty() {
        for e in &result.config_errors {
            eprintln!("error: {e}");
        }
        return ExitCode::from(2);
    }
    for file in args.write_baseline.iter().chain(&args.baseline) {
        crate::baseline::drop_baseline_file(&mut result, file);
    }
    if let Some(file) = &args.write_baseline {
        return write_baseline(file, &result);
    }
    if let Some(baseline) = &baseline {
        let judged = |path: &std::path::Path, rule: &str| {
            let mut on = settings.for_file(path);
            on.restrict_to(&opts.rules);
            on.enables(rule)
        };
        let checked = result.checked.clone();
        let applied = baseline.apply(&mut result, &checked, &judged);
        if applied.known > 0 && !args.output.quiet {
            let (n, were) = (applied.known, if applied.known == 1 { "was" } else { "were" });
            eprintln!("note: {} already in the baseline {were} not reported", crate::words::count(n, "finding"));
        }
    }
    // The roots codemod's rewrites and reasons on the findings, in every format, `--statistics`
    // too: it counts the fixes the report shows. Only rmcp crates with a `list_roots()` finding
    // are planned.
    crate::fix::codemod::visible::attach(&mut result, &opts);
    report::output::finish(&args.output, &result)
}

/// `--write-baseline`: records the findings instead of reporting them.
fn write_baseline(file: &std::path::Path, result: &engine::RunResult) -> ExitCode {
    for note in result.unreadable.iter() {
        eprintln!("error: {}: {}", note.path, note.message);
    }
    match crate::baseline::write(file, result) {
        Ok(n) => {
            let shown = crate::discover::display_path(file);
            eprintln!("wrote {} to the baseline {shown}", crate::words::count(n, "finding"));
            if result.unreadable.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
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
            config: a.config,
            roots_to: a.roots_to.as_deref().and_then(crate::config::RootsTo::parse),
        }
    }
}
