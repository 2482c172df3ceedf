//! `/api/quotes`: prints offered to a customer, numbered and frozen when sent, accepted,
//! declined or expired (issue 46; the rules are `actors::quotes`).

use super::ListResponse;
use crate::error::{ApiError, Code, ErrorBody};
use crate::extract::{ListParams, PathId, StrictJson, StrictQuery};
use crate::input::query::{self, Params};
use crate::input::{Faults, Refusal};
use crate::routes;
use crate::session::CurrentUser;
use crate::sheets::{download, quote_sheet};
use crate::state::AppState;
use crate::wire::{WireId, dec, name, ts};
use actix_web::web::{Data, Json};
use actix_web::{HttpResponse, delete, get, patch, post};
use actors::company::GetCompany;
use actors::pdf::render;
use actors::quotes::{
    AcceptQuote, CreateQuote, DeclineQuote, DeleteQuote, GetQuote, ListQuotes, QuoteFilter,
    QuoteInput, QuoteView, ReplaceQuote, SendQuote,
};
use actors::values::{Day, Note};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::Id;
use storage::records::{self, QuoteStatus};
use utoipa::{IntoParams, ToSchema};

/// Registers the quote routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(list_quotes)
        .add(create)
        .add(get_quote)
        .add(patch_quote)
        .add(delete_quote)
        .add(send)
        .add(accept)
        .add(decline)
        .add(pdf);
}

/// Where a quote stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schema(as = QuoteState)]
pub enum State {
    /// Being put together; its lines follow its prints' prices.
    Draft,
    /// Numbered and handed to the customer; its lines are frozen.
    Sent,
    /// Taken: its prints carry its prices.
    Accepted,
    /// Turned down.
    Declined,
    /// Its validity date passed while it was SENT.
    Expired,
}

impl From<QuoteStatus> for State {
    fn from(s: QuoteStatus) -> Self {
        match s {
            QuoteStatus::Draft => State::Draft,
            QuoteStatus::Sent => State::Sent,
            QuoteStatus::Accepted => State::Accepted,
            QuoteStatus::Declined => State::Declined,
            QuoteStatus::Expired => State::Expired,
        }
    }
}

impl State {
    /// Every state, in lifecycle order.
    pub const ALL: [State; 5] = [
        State::Draft,
        State::Sent,
        State::Accepted,
        State::Declined,
        State::Expired,
    ];

    /// The stored state.
    pub fn status(self) -> QuoteStatus {
        match self {
            State::Draft => QuoteStatus::Draft,
            State::Sent => QuoteStatus::Sent,
            State::Accepted => QuoteStatus::Accepted,
            State::Declined => QuoteStatus::Declined,
            State::Expired => QuoteStatus::Expired,
        }
    }

    /// The state named `text` (`SENT`).
    pub fn parse(text: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| name(s) == text)
    }
}

/// One line: `quantity × unitPrice = net`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteLineDto {
    /// The print it prices.
    pub print_id: String,
    /// The print's work line it prices; null for the printed item.
    pub work_line_id: Option<String>,
    /// The print's name, or the work line's label.
    pub description: String,
    /// Pieces, or 1 for a per-job line.
    pub quantity: u32,
    /// Net price of one, to the cent.
    pub unit_price: String,
    /// Net amount of the line.
    pub net: String,
}

/// What a quote offers: its lines and totals.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OfferDto {
    /// Per print: its item, then its work lines.
    pub lines: Vec<QuoteLineDto>,
    /// Sum of the lines.
    pub net: String,
    /// VAT rate, percent (0 for a small business).
    pub vat_percent: String,
    /// VAT on `net`, to the cent.
    pub vat: String,
    /// `net + vat`.
    pub gross: String,
}

impl From<records::Offer> for OfferDto {
    fn from(o: records::Offer) -> Self {
        OfferDto {
            lines: o
                .lines
                .into_iter()
                .map(|l| QuoteLineDto {
                    print_id: l.print_id.to_string(),
                    work_line_id: l.work_line_id.map(|w| w.to_string()),
                    description: l.description,
                    quantity: l.quantity,
                    unit_price: dec(l.unit_price),
                    net: dec(l.net),
                })
                .collect(),
            net: dec(o.net),
            vat_percent: dec(o.vat_percent),
            vat: dec(o.vat),
            gross: dec(o.gross),
        }
    }
}

