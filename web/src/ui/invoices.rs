//! Invoices in the browser (issue 47): the list, an invoice made from a customer's DONE prints
//! (with a shipping line and a discount), its page with its lines, VAT and totals and what its
//! state allows (issue, delete, credit note, the XRechnung XML). Forms go through the API's own
//! input and rules.

use super::Chrome;
use super::changes::{self, ChangeRow};
use super::choices;
use super::customer_prints::{Offered, priced};
use super::forms::{Faults, Submitted};
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use crate::api::invoices::{InvoiceDto, InvoiceInputDto, PaymentInputDto};
use crate::error::{ApiError, Code};
use crate::input;
use crate::wire;
use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Path};
use actors::inventory::customers::Customers;
use actors::invoices::{
    CreateInvoice, CreditNoteInput, DeleteInvoice, GetInvoice, InvoicedPrints, IssueInvoice,
    ListInvoices, MakeCreditNote, PaymentInput, RecordPayment,
};
use actors::list::ListQuery;
use askama::Template;
use storage::Id;

/// An invoice as a row of the list.
struct Row {
    id: String,
    number: String,
    kind: String,
    customer: String,
    issued_on: String,
    gross: String,
}

#[derive(Template)]
#[template(path = "invoices.html")]
struct ListPage {
    chrome: Chrome,
    rows: Vec<Row>,
}

/// The number of `invoice`, or "draft" in words.
fn number(chrome: &Chrome, invoice: &InvoiceDto) -> String {
    invoice
        .number
        .clone()
        .unwrap_or_else(|| chrome.t.t("quotes.draftNumber").into())
}

/// `GET /invoices`: invoices and credit notes, newest first.
pub async fn list(ctx: Ctx) -> Page {
    let query = ListQuery {
        page_size: 100,
        ..ListQuery::default()
    };
    let page = ctx
        .query(ListInvoices {
            query,
            customer: None,
        })
        .await?;
    let t = &ctx.chrome.t;
    let today = ctx.state.today();
    let rows = page
        .items
        .into_iter()
        .map(|v| {
            let i = InvoiceDto::of(v, today);
            Row {
                number: number(&ctx.chrome, &i),
                kind: t
                    .t(&format!("invoices.kind.{}", wire::name(&i.kind)))
                    .into(),
                customer: i.customer_name.clone(),
                issued_on: i
                    .issued_on
                    .as_deref()
                    .map(|d| t.date(d))
                    .unwrap_or_default(),
                gross: t.money_str(&i.totals.grand_total),
                id: i.id,
            }
        })
        .collect();
    let page = ListPage {
        chrome: ctx.chrome,
        rows,
    };
    Ok(html(StatusCode::OK, page.render()))
}

#[derive(Template)]
#[template(path = "invoice_form.html")]
struct FormPage {
    chrome: Chrome,
    customers: Vec<choices::Choice>,
    customer: String,
    prints: Vec<Offered>,
    form: Submitted,
    faults: Faults,
}

/// The customer's DONE prints with a sales value that no invoice bills yet.
async fn billable(ctx: &Ctx, customer: Option<Id>) -> Result<Vec<Offered>, ApiError> {
    let billed: Vec<String> = ctx
        .state
        .query(InvoicedPrints)
        .await?
        .iter()
        .map(ToString::to_string)
        .collect();
    priced(ctx, customer, "DONE", &billed).await
}

