//! Power cuts (issue 27): a redb [`StorageBackend`] that keeps every write made since the last
//! sync apart, as a disk's volatile cache does, and at a chosen write or sync "cuts the power":
//! the disk then keeps what was synced plus none of the unsynced writes, a random subset of them,
//! or all of them with the last one torn at a 512-byte boundary.
//!
//! Each case starts the real writer actors on a copy of one set-up store, runs a mixed workload
//! (drafts, status moves, outcomes with consumption, corrections, manual bookings, feature and
//! integration settings, spool-manager imports, syncs and operations) until the cut, and reopens
//! the store on what survived. It must open, its print projection must load, and its contents
//! must be exactly those after the last acknowledged write, or those after the write in flight
//! had it completed (the disk as a `kill -9` at the cut leaves it): every acknowledged write is
//! there and nothing is half there, its journal entries included (so an entry exists exactly
//! when its command committed, and the chain verifies). A refused command must leave the
//! contents as they were.
//!
//! `PROPTEST_CASES` sets the number of cases (default 1,400, of which at least 1,000 must cut
//! inside the workload; about 25 s in a debug build).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/setup.rs"]
mod support_setup;
use actix::Arbiter;
use actors::company::{CompanyInput, SetCompany};
use actors::integrations::import::{ImportSpool, RecordSync, preview_hash};
use actors::integrations::operations::{Claim, ClaimOperation, Sent, SettleOperation};
use actors::integrations::settings::{Defaults, PeerChange, PeerUrl, UpdateIntegrations};
use actors::integrations::spoolmgr::{RemoteFilament, RemoteSpool, RemoteVendor};
use actors::inventory::charges::{ChargeInput, Charges};
use actors::inventory::commands::{CreateRecord, ReplaceRecord};
use actors::inventory::customers::{BillingInput, CustomerInput, Customers};
use actors::inventory::labour_rates::{LabourRateInput, LabourRates};
use actors::inventory::materials::{MaterialInput, Materials};
use actors::invoices::{CreateInvoice, InvoiceInput, IssueInvoice};
use actors::pricing::SetPricing;
use actors::prints;
use actors::prints::outcome::{CorrectionInput, OutcomeInput};
use actors::prints::{CreateDraft, PrintIndex, PrintInput, RecordOutcome, SetStatus, WorkInput};
use actors::quotes::{AcceptQuote, CreateQuote, DeclineQuote, QuoteInput, SendQuote};
use actors::runtime::writer::Writers;
use actors::setup::{FeaturesInput, RunSetup, UpdateFeatures};
use actors::stock::BookMovement;
use actors::values::AddressInput;
use actors::values::Seconds;
use proptest::prelude::*;
use redb::{
    MultimapTableDefinition, ReadTransaction, ReadableMultimapTable, ReadableTable, StorageBackend,
    TableDefinition,
};
use rust_decimal::Decimal;
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use storage::journal::{self, Verdict};
use storage::records::{
    Authority, Invoice, OperationState, OutcomeStatus, Per, Pricing, Print, PrintStatus, Quote,
    QuoteStatus, Spool, SpoolmgrOperation, WorkSource,
};
use storage::records::{MaterialKind, MovementKind, Printer, StockUnit};
use storage::{Id, Store, StoreOptions, repo, tables};
use support_setup::demo_setup;

/// How the power goes.
#[derive(Debug, Clone)]
enum Cut {
    /// Every unsynced write is lost.
    DropAll,
    /// The unsynced writes whose index (modulo the mask's length) is set survive.
    Subset(Vec<bool>),
    /// Every unsynced write survives but the last, of which only the first `n` 512-byte sectors
    /// (modulo its sector count) reached the disk.
    TearLast(usize),
}

/// A change the disk has not synced.
#[derive(Debug, Clone)]
enum Unsynced {
    Write(u64, Vec<u8>),
    SetLen(u64),
}

