//! Skipping what is not code in Rust (and JSON) text read as bytes: comments, string, raw
//! string and character literals. For the readers that run before, or instead of, a parse: the
//! suppression comments (`suppress`) and the era's test items (`context::test_sources`).

/// Past a `/* … */` comment starting at `start` (nested in Rust).
pub fn block_comment(b: &[u8], start: usize, nested: bool) -> usize {
    let mut depth = 1;
    let mut i = start + 2;
    while i < b.len() {
        if nested && b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// Past the closing `quote` of a literal whose body starts at `i` (backslash escapes).
pub fn quoted(b: &[u8], mut i: usize, quote: u8) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// At a `'`: past a character literal (`'x'`, `'\n'`, `'é'`), or past the quote of a lifetime.
pub fn char_or_lifetime(b: &[u8], i: usize) -> usize {
    match b.get(i + 1) {
        Some(b'\\') => quoted(b, i + 1, b'\''),
        Some(&lead) => {
            let width = match lead {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            if b.get(i + 1 + width) == Some(&b'\'') { i + 2 + width } else { i + 1 }
        }
        None => i + 1,
    }
}

/// After an `r`/`br`/`cr` prefix: past a raw string `#…"…"#…` if one starts at `i`.
pub fn raw_string(b: &[u8], i: usize) -> usize {
    let hashes = b[i..].iter().take_while(|c| **c == b'#').count();
    if b.get(i + hashes) != Some(&b'"') {
        return i; // a raw identifier (`r#type`) or a plain identifier
    }
    let mut j = i + hashes + 1;
    while j < b.len() {
        if b[j] == b'"' && b[j + 1..].iter().take(hashes).filter(|c| **c == b'#').count() == hashes {
            return j + 1 + hashes;
        }
        j += 1;
    }
    b.len()
}
