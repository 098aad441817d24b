//! What the human report may assume about where it is read: whether to colour it (`--color` and
//! the environment) and how wide its rows may be.

use std::ffi::OsString;
use std::io::IsTerminal;

use unicode_width::UnicodeWidthStr;

/// `--color`: when the human report is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorWhen {
    /// Only on a terminal, unless the environment says otherwise (NO_COLOR, CLICOLOR, FORCE_COLOR, CLICOLOR_FORCE).
    #[default]
    Auto,
    /// Always, even into a pipe.
    Always,
    /// Never.
    Never,
}

/// Whether to colour, given `--color`, whether standard output is a terminal and the environment.
/// `--color always|never` beats the environment. In `auto`: a non-empty `NO_COLOR` turns colour
/// off (no-color.org: an empty one does not count); then a non-empty `FORCE_COLOR`, or a
/// `CLICOLOR_FORCE` other than `0`, turns it on even into a pipe; then `CLICOLOR=0` turns it off;
/// else colour exactly on a terminal that is not `TERM=dumb` (bixense.com/clicolors).
pub fn use_color(when: ColorWhen, is_terminal: bool, env: impl Fn(&str) -> Option<OsString>) -> bool {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            if set("NO_COLOR").is_some() {
                false
            } else if set("FORCE_COLOR").is_some() || set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else if env("CLICOLOR").is_some_and(|v| v == "0") {
                false
            } else {
                is_terminal && env("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

/// The decision for this process's standard output.
pub fn stdout_color(when: ColorWhen) -> bool {
    use_color(when, std::io::stdout().is_terminal(), |name| std::env::var_os(name))
}

/// Columns used when nothing says how wide the screen is (a CI log, a file): rustc's choice.
pub const FALLBACK_COLUMNS: usize = 140;

/// How wide the human report's rows may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Width {
    /// Source lines are shortened to fit in this many columns.
    pub columns: usize,
    /// Messages and notes are word-wrapped to the columns too: only when a person reads standard
    /// output on a terminal, which would otherwise break them mid-word. Into a pipe or a file each
    /// stays on one line, for grep.
    pub wrap_prose: bool,
}

impl Width {
    /// For a report written to a file: no screen to fit.
    pub fn fallback() -> Width {
        Width { columns: FALLBACK_COLUMNS, wrap_prose: false }
    }

    /// For this process's standard output: the width of the terminal (standard output's, else
    /// standard error's or input's, so `mcp-lint check | less` still fits the screen), else a
    /// positive `COLUMNS`, else [`FALLBACK_COLUMNS`].
    pub fn of_stdout() -> Width {
        let on_terminal = terminal_size::terminal_size_of(std::io::stdout());
        let columns = on_terminal
            .or_else(terminal_size::terminal_size)
            .map(|(w, _)| usize::from(w.0))
            .or_else(|| std::env::var("COLUMNS").ok()?.trim().parse().ok().filter(|&c| c > 0))
            .unwrap_or(FALLBACK_COLUMNS);
        Width { columns, wrap_prose: on_terminal.is_some() }
    }
}

/// Breaks `text` at spaces into lines that fit `columns`: the first starts at column `first`,
/// the others at `indent`, after `pad` (what the caller adds to reach it). A word wider than the
/// room stays whole; colour codes in it take no room.
pub fn wrap_words(text: &str, columns: usize, first: usize, indent: usize, pad: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (n, paragraph) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
            out.push_str(pad);
        }
        let mut used = if n == 0 { first } else { indent };
        let mut line_start = true;
        for word in paragraph.split(' ') {
            let w = visible_width(word);
            if !line_start && used + 1 + w > columns {
                out.push('\n');
                out.push_str(pad);
                used = indent;
                line_start = true;
            }
            if !line_start {
                out.push(' ');
                used += 1;
            }
            out.push_str(word);
            used += w;
            line_start = false;
        }
    }
    out
}

/// Columns a text takes on screen, its colour codes (`ESC [ … m`) aside.
pub fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut rest = text;
    while let Some(start) = rest.find('\u{1b}') {
        width += rest[..start].width();
        rest = rest[start..].find('m').map_or("", |end| &rest[start + end + 1..]);
    }
    width + rest.width()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn color(when: ColorWhen, tty: bool, vars: &[(&str, &str)]) -> bool {
        use_color(when, tty, |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v)))
    }

    #[test]
    fn auto_colours_only_a_terminal() {
        assert!(color(ColorWhen::Auto, true, &[]));
        assert!(!color(ColorWhen::Auto, false, &[]));
        assert!(!color(ColorWhen::Auto, true, &[("TERM", "dumb")]));
    }

    #[test]
    fn no_color_counts_only_when_not_empty() {
        assert!(!color(ColorWhen::Auto, true, &[("NO_COLOR", "1")]));
        assert!(color(ColorWhen::Auto, true, &[("NO_COLOR", "")]));
        assert!(!color(ColorWhen::Auto, true, &[("NO_COLOR", "1"), ("FORCE_COLOR", "1")]));
    }

    #[test]
    fn forcing_variables_colour_a_pipe() {
        assert!(color(ColorWhen::Auto, false, &[("FORCE_COLOR", "1")]));
        assert!(color(ColorWhen::Auto, false, &[("CLICOLOR_FORCE", "1")]));
        assert!(!color(ColorWhen::Auto, false, &[("CLICOLOR_FORCE", "0")]));
        assert!(!color(ColorWhen::Auto, false, &[("FORCE_COLOR", "")]));
        assert!(color(ColorWhen::Auto, false, &[("CLICOLOR", "0"), ("CLICOLOR_FORCE", "1")]));
    }

    #[test]
    fn clicolor_zero_turns_a_terminal_off() {
        assert!(!color(ColorWhen::Auto, true, &[("CLICOLOR", "0")]));
        assert!(color(ColorWhen::Auto, true, &[("CLICOLOR", "1")]));
    }

    #[test]
    fn the_flag_beats_the_environment() {
        assert!(color(ColorWhen::Always, false, &[("NO_COLOR", "1"), ("CLICOLOR", "0")]));
        assert!(!color(ColorWhen::Never, true, &[("FORCE_COLOR", "1"), ("CLICOLOR_FORCE", "1")]));
    }
}
