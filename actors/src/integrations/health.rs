//! Whether each peer answers: the outcome of every call, kept per peer for the
//! `INTEGRATION_FAILING` alert ([`crate::alerts`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use storage::Timestamp;

/// One peer's record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Health {
    /// The last call that got an answer.
    pub last_answer: Option<Timestamp>,
    /// The first call without an answer since the last that had one; `None` while it answers.
    pub failing_since: Option<Timestamp>,
}

/// The peers' records, by peer name (`spoolmgr`, `printfleet`). Cheap to clone; one per
/// application.
#[derive(Debug, Clone, Default)]
pub struct PeerHealth(Arc<Mutex<BTreeMap<&'static str, Health>>>);

impl PeerHealth {
    /// Records a call to `peer` at `at`: `answered` when the peer answered at all (a refused
    /// credential or a broken contract is an answer; a timeout, a 5xx or no connection is not).
    pub fn record(&self, peer: &'static str, answered: bool, at: Timestamp) {
        let mut peers = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let health = peers.entry(peer).or_default();
        if answered {
            *health = Health {
                last_answer: Some(at),
                failing_since: None,
            };
        } else if health.failing_since.is_none() {
            health.failing_since = Some(at);
        }
    }

    /// What is known of `peer` (nothing before its first call).
    pub fn of(&self, peer: &str) -> Health {
        let peers = self.0.lock().unwrap_or_else(|p| p.into_inner());
        peers.get(peer).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_starts_at_the_first_unanswered_call_and_ends_with_an_answer() {
        let health = PeerHealth::default();
        assert_eq!(health.of("spoolmgr"), Health::default());
        health.record("spoolmgr", false, Timestamp(10));
        health.record("spoolmgr", false, Timestamp(20));
        assert_eq!(health.of("spoolmgr").failing_since, Some(Timestamp(10)));
        assert_eq!(health.of("printfleet"), Health::default());
        health.record("spoolmgr", true, Timestamp(30));
        assert_eq!(
            health.of("spoolmgr"),
            Health {
                last_answer: Some(Timestamp(30)),
                failing_since: None
            }
        );
    }
}
