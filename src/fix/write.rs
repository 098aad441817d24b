//! Atomic writes: the new text goes to a temporary file in the same folder, which is renamed over
//! the original. The original's permissions, owner and group are kept; a file that changed on disk
//! since it was read, or a symlink, is refused.

use std::io::Write;
use std::path::Path;

#[derive(Debug)]
pub enum WriteError {
    /// The file is not what was read any more.
    ChangedOnDisk,
    /// Symlinks are not written through (the target may lie outside what was scanned).
    Symlink,
    /// The file is read-only: its owner asked that it not be changed.
    ReadOnly,
    /// The new file could not be given the original's owner and group (only root may give files
    /// away), and writing would silently change who owns it.
    Owner(std::io::Error),
    Io(std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::ChangedOnDisk => write!(f, "changed on disk since it was read; not written"),
            WriteError::Symlink => write!(f, "is a symbolic link; not written through"),
            WriteError::ReadOnly => write!(f, "is read-only; not written"),
            WriteError::Owner(e) => write!(f, "cannot keep its owner and group ({e}); not written"),
            WriteError::Io(e) => write!(f, "cannot write: {e}"),
        }
    }
}

/// Replaces `path`'s contents with `new` if they are still `expected`.
pub fn write_atomically(path: &Path, expected: &[u8], new: &[u8]) -> Result<(), WriteError> {
    write_with_hook(path, expected, new, |_| Ok(()))
}

/// `before_rename` runs between writing the temporary file and renaming it: tests inject failures
/// there to prove an interrupted write leaves the original intact and no temporary file behind.
pub fn write_with_hook(
    path: &Path,
    expected: &[u8],
    new: &[u8],
    before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let meta = std::fs::symlink_metadata(path).map_err(WriteError::Io)?;
    if meta.file_type().is_symlink() {
        return Err(WriteError::Symlink);
    }
    if meta.permissions().readonly() {
        return Err(WriteError::ReadOnly);
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp =
        tempfile::Builder::new().prefix(".mcp-lint-").suffix(".tmp").tempfile_in(dir).map_err(WriteError::Io)?;
    tmp.write_all(new).map_err(WriteError::Io)?;
    tmp.as_file().sync_all().map_err(WriteError::Io)?;
    // Owner first: changing it clears set-user-id and set-group-id bits, which the mode restores.
    keep_owner(tmp.as_file(), &meta)?;
    std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(WriteError::Io)?;
    // Dropping `tmp` on any error below removes the temporary file.
    before_rename(tmp.path()).map_err(WriteError::Io)?;
    let on_disk = std::fs::read(path).map_err(WriteError::Io)?;
    if on_disk != expected {
        return Err(WriteError::ChangedOnDisk);
    }
    tmp.persist(path).map_err(|e| WriteError::Io(e.error))?;
    Ok(())
}

/// The temporary file belongs to whoever runs `fix`; the renamed file must belong to the
/// original's owner and group.
#[cfg(unix)]
fn keep_owner(tmp: &std::fs::File, original: &std::fs::Metadata) -> Result<(), WriteError> {
    use std::os::unix::fs::MetadataExt;
    let now = tmp.metadata().map_err(WriteError::Io)?;
    if (now.uid(), now.gid()) == (original.uid(), original.gid()) {
        return Ok(());
    }
    std::os::unix::fs::fchown(tmp, Some(original.uid()), Some(original.gid())).map_err(WriteError::Owner)
}

#[cfg(not(unix))]
fn keep_owner(_tmp: &std::fs::File, _original: &std::fs::Metadata) -> Result<(), WriteError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".mcp-lint-"))
            .collect()
    }

    #[test]
    fn writes_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rs");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"old", b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn interrupted_write_leaves_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rs");
        std::fs::write(&path, "old").unwrap();
        let err = write_with_hook(&path, b"old", b"new", |_| Err(std::io::Error::other("power cut"))).unwrap_err();
        assert!(matches!(err, WriteError::Io(_)));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn refuses_a_file_changed_since_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rs");
        std::fs::write(&path, "edited by someone").unwrap();
        let err = write_atomically(&path, b"old", b"new").unwrap_err();
        assert!(matches!(err, WriteError::ChangedOnDisk));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "edited by someone");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn refuses_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.rs");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("l.rs");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(write_atomically(&link, b"old", b"new"), Err(WriteError::Symlink)));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    }
}
