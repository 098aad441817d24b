//! Which files a run reads: explicit files as given, folders walked with `.gitignore` semantics
//! (ripgrep's walker), never `target/` or VCS folders.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::diagnostic::Note;
use crate::source::FileKind;

#[derive(Debug, Default)]
pub struct Discovered {
    /// Files to check, with the path shown to users, each once, in walk order.
    pub files: Vec<(PathBuf, String)>,
    pub notes: Vec<Note>,
    /// Paths named on the command line that do not exist or cannot be read: exit code 2.
    pub unreadable: Vec<Note>,
}

const NEVER_SCANNED: &[&str] = &["target", ".git", ".hg", ".svn", ".jj"];

pub fn discover(paths: &[PathBuf]) -> Discovered {
    let mut out = Discovered::default();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for arg in paths {
        let shown = display_path(arg);
        let meta = match std::fs::metadata(arg) {
            Ok(m) => m,
            Err(e) => {
                out.unreadable.push(Note { path: shown, message: format!("cannot read: {}", io_reason(&e)) });
                continue;
            }
        };
        if meta.is_file() {
            if let Err(e) = std::fs::File::open(arg) {
                out.unreadable.push(Note { path: shown, message: format!("cannot read: {}", io_reason(&e)) });
            } else if !FileKind::is_scanned(arg) {
                out.notes.push(Note { path: shown, message: "not a Rust or JSON file; skipped".into() });
            } else if seen.insert(identity(arg)) {
                out.files.push((arg.clone(), shown));
            }
            continue;
        }
        if let Err(e) = std::fs::read_dir(arg) {
            out.unreadable.push(Note { path: shown, message: format!("cannot read: {}", io_reason(&e)) });
            continue;
        }
        let walker = ignore::WalkBuilder::new(arg)
            .hidden(false)
            .require_git(false)
            .filter_entry(|e| {
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && e.file_name().to_str().is_some_and(|n| NEVER_SCANNED.contains(&n)))
            })
            .build();
        for entry in walker {
            match entry {
                Ok(e) => {
                    if e.file_type().is_some_and(|t| t.is_file())
                        && FileKind::is_scanned(e.path())
                        && seen.insert(identity(e.path()))
                    {
                        out.files.push((e.path().to_path_buf(), display_path(e.path())));
                    }
                }
                Err(err) => out.notes.push(Note { path: shown.clone(), message: format!("{err}") }),
            }
        }
    }
    out
}

/// The same file reached twice (overlapping arguments) is checked once.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// As given, without a leading `./`, with `/` separators; an absolute path inside the current
/// folder is shown relative to it.
pub fn display_path(path: &Path) -> String {
    let relative = std::env::current_dir().ok().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    let path = relative.as_deref().unwrap_or(path);
    let s = path.to_string_lossy().replace('\\', "/");
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    if s.is_empty() { ".".into() } else { s.to_owned() }
}

pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
