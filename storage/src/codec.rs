//! bincode 1.3.3 encoding of record values.

use crate::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Encodes a record for table `table` (the name is only used in the error).
///
/// Errors: [`Error::Codec`] when serde refuses the value (a bug, e.g. an untagged enum).
pub fn encode<T: Serialize>(table: &'static str, value: &T) -> Result<Vec<u8>> {
    bincode::serialize(value).map_err(|e| Error::Codec {
        table,
        message: e.to_string(),
    })
}

/// Decodes a record of table `table`.
///
/// Errors: [`Error::Codec`] when the bytes are not a record of this layout (corruption, or a
/// migration that was not run).
pub fn decode<T: DeserializeOwned>(table: &'static str, bytes: &[u8]) -> Result<T> {
    bincode::deserialize(bytes).map_err(|e| Error::Codec {
        table,
        message: e.to_string(),
    })
}