/// A quote.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteDto {
    /// Id.
    pub id: String,
    /// Its number (`A-2026-0001`) once sent; null while DRAFT.
    pub number: Option<String>,
    /// DRAFT, SENT, ACCEPTED, DECLINED or EXPIRED.
    pub status: State,
    /// The customer.
    pub customer_id: String,
    /// The customer's name.
    pub customer_name: String,
    /// The prints it offers.
    pub print_ids: Vec<String>,
    /// The last day it holds (`YYYY-MM-DD`, the shop's time zone).
    pub valid_until: String,
    /// Free text under the lines.
    pub note: Option<String>,
    /// The language it is written in: the customer's, else the shop's default.
    pub language: String,
    /// The instance currency.
    pub currency: String,
    /// Lines and totals: frozen once sent; while DRAFT, at its prints' prices now, and null
    /// when one of them has no sales value.
    pub offer: Option<OfferDto>,
    /// When it was sent.
    pub sent_at: Option<String>,
    /// When it was accepted, declined or expired.
    pub decided_at: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

impl From<QuoteView> for QuoteDto {
    fn from(v: QuoteView) -> Self {
        let q = v.quote;
        QuoteDto {
            id: q.id.to_string(),
            number: q.number,
            status: q.status.into(),
            customer_id: q.customer_id.to_string(),
            customer_name: v.customer.name,
            print_ids: q.print_ids.iter().map(ToString::to_string).collect(),
            valid_until: q.valid_until,
            note: q.note,
            language: v.language,
            currency: v.currency,
            offer: v.offer.map(OfferDto::from),
            sent_at: q.sent_at.map(ts),
            decided_at: q.decided_at.map(ts),
            created_at: ts(q.created_at),
            updated_at: ts(q.updated_at),
        }
    }
}

/// Quote input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct QuoteInputDto {
    /// The customer.
    #[schema(value_type = String, format = Uuid)]
    pub customer_id: WireId,
    /// 1 to 100 prints, each a DRAFT of this customer with a sales value, on no other open
    /// quote.
    #[schema(value_type = BTreeSet<String>, format = Uuid, min_items = 1, max_items = 100)]
    pub print_ids: Vec<WireId>,
    /// The last day it holds, today or later (`YYYY-MM-DD`).
    #[schema(example = "2026-12-31")]
    pub valid_until: Day,
    /// Free text under the lines.
    #[deserr(default)]
    pub note: Option<Note>,
}

impl From<QuoteInputDto> for QuoteInput {
    fn from(i: QuoteInputDto) -> Self {
        QuoteInput {
            customer_id: i.customer_id.0,
            print_ids: i.print_ids.into_iter().map(|p| p.0).collect(),
            valid_until: i.valid_until,
            note: i.note,
        }
    }
}

/// Quote list filters.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct QuoteParams {
    /// Only quotes in this state.
    #[param(value_type = Option<State>)]
    #[deserr(default, try_from(&String) = state -> Refusal)]
    pub status: Option<State>,
    /// Only this customer's.
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub customer_id: Option<Id>,
}

impl Params for QuoteParams {}

/// `status`: a state's name. Errors: `errors.invalidValue`.
fn state(text: &str) -> Result<Option<State>, Refusal> {
    query::choice(text, State::parse)
}

/// Lists quotes, newest first (search covers number and note).
#[utoipa::path(tag = "quotes", params(ListParams, QuoteParams), responses((status = 200, body = ListResponse<QuoteDto>), (status = 401, body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[get("/quotes")]
pub async fn list_quotes(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<(ListParams, QuoteParams)>,
) -> Result<Json<ListResponse<QuoteDto>>, ApiError> {
    let (list, params) = query.0;
    let query = ListQuotes {
        query: list.into(),
        filter: QuoteFilter {
            status: params.status.map(State::status),
            customer_id: params.customer_id,
        },
    };
    let page = state.query(query).await?;
    Ok(Json(ListResponse::of(page, QuoteDto::from)))
}

/// Creates a DRAFT quote.
#[utoipa::path(tag = "quotes", request_body = QuoteInputDto, responses((status = 201, body = QuoteDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: an unknown customer; no prints or more than 100; a print unknown, repeated, another customer's, not a DRAFT, without a sales value or on another open quote; a validity date in the past", body = ErrorBody)), security(("session" = [])))]
#[post("/quotes")]
pub async fn create(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<QuoteInputDto>,
) -> Result<HttpResponse, ApiError> {
    let command = CreateQuote {
        input: input.0.into(),
        today: state.today(),
    };
    let quote = state.send(command).await?;
    Ok(HttpResponse::Created().json(QuoteDto::from(quote)))
}

