//! A model-based test of prints, outcomes and the ledger (issue 14): random sequences of drafts,
//! status moves, outcomes, corrections and their replays, copies, archiving of prints and
//! spools, movements and spool management on and off, run against the real writer actors over a
//! temporary store, and checked after every step against a small reference model:
//! - every answer is the one the model predicts, refusals by their spec name;
//! - the ledger balances (each spool's remaining grams is the sum of its movements), and the
//!   model's remaining grams per spool are the store's; a resin's bottle (millilitres) and a
//!   consumable's pack (pieces) are in the same ledger, each movement sent in one of the three
//!   units and taken only in its spool's (whole for pieces);
//! - the stock of a filament is the sum of its active spools;
//! - no operation key is booked twice;
//! - a print's frozen cost snapshot never changes after it left DRAFT;
//! - a replay answers the first call's body;
//! - a print's consumable lines (pieces: one on its part beside the filament, one of the
//!   whole print per piece) draw from their pack as the filament from its spool: a draft needs
//!   the pack, outcomes and corrections book their whole pieces and their differences.
//!
//! `PROPTEST_CASES` sets the number of sequences (default 64 of 1 to 39 steps, about 1,300 steps).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/setup.rs"]
mod support_setup;
use actors::Error;
use actors::inventory::commands::CreateRecord;
use actors::inventory::materials::{MaterialInput, Materials};
use actors::ledger;
use actors::prints::outcome::{CorrectionInput, OutcomeInput};

use actors::prints::{
    ArchivePrint, CopyKind, CopyPrint, CorrectOutcome, CreateDraft, MaterialLine, PrintIndex,
    PrintInput, PrintMaterialInput, RecordOutcome, SetStatus,
};
use actors::runtime::writer::Writers;
use actors::setup::{FeaturesInput, RunSetup, UpdateFeatures};
use actors::stock::{ArchiveSpool, BookMovement};
use actors::values::{Grams, Seconds};
use proptest::prelude::*;
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use storage::records;
use storage::records::{Costing, OutcomeStatus, Print, PrintStatus, Spool};
use storage::records::{MaterialKind, MovementKind, StockUnit};
use storage::{Id, Store, StoreOptions, repo};
use support_setup::demo_setup;

/// One step of a sequence. Indices pick among the prints and spools known so far (modulo).
#[derive(Debug, Clone)]
enum Step {
    Draft,
    Move(usize, PrintStatus),
    Outcome(usize, u8),
    Correct(usize, u8, bool),
    ReplayCorrection,
    Copy(usize),
    ArchivePrint(usize, bool),
    /// Spool, tenths of its unit, reuse an operation key, book a positive quantity as a
    /// CORRECTION, the unit it is sent in (an index of [`UNITS`]).
    Movement(usize, i32, bool, bool, usize),
    ArchiveSpool(usize, bool),
    SpoolManagement(bool),
}

fn step() -> impl Strategy<Value = Step> {
    let status = prop_oneof![
        Just(PrintStatus::Draft),
        Just(PrintStatus::Printing),
        Just(PrintStatus::Shipped),
        Just(PrintStatus::Done),
    ];
    prop_oneof![
        3 => Just(Step::Draft),
        4 => (any::<usize>(), status).prop_map(|(p, s)| Step::Move(p, s)),
        3 => (any::<usize>(), 1u8..60).prop_map(|(p, g)| Step::Outcome(p, g)),
        2 => (any::<usize>(), 1u8..60, any::<bool>()).prop_map(|(p, g, c)| Step::Correct(p, g, c)),
        1 => Just(Step::ReplayCorrection),
        2 => any::<usize>().prop_map(Step::Copy),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(p, a)| Step::ArchivePrint(p, a)),
        3 => (any::<usize>(), -400i32..400, any::<bool>(), any::<bool>(), 0..UNITS.len())
            .prop_map(|(s, g, r, c, u)| Step::Movement(s, g, r, c, u)),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(s, a)| Step::ArchiveSpool(s, a)),
        1 => any::<bool>().prop_map(Step::SpoolManagement),
    ]
}

