//! `/api/printers/{id}/power`: a printer's power learned from its metered runs beside its
//! average power, and `/power/adopt`, which makes a learned figure its average power
//! ([`actors::prints::power`]).

use super::inventory::Resource;
use super::printers::{Printer, Printers};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{PathId, StrictJson};
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::dec;
use actix_web::web::{Data, Json};
use actix_web::{get, post};
use actors::prints::power::{self, AdoptPower, Errors, Power, PowerOf, PrinterPower};
use actors::values::Watts;
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// Registers the power routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_power).add(adopt_power);
}

/// Power learned from some runs.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PowerDto {
    /// Runs it is learned from.
    pub runs: usize,
    /// kWh per printing hour (3 decimals).
    pub kwh_per_hour: String,
    /// The same in whole watts.
    pub watts: u32,
}

/// A material's learned power.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaterialPowerDto {
    /// The material (`PLA`).
    pub material: String,
    /// Its power.
    #[serde(flatten)]
    pub power: PowerDto,
}

/// Errors of estimates against metered runs, as shares (`0.05` is 5 %).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorsDto {
    /// Median of `|estimate − metered| / metered`.
    pub median: String,
    /// 90th percentile.
    pub p90: String,
}

/// What a printer's metered runs say of its power.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LearnedDto {
    /// Over every run.
    pub overall: PowerDto,
    /// Per material, by name.
    pub by_material: Vec<MaterialPowerDto>,
    /// Errors of the planned kWh of those runs.
    pub planned_error: ErrorsDto,
    /// Errors of the learned figure, each run predicted from the others (per material from 3
    /// runs of it, else overall).
    pub learned_error: ErrorsDto,
}

/// A printer's average power beside what its meter taught.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrinterPowerDto {
    /// Its average power now (nameplate, or adopted), watts.
    pub average_power_watts: u32,
    /// Metered runs of its DONE prints.
    pub metered_runs: usize,
    /// Runs needed before anything is learned (5).
    pub runs_needed: usize,
    /// What they say; null before `runsNeeded` runs.
    pub learned: Option<LearnedDto>,
}

fn power_dto(p: &Power) -> PowerDto {
    PowerDto {
        runs: p.runs,
        kwh_per_hour: dec(p.kwh_per_hour),
        watts: p.watts,
    }
}

fn errors_dto(e: &Errors) -> ErrorsDto {
    ErrorsDto {
        median: dec(e.median),
        p90: dec(e.p90),
    }
}

impl From<PrinterPower> for PrinterPowerDto {
    fn from(p: PrinterPower) -> Self {
        PrinterPowerDto {
            average_power_watts: p.average_power_watts,
            metered_runs: p.runs,
            runs_needed: power::MIN_RUNS,
            learned: p.learned.map(|l| LearnedDto {
                overall: power_dto(&l.overall),
                by_material: l
                    .by_material
                    .iter()
                    .map(|(material, p)| MaterialPowerDto {
                        material: material.clone(),
                        power: power_dto(p),
                    })
                    .collect(),
                planned_error: errors_dto(&l.planned),
                learned_error: errors_dto(&l.learned),
            }),
        }
    }
}

/// A printer's power learned from the metered runs of its DONE prints (from 5 runs on), beside
/// its average power, with how far planned and learned estimates were from the meter.
#[utoipa::path(tag = "meters", params(("id" = String, Path, description = "Printer id")), responses((status = 200, body = PrinterPowerDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/printers/{id}/power")]
pub async fn get_power(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<PrinterPowerDto>, ApiError> {
    Ok(Json(state.query(PowerOf(id.0)).await?.into()))
}

/// A learned figure to adopt.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct AdoptInput {
    /// The printer's new average power, watts (0 to 100,000): a figure `GET …/power` showed.
    #[schema(value_type = u32, maximum = 100000)]
    pub watts: Watts,
}

/// Makes `watts` the printer's average power, as an edit of the printer would: prints priced
/// before keep the watts they were priced with. Answers the printer.
#[utoipa::path(tag = "meters", params(("id" = String, Path, description = "Printer id")), request_body = AdoptInput, responses((status = 200, body = Printer), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/printers/{id}/power/adopt")]
pub async fn adopt_power(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    body: StrictJson<AdoptInput>,
) -> Result<Json<Printer>, ApiError> {
    let command = AdoptPower {
        printer: id.0,
        watts: body.0.watts,
    };
    Ok(Json(Printers::dto(state.send(command).await?)))
}
