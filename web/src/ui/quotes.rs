//! Quotes in the browser (issue 46): the list by state, a quote put together from a customer's
//! priced drafts, its page with its lines, totals and commands (send, accept, decline, delete),
//! and its A4 document in the customer's language with the shop's name and address, which the
//! browser saves as a PDF ("send" opens it). Forms go through the API's own input and rules.

use super::Chrome;
use super::changes::{self, ChangeRow};
use super::choices;
use super::customer_prints::{Offered, priced};
use super::forms::{Faults, Submitted};
use super::i18n::{Lang, Tr};
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use crate::api::company::Company;
use crate::api::quotes::{QuoteDto, QuoteInputDto, State};
use crate::error::{ApiError, Code};
use crate::input;
use crate::wire;
use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Path};
use actors::company::GetCompany;
use actors::inventory::customers::Customers;
use actors::list::ListQuery;
use actors::quotes::{
    AcceptQuote, CreateQuote, DeclineQuote, DeleteQuote, GetQuote, ListQuotes, QuoteFilter,
    QuoteView, ReplaceQuote, SendQuote,
};
use askama::Template;
use storage::Id;

/// A quote as a row of the list.
struct Row {
    id: String,
    number: String,
    customer: String,
    state: String,
    valid_until: String,
    gross: String,
}

#[derive(Template)]
#[template(path = "quotes.html")]
struct ListPage {
    chrome: Chrome,
    rows: Vec<Row>,
    /// The state shown (`""` for all).
    state: String,
    states: Vec<(String, String)>,
}

/// `GET /quotes[?status=SENT]`: the quotes, newest first.
pub async fn list(ctx: Ctx) -> Page {
    let state = ctx.param("status");
    let filter = QuoteFilter {
        status: State::parse(&state).map(State::status),
        customer_id: None,
    };
    let query = ListQuery {
        page_size: 100,
        ..ListQuery::default()
    };
    let page = ctx.query(ListQuotes { query, filter }).await?;
    let t = &ctx.chrome.t;
    let rows = page
        .items
        .into_iter()
        .map(|v| {
            let q = QuoteDto::from(v);
            Row {
                number: q
                    .number
                    .clone()
                    .unwrap_or_else(|| t.t("quotes.draftNumber").into()),
                customer: q.customer_name.clone(),
                state: t
                    .t(&format!("quotes.state.{}", wire::name(&q.status)))
                    .into(),
                valid_until: t.date(&q.valid_until),
                gross: q
                    .offer
                    .as_ref()
                    .map_or("–".into(), |o| t.money_str(&o.gross)),
                id: q.id,
            }
        })
        .collect();
    let states = State::ALL
        .iter()
        .map(|s| {
            let name = wire::name(s);
            (
                name.clone(),
                t.t(&format!("quotes.state.{name}")).to_string(),
            )
        })
        .collect();
    let page = ListPage {
        chrome: ctx.chrome,
        rows,
        state,
        states,
    };
    Ok(html(StatusCode::OK, page.render()))
}

#[derive(Template)]
#[template(path = "quote_form.html")]
struct FormPage {
    chrome: Chrome,
    /// The quote edited, none for a new one.
    quote: Option<String>,
    customers: Vec<choices::Choice>,
    customer: String,
    drafts: Vec<Offered>,
    form: Submitted,
    faults: Faults,
}

