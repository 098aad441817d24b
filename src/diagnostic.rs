//! What a rule reports: a finding with its exact byte range, labels, help, and an optional fix.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// How safe a fix is to apply without a person looking at it (ruff's terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applicability {
    /// Keeps the program's meaning apart from the migration itself; applied by `fix`.
    Safe,
    /// Changes behaviour or a public contract; applied only with `--unsafe-fixes`.
    Unsafe,
    /// Shown as a suggestion, never applied.
    DisplayOnly,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
            Applicability::DisplayOnly => "display-only",
        }
    }
}

/// Replace `range` (bytes of the file as read) with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub byte_range: Range<usize>,
    pub replacement: String,
}

impl Edit {
    pub fn delete(range: Range<usize>) -> Self {
        Edit { byte_range: range, replacement: String::new() }
    }
    pub fn replace(range: Range<usize>, replacement: impl Into<String>) -> Self {
        Edit { byte_range: range, replacement: replacement.into() }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

/// A secondary span with a short message ("capabilities stored here").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub range: Range<usize>,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// The rule's stable name, e.g. `server-roots-request`.
    pub rule: &'static str,
    pub severity: Severity,
    /// Byte range of the primary span in the file as read.
    pub range: Range<usize>,
    pub message: String,
    /// Text for the primary label in code frames; short.
    pub label: String,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub fix: Option<Fix>,
    /// The edits `fix` makes in other files than the finding's (the roots codemod rewrites a
    /// crate, not a file); empty for every fix of one file. `fix.edits` are the finding's file's.
    pub fix_elsewhere: Vec<FileEdits>,
    /// Why there is no automatic fix, when a fixer looked and declined (the roots codemod's
    /// reason); shown beside the help.
    pub note: Option<String>,
    /// The finding is in test code (`rust::test_code`: `#[cfg(test)]`, `#[test]`, a crate's
    /// `tests/` or `benches/`); set by the engine once the file's rules ran.
    pub in_test: bool,
}

/// Why a finding in test code has no fix where the same code elsewhere gets one.
pub const NO_FIX_IN_TEST: &str = "no fix in test code: a test often builds this on purpose (to check that it is \
     handled or rejected), so change it by hand if it should go";

/// What messages shown to people add to a finding in test code (JSON has `in_test` instead).
pub const TEST_CODE_MARK: &str = " (test code)";

/// A fix's edits in one file, byte ranges of that file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdits {
    pub path: std::path::PathBuf,
    /// The path as reports show it.
    pub display: String,
    pub edits: Vec<Edit>,
}

impl Diagnostic {
    /// Adds a secondary label.
    pub fn label(&mut self, range: Range<usize>, message: impl Into<String>) -> &mut Self {
        self.labels.push(Label { range, message: message.into() });
        self
    }
    /// Replaces the rule's default help line.
    pub fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }
    pub fn fix(&mut self, fix: Fix) -> &mut Self {
        self.fix = Some(fix);
        self
    }

    /// A fix the rule may or may not have for this place.
    pub fn fix_opt(&mut self, fix: Option<Fix>) -> &mut Self {
        self.fix = fix;
        self
    }

    /// A fix, or the reason there is none here (shown as the finding's note).
    pub fn fix_or_why(&mut self, fix: Result<Fix, &str>) -> &mut Self {
        match fix {
            Ok(fix) => self.fix = Some(fix),
            Err(why) => self.note = Some(why.to_owned()),
        }
        self
    }

    /// The message as people read it (code frames, annotations, editors): a finding in test code
    /// says so.
    pub fn shown_message(&self) -> std::borrow::Cow<'_, str> {
        if self.in_test { format!("{}{TEST_CODE_MARK}", self.message).into() } else { self.message.as_str().into() }
    }
}

/// Something the run wants a user to know that is not a finding: a skipped file, an unreadable
/// folder entry. Notes never change the exit code.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Note {
    pub path: String,
    pub message: String,
}
