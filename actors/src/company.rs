//! Settings › Company: the shop as its quotes and invoices name it (legal name, address, tax
//! ids, bank account, contact, payment terms, the small-business switch of § 19 UStG).

use crate::command::{Command, Query, SettingsWriter, Snapshot};
use crate::txn::Txn;
use crate::values::{AddressInput, Bic, Email, Iban, Locale, Name, Note, VatId, note_text};
use crate::{Error, Result};
use storage::records::Company;
use storage::repo;

/// The company's fields as given, each checked at its own field.
#[derive(Debug, Clone)]
pub struct CompanyInput {
    /// Legal name.
    pub name: Name,
    /// Postal address with country.
    pub address: Option<AddressInput>,
    /// VAT identification number.
    pub vat_id: Option<VatId>,
    /// Tax number (Steuernummer).
    pub tax_number: Option<Name>,
    /// IBAN, its check digits verified.
    pub iban: Option<Iban>,
    /// BIC.
    pub bic: Option<Bic>,
    /// Contact e-mail.
    pub email: Option<Email>,
    /// Contact phone.
    pub phone: Option<Name>,
    /// Days to pay, 0 to 365.
    pub payment_terms_days: u16,
    /// The payment terms in words.
    pub payment_terms_text: Option<Note>,
    /// The language of quotes and invoices unless the customer has one.
    pub language: Option<Locale>,
    /// A small business under § 19 UStG.
    pub small_business: bool,
}

impl CompanyInput {
    /// The stored form. Errors: `errors.outOfRange` at `paymentTermsDays` beyond 365.
    fn company(&self) -> Result<Company> {
        if self.payment_terms_days > 365 {
            return Err(Error::field("paymentTermsDays", "errors.outOfRange"));
        }
        let text = |n: &Option<Name>| n.as_ref().map(|n| n.get().clone());
        Ok(Company {
            name: self.name.get().clone(),
            address: self.address.as_ref().map(AddressInput::address),
            vat_id: self.vat_id.as_ref().map(|v| v.get().clone()),
            tax_number: text(&self.tax_number),
            iban: self.iban.as_ref().map(|i| i.get().clone()),
            bic: self.bic.as_ref().map(|b| b.get().clone()),
            email: self.email.as_ref().map(|e| e.get().clone()),
            phone: text(&self.phone),
            payment_terms_days: self.payment_terms_days,
            payment_terms_text: note_text(self.payment_terms_text.clone()),
            language: self.language.as_ref().map(|l| l.get().clone()),
            small_business: self.small_business,
        })
    }
}

/// Settings › Company as stored (nameless until first set).
pub struct GetCompany;

impl Query for GetCompany {
    type Answer = Company;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Company> {
        Ok(repo::company(snapshot)?)
    }
}

/// Replaces Settings › Company; replies with it. Errors: as [`CompanyInput`]'s fields.
pub struct SetCompany(pub CompanyInput);

impl Command for SetCompany {
    type Writer = SettingsWriter;
    type Reply = Company;

    fn apply(&mut self, txn: &Txn) -> Result<Company> {
        let company = self.0.company()?;
        repo::put_company(txn, &company)?;
        Ok(company)
    }
}
