//! First-run setup, login and logout pages.

use super::forms::{Faults, Field, Submitted};
use super::i18n;
use super::page::{Chrome, html, see_other};
use super::paths;
use crate::api::auth::{LoginInput, SetupInput, end_session, run_login, run_setup};
use crate::error::Code;
use crate::session::{CurrentUser, removal_cookie, session_cookie};
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use actors::setup;
use actors::values::typed_with;
use askama::Template;

/// The fields of the setup form, named as the API's `SetupInput`.
const SETUP_FIELDS: [Field; 7] = [
    Field::Text("displayName"),
    Field::Text("email"),
    Field::Text("password"),
    Field::Text("locale"),
    Field::Text("currency"),
    Field::Text("electricityPrice"),
    Field::Check("createDemoData"),
];

#[derive(Template)]
#[template(path = "setup.html")]
struct SetupPage {
    chrome: Chrome,
    form: Submitted,
    faults: Faults,
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    chrome: Chrome,
    email: String,
    faults: Faults,
    /// Where to go once signed in (a local path), carried by the form.
    next: String,
}

async fn initialized(state: &AppState) -> bool {
    state.query(setup::Initialized).await.unwrap_or(true)
}

/// `/`: the dashboard, the login page, or setup on a fresh box.
pub async fn home(state: Data<AppState>, user: Option<CurrentUser>) -> HttpResponse {
    match user {
        Some(_) => see_other(paths::DASHBOARD),
        None if initialized(&state).await => see_other(paths::LOGIN),
        None => see_other(paths::SETUP),
    }
}

/// The setup form, in the language the browser asks for first of those the UI speaks (its
/// `Accept-Language`); once set up, the login page.
pub async fn setup_form(state: Data<AppState>, req: HttpRequest) -> HttpResponse {
    if initialized(&state).await {
        return see_other(paths::LOGIN);
    }
    let mut form = Submitted::default();
    for (name, value) in [
        ("locale", i18n::preferred(&req).tag()),
        ("currency", "EUR"),
        ("electricityPrice", "0.30"),
    ] {
        form.set(name, value);
    }
    render_setup(&state, form, Faults::default(), StatusCode::OK).await
}

async fn render_setup(
    state: &AppState,
    form: Submitted,
    faults: Faults,
    status: StatusCode,
) -> HttpResponse {
    let mut chrome = Chrome::load(state, None, paths::SETUP).await;
    // The form's own language choice wins once the user picked one.
    if !form.get("locale").is_empty() {
        chrome.t.lang = i18n::Lang::of(form.get("locale"));
    }
    html(
        status,
        SetupPage {
            chrome,
            form,
            faults,
        }
        .render(),
    )
}

/// Runs setup and signs the new account in.
pub async fn setup(state: Data<AppState>, body: Bytes) -> HttpResponse {
    let form = Submitted::parse(&body);
    let mark = i18n::Lang::of(form.get("locale")).decimal_mark();
    let read = typed_with(mark, || form.input::<SetupInput>(&SETUP_FIELDS));
    let outcome = match read {
        Ok(input) => run_setup(&state, input).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok((token, _)) => {
            let mut response = see_other(paths::DASHBOARD);
            let _ = response.add_cookie(&session_cookie(token, &state.config));
            response
        }
        Err(e) if e.code == Code::SetupCompleted => see_other(paths::LOGIN),
        Err(e) => {
            let status = e.code.status();
            render_setup(&state, form, Faults::of(&e), status).await
        }
    }
}

/// The login form.
pub async fn login_form(
    state: Data<AppState>,
    user: Option<CurrentUser>,
    req: HttpRequest,
) -> HttpResponse {
    let query = Submitted::parse(req.query_string().as_bytes());
    let next = paths::after_login(query.get("next")).to_string();
    if user.is_some() {
        return see_other(&next);
    }
    if !initialized(&state).await {
        return see_other(paths::SETUP);
    }
    render_login(
        &state,
        String::new(),
        next,
        Faults::default(),
        StatusCode::OK,
    )
    .await
}

async fn render_login(
    state: &AppState,
    email: String,
    next: String,
    faults: Faults,
    status: StatusCode,
) -> HttpResponse {
    let chrome = Chrome::load(state, None, paths::LOGIN).await;
    html(
        status,
        LoginPage {
            chrome,
            email,
            faults,
            next,
        }
        .render(),
    )
}

/// Checks the credentials (throttled as the API) and signs in.
pub async fn login(state: Data<AppState>, req: HttpRequest, body: Bytes) -> HttpResponse {
    let form = Submitted::parse(&body);
    let input = LoginInput {
        email: form.get("email").to_string(),
        password: form.get("password").to_string(),
    };
    let next = paths::after_login(form.get("next")).to_string();
    match run_login(&state, &req, input).await {
        Ok((token, _)) => {
            let mut response = see_other(&next);
            let _ = response.add_cookie(&session_cookie(token, &state.config));
            response
        }
        Err(e) => {
            let status = e.code.status();
            render_login(
                &state,
                form.get("email").into(),
                next,
                Faults::of(&e),
                status,
            )
            .await
        }
    }
}

/// Ends the session and returns to the login page.
pub async fn logout(state: Data<AppState>, user: Option<CurrentUser>) -> HttpResponse {
    if let Some(user) = user
        && let Err(e) = end_session(&state, &user).await
    {
        tracing::warn!(error = %e.message, "logout failed");
    }
    let mut response = see_other(paths::LOGIN);
    let _ = response.add_cookie(&removal_cookie(&state.config));
    response
}
