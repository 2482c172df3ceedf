//! `/api/accounts`: the shop's accounts and their roles (Settings › Accounts), an owner's to
//! manage. Accounts are never deleted: the record of who did what names them; they are
//! disabled.

use super::auth::{RoleName, hash};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{PathId, StrictJson};
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::ts;
use actix_web::web::{Data, Json};
use actix_web::{HttpRequest, HttpResponse, delete, get, patch, post};
use actors::accounts::{
    AccountChange, ChangeAccount, CreateAccount, EndSession, ListAccounts, ListSessions,
    NewAccount, SessionView,
};
use actors::values::{Email, Locale, Name, Password};
use deserr::Deserr;
use serde::Serialize;
use storage::{Id, Timestamp, records};
use utoipa::ToSchema;

/// Registers the accounts' routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(list)
        .add(create)
        .add(change)
        .add(sessions)
        .add(end_session);
}

/// An account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// Id (UUID).
    pub id: String,
    /// Login email.
    pub email: String,
    /// Name shown in the UI.
    pub display_name: String,
    /// Preferred locale.
    pub locale: String,
    /// What it may do.
    pub role: RoleName,
    /// A disabled account cannot log in.
    pub disabled: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

impl From<records::Account> for Account {
    fn from(a: records::Account) -> Self {
        Account {
            id: a.id.to_string(),
            email: a.email,
            display_name: a.display_name,
            locale: a.locale,
            role: a.role.into(),
            disabled: a.disabled,
            created_at: ts(a.created_at),
            updated_at: ts(a.updated_at),
        }
    }
}

/// A new account.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct AccountInput {
    /// Name shown in the UI.
    #[schema(example = "Grace")]
    pub display_name: Name,
    /// Login email (unique, case-insensitive).
    #[schema(example = "grace@example.com")]
    pub email: Email,
    /// At least 12 characters; the person changes it on Settings.
    #[schema(min_length = 12)]
    pub password: Password,
    /// `en-US` or `de-DE`.
    #[schema(example = "de-DE")]
    pub locale: Locale,
    /// What it may do.
    pub role: RoleName,
}

/// A change to an account; each field left out stays as it is.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct AccountPatch {
    /// Name shown in the UI.
    #[deserr(default)]
    pub display_name: Option<Name>,
    /// What it may do.
    #[deserr(default)]
    pub role: Option<RoleName>,
    /// Whether it can log in (disabling ends its sessions).
    #[deserr(default)]
    pub disabled: Option<bool>,
}

/// Adds the account `input` describes (its password hashed off the executor), for the API and
/// Settings › Accounts. Errors: 409 `DUPLICATE` on `email`; storage errors.
pub async fn add(state: &AppState, input: AccountInput) -> Result<records::Account, ApiError> {
    let account = NewAccount {
        display_name: input.display_name.into_inner(),
        email: input.email,
        password_hash: hash(input.password).await?,
        locale: input.locale,
        role: input.role.into(),
    };
    state.send(CreateAccount(account)).await
}

/// Applies `patch` to account `id`, for the API and Settings › Accounts; the cached sessions are
/// read again (they carry the account as it was). Errors: 404; 409 `LAST_OWNER`.
pub async fn apply(
    state: &AppState,
    id: Id,
    patch: AccountPatch,
) -> Result<records::Account, ApiError> {
    let command = ChangeAccount {
        id,
        change: AccountChange {
            display_name: patch.display_name.map(Name::into_inner),
            role: patch.role.map(Into::into),
            disabled: patch.disabled,
        },
    };
    let account = state.send(command).await?;
    state.sessions.clear();
    Ok(account)
}

/// Every account, oldest first.
#[utoipa::path(tag = "settings", responses((status = 200, body = Vec<Account>), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/accounts")]
pub async fn list(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Vec<Account>>, ApiError> {
    let accounts = state.query(ListAccounts).await?;
    Ok(Json(accounts.into_iter().map(Into::into).collect()))
}

/// Adds an account with its role.
#[utoipa::path(
    tag = "settings",
    request_body = AccountInput,
    responses(
        (status = 201, body = Account),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "DUPLICATE: the email has an account", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/accounts")]
pub async fn create(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<AccountInput>,
) -> Result<HttpResponse, ApiError> {
    let created = add(&state, input.0).await?;
    Ok(HttpResponse::Created().json(Account::from(created)))
}

/// Changes an account's name, role or whether it is disabled. The last enabled owner cannot
/// be demoted or disabled.
#[utoipa::path(
    tag = "settings",
    params(("id" = String, Path, description = "Account id")),
    request_body = AccountPatch,
    responses(
        (status = 200, body = Account),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "LAST_OWNER: it would leave no enabled owner", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/accounts/{id}")]
pub async fn change(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<AccountPatch>,
) -> Result<Json<Account>, ApiError> {
    Ok(Json(apply(&state, id.0, input.0).await?.into()))
}

/// A live session of an account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionDto {
    /// Its handle: 16 hex digits that name it without its token (the journal names sessions
    /// the same way).
    pub id: String,
    /// When it began (login or setup), ISO 8601 UTC.
    pub created_at: String,
    /// When it ends, ISO 8601 UTC.
    pub expires_at: String,
    /// True for the session of the request that asked.
    pub current: bool,
}

impl SessionDto {
    /// `view` as the wire shows it; `current` is the token hash of the asking request's session.
    pub fn of(view: SessionView, current: &[u8; 32]) -> SessionDto {
        SessionDto {
            id: view.handle,
            created_at: ts(view.created_at),
            expires_at: ts(view.expires_at),
            current: &view.token_hash == current,
        }
    }
}

/// The live sessions of an account, oldest first (Settings › Accounts).
#[utoipa::path(tag = "settings", params(("id" = String, Path, description = "Account id")), responses((status = 200, body = Vec<SessionDto>), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/accounts/{id}/sessions")]
pub async fn sessions(
    state: Data<AppState>,
    user: CurrentUser,
    id: PathId,
) -> Result<Json<Vec<SessionDto>>, ApiError> {
    let query = ListSessions {
        account_id: id.0,
        now: Timestamp::now(),
    };
    let found = state.query(query).await?;
    Ok(Json(
        found
            .into_iter()
            .map(|s| SessionDto::of(s, &user.token_hash))
            .collect(),
    ))
}

/// Ends session `session` of account `id` (a lost phone, a shared login); the person must log in
/// again. Ending one's own current session is a logout.
///
/// Errors: 404 for an unknown account or session.
pub async fn end(state: &AppState, id: Id, session: &str) -> Result<(), ApiError> {
    let command = EndSession {
        account_id: id,
        handle: session.to_string(),
    };
    let ended = state.send(command).await?;
    state.sessions.remove(&ended);
    Ok(())
}

/// Ends one session of an account.
#[utoipa::path(tag = "settings", params(("id" = String, Path, description = "Account id"), ("session" = String, Path, description = "The session's handle (16 hex digits)")), responses((status = 204), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[delete("/accounts/{id}/sessions/{session}")]
pub async fn end_session(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let session = request.match_info().get("session").unwrap_or_default();
    end(&state, id.0, session).await?;
    Ok(HttpResponse::NoContent().finish())
}
