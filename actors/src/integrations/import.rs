//! The spool manager's spools here: the import preview (each remote spool as validated, its
//! SHA-256 fingerprint and its conflicts), IMPORT, the recording of a SYNC, and UNLINK
//! (docs/api-contract.md, "Integrations").
//!
//! - An import re-reads the remote spool and refuses a fingerprint that no longer matches.
//! - Its filament and manufacturer are matched by remote id, else made (a manufacturer is
//!   matched by name first); the local spool is `SM-<remote id>` with no opening receipt, or the
//!   given spool when it has the same already-linked filament and no link.
//! - A remote id, once linked, stays with its local spool for good (an unlink keeps it
//!   reserved): importing it again keeps the local id.
//! - A spool cannot be priced without a price (the spool's, else its filament's) and a net
//!   weight (the spool's initial weight, else its filament's): such a spool is not imported.

use super::settings::{Integration, require_enabled};
use super::spoolmgr::RemoteSpool;
use crate::command::LedgerWriter;
use crate::command::{Command, Query, Snapshot};
use crate::inventory::manufacturers::{ManufacturerInput, Manufacturers, name_key};
use crate::inventory::{self, Kind};
use crate::ledger::remote as links;
use crate::ledger::{self, MovementInput};
use crate::lines::Lines;
use crate::prints::fleet_logs::{fingerprint, text};
use crate::txn::Txn;
use crate::values::Name;
use crate::{Error, Result, settings};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::str::FromStr;
use storage::records::{
    Authority, Filament, MaterialKind, MovementKind, RemoteState, Spool, SpoolLink, StockUnit,
};
use storage::repo;
use storage::{Id, Timestamp, tables};

/// Why a remote spool may not import as it is, or differs from what we hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Archived in the spool manager.
    Archived,
    /// Neither the spool nor its filament has a price above zero: it cannot be imported.
    MissingPricing,
    /// The spool manager knows no remaining or net weight: it cannot be imported.
    UnknownBalance,
    /// Linked here, and its remaining grams differ from the last sync.
    BalanceChanged,
}

impl Conflict {
    /// True when the spool cannot be imported with this conflict.
    pub fn blocks_import(self) -> bool {
        matches!(self, Conflict::MissingPricing | Conflict::UnknownBalance)
    }
}

fn positive(value: Option<Decimal>) -> Option<Decimal> {
    value.filter(|v| *v > Decimal::ZERO)
}

/// What a spool costs: its own price, else its filament's.
fn price(remote: &RemoteSpool) -> Option<Decimal> {
    positive(remote.price).or(positive(remote.filament.price))
}

/// Its net grams when bought: its initial weight, else its filament's.
fn net_weight(remote: &RemoteSpool) -> Option<Decimal> {
    positive(remote.initial_weight).or(positive(remote.filament.weight))
}

/// The conflicts of `remote`, linked here as `link` (if it is).
pub fn conflicts(remote: &RemoteSpool, link: Option<&SpoolLink>) -> Vec<Conflict> {
    let mut found = Vec::new();
    if remote.archived {
        found.push(Conflict::Archived);
    }
    if price(remote).is_none() {
        found.push(Conflict::MissingPricing);
    }
    if remote.remaining_weight.is_none() || net_weight(remote).is_none() {
        found.push(Conflict::UnknownBalance);
    }
    if link.is_some_and(|l| l.remote_remaining_grams != remote.remaining_weight) {
        found.push(Conflict::BalanceChanged);
    }
    found
}

/// The validated projection of `remote` the preview shows and fingerprints: camelCase names,
/// decimals as canonical strings, absent values as `null`.
pub fn projection(remote: &RemoteSpool) -> Value {
    let f = &remote.filament;
    json!({
        "id": remote.id,
        "filament": {
            "id": f.id,
            "name": f.name,
            "vendor": f.vendor.as_ref().map(|v| json!({"id": v.id, "name": v.name})),
            "material": f.material,
            "price": text(f.price),
            "weight": text(f.weight),
            "colorHex": f.color_hex,
        },
        "price": text(remote.price),
        "remainingWeight": text(remote.remaining_weight),
        "initialWeight": text(remote.initial_weight),
        "usedWeight": text(Some(remote.used_weight)),
        "location": remote.location,
        "lotNr": remote.lot_nr,
        "archived": remote.archived,
    })
}

/// The preview fingerprint of `remote`: lower-case hex SHA-256 of its [`projection`]'s compact
/// JSON text, keys sorted at every level.
pub fn preview_hash(remote: &RemoteSpool) -> String {
    fingerprint(&projection(remote))
}

