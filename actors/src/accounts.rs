//! Accounts, passwords and sessions.
//!
//! Passwords are argon2id PHC strings ([`crate::passwords`]), hashed off the async executor and
//! outside writer actors.
//!
//! Sessions: a 32-byte random token (64 hex characters) lives only in the client's cookie; the
//! store keeps its SHA-256, so a copy of the database does not hold usable sessions.

use crate::command::SettingsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::txn::Txn;
use crate::values::{Email, Locale};
use crate::{Error, Result};
use sha2::{Digest, Sha256};
use storage::records::{Account, Role, Session};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp, tables};

/// A new session token: 32 random bytes as 64 lower-case hex characters, and its store key.
///
/// Errors: the system random source failed (reported as [`Error::WriterGone`] of "random").
pub fn new_session_token() -> Result<(String, [u8; 32])> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| Error::WriterGone("random source"))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let hash = token_hash(&token);
    Ok((token, hash))
}

/// The store key of a session token: its SHA-256.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The unique-index key of an email: trimmed and lower-cased.
pub fn email_key(email: &str) -> String {
    email.trim().to_lowercase()
}

/// The account registered under `email` (case-insensitive).
pub fn find_by_email(tx: &impl Tx, email: &str) -> Result<Option<Account>> {
    match repo::index_get(tx, tables::ACCOUNT_EMAILS, &email_key(email))? {
        Some(id) => Ok(repo::get(tx, id)?),
        None => Ok(None),
    }
}

/// The account of a live session: `None` when the token is unknown or expired at `now`, or its
/// account is disabled.
pub fn session_account(
    tx: &impl Tx,
    token_hash: [u8; 32],
    now: Timestamp,
) -> Result<Option<Account>> {
    match repo::session(tx, token_hash)? {
        Some(session) if session.expires_at > now => {
            let account: Option<Account> = repo::get(tx, session.account_id)?;
            Ok(account.filter(|a| !a.disabled))
        }
        _ => Ok(None),
    }
}

/// True once the first account exists (setup has run).
pub fn initialized(tx: &impl Tx) -> Result<bool> {
    Ok(!repo::is_empty(tx, tables::ACCOUNTS)?)
}

/// What a new account is made of (setup).
#[derive(Debug, Clone)]
pub struct NewAccount {
    /// Name shown in the UI.
    pub display_name: String,
    /// Login email.
    pub email: Email,
    /// argon2id PHC string of the password (see [`crate::passwords::hash_password`]).
    pub password_hash: String,
    /// Preferred locale.
    pub locale: Locale,
    /// What it may do; the first account is an owner whatever this says.
    pub role: Role,
}

/// Creates an account, enabled; the first one is an owner. Errors: [`Error::Duplicate`] on
/// `email` when taken.
pub fn create(txn: &Txn, input: &NewAccount, now: Timestamp) -> Result<Account> {
    let role = if initialized(txn)? {
        input.role
    } else {
        Role::Owner
    };
    let key = email_key(input.email.get());
    if repo::index_get(txn, tables::ACCOUNT_EMAILS, &key)?.is_some() {
        return Err(Error::Duplicate(crate::FieldError::new(
            "email",
            "errors.duplicate",
        )));
    }
    let account = Account {
        id: Id::new(),
        email: input.email.get().clone(),
        display_name: input.display_name.clone(),
        password_hash: input.password_hash.clone(),
        locale: input.locale.get().clone(),
        role,
        disabled: false,
        created_at: now,
        updated_at: now,
    };
    repo::put(txn, &account)?;
    repo::index_put(txn, tables::ACCOUNT_EMAILS, &key, account.id)?;
    Ok(account)
}

/// Opens a session for `account_id` under `token_hash`, valid for `ttl_seconds` from `now`, and
/// drops every expired session on the way (the table stays small without a sweeper thread).
pub fn open_session(
    txn: &Txn,
    account_id: Id,
    token_hash: [u8; 32],
    now: Timestamp,
    ttl_seconds: i64,
) -> Result<()> {
    repo::remove_sessions_where(txn, |s| s.expires_at <= now)?;
    let session = Session {
        account_id,
        created_at: now,
        expires_at: now.plus_seconds(ttl_seconds),
    };
    repo::put_session(txn, token_hash, &session)?;
    Ok(())
}

/// Ends the session stored under `token_hash` (logout). Ending an unknown session is not an error.
pub fn close_session(txn: &Txn, token_hash: [u8; 32]) -> Result<()> {
    repo::remove_session(txn, token_hash)?;
    Ok(())
}

/// A live session of an account, as Settings › Accounts lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionView {
    /// Its handle ([`repo::session_handle`]: names it without its token).
    pub handle: String,
    /// When it began (login or setup).
    pub created_at: Timestamp,
    /// When it ends.
    pub expires_at: Timestamp,
    /// Its token's hash (to tell the request's own session apart; never shown).
    pub token_hash: [u8; 32],
}

