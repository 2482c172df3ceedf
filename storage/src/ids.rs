//! Record ids and timestamps as stored.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

/// A record id: a UUID v7 (time-ordered), stored as a 16-byte key so that key order is creation
/// order. On the wire it is the hyphenated lower-case UUID text. Its serde form is the 16 bytes
/// for a binary format (bincode: the stored records) and the UUID text for a human-readable one
/// (JSON: the journal).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id([u8; 16]);

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.collect_str(self)
        } else {
            s.serialize_newtype_struct("Id", &self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "Id")]
        struct Bytes([u8; 16]);
        if d.is_human_readable() {
            let text = String::deserialize(d)?;
            text.parse().map_err(serde::de::Error::custom)
        } else {
            Bytes::deserialize(d).map(|b| Id(b.0))
        }
    }
}

impl Id {
    /// A new time-ordered id (UUID v7).
    pub fn new() -> Self {
        Id(*uuid::Uuid::now_v7().as_bytes())
    }

    /// The 16 key bytes.
    pub fn bytes(&self) -> [u8; 16] {
        self.0
    }

    /// An id from its 16 key bytes.
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Id(bytes)
    }
}

impl Default for Id {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        uuid::Uuid::from_bytes(self.0).hyphenated().fmt(f)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Parse error of an id: the text is not a UUID.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("not a valid id (expected a UUID)")]
pub struct InvalidId;

impl FromStr for Id {
    type Err = InvalidId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        uuid::Uuid::parse_str(s)
            .map(|u| Id(*u.as_bytes()))
            .map_err(|_| InvalidId)
    }
}

/// A point in time: whole seconds since the Unix epoch, UTC. Rendered as ISO 8601 by the web crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The current time, truncated to whole seconds.
    pub fn now() -> Self {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        Timestamp(secs)
    }

    /// This time plus `seconds`.
    pub fn plus_seconds(self, seconds: i64) -> Self {
        Timestamp(self.0.saturating_add(seconds))
    }
}
