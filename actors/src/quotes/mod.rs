//! Quotes (issue 46): prints (drafts and series runs) offered to one customer until a date.
//!
//! A quote is a DRAFT while it is put together, its lines following its prints' prices
//! ([`offer`]); sending it takes the next number of its year's gapless range (`A-2026-0001`,
//! one write transaction with the quote, so no number is skipped or given twice) and freezes
//! its lines and totals. A SENT quote is ACCEPTED or DECLINED by the customer, or EXPIRED once
//! its validity date has passed ([`ExpireQuotes`], run by the scheduler when the day turns).
//! Accepting sets each print's sales value to its lines' sum, the price the customer agreed to;
//! its drafts stay DRAFT (their cost is still taken at the prices of the day they are printed:
//! the shop moves each on when its printer is free, through the maintenance gate like any
//! other). Only a DRAFT quote is changed or deleted: a number once given stays with its quote.
//! A print is on at most one quote that is not DECLINED or EXPIRED.

pub mod offer;

use crate::command::{Command, PrintsWriter, Query, Snapshot};
use crate::list::{ListQuery, Page};
use crate::money::Overflow;
use crate::txn::Txn;
use crate::values::{Day, Note, note_text};
use crate::{Error, FieldError, Result, prints, settings};
use jiff::civil::Date;
use storage::records::{Customer, Invoice, Offer, Print, PrintStatus, Quote, QuoteStatus};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// The most prints one quote offers.
pub const MAX_PRINTS: usize = 100;

/// The prefix of the quotes' number range (Angebot).
const RANGE: &str = "A";

/// The editable fields of a quote (create, full replace).
#[derive(Debug, Clone)]
pub struct QuoteInput {
    /// The customer it is made out to.
    pub customer_id: Id,
    /// The prints it offers, 1 to [`MAX_PRINTS`], each DRAFT, priced and the customer's.
    pub print_ids: Vec<Id>,
    /// The last day it holds, today or later.
    pub valid_until: Day,
    /// Free text under the lines.
    pub note: Option<Note>,
}

/// A quote as read: the record, its offer (frozen once sent; derived from its prints while
/// DRAFT, none while one of them has no sales value), its customer and the language it is
/// written in (the customer's, else the company's, else the instance's default).
#[derive(Debug, Clone)]
pub struct QuoteView {
    /// The record.
    pub quote: Quote,
    /// What it offers.
    pub offer: Option<Offer>,
    /// Its customer.
    pub customer: Customer,
    /// `de-DE` or `en-US`: the customer's, else Settings › Company's, else the instance's
    /// default.
    pub language: String,
    /// The instance currency.
    pub currency: String,
}

/// The quote `id`. Errors: [`Error::NotFound`].
pub fn get(tx: &impl Tx, id: Id) -> Result<Quote> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// Whether `quote` still binds its prints (not DECLINED or EXPIRED).
fn binds(quote: &Quote) -> bool {
    !matches!(quote.status, QuoteStatus::Declined | QuoteStatus::Expired)
}