impl Unsynced {
    fn apply_to(&self, image: &mut Vec<u8>) {
        match self {
            Unsynced::Write(offset, data) => {
                let start = usize::try_from(*offset).unwrap();
                if image.len() < start + data.len() {
                    image.resize(start + data.len(), 0);
                }
                image[start..start + data.len()].copy_from_slice(data);
            }
            Unsynced::SetLen(len) => image.resize(usize::try_from(*len).unwrap(), 0),
        }
    }
}

/// What the disk held when the power went.
struct Survivors {
    /// Synced, plus the unsynced writes the cut kept.
    after_cut: Vec<u8>,
    /// Everything written, synced or not: what a `kill -9` at that moment leaves.
    after_kill: Vec<u8>,
}

#[derive(Default)]
struct Platter {
    /// What reads see (the page cache).
    cached: Vec<u8>,
    /// What a power cut keeps for certain.
    synced: Vec<u8>,
    unsynced: Vec<Unsynced>,
    /// Writes, length changes and syncs so far.
    events: u64,
    /// The event the power goes at, and how.
    armed: Option<(u64, Cut)>,
    survivors: Option<Survivors>,
}

/// The power-cut disk: clones share one platter.
#[derive(Clone, Default)]
struct Disk(Arc<Mutex<Platter>>);

impl std::fmt::Debug for Disk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Disk")
    }
}

fn dead() -> io::Error {
    io::Error::other("the power is off")
}

impl Disk {
    /// A disk holding `image`, synced.
    fn with(image: Vec<u8>) -> Disk {
        Disk(Arc::new(Mutex::new(Platter {
            cached: image.clone(),
            synced: image,
            ..Platter::default()
        })))
    }

    fn arm(&self, at: u64, cut: Cut) {
        let mut p = self.0.lock().unwrap();
        p.armed = Some((p.events + at, cut));
    }

    fn survivors(&self) -> Option<Survivors> {
        self.0.lock().unwrap().survivors.take()
    }

    fn synced_image(&self) -> Vec<u8> {
        self.0.lock().unwrap().synced.clone()
    }

    /// Counts one event; at the armed one the power goes and the event fails.
    fn event(p: &mut Platter) -> io::Result<()> {
        if p.survivors.is_some() {
            return Err(dead());
        }
        p.events += 1;
        match &p.armed {
            Some((at, cut)) if *at == p.events => {
                let mut after_cut = p.synced.clone();
                let last = p.unsynced.len().saturating_sub(1);
                for (i, change) in p.unsynced.iter().enumerate() {
                    match (cut, change) {
                        (Cut::DropAll, _) => {}
                        (Cut::Subset(mask), _) if !mask[i % mask.len()] => {}
                        (Cut::TearLast(n), Unsynced::Write(offset, data)) if i == last => {
                            let sectors = data.len().div_ceil(512);
                            let kept = (n % sectors.max(1)) * 512;
                            Unsynced::Write(*offset, data[..kept].to_vec())
                                .apply_to(&mut after_cut);
                        }
                        _ => change.apply_to(&mut after_cut),
                    }
                }
                p.survivors = Some(Survivors {
                    after_cut,
                    after_kill: p.cached.clone(),
                });
                Err(dead())
            }
            _ => Ok(()),
        }
    }
}

impl StorageBackend for Disk {
    fn len(&self) -> io::Result<u64> {
        let p = self.0.lock().unwrap();
        match p.survivors {
            Some(_) => Err(dead()),
            None => Ok(p.cached.len() as u64),
        }
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let p = self.0.lock().unwrap();
        let start = usize::try_from(offset).unwrap();
        match p.cached.get(start..start + out.len()) {
            _ if p.survivors.is_some() => Err(dead()),
            Some(bytes) => {
                out.copy_from_slice(bytes);
                Ok(())
            }
            None => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "beyond the end",
            )),
        }
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut p = self.0.lock().unwrap();
        Disk::event(&mut p)?;
        let change = Unsynced::SetLen(len);
        change.apply_to(&mut p.cached);
        p.unsynced.push(change);
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        let mut p = self.0.lock().unwrap();
        Disk::event(&mut p)?;
        let unsynced = std::mem::take(&mut p.unsynced);
        for change in &unsynced {
            change.apply_to(&mut p.synced);
        }
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut p = self.0.lock().unwrap();
        Disk::event(&mut p)?;
        let change = Unsynced::Write(offset, data.to_vec());
        change.apply_to(&mut p.cached);
        p.unsynced.push(change);
        Ok(())
    }
}

