//! Accounts and their sessions.

use crate::{Id, Timestamp};
use serde::{Deserialize, Serialize};

/// A person who can log in. The email is unique (case-insensitive, see `ACCOUNT_EMAILS`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// Record id.
    pub id: Id,
    /// Login email as entered (trimmed); uniqueness uses its lower-case form.
    pub email: String,
    /// Name shown in the UI.
    pub display_name: String,
    /// Argon2id PHC string (`$argon2id$v=19$...`), never the password.
    pub password_hash: String,
    /// Preferred locale (`en-US` or `de-DE`).
    pub locale: String,
    /// When the account was created.
    pub created_at: Timestamp,
    /// Last change of the account.
    pub updated_at: Timestamp,
}

/// A login session. Stored under the SHA-256 of its random token; the token itself only ever
/// lives in the client's cookie.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The account it belongs to.
    pub account_id: Id,
    /// When it was created (login or setup).
    pub created_at: Timestamp,
    /// When it stops being valid.
    pub expires_at: Timestamp,
}
