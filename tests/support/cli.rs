//! Running the built `mcp-lint` as users do, in folders the tests write: written once for the tests
//! that need nothing more.

#![allow(dead_code)] // each includer uses a part

use std::path::Path;

use assert_cmd::Command;

/// The binary, with colour off so outputs compare as text.
pub fn mcp_lint() -> Command {
    let mut cmd = Command::cargo_bin("mcp-lint").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

/// Writes `text` to `dir/name`, making the folders on the way.
pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