/// A digest of every entry of every table, read through one transaction.
struct Digest<'a> {
    txn: &'a ReadTransaction,
    hasher: DefaultHasher,
}

impl tables::Visit for Digest<'_> {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &mut self,
        def: TableDefinition<K, V>,
    ) -> storage::Result<()> {
        def.to_string().hash(&mut self.hasher);
        for entry in self.txn.open_table(def)?.iter()? {
            let (key, value) = entry?;
            K::as_bytes(&key.value()).as_ref().hash(&mut self.hasher);
            V::as_bytes(&value.value()).as_ref().hash(&mut self.hasher);
        }
        Ok(())
    }

    fn multimap<K: redb::Key + 'static, V: redb::Key + 'static>(
        &mut self,
        def: MultimapTableDefinition<K, V>,
    ) -> storage::Result<()> {
        def.to_string().hash(&mut self.hasher);
        for entry in self.txn.open_multimap_table(def)?.iter()? {
            let (key, values) = entry?;
            K::as_bytes(&key.value()).as_ref().hash(&mut self.hasher);
            for value in values {
                V::as_bytes(&value?.value()).as_ref().hash(&mut self.hasher);
            }
        }
        Ok(())
    }
}

fn digest(store: &Store) -> u64 {
    let txn = store.begin_read().unwrap();
    let mut digest = Digest {
        txn: &txn,
        hasher: DefaultHasher::new(),
    };
    tables::visit_all(&mut digest).unwrap();
    digest.hasher.finish()
}

/// One step of the workload. Indices pick among the prints and spools (modulo).
#[derive(Debug, Clone)]
enum Step {
    /// A draft on the native spool, or on the spool-manager spool.
    Draft(bool),
    Move(usize, PrintStatus),
    /// An outcome of so many grams: a movement, or a spool-manager operation.
    Outcome(usize, u8),
    /// A correction to so many grams.
    Correct(usize, u8),
    /// Tenths of grams (of millilitres on the resin's bottle) booked as a receipt (positive) or
    /// a correction.
    Book(usize, i16),
    Features(bool, bool),
    Integration(bool),
    /// A sync of the spool-manager spool: its remaining grams, or a failed call.
    Sync(Option<u16>),
    /// Settles the oldest operation being sent (applied, or not sent), or else claims the
    /// oldest pending one.
    Settle(bool),
    /// The labour rate the drafts' work lines price at, per hour.
    Rate(u8),
    /// The price rule on (failure-adjusted) or off.
    Pricing(bool),
    /// A quote of a print for the templates' customer.
    Quote(usize),
    /// A quote moved on: a DRAFT sent, a SENT one accepted (true) or declined (false).
    Offer(usize, bool),
    /// A draft invoice of a print for the templates' customer.
    Bill(usize),
    /// An invoice issued (numbered and frozen).
    Issue(usize),
}

fn step() -> impl Strategy<Value = Step> {
    let status = prop_oneof![
        1 => Just(PrintStatus::Printing),
        1 => Just(PrintStatus::Shipped),
        3 => Just(PrintStatus::Done),
    ];
    prop_oneof![
        4 => any::<bool>().prop_map(Step::Draft),
        4 => (any::<usize>(), status).prop_map(|(p, s)| Step::Move(p, s)),
        6 => (any::<usize>(), 1u8..60).prop_map(|(p, g)| Step::Outcome(p, g)),
        2 => (any::<usize>(), 1u8..60).prop_map(|(p, g)| Step::Correct(p, g)),
        3 => (any::<usize>(), -400i16..400).prop_map(|(s, g)| Step::Book(s, g)),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(a, b)| Step::Features(a, b)),
        1 => any::<bool>().prop_map(Step::Integration),
        1 => proptest::option::of(0u16..1000).prop_map(Step::Sync),
        3 => any::<bool>().prop_map(Step::Settle),
        1 => any::<u8>().prop_map(Step::Rate),
        1 => any::<bool>().prop_map(Step::Pricing),
        2 => any::<usize>().prop_map(Step::Quote),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(q, a)| Step::Offer(q, a)),
        2 => any::<usize>().prop_map(Step::Bill),
        2 => any::<usize>().prop_map(Step::Issue),
    ]
}

