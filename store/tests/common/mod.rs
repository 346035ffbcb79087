//! Shared by the store's tests that wrap the data file's backend.

/// The file-lock methods of a `StorageBackend` that wraps another in its field `$inner`: all go to it.
macro_rules! delegate_locks {
    ($inner:ident) => {
        fn try_lock_range(&self, s: std::ops::Bound<u64>, e: std::ops::Bound<u64>) -> Result<bool, store::fs::BackendError> {
            self.$inner.try_lock_range(s, e)
        }
        fn try_lock_shared_range(&self, s: std::ops::Bound<u64>, e: std::ops::Bound<u64>) -> Result<bool, store::fs::BackendError> {
            self.$inner.try_lock_shared_range(s, e)
        }
        fn lock_range(&self, s: std::ops::Bound<u64>, e: std::ops::Bound<u64>) -> Result<(), store::fs::BackendError> {
            self.$inner.lock_range(s, e)
        }
        fn lock_shared_range(&self, s: std::ops::Bound<u64>, e: std::ops::Bound<u64>) -> Result<(), store::fs::BackendError> {
            self.$inner.lock_shared_range(s, e)
        }
        fn unlock_range(&self, s: std::ops::Bound<u64>, e: std::ops::Bound<u64>) -> Result<(), store::fs::BackendError> {
            self.$inner.unlock_range(s, e)
        }
        fn query_lock_range(&self, s: std::ops::Bound<u64>, e: std::ops::Bound<u64>) -> Result<bool, store::fs::BackendError> {
            self.$inner.query_lock_range(s, e)
        }
    };
}
#[allow(unused_imports)]
pub(crate) use delegate_locks;

/// The data file with a hook run before each read and each sync (a disk that is slow to read, one that holds a
/// checkpoint's pages): everything else goes to the file.
#[allow(dead_code)]
pub(crate) struct Hooked {
    pub(crate) inner: Box<dyn store::fs::StorageBackend>,
    pub(crate) before_read: std::sync::Arc<dyn Fn() + Send + Sync>,
    pub(crate) before_sync: std::sync::Arc<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for Hooked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooked").finish_non_exhaustive()
    }
}

impl store::fs::StorageBackend for Hooked {
    fn len(&self) -> std::io::Result<u64> {
        self.inner.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        (self.before_read)();
        self.inner.read(offset, out)
    }
    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.inner.set_len(len)
    }
    fn sync_data(&self) -> std::io::Result<()> {
        (self.before_sync)();
        self.inner.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.inner.write(offset, data)
    }
    fn close(&self) -> std::io::Result<()> {
        self.inner.close()
    }
    delegate_locks!(inner);
}