/// What the model knows of a print.
#[derive(Debug, Clone)]
struct ModelPrint {
    id: Id,
    status: PrintStatus,
    archived: bool,
    /// Current outcome revision (0: none).
    revision: u32,
    /// The snapshot frozen when it left DRAFT.
    frozen: Option<Costing>,
    /// The print as the store answered it last (usages, for outcomes).
    last: Print,
}

/// The units a movement may be sent in.
const UNITS: [StockUnit; 3] = [StockUnit::Gram, StockUnit::Millilitre, StockUnit::Piece];

/// What the model knows of a spool (a bottle, a pack).
#[derive(Debug, Clone)]
struct ModelSpool {
    id: Id,
    filament_id: Id,
    archived: bool,
    remaining: Decimal,
    /// Its material's unit.
    unit: StockUnit,
}

struct World {
    store: Store,
    writers: Writers,
    template: PrintInput,
    /// The consumable counted in pieces the template's part uses beside its filament.
    consumable: Id,
    spools_on: bool,
    prints: Vec<ModelPrint>,
    spools: Vec<ModelSpool>,
    /// Movement keys booked, and the movement each booked.
    keys: HashMap<Id, Id>,
    /// The last correction sent and its answer, for a replay.
    last_correction: Option<(Id, CorrectionInput, Print)>,
}

fn spools_of(store: &Store) -> Vec<Spool> {
    repo::all(&store.begin_read().unwrap()).unwrap()
}

/// Name of an error as the spec names it (its code), for messages.
fn code(result: &Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Ok(_) => "OK".into(),
        Err(Error::Validation(_)) => "VALIDATION_FAILED".into(),
        Err(e) => format!("{e:?}"),
    }
}

impl World {
    async fn new(dir: &std::path::Path) -> World {
        let store = Store::open(&dir.join("model.redb"), StoreOptions::default()).unwrap();
        let index = Arc::new(PrintIndex::load(&store, jiff::tz::TimeZone::UTC).unwrap());
        let (writers, _arbiters) = Writers::start(&store, &index);
        let setup = RunSetup {
            setup: demo_setup("Model"),
            session_hash: [1; 32],
            session_ttl_seconds: 60,
        };
        writers.send(setup).await.unwrap();
        let demo: Vec<Print> = repo::all(&store.begin_read().unwrap()).unwrap();
        // A one-part, one-filament template, so that a draft's spool is the filament's only one.
        let source = demo
            .iter()
            .find(|p| p.parts.len() == 1 && p.parts[0].usages.len() == 1)
            .expect("a one-filament demo print");
        let read = store.begin_read().unwrap();
        let mut template = PrintInput::from_print(&read, source, None, false).unwrap();
        drop(read);
        template.name = "Model job".parse().unwrap();
        template.customer_id = None;
        template.parts[0].filaments[0].spool_id = None;
        // A resin in millilitres and a consumable in pieces, each with its opening stock.
        let maker = demo[0].parts[0].printer_id;
        let printer: records::Printer = repo::get(&store.begin_read().unwrap(), maker)
            .unwrap()
            .unwrap();
        for (kind, unit) in [
            (MaterialKind::Resin, None),
            (MaterialKind::Consumable, Some(StockUnit::Piece)),
        ] {
            let input = MaterialInput {
                kind,
                unit,
                manufacturer_id: printer.manufacturer_id,
                material: "Model material".parse().unwrap(),
                color_name: Some("Grey".parse().unwrap()),
                color_hex: Some("#808080".parse().unwrap()),
                purchase_price: "30".parse().unwrap(),
                net_quantity: "50".parse().unwrap(),
                minimum_stock: None,
                density_grams_per_millilitre: None,
                note: None,
                opening_spool: true,
            };
            writers
                .send(CreateRecord::<Materials> { input })
                .await
                .unwrap();
        }
        let units: HashMap<Id, StockUnit> =
            repo::all::<records::Filament>(&store.begin_read().unwrap())
                .unwrap()
                .into_iter()
                .map(|f| (f.id, f.unit))
                .collect();
        let consumable = *units
            .iter()
            .find(|(_, unit)| **unit == StockUnit::Piece)
            .unwrap()
            .0;
        template.parts[0].materials = vec![MaterialLine {
            material_id: consumable,
            quantity: "2".parse().unwrap(),
            spool_id: None,
        }];
        template.materials = vec![PrintMaterialInput {
            material_id: consumable,
            amount: "1".parse().unwrap(),
            per: records::Per::Piece,
            spool_id: None,
        }];
        let spools = spools_of(&store)
            .into_iter()
            .map(|s| ModelSpool {
                id: s.id,
                filament_id: s.filament_id,
                archived: s.archived,
                remaining: s.remaining_grams,
                unit: units[&s.filament_id],
            })
            .collect();
        World {
            store,
            writers,
            template,
            consumable,
            spools_on: true,
            prints: Vec::new(),
            spools,
            keys: HashMap::new(),
            last_correction: None,
        }
    }

