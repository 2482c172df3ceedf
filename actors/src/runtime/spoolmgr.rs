//! The spool manager's remote work: every call to Spoolman runs here, outside every write
//! transaction, between a read and the command that records what it found (a request's
//! preview, import, sync and send, and the background timer's, [`super::timer`]).
//!
//! A send claims its operation in a transaction of its own first ([`ClaimOperation`]), so two
//! senders (two requests, or a request and the timer) never both send it, and records the
//! answer in another ([`SettleOperation`]).

use super::reader::Reader;
use super::writer::Writers;
use crate::integrations::health::PeerHealth;
use crate::integrations::import::{
    self, ImportSpool, LinkOf, LinkedSpools, LocalSide, LocalSides, RecordSync, Unlink,
};
use crate::integrations::operations::{
    Claim, ClaimOperation, ConfirmOperation, GetOperation, LatestOperations, PendingOperations,
    Sent, SettleOperation,
};
use crate::integrations::peer::PeerError;
use crate::integrations::settings::{Defaults, EnabledPeer, Integration};
use crate::integrations::spoolmgr::{RemoteSpool, Spoolman, UseOutcome};
use crate::{Error, Result};
use rust_decimal::Decimal;
use storage::Id;
use storage::records::{Authority, SpoolmgrOperation};

/// Remote spools a preview page shows.
pub const PREVIEW_PAGE_SIZE: u32 = 25;

/// What `GET /api/integrations/spoolmgr` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// A URL is set.
    pub configured: bool,
    /// The peer's version, when it answered.
    pub version: Option<String>,
    /// Why it did not, if it did not (its [`PeerError::code`] is the contract's code).
    pub failure: Option<PeerError>,
    /// What this appliance can do with it: empty unless it answered.
    pub capabilities: Vec<&'static str>,
    /// The latest operations, newest first.
    pub operations: Vec<SpoolmgrOperation>,
}

/// One remote spool in the import preview.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewItem {
    /// The remote spool, validated.
    pub remote: RemoteSpool,
    /// Its fingerprint ([`import::preview_hash`]).
    pub preview_hash: String,
    /// The local spool its id belongs to, if any.
    pub local: Option<LocalSide>,
    /// Its conflicts.
    pub conflicts: Vec<import::Conflict>,
}

/// One page of the import preview.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    /// The page's remote spools.
    pub items: Vec<PreviewItem>,
    /// One-based page.
    pub page: u32,
    /// More pages follow.
    pub has_more: bool,
}

/// What an `IMPORT` asks for.
#[derive(Debug, Clone)]
pub struct ImportRequest {
    /// The remote spool.
    pub remote_id: u64,
    /// The fingerprint the person saw.
    pub preview_hash: String,
    /// Who owns its stock (`EXTERNAL_READ_ONLY` when not given).
    pub authority: Option<Authority>,
    /// Link this local spool instead of making one.
    pub local_spool_id: Option<Id>,
}

/// The spool manager's remote work, shared by request handlers and the timer.
#[derive(Clone)]
pub struct Spoolmgr {
    reader: Reader,
    writers: Writers,
    defaults: Defaults,
    health: PeerHealth,
}

impl Spoolmgr {
    /// Remote work over `reader` and `writers`, with the environment's `defaults`.
    pub fn new(reader: Reader, writers: Writers, defaults: Defaults) -> Spoolmgr {
        Spoolmgr {
            reader,
            writers,
            defaults,
            health: PeerHealth::default(),
        }
    }

    /// This handle, recording whether the peer answers in `health`.
    pub fn with_health(self, health: PeerHealth) -> Spoolmgr {
        Spoolmgr { health, ..self }
    }

    /// A client as configured now. Errors: as [`super::settings::require_enabled`];
    /// [`Error::IntegrationConfig`] without a URL or with a credential
    /// that cannot be a header.
    async fn client(&self) -> Result<Spoolman> {
        let peer = self
            .reader
            .query(EnabledPeer(Integration::Spoolmgr, self.defaults.clone()))
            .await?;
        let url = peer.url.ok_or(Error::IntegrationConfig)?;
        Spoolman::new(url, peer.credential.as_ref())
            .map(|c| c.watched(self.health.clone()))
            .map_err(|_| Error::IntegrationConfig)
    }

    /// The writers (the timer recovers interrupted sends through them).
    pub fn writers(&self) -> Writers {
        self.writers.clone()
    }

