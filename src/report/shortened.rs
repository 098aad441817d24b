//! Source lines shortened around their labels, as rustc does, so a code frame fits the screen:
//! `...` stands for what is cut on either side. codespan-reporting prints whole lines, and a line
//! wider than the terminal wraps, which puts the carets under other text. So the frame is rendered
//! from a copy of the labelled lines, each cut to fit, with the labels moved to match; line numbers
//! and the `file:line:column` locus still say where the finding is in the real file.

use std::collections::BTreeSet;
use std::ops::Range;

use codespan_reporting::files::{Error, Files};
use unicode_width::UnicodeWidthChar;

use crate::source::SourceFile;

const ELLIPSIS: &str = "...";
/// The narrowest code area kept on a tiny terminal: past that, rows overflow.
const MIN_CODE_COLUMNS: usize = 16;

/// What the frame will show of a label: its byte range and how wide its message is.
pub struct LabelSpan {
    pub range: Range<usize>,
    pub message_columns: usize,
    pub primary: bool,
}

/// How codespan-reporting lays out the frame (its `term::Config`).
pub struct Layout {
    pub columns: usize,
    pub tab_width: usize,
    pub start_context_lines: usize,
    pub end_context_lines: usize,
}

/// A line of the copy: which part of the original line it keeps.
struct Kept {
    /// Where the copied line starts in the copy.
    start: usize,
    /// Where the kept original text starts in the copy (after a leading `...`).
    text_start: usize,
    /// The original bytes kept.
    original: Range<usize>,
    cut_right: bool,
}

/// The shortened copy, as a codespan-reporting file: byte offsets are the copy's.
pub struct Shortened<'a> {
    file: &'a SourceFile,
    /// 0-based original line of the copy's first line.
    first_line: usize,
    text: String,
    lines: Vec<Kept>,
}

impl<'a> Shortened<'a> {
    /// The copy, or `None` when every line the frame shows already fits (then the file itself is
    /// rendered, unchanged).
    pub fn new(file: &'a SourceFile, labels: &[LabelSpan], layout: &Layout) -> Option<Self> {
        let line_of = |offset: usize| file.lines.line_col(&file.text, offset).line - 1;
        let ends: Vec<(usize, usize)> = labels.iter().map(|l| (line_of(l.range.start), line_of(l.range.end))).collect();
        let first_line = ends.iter().map(|e| e.0).min()?;
        let last_line = ends.iter().map(|e| e.1).max()?.max(first_line);
        let shown = shown_lines(&ends, layout);

        // The gutter: line numbers, ` │ `, and two columns per multi-line label.
        let multi = ends.iter().filter(|(s, e)| s != e).count();
        let gutter = digits(last_line + 1) + 3 + 2 * multi;
        let code_columns = layout.columns.saturating_sub(gutter).max(MIN_CODE_COLUMNS);

        let mut windows = Vec::new();
        let mut any_cut = false;
        for &line in &shown {
            let range = file.lines.line_range(&file.text, line);
            let marks = marks_on(line, labels, &ends, file);
            let window = window(&file.text[range.clone()], range.start, &marks, code_columns, layout.tab_width);
            any_cut |= window.start != range.start || window.end != range.end;
            windows.push((line, range, window));
        }
        if !any_cut {
            return None;
        }

        let mut text = String::new();
        let mut lines = Vec::with_capacity(last_line - first_line + 1);
        let mut windows = windows.into_iter().peekable();
        for line in first_line..=last_line {
            let start = text.len();
            let kept = match windows.next_if(|(l, _, _)| *l == line) {
                Some((_, range, window)) => {
                    if window.start > range.start {
                        text.push_str(ELLIPSIS);
                    }
                    let text_start = text.len();
                    text.push_str(&file.text[window.clone()]);
                    let cut_right = window.end < range.end;
                    if cut_right {
                        text.push_str(ELLIPSIS);
                    }
                    Kept { start, text_start, original: window, cut_right }
                }
                // Never printed: codespan-reporting only asks where it is.
                None => {
                    let at = file.lines.line_start(line).unwrap_or(file.text.len());
                    Kept { start, text_start: start, original: at..at, cut_right: false }
                }
            };
            lines.push(kept);
            text.push('\n');
        }
        Some(Shortened { file, first_line, text, lines })
    }

    /// A label's range in the copy. A label end cut off on the right covers the `...`; a start cut
    /// off on the left begins at the `...`.
    pub fn map(&self, range: &Range<usize>) -> Range<usize> {
        self.map_offset(range.start, false)..self.map_offset(range.end, true).max(self.map_offset(range.start, false))
    }