/// Checks `input` for the quote `this` (none for a new one) on `today`; answers its prints.
///
/// Errors: [`Error::Validation`]: `customerId` `errors.notFound`; `printIds` `errors.tooFew` or
/// `errors.tooMany`; `printIds[i]` `errors.notFound`, `errors.duplicate`,
/// `errors.otherCustomer` (not the quote's customer's), `errors.notDraft`, `errors.unpriced` (no
/// sales value), `errors.quoted` (on another quote that binds it); `validUntil`
/// `errors.inThePast`.
fn check(tx: &impl Tx, input: &QuoteInput, this: Option<Id>, today: Date) -> Result<Vec<Print>> {
    let mut faults = Vec::new();
    if repo::get::<Customer>(tx, input.customer_id)?.is_none() {
        faults.push(FieldError::new("customerId", "errors.notFound"));
    }
    match input.print_ids.len() {
        0 => faults.push(FieldError::new("printIds", "errors.tooFew")),
        n if n > MAX_PRINTS => faults.push(FieldError::new("printIds", "errors.tooMany")),
        _ => {}
    }
    let others: Vec<Quote> = repo::all::<Quote>(tx)?
        .into_iter()
        .filter(|q| Some(q.id) != this && binds(q))
        .collect();
    let mut found = Vec::new();
    for (i, id) in input.print_ids.iter().enumerate().take(MAX_PRINTS) {
        let at = format!("printIds[{i}]");
        let fault = match repo::get::<Print>(tx, *id)? {
            _ if input.print_ids[..i].contains(id) => Some("errors.duplicate"),
            None => Some("errors.notFound"),
            Some(p) if p.customer_id != Some(input.customer_id) => Some("errors.otherCustomer"),
            Some(p) if p.status != PrintStatus::Draft => Some("errors.notDraft"),
            Some(p) if p.sales_value.is_none() => Some("errors.unpriced"),
            Some(_) if others.iter().any(|q| q.print_ids.contains(id)) => Some("errors.quoted"),
            Some(p) => {
                found.push(p);
                None
            }
        };
        if let Some(key) = fault {
            faults.push(FieldError::new(at, key));
        }
    }
    if *input.valid_until.get() < today {
        faults.push(FieldError::new("validUntil", "errors.inThePast"));
    }
    match faults.is_empty() {
        true => Ok(found),
        false => Err(Error::Validation(faults)),
    }
}

/// The VAT rate quotes are made at: the price rule's, 0 for a small business (§ 19 UStG).
fn vat_percent(tx: &impl Tx) -> Result<rust_decimal::Decimal> {
    match repo::company(tx)?.small_business {
        true => Ok(rust_decimal::Decimal::ZERO),
        false => Ok(repo::pricing(tx)?.vat_percent),
    }
}

/// The offer of `prints` at today's VAT rate; `None` when one of them has no sales value.
/// Errors: `errors.outOfRange` at `printIds` beyond the money bound.
fn offer_of(tx: &impl Tx, prints: &[Print]) -> Result<Option<Offer>> {
    let out_of_range = |_: Overflow| Error::field("printIds", "errors.outOfRange");
    let mut lines = Vec::new();
    for print in prints {
        match offer::lines(print).map_err(out_of_range)? {
            Some(mine) => lines.extend(mine),
            None => return Ok(None),
        }
    }
    offer::offer(lines, vat_percent(tx)?)
        .map(Some)
        .map_err(out_of_range)
}

fn write(
    txn: &Txn,
    mut quote: Quote,
    input: &QuoteInput,
    today: Date,
    now: Timestamp,
) -> Result<Quote> {
    let prints = check(txn, input, Some(quote.id), today)?;
    offer_of(txn, &prints)?;
    quote.customer_id = input.customer_id;
    quote.print_ids = input.print_ids.clone();
    quote.valid_until = input.valid_until.get().to_string();
    quote.note = note_text(input.note.clone());
    quote.updated_at = now;
    repo::put(txn, &quote)?;
    Ok(quote)
}

/// Creates a DRAFT quote. Errors: as [`check`].
pub fn create(txn: &Txn, input: &QuoteInput, today: Date, now: Timestamp) -> Result<Quote> {
    let quote = Quote {
        id: Id::new(),
        customer_id: input.customer_id,
        print_ids: Vec::new(),
        valid_until: String::new(),
        note: None,
        status: QuoteStatus::Draft,
        number: None,
        offer: None,
        sent_at: None,
        decided_at: None,
        created_at: now,
        updated_at: now,
    };
    write(txn, quote, input, today, now)
}

/// The DRAFT quote `id`. Errors: [`Error::NotFound`]; [`Error::InvalidState`] once sent.
fn draft(tx: &impl Tx, id: Id) -> Result<Quote> {
    let quote = get(tx, id)?;
    match quote.status {
        QuoteStatus::Draft => Ok(quote),
        _ => Err(Error::InvalidState),
    }
}

/// Replaces a DRAFT quote's fields. Errors: as [`draft`] and [`check`].
pub fn replace(
    txn: &Txn,
    id: Id,
    input: &QuoteInput,
    today: Date,
    now: Timestamp,
) -> Result<Quote> {
    let quote = draft(txn, id)?;
    write(txn, quote, input, today, now)
}

