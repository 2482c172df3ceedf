//! The printer fleet's remote work: every call to Bambuddy runs here, outside every write
//! transaction, between a read and the command that records what it found (a request's link,
//! sync, attach and import, and the background timer's rounds).

use super::reader::Reader;
use super::writer::Writers;
use crate::integrations::fleet::{
    self, ATTACHABLE_LOGS, AttachLog, AttachTargetOf, ImportOutcome, LinkPrinter, LinkedPrinter,
    LinkedPrinters, MapTray, OpenLinks, PartLink, PrinterLinkOf, RecordLogSync, RecordPrinterSync,
    ReportedUsages,
};
use crate::integrations::health::PeerHealth;
use crate::integrations::peer::PeerError;
use crate::integrations::printfleet::{Bambuddy, LogPage, RemotePrinter};
use crate::integrations::settings::{Defaults, EnabledPeer, Integration};
use crate::prints::outcome::OutcomeInput;
use crate::{Error, Result};
use storage::Id;
use storage::records;
use storage::records::{LogLink, Print};

/// Log entries a page of `view=logs` shows.
pub const LOG_PAGE_SIZE: u32 = 25;

/// What `GET /api/integrations/printfleet` shows.
#[derive(Debug, Clone)]
pub struct FleetStatus {
    /// A URL and an API key are set.
    pub configured: bool,
    /// The fleet manager's version, when it answered.
    pub version: Option<String>,
    /// Why it did not, if it did not (its [`PeerError::code`] is the contract's code).
    pub failure: Option<PeerError>,
    /// Its printers, when it answered.
    pub remote_printers: Vec<RemotePrinter>,
    /// Our linked printers with their links.
    pub printers: Vec<LinkedPrinter>,
}

/// The printer fleet's remote work, shared by request handlers and the timer.
#[derive(Clone)]
pub struct Printfleet {
    reader: Reader,
    writers: Writers,
    defaults: Defaults,
    health: PeerHealth,
}

impl Printfleet {
    /// Remote work over `reader` and `writers`, with the environment's `defaults`.
    pub fn new(reader: Reader, writers: Writers, defaults: Defaults) -> Printfleet {
        Printfleet {
            reader,
            writers,
            defaults,
            health: PeerHealth::default(),
        }
    }

    /// This handle, recording whether the peer answers in `health`.
    pub fn with_health(self, health: PeerHealth) -> Printfleet {
        Printfleet { health, ..self }
    }

    /// A client as configured now. Errors: as [`super::settings::require_enabled`];
    /// [`Error::IntegrationConfig`] without a URL or an API key.
    async fn client(&self) -> Result<Bambuddy> {
        let peer = self
            .reader
            .query(EnabledPeer(Integration::Printfleet, self.defaults.clone()))
            .await?;
        let (Some(url), Some(key)) = (peer.url, peer.credential) else {
            return Err(Error::IntegrationConfig);
        };
        Bambuddy::new(url, Some(&key))
            .map(|c| c.watched(self.health.clone()))
            .map_err(|_| Error::IntegrationConfig)
    }

    /// Configuration, version, remote printers and our linked printers; a failed call is shown,
    /// not refused. Errors: [`Error::IntegrationDisabled`].
    pub async fn status(&self) -> Result<FleetStatus> {
        let printers = self.reader.query(LinkedPrinters).await?;
        let client = match self.client().await {
            Ok(client) => Some(client),
            Err(Error::IntegrationConfig) => None,
            Err(e) => return Err(e),
        };
        let mut status = FleetStatus {
            configured: client.is_some(),
            version: None,
            failure: None,
            remote_printers: Vec::new(),
            printers,
        };
        if let Some(client) = client {
            let found =
                async { Ok::<_, PeerError>((client.version().await?, client.printers().await?)) };
            match found.await {
                Ok((version, remote)) => {
                    status.version = Some(version);
                    status.remote_printers = remote;
                }
                Err(e) => status.failure = Some(e),
            }
        }
        Ok(status)
    }

    /// A print part's log link: (part, link). Errors: as [`PartLink`].
    pub async fn part_link(
        &self,
        print_id: Id,
        part_id: Option<Id>,
    ) -> Result<(Id, Option<LogLink>)> {
        self.reader.query(PartLink { print_id, part_id }).await
    }

    /// Page `page` (one-based) of linked printer `printer_id`'s remote log.
    /// Errors: as [`fleet::link_of`] (409 when not linked); the peer's failure.
    pub async fn logs(&self, printer_id: Id, page: u32) -> Result<LogPage> {
        let client = self.client().await?;
        let link = self.reader.query(PrinterLinkOf(printer_id)).await?;
        let offset = u64::from(page.max(1) - 1) * u64::from(LOG_PAGE_SIZE);
        client
            .logs(link.remote_id, LOG_PAGE_SIZE, offset)
            .await
            .map_err(PeerError::into_error)
    }

    /// Links printer `printer_id` to remote printer `remote_id` after checking it exists (then
    /// syncs it), or unlinks it (`None`). Errors: [`Error::Validation`] at `remoteId` for an
    /// unknown remote printer; as [`LinkPrinter`].
    pub async fn link(&self, printer_id: Id, remote_id: Option<u64>) -> Result<()> {
        let remote = match remote_id {
            Some(id) => {
                let client = self.client().await?;
                let found = client.printer(id).await.map_err(PeerError::into_error)?;
                let found = found.ok_or_else(|| Error::field("remoteId", "errors.notFound"))?;
                Some((found.id, found.name))
            }
            None => None,
        };
        let linked = remote.is_some();
        self.writers
            .send(LinkPrinter { printer_id, remote })
            .await?;
        if linked {
            self.sync_printer(printer_id).await?;
        }
        Ok(())
    }