/// One quote.
#[utoipa::path(tag = "quotes", params(("id" = String, Path, description = "Quote id")), responses((status = 200, body = QuoteDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/quotes/{id}")]
pub async fn get_quote(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<QuoteDto>, ApiError> {
    Ok(Json(state.query(GetQuote(id.0)).await?.into()))
}

/// Replaces a DRAFT quote's fields.
#[utoipa::path(tag = "quotes", params(("id" = String, Path, description = "Quote id")), request_body = QuoteInputDto, responses((status = 200, body = QuoteDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: the quote was sent", body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: as on create", body = ErrorBody)), security(("session" = [])))]
#[patch("/quotes/{id}")]
pub async fn patch_quote(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<QuoteInputDto>,
) -> Result<Json<QuoteDto>, ApiError> {
    let command = ReplaceQuote {
        id: id.0,
        input: input.0.into(),
        today: state.today(),
    };
    Ok(Json(state.send(command).await?.into()))
}

/// Deletes a DRAFT quote (a sent one keeps its number: decline it instead).
#[utoipa::path(tag = "quotes", params(("id" = String, Path, description = "Quote id")), responses((status = 204), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: the quote was sent", body = ErrorBody)), security(("session" = [])))]
#[delete("/quotes/{id}")]
pub async fn delete_quote(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    state.send(DeleteQuote(id.0)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Sends a DRAFT quote: gives it the next number of its year (`A-2026-0001`, gapless) and
/// freezes its lines and totals.
#[utoipa::path(tag = "quotes", params(("id" = String, Path, description = "Quote id")), responses((status = 200, body = QuoteDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: not a DRAFT; QUOTE_OUTDATED: a print no longer a DRAFT or without a sales value, or the validity date passed (fieldErrors name them)", body = ErrorBody)), security(("session" = [])))]
#[post("/quotes/{id}/send")]
pub async fn send(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<QuoteDto>, ApiError> {
    let command = SendQuote {
        id: id.0,
        today: state.today(),
    };
    Ok(Json(state.send(command).await?.into()))
}

/// Accepts a SENT quote: each of its prints takes the sum of its lines as its sales value.
#[utoipa::path(tag = "quotes", params(("id" = String, Path, description = "Quote id")), responses((status = 200, body = QuoteDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: not SENT; QUOTE_EXPIRED: its validity date passed; INVOICE_ISSUED: a print of it is on an issued invoice", body = ErrorBody)), security(("session" = [])))]
#[post("/quotes/{id}/accept")]
pub async fn accept(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<QuoteDto>, ApiError> {
    let command = AcceptQuote {
        id: id.0,
        today: state.today(),
    };
    Ok(Json(state.send(command).await?.into()))
}

/// Declines a SENT quote (its prints are free for another).
#[utoipa::path(tag = "quotes", params(("id" = String, Path, description = "Quote id")), responses((status = 200, body = QuoteDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: not SENT; QUOTE_EXPIRED: its validity date passed", body = ErrorBody)), security(("session" = [])))]
#[post("/quotes/{id}/decline")]
pub async fn decline(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<QuoteDto>, ApiError> {
    let command = DeclineQuote {
        id: id.0,
        today: state.today(),
    };
    Ok(Json(state.send(command).await?.into()))
}

/// The PDF/A-3b of a sent quote (and of one accepted, declined or expired since): the quote in
/// the customer's language with the shop's details as Settings › Company names them, as a
/// download named after its number.
#[utoipa::path(tag = "quotes", params(("id" = String, Path, description = "Quote id")), responses((status = 200, description = "PDF/A-3", content_type = "application/pdf", body = Vec<u8>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: still a DRAFT", body = ErrorBody)), security(("session" = [])))]
#[get("/quotes/{id}/pdf")]
pub async fn pdf(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    let view = state.query(GetQuote(id.0)).await?;
    let company = state.query(GetCompany).await?;
    let zone = state.index.time_zone().clone();
    let sheet = quote_sheet(&view, &company, zone).ok_or(ApiError::new(Code::InvalidState))?;
    let number = view.quote.number.unwrap_or_default();
    download(&number, move || render(&sheet, None)).await
}
