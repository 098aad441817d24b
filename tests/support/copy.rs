//! Copying fixture folders to a temporary folder, as tests that write or build them need.

use std::path::Path;

/// Copies the folder `from` to `to`, leaving out any `target/` (a fixture's build output).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                copy_dir(&path, &dest);
            }
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}