    /// Syncs linked printer `printer_id`'s state and trays; a failed call is stored, not
    /// refused. Errors: as [`Printfleet::client`]; as [`fleet::link_of`].
    pub async fn sync_printer(&self, printer_id: Id) -> Result<()> {
        let client = self.client().await?;
        let link = self.reader.query(PrinterLinkOf(printer_id)).await?;
        let found = match client.status(link.remote_id).await {
            Ok(Some(status)) => Ok(status),
            Ok(None) => Err("NOT_FOUND"),
            Err(e) => Err(e.code()),
        };
        self.writers
            .send(RecordPrinterSync { printer_id, found })
            .await
    }

    /// Maps a tray to a spool, or clears it. Errors: as [`MapTray`].
    pub async fn map_tray(&self, printer_id: Id, slot: String, spool_id: Option<Id>) -> Result<()> {
        self.writers
            .send(MapTray {
                printer_id,
                slot,
                spool_id,
            })
            .await
    }

    /// Attaches remote log `remote_log_id` (among the printer's newest 1,000) to a print part.
    /// Errors: as [`AttachLog`]; [`Error::IntegrationConflict`] for a log the printer does not
    /// have there.
    pub async fn attach(
        &self,
        print_id: Id,
        part_id: Option<Id>,
        remote_log_id: u64,
    ) -> Result<()> {
        let client = self.client().await?;
        let target = self
            .reader
            .query(AttachTargetOf { print_id, part_id })
            .await?;
        let log = client
            .find_log(target.remote_printer, remote_log_id, ATTACHABLE_LOGS)
            .await
            .map_err(PeerError::into_error)?
            .ok_or(Error::IntegrationConflict)?;
        let part_id = Some(target.part_id);
        self.writers
            .send(AttachLog {
                print_id,
                part_id,
                log,
            })
            .await
    }

    async fn read_log(
        &self,
        client: &Bambuddy,
        printer: u64,
        log: u64,
    ) -> std::result::Result<records::PrintLog, &'static str> {
        match client.find_log(printer, log, ATTACHABLE_LOGS).await {
            Ok(Some(found)) => Ok(found),
            Ok(None) => Err("NOT_FOUND"),
            Err(e) => Err(e.code()),
        }
    }

    /// Reads a part's attached log again (until it is imported); a failed read is stored.
    /// Errors: as [`PartLink`]; [`Error::IntegrationConflict`] without an attached log.
    pub async fn sync_print(&self, print_id: Id, part_id: Option<Id>) -> Result<()> {
        let client = self.client().await?;
        let (part, _) = self.part_link(print_id, part_id).await?;
        let open = self.reader.query(OpenLinks(Some(print_id))).await?;
        let Some(link) = open.into_iter().find(|l| l.part_id == part) else {
            return Ok(());
        };
        let found = self
            .read_log(&client, link.remote_printer, link.remote_log_id)
            .await;
        self.writers
            .send(RecordLogSync {
                part_id: part,
                found,
            })
            .await
    }

    /// Imports the outcome of print `print_id` from its attached logs, read again now: the
    /// checks run in the transaction that records it. Errors: as [`ImportOutcome`].
    pub async fn import(
        &self,
        print_id: Id,
        previews: Vec<(Option<Id>, String)>,
        outcome: OutcomeInput,
    ) -> Result<Print> {
        fleet::check_previews(&previews)?;
        let client = self.client().await?;
        let mut fresh = Vec::new();
        for link in self.reader.query(OpenLinks(Some(print_id))).await? {
            let found = self
                .read_log(&client, link.remote_printer, link.remote_log_id)
                .await;
            fresh.push((link.part_id, found));
        }
        let assigned = client
            .slot_assignments()
            .await
            .map_err(PeerError::into_error)?;
        let reported = self
            .reader
            .query(ReportedUsages(print_id, assigned))
            .await?;
        let command = ImportOutcome {
            print_id,
            previews,
            outcome,
            fresh,
            reported,
        };
        self.writers.send(command).await
    }

    /// One round of the timer: syncs every linked printer and every attached log not yet
    /// imported. Does nothing while the integration is off or unconfigured.
    pub async fn round(&self) {
        let Ok(client) = self.client().await else {
            return;
        };
        if let Ok(printers) = self.reader.query(LinkedPrinters).await {
            for linked in printers {
                let id = linked.printer.id;
                if let Err(e) = self.sync_printer(id).await {
                    tracing::warn!(printer = %id, error = %e, "printer sync failed");
                }
            }
        }
        if let Ok(open) = self.reader.query(OpenLinks(None)).await {
            for link in open {
                let found = self
                    .read_log(&client, link.remote_printer, link.remote_log_id)
                    .await;
                let command = RecordLogSync {
                    part_id: link.part_id,
                    found,
                };
                if let Err(e) = self.writers.send(command).await {
                    tracing::warn!(part = %link.part_id, error = %e, "print-log sync failed");
                }
            }
        }
    }
}
