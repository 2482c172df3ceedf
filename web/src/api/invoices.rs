//! `/api/invoices`: invoices and credit notes from DONE prints, numbered from a gapless range and
//! frozen when issued, and their XRechnung 3.0 XML (issue 47; the rules are `actors::invoices`,
//! the document `actors::einvoice`).

use super::ListResponse;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{ArchiveInput, ListParams, PathId, StrictJson, StrictQuery};
use crate::input::query::{self, Params};
use crate::input::{Faults, Refusal};
use crate::routes;
use crate::session::CurrentUser;
use crate::sheets::{download, invoice_pdf};
use crate::state::AppState;
use crate::wire::{Vat, WireId, dec, ts};
use actix_web::web::{Data, Json};
use actix_web::{HttpResponse, delete, get, post};
use actors::einvoice::totals::Totals;
use actors::invoices::{
    ArchiveInvoice, CreateInvoice, CreditLineInput, CreditNoteInput, DeleteInvoice, ExtraInput,
    GetInvoice, InvoiceInput, InvoicePdf, InvoiceView, InvoiceXml, IssueInvoice, ListInvoices,
    MakeCreditNote, PaymentInput, RecordPayment, Settlement, settlement,
};
use actors::values::{Day, Name, Note, PositiveAmount};
use actors::{Error as RuleError, FieldError};
use deserr::Deserr;
use jiff::civil::Date;
use serde::Serialize;
use storage::Id;
use storage::records::{InvoiceKind, PaymentMethod};
use utoipa::{IntoParams, ToSchema};

/// Registers the invoice routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(list_invoices)
        .add(create)
        .add(get_invoice)
        .add(delete_invoice)
        .add(issue)
        .add(credit_note)
        .add(record_payment)
        .add(archive)
        .add(xrechnung)
        .add(pdf);
}

/// One line: `quantity × unitPrice = net`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceLineDto {
    /// The print it bills; null for an extra line.
    pub print_id: Option<String>,
    /// What is sold.
    pub name: String,
    /// How many.
    pub quantity: String,
    /// UN/ECE Recommendation 20 unit (`C62`: one).
    pub unit: String,
    /// Net price of one.
    pub unit_price: String,
    /// Net amount, to the cent.
    pub net: String,
    /// Its VAT category.
    pub vat_category: Vat,
    /// Its VAT rate, percent.
    pub vat_rate: String,
}

/// An allowance (a discount) on the whole document.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllowanceDto {
    /// Why.
    pub reason: String,
    /// Net amount.
    pub amount: String,
    /// Its VAT category.
    pub vat_category: Vat,
    /// Its VAT rate, percent.
    pub vat_rate: String,
}

/// The VAT of one category and rate.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VatBreakdownDto {
    /// The category.
    pub category: Vat,
    /// The rate, percent.
    pub rate: String,
    /// Its lines, less its allowances.
    pub basis: String,
    /// `basis × rate / 100`, to the cent.
    pub amount: String,
}

/// What the document adds up to (EN 16931 BG-22).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceTotals {
    /// Sum of the lines (BT-106).
    pub line_total: String,
    /// Sum of the allowances (BT-107).
    pub allowances: String,
    /// Without VAT (BT-109).
    pub tax_basis: String,
    /// Per category and rate.
    pub vat_breakdown: Vec<VatBreakdownDto>,
    /// VAT (BT-110).
    pub tax: String,
    /// With VAT (BT-112).
    pub grand_total: String,
    /// Due (BT-115).
    pub due: String,
}

impl From<&Totals> for InvoiceTotals {
    fn from(t: &Totals) -> Self {
        InvoiceTotals {
            line_total: dec(t.line_total),
            allowances: dec(t.allowances),
            tax_basis: dec(t.tax_basis),
            vat_breakdown: t
                .breakdown
                .iter()
                .map(|b| VatBreakdownDto {
                    category: Vat::from(b.vat.category()),
                    rate: dec(b.vat.rate()),
                    basis: dec(b.basis),
                    amount: dec(b.amount),
                })
                .collect(),
            tax: dec(t.tax),
            grand_total: dec(t.grand_total),
            due: dec(t.due),
        }
    }
}

