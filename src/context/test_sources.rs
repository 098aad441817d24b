//! Which protocol revisions named in a crate's sources are test code: a file in a test or fixture
//! folder, or a test item (`#[cfg(test)] mod tests { … }`, `#[test] fn …`) of a source file. Tests
//! name old revisions on purpose (to check they are refused), so the era they suggest counts only
//! where nothing else tells (`era::decide`). Read from bytes before any parse: the era is decided
//! before files are parsed, and most files that name a revision are never parsed.

use std::path::Path;

use crate::rust::lexing;

/// Folders whose files are tests or their data, at any depth inside the crate.
const TEST_FOLDERS: &[&str] = &["tests", "test", "benches", "fixtures", "testdata", "test-data", "test_data"];

/// Whether `path` is a test file of the crate in `crate_dir`: in a test or fixture folder of the
/// crate (not one that holds the whole checkout), or named as one (`tests.rs`, `foo_test.rs`).
pub fn is_test_path(path: &Path, crate_dir: Option<&Path>) -> bool {
    let inside = crate_dir.and_then(|d| path.strip_prefix(d).ok()).unwrap_or(path);
    let in_folder = inside.parent().is_some_and(|p| {
        p.components().any(|c| c.as_os_str().to_str().is_some_and(|name| TEST_FOLDERS.contains(&name)))
    });
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    in_folder || stem == "tests" || stem == "test" || stem.ends_with("_test") || stem.ends_with("_tests")
}

/// The lines (first, last; 1-based) of a Rust file's test items: those marked `#[cfg(test)]`,
/// (all of it under `#![cfg(test)]`),
/// `#[test]`, `#[tokio::test]`, `#[rstest]` or `#[test_case(..)]`, to the end of their body.
/// Strings, characters and comments are skipped, so a brace or an attribute in them counts for nothing.
pub fn test_item_lines(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut lexer = Lexer { bytes, at: 0 };
    while let Some(token) = lexer.next() {
        let Token::Attribute { inner, inside } = token else { continue };
        if !is_test_attribute(&bytes[inside.clone()]) {
            continue;
        }
        if inner {
            // `#![cfg(test)]`: the whole file (or module) is test code.
            return vec![(1, usize::MAX)];
        }
        // The item ends at its `;` or at the brace that closes its first block.
        let mut depth = 0usize;
        let mut end = bytes.len();
        while let Some(token) = lexer.next() {
            match token {
                Token::Byte(b'{') => depth += 1,
                Token::Byte(b'}') if depth <= 1 => {
                    end = lexer.at;
                    break;
                }
                Token::Byte(b'}') => depth -= 1,
                Token::Byte(b';') if depth == 0 => {
                    end = lexer.at;
                    break;
                }
                _ => {}
            }
        }
        out.push((super::era::line_at(bytes, inside.start), super::era::line_at(bytes, end.saturating_sub(1))));
    }
    out
}

/// The inside of an outer attribute (`cfg(test)` of `#[cfg(test)]`) marks a test item:
/// `cfg(..)` naming `test` outside a `not(..)`, or a path ending in `test`, `rstest`, `test_case`.
fn is_test_attribute(inside: &[u8]) -> bool {
    let text = String::from_utf8_lossy(inside);
    let text = text.trim();
    if let Some(predicate) = text.strip_prefix("cfg").map(str::trim_start).filter(|p| p.starts_with('(')) {
        return names_test(predicate);
    }
    let path = text.split(['(', '=']).next().unwrap_or("").trim();
    path.rsplit("::").next().is_some_and(|last| matches!(last.trim(), "test" | "rstest" | "test_case"))
}

