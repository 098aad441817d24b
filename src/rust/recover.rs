//! Parsing a Rust file that has a syntax error, so the items that parse are still analysed.
//!
//! When the whole file does not parse, it is split at its top-level items, and a broken `impl`,
//! `trait` or inline `mod` at its members, by the nesting scan of `parse` (`lexeme_at`: comments
//! and literals are read the same way). Each piece is parsed alone; the broken ones are blanked
//! out (every byte a space, line breaks kept) and the whole text is parsed again. So every span
//! keeps its byte offset, line and column in the file as written, and a kept method stays inside
//! its `impl` (its trait, self type and role are what the rules see).
//!
//! A bracket left open, or a string left unclosed, swallows the rest of the file in a plain scan.
//! Then, as rustc and rust-analyzer recover, a line that starts an item at the level's
//! indentation (column 0 at the top, the first member's column inside an `impl`) ends the piece
//! before it. That scan is used only when the plain one does not balance, so an unindented
//! `mod` body or a raw string holding Rust code is not cut in a file whose brackets are fine.

use std::ops::Range;

use super::parse::{Lexeme, ParseFailure, ParsedRust, SpecialBytes, lexeme_at, parse_as, parse_rust, parser_text};

/// A file parsed with its broken pieces left out.
pub struct Recovered {
    /// The tree of everything that parses; `None` when nothing could be kept.
    pub parsed: Option<ParsedRust>,
    /// One failure per broken piece, in file order; empty when the whole file parsed.
    pub failures: Vec<ParseFailure>,
}

/// How many containers (`mod` in `mod`, `impl` in `mod`) deep a broken piece is opened to find
/// the member that breaks it; deeper, the whole container is the broken piece.
const MAX_CONTAINER_DEPTH: usize = 8;

/// More broken pieces than this, and the file is not Rust being edited but something else: it is
/// one `parse-error` as a whole, and recovery stops early (hostile input stays cheap).
const MAX_BROKEN: usize = 64;

/// How many times the blanked file may still fail to parse (pieces that parse alone but not
/// together) before the file is given up on as a whole.
const MAX_ATTEMPTS: usize = 4;

/// `parse_rust`, or when the file does not parse, the tree of the pieces that do and a failure
/// for each broken one. The caller must call `proc_macro2::extra::invalidate_current_thread_spans`
/// once it is done with the tree, as after `parse_rust`.
pub fn parse_rust_recovering(text: &str) -> Recovered {
    let whole = match parse_rust(text) {
        Ok(parsed) => return Recovered { parsed: Some(parsed), failures: Vec::new() },
        Err(failure) => failure,
    };
    let (base, body) = parser_text(text);
    match recover(&body) {
        Some((file, broken)) => {
            let failures = broken
                .into_iter()
                .map(|b| ParseFailure { range: b.failure.range.start + base..b.failure.range.end + base, ..b.failure })
                .collect();
            Recovered { parsed: Some(ParsedRust { file, base }), failures }
        }
        None => Recovered { parsed: None, failures: vec![whole] },
    }
}

/// What a piece must parse as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// Items: the file, or an inline `mod`'s body.
    Items,
    /// An `impl` block's members.
    Impl,
    /// A `trait`'s members.
    Trait,
}

/// A piece that does not parse: the bytes to blank, and syn's error for it.
#[derive(Debug)]
struct Broken {
    blank: Range<usize>,
    failure: ParseFailure,
}

fn recover(body: &str) -> Option<(syn::File, Vec<Broken>)> {
    let pieces = split(body, 0..body.len(), Some(0));
    let mut broken = Vec::new();
    for piece in &pieces {
        check_piece(body, piece.clone(), Level::Items, Some(0), 0, &mut broken);
        if broken.len() > MAX_BROKEN {
            return None;
        }
    }
    for _ in 0..MAX_ATTEMPTS {
        let blanked = blank(body, 0, broken.iter().map(|b| b.blank.clone()))?;
        let failure = match parse_piece(&blanked, Level::Items) {
            Ok(()) => {
                let file = parse_as(&blanked, |input: syn::parse::ParseStream| input.parse::<syn::File>()).ok()?;
                broken.sort_by_key(|b| b.blank.start);
                return Some((file, broken));
            }
            Err(failure) => failure,
        };
        // Blank the whole top-level piece the error is in, with whatever was blanked inside it.
        let at = failure.range.start;
        let piece = pieces.iter().rev().find(|p| p.start <= at)?.clone();
        if broken.iter().any(|b| b.blank == piece) {
            return None;
        }
        broken.retain(|b| b.blank.start < piece.start || b.blank.end > piece.end);
        broken.push(Broken { blank: piece, failure });
    }
    None
}