/// The live sessions of an account at `now`, oldest first. Errors: [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct ListSessions {
    /// The account.
    pub account_id: Id,
    /// Sessions that expire by then are left out.
    pub now: Timestamp,
}

impl Query for ListSessions {
    type Answer = Vec<SessionView>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<SessionView>> {
        repo::get::<Account>(snapshot, self.account_id)?.ok_or(Error::NotFound)?;
        Ok(repo::sessions_of(snapshot, self.account_id)?
            .into_iter()
            .filter(|(_, s)| s.expires_at > self.now)
            .map(|(hash, s)| SessionView {
                handle: repo::session_handle(hash),
                created_at: s.created_at,
                expires_at: s.expires_at,
                token_hash: hash,
            })
            .collect())
    }
}

/// Ends the session `handle` of an account (an owner signing out a lost phone); replies with
/// the ended session's token hash. Errors: [`Error::NotFound`] for an unknown account or
/// handle.
#[derive(Debug, Clone)]
pub struct EndSession {
    /// The account.
    pub account_id: Id,
    /// The session's handle.
    pub handle: String,
}

impl Command for EndSession {
    type Writer = SettingsWriter;
    type Reply = [u8; 32];

    fn apply(&mut self, txn: &Txn) -> Result<[u8; 32]> {
        let sessions = repo::sessions_of(txn, self.account_id)?;
        let (hash, _) = sessions
            .into_iter()
            .find(|(hash, _)| repo::session_handle(*hash) == self.handle)
            .ok_or(Error::NotFound)?;
        repo::remove_session(txn, hash)?;
        Ok(hash)
    }
}

/// Sets the account's preferred locale. Errors: [`Error::NotFound`].
pub fn set_locale(txn: &Txn, account_id: Id, locale: &Locale, now: Timestamp) -> Result<Account> {
    let mut account: Account = repo::get(txn, account_id)?.ok_or(Error::NotFound)?;
    account.locale = locale.get().clone();
    account.updated_at = now;
    repo::put(txn, &account)?;
    Ok(account)
}

/// Replaces the account's password hash and ends every session of the account except the one
/// under `keep` (the caller's own, on a password change; none on a reset).
/// Errors: [`Error::NotFound`].
pub fn set_password(
    txn: &Txn,
    account_id: Id,
    password_hash: &str,
    keep: Option<[u8; 32]>,
    now: Timestamp,
) -> Result<Account> {
    let mut account: Account = repo::get(txn, account_id)?.ok_or(Error::NotFound)?;
    account.password_hash = password_hash.to_string();
    account.updated_at = now;
    repo::put(txn, &account)?;
    let kept = keep.and_then(|hash| repo::session(txn, hash).ok().flatten());
    repo::remove_sessions_where(txn, |s| s.account_id == account_id)?;
    if let (Some(hash), Some(session)) = (keep, kept) {
        repo::put_session(txn, hash, &session)?;
    }
    Ok(account)
}

/// Opens a session (login); see [`open_session`].
#[derive(Debug, Clone, Copy)]
pub struct OpenSession {
    /// The account.
    pub account_id: Id,
    /// The store key of the session token ([`token_hash`]).
    pub token_hash: [u8; 32],
    /// Lifetime, seconds.
    pub ttl_seconds: i64,
}

impl Command for OpenSession {
    type Writer = SettingsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        open_session(
            txn,
            self.account_id,
            self.token_hash,
            Timestamp::now(),
            self.ttl_seconds,
        )
    }
}

/// Ends the session stored under a token hash (logout); an unknown one is not an error.
#[derive(Debug, Clone, Copy)]
pub struct CloseSession(pub [u8; 32]);

impl Command for CloseSession {
    type Writer = SettingsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        close_session(txn, self.0)
    }
}

/// Sets an account's preferred locale; replies with the account. Errors: [`Error::NotFound`].
#[derive(Debug, Clone)]
pub struct SetLocale {
    /// The account.
    pub account_id: Id,
    /// The locale.
    pub locale: Locale,
}

impl Command for SetLocale {
    type Writer = SettingsWriter;
    type Reply = Account;

    fn apply(&mut self, txn: &Txn) -> Result<Account> {
        set_locale(txn, self.account_id, &self.locale, Timestamp::now())
    }
}

/// Replaces an account's password hash and ends its other sessions; replies with the account.
/// Errors: [`Error::NotFound`].
#[derive(Debug, Clone)]
pub struct SetPassword {
    /// The account.
    pub account_id: Id,
    /// The new argon2id PHC string ([`crate::passwords::hash_password`]).
    pub password_hash: String,
    /// The session to keep (the caller's own), if any.
    pub keep: Option<[u8; 32]>,
}

impl Command for SetPassword {
    type Writer = SettingsWriter;
    type Reply = Account;

