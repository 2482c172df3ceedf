//! The prints writer's commands and the print queries: what the API and the UI send, each with
//! every rule it needs. Every command that stores a print notes it in its transaction, so the
//! list projection follows after the commit (see [`crate::txn`]).

use super::draft::{self, CopyKind};
use super::lifecycle;
use super::outcome::{self, CorrectionInput, OutcomeInput};
use super::plan::PrintInput;
use super::query::{PrintFilter, Totals};
use crate::command::PrintsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::inventory::ListQuery;
use crate::inventory::get;
use crate::maintenance::tasks::{self, Override};
use crate::txn::Txn;
use crate::{Error, Result, list, series, settings};
use rust_decimal::Decimal;
use std::collections::HashMap;
use storage::records::{
    Customer, Filament, Invoice, InvoiceKind, MaintenanceTask, Print, PrintSource, PrintStatus,
    Quote, Series, Settings, StockUnit,
};
use storage::repo::{self, all};
use storage::{Id, Timestamp};

macro_rules! print_command {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident: $ty:ty),* $(,)? }, |$this:ident, $txn:ident, $now:ident| $body:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: $ty,)*
        }

        impl Command for $name {
            type Writer = PrintsWriter;
            type Reply = Print;

            fn apply(&mut self, $txn: &Txn) -> Result<Print> {
                let ($this, $now) = (&*self, Timestamp::now());
                $body
            }
        }
    };
}

print_command!(
    /// Creates a DRAFT priced at current prices, remembering the sliced file it was made from.
    /// Errors: [`Error::Validation`] with the path of every field at fault.
    CreateDraft { /// The draft data.
        input: PrintInput, /// The sliced file it was made from, if any.
        source: Option<PrintSource> },
    |this, txn, now| {
        let print = draft::create(txn, &this.input, now)?;
        if let Some(source) = &this.source {
            repo::put_source(txn, print.id, source)?;
        }
        Ok(print)
    }
);

print_command!(
    /// Replaces a draft's data (a multipart print needs `parts`).
    /// Errors: [`Error::NotFound`]; [`Error::Immutable`] once finalized; [`Error::Validation`].
    ReplaceDraft { /// The print.
        id: Id, /// The new draft data.
        input: PrintInput },
    |this, txn, now| draft::replace(txn, this.id, &this.input, now)
);

print_command!(
    /// Moves a print to a status; leaving DRAFT freezes the cost snapshot.
    /// Errors: [`Error::NotFound`]; [`Error::Immutable`] back to DRAFT; [`Error::Validation`].
    SetStatus { /// The print.
        id: Id, /// The new status.
        status: PrintStatus, /// Who moves it to (or past) PRINTING despite an overdue blocking task, and why.
        maintenance_override: Option<Override> },
    |this, txn, now| lifecycle::set_status(txn, this.id, this.status, this.maintenance_override.as_ref(), now)
);

print_command!(
    /// Gives a DRAFT retry the failed print's sales value. Errors: as
    /// [`lifecycle::take_retry_price`].
    TakeRetryPrice { /// The retry.
        id: Id },
    |this, txn, now| lifecycle::take_retry_price(txn, this.id, now)
);

print_command!(
    /// Moves a print to DONE (the compatibility action). Errors: as [`SetStatus`].
    Complete { /// The print.
        id: Id },
    |this, txn, now| lifecycle::complete(txn, this.id, now)
);

print_command!(
    /// Sets the paid flag (`paidAt` follows). Errors: [`Error::NotFound`].
    SetPaid { /// The print.
        id: Id, /// Paid or not.
        paid: bool },
    |this, txn, now| lifecycle::set_paid(txn, this.id, this.paid, now)
);

print_command!(
    /// Archives or restores a print. Errors: [`Error::NotFound`].
    ArchivePrint { /// The print.
        id: Id, /// The new archive state.
        archived: bool },
    |this, txn, now| lifecycle::set_archived(txn, this.id, this.archived, now)
);

print_command!(
    /// A new DRAFT copy at current prices: a duplicate, or a repeat (sales value cleared,
    /// `repeatOfId` set). Errors: [`Error::NotFound`]; [`Error::Validation`].
    CopyPrint { /// The source print.
        id: Id, /// Duplicate or repeat.
        kind: CopyKind },
    |this, txn, now| draft::copy(txn, this.id, this.kind, None, now)
);

