//! Byte offsets (what diagnostics and edits carry) to LSP positions and back. LSP counts lines from
//! 0, ends lines at `\n`, `\r\n` or a lone `\r`, and counts columns in the code units of the
//! negotiated encoding: UTF-16 unless client and server agree on UTF-8.

use lsp_types::{Position, PositionEncodingKind, Range};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// The encoding to use with a client that offers `offered` (its `general.positionEncodings`):
    /// UTF-8 when offered, since it is what our byte offsets already are; else UTF-16, which every
    /// client must support.
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        }
    }
}

/// Line starts of one document as LSP sees its lines.
#[derive(Debug)]
pub struct LineMap {
    starts: Vec<usize>,
    encoding: Encoding,
}

impl LineMap {
    pub fn new(text: &str, encoding: Encoding) -> LineMap {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends_line {
                starts.push(i + 1);
            }
        }
        LineMap { starts, encoding }
    }

    /// The position of a byte offset. Offsets past the end or inside a character are moved back to
    /// the nearest character boundary.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let character: usize = text[self.starts[line]..offset].chars().map(|c| self.encoding.units(c)).sum();
        Position { line: saturate(line), character: saturate(character) }
    }

    pub fn range(&self, text: &str, bytes: &std::ops::Range<usize>) -> Range {
        Range { start: self.position(text, bytes.start), end: self.position(text, bytes.end) }
    }

    /// The byte offset of a position. As LSP asks, a column past the end of its line means the end
    /// of the line, and a line past the end of the document means the end of the document; a column
    /// inside a character (half a surrogate pair) means the start of that character.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.starts.get(line) else { return text.len() };
        let end = self.line_content_end(text, line);
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            units += self.encoding.units(c);
            if units > position.character as usize {
                return start + i;
            }
        }
        end
    }

    pub fn byte_range(&self, text: &str, range: Range) -> std::ops::Range<usize> {
        let start = self.offset(text, range.start);
        let end = self.offset(text, range.end).max(start);
        start..end
    }

    /// Where line `line`'s text ends, before its terminator.
    fn line_content_end(&self, text: &str, line: usize) -> usize {
        let mut end = self.starts.get(line + 1).copied().unwrap_or(text.len());
        let bytes = text.as_bytes();
        if end > self.starts[line] && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > self.starts[line] && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        end
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_counts_astral_characters_as_two_units() {
        // 🦀 is 4 bytes, 1 scalar value, 2 UTF-16 units; é is 2 bytes, 1 unit.
        let text = "let s = \"é🦀\"; call();\n";
        let map = LineMap::new(text, Encoding::Utf16);
        let call = text.find("call").unwrap();
        assert_eq!(call, 18);
        assert_eq!(map.position(text, call), pos(0, 15));
        assert_eq!(map.offset(text, pos(0, 15)), call);
        let utf8 = LineMap::new(text, Encoding::Utf8);
        assert_eq!(utf8.position(text, call), pos(0, 18));
        assert_eq!(utf8.offset(text, pos(0, 18)), call);
    }

    #[test]
    fn position_inside_a_surrogate_pair_means_the_character_start() {
        let text = "a🦀b";
        let map = LineMap::new(text, Encoding::Utf16);
        assert_eq!(map.offset(text, pos(0, 2)), 1);
        assert_eq!(map.offset(text, pos(0, 3)), 5);
        // A byte offset inside the crab moves back to its start.
        assert_eq!(map.position(text, 3), pos(0, 1));
    }

    #[test]
    fn lines_end_at_lf_crlf_and_lone_cr() {
        let text = "a\r\nbé\rc\nd";
        let map = LineMap::new(text, Encoding::Utf16);
        assert_eq!(map.position(text, text.find('b').unwrap()), pos(1, 0));
        assert_eq!(map.position(text, text.find('c').unwrap()), pos(2, 0));
        assert_eq!(map.position(text, text.find('d').unwrap()), pos(3, 0));
        // The end of line 1 is before its `\r`, whatever column is asked for.
        assert_eq!(map.offset(text, pos(1, 99)), 6);
        assert_eq!(map.offset(text, pos(0, 5)), 1);
        assert_eq!(map.offset(text, pos(9, 0)), text.len());
        assert_eq!(map.position(text, text.len() + 3), pos(3, 1));
    }

    #[test]
    fn a_bom_is_one_unit_of_the_first_line() {
        let text = "\u{feff}x = 1";
        let map = LineMap::new(text, Encoding::Utf16);
        assert_eq!(map.position(text, 3), pos(0, 1));
        assert_eq!(map.offset(text, pos(0, 1)), 3);
        let utf8 = LineMap::new(text, Encoding::Utf8);
        assert_eq!(utf8.position(text, 3), pos(0, 3));
    }

    #[test]
    fn negotiation_prefers_utf8_and_defaults_to_utf16() {
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
        assert_eq!(Encoding::negotiate(Some(&[PositionEncodingKind::UTF16])), Encoding::Utf16);
        assert_eq!(Encoding::negotiate(Some(&[PositionEncodingKind::UTF32])), Encoding::Utf16);
        assert_eq!(
            Encoding::negotiate(Some(&[PositionEncodingKind::UTF16, PositionEncodingKind::UTF8])),
            Encoding::Utf8
        );
    }
}
