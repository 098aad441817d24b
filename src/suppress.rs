//! Suppression comments, in Rust and in JSON files (JSONC comments):
//!
//! - `// mcp-lint: allow(rule, …) reason` at the end of a line: findings that start on that line;
//! - the same comment on its own line: findings that start in the next statement or item (the
//!   syntax node that starts at the next line of code, attributes included; when no statement,
//!   item, field, match arm or expression starts there, just that line);
//! - `// mcp-lint: allow-file(rule, …) reason` anywhere: the whole file.
//!
//! A finding is matched by the line its primary span starts on (the line the report prints). A
//! suppression, or one of its rule names, that matched nothing, or that names no rule, is itself a
//! finding: `unused-suppression`, with a safe fix that deletes it.
//!
//! Comments are found by a small lexer that knows strings, raw strings, character literals (and
//! lifetimes) and block comments, so a `//` inside a string is never read as a comment.

use std::collections::HashMap;
use std::ops::Range;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use crate::config::FileSettings;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::json::{JsonKind, JsonNode, walk};
use crate::rules;
use crate::rust::lexing;
use crate::source::{FileKind, SourceFile};

/// What a suppression covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// At the end of a line of code: that line.
    Line,
    /// On its own line: the next statement or item.
    Next,
    /// `allow-file`: the whole file.
    File,
}

impl Scope {
    fn where_(self) -> &'static str {
        match self {
            Scope::Line => "on this line",
            Scope::Next => "in the next statement",
            Scope::File => "in this file",
        }
    }
}

/// One `// mcp-lint:` comment.
#[derive(Debug, Clone)]
pub struct Directive {
    pub scope: Scope,
    /// The comment, from `//` to the end of its line (line break excluded, trailing spaces too).
    pub comment: Range<usize>,
    /// The rule names as written between the parentheses.
    pub names: Vec<String>,
    /// The text between the parentheses.
    pub list: Range<usize>,
    pub reason: Option<String>,
    /// Whether the comment is alone on its line.
    pub own_line: bool,
    /// For `Next`: where the next code starts (`None` at the end of the file).
    pub anchor: Option<usize>,
    /// Set when the comment starts with `mcp-lint:` but says nothing we can read.
    pub malformed: bool,
}

/// The suppressions of one file.
#[derive(Debug, Default)]
pub struct Suppressions {
    pub directives: Vec<Directive>,
}

/// Where the syntax node that starts at each anchor ends (see `rust_extents`, `json_extents`).
pub type Extents = HashMap<usize, usize>;

pub const MARKER: &str = "mcp-lint:";

/// Whether a text may hold suppression comments (one substring search).
pub fn may_have_directives(text: &str) -> bool {
    text.contains(MARKER)
}

impl Suppressions {
    /// Finds the suppression comments of a file. Cheap when there are none: one substring search.
    pub fn scan(text: &str, kind: FileKind) -> Suppressions {
        if !may_have_directives(text) {
            return Suppressions::default();
        }
        let comments = comments(text, kind == FileKind::Rust);
        let mut directives = Vec::new();
        for (i, c) in comments.iter().enumerate() {
            if c.block {
                continue;
            }
            let Some(mut d) = parse_directive(text, c.range.clone()) else { continue };
            if d.scope == Scope::Next {
                d.anchor = next_code(text, c.range.end, &comments[i + 1..]);
            }
            directives.push(d);
        }
        Suppressions { directives }
    }

    pub fn is_empty(&self) -> bool {
        self.directives.is_empty()
    }