    fn apply(&mut self, txn: &Txn) -> Result<Account> {
        set_password(
            txn,
            self.account_id,
            &self.password_hash,
            self.keep,
            Timestamp::now(),
        )
    }
}

/// Replaces the password of the account with `email` and ends every session of it: the
/// `printcost reset-password` command, run on the box with the service stopped, for a forgotten
/// password. Replies with the account. Errors: [`Error::NotFound`] when no account has the email.
#[derive(Debug, Clone)]
pub struct ResetPassword {
    /// The account's email (compared case-insensitively).
    pub email: String,
    /// The new argon2id PHC string ([`crate::passwords::hash_password`]).
    pub password_hash: String,
}

impl Command for ResetPassword {
    type Writer = SettingsWriter;
    type Reply = Account;

    fn apply(&mut self, txn: &Txn) -> Result<Account> {
        let account = find_by_email(txn, &self.email)?.ok_or(Error::NotFound)?;
        set_password(txn, account.id, &self.password_hash, None, Timestamp::now())
    }
}

/// Adds an account (an owner's action): [`create`] with the role it is given.
/// Errors: [`Error::Duplicate`] on `email` when taken.
#[derive(Debug, Clone)]
pub struct CreateAccount(pub NewAccount);

impl Command for CreateAccount {
    type Writer = SettingsWriter;
    type Reply = Account;

    fn apply(&mut self, txn: &Txn) -> Result<Account> {
        create(txn, &self.0, Timestamp::now())
    }
}

/// What an owner changes of an account; each `None` stays as it is.
#[derive(Debug, Clone, Default)]
pub struct AccountChange {
    /// Name shown in the UI.
    pub display_name: Option<String>,
    /// What it may do.
    pub role: Option<Role>,
    /// Whether it can log in.
    pub disabled: Option<bool>,
}

/// Changes an account: its name, role or whether it is disabled (accounts are never deleted:
/// the record of who did what names them). Disabling ends its sessions.
/// Errors: [`Error::NotFound`]; [`Error::LastOwner`] when it would leave no enabled owner.
#[derive(Debug, Clone)]
pub struct ChangeAccount {
    /// The account.
    pub id: Id,
    /// The change.
    pub change: AccountChange,
}

impl Command for ChangeAccount {
    type Writer = SettingsWriter;
    type Reply = Account;

    fn apply(&mut self, txn: &Txn) -> Result<Account> {
        change(txn, self.id, &self.change, Timestamp::now())
    }
}

/// Whether `account` holds the shop's ownership: an owner, enabled.
fn owns(account: &Account) -> bool {
    account.role == Role::Owner && !account.disabled
}

/// See [`ChangeAccount`].
pub fn change(txn: &Txn, id: Id, change: &AccountChange, now: Timestamp) -> Result<Account> {
    let before: Account = repo::get(txn, id)?.ok_or(Error::NotFound)?;
    let mut account = before.clone();
    if let Some(name) = &change.display_name {
        account.display_name = name.clone();
    }
    if let Some(role) = change.role {
        account.role = role;
    }
    if let Some(disabled) = change.disabled {
        account.disabled = disabled;
    }
    if owns(&before) && !owns(&account) {
        let owners = repo::all::<Account>(txn)?
            .iter()
            .filter(|a| owns(a))
            .count();
        if owners <= 1 {
            return Err(Error::LastOwner);
        }
    }
    if account.disabled {
        repo::remove_sessions_where(txn, |s| s.account_id == id)?;
    }
    if account != before {
        account.updated_at = now;
        repo::put(txn, &account)?;
    }
    Ok(account)
}

/// Every account, oldest first.
#[derive(Debug, Clone, Copy)]
pub struct ListAccounts;

impl Query for ListAccounts {
    type Answer = Vec<Account>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<Account>> {
        let mut accounts = repo::all::<Account>(snapshot)?;
        accounts.sort_by_key(|a| (a.created_at, a.id));
        Ok(accounts)
    }
}

/// The live session stored under a token hash and its account, if any (none once expired).
#[derive(Debug, Clone, Copy)]
pub struct LiveSession {
    /// The store key of the session token ([`token_hash`]).
    pub token_hash: [u8; 32],
    /// The time to judge expiry at.
    pub now: Timestamp,
}

impl Query for LiveSession {
    type Answer = Option<(Session, Account)>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Option<(Session, Account)>> {
        let session = repo::session(snapshot, self.token_hash)?;
        let account = session_account(snapshot, self.token_hash, self.now)?;
        Ok(session.zip(account))
    }
}

/// The account registered under an email (case-insensitive), if any.
#[derive(Debug, Clone)]
pub struct FindByEmail(pub String);

impl Query for FindByEmail {
    type Answer = Option<Account>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Option<Account>> {
        find_by_email(snapshot, &self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hashed() {
        let (a, ha) = new_session_token().unwrap();
        let (b, hb) = new_session_token().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert_ne!(ha, hb);
        assert_eq!(token_hash(&a), ha);
    }
}
