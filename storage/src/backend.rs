//! A storage backend shared between redb and the health probe.

use redb::{BackendError, StorageBackend};
use std::io;
use std::ops::Bound;
use std::sync::Arc;

/// Wraps any redb [`StorageBackend`] so that the store can also read it directly.
///
/// redb caches pages, so a read transaction may succeed from memory while the disk underneath is
/// gone. The health check therefore reads the file header through this handle, bypassing the
/// cache; every other call is delegated unchanged.
#[derive(Debug, Clone)]
pub struct SharedBackend(Arc<dyn StorageBackend>);

impl SharedBackend {
    /// Shares `backend`.
    pub fn new(backend: impl StorageBackend) -> Self {
        SharedBackend(Arc::new(backend))
    }

    /// Reads the first bytes of the file (redb's super-header) straight from the backend.
    ///
    /// Errors: whatever the backend reports; an empty file counts as unreadable.
    pub fn probe(&self) -> io::Result<()> {
        let len = self.0.len()?;
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "empty database file",
            ));
        }
        let mut header = vec![0u8; len.min(512) as usize];
        self.0.read(0, &mut header)
    }
}

impl StorageBackend for SharedBackend {
    fn len(&self) -> io::Result<u64> {
        self.0.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.0.read(offset, out)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.0.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.0.write(offset, data)
    }

    fn close(&self) -> io::Result<()> {
        self.0.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.0.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.0.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.0.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.0.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.0.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.0.query_lock_range(start, end)
    }
}