    fn map_offset(&self, offset: usize, is_end: bool) -> usize {
        let line = self.file.lines.line_col(&self.file.text, offset).line - 1;
        let Some(kept) = line.checked_sub(self.first_line).and_then(|i| self.lines.get(i)) else {
            return self.text.len();
        };
        let text_end = kept.text_start + kept.original.len();
        if offset < kept.original.start {
            if is_end { kept.text_start } else { kept.start }
        } else if offset <= kept.original.end {
            kept.text_start + (offset - kept.original.start)
        } else if kept.cut_right && is_end {
            text_end + ELLIPSIS.len()
        } else {
            text_end
        }
    }

    fn line_index_of(&self, offset: usize) -> usize {
        self.lines.partition_point(|k| k.start <= offset).saturating_sub(1)
    }
}

impl<'a> Files<'a> for Shortened<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.file.display)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(self.line_index_of(byte_index))
    }

    fn line_number(&'a self, (): (), line_index: usize) -> Result<usize, Error> {
        Ok(self.first_line + line_index + 1)
    }

    /// The column in the original line, as the unshortened frame would say.
    fn column_number(&'a self, (): (), line_index: usize, byte_index: usize) -> Result<usize, Error> {
        let kept =
            self.lines.get(line_index).ok_or(Error::LineTooLarge { given: line_index, max: self.lines.len() })?;
        let original = kept.original.start + byte_index.saturating_sub(kept.text_start).min(kept.original.len());
        Ok(self.file.lines.line_col(&self.file.text, original).column)
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        let kept =
            self.lines.get(line_index).ok_or(Error::LineTooLarge { given: line_index, max: self.lines.len() })?;
        let end = self.lines.get(line_index + 1).map_or(self.text.len(), |next| next.start);
        Ok(kept.start..end)
    }
}

/// The lines codespan-reporting prints: each label's first and last line, the context lines of a
/// multi-line label, and a single line between two printed ones.
fn shown_lines(ends: &[(usize, usize)], layout: &Layout) -> BTreeSet<usize> {
    let mut shown = BTreeSet::new();
    for &(start, end) in ends {
        shown.insert(start);
        shown.insert(end);
        for line in start + 1..end {
            if line - start <= layout.start_context_lines || end - line <= layout.end_context_lines {
                shown.insert(line);
            }
        }
    }
    let gaps: Vec<usize> =
        shown.iter().zip(shown.iter().skip(1)).filter(|(a, b)| *b - *a == 2).map(|(a, _)| a + 1).collect();
    shown.extend(gaps);
    shown
}

/// A place the frame points at on one line: byte offsets, and the columns of message after it.
struct Mark {
    start: usize,
    end: usize,
    message_columns: usize,
    primary: bool,
}

/// What each label marks on `line`: a one-line label its range; a multi-line label its start on
/// its first line and, on its last, the text up to its end (with the message).
fn marks_on(line: usize, labels: &[LabelSpan], ends: &[(usize, usize)], file: &SourceFile) -> Vec<Mark> {
    let line_end = file.lines.line_range(&file.text, line).end;
    let mut marks = Vec::new();
    for (label, &(first, last)) in labels.iter().zip(ends) {
        let (start, end) = (label.range.start.min(line_end), label.range.end.min(line_end));
        if first == line && last == line {
            marks.push(Mark { start, end, message_columns: label.message_columns, primary: label.primary });
        } else if first == line {
            marks.push(Mark { start, end: start, message_columns: 0, primary: label.primary });
        } else if last == line {
            // The label covers this line up to its end: keep that text in view, not just the end.
            let range = file.lines.line_range(&file.text, line);
            let text = &file.text[range.clone()];
            let start = (range.start + (text.len() - text.trim_start().len())).min(end);
            marks.push(Mark { start, end, message_columns: label.message_columns, primary: label.primary });
        }
    }
    marks
}