fn cut() -> impl Strategy<Value = Cut> {
    prop_oneof![
        Just(Cut::DropAll),
        prop::collection::vec(any::<bool>(), 1..64).prop_map(Cut::Subset),
        any::<usize>().prop_map(Cut::TearLast),
    ]
}

fn remote_spool(remaining: Decimal) -> RemoteSpool {
    RemoteSpool {
        id: 41,
        filament: RemoteFilament {
            id: 7,
            name: Some("Galaxy Black".into()),
            vendor: Some(RemoteVendor {
                id: 3,
                name: "Remote Vendor".into(),
            }),
            material: Some("PLA".into()),
            price: Some(Decimal::from(25)),
            weight: Some(Decimal::from(1000)),
            color_hex: Some("101010".into()),
        },
        price: Some(Decimal::from(24)),
        remaining_weight: Some(remaining),
        initial_weight: Some(Decimal::from(1000)),
        used_weight: Decimal::from(1000) - remaining,
        location: None,
        lot_nr: None,
        archived: false,
    }
}

/// The set-up store every case starts from, and the draft templates on its two spools.
struct Base {
    image: Vec<u8>,
    /// Drafts on the native spool, then on the spool-manager spool.
    templates: [PrintInput; 2],
    /// The native spool, the spool-manager spool and a resin's bottle (millilitres).
    spools: [Id; 3],
    /// The unit of each of `spools`.
    units: [StockUnit; 3],
    /// The labour rate of the templates' work lines.
    rate: Id,
    /// The templates' customer.
    customer: Id,
}

/// A labour rate of `hourly` per hour.
fn labour_rate(hourly: u8) -> LabourRateInput {
    LabourRateInput {
        name: "Sanding".parse().unwrap(),
        hourly_rate: hourly.to_string().parse().unwrap(),
        note: None,
    }
}

fn start(store: &Store) -> (Writers, Vec<Arbiter>) {
    let index = Arc::new(PrintIndex::load(store, jiff::tz::TimeZone::UTC).unwrap());
    Writers::start(store, &index)
}

fn stop(arbiters: Vec<Arbiter>) {
    for arbiter in arbiters {
        arbiter.stop();
        arbiter.join().unwrap();
    }
}

