//! Settings › Accounts, an owner's page: every account with its role and whether it may log in,
//! a form to change each, and one to add an account. Written through the API's own inputs and
//! operations (`api::accounts::{add, apply}`), so its rules and field errors are the API's.

use super::forms::{Faults, Submitted};
use super::page::{Chrome, Ctx, Page, html, see_other};
use super::paths;
use crate::api::accounts::{AccountInput, AccountPatch, add, apply};
use crate::error::ApiError;
use crate::input;
use crate::roles;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::accounts::ListAccounts;
use askama::Template;
use serde_json::Value;
use storage::Id;
use storage::records::{Account, Role};

/// The roles as the forms offer them, lowest first.
const ROLES: [&str; 3] = ["VIEWER", "STAFF", "OWNER"];

#[derive(Template)]
#[template(path = "accounts.html")]
struct AccountsPage {
    chrome: Chrome,
    accounts: Vec<Account>,
    /// The signed-in owner's own account (marked "you").
    you: Id,
    /// The new account's form as typed, with its faults.
    form: Submitted,
    faults: Faults,
    /// The account whose change was refused, with why.
    refused: Option<(Id, &'static str)>,
    notice: Option<&'static str>,
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
    let notice = ctx.notice(&[("added", "accounts.added"), ("saved", "settings.saved")]);
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
    let accounts = ctx.query(ListAccounts).await?;
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
