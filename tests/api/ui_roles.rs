//! The pages hold the roles (issue 48): a page offers its reader only what the reader may do.
//! The owner's crawl from the dashboard finds every page of a shop with a record of each kind;
//! a viewer then sees no form that changes something, staff see only forms they may send (each
//! one, sent empty, is answered by the form and not by the guard), and no page links a reader to
//! a page that refuses them.

use crate::invoices::{company, customer, done};
use crate::roles::member;
use crate::support::{TestApp, draft, logged_in, page, shop, submit};
use regex::Regex;
use reqwest::Client;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// The forms any signed-in reader may send: their own language, and leaving.
const ANY_READER: [&str; 2] = ["/logout", "/settings/language"];

/// At most this many pages are crawled (a shop of one record per kind has about 60).
const CRAWL_LIMIT: usize = 400;

/// A page as a reader gets it: its status, the pages it links to and the addresses its POST
/// forms send to.
struct Seen {
    status: u16,
    links: BTreeSet<String>,
    posts: BTreeSet<String>,
}

fn unescape(text: &str) -> String {
    text.replace("&#x2f;", "/").replace("&amp;", "&")
}

fn seen(status: u16, html: &str) -> Seen {
    let link = Regex::new(r##"href="(/[^"#?]*)"##).unwrap();
    let form = Regex::new(r#"<form([^>]*)>"#).unwrap();
    let action = Regex::new(r#"action="([^"]*)""#).unwrap();
    let html = unescape(html);
    let links = link
        .captures_iter(&html)
        .map(|c| c[1].to_string())
        .filter(|path| {
            !path.starts_with("/api/") && !path.starts_with("/static/") && !path.ends_with(".csv")
        })
        .collect();
    let posts = form
        .captures_iter(&html)
        .filter(|c| c[1].contains(r#"method="post""#))
        .filter_map(|c| action.captures(&c[1]).map(|a| a[1].to_string()))
        .collect();
    Seen {
        status,
        links,
        posts,
    }
}

async fn visit(client: &Client, app: &TestApp, path: &str) -> Seen {
    let (status, html) = page(client, app, path).await;
    seen(status, &html)
}

/// A set-up shop with a record of every kind a page shows: the inventory, a draft and a DONE
/// print, a quote, a draft and an issued invoice, a series, a spool, a maintenance task.
async fn a_shop_of_every_kind(app: &TestApp) {
    app.setup().await;
    let shop = shop(app).await;
    let on = json!({"spoolManagementEnabled": true, "printSeriesEnabled": true});
    assert_eq!(app.patch("/api/settings/features", &on).await.status(), 200);
    assert_eq!(
        app.patch("/api/settings/company", &company(false))
            .await
            .status(),
        200
    );
    let buyer = app
        .create("/api/customers", &customer("Verein", "DE", None))
        .await;
    let buyer = buyer["id"].as_str().unwrap().to_string();
    let sold = done(app, &shop, &buyer, "60").await;
    let mut open = draft(&shop, "Halter");
    open["customerId"] = json!(buyer);
    open["salesValue"] = json!("30");
    let open = app.create("/api/prints", &open).await;
    app.create(
        "/api/quotes",
        &json!({"customerId": buyer, "printIds": [open["id"]], "validUntil": "2099-12-31"}),
    )
    .await;
    let issued = app
        .create(
            "/api/invoices",
            &json!({"customerId": buyer, "printIds": [sold]}),
        )
        .await;
    let issue = format!("/api/invoices/{}/issue", issued["id"].as_str().unwrap());
    assert_eq!(app.post(&issue, &json!({})).await.status(), 200);
    app.create(
        "/api/series",
        &json!({"name": "Pokale", "customerId": buyer, "target": 5}),
    )
    .await;
    app.create(
        "/api/spools",
        &json!({"code": "S-1", "filamentId": shop.filament, "purchasePrice": "20",
                "initialNetWeightGrams": "1000"}),
    )
    .await;
    app.create(
        "/api/maintenance",
        &json!({"printerId": shop.printer, "name": "Düse reinigen",
                "every": {"unit": "PRINTS", "count": 20}, "blocking": false}),
    )
    .await;
}

/// Every page the owner reaches from the dashboard by following links.
async fn crawl(app: &TestApp) -> BTreeMap<String, Seen> {
    let owner = logged_in(app).await;
    let mut pages = BTreeMap::new();
    let mut next = vec!["/dashboard".to_string()];
    while let Some(path) = next.pop() {
        if pages.contains_key(&path) || path == "/logout" {
            continue;
        }
        let page = visit(&owner, app, &path).await;
        assert!(
            [200, 303].contains(&page.status),
            "the owner opens {path}: {}",
            page.status
        );
        next.extend(page.links.iter().cloned());
        pages.insert(path, page);
        assert!(pages.len() < CRAWL_LIMIT, "the crawl ends");
    }
    pages
}

#[actix_web::test]
async fn each_page_offers_its_reader_only_what_the_readers_role_may_do() {
    let app = TestApp::spawn().await;
    a_shop_of_every_kind(&app).await;
    let pages = crawl(&app).await;
    for shown in [
        "/maintenance/",
        "/series/",
        "/invoices/",
        "/quotes/",
        "/spools/",
        "/prints/",
    ] {
        assert!(
            pages.keys().any(|p| p.starts_with(shown)),
            "the crawl reaches a page under {shown}: {:?}",
            pages.keys()
        );
    }
    let (_, viewer) = member(&app, "VIEWER").await;
    let (_, staff) = member(&app, "STAFF").await;
    let mut staff_posts = BTreeSet::new();
    for (role, client) in [("VIEWER", &viewer), ("STAFF", &staff)] {
        let mut read = BTreeMap::new();
        for path in pages.keys() {
            read.insert(path.clone(), visit(client, &app, path).await);
        }
        let opened: Vec<_> = read.iter().filter(|(_, p)| p.status == 200).collect();
        assert!(opened.len() > 20, "{role} reads the shop: {}", opened.len());
        for (path, page) in &opened {
            for link in &page.links {
                if let Some(target) = read.get(link) {
                    assert_ne!(
                        target.status, 403,
                        "{role}: {path} links to {link}, which refuses them"
                    );
                }
            }
        }
        for (path, page) in opened {
            for action in &page.posts {
                if role == "VIEWER" {
                    assert!(
                        ANY_READER.contains(&action.as_str()),
                        "a viewer is offered {action} on {path}"
                    );
                } else if !ANY_READER.contains(&action.as_str()) {
                    staff_posts.insert((action.clone(), path.clone()));
                }
            }
        }
    }
    // What a reader may not change is shown read-only: the record's fields disabled.
    let customer = pages
        .keys()
        .find(|p| p.starts_with("/customers/") && p.matches('/').count() == 2)
        .unwrap();
    for (client, path) in [(&viewer, customer.as_str()), (&staff, "/settings/pricing")] {
        let (status, html) = page(client, &app, path).await;
        assert_eq!(status, 200);
        assert!(
            html.contains(r#"<fieldset class="locked" disabled>"#),
            "{path} read-only: {html}"
        );
    }
    assert!(
        staff_posts.len() > 25,
        "staff run the shop: {staff_posts:?}"
    );
    for (action, path) in &staff_posts {
        let res = submit(&staff, &app, action, &[]).await;
        assert_ne!(
            res.status(),
            403,
            "staff are offered {action} on {path} and refused it"
        );
    }
}
