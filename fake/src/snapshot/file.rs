//! Snapshot files: read with the file's name in every error, written atomically.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Snapshot, SnapshotError};

/// Reads and checks the snapshot in the file at `path`.
pub(super) fn read(path: &Path) -> Result<Snapshot, SnapshotError> {
    let text = fs::read_to_string(path).map_err(|error| SnapshotError {
        file: Some(path.to_owned()),
        line: 0,
        column: 0,
        message: format!("cannot be read: {error}"),
    })?;
    super::read::check(&text).map_err(|error| SnapshotError { file: Some(path.to_owned()), ..error })
}

/// The temporary file a write of `path` goes through: beside it, so that the rename stays on one
/// file system. A write cut short leaves it behind; the next write replaces it.
pub(crate) fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|name| name.to_os_string()).unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes `bytes` to `path` so that a crash at any moment leaves the old file or the new one: to a
/// temporary file, flushed to the disk, renamed over `path`, and the folder flushed so that the
/// rename itself survives a power loss.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temporary = temporary_path(path);
    let mut file = File::create(&temporary)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temporary, path)?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    File::open(folder)?.sync_all()
}
