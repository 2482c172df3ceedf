//! Setup, login, session, logout, preferences and password change (`/api/auth/...`).

use crate::error::{ApiError, Code, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::{CurrentUser, removal_cookie, session_cookie};
use crate::state::AppState;
use crate::wire::OkDto;
use actix_web::web::{Data, Json};
use actix_web::{HttpRequest, HttpResponse, get, patch, post};
use actors::accounts::{
    self, CloseSession, FindByEmail, NewAccount, OpenSession, SetLocale, SetPassword,
};
use actors::passwords;
use actors::runtime::acting;
use actors::setup::{Initialized, RunSetup, Setup};
use actors::values::{Amount, Currency, Email, Locale, Name, Password};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::journal::Who;
use storage::records::{Account, Role};
use utoipa::ToSchema;

/// Registers the auth routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(setup_status)
        .add(setup)
        .add(login)
        .add(session)
        .add(logout)
        .add(preferences)
        .add(change_password);
}

/// The logged-in person.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// Account id.
    pub id: String,
    /// Login email.
    pub email: String,
    /// Name shown in the UI.
    pub display_name: String,
    /// Preferred locale, `en-US` or `de-DE`.
    pub locale: String,
    /// What the account may do.
    pub role: RoleName,
}

impl From<Account> for User {
    fn from(a: Account) -> Self {
        User {
            id: a.id.to_string(),
            email: a.email,
            display_name: a.display_name,
            locale: a.locale,
            role: a.role.into(),
        }
    }
}

/// What an account may do: `VIEWER` reads; `STAFF` runs the shop (inventory, prints, outcomes,
/// spools, maintenance, series, quotes, invoices); `OWNER` also manages accounts, settings,
/// pricing, the company, alerts, integrations, metrics and backups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RoleName {
    /// Manages the shop.
    Owner,
    /// Runs the shop.
    Staff,
    /// Reads.
    Viewer,
}

crate::input::deserr_by_name!(RoleName);

impl From<Role> for RoleName {
    fn from(role: Role) -> Self {
        match role {
            Role::Owner => RoleName::Owner,
            Role::Staff => RoleName::Staff,
            Role::Viewer => RoleName::Viewer,
        }
    }
}

impl From<RoleName> for Role {
    fn from(role: RoleName) -> Self {
        match role {
            RoleName::Owner => Role::Owner,
            RoleName::Staff => Role::Staff,
            RoleName::Viewer => Role::Viewer,
        }
    }
}

/// `{ user }`: the session's user, `null` without a session.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionBody {
    /// The logged-in user, or null.
    pub user: Option<User>,
}

/// `{ initialized }`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SetupStatus {
    /// True once setup has created the first account.
    pub initialized: bool,
}

/// First-run setup input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SetupInput {
    /// Name shown in the UI.
    #[schema(example = "Ada")]
    pub display_name: Name,
    /// Login email.
    #[schema(example = "ada@example.com")]
    pub email: Email,
    /// At least 12 characters.
    #[schema(min_length = 12)]
    pub password: Password,
    /// `en-US` or `de-DE`; also the instance's default language.
    #[schema(example = "en-US")]
    pub locale: Locale,
    /// ISO 4217 code.
    #[schema(example = "EUR")]
    pub currency: Currency,
    /// Currency per kWh, decimal string.
    #[schema(example = "0.32")]
    pub electricity_price: Amount,
    /// Also create demo inventory (default false).
    #[serde(default)]
    #[deserr(default)]
    pub create_demo_data: bool,
}

/// Login input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(deny_unknown_fields)]
#[deserr(error = Faults, deny_unknown_fields)]
pub struct LoginInput {
    /// Login email.
    pub email: String,
    /// Password.
    pub password: String,
}

/// Preferences input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(deny_unknown_fields)]
#[deserr(error = Faults, deny_unknown_fields)]
pub struct PreferencesInput {
    /// `en-US` or `de-DE`.
    #[schema(example = "de-DE")]
    pub locale: Locale,
}

/// Password change input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PasswordInput {
    /// The password in use now.
    pub current_password: String,
    /// The new password, at least 12 characters.
    #[schema(min_length = 12)]
    pub new_password: Password,
}

fn ok_with_session(
    mut response: actix_web::HttpResponseBuilder,
    state: &AppState,
    token: String,
    account: Account,
) -> HttpResponse {
    response
        .cookie(session_cookie(token, &state.config))
        .json(SessionBody {
            user: Some(account.into()),
        })
}