print_command!(
    /// A new DRAFT retrying a non-archived FAILED print, linked both ways; replies with the
    /// draft. Errors: [`Error::NotFound`]; [`Error::InvalidState`].
    Retry { /// The failed print.
        id: Id },
    |this, txn, now| outcome::retry(txn, this.id, now).map(|(draft, _source)| draft)
);

print_command!(
    /// Records the outcome of a non-archived DONE print and books its consumption.
    /// Errors: as [`outcome::record`].
    RecordOutcome { /// The print.
        id: Id, /// What happened.
        input: OutcomeInput },
    |this, txn, now| outcome::record(txn, this.id, &this.input, now)
);

print_command!(
    /// Moves a PRINTED or SHIPPED print to DONE and records its outcome, in one transaction:
    /// "done, with this outcome" while the part is on the scale. Each step keeps its own rule
    /// (the move as [`lifecycle::set_status`], the outcome as [`outcome::record`], which the spec
    /// takes on DONE prints only); a refused outcome leaves the print where it was.
    /// Errors: [`Error::InvalidState`] from any other status; those of both steps.
    FinishWithOutcome { /// The print.
        id: Id, /// What happened.
        input: OutcomeInput },
    |this, txn, now| finish(txn, this.id, &this.input, now)
);

/// [`FinishWithOutcome`].
fn finish(txn: &Txn, id: Id, input: &OutcomeInput, now: Timestamp) -> Result<Print> {
    let print = draft::get(txn, id)?;
    if !matches!(print.status, PrintStatus::Printed | PrintStatus::Shipped) {
        return Err(Error::InvalidState);
    }
    lifecycle::set_status(txn, id, PrintStatus::Done, None, now)?;
    outcome::record(txn, id, input, now)
}

print_command!(
    /// Appends a corrected revision and books only the consumption deltas.
    /// Errors: as [`outcome::correct`].
    CorrectOutcome { /// The print.
        id: Id, /// The correction.
        input: CorrectionInput },
    |this, txn, now| outcome::correct(txn, this.id, &this.input, now)
);

print_command!(
    /// The next run of a series: a new DRAFT in the series repeating a source print, at current
    /// prices, sales value cleared.
    /// Errors: [`Error::PrintSeriesDisabled`]; [`Error::NotFound`] for the series;
    /// [`Error::Validation`] on `sourcePrintId` when the print is unknown.
    NextRun { /// The series.
        series_id: Id, /// The print the run copies.
        source_print_id: Id },
    |this, txn, now| {
        series::require_enabled(txn)?;
        series::get(txn, this.series_id)?;
        draft::get(txn, this.source_print_id)
            .map_err(|_| Error::field("sourcePrintId", "errors.notFound"))?;
        draft::copy(txn, this.source_print_id, CopyKind::Repeat, Some(Some(this.series_id)), now)
    }
);

/// One print. Errors: [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct GetPrint(pub Id);

impl Query for GetPrint {
    type Answer = Print;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Print> {
        draft::get(snapshot, self.0)
    }
}

/// Prices draft data at current prices; nothing is stored.
/// Errors: [`Error::Validation`] with the path of every field at fault.
#[derive(Debug, Clone)]
pub struct Calculate(pub PrintInput);

impl Query for Calculate {
    type Answer = Print;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Print> {
        draft::calculate(snapshot, &self.0)
    }
}

/// A print with the names shown beside it.
#[derive(Debug, Clone)]
pub struct Detail {
    /// The print.
    pub print: Print,
    /// The sales value a DRAFT retry without one may take from the failed print it retries
    /// (`lifecycle::retry_price`).
    pub retry_price: Option<Decimal>,
    /// Its customer.
    pub customer: Option<Customer>,
    /// Its series.
    pub series: Option<Series>,
    /// The sliced file it was made from.
    pub source: Option<PrintSource>,
    /// The newest quote that offers it (none before one does).
    pub quote: Option<Quote>,
    /// The invoice that bills it (none before one does).
    pub invoice: Option<Invoice>,
    /// The first overdue blocking maintenance task that holds a move it may make
    /// ([`lifecycle::passes_gate`]) now: the page offers the override's reason beside it.
    pub blocking: Option<MaintenanceTask>,
    /// While it is PRINTING, the other prints PRINTING on one of its printers (id, name), oldest
    /// first: two prints on one printer at once is most likely one left behind.
    pub also_printing: Vec<(Id, String)>,
    /// The unit each material its usages use is counted in (grams, millilitres, pieces).
    pub units: HashMap<Id, StockUnit>,
}