/// Deletes a DRAFT quote (its prints are free again). Errors: as [`draft`].
pub fn delete(txn: &Txn, id: Id) -> Result<()> {
    draft(txn, id)?;
    repo::remove::<Quote>(txn, id)?;
    Ok(())
}

/// Sends a DRAFT quote: numbers it from `today`'s year and freezes its offer.
/// Errors: as [`draft`]; [`Error::QuoteOutdated`] with the faults [`check`] finds (a print
/// since gone from DRAFT or without a sales value, a validity date now past).
pub fn send(txn: &Txn, id: Id, today: Date, now: Timestamp) -> Result<Quote> {
    let mut quote = draft(txn, id)?;
    let input = QuoteInput {
        customer_id: quote.customer_id,
        print_ids: quote.print_ids.clone(),
        valid_until: Day::trusted(parse_day(&quote.valid_until)?),
        note: None,
    };
    let prints = check(txn, &input, Some(id), today).map_err(|e| match e {
        Error::Validation(faults) => Error::QuoteOutdated(faults),
        other => other,
    })?;
    let offer = offer_of(txn, &prints)?.ok_or(Error::Unexpected("a checked quote's offer"))?;
    let range = format!("{RANGE}-{:04}", today.year());
    let number = repo::next_number(txn, &range)?;
    quote.number = Some(format!("{range}-{number:04}"));
    quote.offer = Some(offer);
    quote.status = QuoteStatus::Sent;
    quote.sent_at = Some(now);
    quote.updated_at = now;
    repo::put(txn, &quote)?;
    Ok(quote)
}

fn parse_day(text: &str) -> Result<Date> {
    text.parse()
        .map_err(|_| Error::Unexpected("a stored validity date"))
}

/// The SENT quote `id`. Errors: [`Error::NotFound`]; [`Error::InvalidState`] unless SENT;
/// [`Error::QuoteExpired`] when its validity date is before `today`.
fn sent(tx: &impl Tx, id: Id, today: Date) -> Result<Quote> {
    let quote = get(tx, id)?;
    if quote.status != QuoteStatus::Sent {
        return Err(Error::InvalidState);
    }
    if parse_day(&quote.valid_until)? < today {
        return Err(Error::QuoteExpired);
    }
    Ok(quote)
}

/// Accepts a SENT quote: each of its prints takes its lines' sum as its sales value.
/// Errors: as [`sent`]; [`Error::InvoiceIssued`] when one of its prints is on an issued
/// invoice (the figures an issued invoice carries never change).
pub fn accept(txn: &Txn, id: Id, today: Date, now: Timestamp) -> Result<Quote> {
    let mut quote = sent(txn, id, today)?;
    let billed = repo::all::<Invoice>(txn)?
        .into_iter()
        .any(|i| i.issued.is_some() && i.print_ids.iter().any(|p| quote.print_ids.contains(p)));
    if billed {
        return Err(Error::InvoiceIssued);
    }
    let offer = quote
        .offer
        .clone()
        .ok_or(Error::Unexpected("a sent quote's offer"))?;
    for print_id in &quote.print_ids {
        prints::set_agreed_price(txn, *print_id, offer::net_of(&offer, *print_id), now)?;
    }
    decide(txn, &mut quote, QuoteStatus::Accepted, now)?;
    Ok(quote)
}

/// Declines a SENT quote. Errors: as [`sent`].
pub fn decline(txn: &Txn, id: Id, today: Date, now: Timestamp) -> Result<Quote> {
    let mut quote = sent(txn, id, today)?;
    decide(txn, &mut quote, QuoteStatus::Declined, now)?;
    Ok(quote)
}

fn decide(txn: &Txn, quote: &mut Quote, status: QuoteStatus, now: Timestamp) -> Result<()> {
    quote.status = status;
    quote.decided_at = Some(now);
    quote.updated_at = now;
    Ok(repo::put(txn, quote)?)
}

