//! Fixed charges: a setup fee per job, packaging per piece, a test print.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::Result;
use crate::inventory;
use crate::txn::Txn;
use crate::values::{Amount, Name, Note, note_text};
use storage::records::{Charge, Per};
use storage::repo::Tx;
use storage::{Id, Timestamp};

impl InventoryRecord for Charge {
    archivable!(Charge);
}

/// The editable fields of a charge (create, full replace).
#[derive(Debug, Clone)]
pub struct ChargeInput {
    /// Display name ("Grundgebühr").
    pub name: Name,
    /// Its amount, instance currency.
    pub amount: Amount,
    /// Per piece or per job.
    pub per: Per,
    /// Free text.
    pub note: Option<Note>,
}

fn write(txn: &Txn, mut charge: Charge, input: &ChargeInput, now: Timestamp) -> Result<Charge> {
    charge.name = input.name.get().clone();
    charge.amount = *input.amount.get();
    charge.per = input.per;
    charge.note = note_text(input.note.clone());
    charge.updated_at = now;
    save(txn, &charge)?;
    Ok(charge)
}

/// The charges resource's rules (see [`Kind`]).
pub struct Charges;

impl Kind for Charges {
    type Record = Charge;
    type Input = ChargeInput;
    type View = Charge;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<Charge> {
        let charge = Charge {
            id: Id::new(),
            name: String::new(),
            amount: Default::default(),
            per: input.per,
            note: None,
            archived: false,
            created_at: now,
            updated_at: now,
        };
        write(txn, charge, input, now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<Charge> {
        let old: Charge = inventory::get(txn, id)?;
        write(txn, old, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<Charge> {
        inventory::get(tx, id)
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<Charge>> {
        inventory::list(
            tx,
            query,
            |c: Charge| c,
            |c| query.matches(&[&c.name, c.note.as_deref().unwrap_or("")]),
            |c| c.name.clone(),
        )
    }
}
