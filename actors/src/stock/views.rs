//! Spools as lists and pages show them: with their filament's name.

use crate::inventory;
use crate::inventory::filaments;
use crate::ledger;
use crate::ledger::remote as links;
use crate::list::{ListQuery, Page};
use crate::{Result, settings};
use rust_decimal::Decimal;
use storage::Id;
use storage::records::{Authority, Filament, MaterialKind, Spool, SpoolLink, StockUnit};
use storage::repo::{self, Tx};

/// A spool with its filament's name and its link to the spool manager.
#[derive(Debug, Clone, PartialEq)]
pub struct SpoolView {
    /// The spool.
    pub spool: Spool,
    /// Its material's display name.
    pub filament: String,
    /// Its material's kind (a filament's spool, a resin's bottle, a consumable's pack).
    pub kind: MaterialKind,
    /// The unit its quantities are counted in.
    pub unit: StockUnit,
    /// Its link to the spool manager, if any.
    pub link: Option<SpoolLink>,
}

impl SpoolView {
    /// Grams left by the owner of its stock ([`links::remaining`]).
    pub fn remaining(&self) -> Decimal {
        links::remaining(&self.spool, self.link.as_ref())
    }

    /// Who owns its stock.
    pub fn authority(&self) -> Authority {
        self.link
            .as_ref()
            .map_or(Authority::Native, |l| l.authority)
    }
}

/// Spool list filters.
#[derive(Debug, Clone, Default)]
pub struct SpoolFilter {
    /// Only this filament.
    pub filament_id: Option<Id>,
    /// Only spools with filament left.
    pub available_only: bool,
}

/// Spools matching `query` and `filter` (search covers code, lot, location and filament name),
/// sorted by code. Errors: [`crate::Error::SpoolManagementDisabled`].
pub fn list(tx: &impl Tx, query: &ListQuery, filter: &SpoolFilter) -> Result<Page<SpoolView>> {
    settings::require_spool_management(tx)?;
    let materials = materials_by_id(tx)?;
    let mut links = links::all(tx)?;
    let mut rows: Vec<SpoolView> = repo::all::<Spool>(tx)?
        .into_iter()
        .filter(|s| query.include_archived || !s.archived)
        .filter(|s| filter.filament_id.is_none_or(|f| s.filament_id == f))
        .map(|s| {
            let (filament, kind, unit) = materials.get(&s.filament_id).cloned().unwrap_or((
                String::new(),
                MaterialKind::Filament,
                StockUnit::Gram,
            ));
            SpoolView {
                filament,
                kind,
                unit,
                link: links.remove(&s.id),
                spool: s,
            }
        })
        .filter(|v| !filter.available_only || v.remaining() > Decimal::ZERO)
        .filter(|v| {
            query.matches(&[
                &v.spool.code,
                v.spool.purchase_lot.as_deref().unwrap_or(""),
                v.spool.location.as_deref().unwrap_or(""),
                &v.filament,
            ])
        })
        .collect();
    rows.sort_by_key(|v| (ledger::code_key(&v.spool.code), v.spool.id));
    Ok(Page::cut(rows, query))
}

/// Spool `id` with its filament's name. Errors: [`crate::Error::NotFound`].
pub fn view(tx: &impl Tx, id: Id) -> Result<SpoolView> {
    let spool = ledger::get(tx, id)?;
    let filament: Filament = inventory::get(tx, spool.filament_id)?;
    Ok(SpoolView {
        filament: filaments::display_name(tx, &filament)?,
        kind: filament.kind,
        unit: filament.unit,
        link: links::of(tx, spool.id)?,
        spool,
    })
}

/// Every material's display name, kind and unit by id.
fn materials_by_id(
    tx: &impl Tx,
) -> Result<std::collections::HashMap<Id, (String, MaterialKind, StockUnit)>> {
    let mut found = std::collections::HashMap::new();
    for f in repo::all::<Filament>(tx)? {
        found.insert(f.id, (filaments::display_name(tx, &f)?, f.kind, f.unit));
    }
    Ok(found)
}
