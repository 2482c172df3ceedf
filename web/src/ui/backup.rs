//! Settings › Backup: download a backup now, when the last one was handed out, and how to restore
//! one on the box.

use super::Chrome;
use super::page::{Ctx, Page, html};
use crate::wire;
use actix_web::http::StatusCode;
use actors::backup::LastBackup;
use askama::Template;

#[derive(Template)]
#[template(path = "backup.html")]
struct BackupPage {
    chrome: Chrome,
    /// ISO 8601 of the last download, if any.
    last: Option<String>,
    /// The store's directory as the restore command needs it.
    data_dir: String,
}

/// Renders the backup page.
pub async fn show(ctx: Ctx) -> Page {
    let last = ctx.query(LastBackup).await?.map(wire::ts);
    let data_dir = ctx
        .state
        .store
        .dir()
        .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
        .map_or_else(String::new, |d| d.display().to_string());
    let page = BackupPage {
        chrome: ctx.chrome,
        last,
        data_dir,
    };
    Ok(html(StatusCode::OK, page.render()))
}