async fn form_page(
    ctx: Ctx,
    quote: Option<Id>,
    form: Submitted,
    faults: Faults,
    status: StatusCode,
) -> Page {
    let customers = choices::of::<Customers>(&ctx).await?;
    let customer = form.get("customerId").to_string();
    let drafts = priced(&ctx, customer.parse().ok(), "DRAFT", &[])
        .await
        .map_err(|e| ctx.fail(&e))?;
    let page = FormPage {
        quote: quote.map(|q| q.to_string()),
        customers,
        customer,
        drafts,
        form,
        faults,
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

/// `GET /quotes/new[?customerId=…]`: the form of a new quote (the customer chosen first, then
/// their priced drafts), valid for 30 days by default.
pub async fn new_form(ctx: Ctx) -> Page {
    let mut form = Submitted::default();
    form.set("customerId", ctx.param("customerId"));
    let in_30_days = ctx.state.today().saturating_add(jiff::Span::new().days(30));
    form.set("validUntil", in_30_days.to_string());
    form_page(ctx, None, form, Faults::default(), StatusCode::OK).await
}

/// `GET /quotes/{id}/edit`: a DRAFT quote's form.
pub async fn edit_form(ctx: Ctx) -> Page {
    let id = ctx.id()?;
    let quote = QuoteDto::from(ctx.query(GetQuote(id)).await?);
    let mut form = Submitted::default();
    form.set("customerId", quote.customer_id);
    for print in quote.print_ids {
        form.set("printIds[]", print);
    }
    form.set("validUntil", quote.valid_until);
    form.set("note", quote.note.unwrap_or_default());
    form_page(ctx, Some(id), form, Faults::default(), StatusCode::OK).await
}

/// The API input of the submitted form.
fn input_of(form: &Submitted) -> Result<QuoteInputDto, ApiError> {
    input::parse(form.tree_with_list(&[], "printIds"))
}

/// `POST /quotes` and `POST /quotes/{id}/edit`: saves the quote and shows it, or the form again
/// with its faults.
async fn save(ctx: Ctx, quote: Option<Id>, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let today = ctx.state.today();
    let saved = match input_of(&form) {
        Ok(input) => match quote {
            None => {
                let input = input.into();
                ctx.state.send(CreateQuote { input, today }).await
            }
            Some(id) => {
                let input = input.into();
                ctx.state.send(ReplaceQuote { id, input, today }).await
            }
        },
        Err(e) => Err(e),
    };
    match saved {
        Ok(view) => Ok(see_other(&paths::quote(view.quote.id))),
        Err(e) => {
            let status = e.code.status();
            form_page(ctx, quote, form, Faults::of(&e), status).await
        }
    }
}

/// `POST /quotes`: creates a DRAFT quote.
pub async fn create(ctx: Ctx, body: Bytes) -> Page {
    save(ctx, None, body).await
}

/// `POST /quotes/{id}/edit`: replaces a DRAFT quote's fields.
pub async fn update(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    save(ctx, Some(id), body).await
}

/// A quote's lines and totals, formatted in `t`'s language.
struct Document {
    quote: QuoteDto,
    state: String,
    /// The language it is written in, named in the reader's.
    language: String,
    valid_until: String,
    sent: String,
    /// (description, quantity, unit price, net).
    lines: Vec<(String, u32, String, String)>,
    /// Its prints: (id, name as the lines give it, else "Print n").
    prints: Vec<(String, String)>,
    /// (net, VAT rate, VAT, gross); none while a print has no price.
    totals: Option<(String, String, String, String)>,
}

impl Document {
    fn of(t: &Tr, view: QuoteView) -> Document {
        let quote = QuoteDto::from(view);
        let lines = quote
            .offer
            .iter()
            .flat_map(|o| o.lines.iter())
            .map(|l| {
                let unit = t.money_str(&l.unit_price);
                (l.description.clone(), l.quantity, unit, t.money_str(&l.net))
            })
            .collect();
        let totals = quote.offer.as_ref().map(|o| {
            (
                t.money_str(&o.net),
                t.number_str(&o.vat_percent, 0),
                t.money_str(&o.vat),
                t.money_str(&o.gross),
            )
        });
        let prints = quote
            .print_ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let item = quote
                    .offer
                    .iter()
                    .flat_map(|o| o.lines.iter())
                    .find(|l| l.print_id == *id && l.work_line_id.is_none());
                let name = item.map_or_else(
                    || format!("{} {}", t.t("quotes.print"), i + 1),
                    |l| l.description.clone(),
                );
                (id.clone(), name)
            })
            .collect();
        Document {
            prints,
            state: t
                .t(&format!("quotes.state.{}", wire::name(&quote.status)))
                .into(),
            language: t.t(&format!("language.{}", quote.language)).into(),
            valid_until: t.date(&quote.valid_until),
            sent: quote
                .sent_at
                .as_deref()
                .map(|s| t.date(s))
                .unwrap_or_default(),
            lines,
            totals,
            quote,
        }
    }
}

