//! Which files a run reads: explicit files as given, folders walked with `.gitignore` semantics
//! (ripgrep's walker), never `target/` or VCS folders.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Note;
use crate::source::FileKind;

#[derive(Debug, Default)]
pub struct Discovered {
    /// Files to check, with the path shown to users, each once, in walk order.
    pub files: Vec<(PathBuf, String)>,
    pub notes: Vec<Note>,
    /// Paths named on the command line that do not exist or cannot be read: exit code 2.
    pub unreadable: Vec<Note>,
    /// The folders walked (canonical): a crate inside one of them was read whole, so what the
    /// run saw of it is all there is to see.
    pub walked: Vec<PathBuf>,
}

const NEVER_SCANNED: &[&str] = &["target", ".git", ".hg", ".svn", ".jj"];

/// Says whether configuration excludes a file or folder: `Some(why)` skips it.
pub type Exclude = Arc<dyn Fn(&Path) -> Option<String> + Send + Sync>;

pub fn discover(paths: &[PathBuf]) -> Discovered {
    discover_excluding(paths, None)
}

/// `discover`, skipping what `exclude` excludes: walked folders and files silently, files named on
/// the command line with a note.
pub fn discover_excluding(paths: &[PathBuf], exclude: Option<Exclude>) -> Discovered {
    discover_each(paths, exclude, &mut |_, _, _| {})
}

/// `discover_excluding`, calling `found(index, path, shown)` for each file as soon as it is
/// found (`index` is its place in `files`), so a run can read files while the walk goes on.
pub fn discover_each(
    paths: &[PathBuf],
    exclude: Option<Exclude>,
    found: &mut dyn FnMut(usize, &Path, &str),
) -> Discovered {
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
            } else if let Some(why) = exclude.as_ref().and_then(|x| x(arg)) {
                out.notes.push(Note { path: shown, message: format!("{why}; skipped") });
            } else if seen.insert(identity(arg)) {
                found(out.files.len(), arg, &shown);
                out.files.push((arg.clone(), shown));
            }
            continue;
        }
        if !meta.is_dir() {
            // A FIFO, socket or device: opening a FIFO would block until someone writes to it.
            out.unreadable.push(Note { path: shown, message: "not a regular file or folder".into() });
            continue;
        }
        if let Err(e) = std::fs::read_dir(arg) {
            out.unreadable.push(Note { path: shown, message: format!("cannot read: {}", io_reason(&e)) });
            continue;
        }
        let root = identity(arg);
        out.walked.push(root.clone());
        let walker = ignore::WalkBuilder::new(arg)
            .hidden(false)
            .require_git(false)
            .filter_entry({
                let exclude = exclude.clone();
                move |e| {
                    let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                    !(is_dir && e.file_name().to_str().is_some_and(|n| NEVER_SCANNED.contains(&n)))
                        && !(e.depth() > 0
                            && (is_dir || FileKind::is_scanned(e.path()))
                            && exclude.as_ref().is_some_and(|x| x(e.path()).is_some()))
                }
            })
            .build();
        for entry in walker {
            match entry {
                Ok(e) => {
                    let Some(file_type) = e.file_type() else { continue };
                    if file_type.is_file() {
                        // The walk follows no links, so a path below the canonical root is canonical:
                        // no `canonicalize` (a syscall per path component) per file.
                        let id =
                            || e.path().strip_prefix(arg).map_or_else(|_| identity(e.path()), |rel| root.join(rel));
                        // One folder walked alone reaches each file once: nothing to remember.
                        if FileKind::is_scanned(e.path()) && (paths.len() == 1 || seen.insert(id())) {
                            let shown = display_path(e.path());
                            found(out.files.len(), e.path(), &shown);
                            out.files.push((e.path().to_path_buf(), shown));
                        }
                    } else if let Some(message) = unwalked(&e, file_type) {
                        out.notes.push(Note { path: display_path(e.path()), message: message.into() });
                    }
                }
                Err(err) => out.notes.push(walk_error(&err, &shown)),
            }
        }
    }
    out
}

/// Why a walked entry that is neither a file nor a folder is passed over, when a user would
/// wonder: symbolic links are not followed (their target may lie outside the scanned root, or loop
/// back into it), and special files are never opened. Links and special files that could not hold
/// a Rust or JSON file pass silently.
fn unwalked(e: &ignore::DirEntry, file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_dir() || e.depth() == 0 {
        return None;
    }
    if file_type.is_symlink() {
        let to_folder = std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir());
        return (to_folder || FileKind::is_scanned(e.path()))
            .then_some("symbolic link; not followed (name it on the command line to check its target)");
    }
    FileKind::is_scanned(e.path()).then_some("not a regular file; skipped")
}

/// A folder entry the walker could not read, as a note about that entry.
fn walk_error(err: &ignore::Error, shown: &str) -> Note {
    let mut inner = err;
    let mut path = None;
    loop {
        match inner {
            ignore::Error::WithPath { path: p, err } => {
                path = Some(p);
                inner = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => inner = err,
            _ => break,
        }
    }
    let message = match inner.io_error() {
        Some(e) => format!("cannot read: {}", io_reason(e)),
        None => inner.to_string(),
    };
    Note { path: path.map_or_else(|| shown.to_owned(), |p| display_path(p)), message }
}

/// Folders' real paths, remembered. A folder's real path is its parent's joined with its name
/// unless the folder is a symbolic link: one `lstat` per folder instead of `realpath`'s call per
/// path component (thousands of folders in a large tree).
#[derive(Default)]
pub struct CanonicalDirs(std::sync::Mutex<std::collections::HashMap<PathBuf, PathBuf>>);

impl CanonicalDirs {
    /// The canonical form of `dir` (the folder itself, not its parent); as spelt when it cannot be
    /// resolved.
    pub fn get(&self, dir: &Path) -> PathBuf {
        if let Some(c) = self.0.lock().unwrap().get(dir) {
            return c.clone();
        }
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
        let c = match (parent, dir.components().next_back()) {
            (Some(parent), Some(std::path::Component::Normal(name)))
                if std::fs::symlink_metadata(dir).is_ok_and(|m| !m.file_type().is_symlink()) =>
            {
                self.get(parent).join(name)
            }
            _ => std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()),
        };
        self.0.lock().unwrap().insert(dir.to_path_buf(), c.clone());
        c
    }

    /// The canonical folder a file is in.
    pub fn of_file(&self, file: &Path) -> PathBuf {
        self.get(file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")))
    }
}

/// The same file reached twice (overlapping arguments) is checked once.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// As given, without a leading `./`, with `/` separators; an absolute path inside the current
/// folder is shown relative to it.
pub fn display_path(path: &Path) -> String {
    // The current folder, asked once: this runs for every file walked (the process never changes it).
    static CWD: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let cwd = CWD.get_or_init(|| std::env::current_dir().ok());
    let relative = cwd.as_deref().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_dirs_agree_with_realpath_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real/inner");
        std::fs::create_dir_all(&real).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        let dirs = CanonicalDirs::default();
        let mut cases = vec![real.clone(), dir.path().join("real/inner/../inner"), dir.path().join("missing/x")];
        if cfg!(unix) {
            cases.push(dir.path().join("link/inner"));
        }
        for case in cases {
            // A folder that does not exist stays as spelt.
            let expected = std::fs::canonicalize(&case).unwrap_or_else(|_| case.clone());
            assert_eq!(dirs.get(&case), expected, "{}", case.display());
        }
        assert_eq!(dirs.of_file(&real.join("lib.rs")), std::fs::canonicalize(&real).unwrap());
    }
}