/// A remote spool's local side, for the preview.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalSide {
    /// The local spool the remote id belongs to.
    pub spool_id: Id,
    /// Its code.
    pub code: String,
    /// Its link, while it is linked.
    pub link: Option<SpoolLink>,
}

/// The local side of each remote spool id that has one. Errors: the store cannot be read.
#[derive(Debug, Clone)]
pub struct LocalSides(pub Vec<u64>);

impl Query for LocalSides {
    type Answer = HashMap<u64, LocalSide>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<HashMap<u64, LocalSide>> {
        let mut sides = HashMap::new();
        for remote in self.0 {
            if let Some(spool_id) = repo::remote_get(snapshot, tables::REMOTE_SPOOLS, remote)? {
                let spool = ledger::get(snapshot, spool_id)?;
                let link = links::of(snapshot, spool_id)?.filter(|l| l.remote_id == remote);
                sides.insert(
                    remote,
                    LocalSide {
                        spool_id,
                        code: spool.code,
                        link,
                    },
                );
            }
        }
        Ok(sides)
    }
}

/// The link of spool `.0`. Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`] for
/// an unknown spool; [`Error::IntegrationConflict`] when it is not linked.
#[derive(Debug, Clone, Copy)]
pub struct LinkOf(pub Id);

impl Query for LinkOf {
    type Answer = SpoolLink;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<SpoolLink> {
        settings::require_spool_management(snapshot)?;
        ledger::get(snapshot, self.0)?;
        links::of(snapshot, self.0)?.ok_or(Error::IntegrationConflict)
    }
}

/// The ids of every linked spool (what the timer syncs). Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct LinkedSpools;

impl Query for LinkedSpools {
    type Answer = Vec<Id>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<Id>> {
        Ok(links::all(snapshot)?.into_keys().collect())
    }
}