#[derive(Template)]
#[template(path = "quote.html")]
struct QuotePage {
    chrome: Chrome,
    sheet: Document,
    faults: Faults,
    /// Who changed what of the quote.
    changes: Vec<ChangeRow>,
}

/// `GET /quotes/{id}`: a quote with its lines, totals and the commands its state allows.
pub async fn show(ctx: Ctx) -> Page {
    let view = ctx.query(GetQuote(ctx.id()?)).await?;
    let sheet = Document::of(&ctx.chrome.t, view);
    let changes = changes::of(&ctx, ctx.id()?).await?;
    let page = QuotePage {
        chrome: ctx.chrome,
        sheet,
        faults: Faults::default(),
        changes,
    };
    Ok(html(StatusCode::OK, page.render()))
}

/// `POST /quotes/{id}/actions/{action}`: send (then its document, to save as a PDF), accept,
/// decline or delete; a refusal shows the quote again with its reason.
pub async fn act(ctx: Ctx, path: Path<(String, String)>) -> Page {
    let id = ctx.id()?;
    let today = ctx.state.today();
    let state = &ctx.state;
    let done = match path.1.as_str() {
        "send" => state
            .send(SendQuote { id, today })
            .await
            .map(|_| paths::quote_document(id)),
        "accept" => state
            .send(AcceptQuote { id, today })
            .await
            .map(|_| paths::quote(id)),
        "decline" => state
            .send(DeclineQuote { id, today })
            .await
            .map(|_| paths::quote(id)),
        "delete" => state
            .send(DeleteQuote(id))
            .await
            .map(|()| paths::QUOTES.to_string()),
        _ => Err(ApiError::new(Code::NotFound)),
    };
    match done {
        Ok(next) => Ok(see_other(&next)),
        Err(e) => {
            let status = e.code.status();
            let view = ctx.query(GetQuote(id)).await?;
            let changes = changes::of(&ctx, id).await?;
            let page = QuotePage {
                sheet: Document::of(&ctx.chrome.t, view),
                faults: Faults::of(&e),
                changes,
                chrome: ctx.chrome,
            };
            Ok(html(status, page.render()))
        }
    }
}

#[derive(Template)]
#[template(path = "quote_document.html")]
struct DocumentPage {
    /// The frame in the quote's language (not the reader's).
    chrome: Chrome,
    sheet: Document,
    company: Company,
    /// The customer's address lines.
    customer: Vec<String>,
}

/// `GET /quotes/{id}/document`: the A4 quote in the customer's language (else the shop's),
/// the shop's name and address at the head; "Download PDF" opens the browser's print dialog.
pub async fn document(ctx: Ctx) -> Page {
    let view = ctx.query(GetQuote(ctx.id()?)).await?;
    let company = Company::from(ctx.query(GetCompany).await?);
    let mut chrome = ctx.chrome.clone();
    chrome.t = Tr::new(
        Lang::of(&view.language),
        &view.currency,
        ctx.state.index.time_zone().clone(),
    );
    let billing = &view.customer.billing;
    let mut customer = vec![view.customer.name.clone()];
    if let Some(a) = &billing.address {
        customer.push(a.street.clone());
        customer.push(format!("{} {}", a.postal_code, a.city));
        customer.push(a.country.clone());
    }
    if let Some(vat) = &billing.vat_id {
        customer.push(format!("{} {vat}", chrome.t.t("field.vatId")));
    }
    let page = DocumentPage {
        sheet: Document::of(&chrome.t, view),
        chrome,
        company,
        customer,
    };
    Ok(html(StatusCode::OK, page.render()))
}
