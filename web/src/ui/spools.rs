//! Filament stock and spools (spool management): stock per filament with low-stock warnings,
//! the spools, a spool's ledger with movement booking, and its printable QR label.
//!
//! Forms send the API's ledger commands; with spool management off every page
//! shows the API's `SPOOL_MANAGEMENT_DISABLED` message.

use super::Chrome;
use super::changes::{self, ChangeRow};
use super::choices;
use super::format;
use super::forms::{Faults, Submitted};
use super::i18n;
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use crate::api::spools::{MovementDto, MovementInputDto, SpoolDto, SpoolInputDto, SpoolPatch};
use crate::api::{ListResponse, filaments};
use crate::error;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::inventory::commands::GetRecord;
use actors::inventory::materials::Materials;
use actors::ledger;
use actors::stock::StockOverview;
use actors::stock::{ArchiveSpool, GetSpool, SpoolLedger};
use actors::words::unit_key;
use askama::Template;
use rust_decimal::Decimal;
use std::collections::HashMap;
use storage::Id;
use storage::records::{MaterialKind, StockUnit};

/// A filament's stock line.
struct StockRow {
    id: String,
    name: String,
    color: String,
    total: String,
    minimum: String,
    low: bool,
    /// A filament (its page is the filaments'); a resin's and a consumable's are the
    /// materials'.
    filament: bool,
}

/// A spool line.
struct SpoolRow {
    id: String,
    code: String,
    filament: String,
    remaining: String,
    location: String,
    archived: bool,
}

#[derive(Template)]
#[template(path = "stock.html")]
struct StockPage {
    chrome: Chrome,
    stock: Vec<StockRow>,
    spools: Vec<SpoolRow>,
    low: usize,
}

/// `value` in `unit` as lists show it: rounded to whole units, with the unit's sign.
fn quantity(t: &i18n::Tr, value: &str, unit: StockUnit) -> String {
    format!("{} {}", t.number_str(value, 0), t.t(unit_key(unit)))
}

/// `value` in `unit` exactly, with the unit's sign.
fn exact(t: &i18n::Tr, value: &str, unit: StockUnit) -> String {
    format!("{} {}", t.exact_str(value), t.t(unit_key(unit)))
}

fn spool_row(t: &i18n::Tr, s: &SpoolDto) -> SpoolRow {
    SpoolRow {
        id: s.id.clone(),
        code: s.code.clone(),
        filament: s.filament.clone(),
        remaining: quantity(t, &s.remaining_quantity, s.unit.into()),
        location: s.location.clone().unwrap_or_default(),
        archived: s.archived,
    }
}

/// `GET /stock`: every active material's stock in its unit (low ones first) and every spool.
pub async fn stock(ctx: Ctx) -> Page {
    let overview = ctx.query(StockOverview).await?;
    let t = &ctx.chrome.t;
    let mut stock: Vec<StockRow> = overview
        .filaments
        .into_iter()
        .map(|(view, stock)| {
            let s = filaments::Stock::from(stock);
            let unit = view.filament.unit;
            StockRow {
                id: s.filament_id.clone(),
                name: view.name,
                filament: view.filament.kind == MaterialKind::Filament,
                color: view.filament.color_hex,
                total: quantity(t, &s.active_total_grams, unit),
                minimum: s
                    .minimum_stock_grams
                    .as_deref()
                    .map(|m| quantity(t, m, unit))
                    .unwrap_or_default(),
                low: s.below_minimum,
            }
        })
        .collect();
    stock.sort_by_key(|row| !row.low);
    let spools = overview
        .spools
        .items
        .into_iter()
        .map(|v| spool_row(t, &SpoolDto::from(v)))
        .collect();
    let page = StockPage {
        low: stock.iter().filter(|s| s.low).count(),
        stock,
        spools,
        chrome: ctx.chrome,
    };
    Ok(html(StatusCode::OK, page.render()))
}

#[derive(Template)]
#[template(path = "spool_form.html")]
struct SpoolForm {
    chrome: Chrome,
    /// Every active material: a filament's spool, a resin's bottle, a consumable's pack.
    filaments: Vec<choices::Choice>,
    form: Submitted,
    faults: Faults,
    /// The opening quantity's field: the chosen material's unit's
    /// (`initialNetWeightGrams`, `initialMillilitres`, `initialPieces`).
    quantity_field: &'static str,
    /// Its label's message key.
    quantity_key: &'static str,
}

