//! Throttling of failed logins, in memory.
//!
//! Each failed login counts against two keys: the email (lower-case) and the client address.
//! After [`FREE_FAILURES`] failures of an email (four times as many for an address, which may be
//! a shared NAT) within [`WINDOW`], the key is blocked for 30 s, doubling with every further
//! failure up to 15 minutes. A successful login clears the email's count. Blocked logins are
//! refused before the password is checked (429 `RATE_LIMITED` with `Retry-After`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures of one email allowed within [`WINDOW`] before blocking.
pub const FREE_FAILURES: u32 = 5;
/// How long failures are remembered.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
const FIRST_BLOCK: Duration = Duration::from_secs(30);
const LONGEST_BLOCK: Duration = Duration::from_secs(15 * 60);
const MAX_KEYS: usize = 10_000;

struct Entry {
    failures: u32,
    first_failure: Instant,
    blocked_until: Option<Instant>,
}

/// The throttle. Shared by all workers.
#[derive(Default)]
pub struct LoginThrottle {
    entries: Mutex<HashMap<String, Entry>>,
}

/// The keys of one login attempt and their limits.
fn keys(email: &str, address: &str) -> [(String, u32); 2] {
    [
        (
            format!("email:{}", email.trim().to_lowercase()),
            FREE_FAILURES,
        ),
        (format!("address:{address}"), FREE_FAILURES * 4),
    ]
}

impl LoginThrottle {
    /// `Err(seconds)` when a login for `email` from `address` must wait that long.
    pub fn check(&self, email: &str, address: &str) -> Result<(), u64> {
        let now = Instant::now();
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let wait = keys(email, address)
            .iter()
            .filter_map(|(key, _)| entries.get(key)?.blocked_until)
            .filter(|until| *until > now)
            .map(|until| until.duration_since(now).as_secs().max(1))
            .max();
        match wait {
            Some(seconds) => Err(seconds),
            None => Ok(()),
        }
    }

    /// Records a failed login.
    pub fn failed(&self, email: &str, address: &str) {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= MAX_KEYS {
            entries.retain(|_, e| {
                now.duration_since(e.first_failure) < WINDOW
                    || e.blocked_until.is_some_and(|u| u > now)
            });
        }
        for (key, limit) in keys(email, address) {
            let entry = entries.entry(key).or_insert(Entry {
                failures: 0,
                first_failure: now,
                blocked_until: None,
            });
            if now.duration_since(entry.first_failure) >= WINDOW
                && entry.blocked_until.is_none_or(|u| u <= now)
            {
                entry.failures = 0;
                entry.first_failure = now;
            }
            entry.failures += 1;
            if entry.failures >= limit {
                let doublings = (entry.failures - limit).min(5);
                let block = (FIRST_BLOCK * 2u32.pow(doublings)).min(LONGEST_BLOCK);
                entry.blocked_until = Some(now + block);
            }
        }
    }

    /// Records a successful login: the email's failures are forgiven.
    pub fn succeeded(&self, email: &str, address: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let [(email_key, _), _] = keys(email, address);
        entries.remove(&email_key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_failures_block_the_email_but_not_others() {
        let throttle = LoginThrottle::default();
        for _ in 0..FREE_FAILURES - 1 {
            throttle.failed("a@example.com", "10.0.0.1");
            assert!(throttle.check("a@example.com", "10.0.0.1").is_ok());
        }
        throttle.failed("A@example.com ", "10.0.0.1");
        let wait = throttle.check("a@example.com", "10.0.0.2").unwrap_err();
        assert!((1..=30).contains(&wait));
        assert!(throttle.check("b@example.com", "10.0.0.1").is_ok());
    }

    #[test]
    fn success_forgives() {
        let throttle = LoginThrottle::default();
        for _ in 0..FREE_FAILURES - 1 {
            throttle.failed("a@example.com", "10.0.0.1");
        }
        throttle.succeeded("a@example.com", "10.0.0.1");
        throttle.failed("a@example.com", "10.0.0.1");
        assert!(throttle.check("a@example.com", "10.0.0.1").is_ok());
    }
}