    fn filament(&self) -> Id {
        self.template.parts[0].filaments[0].filament_id
    }

    fn active_spools(&self, filament: Id) -> Vec<&ModelSpool> {
        self.spools
            .iter()
            .filter(|s| s.filament_id == filament && !s.archived)
            .collect()
    }

    fn spool_mut(&mut self, id: Id) -> &mut ModelSpool {
        self.spools.iter_mut().find(|s| s.id == id).unwrap()
    }

    /// Books the model side of a stored print write.
    fn remember(&mut self, at: Option<usize>, print: &Print) {
        let frozen = (print.status != PrintStatus::Draft).then(|| print.costing.clone());
        let model = ModelPrint {
            id: print.id,
            status: print.status,
            archived: print.archived,
            revision: print
                .outcome
                .as_ref()
                .and_then(|o| o.current())
                .map_or(0, |r| r.revision),
            frozen: at.and_then(|i| self.prints[i].frozen.clone()).or(frozen),
            last: print.clone(),
        };
        match at {
            Some(i) => self.prints[i] = model,
            None => self.prints.push(model),
        }
    }

    /// An outcome of `grams` of filament, `grams % 4` pieces of the part's consumable and
    /// `grams % 3` of the print's own.
    fn outcome_of(print: &Print, grams: u8) -> OutcomeInput {
        OutcomeInput {
            status: OutcomeStatus::Success,
            duration_seconds: Some(
                Seconds::try_from(
                    print.parts[0]
                        .hotends
                        .iter()
                        .map(|h| u64::from(h.duration_seconds))
                        .sum::<u64>(),
                )
                .unwrap(),
            ),
            filaments: vec![(
                print.parts[0].usages[0].id,
                grams.to_string().parse().unwrap(),
            )],
            materials: vec![
                (print.parts[0].usages[1].id, Self::pieces(grams)),
                (print.materials[0].usage.id, Self::own(grams)),
            ],
            note: None,
            failure_reason: None,
            parts: None,
            electricity: Vec::new(),
            work_minutes: Vec::new(),
        }
    }

    /// The pieces of the consumable an outcome of `grams` gives.
    fn pieces(grams: u8) -> Grams {
        (grams % 4).to_string().parse().unwrap()
    }

    /// The pieces of the print's own consumable an outcome of `grams` gives.
    fn own(grams: u8) -> Grams {
        (grams % 3).to_string().parse().unwrap()
    }

    /// What an outcome revision books on the spools of the usages (`[filament grams, pieces,
    /// the print's own pieces]`, from the revision before to this one): `to - from` consumed of
    /// each. A usage drafted with a spool books on it even while spool management is off: the
    /// material was used.
    fn consume(&mut self, print: &Print, from: [Decimal; 3], to: [Decimal; 3]) {
        for (k, usage) in print.usages().enumerate() {
            if let Some(spool) = usage.spool_id {
                let spool = self.spool_mut(spool);
                spool.remaining -= to[k] - from[k];
            }
        }
    }