fn clipped(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The manufacturer of `remote`'s vendor: matched by remote id, else by name, else made.
fn manufacturer_of(txn: &Txn, remote: &RemoteSpool, now: Timestamp) -> Result<Id> {
    let (vendor_id, vendor_name) = match &remote.filament.vendor {
        Some(v) => (Some(v.id), clipped(&v.name)),
        None => (None, "Spoolman".to_string()),
    };
    if let Some(id) = vendor_id
        && let Some(local) = repo::remote_get(txn, tables::REMOTE_VENDORS, id)?
    {
        return Ok(local);
    }
    let name = Name::from_str(&vendor_name)
        .or_else(|_| Name::from_str("Spoolman"))
        .map_err(|_| Error::IntegrationContract)?;
    let local = match repo::index_get(txn, tables::MANUFACTURER_NAMES, &name_key(name.get()))? {
        Some(id) => id,
        None => {
            let input = ManufacturerInput { name, note: None };
            Manufacturers::create(txn, &input, now)?.id
        }
    };
    if let Some(id) = vendor_id {
        repo::remote_put(txn, tables::REMOTE_VENDORS, id, local)?;
    }
    Ok(local)
}

/// The filament of `remote`: matched by remote id, else made (no opening spool: the import
/// brings its own).
fn filament_of(txn: &Txn, remote: &RemoteSpool, now: Timestamp) -> Result<Id> {
    let f = &remote.filament;
    if let Some(local) = repo::remote_get(txn, tables::REMOTE_FILAMENTS, f.id)? {
        return Ok(local);
    }
    let color_hex = f
        .color_hex
        .as_deref()
        .filter(|h| h.len() == 6 && h.chars().all(|c| c.is_ascii_hexdigit()))
        .map_or_else(
            || "#000000".to_string(),
            |h| format!("#{}", h.to_uppercase()),
        );
    let filament = Filament {
        id: Id::new(),
        manufacturer_id: manufacturer_of(txn, remote, now)?,
        material: clipped(f.material.as_deref().unwrap_or("Unknown")),
        color_name: clipped(
            f.name
                .as_deref()
                .unwrap_or(&format!("Spoolman filament {}", f.id)),
        ),
        color_hex,
        purchase_price: price(remote).unwrap_or_default(),
        net_weight_grams: net_weight(remote).unwrap_or(Decimal::ONE),
        minimum_stock_grams: None,
        note: Some(Lines::of_instance(txn)?.imported_from_spoolman(f.id)),
        archived: false,
        created_at: now,
        updated_at: now,
        kind: MaterialKind::Filament,
        unit: StockUnit::Gram,
        density_grams_per_millilitre: None,
    };
    inventory::save(txn, &filament)?;
    repo::remote_put(txn, tables::REMOTE_FILAMENTS, f.id, filament.id)?;
    Ok(filament.id)
}

/// Makes the local spool `SM-<remote id>` of `remote`, with no opening receipt.
fn spool_of(txn: &Txn, remote: &RemoteSpool, now: Timestamp) -> Result<Id> {
    let code = format!("SM-{}", remote.id);
    if repo::index_get(txn, tables::SPOOL_CODES, &ledger::code_key(&code))?.is_some() {
        return Err(Error::IntegrationConflict);
    }
    let spool = Spool {
        id: Id::new(),
        code,
        filament_id: filament_of(txn, remote, now)?,
        purchase_price: price(remote).ok_or(Error::IntegrationConflict)?,
        initial_net_weight_grams: net_weight(remote).ok_or(Error::IntegrationConflict)?,
        purchase_lot: remote.lot_nr.as_deref().map(clipped),
        location: remote.location.as_deref().map(clipped),
        acquired_at: None,
        remaining_grams: Decimal::ZERO,
        archived: remote.archived,
        created_at: now,
        updated_at: now,
    };
    repo::put(txn, &spool)?;
    repo::index_put(
        txn,
        tables::SPOOL_CODES,
        &ledger::code_key(&spool.code),
        spool.id,
    )?;
    Ok(spool.id)
}

/// Checks that spool `local` may take the link of `remote`: it exists, has no link, and its
/// filament is the one already linked to the remote filament.
fn linkable(txn: &Txn, local: Id, remote: &RemoteSpool) -> Result<()> {
    let spool =
        ledger::get(txn, local).map_err(|_| Error::field("localSpoolId", "errors.notFound"))?;
    ledger::require_filament(txn, &spool)?;
    let filament = repo::remote_get(txn, tables::REMOTE_FILAMENTS, remote.filament.id)?;
    if filament != Some(spool.filament_id) || links::of(txn, local)?.is_some() {
        return Err(Error::IntegrationConflict);
    }
    Ok(())
}

/// Imports a remote spool, re-read just before; replies with the local spool's id.
///
/// Errors: [`Error::SpoolManagementDisabled`]; [`Error::IntegrationConflict`] for a fingerprint
/// that no longer matches, a spool that cannot be priced, a remote id linked to another spool
/// than `local_spool_id`, a given spool that is linked or has another filament, a changed
/// authority with unresolved operations, or a code `SM-<id>` taken by another spool;
/// [`Error::Validation`] (`localSpoolId`, `errors.notFound`); [`Error::MaterialNotFilament`]
/// for a given spool that holds a resin or a consumable (the spool manager keeps filament only).
#[derive(Debug, Clone)]
pub struct ImportSpool {
    /// The remote spool as the spool manager answered it now.
    pub remote: RemoteSpool,
    /// The fingerprint of the preview the person saw.
    pub preview_hash: String,
    /// Who owns its stock ([`Authority::ExternalReadOnly`] when not given).
    pub authority: Authority,
    /// Link this spool instead of making one.
    pub local_spool_id: Option<Id>,
}

impl Command for ImportSpool {
    type Writer = LedgerWriter;
    type Reply = Id;

    fn apply(&mut self, txn: &Txn) -> Result<Id> {
        settings::require_spool_management(txn)?;
        let remote = &self.remote;
        if preview_hash(remote) != self.preview_hash.to_lowercase()
            || conflicts(remote, None).iter().any(|c| c.blocks_import())
        {
            return Err(Error::IntegrationConflict);
        }
        let now = Timestamp::now();
        let reserved = repo::remote_get(txn, tables::REMOTE_SPOOLS, remote.id)?;
        let local = match (reserved, self.local_spool_id) {
            (Some(owner), Some(given)) if owner != given => return Err(Error::IntegrationConflict),
            (Some(owner), _) => owner,
            (None, Some(given)) => {
                linkable(txn, given, remote)?;
                given
            }
            (None, None) => spool_of(txn, remote, now)?,
        };
        let old = links::of(txn, local)?;
        if let Some(old) = &old
            && old.remote_id != remote.id
        {
            return Err(Error::IntegrationConflict);
        }
        if old.as_ref().is_some_and(|l| l.authority != self.authority)
            && links::unresolved(txn, local)?
        {
            return Err(Error::IntegrationConflict);
        }
        repo::remote_put(txn, tables::REMOTE_SPOOLS, remote.id, local)?;
        let link = SpoolLink {
            spool_id: local,
            remote_id: remote.id,
            authority: self.authority,
            remote_remaining_grams: None,
            remote_state: RemoteState::Active,
            synced_at: None,
            sync_error: None,
            linked_at: old.map_or(now, |l| l.linked_at),
        };
        repo::put(txn, &link)?;
        refresh(txn, local, Ok(Some(remote)))?;
        Ok(local)
    }
}

/// Stores what a sync of spool `spool_id` found: the remote spool (its remaining grams, price
/// and state), `None` for a remote 404 (`MISSING`), or the error code of a failed call (the
/// figures stay, the link turns stale). Errors: [`Error::IntegrationConflict`] when the spool
/// is not linked.
pub fn refresh(
    txn: &Txn,
    spool_id: Id,
    found: std::result::Result<Option<&RemoteSpool>, &'static str>,
) -> Result<()> {
    let mut link = links::of(txn, spool_id)?.ok_or(Error::IntegrationConflict)?;
    let now = Timestamp::now();
    match found {
        Ok(Some(remote)) => {
            link.remote_remaining_grams = remote.remaining_weight.map(|g| g.normalize());
            link.remote_state = if remote.archived {
                RemoteState::Archived
            } else {
                RemoteState::Active
            };
            if let Some(price) = price(remote) {
                let mut spool = ledger::get(txn, spool_id)?;
                if spool.purchase_price != price {
                    spool.purchase_price = price;
                    spool.updated_at = now;
                    repo::put(txn, &spool)?;
                }
            }
            link.synced_at = Some(now);
            link.sync_error = None;
        }
        Ok(None) => {
            link.remote_state = RemoteState::Missing;
            link.synced_at = Some(now);
            link.sync_error = None;
        }
        Err(code) => link.sync_error = Some(code.to_string()),
    }
    repo::put(txn, &link)?;
    Ok(())
}

/// Records a sync of a linked spool (see [`refresh`]); a failed call is stored on the spool,
/// not refused. Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`];
/// [`Error::IntegrationConflict`] when the spool is not linked.
#[derive(Debug, Clone)]
pub struct RecordSync {
    /// The local spool.
    pub spool_id: Id,
    /// The remote spool, `None` for a 404, or the error code of the failed call.
    pub found: std::result::Result<Option<RemoteSpool>, &'static str>,
}

impl Command for RecordSync {
    type Writer = LedgerWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        settings::require_spool_management(txn)?;
        ledger::get(txn, self.spool_id)?;
        let found = self.found.as_ref().map(Option::as_ref).map_err(|c| *c);
        refresh(txn, self.spool_id, found)
    }
}