/// Marks EXPIRED every SENT quote whose validity date is before `today`; answers how many.
pub fn expire(txn: &Txn, today: Date, now: Timestamp) -> Result<usize> {
    let mut expired = 0;
    for mut quote in repo::all::<Quote>(txn)? {
        if quote.status == QuoteStatus::Sent && parse_day(&quote.valid_until)? < today {
            decide(txn, &mut quote, QuoteStatus::Expired, now)?;
            expired += 1;
        }
    }
    Ok(expired)
}

/// `quote` as read (see [`QuoteView`]).
pub fn view(tx: &impl Tx, quote: Quote) -> Result<QuoteView> {
    let settings = settings::get(tx)?;
    let customer: Customer =
        repo::get(tx, quote.customer_id)?.ok_or(Error::Unexpected("a quote's customer"))?;
    let offer = match &quote.offer {
        Some(frozen) => Some(frozen.clone()),
        None => {
            let mut prints = Vec::with_capacity(quote.print_ids.len());
            for id in &quote.print_ids {
                prints.push(prints::get(tx, *id)?);
            }
            offer_of(tx, &prints).unwrap_or(None)
        }
    };
    let language = customer
        .billing
        .language
        .clone()
        .or(repo::company(tx)?.language)
        .unwrap_or(settings.default_language);
    Ok(QuoteView {
        quote,
        offer,
        customer,
        language,
        currency: settings.currency,
    })
}

/// What a quote list is narrowed to.
#[derive(Debug, Clone, Default)]
pub struct QuoteFilter {
    /// Only quotes in this state.
    pub status: Option<QuoteStatus>,
    /// Only this customer's.
    pub customer_id: Option<Id>,
}

/// Quotes matching `filter` and `query` (search covers number and note), newest first.
pub fn list(tx: &impl Tx, query: &ListQuery, filter: &QuoteFilter) -> Result<Page<QuoteView>> {
    let mut rows: Vec<Quote> = repo::all::<Quote>(tx)?
        .into_iter()
        .filter(|q| filter.status.is_none_or(|s| q.status == s))
        .filter(|q| filter.customer_id.is_none_or(|c| q.customer_id == c))
        .filter(|q| {
            query.matches(&[
                q.number.as_deref().unwrap_or(""),
                q.note.as_deref().unwrap_or(""),
            ])
        })
        .collect();
    rows.sort_by_key(|q| std::cmp::Reverse((q.created_at, q.id)));
    let page = Page::cut(rows, query);
    let mut items = Vec::with_capacity(page.items.len());
    for quote in page.items {
        items.push(view(tx, quote)?);
    }
    Ok(Page {
        items,
        total: page.total,
        page: page.page,
        page_size: page.page_size,
    })
}

macro_rules! quote_command {
    ($(#[$doc:meta])* $name:ident { $($field:ident: $ty:ty),* } => |$txn:ident, $c:ident| $body:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            $(
                #[allow(missing_docs)]
                pub $field: $ty,
            )*
        }

        impl Command for $name {
            type Writer = PrintsWriter;
            type Reply = QuoteView;

            fn apply(&mut self, $txn: &Txn) -> Result<QuoteView> {
                let $c = &*self;
                let quote = $body?;
                view($txn, quote)
            }
        }
    };
}

quote_command!(
    /// Creates a DRAFT quote; `today` in the shop's time zone. Errors: as [`create`].
    CreateQuote { input: QuoteInput, today: Date } => |txn, c| create(txn, &c.input, c.today, Timestamp::now())
);
quote_command!(
    /// Replaces a DRAFT quote's fields. Errors: as [`replace`].
    ReplaceQuote { id: Id, input: QuoteInput, today: Date } => |txn, c| replace(txn, c.id, &c.input, c.today, Timestamp::now())
);
quote_command!(
    /// Sends a DRAFT quote (numbered, frozen). Errors: as [`send`].
    SendQuote { id: Id, today: Date } => |txn, c| send(txn, c.id, c.today, Timestamp::now())
);
quote_command!(
    /// Accepts a SENT quote (its prints take its prices). Errors: as [`accept`].
    AcceptQuote { id: Id, today: Date } => |txn, c| accept(txn, c.id, c.today, Timestamp::now())
);
quote_command!(
    /// Declines a SENT quote. Errors: as [`decline`].
    DeclineQuote { id: Id, today: Date } => |txn, c| decline(txn, c.id, c.today, Timestamp::now())
);