pub(crate) async fn hash(password: Password) -> Result<String, ApiError> {
    Ok(passwords::hash(password).await?)
}

/// Whether setup has run.
#[utoipa::path(tag = "auth", responses((status = 200, body = SetupStatus), (status = 503, body = ErrorBody)))]
#[get("/auth/setup-status")]
pub async fn setup_status(state: Data<AppState>) -> Result<Json<SetupStatus>, ApiError> {
    let initialized = state.query(Initialized).await?;
    Ok(Json(SetupStatus { initialized }))
}

/// First-run setup: creates the first account, the settings and optionally demo data, exactly
/// once, and logs the new account in (sets the session cookie).
#[utoipa::path(
    tag = "auth",
    request_body = SetupInput,
    responses(
        (status = 201, body = SessionBody),
        (status = 403, description = "Foreign or missing Origin", body = ErrorBody),
        (status = 409, description = "SETUP_COMPLETED", body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED, e.g. a password under 12 characters", body = ErrorBody),
    )
)]
#[post("/auth/setup")]
pub async fn setup(
    state: Data<AppState>,
    input: StrictJson<SetupInput>,
) -> Result<HttpResponse, ApiError> {
    let (token, account) = run_setup(&state, input.0).await?;
    Ok(ok_with_session(
        HttpResponse::Created(),
        &state,
        token,
        account,
    ))
}

/// Runs first-run setup for the API and the UI: the account, the settings, optionally demo
/// data, and a session for the new account. Returns the session token and the account.
///
/// Errors: `SETUP_COMPLETED` when it has run; storage errors.
pub async fn run_setup(state: &AppState, input: SetupInput) -> Result<(String, Account), ApiError> {
    if state.query(Initialized).await? {
        return Err(ApiError::new(Code::SetupCompleted));
    }
    let plan = Setup {
        account: NewAccount {
            display_name: input.display_name.into_inner(),
            email: input.email,
            password_hash: hash(input.password).await?,
            locale: input.locale,
            role: Role::Owner,
        },
        currency: input.currency,
        electricity_price: input.electricity_price,
        create_demo_data: input.create_demo_data,
    };
    let (token, session_hash) = accounts::new_session_token()?;
    let account = state
        .send(RunSetup {
            setup: plan,
            session_hash,
            session_ttl_seconds: state.config.session_ttl_seconds,
        })
        .await?;
    Ok((token, account))
}

/// Logs in and sets the session cookie. Unknown email and wrong password get the same answer;
/// repeated failures are throttled (429 with `Retry-After`).
#[utoipa::path(
    tag = "auth",
    request_body = LoginInput,
    responses(
        (status = 200, body = SessionBody),
        (status = 401, description = "INVALID_CREDENTIALS", body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED: a malformed body", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED", body = ErrorBody),
    )
)]
#[post("/auth/login")]
pub async fn login(
    state: Data<AppState>,
    req: HttpRequest,
    input: StrictJson<LoginInput>,
) -> Result<HttpResponse, ApiError> {
    let (token, account) = run_login(&state, &req, input.0).await?;
    Ok(ok_with_session(HttpResponse::Ok(), &state, token, account))
}

/// The address a request came from, as the throttle keys it.
fn client_address(req: &HttpRequest) -> String {
    req.peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default()
}

/// Refuses a password check for `email` from `address` while the throttle blocks it.
/// Errors: `RATE_LIMITED` with `retry_after`.
fn not_throttled(state: &AppState, email: &str, address: &str) -> Result<(), ApiError> {
    state
        .throttle
        .check(email, address)
        .map_err(|seconds| ApiError {
            retry_after: Some(seconds),
            ..ApiError::new(Code::RateLimited)
        })
}