/// Parses one piece; a broken `impl`, `trait` or `mod` is opened: when blanking its broken
/// members makes it parse, those members are the broken pieces, else the whole container is.
/// Other broken pieces are cut at their lines that start an item at `column`, when they have any
/// (once: `column` is then `None`): a balanced scan reads an item being typed (`fn b`) and the
/// whole item after it as one piece.
fn check_piece(
    body: &str,
    range: Range<usize>,
    level: Level,
    column: Option<usize>,
    depth: usize,
    broken: &mut Vec<Broken>,
) {
    let Err(failure) = parse_piece(&body[range.clone()], level) else { return };
    let failure = ParseFailure { range: failure.range.start + range.start..failure.range.end + range.start, ..failure };
    if failure.message.starts_with("nested more than") {
        broken.push(Broken { blank: range, failure });
        return;
    }
    let depth_inside = depth + 1;
    let container = if depth < MAX_CONTAINER_DEPTH { container_body(body, range.clone()) } else { None };
    // A container's pieces are not opened a second time below: the work stays linear in depth.
    let depth = if container.is_some() { MAX_CONTAINER_DEPTH } else { depth };
    if let Some((inner, members, inner_column)) = container {
        let mut inside = Vec::new();
        for member in split(body, members, inner_column) {
            check_piece(body, member, inner, inner_column, depth_inside, &mut inside);
            if broken.len() + inside.len() > MAX_BROKEN {
                broken.extend(inside);
                return;
            }
        }
        if !inside.is_empty()
            && let Some(rest) = blank(&body[range.clone()], range.start, inside.iter().map(|b| b.blank.clone()))
            && parse_piece(&rest, level).is_ok()
        {
            broken.extend(inside);
            return;
        }
    }
    if let Some(column) = column {
        let lines = item_lines(body, range.clone(), column);
        let pieces = scan_items(body, range.clone(), Some(&lines)).unwrap_or_default();
        if pieces.len() > 1 {
            for piece in pieces {
                check_piece(body, piece, level, None, depth, broken);
                if broken.len() > MAX_BROKEN {
                    return;
                }
            }
            return;
        }
    }
    broken.push(Broken { blank: range, failure });
}

fn parse_piece(piece: &str, level: Level) -> Result<(), ParseFailure> {
    use syn::parse::ParseStream;
    match level {
        Level::Items => parse_as(piece, |input: ParseStream| input.parse::<syn::File>()).map(drop),
        Level::Impl => parse_as(piece, |input: ParseStream| {
            input.call(syn::Attribute::parse_inner)?;
            while !input.is_empty() {
                input.parse::<syn::ImplItem>()?;
            }
            Ok(())
        }),
        Level::Trait => parse_as(piece, |input: ParseStream| {
            input.call(syn::Attribute::parse_inner)?;
            while !input.is_empty() {
                input.parse::<syn::TraitItem>()?;
            }
            Ok(())
        }),
    }
}