    /// Where the next statements of own-line suppressions start, sorted, each once.
    pub fn anchors(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.directives.iter().filter_map(|d| d.anchor).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The lines (first, last) each directive covers, in `directives` order.
    fn covered_lines(&self, file: &SourceFile, extents: &Extents) -> Vec<Option<(usize, usize)>> {
        let line_of = |offset: usize| file.lines.line_col(&file.text, offset).line;
        self.directives
            .iter()
            .map(|d| match d.scope {
                Scope::File => Some((1, usize::MAX)),
                Scope::Line => Some((line_of(d.comment.start), line_of(d.comment.start))),
                Scope::Next => d.anchor.map(|a| {
                    let first = line_of(a);
                    let end = extents.get(&a).copied().filter(|e| *e > a);
                    (first, end.map_or(first, |e| line_of(e - 1).max(first)))
                }),
            })
            .collect()
    }

    /// The directive that suppresses a finding of `rule` starting at byte `offset`, as `apply`
    /// judges it; for fixers that must leave suppressed code alone.
    pub fn covering(&self, file: &SourceFile, extents: &Extents, rule: &str, offset: usize) -> Option<&Directive> {
        let line = file.lines.line_col(&file.text, offset).line;
        let covered = self.covered_lines(file, extents);
        self.directives.iter().zip(covered).find_map(|(d, lines)| {
            let (first, last) = lines?;
            (first <= line && line <= last && d.names.iter().any(|n| n == rule)).then_some(d)
        })
    }

    /// Drops the findings that a suppression covers and adds `unused-suppression` findings for
    /// suppressions (or names in them) that matched nothing. Names of rules that are off for this
    /// file are not judged (they could not have matched), nor, when the file does not parse, are
    /// any known names.
    pub fn apply(
        &self,
        file: &SourceFile,
        diagnostics: Vec<Diagnostic>,
        extents: &Extents,
        settings: &FileSettings,
    ) -> Vec<Diagnostic> {
        if self.directives.is_empty() {
            return diagnostics;
        }
        let line_of = |offset: usize| file.lines.line_col(&file.text, offset).line;
        let covered = self.covered_lines(file, extents);
        let mut used: Vec<Vec<bool>> = self.directives.iter().map(|d| vec![false; d.names.len()]).collect();
        let mut kept = Vec::with_capacity(diagnostics.len());
        for d in diagnostics {
            let line = line_of(d.range.start);
            let mut suppressed = false;
            if d.rule != rules::PARSE_ERROR.name {
                for (k, directive) in self.directives.iter().enumerate() {
                    let Some((first, last)) = covered[k] else { continue };
                    if line < first || line > last {
                        continue;
                    }
                    if let Some(n) = directive.names.iter().position(|n| n == d.rule) {
                        used[k][n] = true;
                        suppressed = true;
                    }
                }
            }
            if !suppressed {
                kept.push(d);
            }
        }
        let unused_rule = rules::UNUSED_SUPPRESSION.name;
        if !settings.enables(unused_rule) {
            return kept;
        }
        let parse_failed = kept.iter().any(|d| d.rule == rules::PARSE_ERROR.name);
        let severity = settings.severity(unused_rule, Severity::Warning);
        for (k, directive) in self.directives.iter().enumerate() {
            if let Some(d) = unused_finding(file, directive, &used[k], settings, parse_failed, severity) {
                kept.push(d);
            }
        }
        kept
    }
}

/// The `unused-suppression` finding for one directive, if any of it matched nothing.
fn unused_finding(
    file: &SourceFile,
    directive: &Directive,
    used: &[bool],
    settings: &FileSettings,
    parse_failed: bool,
    severity: Severity,
) -> Option<Diagnostic> {
    let mut finding = Diagnostic {
        rule: rules::UNUSED_SUPPRESSION.name,
        severity,
        range: directive.comment.clone(),
        message: String::new(),
        label: "suppresses nothing".into(),
        labels: Vec::new(),
        help: rules::UNUSED_SUPPRESSION.help.map(str::to_owned),
        fix: None,
        fix_elsewhere: Vec::new(),
        note: None,
        in_test: false,
    };
    if directive.malformed {
        finding.message = format!(
            "cannot read this suppression: expected `// {MARKER} allow(rule, …) reason` or `// {MARKER} allow-file(rule, …) reason`"
        );
        finding.label = "not a suppression mcp-lint can read".into();
        return Some(finding);
    }
    let mut unknown = Vec::new();
    let mut unsuppressible = Vec::new();
    let mut unused = Vec::new();
    for (name, used) in directive.names.iter().zip(used) {
        if *used {
            continue;
        }
        if name == rules::PARSE_ERROR.name || name == rules::UNUSED_SUPPRESSION.name {
            unsuppressible.push(name.as_str());
        } else if rules::find(name).is_none() {
            unknown.push(name.as_str());
        } else if !parse_failed && settings.enables(name) {
            unused.push(name.as_str());
        }
    }
    if unknown.is_empty() && unsuppressible.is_empty() && unused.is_empty() {
        return None;
    }
    let quoted = |names: &[&str]| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    if !unused.is_empty() {
        parts.push(format!("unused suppression: no {} finding {}", quoted(&unused), directive.scope.where_()));
    }
    if !unknown.is_empty() {
        let s = if unknown.len() == 1 { "" } else { "s" };
        parts.push(format!("unknown rule{s} {} in a suppression", quoted(&unknown)));
        let meant: Vec<String> = unknown
            .iter()
            .filter_map(|n| crate::words::closest(n, rules::ALL.iter().map(|r| r.meta().name)).map(|c| (n, c)))
            .map(|(n, c)| format!("`{c}` for `{n}`"))
            .collect();
        finding.help = Some(if meant.is_empty() {
            "check the name: `mcp-lint rules` lists the rules".into()
        } else {
            format!("did you mean {}? `mcp-lint rules` lists the rules", meant.join(", "))
        });
    }
    if !unsuppressible.is_empty() {
        parts.push(format!("{} cannot be suppressed by a comment", quoted(&unsuppressible)));
    }
    finding.message = parts.join("; ");
    let is_flagged = |n: &&str| unknown.contains(n) || unsuppressible.contains(n) || unused.contains(n);
    let (flagged, keep): (Vec<&str>, Vec<&str>) = directive.names.iter().map(String::as_str).partition(is_flagged);
    finding.fix = Some(if keep.is_empty() {
        Fix {
            title: "remove the suppression comment".into(),
            applicability: Applicability::Safe,
            edits: vec![Edit::delete(deletion_range(file, directive))],
        }
    } else {
        Fix {
            title: format!("remove {} from the suppression", quoted(&flagged)),
            applicability: Applicability::Safe,
            edits: vec![Edit::replace(directive.list.clone(), keep.join(", "))],
        }
    });
    Some(finding)
}

/// What deleting a comment removes: its whole line when it is alone on it, else the comment and
/// the spaces before it.
fn deletion_range(file: &SourceFile, directive: &Directive) -> Range<usize> {
    let text = &file.text;
    let bytes = text.as_bytes();
    let line_start = text[..directive.comment.start].rfind('\n').map_or(0, |i| i + 1);
    if directive.own_line {
        let end = text[directive.comment.end..].find('\n').map_or(text.len(), |i| directive.comment.end + i + 1);
        return line_start..end;
    }
    let mut start = directive.comment.start;
    while start > line_start && matches!(bytes[start - 1], b' ' | b'\t') {
        start -= 1;
    }
    start..directive.comment.end
}

/// Reads `// mcp-lint: allow(a, b) reason`; `None` when the comment is no `mcp-lint:` comment.
fn parse_directive(text: &str, comment: Range<usize>) -> Option<Directive> {
    let body = &text[comment.start + 2..comment.end];
    let rest = body.trim_start().strip_prefix(MARKER)?.trim_start();
    let line_start = text[..comment.start].rfind('\n').map_or(0, |i| i + 1);
    let own_line = text[line_start..comment.start].trim().is_empty();
    let mut directive = Directive {
        scope: if own_line { Scope::Next } else { Scope::Line },
        comment: comment.clone(),
        names: Vec::new(),
        list: comment.end..comment.end,
        reason: None,
        own_line,
        anchor: None,
        malformed: true,
    };
    let (scope, after) = if let Some(after) = rest.strip_prefix("allow-file(") {
        (Scope::File, after)
    } else if let Some(after) = rest.strip_prefix("allow(") {
        (directive.scope, after)
    } else {
        return Some(directive);
    };
    let Some(close) = after.find(')') else { return Some(directive) };
    let list = &after[..close];
    let list_start = offset_in(text, list);
    let names: Vec<String> = list.split(',').map(|n| n.trim().to_owned()).collect();
    if names.iter().any(String::is_empty) {
        return Some(directive);
    }
    let reason = after[close + 1..].trim();
    directive.scope = scope;
    directive.names = names;
    directive.list = list_start..list_start + list.len();
    directive.reason = (!reason.is_empty()).then(|| reason.to_owned());
    directive.malformed = false;
    Some(directive)
}

/// The byte offset of a slice of `text` in it.
fn offset_in(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// The first byte of code after `from`: past white space and comments.
fn next_code(text: &str, from: usize, later_comments: &[Comment]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    let mut comments = later_comments.iter().peekable();
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        while comments.peek().is_some_and(|c| c.range.end <= at) {
            comments.next();
        }
        match comments.peek() {
            Some(c) if c.range.start == at => at = c.range.end,
            _ => return Some(at),
        }
    }
}

/// A comment found by the lexer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// `//` to the end of the line (line break and a `\r` excluded), or `/*` to `*/`.
    pub range: Range<usize>,
    pub block: bool,
}