fn base() -> Base {
    actix_rt::System::new().block_on(async {
        let disk = Disk::default();
        let store = Store::open_with_backend(disk.clone(), StoreOptions::default()).unwrap();
        let (writers, arbiters) = start(&store);
        writers
            .send(RunSetup {
                setup: demo_setup("Cut"),
                session_hash: [1; 32],
                session_ttl_seconds: 60,
            })
            .await
            .unwrap();
        let remote = remote_spool(Decimal::from(1000));
        let imported = writers
            .send(ImportSpool {
                preview_hash: preview_hash(&remote),
                remote,
                authority: Authority::ExternalConsumption,
                local_spool_id: None,
            })
            .await
            .unwrap();
        let rate = writers
            .send(CreateRecord::<LabourRates> {
                input: labour_rate(45),
            })
            .await
            .unwrap();
        let fee = ChargeInput {
            name: "Setup".parse().unwrap(),
            amount: "3.50".parse().unwrap(),
            per: Per::Job,
            note: None,
        };
        let fee = writers
            .send(CreateRecord::<Charges> { input: fee })
            .await
            .unwrap();
        let demo: Vec<Print> = repo::all(&store.begin_read().unwrap()).unwrap();
        let source = demo
            .iter()
            .find(|p| p.parts.len() == 1 && p.parts[0].usages.len() == 1)
            .expect("a one-filament demo print");
        let read = store.begin_read().unwrap();
        let mut native = PrintInput::from_print(&read, source, None, false).unwrap();
        drop(read);
        native.name = "Cut job".parse().unwrap();
        // A customer and a company an invoice can name.
        let billed = CustomerInput {
            name: "Cut customer".parse().unwrap(),
            email: Some("cut@example.com".parse().unwrap()),
            note: None,
            exclude_from_dashboard: false,
            discount_percent: None,
            billing: BillingInput {
                address: Some(AddressInput {
                    street: "Hauptstraße 1".parse().unwrap(),
                    postal_code: "10115".parse().unwrap(),
                    city: "Berlin".parse().unwrap(),
                    country: "DE".parse().unwrap(),
                }),
                ..BillingInput::default()
            },
        };
        let customer = writers
            .send(CreateRecord::<Customers> { input: billed })
            .await
            .unwrap()
            .id;
        let company = CompanyInput {
            name: "Cut GmbH".parse().unwrap(),
            address: Some(AddressInput {
                street: "Ring 2".parse().unwrap(),
                postal_code: "80331".parse().unwrap(),
                city: "München".parse().unwrap(),
                country: "DE".parse().unwrap(),
            }),
            vat_id: Some("DE123456789".parse().unwrap()),
            tax_number: None,
            iban: Some("DE89370400440532013000".parse().unwrap()),
            bic: None,
            email: Some("shop@example.com".parse().unwrap()),
            phone: None,
            payment_terms_days: 14,
            payment_terms_text: None,
            language: None,
            small_business: false,
        };
        writers.send(SetCompany(company)).await.unwrap();
        native.customer_id = Some(customer);
        native.sales_value = Some("25".parse().unwrap());
        native.work = vec![
            WorkInput {
                source: WorkSource::Labour(rate.id),
                minutes: Some("7".parse().unwrap()),
                count: None,
                per: Some(Per::Piece),
            },
            WorkInput {
                source: WorkSource::Charge(fee.id),
                minutes: None,
                count: None,
                per: None,
            },
        ];
        let native_spool = source.parts[0].usages[0].spool_id.expect("a demo spool");
        // A resin with its opening bottle: mixed-unit movements in the one ledger.
        let printer: Printer = repo::get(&store.begin_read().unwrap(), source.parts[0].printer_id)
            .unwrap()
            .unwrap();
        let resin = MaterialInput {
            kind: MaterialKind::Resin,
            unit: None,
            manufacturer_id: printer.manufacturer_id,
            material: "Cut resin".parse().unwrap(),
            color_name: Some("Grey".parse().unwrap()),
            color_hex: Some("#808080".parse().unwrap()),
            purchase_price: "39.90".parse().unwrap(),
            net_quantity: "1000".parse().unwrap(),
            minimum_stock: None,
            density_grams_per_millilitre: Some("1.1".parse().unwrap()),
            note: None,
            opening_spool: true,
        };
        let resin = writers
            .send(CreateRecord::<Materials> { input: resin })
            .await
            .unwrap();
        let bottle = repo::all::<Spool>(&store.begin_read().unwrap())
            .unwrap()
            .into_iter()
            .find(|s| s.filament_id == resin.filament.id)
            .expect("the resin's opening bottle")
            .id;
        let spool: Spool = repo::get(&store.begin_read().unwrap(), imported)
            .unwrap()
            .unwrap();
        let mut external = native.clone();
        external.parts[0].filaments[0].filament_id = spool.filament_id;
        external.parts[0].filaments[0].spool_id = Some(imported);
        stop(arbiters);
        drop((writers, store));
        Base {
            image: disk.synced_image(),
            templates: [native, external],
            spools: [native_spool, imported, bottle],
            units: [StockUnit::Gram, StockUnit::Gram, StockUnit::Millilitre],
            rate: rate.id,
            customer,
        }
    })
}

/// The workload's running state: what it made so far.
struct Workload<'a> {
    base: &'a Base,
    writers: Writers,
    store: Store,
    prints: Vec<Print>,
    quotes: Vec<Id>,
    invoices: Vec<Id>,
}

