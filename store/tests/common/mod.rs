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
pub(crate) use delegate_locks;
