//! How a peer (Spoolman, Bambuddy) stands, in the words its pages show: connected, with its
//! version and address; or not reached, with the address, the cause and the next step. The
//! causes are [`PeerError`]'s: no connection made (refused, no route, no such host), no usable
//! answer in time (a timeout, a redirect, a 5xx), the credential refused (401/403), an answer
//! outside the peer's contract; and no address set.

use super::i18n::Tr;
use actors::integrations::peer::PeerError;

/// What a status call found.
#[derive(Debug, Clone, Copy)]
pub enum Found<'a> {
    /// It answered with its version.
    Answered(&'a str),
    /// It did not answer usably.
    Failed(&'a PeerError),
    /// No address (or no credential it needs) is set.
    NotConfigured,
}

impl<'a> Found<'a> {
    /// What a status found: its version if it answered, else its failure, else neither (not
    /// configured).
    pub fn of(version: Option<&'a String>, failure: Option<&'a PeerError>) -> Found<'a> {
        match (version, failure) {
            (Some(version), _) => Found::Answered(version),
            (None, Some(failure)) => Found::Failed(failure),
            (None, None) => Found::NotConfigured,
        }
    }
}

/// A peer's state, worded.
#[derive(Debug, Clone)]
pub struct PeerState {
    /// The integration's key (`spoolmgr`, `printfleet`), for the element's id.
    pub key: &'static str,
    /// Whether it answered.
    pub ok: bool,
    /// "Connected to Spoolman 0.22.1 at http://…", or "Spoolman at http://… could not be
    /// reached."
    pub headline: String,
    /// Why not; empty when it answered.
    pub cause: String,
    /// What to do next; empty when it answered.
    pub next: String,
}

impl PeerState {
    /// The state of peer `name` (integration `key`) at `url` as `found`, in `t`'s language.
    pub fn of(t: &Tr, key: &'static str, name: &str, url: &str, found: Found<'_>) -> PeerState {
        let fill = |message_key: &str, version: &str| {
            let values = [("peer", name), ("url", url), ("version", version)];
            t.lang.fill(message_key, &values)
        };
        let (cause, next) = match found {
            Found::Answered(version) => {
                return PeerState {
                    key,
                    ok: true,
                    headline: fill("peer.connected", version),
                    cause: String::new(),
                    next: String::new(),
                };
            }
            Found::NotConfigured => {
                return PeerState {
                    key,
                    ok: false,
                    headline: fill("peer.notConfigured", ""),
                    cause: fill("peer.cause.NOT_CONFIGURED", ""),
                    next: fill("peer.next.NOT_CONFIGURED", ""),
                };
            }
            Found::Failed(PeerError::Unreachable) => ("UNREACHABLE", "UNREACHABLE"),
            Found::Failed(PeerError::Unavailable) => ("UNAVAILABLE", "UNAVAILABLE"),
            Found::Failed(PeerError::Refused) => ("REFUSED", "REFUSED"),
            Found::Failed(PeerError::Contract) => ("CONTRACT", "CONTRACT"),
        };
        PeerState {
            key,
            ok: false,
            headline: fill("peer.failed", ""),
            cause: fill(&format!("peer.cause.{cause}"), ""),
            next: fill(&format!("peer.next.{next}"), ""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::i18n::Lang;
    use jiff::tz::TimeZone;

    #[test]
    fn each_cause_is_worded_with_the_address_and_a_next_step() {
        let de = Tr::new(Lang::DeDe, "EUR", TimeZone::UTC);
        let url = "http://spoolman.lan:7912";
        let failures = [
            PeerError::Unreachable,
            PeerError::Unavailable,
            PeerError::Refused,
            PeerError::Contract,
        ];
        let mut causes = Vec::new();
        for failure in &failures {
            let state = PeerState::of(&de, "spoolmgr", "Spoolman", url, Found::Failed(failure));
            assert!(!state.ok);
            assert!(state.headline.contains(url), "{}", state.headline);
            assert!(!state.cause.starts_with("peer."), "{}", state.cause);
            assert!(!state.next.starts_with("peer."), "{}", state.next);
            causes.push(state.cause);
        }
        causes.dedup();
        assert_eq!(causes.len(), failures.len(), "each cause its own words");
        let ok = PeerState::of(&de, "spoolmgr", "Spoolman", url, Found::Answered("0.22.1"));
        assert!(ok.ok && ok.headline.contains("0.22.1") && ok.headline.contains(url));
    }
}
