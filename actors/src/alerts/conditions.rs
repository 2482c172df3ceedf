//! What stands now: every alert's condition read from one snapshot of the store and from what
//! the process knows outside it (the peers' answers, the bridge's sources, the last backup),
//! and the levels printcost publishes as MQTT state.

use super::texts::Words;
use super::{Found, Kind, iso, key};
use crate::backup::nightly::{self, Backups};
use crate::bridge::SourceStates;
use crate::command::{Query, Snapshot};
use crate::integrations::health::PeerHealth;
use crate::integrations::settings::{Integration, require_enabled};
use crate::invoices::{self, Settlement};
use crate::list::ListQuery;
use crate::maintenance::tasks::{self, State};
use crate::prints::Outcome;
use crate::projection::query::PrintFilter;
use crate::stock::{self, SpoolFilter};
use crate::{Result, dashboard};
use jiff::ToSpan;
use rust_decimal::Decimal;
use std::collections::BTreeSet;
use storage::records::{
    AlertSettings, Invoice, MaterialKind, OperationState, Print, PrintStatus, Printer, Settings,
    SpoolmgrOperation, StandingAlerts,
};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// What the process knows outside the store.
#[derive(Debug, Clone)]
pub struct Outside {
    /// Whether each peer answers.
    pub peers: PeerHealth,
    /// The bridge's sources, when the bridge runs in this process.
    pub sources: Option<SourceStates>,
    /// The nightly backups (schedule, folder, last run).
    pub backups: Backups,
    /// When this process started (a box without a backup counts from here).
    pub started_at: Timestamp,
}

/// The levels printcost publishes as retained MQTT state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Levels {
    /// The instance currency (`EUR`).
    pub currency: String,
    /// Active filaments: id, display name, grams on their active spools (with spool
    /// management on; else none).
    pub filaments: Vec<(Id, String, Decimal)>,
    /// Prints PRINTING now.
    pub active_prints: u64,
    /// Active printers: id, name, whether a maintenance task of it (or of a component of it)
    /// is due or overdue.
    pub printers: Vec<(Id, String, bool)>,
    /// Realized revenue of this month's completed prints (the dashboard's customers).
    pub month_revenue: Decimal,
    /// Their realized margin.
    pub month_margin: Decimal,
}

/// One reading: what stands, what stood, the settings and the levels.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// The alerts whose condition holds now.
    pub found: Vec<Found>,
    /// The alerts that stood at the last evaluation.
    pub standing: StandingAlerts,
    /// Settings › Alerts.
    pub settings: AlertSettings,
    /// The levels; `None` before setup.
    pub levels: Option<Levels>,
}

/// Every condition at `now` ([`read`]), as a query of the one read path.
pub struct ReadConditions {
    /// What is read outside the store.
    pub outside: Outside,
    /// When.
    pub now: Timestamp,
}

impl Query for ReadConditions {
    type Answer = Reading;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Reading> {
        read(snapshot, &self.outside, self.now)
    }
}

/// Reads every condition at `now`. Before setup nothing stands. Blocking (it lists the backup
/// folder).
///
/// Errors: the store cannot be read; the print projection has not loaded.
pub fn read(snapshot: &Snapshot<'_>, outside: &Outside, now: Timestamp) -> Result<Reading> {
    let standing = repo::standing_alerts(snapshot)?;
    let settings = repo::alert_settings(snapshot)?;
    let Some(instance) = repo::settings(snapshot)? else {
        return Ok(Reading {
            standing,
            settings,
            ..Reading::default()
        });
    };
    let words = Words::of(&instance.default_language);
    let today = snapshot.index.date_of(now);
    let mut found = Vec::new();
    let filaments = stock(snapshot, &instance, &words, &mut found)?;
    let due_printers = maintenance(snapshot, &words, now, &mut found)?;
    failed_prints(snapshot, &words, today, &mut found)?;
    overdue_invoices(snapshot, &words, today, &mut found)?;
    integrations(snapshot, outside, &settings, &words, now, &mut found)?;
    if let Some(sources) = &outside.sources {
        for (source, online) in sources.snapshot() {
            if !online {
                let (title, message) = words.source_offline(&source);
                found.push(alert(Kind::SourceOffline, source, (title, message)));
            }
        }
    }
    backups(
        snapshot, outside, &settings, &standing, &words, now, &mut found,
    )?;
    let mut printers = Vec::new();
    repo::for_each::<Printer>(snapshot, |p| {
        if !p.archived {
            printers.push((p.id, p.name.clone(), due_printers.contains(&p.id)));
        }
    })?;
    printers.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    let active_prints = snapshot
        .index
        .status_counts()?
        .into_iter()
        .find(|(s, _)| *s == PrintStatus::Printing)
        .map_or(0, |(_, n)| n as u64);
    let first_of_month = today.first_of_month();
    let (month_revenue, month_margin) =
        dashboard::realized_since(snapshot, snapshot.index, first_of_month)?;
    Ok(Reading {
        found,
        standing,
        settings,
        levels: Some(Levels {
            currency: instance.currency,
            filaments,
            active_prints,
            printers,
            month_revenue,
            month_margin,
        }),
    })
}