/// Where an invoice's payments stand today.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PaymentStatus {
    /// Not issued yet.
    Draft,
    /// Issued, nothing paid, not due yet.
    Open,
    /// Part of it paid, not due yet.
    PartlyPaid,
    /// Paid in full.
    Paid,
    /// Past its due day and not paid in full.
    Overdue,
}

impl From<Settlement> for PaymentStatus {
    fn from(s: Settlement) -> Self {
        match s {
            Settlement::Draft => PaymentStatus::Draft,
            Settlement::Open => PaymentStatus::Open,
            Settlement::PartlyPaid => PaymentStatus::PartlyPaid,
            Settlement::Paid => PaymentStatus::Paid,
            Settlement::Overdue => PaymentStatus::Overdue,
        }
    }
}

/// How a payment came.
#[derive(Debug, Clone, Copy, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Method {
    /// A bank transfer.
    Transfer,
    /// Cash.
    Cash,
    /// A card.
    Card,
    /// Another way.
    Other,
}

crate::input::deserr_by_name!(Method);

impl From<PaymentMethod> for Method {
    fn from(m: PaymentMethod) -> Self {
        match m {
            PaymentMethod::Transfer => Method::Transfer,
            PaymentMethod::Cash => Method::Cash,
            PaymentMethod::Card => Method::Card,
            PaymentMethod::Other => Method::Other,
        }
    }
}

impl From<Method> for PaymentMethod {
    fn from(m: Method) -> Self {
        match m {
            Method::Transfer => PaymentMethod::Transfer,
            Method::Cash => PaymentMethod::Cash,
            Method::Card => PaymentMethod::Card,
            Method::Other => PaymentMethod::Other,
        }
    }
}

/// A payment received.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentDto {
    /// Id.
    pub id: String,
    /// The day it was paid (`YYYY-MM-DD`).
    pub paid_on: String,
    /// The amount.
    pub amount: String,
    /// How it came.
    pub method: Method,
    /// Free text.
    pub note: Option<String>,
    /// When it was recorded.
    pub recorded_at: String,
}

/// A payment to record.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PaymentInputDto {
    /// The day it was paid, today or before (`YYYY-MM-DD`).
    #[schema(example = "2026-11-27")]
    pub paid_on: Day,
    /// The amount, positive, at most what is still due.
    #[schema(example = "71.28")]
    pub amount: PositiveAmount,
    /// TRANSFER, CASH, CARD or OTHER.
    pub method: Method,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

/// INVOICE or CREDIT_NOTE.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DocumentKind {
    /// A commercial invoice (380).
    Invoice,
    /// A credit note (381) naming the invoice it corrects.
    CreditNote,
}

/// An invoice or credit note.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceDto {
    /// Id.
    pub id: String,
    /// INVOICE or CREDIT_NOTE.
    pub kind: DocumentKind,
    /// DRAFT or ISSUED.
    pub status: String,
    /// Its number (`2026-0001`) once issued.
    pub number: Option<String>,
    /// The customer billed.
    pub customer_id: String,
    /// The customer's name.
    pub customer_name: String,
    /// The DONE prints it bills.
    pub print_ids: Vec<String>,
    /// The invoice a credit note corrects.
    pub corrects_id: Option<String>,
    /// The lines.
    pub lines: Vec<InvoiceLineDto>,
    /// The allowances.
    pub allowances: Vec<AllowanceDto>,
    /// What it adds up to.
    pub totals: InvoiceTotals,
    /// Free text.
    pub note: Option<String>,
    /// Issue date (`YYYY-MM-DD`), once issued.
    pub issued_on: Option<String>,
    /// Due date (`YYYY-MM-DD`), once issued.
    pub due_on: Option<String>,
    /// The sum of the payments.
    pub paid: String,
    /// What is still due.
    pub outstanding: String,
    /// DRAFT, OPEN, PARTLY_PAID, PAID or OVERDUE (today, in the shop's time zone).
    pub payment_status: PaymentStatus,
    /// The payments, in the order recorded.
    pub payments: Vec<PaymentDto>,
    /// Hidden from lists.
    pub archived: bool,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