impl Workload<'_> {
    fn outcome(print: &Print, grams: u8) -> OutcomeInput {
        OutcomeInput {
            status: OutcomeStatus::Success,
            duration_seconds: Some(Seconds::try_from(3600).unwrap()),
            filaments: vec![(
                print.parts[0].usages[0].id,
                grams.to_string().parse().unwrap(),
            )],
            materials: Vec::new(),
            note: None,
            failure_reason: None,
            parts: None,
            electricity: Vec::new(),
            work_minutes: print
                .work
                .iter()
                .take(1)
                .map(|w| (w.id, grams.to_string().parse().unwrap()))
                .collect(),
        }
    }

    /// Runs `step`; true when the store answered it written or refused, false when it failed.
    async fn run(&mut self, step: &Step) -> Result<bool, actors::Error> {
        let pick = |n: usize, len: usize| (len > 0).then(|| n % len);
        let print = |n: usize| pick(n, self.prints.len()).map(|i| (i, self.prints[i].clone()));
        let written = match step {
            Step::Draft(external) => {
                let input = self.base.templates[usize::from(*external)].clone();
                let print = self
                    .writers
                    .send(CreateDraft {
                        input,
                        source: None,
                    })
                    .await?;
                self.prints.push(print);
                true
            }
            Step::Move(p, status) => {
                let Some((i, print)) = print(*p) else {
                    return Ok(false);
                };
                let status = *status;
                self.prints[i] = self
                    .writers
                    .send(SetStatus {
                        id: print.id,
                        status,
                        maintenance_override: None,
                    })
                    .await?;
                true
            }
            Step::Outcome(p, grams) => {
                let Some((i, print)) = print(*p) else {
                    return Ok(false);
                };
                let input = Self::outcome(&print, *grams);
                self.prints[i] = self
                    .writers
                    .send(RecordOutcome {
                        id: print.id,
                        input,
                    })
                    .await?;
                true
            }
            Step::Correct(p, grams) => {
                let Some((i, print)) = print(*p) else {
                    return Ok(false);
                };
                let revision = print
                    .outcome
                    .as_ref()
                    .and_then(|o| o.current())
                    .map_or(0, |r| r.revision);
                let input = CorrectionInput {
                    outcome: Self::outcome(&print, *grams),
                    correction_note: "Weighed".into(),
                    expected_revision: revision,
                    operation_key: Id::new(),
                };
                let id = print.id;
                self.prints[i] = self
                    .writers
                    .send(prints::CorrectOutcome { id, input })
                    .await?;
                true
            }
            Step::Book(s, tenths) => {
                let grams = Decimal::new(i64::from(*tenths), 1);
                let kind = if grams > Decimal::ZERO {
                    MovementKind::Receipt
                } else {
                    MovementKind::Correction
                };
                let command = BookMovement {
                    spool_id: self.base.spools[s % 3],
                    kind,
                    grams: grams.to_string().parse().unwrap(),
                    unit: self.base.units[s % 3],
                    note: None,
                    operation_key: Some(Id::new()),
                };
                self.writers.send(command).await?;
                true
            }
            Step::Features(series, spools) => {
                let features = FeaturesInput {
                    print_series_enabled: Some(*series),
                    spool_management_enabled: Some(*spools),
                };
                self.writers.send(UpdateFeatures(features)).await?;
                true
            }
            Step::Integration(enabled) => {
                let change = PeerChange {
                    enabled: *enabled,
                    url: Some(PeerUrl::parse("http://127.0.0.1:7912").unwrap()),
                    credential: None,
                };
                let command = UpdateIntegrations {
                    spoolmgr: Some(change),
                    printfleet: None,
                    defaults: Defaults::default(),
                };
                self.writers.send(command).await?;
                true
            }
            Step::Sync(remaining) => {
                let found = match remaining {
                    Some(grams) => Ok(Some(remote_spool(Decimal::from(*grams)))),
                    None => Err("TIMEOUT"),
                };
                let spool_id = self.base.spools[1];
                self.writers.send(RecordSync { spool_id, found }).await?;
                true
            }
            Step::Settle(applied) => {
                let ops: Vec<SpoolmgrOperation> = repo::all(&self.store.begin_read()?)?;
                let first = |state| ops.iter().find(|o| o.state == state).map(|o| o.id);
                if let Some(id) = first(OperationState::Sending) {
                    let sent = if *applied {
                        Sent::Applied(None)
                    } else {
                        Sent::NotSent("CONNECTION_REFUSED")
                    };
                    self.writers.send(SettleOperation { id, sent }).await?;
                    true
                } else if let Some(id) = first(OperationState::Pending) {
                    matches!(self.writers.send(ClaimOperation(id)).await?, Claim::Send(_))
                } else {
                    false
                }
            }
            Step::Pricing(enabled) => {
                let rule = Pricing {
                    enabled: *enabled,
                    failure_adjusted: true,
                    ..Pricing::default()
                };
                self.writers.send(SetPricing(rule)).await?;
                true
            }
            Step::Quote(p) => {
                let Some((_, print)) = print(*p) else {
                    return Ok(false);
                };
                let input = QuoteInput {
                    customer_id: self.base.customer,
                    print_ids: vec![print.id],
                    valid_until: "2099-12-31".parse().unwrap(),
                    note: None,
                };
                let today = "2026-11-27".parse().unwrap();
                let quote = self.writers.send(CreateQuote { input, today }).await?;
                self.quotes.push(quote.quote.id);
                true
            }
            Step::Offer(q, accept) => {
                let Some(i) = pick(*q, self.quotes.len()) else {
                    return Ok(false);
                };
                let (id, today) = (self.quotes[i], "2026-11-27".parse().unwrap());
                let status = repo::get::<Quote>(&self.store.begin_read().unwrap(), id)
                    .unwrap()
                    .map(|q| q.status);
                match (status, accept) {
                    (Some(QuoteStatus::Draft), _) => {
                        self.writers.send(SendQuote { id, today }).await?;
                    }
                    (Some(QuoteStatus::Sent), true) => {
                        self.writers.send(AcceptQuote { id, today }).await?;
                    }
                    (Some(QuoteStatus::Sent), false) => {
                        self.writers.send(DeclineQuote { id, today }).await?;
                    }
                    _ => return Ok(false),
                }
                true
            }
            Step::Bill(p) => {
                let Some((_, print)) = print(*p) else {
                    return Ok(false);
                };
                let input = InvoiceInput {
                    customer_id: self.base.customer,
                    print_ids: vec![print.id],
                    extras: Vec::new(),
                    allowances: Vec::new(),
                    note: None,
                };
                let invoice = self.writers.send(CreateInvoice(input)).await?;
                self.invoices.push(invoice.invoice.id);
                true
            }
            Step::Issue(i) => {
                let Some(i) = pick(*i, self.invoices.len()) else {
                    return Ok(false);
                };
                let command = IssueInvoice {
                    id: self.invoices[i],
                    today: "2026-11-27".parse().unwrap(),
                };
                self.writers.send(command).await?;
                true
            }
            Step::Rate(hourly) => {
                let command = ReplaceRecord::<LabourRates> {
                    id: self.base.rate,
                    input: labour_rate(*hourly),
                };
                self.writers.send(command).await?;
                true
            }
        };
        Ok(written)
    }
}

