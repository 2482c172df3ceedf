//! `GET/PATCH /api/settings/numbering`: how issued invoices and credit notes are numbered
//! (Settings › Company, "Numbers"; the rules are `actors::numbering`).

use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::web::{Data, Json};
use actix_web::{get, patch};
use actors::numbering::{GetNumbering, SetNumbering};
use deserr::Deserr;
use serde::Serialize;
use storage::records::{NumberRange, Numbering};
use utoipa::ToSchema;

/// Registers the numbering routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_numbering).add(patch_numbering);
}

/// One number range.
#[derive(Debug, Clone, Serialize, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct NumberRangeDto {
    /// `{YYYY}` or `{YY}` for the year, one `{N…}` for the counter zero-padded to as many
    /// digits, and letters, digits and `-/_.` (`RE-{YY}{NNNNN}`), at most 40 characters.
    #[schema(
        example = "{YYYY}-{NNNN}",
        max_length = 40,
        pattern = r"^([A-Za-z0-9/_.-]|\{YYYY\}|\{YY\})*\{N{1,9}\}([A-Za-z0-9/_.-]|\{YYYY\}|\{YY\})*$"
    )]
    pub pattern: String,
    /// The counter restarts at 1 each year (the pattern must name the year).
    pub yearly: bool,
}

/// How invoices and credit notes are numbered.
#[derive(Debug, Clone, Serialize, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct NumberingDto {
    /// The invoices' range (`{YYYY}-{NNNN}`, yearly, until set).
    pub invoices: NumberRangeDto,
    /// The credit notes' own range; null: they take the invoices' numbers.
    #[deserr(default)]
    pub credit_notes: Option<NumberRangeDto>,
}

impl From<NumberRange> for NumberRangeDto {
    fn from(r: NumberRange) -> Self {
        NumberRangeDto {
            pattern: r.pattern,
            yearly: r.yearly,
        }
    }
}

impl From<NumberRangeDto> for NumberRange {
    fn from(r: NumberRangeDto) -> Self {
        NumberRange {
            pattern: r.pattern,
            yearly: r.yearly,
        }
    }
}

impl From<Numbering> for NumberingDto {
    fn from(n: Numbering) -> Self {
        NumberingDto {
            invoices: n.invoices.into(),
            credit_notes: n.credit_notes.map(Into::into),
        }
    }
}

impl From<NumberingDto> for Numbering {
    fn from(n: NumberingDto) -> Self {
        Numbering {
            invoices: n.invoices.into(),
            credit_notes: n.credit_notes.map(Into::into),
        }
    }
}

/// How invoices and credit notes are numbered.
#[utoipa::path(tag = "settings", responses((status = 200, body = NumberingDto), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings/numbering")]
pub async fn get_numbering(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<NumberingDto>, ApiError> {
    Ok(Json(state.query(GetNumbering).await?.into()))
}

/// Replaces how invoices and credit notes are numbered; the next issued document takes it.
/// Counters go on where they stand: a range's counter is kept per range and year, whatever
/// its pattern.
#[utoipa::path(
    tag = "settings",
    request_body = NumberingDto,
    responses(
        (status = 200, body = NumberingDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED: invoices.pattern or creditNotes.pattern invalidPattern, tooLong, patternYear (yearly without a year), duplicate (the credit notes' pattern is the invoices')", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/settings/numbering")]
pub async fn patch_numbering(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<NumberingDto>,
) -> Result<Json<NumberingDto>, ApiError> {
    Ok(Json(state.send(SetNumbering(input.0.into())).await?.into()))
}