async fn form_page(ctx: Ctx, form: Submitted, faults: Faults, status: StatusCode) -> Page {
    let customers = choices::of::<Customers>(&ctx).await?;
    let customer = form.get("customerId").to_string();
    let prints = billable(&ctx, customer.parse().ok())
        .await
        .map_err(|e| ctx.fail(&e))?;
    let page = FormPage {
        customers,
        customer,
        prints,
        form,
        faults,
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

/// `GET /invoices/new[?customerId=…&printId=…]`: a new invoice's form (the customer first, then
/// their DONE prints; `printId` ticks one).
pub async fn new_form(ctx: Ctx) -> Page {
    let mut form = Submitted::default();
    form.set("customerId", ctx.param("customerId"));
    let print = ctx.param("printId");
    if !print.is_empty() {
        form.set("printIds[]", print);
    }
    form_page(ctx, form, Faults::default(), StatusCode::OK).await
}

/// `POST /invoices`: creates a DRAFT invoice and shows it, or the form again with its faults.
pub async fn create(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let tree = form.tree_with_list(&[], "printIds");
    let made = match ctx.typed(|| input::parse::<InvoiceInputDto>(tree)) {
        Ok(dto) => match dto.input() {
            Ok(input) => ctx.state.send(CreateInvoice(input)).await,
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    match made {
        Ok(view) => Ok(see_other(&paths::invoice(view.invoice.id))),
        Err(e) => {
            let status = e.code.status();
            form_page(ctx, form, Faults::of(&e), status).await
        }
    }
}

#[derive(Template)]
#[template(path = "invoice.html")]
struct InvoicePage {
    chrome: Chrome,
    /// Who changed what of the invoice.
    changes: Vec<ChangeRow>,
    invoice: InvoiceDto,
    number: String,
    kind: String,
    /// (name, quantity, unit price, net, VAT in words).
    lines: Vec<(String, String, String, String, String)>,
    /// (reason, amount, VAT in words).
    allowances: Vec<(String, String, String)>,
    /// (VAT in words, basis, amount).
    breakdown: Vec<(String, String, String)>,
    totals: (String, String, String),
    issued_on: String,
    due_on: String,
    /// The payment status in words, what is paid and what is still due.
    payment: (String, String, String),
    /// (day, amount, method) of each payment, in words.
    payments: Vec<(String, String, String)>,
    /// The payment form as typed (after a refusal).
    form: Submitted,
    today: String,
    faults: Faults,
    /// Why the last command was refused, in words (INVOICE_INCOMPLETE names the fields).
    refusal: String,
}

impl InvoicePage {
    fn of(
        chrome: Chrome,
        invoice: InvoiceDto,
        (form, faults): (Submitted, Faults),
        refusal: String,
        today: String,
    ) -> InvoicePage {
        let t = &chrome.t;
        let vat = |category: &str, rate: &str| match category {
            "STANDARD" => format!("{} %", t.number_str(rate, 0)),
            other => t.t(&format!("invoices.vat.{other}")).to_string(),
        };
        InvoicePage {
            changes: Vec::new(),
            lines: invoice
                .lines
                .iter()
                .map(|l| {
                    (
                        l.name.clone(),
                        t.exact_str(&l.quantity),
                        t.money_str(&l.unit_price),
                        t.money_str(&l.net),
                        vat(&wire::name(&l.vat_category), &l.vat_rate),
                    )
                })
                .collect(),
            allowances: invoice
                .allowances
                .iter()
                .map(|a| {
                    let v = vat(&wire::name(&a.vat_category), &a.vat_rate);
                    (a.reason.clone(), t.money_str(&a.amount), v)
                })
                .collect(),
            breakdown: invoice
                .totals
                .vat_breakdown
                .iter()
                .map(|b| {
                    let v = vat(&wire::name(&b.category), &b.rate);
                    (v, t.money_str(&b.basis), t.money_str(&b.amount))
                })
                .collect(),
            totals: (
                t.money_str(&invoice.totals.tax_basis),
                t.money_str(&invoice.totals.tax),
                t.money_str(&invoice.totals.grand_total),
            ),
            number: number(&chrome, &invoice),
            kind: t
                .t(&format!("invoices.kind.{}", wire::name(&invoice.kind)))
                .into(),
            payment: (
                t.t(&format!(
                    "invoices.status.{}",
                    wire::name(&invoice.payment_status)
                ))
                .into(),
                t.money_str(&invoice.paid),
                t.money_str(&invoice.outstanding),
            ),
            payments: invoice
                .payments
                .iter()
                .map(|p| {
                    let key = format!("invoices.method.{}", wire::name(&p.method));
                    (t.date(&p.paid_on), t.money_str(&p.amount), t.t(&key).into())
                })
                .collect(),
            form,
            today,
            issued_on: invoice
                .issued_on
                .as_deref()
                .map(|d| t.date(d))
                .unwrap_or_default(),
            due_on: invoice
                .due_on
                .as_deref()
                .map(|d| t.date(d))
                .unwrap_or_default(),
            invoice,
            faults,
            refusal,
            chrome,
        }
    }

    fn is_draft(&self) -> bool {
        self.invoice.status == "DRAFT"
    }

    fn is_issued_invoice(&self) -> bool {
        !self.is_draft() && self.invoice.corrects_id.is_none()
    }

    fn takes_payments(&self) -> bool {
        self.is_issued_invoice() && self.invoice.outstanding != "0"
    }
}

/// `GET /invoices/{id}`: an invoice with its lines, VAT and totals and its commands.
pub async fn show(ctx: Ctx) -> Page {
    let today = ctx.state.today();
    let invoice = InvoiceDto::of(ctx.query(GetInvoice(ctx.id()?)).await?, today);
    let mut form = Submitted::default();
    form.set("paidOn", today.to_string());
    form.set("amount", invoice.outstanding.clone());
    let faults = (form, Faults::default());
    let changes = changes::of(&ctx, ctx.id()?).await?;
    let mut page = InvoicePage::of(
        ctx.chrome,
        invoice,
        faults,
        String::new(),
        today.to_string(),
    );
    page.changes = changes;
    Ok(html(StatusCode::OK, page.render()))
}

/// `POST /invoices/{id}/actions/{action}`: issue, delete, credit-note or payment; a refusal
/// shows the invoice again with its reason (a payment's beside its fields).
pub async fn act(ctx: Ctx, path: Path<(String, String)>, body: Bytes) -> Page {
    let id = ctx.id()?;
    let state = &ctx.state;
    let form = Submitted::parse(&body);
    let done = match path.1.as_str() {
        "payment" => match ctx.typed(|| input::parse::<PaymentInputDto>(form.tree(&[]))) {
            Ok(p) => {
                let today = state.today();
                let input = PaymentInput {
                    paid_on: p.paid_on,
                    amount: p.amount,
                    method: p.method.into(),
                    note: p.note,
                };
                let command = RecordPayment { id, input, today };
                state.send(command).await.map(|_| paths::invoice(id))
            }
            Err(e) => Err(e),
        },
        "issue" => {
            let today = state.today();
            state
                .send(IssueInvoice { id, today })
                .await
                .map(|_| paths::invoice(id))
        }
        "delete" => state
            .send(DeleteInvoice(id))
            .await
            .map(|()| paths::INVOICES.to_string()),
        "credit-note" => state
            .send(MakeCreditNote {
                id,
                input: CreditNoteInput::default(),
            })
            .await
            .map(|note| paths::invoice(note.invoice.id)),
        _ => Err(ApiError::new(Code::NotFound)),
    };
    match done {
        Ok(next) => Ok(see_other(&next)),
        Err(e) => {
            let status = e.code.status();
            let today = ctx.state.today();
            let invoice = InvoiceDto::of(ctx.query(GetInvoice(id)).await?, today);
            let refusal = match e.code {
                Code::InvoiceIncomplete => e.message.clone(),
                _ => String::new(),
            };
            let faults = (form, Faults::of(&e));
            let changes = changes::of(&ctx, id).await?;
            let mut page = InvoicePage::of(ctx.chrome, invoice, faults, refusal, today.to_string());
            page.changes = changes;
            Ok(html(status, page.render()))
        }
    }
}