/// Deletes a DRAFT quote. Errors: as [`delete`].
#[derive(Debug, Clone, Copy)]
pub struct DeleteQuote(pub Id);

impl Command for DeleteQuote {
    type Writer = PrintsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        delete(txn, self.0)
    }
}

/// Expires the SENT quotes whose validity date is before `today`; replies how many.
#[derive(Debug, Clone, Copy)]
pub struct ExpireQuotes {
    /// Today in the shop's time zone.
    pub today: Date,
}

impl Command for ExpireQuotes {
    type Writer = PrintsWriter;
    type Reply = usize;

    fn apply(&mut self, txn: &Txn) -> Result<usize> {
        expire(txn, self.today, Timestamp::now())
    }
}

/// One quote as read. Errors: [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct GetQuote(pub Id);

impl Query for GetQuote {
    type Answer = QuoteView;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<QuoteView> {
        view(snapshot, get(snapshot, self.0)?)
    }
}

/// Quotes matching a list query and filter, newest first.
#[derive(Debug, Clone)]
pub struct ListQuotes {
    /// Search and page.
    pub query: ListQuery,
    /// State and customer.
    pub filter: QuoteFilter,
}

impl Query for ListQuotes {
    type Answer = Page<QuoteView>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Page<QuoteView>> {
        list(snapshot, &self.query, &self.filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::{Store, StoreOptions};

    fn sent_until(valid_until: &str) -> Quote {
        Quote {
            id: Id::new(),
            customer_id: Id::new(),
            print_ids: vec![Id::new()],
            valid_until: valid_until.to_string(),
            note: None,
            status: QuoteStatus::Sent,
            number: Some("A-2026-0001".into()),
            offer: None,
            sent_at: Some(Timestamp(0)),
            decided_at: None,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        }
    }

    fn day(text: &str) -> Date {
        text.parse().unwrap()
    }

    #[test]
    fn a_sent_quote_expires_the_day_after_its_validity_and_is_then_neither_accepted_nor_declined() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let (ends_today, ended) = (sent_until("2026-11-27"), sent_until("2026-11-26"));
        let txn = Txn::new(store.begin_write().unwrap());
        repo::put(&txn, &ends_today).unwrap();
        repo::put(&txn, &ended).unwrap();
        assert!(matches!(
            accept(&txn, ended.id, day("2026-11-27"), Timestamp(1)),
            Err(Error::QuoteExpired)
        ));
        assert!(matches!(
            decline(&txn, ended.id, day("2026-11-27"), Timestamp(1)),
            Err(Error::QuoteExpired)
        ));
        assert_eq!(expire(&txn, day("2026-11-27"), Timestamp(2)).unwrap(), 1);
        assert_eq!(get(&txn, ended.id).unwrap().status, QuoteStatus::Expired);
        assert_eq!(get(&txn, ended.id).unwrap().decided_at, Some(Timestamp(2)));
        assert_eq!(get(&txn, ends_today.id).unwrap().status, QuoteStatus::Sent);
        assert_eq!(expire(&txn, day("2026-11-27"), Timestamp(3)).unwrap(), 0);
        assert!(matches!(
            accept(&txn, ended.id, day("2026-11-27"), Timestamp(4)),
            Err(Error::InvalidState)
        ));
        assert_eq!(expire(&txn, day("2026-11-28"), Timestamp(5)).unwrap(), 1);
        assert_eq!(
            get(&txn, ends_today.id).unwrap().status,
            QuoteStatus::Expired
        );
    }

    #[test]
    fn numbers_are_taken_one_after_another_per_range_and_year() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let txn = store.begin_write().unwrap();
        let taken: Vec<u32> = ["A-2026", "A-2026", "A-2027", "A-2026"]
            .iter()
            .map(|r| repo::next_number(&txn, r).unwrap())
            .collect();
        assert_eq!(taken, [1, 2, 1, 3]);
    }
}