/// Gives a linked spool back to our ledger: books one CORRECTION so that its native ledger
/// starts at the confirmed `opening_balance`, and removes the link (the remote id stays
/// reserved to the spool); replies with the spool's id.
///
/// Errors: as [`require_enabled`]; [`Error::NotFound`]; [`Error::IntegrationConflict`] when it
/// is not linked or has unresolved operations.
#[derive(Debug, Clone)]
pub struct Unlink {
    /// The spool.
    pub spool_id: Id,
    /// Grams on it now, as a person confirmed them (at least zero).
    pub opening_balance: Decimal,
}

impl Command for Unlink {
    type Writer = LedgerWriter;
    type Reply = Id;

    fn apply(&mut self, txn: &Txn) -> Result<Id> {
        require_enabled(txn, Integration::Spoolmgr)?;
        if self.opening_balance.is_sign_negative() && !self.opening_balance.is_zero() {
            return Err(Error::field("openingBalance", "errors.negative"));
        }
        let spool = ledger::get(txn, self.spool_id)?;
        if links::of(txn, spool.id)?.is_none() || links::unresolved(txn, spool.id)? {
            return Err(Error::IntegrationConflict);
        }
        repo::remove::<SpoolLink>(txn, spool.id)?;
        let delta = self.opening_balance - spool.remaining_grams;
        if !delta.is_zero() {
            let correction = MovementInput {
                kind: MovementKind::Correction,
                grams: delta,
                note: Some(Lines::of_instance(txn)?.unlinked().into()),
                operation_key: None,
                print_id: None,
                usage_id: None,
            };
            ledger::book(txn, spool.id, &correction, Timestamp::now())?;
        }
        Ok(spool.id)
    }
}