fn alert(kind: Kind, subject: String, (title, message): (String, String)) -> Found {
    Found {
        kind,
        subject,
        title,
        message,
    }
}

/// `LOW_STOCK` and `SPOOL_EMPTY` (with spool management on); answers the filaments' levels.
fn stock(
    tx: &impl Tx,
    instance: &Settings,
    words: &Words,
    found: &mut Vec<Found>,
) -> Result<Vec<(Id, String, Decimal)>> {
    if !instance.spool_management_enabled {
        return Ok(Vec::new());
    }
    let mut filaments = Vec::new();
    for (view, stock) in stock::material_stocks(tx)? {
        let material = &view.filament;
        if let (true, Some(minimum)) = (stock.below_minimum, stock.minimum_stock_grams) {
            let words =
                words.low_stock(&view.name, stock.active_total_grams, minimum, material.unit);
            found.push(alert(Kind::LowStock, material.id.to_string(), words));
        }
        // The MQTT levels keep their filament topics (grams); other kinds are in /metrics.
        if material.kind == MaterialKind::Filament {
            filaments.push((material.id, view.name, stock.active_total_grams));
        }
    }
    let query = ListQuery {
        page_size: u32::MAX,
        ..ListQuery::default()
    };
    for spool in stock::list(tx, &query, &SpoolFilter::default())?.items {
        if spool.remaining() <= Decimal::ZERO {
            let words = words.spool_empty(&spool.spool.code, &spool.filament);
            found.push(alert(Kind::SpoolEmpty, spool.spool.id.to_string(), words));
        }
    }
    Ok(filaments)
}

/// `MAINTENANCE_DUE` and `MAINTENANCE_OVERDUE`; answers the printers with a task due.
fn maintenance(
    tx: &impl Tx,
    words: &Words,
    now: Timestamp,
    found: &mut Vec<Found>,
) -> Result<BTreeSet<Id>> {
    let mut due = BTreeSet::new();
    for view in tasks::list(tx, now)? {
        let (kind, overdue) = match view.state {
            State::Ok => continue,
            State::Due => (Kind::MaintenanceDue, false),
            State::Overdue => (Kind::MaintenanceOverdue, true),
        };
        due.insert(view.task.printer_id);
        let words = words.maintenance(
            overdue,
            &view.task.name,
            &view.subject_name,
            view.used,
            view.task.every,
        );
        found.push(alert(kind, view.task.id.to_string(), words));
    }
    Ok(due)
}

/// `PRINT_FAILED`: prints whose outcome is FAILED, completed today or yesterday, neither
/// retried nor archived.
fn failed_prints(
    snapshot: &Snapshot<'_>,
    words: &Words,
    today: jiff::civil::Date,
    found: &mut Vec<Found>,
) -> Result<()> {
    let filter = PrintFilter {
        outcomes: vec![Outcome::Failed],
        date_from: today.checked_sub(1.day()).ok(),
        ..PrintFilter::default()
    };
    for id in snapshot.index.ids(&filter)? {
        let Some(print) = repo::get::<Print>(snapshot, id)? else {
            continue;
        };
        if !print.retry_ids.is_empty() {
            continue;
        }
        let day = snapshot
            .index
            .date_of(print.completed_at.unwrap_or(print.updated_at));
        let reason = print
            .outcome
            .as_ref()
            .and_then(|o| o.current())
            .and_then(|r| r.failure_reason.as_deref());
        let words = words.print_failed(&print.name, day, reason);
        found.push(alert(Kind::PrintFailed, id.to_string(), words));
    }
    Ok(())
}

/// `INVOICE_OVERDUE`: every issued invoice (not archived, not a credit note) past its due day
/// on `today` and not paid in full.
fn overdue_invoices(
    tx: &impl Tx,
    words: &Words,
    today: jiff::civil::Date,
    found: &mut Vec<Found>,
) -> Result<()> {
    for invoice in repo::all::<Invoice>(tx)? {
        let Some(issued) = invoice.issued.as_ref().filter(|_| !invoice.archived) else {
            continue;
        };
        let due = invoices::totals(&invoice)?.due;
        if invoices::settlement(&invoice, due, today) != Settlement::Overdue {
            continue;
        }
        let Ok(due_on) = issued.due_on.parse() else {
            continue;
        };
        let outstanding = (due - invoices::paid(&invoice), issued.currency.as_str());
        let words = words.invoice_overdue(&issued.number, &issued.buyer.name, due_on, outstanding);
        found.push(alert(Kind::InvoiceOverdue, invoice.id.to_string(), words));
    }
    Ok(())
}