impl InvoiceDto {
    /// The wire form of `v`, its payment status as of `today`.
    pub fn of(v: InvoiceView, today: Date) -> Self {
        let i = v.invoice;
        let issued = i.issued.as_ref();
        let status = settlement(&i, v.totals.due, today);
        InvoiceDto {
            paid: dec(v.paid),
            outstanding: dec(v.totals.due - v.paid),
            payment_status: status.into(),
            payments: i
                .payments
                .iter()
                .map(|p| PaymentDto {
                    id: p.id.to_string(),
                    paid_on: p.paid_on.clone(),
                    amount: dec(p.amount),
                    method: p.method.into(),
                    note: p.note.clone(),
                    recorded_at: ts(p.recorded_at),
                })
                .collect(),
            id: i.id.to_string(),
            kind: match i.kind {
                InvoiceKind::Invoice => DocumentKind::Invoice,
                InvoiceKind::CreditNote => DocumentKind::CreditNote,
            },
            status: if issued.is_some() { "ISSUED" } else { "DRAFT" }.into(),
            number: issued.map(|d| d.number.clone()),
            customer_id: i.customer_id.to_string(),
            customer_name: v.customer,
            print_ids: i.print_ids.iter().map(ToString::to_string).collect(),
            corrects_id: i.corrects.map(|c| c.to_string()),
            lines: i
                .lines
                .iter()
                .zip(&v.totals.lines)
                .map(|(l, net)| InvoiceLineDto {
                    print_id: l.print_id.map(|p| p.to_string()),
                    name: l.name.clone(),
                    quantity: dec(l.quantity),
                    unit: l.unit.clone(),
                    unit_price: dec(l.unit_price),
                    net: dec(*net),
                    vat_category: l.vat.into(),
                    vat_rate: dec(l.vat_rate),
                })
                .collect(),
            allowances: i
                .adjustments
                .iter()
                .map(|a| AllowanceDto {
                    reason: a.reason.clone(),
                    amount: dec(a.amount),
                    vat_category: a.vat.into(),
                    vat_rate: dec(a.vat_rate),
                })
                .collect(),
            totals: InvoiceTotals::from(&v.totals),
            note: i.note.clone(),
            issued_on: issued.map(|d| d.issued_on.clone()),
            due_on: issued.map(|d| d.due_on.clone()),
            archived: i.archived,
            created_at: ts(i.created_at),
            updated_at: ts(i.updated_at),
        }
    }
}

/// An extra line: one at `amount`, net.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct ExtraLineInput {
    /// What it is, 1-200 characters.
    #[schema(example = "Versand")]
    pub name: Name,
    /// Net amount, positive.
    #[schema(example = "4.90")]
    pub amount: PositiveAmount,
}

/// An allowance on the whole invoice.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct AllowanceInput {
    /// Why, 1-200 characters.
    #[schema(example = "Treuerabatt")]
    pub reason: Name,
    /// Net amount, positive.
    #[schema(example = "5")]
    pub amount: PositiveAmount,
}

/// A line of a partial credit note.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct CreditLineDto {
    /// The invoice's line, 0-based (its place in `lines`).
    #[schema(minimum = 0, maximum = 10000)]
    pub line: usize,
    /// How many of it, positive, at most what no other credit note credits yet.
    #[schema(example = "1")]
    pub quantity: PositiveAmount,
}

/// What a credit note credits.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct CreditNoteInputDto {
    /// The lines credited, 1 to 200; absent: the whole rest of the invoice.
    #[schema(min_items = 1, max_items = 200)]
    #[deserr(default)]
    pub lines: Option<Vec<CreditLineDto>>,
}

impl CreditNoteInputDto {
    /// The rules' input.
    pub fn input(self) -> CreditNoteInput {
        CreditNoteInput {
            lines: self.lines.map(|lines| {
                lines
                    .into_iter()
                    .map(|l| CreditLineInput {
                        line: l.line,
                        quantity: l.quantity,
                    })
                    .collect()
            }),
        }
    }
}

/// A new invoice.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct InvoiceInputDto {
    /// The customer billed.
    #[schema(value_type = String, format = Uuid)]
    pub customer_id: WireId,
    /// 1 to 100 DONE prints of this customer with a sales value, on no other invoice.
    #[schema(value_type = BTreeSet<String>, format = Uuid, min_items = 1, max_items = 100)]
    pub print_ids: Vec<WireId>,
    /// Extra lines (shipping), at most 20.
    #[serde(default)]
    #[schema(max_items = 20)]
    #[deserr(default)]
    pub extras: Vec<ExtraLineInput>,
    /// Allowances (a discount), at most 20.
    #[serde(default)]
    #[schema(max_items = 20)]
    #[deserr(default)]
    pub allowances: Vec<AllowanceInput>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