/// The other prints PRINTING on a printer of `print` while it is PRINTING (id, name), from the
/// projection (no scan of the prints). Errors: the store or the projection fails.
fn also_printing(snapshot: &Snapshot<'_>, print: &Print) -> Result<Vec<(Id, String)>> {
    if print.status != PrintStatus::Printing {
        return Ok(Vec::new());
    }
    let mut printers: Vec<Id> = print.parts.iter().map(|p| p.printer_id).collect();
    printers.sort();
    printers.dedup();
    let mut others: Vec<Id> = Vec::new();
    for printer in printers {
        let filter = PrintFilter {
            statuses: vec![PrintStatus::Printing],
            printer_id: Some(printer),
            ..PrintFilter::default()
        };
        others.extend(snapshot.index.ids(&filter)?);
    }
    others.retain(|other| *other != print.id);
    others.sort();
    others.dedup();
    others
        .into_iter()
        .map(|other| Ok((other, draft::get(snapshot, other)?.name)))
        .collect()
}

fn detail(snapshot: &Snapshot<'_>, id: Id) -> Result<Detail> {
    let print = draft::get(snapshot, id)?;
    let customer = print
        .customer_id
        .map(|c| get::<Customer>(snapshot, c))
        .transpose()?;
    let series = print
        .series_id
        .map(|s| series::get(snapshot, s))
        .transpose()?;
    let quote = repo::all::<Quote>(snapshot)?
        .into_iter()
        .filter(|q| q.print_ids.contains(&id))
        .max_by_key(|q| (q.created_at, q.id));
    let invoice = repo::all::<Invoice>(snapshot)?
        .into_iter()
        .filter(|i| i.kind == InvoiceKind::Invoice && i.print_ids.contains(&id))
        .max_by_key(|i| (i.created_at, i.id));
    let gated = lifecycle::moves(&print)
        .into_iter()
        .any(|to| lifecycle::passes_gate(print.status, to));
    let blocking = if gated {
        tasks::overdue_blocking(snapshot, &print, Timestamp::now())?
            .into_iter()
            .next()
    } else {
        None
    };
    let mut units = HashMap::new();
    for usage in print.usages() {
        if let Some(material) = repo::get::<Filament>(snapshot, usage.filament_id)? {
            units.insert(material.id, material.unit);
        }
    }
    Ok(Detail {
        units,
        also_printing: also_printing(snapshot, &print)?,
        blocking,
        retry_price: lifecycle::retry_price(snapshot, &print)?,
        invoice,
        quote,
        source: repo::source(snapshot, print.id)?,
        print,
        customer,
        series,
    })
}

/// One print with its customer and series. Errors: [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct PrintDetail(pub Id);

impl Query for PrintDetail {
    type Answer = Detail;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Detail> {
        detail(snapshot, self.0)
    }
}

/// What a print's report shows: the DONE print with its names, and the instance settings
/// (currency, language).
#[derive(Debug, Clone)]
pub struct ReportData {
    /// The print, its customer and series.
    pub detail: Detail,
    /// The instance settings.
    pub settings: Settings,
}

/// The report data of a DONE print (archived included).
/// Errors: [`Error::NotFound`]; [`Error::ReportNotAllowed`] unless the print is DONE.
#[derive(Debug, Clone, Copy)]
pub struct Report(pub Id);

impl Query for Report {
    type Answer = ReportData;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<ReportData> {
        let detail = detail(snapshot, self.0)?;
        if detail.print.status != PrintStatus::Done {
            return Err(Error::ReportNotAllowed);
        }
        Ok(ReportData {
            detail,
            settings: settings::get(snapshot)?,
        })
    }
}

/// A page of prints, newest first, and how many match in all.
#[derive(Debug, Clone, Default)]
pub struct PrintPage {
    /// The page's prints.
    pub prints: Vec<Print>,
    /// Prints matching in all pages.
    pub total: usize,
    /// Totals over every matching print, when asked for.
    pub totals: Option<Totals>,
}

/// A filtered page of prints, newest first, from the projection; with `with_totals` also the
/// totals over the whole filtered set.
#[derive(Debug, Clone)]
pub struct ListPrints {
    /// Page and page size (search and archive state are in `filter`).
    pub list: ListQuery,
    /// The filters.
    pub filter: PrintFilter,
    /// Also total the whole filtered set.
    pub with_totals: bool,
}