/// `INTEGRATION_FAILING` (an enabled peer without an answer for longer than the settings
/// allow) and `OPERATION_UNKNOWN`.
fn integrations(
    tx: &impl Tx,
    outside: &Outside,
    settings: &AlertSettings,
    words: &Words,
    now: Timestamp,
    found: &mut Vec<Found>,
) -> Result<()> {
    let patience = i64::from(settings.integration_minutes) * 60;
    for (integration, peer, shown) in [
        (Integration::Spoolmgr, "spoolmgr", "Spoolman"),
        (Integration::Printfleet, "printfleet", "Bambuddy"),
    ] {
        if require_enabled(tx, integration).is_err() {
            continue;
        }
        if let Some(since) = outside.peers.of(peer).failing_since
            && now.0 - since.0 >= patience
        {
            let words = words.integration_failing(shown, &iso(since));
            found.push(alert(Kind::IntegrationFailing, peer.to_string(), words));
        }
    }
    repo::for_each::<SpoolmgrOperation>(tx, |op| {
        if op.state == OperationState::Unknown {
            let words = words.operation_unknown(op.grams, op.remote_id);
            found.push(alert(Kind::OperationUnknown, op.id.to_string(), words));
        }
    })?;
    Ok(())
}

/// `BACKUP_FAILED` (the last run failed; after a restart, until a run succeeds, a standing one
/// stays) and `BACKUP_STALE` (the nightly backup is on and its newest file is older than the
/// settings allow, or there is none and the service has run that long).
fn backups(
    tx: &impl Tx,
    outside: &Outside,
    settings: &AlertSettings,
    standing: &StandingAlerts,
    words: &Words,
    now: Timestamp,
    found: &mut Vec<Found>,
) -> Result<()> {
    match outside.backups.last_run().map(|run| run.result) {
        Some(Err(error)) => {
            found.push(alert(
                Kind::BackupFailed,
                String::new(),
                words.backup_failed(&error),
            ));
        }
        Some(Ok(_)) => {}
        None => {
            let key = key(Kind::BackupFailed.code(), "");
            if let Some(still) = standing.0.get(&key) {
                let words = (still.title.clone(), still.message.clone());
                found.push(alert(Kind::BackupFailed, String::new(), words));
            }
        }
    }
    let schedule = repo::backup_schedule(tx)?;
    if !schedule.enabled {
        return Ok(());
    }
    let limit = i64::from(settings.backup_days) * 86_400;
    let newest = nightly::list(&outside.backups.folder(&schedule))
        .ok()
        .and_then(|files| files.first().map(|f| f.taken_at));
    let stale = match newest {
        Some(at) => now.0 - at.0 > limit,
        None => now.0 - outside.started_at.0 > limit,
    };
    if stale {
        let day = newest.map(|at| outside.backups.date_of(at));
        let words = words.backup_stale(day, settings.backup_days);
        found.push(alert(Kind::BackupStale, String::new(), words));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoices::tests::issued;
    use storage::{Store, StoreOptions};

    /// An issued invoice of one line (11.90 due) due on `due_on`, with `paid`.
    fn invoice(number: &str, due_on: &str, paid: Option<&str>) -> Invoice {
        issued(number, due_on, paid.as_slice())
    }

    #[test]
    fn an_invoice_past_its_due_day_and_not_paid_in_full_is_overdue() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let late = invoice("2026-0001", "2026-11-01", Some("5"));
        let txn = store.begin_write().unwrap();
        repo::put(&txn, &late).unwrap();
        repo::put(&txn, &invoice("2026-0002", "2026-11-01", Some("11.90"))).unwrap();
        repo::put(&txn, &invoice("2026-0003", "2026-11-27", None)).unwrap();
        let mut archived = invoice("2026-0004", "2026-11-01", None);
        archived.archived = true;
        repo::put(&txn, &archived).unwrap();
        let mut found = Vec::new();
        let today = jiff::civil::date(2026, 11, 27);
        overdue_invoices(&txn, &Words::of("de-DE"), today, &mut found).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, Kind::InvoiceOverdue);
        assert_eq!(found[0].subject, late.id.to_string());
        assert_eq!(found[0].title, "Rechnung überfällig: 2026-0001");
        assert_eq!(
            found[0].message,
            "2026-0001 an Verein war am 01.11.2026 fällig; 6,90 EUR sind noch offen."
        );
    }
}