/// Opens the store on `image` as the appliance would after the power came back; its digest.
fn reopen(image: Vec<u8>, what: &str) -> u64 {
    let store = Store::open_with_backend(Disk::with(image), StoreOptions::default())
        .unwrap_or_else(|e| panic!("{what}: the store does not open: {e}"));
    PrintIndex::load(&store, jiff::tz::TimeZone::UTC)
        .unwrap_or_else(|e| panic!("{what}: the print projection does not load: {e}"));
    // Issued invoices are numbered 1 … n, each number once, none skipped.
    let invoices: Vec<Invoice> = repo::all(&store.begin_read().unwrap()).unwrap();
    let mut numbers: Vec<u32> = invoices
        .iter()
        .filter_map(|i| i.issued.as_ref())
        .map(|i| i.number.rsplit('-').next().unwrap().parse().unwrap())
        .collect();
    numbers.sort_unstable();
    let expected: Vec<u32> = (1..=numbers.len() as u32).collect();
    assert_eq!(
        numbers, expected,
        "{what}: invoice numbers with a gap or twice"
    );
    // The journal holds an entry exactly for each committed command (the digest above
    // compares it with everything else) and its chain is whole.
    let verdict = journal::verify(&store.begin_read().unwrap()).unwrap();
    assert!(
        matches!(verdict, Verdict::Intact { .. }),
        "{what}: the journal's chain is broken: {verdict:?}"
    );
    digest(&store)
}