    /// The quantities of an outcome of `grams`: the filament's and the consumables'.
    fn quantities(grams: u8) -> [Decimal; 3] {
        [
            Decimal::from(grams),
            *Self::pieces(grams).get(),
            *Self::own(grams).get(),
        ]
    }

    async fn run(&mut self, step: &Step) {
        let pick = |n: usize, len: usize| (len > 0).then(|| n % len);
        match *step {
            Step::Draft => {
                let active = self.active_spools(self.filament()).len();
                let packs = self.active_spools(self.consumable).len();
                let got = self
                    .writers
                    .send(CreateDraft {
                        input: self.template.clone(),
                        source: None,
                    })
                    .await;
                let expected_ok = !self.spools_on || (active == 1 && packs == 1);
                assert_eq!(
                    got.is_ok(),
                    expected_ok,
                    "draft: {} with {active} active spools and {packs} packs",
                    code(&got)
                );
                match got {
                    Ok(print) => self.remember(None, &print),
                    Err(e) => assert!(matches!(e, Error::Validation(_)), "{e:?}"),
                }
            }
            Step::Move(p, status) => {
                let Some(i) = pick(p, self.prints.len()) else {
                    return;
                };
                let model = self.prints[i].clone();
                let got = self
                    .writers
                    .send(SetStatus {
                        id: model.id,
                        status,
                        maintenance_override: None,
                    })
                    .await;
                let expected = if model.status == status {
                    "OK"
                } else if status == PrintStatus::Draft {
                    "Immutable"
                } else if model.revision > 0 {
                    "InvalidState"
                } else {
                    "OK or VALIDATION_FAILED"
                };
                let found = code(&got);
                assert!(
                    expected.split(" or ").any(|e| e == found),
                    "move {:?} → {status:?}: expected {expected}, got {found}",
                    model.status
                );
                if let Ok(print) = got {
                    self.remember(Some(i), &print);
                }
            }
            Step::Outcome(p, grams) => {
                let Some(i) = pick(p, self.prints.len()) else {
                    return;
                };
                let model = self.prints[i].clone();
                let input = Self::outcome_of(&model.last, grams);
                let got = self
                    .writers
                    .send(RecordOutcome {
                        id: model.id,
                        input,
                    })
                    .await;
                let open = model.status == PrintStatus::Done && !model.archived;
                let found = code(&got);
                if model.revision > 0 {
                    // A replay of the first outcome or a conflict; the model sends new grams
                    // mostly, so both are possible.
                    assert!(
                        ["OK", "OutcomeConflict", "InvalidState"].contains(&found.as_str()),
                        "{found}"
                    );
                } else {
                    assert_eq!(
                        found,
                        if open { "OK" } else { "InvalidState" },
                        "outcome on {:?} archived={}",
                        model.status,
                        model.archived
                    );
                    if let Ok(print) = got {
                        self.consume(&model.last, [Decimal::ZERO; 3], Self::quantities(grams));
                        self.remember(Some(i), &print);
                    }
                }
            }
            Step::Correct(p, grams, current) => {
                let Some(i) = pick(p, self.prints.len()) else {
                    return;
                };
                let model = self.prints[i].clone();
                let input = CorrectionInput {
                    outcome: Self::outcome_of(&model.last, grams),
                    correction_note: "Weighed".into(),
                    expected_revision: if current {
                        model.revision
                    } else {
                        model.revision + 7
                    },
                    operation_key: Id::new(),
                };
                let got = self
                    .writers
                    .send(CorrectOutcome {
                        id: model.id,
                        input: input.clone(),
                    })
                    .await;
                let open = model.status == PrintStatus::Done && !model.archived;
                let expected = match (open, model.revision, current) {
                    (false, _, _) | (true, 0, _) => "InvalidState",
                    (true, _, false) => "StaleRevision",
                    (true, _, true) => "OK",
                };
                assert_eq!(
                    code(&got),
                    expected,
                    "correction of {:?} rev {} archived={}",
                    model.status,
                    model.revision,
                    model.archived
                );
                if let Ok(print) = got {
                    let revision = model.last.outcome.as_ref().and_then(|o| o.current());
                    let before = model.last.usages().map(|u| {
                        revision
                            .and_then(|r| r.grams.iter().find(|g| g.usage_id == u.id))
                            .map(|g| g.grams)
                            .unwrap()
                    });
                    let before: Vec<Decimal> = before.collect();
                    let before = [before[0], before[1], before[2]];
                    self.consume(&model.last, before, Self::quantities(grams));
                    self.last_correction = Some((model.id, input, print.clone()));
                    self.remember(Some(i), &print);
                }
            }
            Step::ReplayCorrection => {
                let Some((id, input, first)) = self.last_correction.clone() else {
                    return;
                };
                let got = self.writers.send(CorrectOutcome { id, input }).await;
                assert_eq!(got.unwrap(), first, "a replay answers the first body");
            }
            Step::Copy(p) => {
                let Some(i) = pick(p, self.prints.len()) else {
                    return;
                };
                let id = self.prints[i].id;
                let got = self
                    .writers
                    .send(CopyPrint {
                        id,
                        kind: CopyKind::Duplicate,
                    })
                    .await;
                let copy = got.expect("a copy never fails for its spools");
                assert_eq!(copy.status, PrintStatus::Draft);
                if self.spools_on {
                    let active = self.active_spools(self.filament());
                    let spool = copy.parts[0].usages[0].spool_id;
                    match active.iter().map(|s| s.remaining).max() {
                        None => assert_eq!(spool, None),
                        Some(most) => {
                            let source = self.prints[i].last.parts[0].usages[0].spool_id;
                            let kept = source.filter(|s| active.iter().any(|a| a.id == *s));
                            let chosen = active.iter().find(|s| Some(s.id) == spool).unwrap();
                            assert!(
                                kept == spool || (kept.is_none() && chosen.remaining == most),
                                "copy spool"
                            );
                        }
                    }
                }
                self.remember(None, &copy);
            }
            Step::ArchivePrint(p, archived) => {
                let Some(i) = pick(p, self.prints.len()) else {
                    return;
                };
                let id = self.prints[i].id;
                let print = self
                    .writers
                    .send(ArchivePrint { id, archived })
                    .await
                    .unwrap();
                self.remember(Some(i), &print);
            }
            Step::Movement(s, grams, reuse, correction, unit) => {
                let Some(i) = pick(s, self.spools.len()) else {
                    return;
                };
                let spool = self.spools[i].clone();
                let unit = UNITS[unit];
                let grams = Decimal::new(i64::from(grams), 1);
                let key = match (reuse, self.keys.keys().next()) {
                    (true, Some(key)) => *key,
                    _ => Id::new(),
                };
                let kind = if grams > Decimal::ZERO && !correction {
                    MovementKind::Receipt
                } else {
                    MovementKind::Correction
                };
                let command = BookMovement {
                    spool_id: spool.id,
                    kind,
                    grams: grams.to_string().parse().unwrap(),
                    unit,
                    note: None,
                    operation_key: Some(key),
                };
                let got = self.writers.send(command).await;
                let found = code(&got);
                if !self.spools_on {
                    assert_eq!(found, "SpoolManagementDisabled");
                } else if unit != spool.unit
                    || (unit == StockUnit::Piece && !grams.fract().is_zero())
                {
                    // Another unit than its material's, or a part of a piece: refused before
                    // its key is looked at.
                    assert_eq!(found, "VALIDATION_FAILED");
                } else if let Some(first) = self.keys.get(&key) {
                    // A reused key: the first movement again (same content) or a refusal.
                    match got {
                        Ok(m) => assert_eq!(m.id, *first),
                        Err(e) => assert!(matches!(e, Error::OperationKeyReused), "{e:?}"),
                    }
                } else if grams.is_zero()
                    || (grams < Decimal::ZERO && spool.remaining + grams < Decimal::ZERO)
                {
                    assert_eq!(found, "VALIDATION_FAILED");
                } else {
                    let movement = got.unwrap();
                    self.keys.insert(key, movement.id);
                    self.spool_mut(spool.id).remaining += grams;
                }
            }
            Step::ArchiveSpool(s, archived) => {
                let Some(i) = pick(s, self.spools.len()) else {
                    return;
                };
                let id = self.spools[i].id;
                let got = self.writers.send(ArchiveSpool { id, archived }).await;
                match self.spools_on {
                    false => assert_eq!(code(&got), "SpoolManagementDisabled"),
                    true => {
                        got.unwrap();
                        self.spools[i].archived = archived;
                    }
                }
            }
            Step::SpoolManagement(on) => {
                let features = FeaturesInput {
                    print_series_enabled: None,
                    spool_management_enabled: Some(on),
                };
                self.writers.send(UpdateFeatures(features)).await.unwrap();
                if on && !self.spools_on {
                    // Switching on opens a spool for each filament without an active one.
                    let known: HashSet<Id> = self.spools.iter().map(|s| s.id).collect();
                    for spool in spools_of(&self.store)
                        .into_iter()
                        .filter(|s| !known.contains(&s.id))
                    {
                        assert!(
                            !self
                                .spools
                                .iter()
                                .any(|m| m.filament_id == spool.filament_id && !m.archived),
                            "a spool was opened for a filament that had an active one"
                        );
                        let unit = self
                            .spools
                            .iter()
                            .find(|m| m.filament_id == spool.filament_id)
                            .map_or(StockUnit::Gram, |m| m.unit);
                        self.spools.push(ModelSpool {
                            id: spool.id,
                            filament_id: spool.filament_id,
                            archived: false,
                            remaining: spool.remaining_grams,
                            unit,
                        });
                    }
                }
                self.spools_on = on;
            }
        }
    }

