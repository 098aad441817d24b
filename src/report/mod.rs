//! Output formats: each is a function from a run's result to a writer.

pub mod cargo_json;
pub mod github;
pub mod human;
pub mod json;
pub mod markdown;
pub mod output;
pub mod sarif;
pub mod shortened;
pub mod statistics;
pub mod summary;
pub mod terminal;

use clap::ValueEnum;

use crate::source::{LineCol, SourceFile};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Code frames like rustc's (the default).
    Human,
    /// A JSON array, one object per finding.
    Json,
    /// SARIF 2.1.0, as GitHub code scanning and other SARIF viewers read it.
    Sarif,
    /// GitHub Actions workflow commands: annotations on the pull request's lines.
    Github,
    /// cargo's `--message-format=json` records, for rust-analyzer's `check.overrideCommand`.
    CargoJson,
    /// A Markdown audit report for a migration ticket.
    Summary,
}

/// Start and end (exclusive) of a byte range as 1-based lines and Unicode-scalar columns.
pub(crate) fn line_cols(file: &SourceFile, range: &std::ops::Range<usize>) -> (LineCol, LineCol) {
    (file.lines.line_col(&file.text, range.start), file.lines.line_col(&file.text, range.end))
}

/// The text of a 1-based line, without its terminator.
pub(crate) fn line_text(file: &SourceFile, line: usize) -> &str {
    &file.text[file.lines.line_range(&file.text, line - 1)]
}

/// Where the project's pages live: the crate's `repository` (or `homepage`) when `Cargo.toml` names
/// one. None otherwise: the crate is not published, so any other address would be a guess.
pub(crate) fn information_uri() -> Option<&'static str> {
    [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")].into_iter().find(|u| !u.is_empty())
}

/// A link to a rule's page in the repository, when `Cargo.toml` names one on GitHub (whose file
/// links are `/blob/<branch>/<path>`; other hosts lay theirs out differently, so no link is guessed).
pub(crate) fn rule_page_uri(rule: &str) -> Option<String> {
    let repo = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    repo.starts_with("https://github.com/").then(|| format!("{repo}/blob/main/rules/{rule}.md"))
}
