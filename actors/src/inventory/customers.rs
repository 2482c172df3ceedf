//! Customers.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::inventory;
use crate::txn::Txn;
use crate::values::{AddressInput, Amount, Email, Locale, Name, Note, VatId, note_text};
use crate::{Error, Result};
use rust_decimal::Decimal;
use storage::records::{Billing, Customer};
use storage::repo::Tx;
use storage::{Id, Timestamp};

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
    /// A discount on the price rule, percent below 100.
    pub discount_percent: Option<Amount>,
    /// What quotes and invoices need.
    pub billing: BillingInput,
}

/// The billing details of a customer input; each optional.
#[derive(Debug, Clone, Default)]
pub struct BillingInput {
    /// Postal address with country.
    pub address: Option<AddressInput>,
    /// VAT identification number.
    pub vat_id: Option<VatId>,
    /// Buyer reference or Leitweg-ID.
    pub buyer_reference: Option<Name>,
    /// Where invoices go.
    pub invoice_email: Option<Email>,
    /// Quote and invoice language.
    pub language: Option<Locale>,
    /// Days to pay, 0 to 365.
    pub payment_terms_days: Option<u16>,
}

impl BillingInput {
    /// The stored form. Errors: `errors.outOfRange` at `paymentTermsDays` beyond 365.
    fn billing(&self) -> Result<Billing> {
        if self.payment_terms_days.is_some_and(|d| d > 365) {
            return Err(Error::field("paymentTermsDays", "errors.outOfRange"));
        }
        Ok(Billing {
            address: self.address.as_ref().map(AddressInput::address),
            vat_id: self.vat_id.as_ref().map(|v| v.get().clone()),
            buyer_reference: self.buyer_reference.as_ref().map(|b| b.get().clone()),
            invoice_email: self.invoice_email.as_ref().map(|e| e.get().clone()),
            language: self.language.as_ref().map(|l| l.get().clone()),
            payment_terms_days: self.payment_terms_days,
        })
    }
}

fn write(
    txn: &Txn,
    mut customer: Customer,
    input: &CustomerInput,
    now: Timestamp,
) -> Result<Customer> {
    customer.name = input.name.get().clone();
    customer.email = input.email.as_ref().map(|e| e.get().clone());
    customer.note = note_text(input.note.clone());
    customer.exclude_from_dashboard = input.exclude_from_dashboard;
    customer.discount_percent = match input.discount_percent.as_ref().map(|d| *d.get()) {
        Some(d) if d >= Decimal::ONE_HUNDRED => {
            return Err(Error::field("discountPercent", "errors.outOfRange"));
        }
        other => other,
    };
    customer.billing = input.billing.billing()?;
    customer.updated_at = now;
    save(txn, &customer)?;
    Ok(customer)
}

/// The customers resource's rules (see [`Kind`]).
pub struct Customers;

impl Kind for Customers {
    type Record = Customer;
    type Input = CustomerInput;
    type View = Customer;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<Customer> {
        let customer = Customer {
            id: Id::new(),
            name: String::new(),
            email: None,
            note: None,
            exclude_from_dashboard: false,
            archived: false,
            created_at: now,
            updated_at: now,
            discount_percent: None,
            billing: Billing::default(),
        };
        write(txn, customer, input, now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<Customer> {
        let old: Customer = inventory::get(txn, id)?;
        write(txn, old, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<Customer> {
        inventory::get(tx, id)
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<Customer>> {
        inventory::list(
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
}