/// `text` (which starts at byte `offset` of the file) with the bytes of `ranges` (file offsets)
/// made spaces, line breaks kept: every other byte keeps its offset, line and column.
fn blank(text: &str, offset: usize, ranges: impl Iterator<Item = Range<usize>>) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for r in ranges {
        for b in bytes.get_mut(r.start.checked_sub(offset)?..r.end.checked_sub(offset)?)? {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    // Pieces start and end on ASCII bytes or line starts, so whole characters are blanked.
    String::from_utf8(bytes).ok()
}

/// Splits `region` of `body` into pieces at its items: an item ends at a `;` or a `}` outside
/// brackets (with a `;` right after the `}`). When the brackets do not balance, lines starting
/// an item at `column` end the piece before them too (`item_lines`).
fn split(body: &str, region: Range<usize>, column: Option<usize>) -> Vec<Range<usize>> {
    if let Some(pieces) = scan_items(body, region.clone(), None) {
        return pieces;
    }
    let lines = column.map(|c| item_lines(body, region.clone(), c)).unwrap_or_default();
    scan_items(body, region.clone(), Some(&lines)).unwrap_or_else(|| vec![region])
}

/// The item scan of `split`. Without `lines` (exact): `None` unless every bracket, string and
/// comment closes inside `region`. With them (recovering): never `None`; a bracket left open, or
/// a string or comment running over one of `lines`, ends the piece at that line, and a stray
/// closer ends the piece just after it.
fn scan_items(body: &str, region: Range<usize>, lines: Option<&[usize]>) -> Option<Vec<Range<usize>>> {
    let b = body.as_bytes();
    let recovering = lines.is_some();
    let lines = lines.unwrap_or(&[]);
    let mut specials = SpecialBytes::new(b);
    let mut pieces = Vec::new();
    let (mut start, mut i, mut depth, mut k) = (region.start, region.start, 0usize, 0usize);
    // `body[attrs_of..attrs_end]` is only attributes and comments (`usize::MAX`: it is not), for
    // the piece starting at `attrs_of`.
    let (mut attrs_of, mut attrs_end) = (start, start);
    while i < region.end {
        // The next line that could start an item, past the piece's own first line.
        while k < lines.len() && (lines[k] < i || lines[k] <= start) {
            k += 1;
        }
        let line = lines.get(k).copied().filter(|&l| l < region.end);
        let special = specials.next(i).min(region.end);
        let gap_end = line.filter(|&l| l <= special).unwrap_or(special);
        if depth == 0
            && let Some(n) = memchr::memchr(b';', &b[i..gap_end])
        {
            let end = i + n + 1;
            pieces.push(start..end);
            (start, i) = (end, end);
            continue;
        }
        if let Some(l) = line.filter(|&l| l <= special) {
            // Attributes and doc comments so far belong to the item this line starts. What is
            // known to be only attributes is not read again (a run of doc lines stays linear).
            if attrs_of != start {
                (attrs_of, attrs_end) = (start, start);
            }
            let only = attrs_end != usize::MAX && only_attributes(&body[attrs_end..l]);
            attrs_end = if only { l } else { usize::MAX };
            if depth > 0 || !only {
                pieces.push(start..l);
                (start, depth) = (l, 0);
            }
            i = l;
            k += 1;
            continue;
        }
        if special >= region.end {
            break;
        }
        let lexeme = lexeme_at(body, special).filter(|&(_, next)| next <= region.end);
        let Some((lexeme, next)) = lexeme else {
            // A string or comment that does not end inside the region.
            if !recovering {
                return None;
            }
            let Some(&l) = lines[k..].iter().find(|&&l| l > special && l < region.end) else { break };
            pieces.push(start..l);
            (start, i, depth) = (l, l, 0);
            continue;
        };
        if let Some(l) = line.filter(|&l| next > l) {
            // A string or comment running over a line that starts an item: it is cut there.
            pieces.push(start..l);
            (start, i, depth) = (l, l, 0);
            continue;
        }
        i = next;
        match lexeme {
            Lexeme::Open => depth += 1,
            Lexeme::Close if depth == 0 => {
                if !recovering {
                    return None;
                }
                pieces.push(start..next);
                start = next;
            }
            Lexeme::Close => {
                depth -= 1;
                if depth == 0 && b[special] == b'}' {
                    // `const X: T = T { … };` is one item.
                    let after = next + b[next..region.end].iter().take_while(|c| c.is_ascii_whitespace()).count();
                    let end = if b.get(after) == Some(&b';') && after < region.end { after + 1 } else { next };
                    pieces.push(start..end);
                    (start, i) = (end, end);
                }
            }
            Lexeme::Skipped => {}
        }
    }
    if !recovering && depth != 0 {
        return None;
    }
    if start < region.end {
        pieces.push(start..region.end);
    }
    Some(pieces)
}

/// Words that start an item or a member when they begin a line.
const ITEM_WORDS: &[&str] = &[
    "async",
    "const",
    "enum",
    "extern",
    "fn",
    "impl",
    "macro_rules",
    "mod",
    "pub",
    "static",
    "struct",
    "trait",
    "type",
    "union",
    "unsafe",
    "use",
];

/// The starts of the lines in `region` indented exactly `column` bytes (spaces or tabs) that
/// begin with an item word, an attribute or a doc comment: where recovery may end a piece.
fn item_lines(body: &str, region: Range<usize>, column: usize) -> Vec<usize> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut at = region.start;
    while at < region.end {
        let line_end = memchr::memchr(b'\n', &b[at..region.end]).map_or(region.end, |n| at + n + 1);
        let indent = b[at..line_end].iter().take_while(|&&c| c == b' ' || c == b'\t').count();
        if indent == column && at > region.start && starts_item(&body[at + indent..line_end]) {
            out.push(at);
        }
        at = line_end;
    }
    out
}

