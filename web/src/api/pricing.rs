//! `GET/PATCH /api/settings/pricing`: the shop's price rule (Settings › Pricing).

use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{dec, dec_opt};
use actix_web::web::{Data, Json};
use actix_web::{get, patch};
use actors::pricing::{GetPricing, SetPricing};
use actors::values::Amount;
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records;
use utoipa::ToSchema;

/// Registers the pricing routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_pricing).add(patch_pricing);
}

/// What the price is built on.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PriceBasis {
    /// A markup on cost: `cost × (100 + percent) / 100`.
    Markup,
    /// A target margin of the price: `cost × 100 / (100 − percent)`.
    Margin,
}

crate::input::deserr_by_name!(PriceBasis);

/// How a suggested price is rounded.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Rounding {
    /// To the cent.
    Cent,
    /// To the nearest 0.05.
    FiveCents,
    /// Up to the next price ending in .90.
    Ninety,
}

crate::input::deserr_by_name!(Rounding);

/// The shop's price rule.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pricing {
    /// Whether drafts get a suggested price (a draft without a sales value takes it).
    pub enabled: bool,
    /// MARKUP on cost or MARGIN of price.
    pub basis: PriceBasis,
    /// The markup or margin, percent.
    pub percent: String,
    /// The least a job is sold for, net; null for none.
    pub minimum_per_job: Option<String>,
    /// CENT, FIVE_CENTS or NINETY.
    pub rounding: Rounding,
    /// The VAT rate, percent.
    pub vat_percent: String,
    /// Price the expected cost per good part (cost ÷ success rate) instead of the cost.
    pub failure_adjusted: bool,
    /// How many of the latest outcomes per printer and material the success rate counts.
    #[serde(default)]
    pub failure_window: u16,
}

/// A new price rule (full replacement).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PricingInput {
    /// Whether drafts get a suggested price.
    pub enabled: bool,
    /// MARKUP on cost or MARGIN of price.
    pub basis: PriceBasis,
    /// The markup, or the margin (below 100), percent.
    #[schema(example = "30")]
    pub percent: Amount,
    /// The least a job is sold for, net.
    #[schema(example = "5.00")]
    #[deserr(default)]
    pub minimum_per_job: Option<Amount>,
    /// CENT, FIVE_CENTS or NINETY.
    pub rounding: Rounding,
    /// The VAT rate, percent, at most 100 (0 for a small business under § 19 UStG).
    #[schema(example = "19")]
    pub vat_percent: Amount,
    /// Price the expected cost per good part (cost ÷ success rate); default false.
    #[serde(default)]
    #[deserr(default)]
    pub failure_adjusted: bool,
    /// The latest outcomes per printer and material the success rate counts, 1 to 1,000
    /// (default 20).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 1000)]
    #[deserr(default = records::Pricing::default().failure_window)]
    pub failure_window: u16,
}

impl From<records::Pricing> for Pricing {
    fn from(p: records::Pricing) -> Self {
        Pricing {
            enabled: p.enabled,
            basis: match p.basis {
                records::PriceBasis::Markup => PriceBasis::Markup,
                records::PriceBasis::Margin => PriceBasis::Margin,
            },
            percent: dec(p.percent),
            minimum_per_job: dec_opt(p.minimum_per_job),
            rounding: match p.rounding {
                records::Rounding::Cent => Rounding::Cent,
                records::Rounding::FiveCents => Rounding::FiveCents,
                records::Rounding::Ninety => Rounding::Ninety,
            },
            vat_percent: dec(p.vat_percent),
            failure_adjusted: p.failure_adjusted,
            failure_window: p.failure_window,
        }
    }
}

impl From<PricingInput> for records::Pricing {
    fn from(p: PricingInput) -> Self {
        records::Pricing {
            enabled: p.enabled,
            basis: match p.basis {
                PriceBasis::Markup => records::PriceBasis::Markup,
                PriceBasis::Margin => records::PriceBasis::Margin,
            },
            percent: p.percent.into_inner(),
            minimum_per_job: p.minimum_per_job.map(Amount::into_inner),
            rounding: match p.rounding {
                Rounding::Cent => records::Rounding::Cent,
                Rounding::FiveCents => records::Rounding::FiveCents,
                Rounding::Ninety => records::Rounding::Ninety,
            },
            vat_percent: p.vat_percent.into_inner(),
            failure_adjusted: p.failure_adjusted,
            failure_window: p.failure_window,
        }
    }
}

/// The price rule (off, a markup of 30 % and 19 % VAT, until first set).
#[utoipa::path(tag = "settings", responses((status = 200, body = Pricing), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings/pricing")]
pub async fn get_pricing(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Pricing>, ApiError> {
    Ok(Json(state.query(GetPricing).await?.into()))
}

/// Replaces the price rule. Drafts are priced by it from their next save; prints that left
/// DRAFT keep the price they froze with.
#[utoipa::path(
    tag = "settings",
    request_body = PricingInput,
    responses(
        (status = 200, body = Pricing),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED: a margin of 100 % or more, a VAT rate above 100 %, a window outside 1 to 1,000", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/settings/pricing")]
pub async fn patch_pricing(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<PricingInput>,
) -> Result<Json<Pricing>, ApiError> {
    Ok(Json(state.send(SetPricing(input.0.into())).await?.into()))
}