/// The comments of a Rust (`rust`) or JSON file, in order, skipping everything inside string
/// literals, raw strings and character literals.
pub fn comments(text: &str, rust: bool) -> Vec<Comment> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let mut end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                let next = end;
                while end > i && b[end - 1].is_ascii_whitespace() {
                    end -= 1;
                }
                out.push(Comment { range: i..end, block: false });
                i = next;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = lexing::block_comment(b, i, rust);
                out.push(Comment { range: i..end, block: true });
                i = end;
            }
            b'"' => i = lexing::quoted(b, i + 1, b'"'),
            b'\'' if !rust => i = lexing::quoted(b, i + 1, b'\''),
            b'\'' => i = lexing::char_or_lifetime(b, i),
            c if rust && (c == b'_' || c.is_ascii_alphabetic()) => {
                let start = i;
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric() || b[i] >= 0x80) {
                    i += 1;
                }
                if matches!(&b[start..i], b"r" | b"br" | b"cr") {
                    i = lexing::raw_string(b, i);
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// For each anchor, where the largest statement, item, field, arm or expression starting exactly
/// there ends. Only nodes that contain an anchor are entered, so a file costs little more than
/// the nodes on the way to its suppressions.
pub fn rust_extents(file: &syn::File, base: usize, anchors: &[usize]) -> Extents {
    let mut v = ExtentVisitor { base, anchors, ends: HashMap::new() };
    if !anchors.is_empty() {
        v.visit_file(file);
    }
    v.ends
}

struct ExtentVisitor<'a> {
    base: usize,
    anchors: &'a [usize],
    ends: Extents,
}