fn starts_item(line: &str) -> bool {
    if line.starts_with('#') || line.starts_with("///") || line.starts_with("//!") || line.starts_with("/**") {
        return true;
    }
    let word_len = line.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
    ITEM_WORDS.contains(&&line[..word_len])
}

/// Whether `text` holds only whitespace, comments and attributes (doc comments included).
fn only_attributes(text: &str) -> bool {
    attributes_len(text) == text.len()
}

/// The index just past the bracket that closes the one at `open`.
fn group_end(text: &str, open: usize) -> Option<usize> {
    let mut specials = SpecialBytes::new(text.as_bytes());
    let (mut i, mut depth) = (open, 0usize);
    loop {
        i = specials.next(i);
        if i >= text.len() {
            return None;
        }
        let (lexeme, next) = lexeme_at(text, i)?;
        match lexeme {
            Lexeme::Open => depth += 1,
            Lexeme::Close => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(next);
                }
            }
            Lexeme::Skipped => {}
        }
        i = next;
    }
}

/// When the piece `range` is an `impl`, `trait` or inline `mod`: what its members parse as, the
/// region between its braces, and the column of its first member (when it is on a line of its
/// own, for `item_lines`).
fn container_body(body: &str, range: Range<usize>) -> Option<(Level, Range<usize>, Option<usize>)> {
    let b = body.as_bytes();
    let piece = &body[range.clone()];
    let mut i = range.start + attributes_len(piece);
    let level = loop {
        while i < range.end && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let word_len = b[i..range.end].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        let word = &body[i..i + word_len];
        i += word_len;
        match word {
            "pub" => {
                let after = i + b[i..range.end].iter().take_while(|c| c.is_ascii_whitespace()).count();
                if b.get(after) == Some(&b'(') {
                    i = group_end(&body[..range.end], after)?;
                }
            }
            "unsafe" | "default" | "auto" => {}
            "impl" => break Level::Impl,
            "trait" => break Level::Trait,
            "mod" => break Level::Items,
            _ => return None,
        }
    };
    // The header ends at the first `{` outside brackets; a `;` first means no body (`mod x;`).
    let mut specials = SpecialBytes::new(b);
    let mut depth = 0usize;
    let open = loop {
        let special = specials.next(i).min(range.end);
        if depth == 0 && memchr::memchr(b';', &b[i..special]).is_some() {
            return None;
        }
        if special >= range.end {
            return None;
        }
        let (lexeme, next) = lexeme_at(&body[..range.end], special)?;
        match lexeme {
            Lexeme::Open if depth == 0 && b[special] == b'{' => break special,
            Lexeme::Open => depth += 1,
            Lexeme::Close => depth = depth.checked_sub(1)?,
            Lexeme::Skipped => {}
        }
        i = next;
    };
    let trimmed = range.start + piece.trim_end().len();
    let close = if trimmed > open + 1 && b[trimmed - 1] == b'}' { trimmed - 1 } else { range.end };
    let members = open + 1..close;
    let first_line = &body[members.clone()];
    let column = first_line.find('\n').filter(|&n| first_line[..n].trim().is_empty()).and_then(|n| {
        first_line[n + 1..]
            .split('\n')
            .find(|l| !l.trim().is_empty())
            .map(|l| l.bytes().take_while(|&c| c == b' ' || c == b'\t').count())
    });
    Some((level, members, column))
}

