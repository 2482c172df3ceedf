//! Customers.

use super::{InventoryRecord, ListQuery, Page, archivable, save};
use crate::Result;
use crate::values::{Email, Name, Note, note_text};
use storage::records::Customer;
use storage::repo::Tx;
use storage::{Id, Timestamp, WriteTransaction};

impl InventoryRecord for Customer {
    archivable!(Customer);
}

/// The editable fields of a customer (create, full replace).
#[derive(Debug, Clone)]
pub struct CustomerInput {
    /// Display name.
    pub name: Name,
    /// Contact email.
    pub email: Option<Email>,
    /// Free text.
    pub note: Option<Note>,
    /// Leave the customer's prints out of the dashboard.
    pub exclude_from_dashboard: bool,
}

/// Creates a customer.
pub fn create(txn: &WriteTransaction, input: &CustomerInput, now: Timestamp) -> Result<Customer> {
    let customer = Customer {
        id: Id::new(),
        name: String::new(),
        email: None,
        note: None,
        exclude_from_dashboard: false,
        archived: false,
        created_at: now,
        updated_at: now,
    };
    write(txn, None, customer, input, now)
}

/// Replaces the editable fields of customer `id`. Errors: [`crate::Error::NotFound`].
pub fn replace(
    txn: &WriteTransaction,
    id: Id,
    input: &CustomerInput,
    now: Timestamp,
) -> Result<Customer> {
    let old: Customer = super::get(txn, id)?;
    write(txn, Some(&old), old.clone(), input, now)
}

fn write(
    txn: &WriteTransaction,
    old: Option<&Customer>,
    mut customer: Customer,
    input: &CustomerInput,
    now: Timestamp,
) -> Result<Customer> {
    customer.name = input.name.get().clone();
    customer.email = input.email.as_ref().map(|e| e.get().clone());
    customer.note = note_text(input.note.clone());
    customer.exclude_from_dashboard = input.exclude_from_dashboard;
    customer.updated_at = now;
    save(txn, old, &customer)?;
    Ok(customer)
}

/// Customers matching `query` (search covers name, email and note), sorted by name.
pub fn list(tx: &impl Tx, query: &ListQuery) -> Result<Page<Customer>> {
    super::list(
        tx,
        query,
        |c: Customer| c,
        |c| {
            query.matches(&[
                &c.name,
                c.email.as_deref().unwrap_or(""),
                c.note.as_deref().unwrap_or(""),
            ])
        },
        |c| c.name.clone(),
    )
}