impl ExtentVisitor<'_> {
    /// Records the node if it starts at an anchor; says whether any anchor lies inside it.
    fn enter(&mut self, node: &impl Spanned) -> bool {
        let std::ops::Range { start, end } = crate::rust::parse::file_range(node.span(), self.base);
        let i = self.anchors.partition_point(|a| *a < start);
        let Some(&first) = self.anchors.get(i) else { return false };
        if first >= end {
            return false;
        }
        if first == start {
            let e = self.ends.entry(start).or_insert(end);
            *e = (*e).max(end);
        }
        true
    }
}

macro_rules! pruned {
    ($($method:ident($ty:ty) => $walk:path;)*) => {
        $(fn $method(&mut self, node: &'ast $ty) {
            if self.enter(node) {
                $walk(self, node);
            }
        })*
    };
}

impl<'ast> Visit<'ast> for ExtentVisitor<'_> {
    pruned! {
        visit_item(syn::Item) => visit::visit_item;
        visit_impl_item(syn::ImplItem) => visit::visit_impl_item;
        visit_trait_item(syn::TraitItem) => visit::visit_trait_item;
        visit_foreign_item(syn::ForeignItem) => visit::visit_foreign_item;
        visit_stmt(syn::Stmt) => visit::visit_stmt;
        visit_field(syn::Field) => visit::visit_field;
        visit_field_value(syn::FieldValue) => visit::visit_field_value;
        visit_arm(syn::Arm) => visit::visit_arm;
        visit_variant(syn::Variant) => visit::visit_variant;
        visit_expr(syn::Expr) => visit::visit_expr;
    }
}

/// For each anchor, where the JSON member or value starting exactly there ends.
pub fn json_extents(roots: &[JsonNode], anchors: &[usize]) -> Extents {
    let mut ends = Extents::new();
    if anchors.is_empty() {
        return ends;
    }
    let mut record = |range: &Range<usize>| {
        if anchors.binary_search(&range.start).is_ok() {
            let e = ends.entry(range.start).or_insert(range.end);
            *e = (*e).max(range.end);
        }
    };
    for root in roots {
        walk(root, |node, _| {
            record(&node.range);
            if let JsonKind::Object(members) = &node.kind {
                members.iter().for_each(|m| record(&m.range));
            }
        });
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment_texts(text: &str, rust: bool) -> Vec<&str> {
        comments(text, rust).into_iter().map(|c| &text[c.range]).collect()
    }

    #[test]
    fn lexer_skips_literals() {
        let text = r####"let a = "// no"; // yes
let b = r#"x // no "# ; let c = '"'; /* block // no */ let d = b"//"; // two
fn f<'a>(x: &'a str) -> char { '\'' } // three
let e = br##"// "# no"##; let f = 'é'; // four
/* outer /* inner */ still // no */ // five
"####;
        assert_eq!(
            comment_texts(text, true),
            [
                "// yes",
                "/* block // no */",
                "// two",
                "// three",
                "// four",
                "/* outer /* inner */ still // no */",
                "// five"
            ]
        );
        let json = "{\"url\": \"http://x\", // c1\n 'k': 'a//b' /* c2 */}";
        assert_eq!(comment_texts(json, false), ["// c1", "/* c2 */"]);
    }

    #[test]
    fn directives_are_read() {
        let text = "let x = 1; // mcp-lint: allow(a, b) because\n// mcp-lint: allow-file(c)\n  // mcp-lint: allow(d)\n\n  // other\n  call();\n// mcp-lint: nope\n";
        let s = Suppressions::scan(text, FileKind::Rust);
        let d = &s.directives;
        assert_eq!(d.len(), 4);
        assert_eq!(
            (d[0].scope, d[0].names.clone(), d[0].reason.as_deref()),
            (Scope::Line, vec!["a".into(), "b".into()], Some("because"))
        );
        assert_eq!(&text[d[0].list.clone()], "a, b");
        assert_eq!((d[1].scope, d[1].names.clone()), (Scope::File, vec!["c".into()]));
        assert_eq!(d[2].scope, Scope::Next);
        assert_eq!(d[2].anchor, text.find("call()"));
        assert!(d[3].malformed);
    }
}
