//! The files the store writes, behind one small interface: the data file (as redb's `StorageBackend`) and its
//! write-ahead log, plus the few directory operations the log needs. `OsFs` is the real one. Tests put their
//! own in `Options::fs`: one that fails a chosen operation on command (fault injection), one that records every
//! write, truncate and sync so that every state a power loss could leave can be rebuilt (tests/crash.rs).
use std::fmt::Debug;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

pub use redb::{BackendError, StorageBackend};

/// An open log file: positioned writes, truncation and a data sync.
pub trait LogFile: Send + Debug {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()>;
    fn set_len(&mut self, len: u64) -> io::Result<()>;
    fn sync(&mut self) -> io::Result<()>;
}

/// The file operations of a store. Each is the operating system's unless overridden (a test's layer changes only
/// what it fails, slows or records).
pub trait Fs: Send + Sync + Debug + 'static {
    /// The data file at `path` (created empty when missing) as redb's storage, locked against other processes.
    fn data(&self, path: &Path) -> io::Result<Box<dyn StorageBackend>> {
        OsFs.data(path)
    }
    /// The data file at `path` opened once more, for advice to the kernel only (the write-behind's paced pages are
    /// sent on towards the disk as they are written: `behind.rs`, `Pace`). None where there is no such file.
    fn advice(&self, path: &Path) -> Option<File> {
        OsFs.advice(path)
    }
    /// The log at `path`, created or emptied.
    fn create_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        OsFs.create_log(path)
    }
    /// The existing log at `path` as it is, to be written over (a log file reused: its blocks are already
    /// allocated, so a sync after a write in it need not write the file's size and extents too). A layer that
    /// does not override it gets `create_log`'s emptied file: correct, only without the saving.
    fn reuse_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        self.create_log(path)
    }
    /// A whole file, or None when there is none.
    fn read(&self, path: &Path) -> io::Result<Option<Vec<u8>>> {
        OsFs.read(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        OsFs.rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        OsFs.remove(path)
    }
    /// Makes the directory holding `path` durable (a created, renamed or removed name in it).
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        OsFs.sync_dir(path)
    }
    /// Bytes free for this user on the file system holding `dir` (None where it cannot be told).
    fn free_space(&self, dir: &Path) -> Option<u64> {
        crate::backup::free_space(dir)
    }
}

/// The directory a path's file lives in (`.` for a bare file name).
pub fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The operating system's files.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsFs;

#[derive(Debug)]
struct OsLog(File);

impl LogFile for OsLog {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.0.write_all_at(data, offset)
    }
    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.0.sync_data()
    }
}

impl Fs for OsFs {
    fn data(&self, path: &Path) -> io::Result<Box<dyn StorageBackend>> {
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)?;
        let backend = redb::backends::FileBackend::new(file).map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => io::Error::new(io::ErrorKind::WouldBlock, "locked"),
            other => io::Error::other(other.to_string()),
        })?;
        Ok(Box::new(backend))
    }
    fn advice(&self, path: &Path) -> Option<File> {
        File::open(path).ok()
    }
    fn create_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        let f = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path)?;
        Ok(Box::new(OsLog(f)))
    }
    fn reuse_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        let f = OpenOptions::new().read(true).write(true).open(path)?;
        Ok(Box::new(OsLog(f)))
    }
    fn read(&self, path: &Path) -> io::Result<Option<Vec<u8>>> {
        match std::fs::read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        File::open(dir_of(path))?.sync_all()
    }
}