impl InvoiceInputDto {
    /// The rules' input. Errors: `errors.tooMany` at `extras` or `allowances` beyond 20.
    pub fn input(self) -> Result<InvoiceInput, ApiError> {
        let mut faults = Vec::new();
        for (name, len) in [
            ("extras", self.extras.len()),
            ("allowances", self.allowances.len()),
        ] {
            if len > 20 {
                faults.push(FieldError::new(name, "errors.tooMany"));
            }
        }
        if !faults.is_empty() {
            return Err(RuleError::Validation(faults).into());
        }
        Ok(InvoiceInput {
            customer_id: self.customer_id.0,
            print_ids: self.print_ids.into_iter().map(|p| p.0).collect(),
            extras: self
                .extras
                .into_iter()
                .map(|e| ExtraInput {
                    name: e.name,
                    amount: e.amount,
                })
                .collect(),
            allowances: self
                .allowances
                .into_iter()
                .map(|a| ExtraInput {
                    name: a.reason,
                    amount: a.amount,
                })
                .collect(),
            note: self.note,
        })
    }
}

/// Invoice list filters.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct InvoiceParams {
    /// Only this customer's.
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub customer_id: Option<Id>,
}

impl Params for InvoiceParams {}

/// Lists invoices and credit notes, newest first (search covers number and note).
#[utoipa::path(tag = "invoices", params(ListParams, InvoiceParams), responses((status = 200, body = ListResponse<InvoiceDto>), (status = 401, body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[get("/invoices")]
pub async fn list_invoices(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<(ListParams, InvoiceParams)>,
) -> Result<Json<ListResponse<InvoiceDto>>, ApiError> {
    let (list, params) = query.0;
    let query = ListInvoices {
        query: list.into(),
        customer: params.customer_id,
    };
    let page = state.query(query).await?;
    let today = state.today();
    Ok(Json(ListResponse::of(page, |v| InvoiceDto::of(v, today))))
}

/// Creates a DRAFT invoice from a customer's DONE prints (each print's lines spread from its
/// sales value as a quote's are), extra lines and allowances, at the VAT the shop and the
/// customer call for.
#[utoipa::path(tag = "invoices", request_body = InvoiceInputDto, responses((status = 201, body = InvoiceDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: an unknown customer; no prints or more than 100; a print unknown, repeated, another customer's, not DONE, without a sales value or on another invoice; more than 20 extras or allowances", body = ErrorBody)), security(("session" = [])))]
#[post("/invoices")]
pub async fn create(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<InvoiceInputDto>,
) -> Result<HttpResponse, ApiError> {
    let invoice = state.send(CreateInvoice(input.0.input()?)).await?;
    Ok(HttpResponse::Created().json(InvoiceDto::of(invoice, state.today())))
}

