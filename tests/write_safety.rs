//! `fix` never loses data: a file changed or deleted after `fix` read it is not written, symlinks
//! are not written through, an interrupted write leaves the original and no temporary file, and
//! permissions, owner and group survive the rename.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use mcp_lint::fix::write::{WriteError, write_atomically, write_with_hook};

#[path = "support/skip.rs"]
mod skip;

/// These tests are about how fixes are written, in code that says it targets 2026-07-28 alone
/// (where nothing tells, dropping `listChanged` is no safe fix).
const TARGETS_2026: &str = "era = \"2026-07-28\"\n";

const CAPS: &str = "{\n  \"clientCapabilities\": {\n    \"roots\": { \"listChanged\": true }\n  }\n}\n";

fn mcp_lint(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Temporary files `fix` left in `dir`.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".mcp-lint-"))
        .collect()
}

fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

fn real_git() -> Option<PathBuf> {
    let out = std::process::Command::new("sh").args(["-c", "command -v git"]).output().ok()?;
    let path = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// A folder holding a `git` that first does `action` to `file` when asked for `status` (which
/// `fix` runs after reading and before writing), then runs the real git: another program saving
/// or deleting the file while `fix` works on it.
fn meddling_git(action: &str, file: &Path) -> Option<tempfile::TempDir> {
    let git = real_git()?;
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = status ]; then {action} '{}'; fi; done\nexec '{}' \"$@\"\n",
        file.display(),
        git.display()
    );
    let shim = write(dir.path(), "git", &script);
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    Some(dir)
}

fn path_with(first: &Path) -> String {
    format!("{}:{}", first.display(), std::env::var("PATH").unwrap_or_default())
}

#[test]
fn a_file_changed_after_fix_read_it_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    let caps = write(dir.path(), "caps.json", CAPS);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "init"]);
    let Some(shim) = meddling_git("printf '\\n' >>", &caps) else {
        skip::skipped("git is not installed");
        return;
    };
    let out =
        mcp_lint(dir.path()).env("PATH", path_with(shim.path())).args(["fix", "--allow-dirty", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: caps.json: changed on disk since it was read; not written"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&caps).unwrap(), format!("{CAPS}\n"), "the other program's save survives");
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn a_file_deleted_after_fix_read_it_is_not_recreated() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    let caps = write(dir.path(), "caps.json", CAPS);
    write(dir.path(), "other/caps.json", CAPS);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "init"]);
    let Some(shim) = meddling_git("rm -f", &caps) else {
        skip::skipped("git is not installed");
        return;
    };
    let out =
        mcp_lint(dir.path()).env("PATH", path_with(shim.path())).args(["fix", "--allow-dirty", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("caps.json"), "{}", stderr(&out));
    assert!(!caps.exists(), "a deleted file was written back");
    assert!(leftovers(dir.path()).is_empty());

    // The library's write step says why.
    let err = write_atomically(&caps, CAPS.as_bytes(), b"{}").unwrap_err();
    assert!(matches!(&err, WriteError::Io(e) if e.kind() == std::io::ErrorKind::NotFound), "{err}");
    assert!(!caps.exists());
}

#[test]
fn symlinks_are_never_written_through() {
    let outside = tempfile::tempdir().unwrap();
    let target = write(outside.path(), "caps.json", CAPS);
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    let link = dir.path().join("linked.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linked-dir")).unwrap();
    write(dir.path(), "own.json", CAPS);

    // Walked: links are not followed, so only the root's own file is fixed.
    let out =
        mcp_lint(dir.path()).args(["fix", "--allow-no-vcs", "--select", "roots-list-changed", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(std::fs::read_to_string(dir.path().join("own.json")).unwrap(), CAPS);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), CAPS);

    // Named: read like any named file, but not written through.
    let out = mcp_lint(dir.path()).args(["fix", "--allow-no-vcs", "linked.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("linked.json (a symbolic link)"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), CAPS);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link itself was replaced");
    assert!(leftovers(dir.path()).is_empty() && leftovers(outside.path()).is_empty());
}

