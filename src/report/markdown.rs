//! A rule page's Markdown as a terminal shows it (`mcp-lint explain`): headings underlined, prose
//! and list items joined and word-wrapped to the screen, code blocks indented and kept whole,
//! inline code and emphasis coloured (or left in backticks without colour), links as
//! `text (address)`, a table's rows as items that name their columns ("• Where: …"). Only what
//! the rule pages use; anything else stays as written.

use unicode_width::UnicodeWidthStr;

use super::terminal::{visible_width, wrap_words};

/// Prose is wrapped at most this wide, however wide the screen: long lines are hard to read.
const MAX_PROSE_COLUMNS: usize = 100;

const BOLD: &str = "\u{1b}[1m";
const CODE: &str = "\u{1b}[36m";
const RESET: &str = "\u{1b}[0m";

/// Renders `markdown` for a terminal of `columns`, with ANSI colours when `color`.
pub fn to_terminal(markdown: &str, columns: usize, color: bool) -> String {
    let mut r = Renderer { out: String::new(), columns: columns.clamp(20, MAX_PROSE_COLUMNS), color, block: None };
    let mut fence: Option<String> = None;
    // The column names of the table being read.
    let mut table: Option<Vec<String>> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if !trimmed.starts_with('|') {
            table = None;
        }
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            } else {
                r.code_line(line);
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            r.flush();
            fence = Some(trimmed[..3].to_owned());
            continue;
        }
        if trimmed.is_empty() {
            r.flush();
            r.out.push('\n');
            continue;
        }
        if let Some((level, title)) = heading(line) {
            r.flush();
            r.heading(level, title);
        } else if trimmed.starts_with('|') {
            r.flush();
            let cells = table_cells(trimmed);
            let separator = cells.iter().all(|c| !c.is_empty() && c.trim_matches(':').chars().all(|ch| ch == '-'));
            match &table {
                None => table = Some(cells),
                Some(_) if separator => {}
                Some(header) => {
                    for (i, cell) in cells.iter().enumerate() {
                        let text = match header.get(i).filter(|h| !h.is_empty()) {
                            Some(name) => format!("{name}: {cell}"),
                            None => cell.clone(),
                        };
                        let first = if i == 0 { "• " } else { "  " };
                        r.block = Some(Block { first: first.to_owned(), hanging: "  ".to_owned(), text });
                        r.flush();
                    }
                }
            }
        } else if let Some((indent, marker, text)) = list_item(line) {
            r.flush();
            let marker = if marker == "-" || marker == "*" { "•".to_owned() } else { marker.to_owned() };
            let first = format!("{}{marker} ", " ".repeat(indent));
            let hanging = " ".repeat(first.width());
            r.block = Some(Block { first, hanging, text: text.to_owned() });
        } else {
            match &mut r.block {
                Some(block) => {
                    block.text.push(' ');
                    block.text.push_str(trimmed);
                }
                None => {
                    r.block = Some(Block { first: String::new(), hanging: String::new(), text: trimmed.to_owned() })
                }
            }
        }
    }
    r.flush();
    // One blank line at most between blocks, none at the end.
    let mut text = r.out;
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    let mut text = text.trim_end().to_owned();
    text.push('\n');
    text
}

/// A paragraph or list item being gathered: its lines are joined, then wrapped.
struct Block {
    /// What the first line starts with (a list marker, indented).
    first: String,
    /// What the other lines start with.
    hanging: String,
    text: String,
}

struct Renderer {
    out: String,
    columns: usize,
    color: bool,
    block: Option<Block>,
}

impl Renderer {
    fn flush(&mut self) {
        let Some(block) = self.block.take() else { return };
        let text = self.inline(&block.text);
        let (first, indent) = (block.first.width(), block.hanging.width());
        self.out.push_str(&block.first);
        self.out.push_str(&wrap_words(&text, self.columns, first, indent, &block.hanging));
        self.out.push('\n');
    }

    fn heading(&mut self, level: usize, title: &str) {
        let text = self.inline(title);
        let width = visible_width(&text);
        if self.color {
            self.out.push_str(&format!("{BOLD}{text}{RESET}\n"));
        } else {
            self.out.push_str(&text);
            self.out.push('\n');
        }
        match level {
            1 => self.out.push_str(&format!("{}\n", "=".repeat(width))),
            2 => self.out.push_str(&format!("{}\n", "-".repeat(width))),
            _ => {}
        }
    }

    fn code_line(&mut self, line: &str) {
        if self.color && !line.is_empty() {
            self.out.push_str(&format!("    {CODE}{line}{RESET}\n"));
        } else if line.is_empty() {
            self.out.push('\n');
        } else {
            self.out.push_str(&format!("    {line}\n"));
        }
    }

