//! Output files whole or absent: every file lockcheck writes (traces, reports, JSON, shard
//! files) goes through [`write_with`].
//!
//! The idea: a file written straight to its target is left half written when the disk
//! fills or the process dies, and a reader then meets a truncated trace or an empty page.
//! So the bytes go to a temporary file beside the target (same folder, so same file
//! system), are flushed to the disk, and the temporary file is renamed over the target,
//! which is atomic: the target is the old file or the whole new one. On any failure the
//! temporary file is removed. A target that exists and is not a regular file (`/dev/null`,
//! `/dev/full`, a pipe) is written in place: renaming over it would replace the device; a
//! symbolic link is followed, and the file it names replaced.
//!
//! Errors name the real cause: a folder on the way that is a file is "not a directory"
//! (not the "file exists" of `create_dir_all`), a full disk "no space left on device".

use std::fs::OpenOptions;
use std::io::{BufWriter, Error, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` whole or not at all (see the module doc).
pub fn write_whole(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    write_with(path, |out| out.write_all(bytes.as_ref()))
}

/// Writes what `fill` writes to `path`, whole or not at all (see the module doc).
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() && !meta.is_dir() {
            let mut out = BufWriter::new(OpenOptions::new().write(true).open(path)?);
            fill(&mut out)?;
            return out.flush();
        }
    }
    // A link is followed: the file it names is replaced, the link stays.
    let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let resolved = match linked {
        true => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        false => path.to_path_buf(),
    };
    let path = resolved.as_path();
    let temporary = temporary_beside(path)?;
    let written = (|| {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        let mut out = BufWriter::new(file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Creates `dir` and its missing parents; a file in the way is named as such.
pub fn create_dirs(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| not_a_directory(dir).unwrap_or(e))
}

/// The first of `path` and its ancestors that exists and is not a folder, as an error.
fn not_a_directory(path: &Path) -> Option<Error> {
    let blocking = path.ancestors().find(|a| a.exists() && !a.is_dir())?;
    Some(Error::new(
        ErrorKind::NotADirectory,
        format!("{} is not a directory", blocking.display()),
    ))
}

/// A fresh name beside `path`: `.NAME.PID.N.tmp` in the same folder.
fn temporary_beside(path: &Path) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let dir = path.parent().unwrap_or(Path::new(""));
    if !dir.as_os_str().is_empty() && !dir.is_dir() {
        return Err(not_a_directory(dir).unwrap_or_else(|| {
            Error::new(ErrorKind::NotFound, format!("no folder {}", dir.display()))
        }));
    }
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut temporary = std::ffi::OsString::from(".");
    temporary.push(name);
    temporary.push(format!(".{}.{n}.tmp", std::process::id()));
    Ok(dir.join(temporary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lockcheck-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_write_replaces_the_target_whole_and_leaves_nothing_else() {
        let dir = scratch("whole");
        let target = dir.join("out.json");
        std::fs::write(&target, "old").unwrap();
        write_whole(&target, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(entries(&dir), ["out.json"]);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_one() {
        let dir = scratch("failed");
        let target = dir.join("out.json");
        std::fs::write(&target, "old").unwrap();
        let failed = write_with(&target, |out| {
            out.write_all(b"half")?;
            Err(Error::other("the disk is full"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "the disk is full");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(entries(&dir), ["out.json"]);
    }

    #[test]
    fn a_file_on_the_way_is_named_not_a_directory() {
        let dir = scratch("file-on-the-way");
        let file = dir.join("plain");
        std::fs::write(&file, "x").unwrap();
        let e = write_whole(&file.join("x.json"), "y").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{} is not a directory", file.display())
        );
        let e = create_dirs(&file.join("sub")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{} is not a directory", file.display())
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_and_stays_a_link() {
        let dir = scratch("link");
        std::fs::write(dir.join("real.json"), "old").unwrap();
        std::os::unix::fs::symlink(dir.join("real.json"), dir.join("link.json")).unwrap();
        write_whole(&dir.join("link.json"), "new").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("real.json")).unwrap(),
            "new"
        );
        let link = std::fs::symlink_metadata(dir.join("link.json")).unwrap();
        assert!(link.file_type().is_symlink());
        assert_eq!(entries(&dir), ["link.json", "real.json"]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_device_says_so_and_is_not_replaced() {
        let e = write_whole(Path::new("/dev/full"), "x").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::StorageFull, "{e}");
        assert!(!std::fs::metadata("/dev/full").unwrap().is_file());
    }
}
