//! Labour rates: what an hour of somebody's work costs.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::Result;
use crate::inventory;
use crate::txn::Txn;
use crate::values::{Amount, Name, Note, note_text};
use storage::records::LabourRate;
use storage::repo::Tx;
use storage::{Id, Timestamp};

impl InventoryRecord for LabourRate {
    archivable!(LabourRate);
}

/// The editable fields of a labour rate (create, full replace).
#[derive(Debug, Clone)]
pub struct LabourRateInput {
    /// Display name ("Nachbearbeitung").
    pub name: Name,
    /// Price of one hour, instance currency.
    pub hourly_rate: Amount,
    /// Free text.
    pub note: Option<Note>,
}

fn write(
    txn: &Txn,
    mut rate: LabourRate,
    input: &LabourRateInput,
    now: Timestamp,
) -> Result<LabourRate> {
    rate.name = input.name.get().clone();
    rate.hourly_rate = *input.hourly_rate.get();
    rate.note = note_text(input.note.clone());
    rate.updated_at = now;
    save(txn, &rate)?;
    Ok(rate)
}

/// The labour rates resource's rules (see [`Kind`]).
pub struct LabourRates;

impl Kind for LabourRates {
    type Record = LabourRate;
    type Input = LabourRateInput;
    type View = LabourRate;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<LabourRate> {
        let rate = LabourRate {
            id: Id::new(),
            name: String::new(),
            hourly_rate: Default::default(),
            note: None,
            archived: false,
            created_at: now,
            updated_at: now,
        };
        write(txn, rate, input, now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<LabourRate> {
        let old: LabourRate = inventory::get(txn, id)?;
        write(txn, old, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<LabourRate> {
        inventory::get(tx, id)
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<LabourRate>> {
        inventory::list(
            tx,
            query,
            |r: LabourRate| r,
            |r| query.matches(&[&r.name, r.note.as_deref().unwrap_or("")]),
            |r| r.name.clone(),
        )
    }
}