/// The part of a line to keep (original byte offsets) so that the line, and each mark's carets
/// and message, fit in `columns` counting any `...`. A line that fits is kept whole. Else the
/// marks are centred, with their messages if those fit, else without; marks wider than the
/// screen keep their start in view. When all of a line's marks cannot be seen together, the
/// primary label's are the ones kept in view.
fn window(line: &str, base: usize, marks: &[Mark], columns: usize, tab_width: usize) -> Range<usize> {
    let width = |ch: char| if ch == '\t' { tab_width } else { ch.width().unwrap_or(0) };
    // Column at which each character starts, and the line's width.
    let mut cols = Vec::with_capacity(line.len());
    let mut total = 0;
    for (i, ch) in line.char_indices() {
        cols.push((i, total));
        total += width(ch);
    }
    let col_of = |offset: usize| {
        let at = cols.partition_point(|&(i, _)| base + i < offset);
        cols.get(at).map_or(total, |&(_, c)| c)
    };
    let reach = |m: &Mark| {
        col_of(m.end).max(col_of(m.start) + 1) + if m.message_columns > 0 { 1 + m.message_columns } else { 0 }
    };
    if total <= columns && marks.iter().all(|m| reach(m) <= columns) {
        return base..base + line.len();
    }

    let left_for = |marks: &[&Mark]| -> usize {
        let Some(lo) = marks.iter().map(|m| col_of(m.start)).min() else { return 0 };
        let span_end = marks.iter().map(|m| col_of(m.end).max(col_of(m.start) + 1)).max().unwrap_or(lo);
        let labelled_end = marks.iter().map(|m| reach(m)).max().unwrap_or(span_end);
        let room = columns.saturating_sub(ELLIPSIS.len());
        let left = if labelled_end <= columns {
            0
        } else if labelled_end - lo <= room {
            lo.saturating_sub((room - (labelled_end - lo)) / 2)
        } else if span_end - lo <= room {
            // The messages overflow: as little as the start allows, else some context on the left.
            lo.saturating_sub((room - (span_end - lo)) * 2 / 5).max(labelled_end - room).min(lo)
        } else {
            lo
        };
        // Cutting fewer columns than the `...` costs gains nothing.
        if left <= ELLIPSIS.len() { 0 } else { left }
    };
    let all: Vec<&Mark> = marks.iter().collect();
    let mut left = left_for(&all);
    let visible = |left: usize, m: &Mark| {
        let room = columns.saturating_sub(if left > 0 { 2 } else { 1 } * ELLIPSIS.len());
        col_of(m.start) >= left && col_of(m.start) < left + room
    };
    if marks.iter().any(|m| m.primary && !visible(left, m)) {
        let primary: Vec<&Mark> = marks.iter().filter(|m| m.primary).collect();
        left = left_for(&primary);
    }

    // The first character that starts at or after `left` (a wide one straddling it goes).
    let (start, start_col) = cols.iter().find(|(_, c)| *c >= left).copied().unwrap_or((line.len(), total));
    let room = columns.saturating_sub(if start > 0 { ELLIPSIS.len() } else { 0 });
    if total - start_col <= room {
        return base + start..base + line.len();
    }
    // Up to the first character that would end past the room left once the trailing `...` is counted.
    let limit = start_col + room.saturating_sub(ELLIPSIS.len());
    // Character k ends where character k + 1 starts.
    let fitting = cols[1..].partition_point(|&(_, c)| c <= limit);
    let first_over = if fitting == cols.len() - 1 && total <= limit { cols.len() } else { fitting };
    let end = cols.get(first_over).map_or(line.len(), |&(i, _)| i).max(start);
    base + start..base + end
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn width(text: &str) -> usize {
        unicode_width::UnicodeWidthStr::width(text)
    }

    #[test]
    fn a_span_wider_than_the_screen_keeps_its_start() {
        let line = format!("{}{}{}", "a".repeat(100), "b".repeat(150), "c".repeat(50));
        let marks = [Mark { start: 100, end: 250, message_columns: 5, primary: true }];
        let kept = window(&line, 0, &marks, 80, 4);
        assert_eq!(kept.start, 100);
        assert!(kept.end - kept.start + 2 * ELLIPSIS.len() <= 80, "{kept:?}");
    }

    #[test]
    fn a_wide_character_straddling_the_cut_goes() {
        let line = format!("{}{}", "日本語".repeat(40), "x".repeat(100));
        let start = line.len() - 30;
        let marks = [Mark { start, end: start + 4, message_columns: 0, primary: true }];
        for columns in 40..50 {
            let kept = window(&line, 0, &marks, columns, 4);
            assert!(line.is_char_boundary(kept.start) && line.is_char_boundary(kept.end));
            assert!(kept.start <= start && start + 4 <= kept.end, "{columns}: {kept:?}");
            let shown = width(&line[kept.clone()]) + ELLIPSIS.len() * (1 + usize::from(kept.end < line.len()));
            assert!(shown <= columns, "{columns}: {shown}");
        }
    }

    #[test]
    fn a_line_that_fits_is_kept_whole() {
        let line = "short line";
        let marks = [Mark { start: 0, end: 5, message_columns: 10, primary: true }];
        assert_eq!(window(line, 7, &marks, 80, 4), 7..17);
    }
}
