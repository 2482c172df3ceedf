//! Settings › Numbers: how issued invoices and credit notes are numbered, read and written
//! through the API's own input, so its rules and field errors are the API's.

use super::forms::{Faults, Submitted};
use super::page::{Chrome, Ctx, Page};
use super::paths;
use super::settings_form::SettingsForm;
use crate::api::numbering::NumberingDto;
use crate::input;
use actix_web::web::Bytes;
use actors::numbering::{GetNumbering, SetNumbering};
use askama::Template;
use serde_json::{Value, json};

#[derive(Template)]
#[template(path = "numbering.html")]
struct NumberingPage {
    chrome: Chrome,
    form: Submitted,
    faults: Faults,
    saved: bool,
}

const FORM: SettingsForm<NumberingPage> = SettingsForm {
    path: paths::SETTINGS_NUMBERING,
    page: |chrome, form, faults, saved| NumberingPage {
        chrome,
        form,
        faults,
        saved,
    },
};

/// `GET /settings/numbering`: the patterns as stored (`?saved` after a save).
pub async fn show(ctx: Ctx) -> Page {
    let stored = NumberingDto::from(ctx.query(GetNumbering).await?);
    let mut form = Submitted::default();
    form.set("invoices.pattern", stored.invoices.pattern);
    if stored.invoices.yearly {
        form.set("invoices.yearly", "on");
    }
    match stored.credit_notes {
        Some(own) => {
            form.set("creditNotes.own", "on");
            form.set("creditNotes.pattern", own.pattern);
            if own.yearly {
                form.set("creditNotes.yearly", "on");
            }
        }
        None => form.set("creditNotes.pattern", "GS-{YYYY}-{NNNN}"),
    }
    FORM.show(ctx, form)
}

/// `POST /settings/numbering`: saves the patterns, or shows the form again with its faults.
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let range = |at: &str| {
        json!({"pattern": form.get(&format!("{at}.pattern")),
               "yearly": form.checked(&format!("{at}.yearly"))})
    };
    let tree = json!({
        "invoices": range("invoices"),
        "creditNotes": match form.checked("creditNotes.own") {
            true => range("creditNotes"),
            false => Value::Null,
        },
    });
    let saved = match input::parse::<NumberingDto>(tree) {
        Ok(numbering) => ctx.state.send(SetNumbering(numbering.into())).await,
        Err(e) => Err(e),
    };
    FORM.answer(ctx, form, saved)
}
