//! The cache of recently resolved sessions.

use storage::Timestamp;
use storage::records::Account;

/// Recently resolved sessions, so that an authenticated request needs no store read.
///
/// An entry lives [`SessionCache::TTL`] and never past its session's expiry. Logout removes the
/// session's entry; a password or preference change clears the cache (those change the account
/// or end other sessions). `printcost reset-password` runs with the service stopped.
#[derive(Default)]
pub struct SessionCache {
    entries: std::sync::Mutex<
        std::collections::HashMap<[u8; 32], (Account, Timestamp, std::time::Instant)>,
    >,
}

impl SessionCache {
    /// How long a resolved session is trusted without reading the store.
    pub const TTL: std::time::Duration = std::time::Duration::from_secs(30);
    const MAX_ENTRIES: usize = 1024;

    /// The cached account of session `token_hash`, unless it expired at `now` or was cached
    /// longer than [`SessionCache::TTL`] ago.
    pub fn get(&self, token_hash: &[u8; 32], now: Timestamp) -> Option<Account> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let (account, expires_at, cached_at) = entries.get(token_hash)?;
        (*expires_at > now && cached_at.elapsed() < Self::TTL).then(|| account.clone())
    }

    /// Caches `account` for session `token_hash`, which expires at `expires_at`.
    pub fn put(&self, token_hash: [u8; 32], account: Account, expires_at: Timestamp) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= Self::MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(token_hash, (account, expires_at, std::time::Instant::now()));
    }

    /// Forgets one session (logout).
    pub fn remove(&self, token_hash: &[u8; 32]) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(token_hash);
    }

    /// Forgets every session (an account changed).
    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}
