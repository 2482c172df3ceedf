//! Settings › Accounts, an owner's page: every account with its role and whether it may log in,
//! a form to change each, its live sessions (each can be ended), and one to add an account. Written through the API's own inputs and
//! operations (`api::accounts::{add, apply}`), so its rules and field errors are the API's.

use super::forms::{Faults, Submitted};
use super::page::{Chrome, Ctx, Page, html, see_other};
use super::paths;
use crate::api::accounts::{AccountInput, AccountPatch, SessionDto, add, apply, end};
use crate::error::ApiError;
use crate::input;
use crate::roles;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::accounts::{ListAccounts, ListSessions};
use askama::Template;
use serde_json::Value;
use storage::records::{Account, Role};
use storage::{Id, Timestamp};

/// The roles as the forms offer them, lowest first.
const ROLES: [&str; 3] = ["VIEWER", "STAFF", "OWNER"];

#[derive(Template)]
#[template(path = "accounts.html")]
struct AccountsPage {
    chrome: Chrome,
    /// Each account with its live sessions.
    accounts: Vec<(Account, Vec<SessionRow>)>,
    /// The signed-in owner's own account (marked "you").
    you: Id,
    /// The new account's form as typed, with its faults.
    form: Submitted,
    faults: Faults,
    /// The account whose change was refused, with why.
    refused: Option<(Id, &'static str)>,
    notice: Option<&'static str>,
}

/// A live session as the page lists it.
struct SessionRow {
    /// Its handle (what ending it names).
    id: String,
    /// Since when, in the shop's time.
    since: String,
    /// Until when.
    until: String,
    /// The session of this very page.
    current: bool,
}

impl AccountsPage {
    /// The role's name as the forms send it (`OWNER`, …): [`roles::name`].
    fn role_name(role: &Role) -> &'static str {
        roles::name(*role)
    }

    fn roles(&self) -> [&'static str; 3] {
        ROLES
    }
}

/// `GET /settings/accounts`.
pub async fn show(ctx: Ctx) -> Page {
    let notice = ctx.notice(&[
        ("added", "accounts.added"),
        ("saved", "settings.saved"),
        ("ended", "accounts.sessionEnded"),
    ]);
    render(ctx, Submitted::default(), Faults::default(), None, notice).await
}

/// `POST /settings/accounts`: adds an account, or shows the form again with its faults.
pub async fn create(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let added = match ctx.typed(|| input::parse::<AccountInput>(form.tree(&[]))) {
        Ok(input) => add(&ctx.state, input).await,
        Err(e) => Err(e),
    };
    match added {
        Ok(_) => Ok(see_other(&format!("{}?added", paths::SETTINGS_ACCOUNTS))),
        Err(e) => render_refused(ctx, form, &e).await,
    }
}

/// `POST /settings/accounts/{id}/sessions/{session}/end`: ends one session of an account.
pub async fn end_session(ctx: Ctx) -> Page {
    let id = ctx.id()?;
    let session = ctx
        .req
        .match_info()
        .get("session")
        .unwrap_or_default()
        .to_string();
    match end(&ctx.state, id, &session).await {
        Ok(()) => Ok(see_other(&format!("{}?ended", paths::SETTINGS_ACCOUNTS))),
        Err(e) => Err(ctx.fail(&e)),
    }
}

/// `POST /settings/accounts/{id}`: changes an account's role and whether it may log in.
pub async fn change(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let mut tree = form.tree(&[]);
    tree["disabled"] = Value::Bool(form.checked("disabled"));
    let changed = match ctx.typed(|| input::parse::<AccountPatch>(tree)) {
        Ok(patch) => apply(&ctx.state, id, patch).await,
        Err(e) => Err(e),
    };
    match changed {
        Ok(_) => Ok(see_other(&format!("{}?saved", paths::SETTINGS_ACCOUNTS))),
        Err(e) => {
            let status = e.code.status();
            let refused = Some((id, e.code.message_key()));
            render_with(
                ctx,
                Submitted::default(),
                Faults::default(),
                refused,
                None,
                status,
            )
            .await
        }
    }
}

async fn render_refused(ctx: Ctx, form: Submitted, error: &ApiError) -> Page {
    let status = error.code.status();
    render_with(ctx, form, Faults::of(error), None, None, status).await
}

async fn render(
    ctx: Ctx,
    form: Submitted,
    faults: Faults,
    refused: Option<(Id, &'static str)>,
    notice: Option<&'static str>,
) -> Page {
    render_with(ctx, form, faults, refused, notice, StatusCode::OK).await
}

async fn render_with(
    ctx: Ctx,
    form: Submitted,
    faults: Faults,
    refused: Option<(Id, &'static str)>,
    notice: Option<&'static str>,
    status: StatusCode,
) -> Page {
    let now = Timestamp::now();
    let mut accounts = Vec::new();
    for account in ctx.query(ListAccounts).await? {
        let query = ListSessions {
            account_id: account.id,
            now,
        };
        let rows = ctx
            .query(query)
            .await?
            .into_iter()
            .map(|s| {
                let dto = SessionDto::of(s, &ctx.user.token_hash);
                SessionRow {
                    since: ctx.chrome.t.datetime(&dto.created_at),
                    until: ctx.chrome.t.datetime(&dto.expires_at),
                    current: dto.current,
                    id: dto.id,
                }
            })
            .collect();
        accounts.push((account, rows));
    }
    let you = ctx.user.account.id;
    let page = AccountsPage {
        chrome: ctx.chrome,
        accounts,
        you,
        form,
        faults,
        refused,
        notice,
    };
    Ok(html(status, page.render()))
}
