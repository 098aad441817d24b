//! Like `cargo fix`: files with uncommitted changes, or outside any work tree, are not written
//! unless the user says so, so a fix can always be reviewed and undone with the VCS.

use std::path::Path;
use std::process::Command;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VcsState {
    /// Tracked and unchanged: safe to rewrite.
    Clean,
    /// Modified, staged, untracked or ignored in a git work tree: the VCS cannot restore it.
    Dirty,
    /// Not inside a git work tree (or git is not installed).
    NoVcs,
}

pub fn state(path: &Path) -> VcsState {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Some(name) = path.file_name() else { return VcsState::NoVcs };
    let inside = Command::new("git").arg("-C").arg(dir).args(["rev-parse", "--is-inside-work-tree"]).output();
    match inside {
        Ok(out) if out.status.success() && out.stdout.starts_with(b"true") => {}
        _ => return VcsState::NoVcs,
    }
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain", "--untracked-files=all", "--ignored=matching", "--"])
        .arg(name)
        .output();
    match status {
        Ok(out) if out.status.success() && out.stdout.is_empty() => VcsState::Clean,
        Ok(out) if out.status.success() => VcsState::Dirty,
        _ => VcsState::NoVcs,
    }
}