/// The unit of the material `form` names (`filamentId`); grams when it names none.
async fn unit_chosen(ctx: &Ctx, form: &Submitted) -> StockUnit {
    match form.get("filamentId").parse::<Id>() {
        Ok(id) => ctx
            .state
            .query(GetRecord::<Materials>::new(id))
            .await
            .map_or(StockUnit::Gram, |view| view.filament.unit),
        Err(_) => StockUnit::Gram,
    }
}

/// `form` with its opening quantity under the field of `unit`: the form names the field by
/// the material chosen when it was drawn, and another may have been chosen since.
fn in_unit(mut form: Submitted, unit: StockUnit) -> Submitted {
    let field = ledger::initial_field(unit);
    for (name, _) in form.0.iter_mut() {
        if name != field
            && [StockUnit::Gram, StockUnit::Millilitre, StockUnit::Piece]
                .iter()
                .any(|u| ledger::initial_field(*u) == name)
        {
            *name = field.to_string();
        }
    }
    form
}

async fn render_form(ctx: Ctx, form: Submitted, faults: Faults, status: StatusCode) -> Page {
    let filaments = choices::of::<Materials>(&ctx).await?;
    let unit = unit_chosen(&ctx, &form).await;
    let page = SpoolForm {
        filaments,
        form,
        faults,
        quantity_field: ledger::initial_field(unit),
        quantity_key: match unit {
            StockUnit::Gram => "field.netWeightGrams",
            StockUnit::Millilitre => "field.netMillilitres",
            StockUnit::Piece => "field.netPieces",
        },
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

/// `GET /spools/new` (`?filamentId=` preselects the filament).
///
/// With `?filamentId=`, the form is prefilled from that filament's catalog: its purchase price
/// and net weight (a roll as bought; the owner changes what differs).
pub async fn new_form(ctx: Ctx) -> Page {
    let mut form = Submitted::default();
    let chosen = ctx.param("filamentId");
    if let Ok(id) = chosen.parse::<Id>()
        && let Ok(view) = ctx.state.query(GetRecord::<Materials>::new(id)).await
    {
        let material = view.filament;
        form.set(
            "purchasePrice",
            material.purchase_price.normalize().to_string(),
        );
        let quantity = material.net_weight_grams.normalize().to_string();
        form.set(ledger::initial_field(material.unit), quantity);
    }
    form.set("filamentId", chosen);
    render_form(ctx, form, Faults::default(), StatusCode::OK).await
}

/// `POST /spools`: opens the spool with its receipt.
pub async fn create(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let unit = unit_chosen(&ctx, &form).await;
    let form = in_unit(form, unit);
    let result = match ctx.typed(|| form.document::<SpoolInputDto>(&[])) {
        Ok(input) => match input.command() {
            Ok(command) => ctx.state.send(command).await,
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    match result {
        Ok(view) => Ok(see_other(&format!(
            "{}?received",
            paths::spool(view.spool.id)
        ))),
        Err(e) => {
            let status = e.code.status();
            render_form(ctx, form, Faults::of(&e), status).await
        }
    }
}

/// A ledger line.
struct MovementRow {
    /// Who booked it (empty: booked before the journal began).
    by: String,
    kind: String,
    /// Its quantity, exact, with its unit.
    grams: String,
    note: String,
    print_id: String,
    date: String,
}

#[derive(Template)]
#[template(path = "spool.html")]
struct SpoolPage {
    chrome: Chrome,
    spool: SpoolDto,
    remaining: String,
    initial: String,
    price: String,
    movements: Vec<MovementRow>,
    /// The movement form's quantity field: `grams`, `millilitres` or `pieces`.
    quantity_field: &'static str,
    /// Its label's message key: `spool.grams`, `spool.millilitres`, `spool.pieces`.
    quantity_key: &'static str,
    /// Who changed what of the spool.
    changes: Vec<ChangeRow>,
    total: u64,
    form: Submitted,
    /// The details form's values: the spool's, or those a refused change sent.
    details: Submitted,
    /// Whether the details form is open (a refused change).
    editing: bool,
    faults: Faults,
    operation_key: String,
    /// The message key of what the last form did (`?booked`, `?synced`, `?unlinked`,
    /// `?saved`), shown after the spool's code.
    did: Option<&'static str>,
    /// Our ledger owns its stock: movements are booked here.
    native: bool,
    /// The spool manager's side, for a linked spool.
    link: Option<LinkRow>,
}

/// A linked spool's spool-manager side, as its page shows it.
struct LinkRow {
    authority: String,
    remote_id: u64,
    remote_state: String,
    synced_at: String,
    stale: bool,
    error: String,
    /// The spool manager owns its stock: no native booking here.
    external: bool,
}

impl SpoolPage {
    /// Whether the spool holds more than its net weight when bought: a receipt worth a second
    /// look (a roll weighed with its reel, a digit too many), said beside the figures.
    fn over_net_weight(&self) -> bool {
        let grams = |text: &str| text.parse::<Decimal>().ok();
        match (
            grams(&self.spool.remaining_quantity),
            grams(&self.spool.initial_quantity),
        ) {
            (Some(remaining), Some(initial)) => remaining > initial,
            _ => false,
        }
    }
}

fn link_row(t: &i18n::Tr, spool: &SpoolDto) -> Option<LinkRow> {
    let remote_id = spool.remote_id?;
    use super::format::wire;
    let authority = wire(&spool.authority);
    Some(LinkRow {
        external: authority != "NATIVE",
        authority: t.t(&format!("spoolmgr.authority.{authority}")).to_string(),
        remote_id,
        remote_state: spool
            .remote_state
            .map(|s| {
                t.t(&format!("spoolmgr.remoteState.{}", wire(&s)))
                    .to_string()
            })
            .unwrap_or_default(),
        synced_at: spool
            .synced_at
            .as_deref()
            .map_or_else(|| "–".into(), |at| t.datetime(at)),
        stale: spool.stale.unwrap_or(false),
        error: spool.sync_error.clone().unwrap_or_default(),
    })
}

fn movement_row(t: &i18n::Tr, m: &MovementDto, by: &HashMap<String, String>) -> MovementRow {
    MovementRow {
        by: by.get(&m.id).cloned().unwrap_or_default(),
        kind: t
            .t(&format!("movement.{}", format::wire(&m.kind)))
            .to_string(),
        grams: exact(t, &m.quantity, m.unit.into()),
        note: m.note.clone().unwrap_or_default(),
        print_id: m.print_id.clone().unwrap_or_default(),
        date: t.date(&m.created_at),
    }
}

/// The spool's page again with `error` (a refused sync or unlink).
pub(super) async fn show_refused(ctx: Ctx, id: Id, error: &error::ApiError) -> Page {
    let forms = Forms {
        movement: new_movement(),
        details: None,
    };
    render_spool(ctx, id, forms, Faults::of(error), error.code.status()).await
}

/// The movement form as it first shows: a correction.
fn new_movement() -> Submitted {
    let mut form = Submitted::default();
    form.set("kind", "CORRECTION");
    form
}

/// The spool page's two forms: a movement's, and the details' when a change was refused.
struct Forms {
    movement: Submitted,
    details: Option<Submitted>,
}

/// The details form prefilled with `spool`'s price (as typed: canonical), location, lot and
/// purchase date.
fn details_of(spool: &SpoolDto) -> Submitted {
    let mut details = Submitted::default();
    details.set("purchasePrice", &spool.purchase_price);
    let optional = [
        ("location", &spool.location),
        ("purchaseLot", &spool.purchase_lot),
        ("acquiredAt", &spool.acquired_at),
    ];
    for (name, value) in optional {
        details.set(name, value.as_deref().unwrap_or_default());
    }
    details
}

async fn render_spool(ctx: Ctx, id: Id, forms: Forms, faults: Faults, status: StatusCode) -> Page {
    let ledger = SpoolLedger {
        id,
        page: 1,
        page_size: 100,
    };
    let (view, movements) = ctx.query(ledger).await?;
    let t = &ctx.chrome.t;
    let unit = view.unit;
    let spool = SpoolDto::from(view);
    let movements = ListResponse::of(movements, |m| MovementDto::of(m, unit));
    let ids = movements.items.iter().map(|m| m.id.clone()).collect();
    let by = changes::creators(&ctx, ids).await?;
    let rows = movements
        .items
        .iter()
        .map(|m| movement_row(t, m, &by))
        .collect();
    let changes = changes::of(&ctx, id).await?;
    let link = link_row(t, &spool);
    let page = SpoolPage {
        remaining: exact(t, &spool.remaining_quantity, unit),
        initial: exact(t, &spool.initial_quantity, unit),
        quantity_field: ledger::quantity_field(unit),
        quantity_key: match unit {
            StockUnit::Gram => "spool.grams",
            StockUnit::Millilitre => "spool.millilitres",
            StockUnit::Piece => "spool.pieces",
        },
        price: t.money_str(&spool.purchase_price),
        movements: rows,
        changes,
        total: movements.total,
        did: ctx.notice(&DONE),
        editing: forms.details.is_some(),
        details: forms.details.unwrap_or_else(|| details_of(&spool)),
        native: link.as_ref().is_none_or(|l| !l.external),
        link,
        operation_key: Id::new().to_string(),
        spool,
        form: forms.movement,
        faults,
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

/// What the spool page's `?booked`, `?synced`, `?unlinked` or `?saved` says.
const DONE: [(&str, &str); 5] = [
    ("received", "spool.received"),
    ("booked", "spool.booked"),
    ("synced", "spoolmgr.synced"),
    ("unlinked", "spoolmgr.unlinked"),
    ("saved", "spool.saved"),
];

/// `GET /spools/{id}`: the spool, its latest 100 movements and the booking form.
pub async fn show(ctx: Ctx) -> Page {
    let id = ctx.id()?;
    let forms = Forms {
        movement: new_movement(),
        details: None,
    };
    render_spool(ctx, id, forms, Faults::default(), StatusCode::OK).await
}

/// `POST /spools/{id}`: changes the spool's price, location, lot and purchase date (its code,
/// filament and initial weight stay; `PATCH /api/spools/{id}`).
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let result = match ctx.typed(|| form.document::<SpoolPatch>(&[])) {
        Ok(input) => ctx.state.send(input.command(id)).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(see_other(&format!("{}?saved", paths::spool(id)))),
        Err(e) => {
            let status = e.code.status();
            let forms = Forms {
                movement: new_movement(),
                details: Some(form),
            };
            render_spool(ctx, id, forms, Faults::of(&e), status).await
        }
    }
}

/// `POST /spools/{id}/movements`: books a RECEIPT or CORRECTION (idempotent by the form's
/// operation key, so a resubmitted form books once).
pub async fn book(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let result = match ctx.typed(|| form.document::<MovementInputDto>(&[])) {
        Ok(input) => match input.command(id) {
            Ok(command) => ctx.state.send(command).await,
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(see_other(&format!("{}?booked", paths::spool(id)))),
        Err(e) => {
            let status = e.code.status();
            let forms = Forms {
                movement: form,
                details: None,
            };
            render_spool(ctx, id, forms, Faults::of(&e), status).await
        }
    }
}

/// `POST /spools/{id}/archive` (field `value`: `true` archives, `false` restores).
pub async fn archive(ctx: Ctx, body: Bytes) -> Page {
    let command = ArchiveSpool {
        id: ctx.id()?,
        archived: Submitted::parse(&body).get("value") == "true",
    };
    ctx.state.send(command).await.map_err(|e| ctx.fail(&e))?;
    Ok(see_other(&paths::spool(command.id)))
}

#[derive(Template)]
#[template(path = "spool_label.html")]
struct LabelPage {
    chrome: Chrome,
    spool: SpoolDto,
    remaining: String,
}

/// `GET /spools/{id}/label`: a printable label with the spool's QR code (its page's address).
pub async fn label(ctx: Ctx) -> Page {
    let spool = SpoolDto::from(ctx.query(GetSpool(ctx.id()?)).await?);
    let page = LabelPage {
        remaining: quantity(&ctx.chrome.t, &spool.initial_quantity, spool.unit.into()),
        spool,
        chrome: ctx.chrome,
    };
    Ok(html(StatusCode::OK, page.render()))
}