/// One invoice or credit note.
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "Invoice id")), responses((status = 200, body = InvoiceDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/invoices/{id}")]
pub async fn get_invoice(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<InvoiceDto>, ApiError> {
    let invoice = state.query(GetInvoice(id.0)).await?;
    Ok(Json(InvoiceDto::of(invoice, state.today())))
}

/// Deletes a DRAFT (an issued invoice is never deleted).
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "Invoice id")), responses((status = 204), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVOICE_ISSUED", body = ErrorBody)), security(("session" = [])))]
#[delete("/invoices/{id}")]
pub async fn delete_invoice(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    state.send(DeleteInvoice(id.0)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Issues a DRAFT: the next number of the year's gapless range (`2026-0001`, shared by invoices
/// and credit notes), the issue and due dates, both parties and the terms frozen with it.
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "Invoice id")), responses((status = 200, body = InvoiceDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVOICE_ISSUED: it was; INVOICE_INCOMPLETE: the company or the customer lacks a name, address, e-mail, IBAN, VAT id or tax number (the message names them)", body = ErrorBody)), security(("session" = [])))]
#[post("/invoices/{id}/issue")]
pub async fn issue(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<InvoiceDto>, ApiError> {
    let today = state.today();
    let command = IssueInvoice { id: id.0, today };
    Ok(Json(InvoiceDto::of(state.send(command).await?, today)))
}

/// Makes a DRAFT credit note (381) of an issued invoice, naming it: `{}` credits whatever no
/// other credit note credits yet (lines, allowances, charges: a cancellation), `lines` only
/// those lines at those quantities (a partial credit note).
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "The issued invoice's id")), request_body = CreditNoteInputDto, responses((status = 201, body = InvoiceDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: not an issued invoice, or nothing left to credit", body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: lines[i].line notFound or duplicate, lines[i].quantity overCredited", body = ErrorBody)), security(("session" = [])))]
#[post("/invoices/{id}/credit-note")]
pub async fn credit_note(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<CreditNoteInputDto>,
) -> Result<HttpResponse, ApiError> {
    let command = MakeCreditNote {
        id: id.0,
        input: input.0.input(),
    };
    let note = state.send(command).await?;
    Ok(HttpResponse::Created().json(InvoiceDto::of(note, state.today())))
}

/// Records a payment of an issued invoice (partial payments add up); once it is paid in full,
/// its prints are marked paid.
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "Invoice id")), request_body = PaymentInputDto, responses((status = 201, body = InvoiceDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: a draft or a credit note", body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: a day in the future, more than is still due", body = ErrorBody)), security(("session" = [])))]
#[post("/invoices/{id}/payments")]
pub async fn record_payment(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<PaymentInputDto>,
) -> Result<HttpResponse, ApiError> {
    let input = input.0;
    let today = state.today();
    let command = RecordPayment {
        id: id.0,
        input: PaymentInput {
            paid_on: input.paid_on,
            amount: input.amount,
            method: input.method.into(),
            note: input.note,
        },
        today,
    };
    let invoice = state.send(command).await?;
    Ok(HttpResponse::Created().json(InvoiceDto::of(invoice, today)))
}

/// Archives or restores an invoice or credit note: an archived one is left out of lists
/// (`includeArchived` shows it), never deleted.
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "Invoice id")), request_body = ArchiveInput, responses((status = 200, body = InvoiceDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/invoices/{id}/archive")]
pub async fn archive(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<ArchiveInput>,
) -> Result<Json<InvoiceDto>, ApiError> {
    let command = ArchiveInvoice {
        id: id.0,
        archived: input.0.archived,
    };
    Ok(Json(InvoiceDto::of(
        state.send(command).await?,
        state.today(),
    )))
}

/// The XRechnung 3.0 XML (UN/CEFACT CII) of an issued invoice or credit note, as a download
/// named after its number.
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "Invoice id")), responses((status = 200, description = "XRechnung 3.0 CII", content_type = "application/xml", body = String), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: still a DRAFT", body = ErrorBody)), security(("session" = [])))]
#[get("/invoices/{id}/xrechnung.xml")]
pub async fn xrechnung(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    let (number, xml) = state.query(InvoiceXml(id.0)).await?;
    let file = format!("attachment; filename=\"{number}.xml\"");
    Ok(HttpResponse::Ok()
        .content_type("application/xml; charset=utf-8")
        .insert_header(("Content-Disposition", file))
        .body(xml))
}

/// The ZUGFeRD 2.3 / Factur-X 1.07 PDF (PDF/A-3b, profile EN 16931) of an issued invoice or
/// credit note: the invoice in its language with its CII XML embedded as `factur-x.xml`
/// (BT-24 `urn:cen.eu:en16931:2017`, otherwise the values of the XRechnung), as a download
/// named after its number.
#[utoipa::path(tag = "invoices", params(("id" = String, Path, description = "Invoice id")), responses((status = 200, description = "ZUGFeRD / Factur-X PDF/A-3", content_type = "application/pdf", body = Vec<u8>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "INVALID_STATE: still a DRAFT", body = ErrorBody)), security(("session" = [])))]
#[get("/invoices/{id}/pdf")]
pub async fn pdf(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    let printed = state.query(InvoicePdf(id.0)).await?;
    let zone = state.index.time_zone().clone();
    let number = printed.document.number.clone();
    download(&number, move || invoice_pdf(&printed, zone)).await
}
