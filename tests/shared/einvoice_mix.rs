//! A seeded mix of EN 16931 documents for the tests that judge them (`actors/tests/einvoice.rs`
//! for the XML, `tests/zugferd.rs` for the PDFs): German B2B at 19 % and 7 %, private buyers, a
//! § 19 UStG small business, reverse charge to Austria and France, export to Switzerland,
//! zero-rated lines, hours and pieces, allowances and charges, credit notes naming their
//! invoice, 1 to 200 lines, names with `<`, `&` and quotes. Included with `#[path]`.

use actors::einvoice::{Adjustment, Document, Kind, Line, Vat};
use jiff::civil::Date;
use rust_decimal::Decimal;
use storage::records::{InvoiceParty as Party, PostalAddress};

/// A small deterministic generator (xorshift64*), so a failure names its document.
pub struct Seeded(pub u64);

impl Seeded {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A decimal of `whole` digits at most and `places` decimals.
    pub fn decimal(&mut self, max: u64, places: u32) -> Decimal {
        let scale = 10u64.pow(places);
        Decimal::new((self.below(max * scale) + 1) as i64, places)
    }
}

fn address(street: &str, postal_code: &str, city: &str, country: &str) -> PostalAddress {
    PostalAddress {
        street: street.into(),
        postal_code: postal_code.into(),
        city: city.into(),
        country: country.into(),
    }
}

fn seller(small_business: bool) -> Party {
    Party {
        name: "Musterdruck GmbH & Co. KG".into(),
        address: address("Hauptstraße 1", "10115", "Berlin", "DE"),
        vat_id: (!small_business).then(|| "DE123456789".into()),
        tax_number: Some("30/123/45678".into()),
        email: "rechnung@musterdruck.example".into(),
        phone: Some("+49 30 1234567".into()),
    }
}

/// The buyers of the mix: (party, where they are).
fn buyer(kind: u64) -> (Party, &'static str) {
    let party = |name: &str, address, vat_id: Option<&str>| Party {
        name: name.into(),
        address,
        vat_id: vat_id.map(Into::into),
        tax_number: None,
        email: "einkauf@kunde.example".into(),
        phone: None,
    };
    match kind {
        0 => (
            party(
                "Verein Modellbau e. V.",
                address("Am Markt 3", "80331", "München", "DE"),
                Some("DE987654321"),
            ),
            "DE",
        ),
        1 => (
            party(
                "Erika Mustermann",
                address("Lindenweg 7", "50667", "Köln", "DE"),
                None,
            ),
            "DE",
        ),
        2 => (
            party(
                "Druckwerk GmbH",
                address("Ringstraße 1", "1010", "Wien", "AT"),
                Some("ATU12345678"),
            ),
            "AT",
        ),
        3 => (
            party(
                "Atelier Lumière SARL",
                address("1 rue de la Paix", "75002", "Paris", "FR"),
                Some("FR12345678901"),
            ),
            "FR",
        ),
        _ => (
            party(
                "Uhrenteile AG",
                address("Bahnhofstrasse 1", "8001", "Zürich", "CH"),
                None,
            ),
            "CH",
        ),
    }
}

const PARTS: [&str; 6] = [
    "Roboter-Chassis",
    "Pokalsockel",
    "Nachbearbeitung",
    "Grundgebühr",
    "Ersatzteil <Halter> & Clip",
    "Gehäuse \"Pro\"",
];

/// Document `n` of the mix.
pub fn document(n: u64) -> Document {
    let mut rng = Seeded(0x9E37_79B9_7F4A_7C15 ^ (n + 1));
    let small_business = n % 7 == 3;
    let (buyer, country) = buyer(rng.below(5));
    let vat = |rng: &mut Seeded| match (small_business, country, buyer.vat_id.is_some()) {
        (true, _, _) => Vat::SmallBusiness,
        (false, "AT" | "FR", true) => Vat::ReverseCharge,
        (false, "CH", _) => Vat::Export,
        _ => match rng.below(10) {
            0..=5 => Vat::Standard(Decimal::from(19)),
            6..=8 => Vat::Standard(Decimal::from(7)),
            _ => Vat::Zero,
        },
    };
    let count = match n % 10 {
        0 => 200,
        1 => 1,
        _ => 1 + rng.below(25),
    };
    let lines = (0..count)
        .map(|_| {
            let hours = rng.below(4) == 0;
            Line {
                name: PARTS[rng.below(PARTS.len() as u64) as usize].into(),
                quantity: if hours {
                    rng.decimal(12, 2)
                } else {
                    Decimal::from(1 + rng.below(40))
                },
                unit: if hours { "HUR" } else { "C62" },
                unit_price: rng.decimal(400, 4),
                vat: vat(&mut rng),
            }
        })
        .collect::<Vec<_>>();
    let adjustments = (0..rng.below(3))
        .map(|i| Adjustment {
            charge: i == 0,
            amount: rng.decimal(9, 2),
            reason: if i == 0 {
                "Versand".into()
            } else {
                "Rabatt".into()
            },
            vat: lines[0].vat,
        })
        .collect();
    let issued_on = Date::new(2026, 11, 27).unwrap();
    let credit = n % 5 == 4;
    Document {
        kind: if credit {
            Kind::CreditNote
        } else {
            Kind::Invoice
        },
        number: format!("2026-{:04}", n + 1),
        issued_on,
        due_on: Some(Date::new(2026, 12, 11).unwrap()),
        payment_terms: Some("Zahlbar innerhalb von 14 Tagen ohne Abzug.".into()),
        currency: "EUR".into(),
        buyer_reference: format!("991-{:05}-{:02}", n, n % 97),
        preceding: credit.then(|| (format!("2026-{:04}", n), Date::new(2026, 11, 20).unwrap())),
        note: small_business.then(|| "Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.".into()),
        seller: seller(small_business),
        buyer,
        account: (
            "DE89370400440532013000".into(),
            n.is_multiple_of(2).then(|| "COBADEFFXXX".into()),
        ),
        lines,
        adjustments,
        prepaid: if n.is_multiple_of(9) {
            Decimal::new(1000, 2)
        } else {
            Decimal::ZERO
        },
    }
}
