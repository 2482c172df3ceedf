//! A settings page whose form is saved whole through the API's own input (Settings › Pricing,
//! Settings › Company): shown as stored, saved and redirected to `?saved`, or shown again with
//! the API's field errors beside their fields.

use super::forms::{Faults, Submitted};
use super::page::{Chrome, Ctx, Page, html, see_other};
use crate::error::ApiError;
use actix_web::http::StatusCode;
use askama::Template;

/// A settings form: its path and how its page is made from the frame, the form, its faults and
/// whether it was just saved.
pub struct SettingsForm<T> {
    /// Where the form is shown and posted.
    pub path: &'static str,
    /// The page of the form.
    pub page: fn(Chrome, Submitted, Faults, bool) -> T,
}

impl<T: Template> SettingsForm<T> {
    /// The page with `form` (the stored values), saying "saved" after a redirect here.
    pub fn show(&self, ctx: Ctx, form: Submitted) -> Page {
        let saved = ctx.flagged("saved");
        self.render(ctx, form, Faults::default(), saved, StatusCode::OK)
    }

    fn render(
        &self,
        ctx: Ctx,
        form: Submitted,
        faults: Faults,
        saved: bool,
        status: StatusCode,
    ) -> Page {
        let page = (self.page)(ctx.chrome, form, faults, saved);
        Ok(html(status, page.render()))
    }

    /// After a save: to `path?saved`, or the form again with the faults of `saved`'s refusal.
    pub fn answer<R>(&self, ctx: Ctx, form: Submitted, saved: Result<R, ApiError>) -> Page {
        match saved {
            Ok(_) => Ok(see_other(&format!("{}?saved", self.path))),
            Err(e) => {
                let status = e.code.status();
                self.render(ctx, form, Faults::of(&e), false, status)
            }
        }
    }
}
