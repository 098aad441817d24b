//! Edits of JSON text that several rules' fixes share.

use std::ops::Range;

use crate::diagnostic::Edit;
use crate::json::{JsonMember, JsonNode};

/// Edits that delete member `i` of `obj` together with the comma that separates it from a
/// neighbour, keeping comments and the layout of the other members. `text` is the whole file (a
/// JSON file, or the Rust file around a `json!` body): `{"roots": {"listChanged": true}}` loses its
/// only member and reads `{"roots": {}}`.
pub fn delete_member(text: &str, obj: &JsonNode, members: &[JsonMember], i: usize) -> Vec<Edit> {
    let m = &members[i];
    let after = skip_ws(text, m.range.end);
    let trailing_comma = text.as_bytes().get(after) == Some(&b',');
    let others = members.len() > 1;

    if !others {
        // The only member: when nothing else (but whitespace) is left inside the braces, empty
        // them entirely so the result reads `"roots": {}`.
        let end = if trailing_comma { after + 1 } else { m.range.end };
        let del = tidy_lines(text, m.range.start..end);
        let inner = obj.range.start + 1..obj.range.end.saturating_sub(1);
        let left_empty = text.get(inner.start..del.start).is_some_and(|s| s.trim().is_empty())
            && text.get(del.end..inner.end).is_some_and(|s| s.trim().is_empty());
        if left_empty {
            return vec![Edit::delete(inner)];
        }
        return vec![Edit::delete(del)];
    }
    if trailing_comma {
        // `"listChanged": true,` followed by another member (or a trailing comma in JSONC):
        // delete the member and its comma.
        return vec![Edit::delete(tidy_lines(text, m.range.start..after + 1))];
    }
    if i == 0 {
        // The first member with a comment before its comma (JSONC): delete the member and the
        // comma, and keep the comment.
        return match comma_after_comments(text, m.range.end) {
            Some(comma) => vec![Edit::delete(tidy_lines(text, m.range.clone())), Edit::delete(comma..comma + 1)],
            None => Vec::new(),
        };
    }
    // The last member, without a comma after it: delete the comma after the previous member and
    // the member itself (comments between them stay).
    let prev = &members[i - 1];
    let comma = skip_ws(text, prev.range.end);
    let member = tidy_lines(text, m.range.start..m.range.end);
    if text.as_bytes().get(comma) == Some(&b',') && comma < member.start {
        // On one line (`{"x": 1, "listChanged": true}`) the comma and the member go together; a
        // member on its own line goes as a line, so the closing brace keeps its own line.
        if member.start == m.range.start && text[comma + 1..member.start].trim().is_empty() {
            return vec![Edit::delete(comma..member.end)];
        }
        return vec![Edit::delete(comma..comma + 1), Edit::delete(member)];
    }
    vec![Edit::delete(prev.range.end..m.range.end)]
}

/// Widens a deletion to whole lines when it alone occupies them (indentation before; a line
/// break, or a `//` comment about it, after), else to the spaces that follow it on its line, so no
/// blank line or double space is left.
fn tidy_lines(text: &str, range: Range<usize>) -> Range<usize> {
    if let Some(lines) = own_line_range(text, range.clone()) {
        return lines;
    }
    let rest = &text[range.end..];
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    range.start..range.end + spaces
}

/// The offset of the first `,` after `at` when only whitespace and comments come before it.
fn comma_after_comments(text: &str, mut at: usize) -> Option<usize> {
    loop {
        at = skip_ws(text, at);
        let rest = text.get(at..)?;
        if rest.starts_with(',') {
            return Some(at);
        } else if rest.starts_with("//") {
            at += rest.find('\n')?;
        } else if rest.starts_with("/*") {
            at += rest.find("*/")? + 2;
        } else {
            return None;
        }
    }
}

/// The first byte at or after `at` that is not whitespace.
pub fn skip_ws(text: &str, at: usize) -> usize {
    let rest = text.get(at..).unwrap_or("");
    at + (rest.len() - rest.trim_start().len())
}

/// The whole line(s) of `range`, line break included, when `range` is alone on them: only
/// indentation before it, and only whitespace or a `//` comment after it.
pub fn own_line_range(text: &str, range: Range<usize>) -> Option<Range<usize>> {
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[range.end..];
    let line_end = rest.find('\n').map(|i| range.end + i)?;
    let after = text[range.end..line_end].trim();
    let alone = text[line_start..range.start].trim().is_empty() && (after.is_empty() || after.starts_with("//"));
    alone.then_some(line_start..line_end + 1)
}