/// The length of the attributes, comments and whitespace `piece` starts with.
fn attributes_len(piece: &str) -> usize {
    let b = piece.as_bytes();
    let mut i = 0;
    loop {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        match b.get(i) {
            Some(b'/') => match lexeme_at(piece, i) {
                Some((Lexeme::Skipped, next)) if next > i + 1 => i = next,
                _ => return i,
            },
            Some(b'#') => {
                let mut j = i + 1;
                j += usize::from(b.get(j) == Some(&b'!'));
                while b.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                match (b.get(j) == Some(&b'[')).then(|| group_end(piece, j)).flatten() {
                    Some(end) => i = end,
                    None => return i,
                }
            }
            _ => return i,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the kept functions, methods and modules (`Impl::method`, `mod::item`), and the
    /// text each failure points at.
    fn outcome(text: &str) -> (Vec<String>, Vec<String>) {
        fn names(items: &[syn::Item], prefix: &str, out: &mut Vec<String>) {
            for item in items {
                match item {
                    syn::Item::Fn(f) => out.push(format!("{prefix}{}", f.sig.ident)),
                    syn::Item::Impl(i) => {
                        let syn::Type::Path(p) = &*i.self_ty else { continue };
                        let ty = p.path.segments.last().unwrap().ident.to_string();
                        for m in &i.items {
                            if let syn::ImplItem::Fn(f) = m {
                                out.push(format!("{prefix}{ty}::{}", f.sig.ident));
                            }
                        }
                    }
                    syn::Item::Trait(t) => {
                        for m in &t.items {
                            if let syn::TraitItem::Fn(f) = m {
                                out.push(format!("{prefix}{}::{}", t.ident, f.sig.ident));
                            }
                        }
                    }
                    syn::Item::Mod(m) => {
                        let inner = format!("{prefix}{}::", m.ident);
                        out.push(format!("{prefix}{}", m.ident));
                        names(m.content.as_ref().map_or(&[][..], |c| &c.1), &inner, out);
                    }
                    _ => {}
                }
            }
        }
        let recovered = parse_rust_recovering(text);
        let mut kept = Vec::new();
        if let Some(parsed) = &recovered.parsed {
            names(&parsed.file.items, "", &mut kept);
        }
        let at = recovered.failures.iter().map(|f| text[f.range.clone()].to_owned()).collect();
        proc_macro2::extra::invalidate_current_thread_spans();
        (kept, at)
    }

    #[test]
    fn a_file_that_parses_has_no_failures() {
        assert_eq!(outcome("fn a() {}\nfn b() {}\n"), (vec!["a".into(), "b".into()], vec![]));
    }

    #[test]
    fn an_unclosed_brace_ends_at_the_next_item_at_column_0() {
        let text = "fn a() {}\nfn b() {\n    let x = 1;\n\nfn c() {}\n";
        let recovered = parse_rust_recovering(text);
        assert_eq!(recovered.failures.len(), 1);
        // proc-macro2 places an unclosed delimiter's error at the delimiter.
        assert_eq!(recovered.failures[0].range.start, text.find("{\n    let").unwrap());
        assert!(recovered.failures[0].message.contains("lex"), "{}", recovered.failures[0].message);
        proc_macro2::extra::invalidate_current_thread_spans();
        assert_eq!(outcome(text).0, ["a", "c"]);
    }

    #[test]
    fn a_stray_closing_brace_is_the_broken_piece() {
        let text = "fn a() {\n    f();\n    }\n}\nfn c() {}\n";
        let (kept, at) = outcome(text);
        assert_eq!(kept, ["a", "c"]);
        assert_eq!(at.len(), 1);
        let recovered = parse_rust_recovering(text);
        let r = recovered.failures[0].range.clone();
        assert!(r.start >= text.find("}\n}").unwrap() + 2 && r.end <= text.find("fn c").unwrap(), "{r:?}");
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    #[test]
    fn a_broken_method_loses_only_itself_and_the_impl_keeps_its_other_methods() {
        let text = "impl ServerHandler for S {\n    fn a(&self) {}\n    fn b(&self) { let = 1; }\n    fn c(&self) {}\n}\nfn d() {}\n";
        assert_eq!(outcome(text), (vec!["S::a".into(), "S::c".into(), "d".into()], vec!["=".into()]));
        // Unclosed: the next member at the members' column ends it.
        let text = "impl ServerHandler for S {\n    /// A.\n    fn a(&self) {}\n    fn b(&self) {\n        foo(\n    #[tool]\n    fn c(&self) {}\n}\nfn d() {}\n";
        let (kept, at) = outcome(text);
        assert_eq!(kept, ["S::a", "S::c", "d"]);
        assert_eq!(at.len(), 1);
        // Half a signature, no body yet.
        let text = "impl ServerHandler for S {\n    fn a(&self) {}\n    fn b(&se\n    fn c(&self) {}\n}\n";
        assert_eq!(outcome(text).0, ["S::a", "S::c"]);
        let text = "impl ServerHandler for S {\n    fn a(&self) {}\n    fn b\n    fn c(&self) {}\n}\n";
        assert_eq!(outcome(text).0, ["S::a", "S::c"]);
    }

    #[test]
    fn trait_and_module_members_are_recovered_too() {
        let text = "trait T {\n    fn a(&self);\n    fn b(&self) -> ;\n}\nmod m {\n    fn x() {}\n    impl S {\n        fn y(&self) { let = ; }\n        fn z(&self) {}\n    }\n}\n";
        let (kept, at) = outcome(text);
        assert_eq!(kept, ["T::a", "m", "m::x", "m::S::z"]);
        assert_eq!(at, [";", "="]);
    }

    #[test]
    fn a_broken_line_inside_a_fn_breaks_that_fn_only() {
        let text = "fn a() {}\nfn b() {\n    let x = ;\n    x\n}\nfn c() {}\n";
        assert_eq!(outcome(text), (vec!["a".into(), "c".into()], vec![";".into()]));
    }

    #[test]
    fn a_broken_first_or_last_item() {
        assert_eq!(outcome("use foo::;\nfn b() {}\n"), (vec!["b".into()], vec![";".into()]));
        let (kept, at) = outcome("fn a() {}\nfn b(");
        assert_eq!((kept, at.len()), (vec!["a".into()], 1));
        let (kept, at) = outcome("#![allow(x)]\nfn a() { let }\nfn b() {}");
        assert_eq!((kept, at.len()), (vec!["b".into()], 1));
    }

    #[test]
    fn an_unclosed_string_ends_at_the_next_item() {
        let text = "fn a() {}\nfn b() {\n    let s = \"abc;\n}\n\nfn c() { let t = \"x\"; }\n";
        assert_eq!(outcome(text).0, ["a", "c"]);
    }

    #[test]
    fn a_balanced_file_is_split_exactly_not_by_lines() {
        // A raw string with Rust at column 0, and an unindented module: one item each.
        let text = "const S: &str = r#\"\nfn main() {}\n\"#;\nmod m {\nfn x() {}\n}\nfn b() { let = ; }\nconst T: X = X { a: 1 };\n";
        let (kept, at) = outcome(text);
        assert_eq!(kept, ["m", "m::x"]);
        assert_eq!(at, ["="]);
    }

    #[test]
    fn offsets_stay_exact_with_a_bom_and_crlf() {
        let text = "\u{feff}fn a() {}\r\nfn b() {\r\n    let = 1;\r\n}\r\n// é日本\r\nfn c() { let s = \"é\"; }\r\n";
        let recovered = parse_rust_recovering(text);
        assert_eq!(&text[recovered.failures[0].range.clone()], "=");
        let parsed = recovered.parsed.unwrap();
        let spans: Vec<&str> = parsed
            .file
            .items
            .iter()
            .map(|i| &text[super::super::parse::file_range(syn::spanned::Spanned::span(i), parsed.base)])
            .collect();
        assert_eq!(spans, ["fn a() {}", "fn c() { let s = \"é\"; }"]);
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    #[test]
    fn a_file_of_broken_items_is_one_parse_error() {
        let text = "fn a() {}\n".to_owned() + &"fn b(\n".repeat(MAX_BROKEN + 1);
        let recovered = parse_rust_recovering(&text);
        assert!(recovered.parsed.is_none());
        assert_eq!(recovered.failures.len(), 1);
        proc_macro2::extra::invalidate_current_thread_spans();
        let text = "impl S {\n".to_owned() + &"    fn b(\n".repeat(MAX_BROKEN + 1) + "}\n";
        assert_eq!(parse_rust_recovering(&text).failures.len(), 1);
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    #[test]
    fn nesting_too_deep_is_refused_per_piece() {
        let n = 10_000;
        let text = format!("fn a() {{}}\nfn b() {}{}\n", "{".repeat(n), "}".repeat(n));
        let recovered = parse_rust_recovering(&text);
        assert_eq!(recovered.failures.len(), 1);
        assert!(recovered.failures[0].message.contains("nested more than"));
        proc_macro2::extra::invalidate_current_thread_spans();
        assert_eq!(outcome(&text).0, ["a"]);
    }

    /// Every fixture with a byte cut out, or a bracket or quote typed, at many places: nothing
    /// panics, failures lie inside the file, and every kept item (and `impl` member) is exactly
    /// the text under its span (the same tokens when that text is parsed alone).
    #[test]
    fn kept_items_are_the_text_under_their_spans_whatever_breaks() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rust");
        let mut files: Vec<_> = ignore::Walk::new(fixtures)
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        files.truncate(12);
        let mut kept_somewhere = 0;
        for original in &files {
            let cuts = (0..original.len()).step_by(149).filter(|&at| original.is_char_boundary(at));
            for (n, at) in cuts.enumerate() {
                let mut text = original.clone();
                match n % 4 {
                    0 => drop(text.remove(at)),
                    1 => text.insert(at, '{'),
                    2 => text.insert(at, '"'),
                    _ => text.insert_str(at, "let ="),
                }
                if !text.is_char_boundary(at) {
                    continue;
                }
                let recovered = parse_rust_recovering(&text);
                for f in &recovered.failures {
                    assert!(f.range.start <= f.range.end && f.range.end <= text.len(), "{f:?}");
                    assert!(text.is_char_boundary(f.range.start) && text.is_char_boundary(f.range.end));
                }
                let Some(parsed) = &recovered.parsed else { continue };
                let span_text = |node: &dyn syn::spanned::Spanned| {
                    let r = super::super::parse::file_range(node.span(), parsed.base);
                    text[r].to_owned()
                };
                // A container's own text may hold a member that was blanked: its members are
                // compared instead.
                let mut items: Vec<&syn::Item> = parsed.file.items.iter().collect();
                while let Some(item) = items.pop() {
                    match item {
                        syn::Item::Impl(i) => {
                            for member in &i.items {
                                let alone: syn::ImplItem = syn::parse_str(&span_text(member)).unwrap();
                                assert_eq!(&alone, member);
                            }
                        }
                        syn::Item::Trait(t) => {
                            for member in &t.items {
                                let alone: syn::TraitItem = syn::parse_str(&span_text(member)).unwrap();
                                assert_eq!(&alone, member);
                            }
                        }
                        syn::Item::Mod(m) => items.extend(m.content.iter().flat_map(|c| &c.1)),
                        item => {
                            let alone: syn::Item = syn::parse_str(&span_text(item)).unwrap();
                            assert_eq!(&alone, item);
                        }
                    }
                    kept_somewhere += usize::from(!recovered.failures.is_empty());
                }
                proc_macro2::extra::invalidate_current_thread_spans();
            }
        }
        assert!(kept_somewhere > 100, "{kept_somewhere}");
    }
}
