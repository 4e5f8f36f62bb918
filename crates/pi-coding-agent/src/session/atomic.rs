//! Replacing a file without ever leaving it half written: the new content
//! goes to a temporary file in the same directory, is flushed to disk, and
//! is renamed over the old file; then the directory is flushed too.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` by `content` atomically: a reader sees the old file or
/// the new one, never a mix, even if the process dies midway (the
/// temporary file is then removed or left beside it, the file untouched).
pub(crate) fn replace_file(path: &Path, content: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".pi-session-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(content)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Keep the file's permissions (the temporary file is private).
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    // The rename itself is durable only once the directory is.
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_content_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "old\n").unwrap();
        replace_file(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("s.jsonl")]);
    }
}