/// Checks credentials for the API and the UI, with the throttle, and opens a session. Returns
/// the session token and the account.
///
/// Errors: `RATE_LIMITED` (with `retry_after`), `INVALID_CREDENTIALS`; storage errors.
pub async fn run_login(
    state: &AppState,
    req: &HttpRequest,
    input: LoginInput,
) -> Result<(String, Account), ApiError> {
    let LoginInput { email, password } = input;
    let address = client_address(req);
    not_throttled(state, &email, &address)?;
    let account = state.query(FindByEmail(email.clone())).await?;
    let stored = account.as_ref().map(|a| a.password_hash.clone());
    let matches = passwords::verify(stored, password).await?;
    // A disabled account is refused as a wrong password is: the answer tells nobody that the
    // email has an account.
    let Some(account) = account.filter(|a| matches && !a.disabled) else {
        state.throttle.failed(&email, &address);
        return Err(ApiError::new(Code::InvalidCredentials));
    };
    state.throttle.succeeded(&email, &address);
    let (token, token_hash) = accounts::new_session_token()?;
    // The password is checked: the session is the account's own act.
    acting::act_as(Who::Account(account.id));
    state
        .send(OpenSession {
            account_id: account.id,
            token_hash,
            ttl_seconds: state.config.session_ttl_seconds,
        })
        .await?;
    Ok((token, account))
}

/// The current session's user, or `{ "user": null }`.
#[utoipa::path(tag = "auth", responses((status = 200, body = SessionBody)), security((), ("session" = [])))]
#[get("/auth/session")]
pub async fn session(user: Option<CurrentUser>) -> Json<SessionBody> {
    Json(SessionBody {
        user: user.map(|u| u.account.into()),
    })
}

/// Logs out: deletes the current session and the cookie; `{"ok": true}` (an action, so 200).
#[utoipa::path(tag = "auth", responses((status = 200, body = OkDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)), security(("session" = [])))]
#[post("/auth/logout")]
pub async fn logout(state: Data<AppState>, user: CurrentUser) -> Result<HttpResponse, ApiError> {
    end_session(&state, &user).await?;
    Ok(HttpResponse::Ok()
        .cookie(removal_cookie(&state.config))
        .json(OkDto::DONE))
}

/// Deletes the session of `user` (API and UI logout).
///
/// Errors: storage errors.
pub async fn end_session(state: &AppState, user: &CurrentUser) -> Result<(), ApiError> {
    state.send(CloseSession(user.token_hash)).await?;
    state.sessions.remove(&user.token_hash);
    Ok(())
}

/// Sets the account's locale.
#[utoipa::path(
    tag = "auth",
    request_body = PreferencesInput,
    responses((status = 200, body = User), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 422, body = ErrorBody)),
    security(("session" = []))
)]
#[patch("/auth/preferences")]
pub async fn preferences(
    state: Data<AppState>,
    user: CurrentUser,
    input: StrictJson<PreferencesInput>,
) -> Result<Json<User>, ApiError> {
    Ok(Json(save_locale(&state, &user, input.0).await?.into()))
}

/// Stores the account's locale (API and UI) and drops cached sessions, which carry it.
///
/// Errors: storage errors.
pub async fn save_locale(
    state: &AppState,
    user: &CurrentUser,
    input: PreferencesInput,
) -> Result<Account, ApiError> {
    let account = state
        .send(SetLocale {
            account_id: user.account.id,
            locale: input.locale,
        })
        .await?;
    state.sessions.clear();
    Ok(account)
}

/// Changes the password (beyond the spec): needs the current password, and ends every other
/// session of the account. A forgotten password is reset on the box with
/// `printcost reset-password`.
#[utoipa::path(
    tag = "auth",
    request_body = PasswordInput,
    responses(
        (status = 200, body = User),
        (status = 401, description = "UNAUTHENTICATED, or INVALID_CREDENTIALS for a wrong current password", body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: wrong current passwords count with failed logins of the account's email and the client's address; `Retry-After` says when to try again", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/auth/password")]
pub async fn change_password(
    state: Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    input: StrictJson<PasswordInput>,
) -> Result<Json<User>, ApiError> {
    let PasswordInput {
        current_password,
        new_password,
    } = input.0;
    let (email, address) = (user.account.email.clone(), client_address(&req));
    not_throttled(&state, &email, &address)?;
    let stored = user.account.password_hash.clone();
    let matches = passwords::verify(Some(stored), current_password).await?;
    if !matches {
        state.throttle.failed(&email, &address);
        return Err(ApiError::new(Code::InvalidCredentials));
    }
    state.throttle.succeeded(&email, &address);
    let account = state
        .send(SetPassword {
            account_id: user.account.id,
            password_hash: hash(new_password).await?,
            keep: Some(user.token_hash),
        })
        .await?;
    state.sessions.clear();
    Ok(Json(account.into()))
}