impl Query for ListPrints {
    type Answer = PrintPage;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<PrintPage> {
        let skip = list::offset(self.list.page, self.list.page_size);
        let (ids, total) = snapshot
            .index
            .page(&self.filter, skip, self.list.page_size as usize)?;
        let totals = match self.with_totals {
            true => Some(snapshot.index.totals(&self.filter)?),
            false => None,
        };
        let prints = ids
            .iter()
            .map(|id| draft::get(snapshot, *id))
            .collect::<Result<Vec<_>>>()?;
        Ok(PrintPage {
            prints,
            total,
            totals,
        })
    }
}

/// Whose history: the scope overrides a conflicting filter of the query.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    /// A series' prints (needs print series on).
    Series(Id),
    /// A customer's prints.
    Customer(Id),
}

/// The prints of a series or a customer, filtered and paginated, with totals over the whole
/// filtered set.
/// Errors: [`Error::NotFound`] for the series or customer; [`Error::PrintSeriesDisabled`].
#[derive(Debug, Clone)]
pub struct History {
    /// Whose prints.
    pub scope: Scope,
    /// The page and the filters of the query.
    pub page: ListPrints,
}

impl Query for History {
    type Answer = PrintPage;

    fn run(mut self, snapshot: &Snapshot<'_>) -> Result<PrintPage> {
        match self.scope {
            Scope::Series(id) => {
                series::require_enabled(snapshot)?;
                series::get(snapshot, id)?;
                self.page.filter.series_id = Some(id);
            }
            Scope::Customer(id) => {
                get::<Customer>(snapshot, id)?;
                self.page.filter.customer_id = Some(id);
            }
        }
        self.page.with_totals = true;
        self.page.run(snapshot)
    }
}

/// Most prints one export may hold (spec, Limits: "CSV export at most 5,000 records").
pub const MAX_EXPORT: usize = 5_000;

/// What a CSV export holds: DONE prints and the names and currency its rows show.
#[derive(Debug, Clone, Default)]
pub struct ExportData {
    /// The DONE prints matching the filters, newest first.
    pub prints: Vec<Print>,
    /// Customer names by id.
    pub customers: std::collections::HashMap<Id, String>,
    /// Series names by id.
    pub series: std::collections::HashMap<Id, String>,
    /// The instance currency.
    pub currency: String,
}

/// The DONE prints matching a filter, for the CSV export (a status filter without DONE matches
/// none).
/// Errors: [`Error::ExportTooLarge`] above [`MAX_EXPORT`] prints.
#[derive(Debug, Clone)]
pub struct Export(pub PrintFilter);

impl Query for Export {
    type Answer = ExportData;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<ExportData> {
        let mut filter = self.0;
        if !filter.statuses.is_empty() && !filter.statuses.contains(&PrintStatus::Done) {
            return Ok(ExportData {
                currency: settings::get(snapshot)?.currency,
                ..ExportData::default()
            });
        }
        filter.statuses = vec![PrintStatus::Done];
        let ids = snapshot.index.ids(&filter)?;
        if ids.len() > MAX_EXPORT {
            return Err(Error::ExportTooLarge);
        }
        let names = |records: Vec<(Id, String)>| records.into_iter().collect();
        Ok(ExportData {
            prints: ids
                .iter()
                .map(|id| draft::get(snapshot, *id))
                .collect::<Result<_>>()?,
            customers: names(
                all::<Customer>(snapshot)?
                    .into_iter()
                    .map(|c| (c.id, c.name))
                    .collect(),
            ),
            series: names(
                all::<Series>(snapshot)?
                    .into_iter()
                    .map(|s| (s.id, s.name))
                    .collect(),
            ),
            currency: settings::get(snapshot)?.currency,
        })
    }
}

/// The prints made from the sliced file whose SHA-256 is the `0`, oldest first, as (id, name).
#[derive(Debug, Clone)]
pub struct PrintsFromFile(pub [u8; 32]);

impl Query for PrintsFromFile {
    type Answer = Vec<(Id, String)>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<(Id, String)>> {
        repo::prints_from(snapshot, self.0)?
            .into_iter()
            .map(|id| get(snapshot, id).map(|p: Print| (p.id, p.name)))
            .collect()
    }
}

/// The sliced file print `0` was made from, if any.
#[derive(Debug, Clone)]
pub struct SourceOf(pub Id);

impl Query for SourceOf {
    type Answer = Option<PrintSource>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Option<PrintSource>> {
        Ok(repo::source(snapshot, self.0)?)
    }
}