    /// Inline code, `**strong**` and links. Without colour, code keeps its backticks (they tell
    /// a name from a word) and emphasis loses its stars.
    fn inline(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == '`' {
                let ticks = rest.len() - rest.trim_start_matches('`').len();
                let delimiter = &rest[..ticks];
                if let Some(end) = rest[ticks..].find(delimiter) {
                    let code = rest[ticks..ticks + end].trim();
                    if self.color {
                        out.push_str(&format!("{CODE}{code}{RESET}"));
                    } else {
                        out.push_str(&format!("`{code}`"));
                    }
                    rest = &rest[2 * ticks + end..];
                    continue;
                }
                out.push_str(delimiter);
                rest = &rest[ticks..];
                continue;
            }
            if let Some(after) = rest.strip_prefix("**")
                && let Some(end) = after.find("**")
            {
                let strong = self.inline(&after[..end]);
                if self.color {
                    out.push_str(&format!("{BOLD}{strong}{RESET}"));
                } else {
                    out.push_str(&strong);
                }
                rest = &after[end + 2..];
                continue;
            }
            if c == '['
                && let Some((label, address, len)) = link(rest)
            {
                let label = self.inline(label);
                if visible_width(&label) == address.width() && label.contains(address) {
                    out.push_str(address);
                } else {
                    out.push_str(&format!("{label} ({address})"));
                }
                rest = &rest[len..];
                continue;
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }
}

/// `| a | `b|c` |` → ["a", "`b|c`"]: a bar in inline code does not end a cell.
fn table_cells(row: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut in_code = false;
    for c in row.trim().trim_start_matches('|').trim_end_matches('|').chars() {
        match c {
            '`' => {
                in_code = !in_code;
                cell.push(c);
            }
            '|' if !in_code => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_owned());
    cells
}

/// `# Title` → (1, "Title").
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.len() - line.trim_start_matches('#').len();
    let title = line[level..].strip_prefix(' ')?;
    (1..=6).contains(&level).then_some((level, title.trim()))
}

/// `  - text` → (2, "-", "text"); `1. text` → (0, "1.", "text").
fn list_item(line: &str) -> Option<(usize, &str, &str)> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let (marker, text) = trimmed.split_once(' ')?;
    let bullet = marker == "-" || marker == "*";
    let numbered =
        marker.len() > 1 && marker.ends_with('.') && marker[..marker.len() - 1].bytes().all(|b| b.is_ascii_digit());
    (bullet || numbered).then_some((indent, marker, text.trim_start()))
}

/// `[label](address)` at the start of `text`: the label, the address and the bytes it takes.
fn link(text: &str) -> Option<(&str, &str, usize)> {
    let close = text.find("](")?;
    let label = &text[1..close];
    if label.contains('[') || label.contains(']') {
        return None;
    }
    let end = text[close + 2..].find(')')?;
    let address = &text[close + 2..close + 2 + end];
    (!address.contains(' ')).then_some((label, address, close + 3 + end))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# a-rule\n\nFinds `x` in code, with a [spec link](https://example.com/spec) and **stress**,\n\
                        over two lines.\n\n## What it finds\n\n- one item that is long enough to wrap at a narrow width\n  \
                        and goes on\n  - nested\n1. first\n\n```rust\nfn f() {\n\n    g();\n}\n```\n\n| a | b |\n|---|---|\n| `x|y` | two |\n";

    #[test]
    fn plain_text_without_colour() {
        let text = to_terminal(PAGE, 40, false);
        let expected = "a-rule\n======\n\n\
                        Finds `x` in code, with a spec link\n(https://example.com/spec) and stress,\nover two lines.\n\n\
                        What it finds\n-------------\n\n\
                        • one item that is long enough to wrap\n  at a narrow width and goes on\n  • nested\n1. first\n\n\
                        \x20   fn f() {\n\n        g();\n    }\n\n• a: `x|y`\n  b: two\n";
        assert_eq!(text, expected);
        assert!(text.lines().all(|l| l.width() <= 40), "{text}");
    }

    #[test]
    fn colour_replaces_the_markers() {
        let text = to_terminal(PAGE, 80, true);
        assert!(text.starts_with(&format!("{BOLD}a-rule{RESET}\n======\n")), "{text}");
        assert!(text.contains(&format!("Finds {CODE}x{RESET} in code")), "{text}");
        assert!(text.contains(&format!("{BOLD}stress{RESET}")), "{text}");
        assert!(text.contains(&format!("    {CODE}fn f() {{{RESET}")), "{text}");
    }

    #[test]
    fn every_rule_page_fits_the_screen_but_its_code() {
        for meta in crate::rules::all_meta() {
            let text = to_terminal(meta.doc, 80, false);
            assert!(!text.contains("```"), "{}", meta.name);
            for line in text.lines().filter(|l| l.width() > 80) {
                // A code line as written, or one word wider than the screen.
                let verbatim = meta.doc.lines().any(|l| l == line || format!("    {l}") == line);
                let one_word = !line.trim().contains(' ');
                assert!(verbatim || one_word, "{}: {line}", meta.name);
            }
        }
    }
}