/// Whether a cfg predicate's text names `test` outside `not(..)` and outside strings
/// (`feature = "test-utils"` names a feature).
fn names_test(predicate: &str) -> bool {
    let bytes = predicate.as_bytes();
    let mut i = 0;
    let mut not_depth: Option<usize> = None;
    let mut depth = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            match &predicate[start..i] {
                "test" if not_depth.is_none() => return true,
                "not" if not_depth.is_none() => not_depth = Some(depth),
                _ => {}
            }
            continue;
        }
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if not_depth == Some(depth) {
                    not_depth = None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

enum Token {
    /// An attribute: `#[…]`, or `#![…]` (`inner`), and the bytes between its brackets.
    Attribute { inner: bool, inside: std::ops::Range<usize> },
    /// Any other byte outside strings, characters and comments.
    Byte(u8),
}

/// Just enough of Rust's lexing to find attributes and braces (`rust::lexing` skips the rest).
struct Lexer<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Lexer<'_> {
    fn next(&mut self) -> Option<Token> {
        let bytes = self.bytes;
        loop {
            let b = *bytes.get(self.at)?;
            let rest = &bytes[self.at..];
            if rest.starts_with(b"//") {
                self.at += rest.iter().position(|c| *c == b'\n').unwrap_or(rest.len());
            } else if rest.starts_with(b"/*") {
                self.at = lexing::block_comment(bytes, self.at, true);
            } else if b == b'"' {
                self.at = lexing::quoted(bytes, self.at + 1, b'"');
            } else if b == b'\'' {
                self.at = lexing::char_or_lifetime(bytes, self.at);
            } else if rest.starts_with(b"#[") || rest.starts_with(b"#![") {
                let inner = rest[1] == b'!';
                let start = self.at + 2 + inner as usize;
                self.at = start;
                let mut depth = 1usize;
                while depth > 0 {
                    match self.next()? {
                        Token::Byte(b'[') => depth += 1,
                        Token::Byte(b']') => depth -= 1,
                        _ => {}
                    }
                }
                return Some(Token::Attribute { inner, inside: start..self.at - 1 });
            } else if b.is_ascii_alphanumeric() || b == b'_' {
                // A whole identifier, so `r` or `b` inside one starts no string.
                let start = self.at;
                while bytes.get(self.at).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                    self.at += 1;
                }
                if matches!(&bytes[start..self.at], b"r" | b"br" | b"cr") {
                    self.at = lexing::raw_string(bytes, self.at);
                } else if bytes.get(self.at) == Some(&b'"') && matches!(&bytes[start..self.at], b"b" | b"c") {
                    // `b"…"`, `c"…"`.
                    self.at = lexing::quoted(bytes, self.at + 1, b'"');
                }
            } else {
                self.at += 1;
                return Some(Token::Byte(b));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths() {
        let krate = Path::new("/w/repo/server");
        assert!(is_test_path(Path::new("/w/repo/server/tests/it.rs"), Some(krate)));
        assert!(is_test_path(Path::new("/w/repo/server/src/fixtures/init.json"), Some(krate)));
        assert!(is_test_path(Path::new("/w/repo/server/src/handler_tests.rs"), Some(krate)));
        assert!(is_test_path(Path::new("/w/repo/server/src/tests.rs"), Some(krate)));
        assert!(!is_test_path(Path::new("/w/repo/server/src/protocol.rs"), Some(krate)));
        // A checkout that happens to live under a `tests` folder is not test code.
        assert!(!is_test_path(Path::new("/tests/repo/src/main.rs"), Some(Path::new("/tests/repo"))));
    }

    #[test]
    fn test_items_end_with_their_body() {
        let text = "\
const V: &str = \"2025-06-18\";
#[cfg(test)]
mod tests;
fn real() { let s = \"}\"; let c = '}'; let r = r#\"}\"#; }
#[cfg(all(test, feature = \"x\"))]
mod unit {
    // }
    fn helper<'a>(s: &'a str) -> &'a str { s }
    #[test]
    fn t() { assert_eq!(\"2026-07-28\", V); }
}
#[cfg(not(test))]
fn not_test() {}
#[tokio::test]
async fn it() {
    let b = b'{';
    let q = '\\'';
}
#[cfg(feature = \"test-utils\")]
fn helper() {}
";
        assert_eq!(test_item_lines(text.as_bytes()), [(2, 3), (5, 11), (14, 18)]);
    }
}