static CUTS: AtomicU32 = AtomicU32::new(0);
/// Acknowledged writes checked, by step kind.
static ACKNOWLEDGED: Mutex<BTreeMap<String, u32>> = Mutex::new(BTreeMap::new());

/// Runs `steps` on a copy of the base store until the power goes at event `at`; checks what
/// survived. Returns whether the cut fell inside the workload.
fn case(base: &Base, steps: &[Step], at: u64, how: Cut) -> bool {
    let disk = Disk::with(base.image.clone());
    let store = Store::open_with_backend(disk.clone(), StoreOptions::default()).unwrap();
    let mut last = digest(&store);
    let mut acknowledged = Vec::new();
    let (work, arbiters) = actix_rt::System::new().block_on(async {
        let (writers, arbiters) = start(&store);
        disk.arm(at, how);
        let mut work = Workload {
            base,
            writers,
            store: store.clone(),
            prints: Vec::new(),
            quotes: Vec::new(),
            invoices: Vec::new(),
        };
        for step in steps {
            let answer = work.run(step).await;
            if disk.0.lock().unwrap().survivors.is_some() {
                break;
            }
            match answer {
                Ok(true) => {
                    last = digest(&store);
                    acknowledged.push(step);
                }
                Ok(false) => {}
                Err(e) => {
                    assert_eq!(
                        digest(&store),
                        last,
                        "{step:?} was refused ({e:?}) but wrote"
                    );
                }
            }
        }
        (work, arbiters)
    });
    stop(arbiters);
    drop((work, store));
    let Some(survivors) = disk.survivors() else {
        return false;
    };
    let in_flight = reopen(survivors.after_kill, "after a kill");
    let found = reopen(survivors.after_cut, "after the cut");
    assert!(
        found == last || found == in_flight,
        "after {} acknowledged writes the store holds neither the last one's contents nor the write in flight's",
        acknowledged.len()
    );
    CUTS.fetch_add(1, Ordering::Relaxed);
    let mut kinds = ACKNOWLEDGED.lock().unwrap();
    for step in acknowledged {
        let kind = format!("{step:?}");
        let kind = kind.split('(').next().unwrap_or_default();
        *kinds.entry(kind.to_string()).or_default() += 1;
    }
    true
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1400)
}

#[test]
fn every_acknowledged_write_survives_a_power_cut_and_nothing_is_half_there() {
    let base = base();
    let started = std::time::Instant::now();
    let config = ProptestConfig {
        cases: cases(),
        max_shrink_iters: 100,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let strategy = (prop::collection::vec(step(), 16..48), 1u64..160, cut());
    proptest::test_runner::TestRunner::new(config)
        .run(&strategy, |(steps, at, how)| {
            case(&base, &steps, at, how);
            Ok(())
        })
        .unwrap();
    let cuts = CUTS.load(Ordering::Relaxed);
    let kinds = ACKNOWLEDGED.lock().unwrap();
    eprintln!(
        "power cuts: {cuts} inside the workload, {} acknowledged writes checked ({kinds:?}), {:.1} s",
        kinds.values().sum::<u32>(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        cuts >= cases() * 5 / 7,
        "only {cuts} of {} cases cut inside the workload",
        cases()
    );
}
