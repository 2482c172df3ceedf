//! Accounts and their sessions.

use crate::{Id, Timestamp};
use serde::{Deserialize, Serialize};

/// What an account may do, each role all that the one below it may (issue 48): a viewer reads;
/// staff run the shop (inventory, prints, outcomes, spools, maintenance, quotes, issuing
/// invoices); an owner also manages accounts, settings, integrations, backups, pricing and
/// invoices. Ordered: `Viewer < Staff < Owner`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Reads.
    Viewer,
    /// Runs the shop.
    Staff,
    /// Manages it.
    Owner,
}

/// A person who can log in. The email is unique (case-insensitive, see `ACCOUNT_EMAILS`).
/// Accounts are never deleted (the record of who did what names them): they are disabled.
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
    /// What it may do (the first account is an owner).
    pub role: Role,
    /// A disabled account cannot log in and has no session.
    pub disabled: bool,
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
