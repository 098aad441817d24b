//! The folders the MCP server may read and write: the working directory it was started in, or the
//! folders named with `--allow`. A path a client names is made absolute (relative to the first
//! folder), canonicalised (symbolic links and `..` resolved by the file system), and must then lie
//! below one of the folders component by component: `/srv/app-old` is not below `/srv/app`. A path
//! outside them is refused with an error that names them; nothing outside is read first.
//!
//! This is the confinement mcp-lint's own `root-prefix-check` asks servers to keep.

use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Folders {
    /// Canonical, each once, in the order given.
    dirs: Vec<PathBuf>,
}

impl Folders {
    /// The folders as given (the working directory when none are); each must be a folder.
    pub fn new(allow: &[PathBuf]) -> Result<Folders, String> {
        let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
        let given = if allow.is_empty() { vec![cwd.clone()] } else { allow.to_vec() };
        let mut dirs: Vec<PathBuf> = Vec::new();
        for dir in given {
            let absolute = if dir.is_absolute() { dir.clone() } else { cwd.join(&dir) };
            let canonical = std::fs::canonicalize(&absolute)
                .map_err(|e| format!("--allow {}: {}", dir.display(), crate::discover::io_reason(&e)))?;
            if !canonical.is_dir() {
                return Err(format!("--allow {}: not a folder", dir.display()));
            }
            if !dirs.contains(&canonical) {
                dirs.push(canonical);
            }
        }
        Ok(Folders { dirs })
    }

    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The folders, for messages: `/a, /b`.
    pub fn describe(&self) -> String {
        self.dirs.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// Whether a canonical path lies in one of the folders (or is one).
    pub fn contains(&self, canonical: &Path) -> bool {
        self.dirs.iter().any(|dir| canonical.starts_with(dir))
    }

    /// `path` as the server may use it: canonical, and inside one of the folders. A path that
    /// does not exist yet (the name an inline text stands for) is canonical up to its deepest
    /// existing folder, and may not climb out of it with `..`.
    pub fn confine(&self, path: &str) -> Result<Confined, String> {
        if path.is_empty() {
            return Err("an empty path; name a file or folder".into());
        }
        if path.contains('\0') {
            return Err(format!("`{}` holds a NUL byte; not a path", path.escape_debug()));
        }
        let given = Path::new(path);
        let absolute = if given.is_absolute() { given.to_path_buf() } else { self.dirs[0].join(given) };
        let outside = || {
            format!(
                "`{path}` is outside the folders this server may read and write ({}); start it with --allow DIR to add a folder",
                self.describe()
            )
        };
        let components: Vec<Component> = absolute.components().collect();
        // The deepest prefix that exists, canonicalised; the rest must be plain names.
        for split in (1..=components.len()).rev() {
            let prefix: PathBuf = components[..split].iter().collect();
            let Ok(canonical) = std::fs::canonicalize(&prefix) else { continue };
            let mut full = canonical;
            for c in &components[split..] {
                match c {
                    Component::Normal(name) => full.push(name),
                    Component::CurDir => {}
                    _ => return Err(outside()),
                }
            }
            if !self.contains(&full) {
                return Err(outside());
            }
            return Ok(Confined { exists: split == components.len(), path: full });
        }
        Err(outside())
    }

    /// `confine`, for a path that must exist.
    pub fn existing(&self, path: &str) -> Result<PathBuf, String> {
        let confined = self.confine(path)?;
        if confined.exists {
            Ok(confined.path)
        } else {
            Err(format!("`{path}`: no such file or folder (relative paths start at {})", self.dirs[0].display()))
        }
    }
}

/// A path inside the folders.
#[derive(Debug, PartialEq, Eq)]
pub struct Confined {
    pub path: PathBuf,
    /// Whether it exists (else only its deepest existing folder does).
    pub exists: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Folders) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("app/src")).unwrap();
        std::fs::create_dir_all(base.join("app-old")).unwrap();
        std::fs::write(base.join("app/src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(base.join("app-old/secret.rs"), "fn main() {}\n").unwrap();
        std::fs::write(base.join("outside.json"), "{}\n").unwrap();
        let folders = Folders::new(&[base.join("app")]).unwrap();
        (dir, folders)
    }

    #[test]
    fn relative_paths_start_at_the_first_folder() {
        let (dir, folders) = setup();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(folders.existing("src/main.rs").unwrap(), base.join("app/src/main.rs"));
        assert_eq!(folders.existing(".").unwrap(), base.join("app"));
        assert_eq!(folders.existing("src/../src/main.rs").unwrap(), base.join("app/src/main.rs"));
    }

    #[test]
    fn dot_dot_sibling_prefixes_and_absolute_paths_do_not_escape() {
        let (dir, folders) = setup();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        for path in ["../outside.json", "src/../../outside.json", "../app-old/secret.rs", "/etc/passwd"] {
            let err = folders.existing(path).unwrap_err();
            assert!(err.contains("outside the folders") && err.contains(&folders.describe()), "{path}: {err}");
        }
        let sibling = base.join("app-old/secret.rs");
        assert!(folders.existing(sibling.to_str().unwrap()).is_err());
        // A name that does not exist cannot climb out with `..` either.
        assert!(folders.confine("new/../../outside.json").is_err());
    }

    #[test]
    fn symbolic_links_are_judged_by_their_target() {
        let (dir, folders) = setup();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(base.join("app-old"), base.join("app/src/link")).unwrap();
        std::os::unix::fs::symlink(base.join("app/src/main.rs"), base.join("app/inner-link.rs")).unwrap();
        assert!(folders.existing("src/link/secret.rs").unwrap_err().contains("outside"));
        assert!(folders.existing("src/link").unwrap_err().contains("outside"));
        assert_eq!(folders.existing("inner-link.rs").unwrap(), base.join("app/src/main.rs"));
    }

    #[test]
    fn names_that_do_not_exist_yet() {
        let (dir, folders) = setup();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let confined = folders.confine("src/new/server.rs").unwrap();
        assert_eq!(confined, Confined { path: base.join("app/src/new/server.rs"), exists: false });
        assert!(folders.existing("src/missing.rs").unwrap_err().contains("no such file"));
        assert!(folders.confine("").is_err() && folders.confine("a\0b").is_err());
    }

    #[test]
    fn allowed_folders_must_be_folders() {
        let (dir, _) = setup();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        assert!(Folders::new(&[base.join("outside.json")]).unwrap_err().contains("not a folder"));
        assert!(Folders::new(&[base.join("missing")]).unwrap_err().contains("no such file"));
        let two = Folders::new(&[base.join("app"), base.join("app-old"), base.join("app")]).unwrap();
        assert_eq!(two.dirs().len(), 2);
        assert!(two.existing(base.join("app-old/secret.rs").to_str().unwrap()).is_ok());
    }
}
