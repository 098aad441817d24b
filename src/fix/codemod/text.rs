//! Text helpers for the codemod: byte ranges of syntax nodes in the file as read, whole-line
//! deletions, indentation, and applying edits to a slice of a file.

use std::ops::Range;
use std::str::FromStr;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::spanned::Spanned;

use crate::diagnostic::Edit;

/// One parsed Rust file of the crate: its text and the offset of the parser's text in it (a BOM).
pub struct Src<'a> {
    pub text: &'a str,
    pub base: usize,
}

impl Src<'_> {
    pub fn span(&self, span: Span) -> Range<usize> {
        crate::rust::parse::file_range(span, self.base)
    }

    pub fn range(&self, node: &impl Spanned) -> Range<usize> {
        self.span(node.span())
    }

    /// From the first token of `node` (outer attributes included, as `syn` prints them).
    pub fn slice(&self, range: Range<usize>) -> &str {
        self.text.get(range).unwrap_or("")
    }

    pub fn node_text(&self, node: &impl Spanned) -> &str {
        self.slice(self.range(node))
    }
}

/// The start of the line holding `at`.
pub fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The spaces and tabs that open the line holding `at`.
pub fn indent_at(text: &str, at: usize) -> &str {
    let start = line_start(text, at);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `range` widened to whole lines, line break included, when only indentation precedes it and
/// only whitespace follows it on its lines; otherwise `range` plus the spaces after it.
pub fn deletion(text: &str, range: Range<usize>) -> Range<usize> {
    let start = line_start(text, range.start);
    let rest = &text[range.end..];
    let eol = rest.find('\n').map_or(text.len(), |i| range.end + i);
    // A `//` comment after the code on its last line is about it and goes with it.
    let after = text[range.end..eol].trim();
    let alone = text[start..range.start].trim().is_empty() && (after.is_empty() || after.starts_with("//"));
    if alone {
        return start..(eol + 1).min(text.len());
    }
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    range.start..range.end + spaces
}

/// Like `deletion`, and also takes one blank line that follows, so deleting an item between two
/// items does not leave two blank lines.
pub fn item_deletion(text: &str, range: Range<usize>) -> Range<usize> {
    let mut r = deletion(text, range);
    let rest = &text[r.end..];
    if let Some(nl) = rest.find('\n')
        && rest[..nl].trim().is_empty()
        && text[..r.start].ends_with("\n\n")
    {
        r.end += nl + 1;
    }
    r
}

/// Blank lines a deletion left behind: two or more in a row become one, and none stays right
/// after a `{` or before a `}` line or at the end of the file. Only where `before` had no such
/// layout itself, so a file's own style is kept.
pub fn tidy_blank_lines(new: &str, before: &str) -> String {
    let crlf = new.contains("\r\n");
    let norm = |t: &str| t.replace("\r\n", "\n");
    let (new_n, before_n) = (norm(new), norm(before));
    let has_runs = before_n.contains("\n\n\n");
    let lines: Vec<&str> = new_n.split('\n').collect();
    let before_lines: Vec<&str> = before_n.split('\n').collect();
    let blank_before_close =
        before_lines.windows(2).any(|w| w[0].trim().is_empty() && w[1].trim_start().starts_with('}'));
    let blank_after_open = before_lines.windows(2).any(|w| w[0].trim_end().ends_with('{') && w[1].trim().is_empty());
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let blank = line.trim().is_empty() && i + 1 < lines.len();
        if blank {
            let prev_blank = out.last().is_some_and(|l: &&str| l.trim().is_empty());
            let next = lines[i + 1..].iter().find(|l| !l.trim().is_empty());
            if (!has_runs && prev_blank)
                || (!blank_before_close && next.is_some_and(|n| n.trim_start().starts_with('}')))
                || (!blank_after_open && out.last().is_some_and(|l| l.trim_end().ends_with('{')))
                || (next.is_none() && !before_n.trim_end_matches('\n').is_empty())
            {
                continue;
            }
        }
        out.push(line);
    }
    let joined = out.join("\n");
    if crlf { joined.replace('\n', "\r\n") } else { joined }
}

/// The first byte at or after `at` that is not whitespace.
pub fn skip_ws(text: &str, at: usize) -> usize {
    let rest = text.get(at..).unwrap_or("");
    at + (rest.len() - rest.trim_start().len())
}

/// The text of `range` with the edits that fall inside it applied; edits outside are ignored.
pub fn render(text: &str, range: Range<usize>, edits: &[Edit]) -> String {
    let mut inside: Vec<&Edit> =
        edits.iter().filter(|e| e.byte_range.start >= range.start && e.byte_range.end <= range.end).collect();
    inside.sort_by_key(|e| (e.byte_range.start, e.byte_range.end));
    let mut out = String::new();
    let mut at = range.start;
    for e in inside {
        if e.byte_range.start < at {
            continue;
        }
        out.push_str(&text[at..e.byte_range.start]);
        out.push_str(&e.replacement);
        at = e.byte_range.end;
    }
    out.push_str(&text[at..range.end]);
    out
}

/// Whether `text` has an identifier token `name` (comments and string contents do not count).
/// Text that does not lex counts as mentioning it, so callers stay on the safe side, unless the
/// name is nowhere in it.
pub fn mentions_ident(text: &str, name: &str) -> bool {
    // No token can be `name` where the text does not hold it: skip tokenizing the whole text.
    if !text.contains(name) {
        return false;
    }
    match TokenStream::from_str(text) {
        Ok(tokens) => crate::rust::syntax::tokens_mention(&tokens, name),
        Err(_) => true,
    }
}

/// Every identifier token of `text`, at any depth; `None` when it does not lex (then every name
/// counts as mentioned, as `mentions_ident` has it).
pub fn ident_set(text: &str) -> Option<std::collections::HashSet<String>> {
    let tokens = TokenStream::from_str(text).ok()?;
    let mut out = std::collections::HashSet::new();
    let mut stack = vec![tokens.into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) => {
                out.insert(i.to_string());
            }
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    Some(out)
}

/// How many times an identifier token `name` occurs in `tokens`.
pub fn count_ident(tokens: &TokenStream, name: &str) -> usize {
    let mut n = 0;
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Ident(i)) if i == name => n += 1,
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    n
}

/// Two edits collide when their ranges overlap or both insert at one offset.
pub fn collide(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end || (a.is_empty() || b.is_empty()) && a.start.max(b.start) <= a.end.min(b.end)
}

/// `snake_case` to `CamelCase`.
pub fn camel(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deletions_take_whole_lines_only_when_alone() {
        let text = "fn f() {\n    let a = 1;\n    let b = 2; // two\n    let c = 3; let d = 4;\n}\n";
        let a = text.find("let a").unwrap();
        assert_eq!(&text[deletion(text, a..a + 10)], "    let a = 1;\n");
        // A comment after the code is about it and goes with it.
        let b = text.find("let b").unwrap();
        assert_eq!(&text[deletion(text, b..b + 10)], "    let b = 2; // two\n");
        let c = text.find("let c").unwrap();
        assert_eq!(&text[deletion(text, c..c + 10)], "let c = 3; ");
    }

    #[test]
    fn render_applies_inner_edits() {
        let text = "abcdef";
        let edits = [Edit::replace(1..2, "X"), Edit::replace(4..5, "Y"), Edit::replace(0..6, "no")];
        assert_eq!(render(text, 1..5, &edits[..2]), "XcdY");
        assert_eq!(camel("list_files"), "ListFiles");
    }
}
