//! Global search: prints and inventory whose names contain the query, grouped by kind.

use super::Chrome;
use super::format;
use super::i18n;
use super::page::{Ctx, html};
use super::paths;
use crate::api::search::{Hit, SearchResults};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actors::search::Search;
use askama::Template;

/// A group of hits: its title key, the page path of its records, the hits.
struct Group {
    title: &'static str,
    path: &'static str,
    /// (id, name, translated print status or `""`).
    hits: Vec<(String, String, String)>,
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchPage {
    chrome: Chrome,
    q: String,
    groups: Vec<Group>,
    fault: Option<String>,
}

fn hit(t: &i18n::Tr, h: Hit) -> (String, String, String) {
    let status = h
        .status
        .map(|s| t.t(&format!("status.{}", format::wire(&s))).to_string())
        .unwrap_or_default();
    (h.id, h.name, status)
}

/// `GET /search?q=`: at most 10 hits per kind; a query under 2 characters shows the API's
/// message.
pub async fn search(ctx: Ctx) -> HttpResponse {
    let q = ctx.param("q");
    let (groups, fault, status) = match ctx.state.query(Search(q.clone())).await {
        Ok(found) => {
            let r = SearchResults::from(found);
            let groups = [
                ("nav.prints", paths::PRINTS, r.prints),
                ("nav.customers", paths::CUSTOMERS, r.customers),
                ("nav.manufacturers", paths::MANUFACTURERS, r.manufacturers),
                ("nav.printers", paths::PRINTERS, r.printers),
                ("nav.components", paths::COMPONENTS, r.components),
                ("nav.filaments", paths::FILAMENTS, r.filaments),
                ("nav.spools", paths::SPOOLS, r.spools),
            ]
            .into_iter()
            .filter(|(_, _, hits)| !hits.is_empty())
            .map(|(title, path, hits)| Group {
                title,
                path,
                hits: hits.into_iter().map(|h| hit(&ctx.chrome.t, h)).collect(),
            })
            .collect();
            (groups, None, StatusCode::OK)
        }
        Err(e) => {
            let key = e.field_errors.first().map_or_else(
                || e.code.message_key().to_string(),
                |f| f.message_key.to_string(),
            );
            (Vec::new(), Some(key), e.code.status())
        }
    };
    let page = SearchPage {
        q,
        groups,
        fault,
        chrome: ctx.chrome,
    };
    html(status, page.render())
}