#[test]
fn an_interrupted_write_leaves_the_original_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "caps.json", CAPS);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let fixed = CAPS.replace("{ \"listChanged\": true }", "{}");

    // An error between writing the temporary file and renaming it (a full disk, a signal).
    let mut seen_tmp = None;
    let err = write_with_hook(&path, CAPS.as_bytes(), fixed.as_bytes(), |tmp| {
        assert_eq!(std::fs::read_to_string(tmp).unwrap(), fixed, "the new text is complete before the rename");
        seen_tmp = Some(tmp.to_path_buf());
        Err(std::io::Error::other("disk full"))
    })
    .unwrap_err();
    assert!(matches!(err, WriteError::Io(_)));
    assert!(!seen_tmp.unwrap().exists());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CAPS);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o640);
    assert!(leftovers(dir.path()).is_empty());

    // A panic at the same point unwinds through the temporary file, which removes itself.
    let caught = std::panic::catch_unwind(|| {
        let _ = write_with_hook(&path, CAPS.as_bytes(), fixed.as_bytes(), |_| panic!("interrupted"));
    });
    assert!(caught.is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CAPS);
    assert!(leftovers(dir.path()).is_empty());

    // And an uninterrupted write is whole.
    write_atomically(&path, CAPS.as_bytes(), fixed.as_bytes()).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), fixed);
    assert!(leftovers(dir.path()).is_empty());
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

#[test]
fn permissions_owner_and_group_survive_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    let shared = write(dir.path(), "shared.json", CAPS);
    let script = write(dir.path(), "tool.json", CAPS);
    let owned_by_other = running_as_root();
    if owned_by_other {
        // The temporary file is created by root; the owner must be put back explicitly.
        std::os::unix::fs::chown(&shared, Some(4321), Some(4322)).unwrap();
        std::os::unix::fs::chown(&script, Some(4321), Some(4322)).unwrap();
    } else {
        eprintln!("not root: owner and group are checked to stay the current user's only");
    }
    // After the change of owner, which clears set-id bits.
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o2755)).unwrap();
    let before: Vec<(u32, u32, u32)> = [&shared, &script]
        .iter()
        .map(|p| std::fs::metadata(p).unwrap())
        .map(|m| (m.mode() & 0o7777, m.uid(), m.gid()))
        .collect();
    let out =
        mcp_lint(dir.path()).args(["fix", "--allow-no-vcs", "--select", "roots-list-changed", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after: Vec<(u32, u32, u32)> = [&shared, &script]
        .iter()
        .map(|p| std::fs::metadata(p).unwrap())
        .map(|m| (m.mode() & 0o7777, m.uid(), m.gid()))
        .collect();
    assert_eq!(after, before);
    if owned_by_other {
        assert_eq!(after[0], (0o640, 4321, 4322));
        assert_eq!(after[1], (0o2755, 4321, 4322), "the set-group-id bit survives the change of owner");
    }
    for p in [&shared, &script] {
        assert!(!std::fs::read_to_string(p).unwrap().contains("listChanged"));
    }
}

#[test]
fn a_file_whose_owner_cannot_be_kept_is_not_written() {
    // Only root can give a file away: a user who may write someone else's file in a shared folder
    // would otherwise silently take it over.
    let setpriv = Path::new("/usr/bin/setpriv");
    let as_nobody = || {
        let mut c = std::process::Command::new(setpriv);
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(assert_cmd::cargo::cargo_bin("mcp-lint"));
        c
    };
    // The build folder may not be open to other users (a checkout under /root).
    if !running_as_root() || !as_nobody().arg("--version").output().is_ok_and(|o| o.status.success()) {
        skip::skipped("needs root, /usr/bin/setpriv and a binary other users may run, to act as a second user");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "mcp-lint.toml", TARGETS_2026);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let path = write(dir.path(), "caps.json", CAPS);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = as_nobody()
        .args(["fix", "--allow-no-vcs", "caps.json"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("caps.json: cannot keep its owner and group"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CAPS);
    assert_eq!(std::fs::metadata(&path).unwrap().uid(), 0);
    assert!(leftovers(dir.path()).is_empty());
}