    /// The invariants, read from the store.
    fn check(&self) {
        let txn = self.store.begin_read().unwrap();
        let sums: HashMap<Id, Decimal> = ledger::balances(&txn)
            .unwrap()
            .into_iter()
            .map(|(id, sum, _)| (id, sum))
            .collect();
        let stored: Vec<Spool> = repo::all(&txn).unwrap();
        assert_eq!(stored.len(), self.spools.len(), "spools");
        for spool in &stored {
            let sum = sums.get(&spool.id).copied().unwrap_or_default();
            assert_eq!(
                spool.remaining_grams, sum,
                "ledger of {} balances",
                spool.code
            );
            let model = self.spools.iter().find(|m| m.id == spool.id).unwrap();
            assert_eq!(
                spool.remaining_grams,
                model.remaining.normalize(),
                "model remaining of {}",
                spool.code
            );
            assert_eq!(spool.archived, model.archived);
        }
        let mut stock: HashMap<Id, Decimal> = HashMap::new();
        for spool in stored.iter().filter(|s| !s.archived) {
            *stock.entry(spool.filament_id).or_default() += spool.remaining_grams;
        }
        let totals = ledger::active_totals(&txn).unwrap();
        for (filament, grams) in &stock {
            assert_eq!(
                totals.get(filament).copied().unwrap_or_default(),
                grams.normalize(),
                "stock"
            );
        }
        let movements: Vec<records::Movement> = repo::all(&txn).unwrap();
        let mut seen = HashSet::new();
        for m in movements.iter().filter_map(|m| m.operation_key) {
            assert!(seen.insert(m), "operation key {m} booked twice");
        }
        for model in &self.prints {
            let print: Print = repo::get(&txn, model.id).unwrap().unwrap();
            if let Some(frozen) = &model.frozen {
                assert_eq!(&print.costing, frozen, "frozen snapshot of {}", print.name);
            }
            assert_eq!(print.status, model.status);
            if print.outcome.is_some() {
                assert_eq!(
                    print.status,
                    PrintStatus::Done,
                    "a print with an outcome stays DONE"
                );
            }
        }
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn prints_outcomes_and_the_ledger_follow_the_model(steps in prop::collection::vec(step(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        actix_rt::System::new().block_on(async {
            let mut world = World::new(dir.path()).await;
            world.check();
            for step in &steps {
                world.run(step).await;
                world.check();
            }
        });
    }
}