    /// Configuration, version and the latest operations; a failed version call is shown, not
    /// refused. Errors: [`Error::IntegrationDisabled`].
    pub async fn status(&self) -> Result<Status> {
        let operations = self.reader.query(LatestOperations).await?;
        let (configured, found) = match self.client().await {
            Ok(client) => (true, Some(client.version().await)),
            Err(Error::IntegrationConfig) => (false, None),
            Err(e) => return Err(e),
        };
        let (version, failure) = match found {
            Some(Ok(version)) => (Some(version), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        let capabilities = if version.is_some() {
            vec!["IMPORT", "SYNC", "CONSUMPTION"]
        } else {
            Vec::new()
        };
        Ok(Status {
            configured,
            version,
            failure,
            capabilities,
            operations,
        })
    }

    /// Page `page` (one-based) of the remote spools, archived ones included, with their
    /// fingerprints, local sides and conflicts.
    /// Errors: as [`Spoolmgr::client`]; the peer's failure.
    pub async fn preview(&self, page: u32) -> Result<Preview> {
        let client = self.client().await?;
        let page = page.max(1);
        let offset = u64::from(page - 1) * u64::from(PREVIEW_PAGE_SIZE);
        let remote = client
            .spools(PREVIEW_PAGE_SIZE, offset)
            .await
            .map_err(PeerError::into_error)?;
        let ids = remote.spools.iter().map(|s| s.id).collect();
        let mut sides = self.reader.query(LocalSides(ids)).await?;
        let has_more = offset + (remote.spools.len() as u64) < remote.total;
        let items = remote
            .spools
            .into_iter()
            .map(|spool| {
                let local = sides.remove(&spool.id);
                PreviewItem {
                    preview_hash: import::preview_hash(&spool),
                    conflicts: import::conflicts(
                        &spool,
                        local.as_ref().and_then(|l| l.link.as_ref()),
                    ),
                    remote: spool,
                    local,
                }
            })
            .collect();
        Ok(Preview {
            items,
            page,
            has_more,
        })
    }

    /// Re-reads the remote spool and imports it; answers the local spool's id.
    /// Errors: as [`Spoolmgr::client`]; the peer's failure; [`Error::IntegrationConflict`] when
    /// the remote spool is gone; as [`ImportSpool`].
    pub async fn import(&self, request: ImportRequest) -> Result<Id> {
        let client = self.client().await?;
        let remote = client
            .spool(request.remote_id)
            .await
            .map_err(PeerError::into_error)?
            .ok_or(Error::IntegrationConflict)?;
        let command = ImportSpool {
            remote,
            preview_hash: request.preview_hash,
            authority: request.authority.unwrap_or(Authority::ExternalReadOnly),
            local_spool_id: request.local_spool_id,
        };
        self.writers.send(command).await
    }

    /// Syncs linked spool `spool_id`: a failed call is stored on the spool, not refused.
    /// Errors: as [`Spoolmgr::client`]; as [`LinkOf`].
    pub async fn sync(&self, spool_id: Id) -> Result<()> {
        let client = self.client().await?;
        let link = self.reader.query(LinkOf(spool_id)).await?;
        let found = client.spool(link.remote_id).await.map_err(|e| e.code());
        self.writers.send(RecordSync { spool_id, found }).await
    }

    /// Gives spool `spool_id` back to our ledger at `opening_balance` grams. Errors: as
    /// [`Unlink`].
    pub async fn unlink(&self, spool_id: Id, opening_balance: Decimal) -> Result<Id> {
        let command = Unlink {
            spool_id,
            opening_balance,
        };
        self.writers.send(command).await
    }

    /// A person's word on an `UNKNOWN` or `FAILED` operation. Errors: as [`ConfirmOperation`].
    pub async fn confirm(&self, id: Id, applied: bool) -> Result<SpoolmgrOperation> {
        self.writers.send(ConfirmOperation { id, applied }).await
    }

    /// Sends operation `id` once: claims it, calls `PUT /use`, and records the answer. An
    /// `APPLIED` operation is answered as done without a call.
    ///
    /// Errors: as [`Spoolmgr::client`]; as [`ClaimOperation`]; the peer's failure once it is
    /// recorded on the operation (`UNKNOWN` when it may have been applied).
    pub async fn send(&self, id: Id) -> Result<SpoolmgrOperation> {
        let client = self.client().await?;
        let op = match self.writers.send(ClaimOperation(id)).await? {
            Claim::Applied => return self.reader.query(GetOperation(id)).await,
            Claim::Send(op) => op,
        };
        let (sent, failure) = match client.use_weight(op.remote_id, op.grams).await {
            Ok(UseOutcome::Applied(spool)) => (Sent::Applied(Some(spool)), None),
            Ok(UseOutcome::Refused(status)) => (Sent::Refused(status), None),
            Err(e @ (PeerError::Unreachable | PeerError::Refused)) => {
                (Sent::NotSent(e.code()), Some(e))
            }
            Err(e) => (Sent::Unknown(e.code()), Some(e)),
        };
        let settled = self.writers.send(SettleOperation { id, sent }).await?;
        match failure {
            Some(e) => Err(e.into_error()),
            None => Ok(settled),
        }
    }

    /// One round of the timer: sends every `PENDING` operation, oldest first, then syncs every
    /// linked spool. Does nothing while the integration is off or unconfigured; failures are
    /// logged (with their code) and stored where they belong.
    pub async fn round(&self) {
        if self.client().await.is_err() {
            return;
        }
        match self.reader.query(PendingOperations).await {
            Ok(ids) => {
                for id in ids {
                    if let Err(e) = self.send(id).await {
                        tracing::warn!(operation = %id, error = %e, "spool-manager operation not sent");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "pending operations unreadable"),
        }
        match self.reader.query(LinkedSpools).await {
            Ok(ids) => {
                for id in ids {
                    if let Err(e) = self.sync(id).await {
                        tracing::warn!(spool = %id, error = %e, "spool-manager sync failed");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "linked spools unreadable"),
        }
    }
}
