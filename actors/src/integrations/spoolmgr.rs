//! The spool manager's client: Spoolman's API as `docs/peers.md` reads it from its code, and
//! its spools as validated types (exact decimals made once from the JSON floats' shortest text).
//!
//! Paths: `GET /api/v1/info` (`version`), `GET /api/v1/spool?limit=&offset=&allow_archived=true`
//! (total in `x-total-count`), `GET /api/v1/spool/{id}` (404 when unknown), `PUT
//! /api/v1/spool/{id}/use` `{"use_weight": g}`: additive and not idempotent.

use super::health::PeerHealth;
use super::peer::{PeerClient, PeerError};
use super::settings::{PeerUrl, Secret};
use reqwest::header::AUTHORIZATION;
use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde::Deserialize;
use std::str::FromStr;

/// A number of Spoolman's JSON as an exact decimal: the shortest text of the float.
/// Errors: [`PeerError::Contract`] for a value that is not finite.
pub(crate) fn exact(value: f64) -> Result<Decimal, PeerError> {
    if !value.is_finite() {
        return Err(PeerError::Contract);
    }
    Decimal::from_str(&value.to_string())
        .or_else(|_| Decimal::from_scientific(&format!("{value:e}")))
        .map(|d| d.normalize())
        .map_err(|_| PeerError::Contract)
}

fn exact_opt(value: Option<f64>) -> Result<Option<Decimal>, PeerError> {
    value.map(exact).transpose()
}

#[derive(Deserialize)]
struct InfoJson {
    version: String,
}

#[derive(Deserialize)]
struct VendorJson {
    id: u64,
    name: String,
}

#[derive(Deserialize)]
struct FilamentJson {
    id: u64,
    name: Option<String>,
    vendor: Option<VendorJson>,
    material: Option<String>,
    price: Option<f64>,
    weight: Option<f64>,
    color_hex: Option<String>,
}

#[derive(Deserialize)]
struct SpoolJson {
    id: u64,
    filament: FilamentJson,
    price: Option<f64>,
    remaining_weight: Option<f64>,
    initial_weight: Option<f64>,
    used_weight: f64,
    location: Option<String>,
    lot_nr: Option<String>,
    archived: bool,
}

/// A spool manager's vendor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteVendor {
    /// Its id in the spool manager.
    pub id: u64,
    /// Name.
    pub name: String,
}

/// A spool manager's filament, as far as a spool shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteFilament {
    /// Its id in the spool manager.
    pub id: u64,
    /// Name.
    pub name: Option<String>,
    /// Vendor.
    pub vendor: Option<RemoteVendor>,
    /// Material (PLA, PETG, …).
    pub material: Option<String>,
    /// Catalog price of a spool.
    pub price: Option<Decimal>,
    /// Net grams of a spool.
    pub weight: Option<Decimal>,
    /// Colour, `RRGGBB` (absent for multi-colour filaments).
    pub color_hex: Option<String>,
}

/// A spool manager's spool, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteSpool {
    /// Its id in the spool manager.
    pub id: u64,
    /// Its filament.
    pub filament: RemoteFilament,
    /// What it cost.
    pub price: Option<Decimal>,
    /// Grams left (never negative; absent when no weight is known).
    pub remaining_weight: Option<Decimal>,
    /// Net grams when bought.
    pub initial_weight: Option<Decimal>,
    /// Grams used so far.
    pub used_weight: Decimal,
    /// Where it is kept.
    pub location: Option<String>,
    /// Manufacturer's lot.
    pub lot_nr: Option<String>,
    /// Archived in the spool manager.
    pub archived: bool,
}

impl TryFrom<SpoolJson> for RemoteSpool {
    type Error = PeerError;

    fn try_from(s: SpoolJson) -> Result<RemoteSpool, PeerError> {
        let f = s.filament;
        let remaining = exact_opt(s.remaining_weight)?;
        if remaining.is_some_and(|r| r.is_sign_negative() && !r.is_zero()) {
            return Err(PeerError::Contract);
        }
        Ok(RemoteSpool {
            id: s.id,
            filament: RemoteFilament {
                id: f.id,
                name: f.name,
                vendor: f.vendor.map(|v| RemoteVendor {
                    id: v.id,
                    name: v.name,
                }),
                material: f.material,
                price: exact_opt(f.price)?,
                weight: exact_opt(f.weight)?,
                color_hex: f.color_hex,
            },
            price: exact_opt(s.price)?,
            remaining_weight: remaining,
            initial_weight: exact_opt(s.initial_weight)?,
            used_weight: exact(s.used_weight)?,
            location: s.location,
            lot_nr: s.lot_nr,
            archived: s.archived,
        })
    }
}

/// One page of the spool manager's spools and how many it has in all.
#[derive(Debug, Clone, PartialEq)]
pub struct SpoolPage {
    /// The page's spools, validated.
    pub spools: Vec<RemoteSpool>,
    /// Spools in all (`x-total-count`).
    pub total: u64,
}

/// What a consumption call (`PUT /use`) came to.
#[derive(Debug, Clone, PartialEq)]
pub enum UseOutcome {
    /// Applied (2xx): the spool as it now is.
    Applied(Box<RemoteSpool>),
    /// Refused with a 4xx: nothing was applied.
    Refused(u16),
}

/// A client of the spool manager.
#[derive(Debug, Clone)]
pub struct Spoolman {
    client: PeerClient,
}

impl Spoolman {
    /// A client of the spool manager at `base`, sending `authorization` as the `Authorization`
    /// header. Errors: see [`PeerClient::new`].
    pub fn new(base: PeerUrl, authorization: Option<&Secret>) -> Result<Spoolman, PeerError> {
        let client = PeerClient::new("spoolmgr", base, AUTHORIZATION, authorization)?;
        Ok(Spoolman { client })
    }

    /// This client, recording whether the peer answers in `health`.
    pub fn watched(self, health: PeerHealth) -> Spoolman {
        Spoolman {
            client: self.client.watched(health),
        }
    }

    /// The spool manager's version. Errors: see [`PeerClient::call`]; [`PeerError::Contract`]
    /// for anything but a 200 with a version.
    pub async fn version(&self) -> Result<String, PeerError> {
        let answer = self.client.call(Method::GET, "/api/v1/info", None).await?;
        if answer.status != StatusCode::OK {
            return Err(PeerError::Contract);
        }
        Ok(answer.json::<InfoJson>()?.version)
    }

    /// `limit` spools from `offset`, archived ones included, in the spool manager's order.
    /// Errors: see [`PeerClient::call`]; [`PeerError::Contract`] for a body or total that
    /// breaks the contract.
    pub async fn spools(&self, limit: u32, offset: u64) -> Result<SpoolPage, PeerError> {
        let path = format!("/api/v1/spool?limit={limit}&offset={offset}&allow_archived=true");
        let answer = self.client.call(Method::GET, &path, None).await?;
        if answer.status != StatusCode::OK {
            return Err(PeerError::Contract);
        }
        let total = answer
            .headers
            .get("x-total-count")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .ok_or(PeerError::Contract)?;
        let spools = answer
            .json::<Vec<SpoolJson>>()?
            .into_iter()
            .map(RemoteSpool::try_from)
            .collect::<Result<_, _>>()?;
        Ok(SpoolPage { spools, total })
    }

    /// Spool `id`, or `None` when the spool manager has none (404).
    /// Errors: see [`PeerClient::call`]; [`PeerError::Contract`] for another spool's id.
    pub async fn spool(&self, id: u64) -> Result<Option<RemoteSpool>, PeerError> {
        let path = format!("/api/v1/spool/{id}");
        let answer = self.client.call(Method::GET, &path, None).await?;
        match answer.status {
            StatusCode::OK => {
                let spool = RemoteSpool::try_from(answer.json::<SpoolJson>()?)?;
                if spool.id != id {
                    return Err(PeerError::Contract);
                }
                Ok(Some(spool))
            }
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(PeerError::Contract),
        }
    }

    /// Books `grams` of consumption on spool `id` (negative gives filament back). Not
    /// idempotent: call it once per operation, and treat [`PeerError::Unavailable`] as "may or
    /// may not have been applied".
    ///
    /// Errors: see [`PeerClient::call`].
    pub async fn use_weight(&self, id: u64, grams: Decimal) -> Result<UseOutcome, PeerError> {
        let amount = serde_json::Number::from_str(&grams.normalize().to_string())
            .map_err(|_| PeerError::Contract)?;
        let body = serde_json::json!({ "use_weight": amount });
        let path = format!("/api/v1/spool/{id}/use");
        let answer = self.client.call(Method::PUT, &path, Some(&body)).await?;
        if answer.status.is_success() {
            let spool = RemoteSpool::try_from(answer.json::<SpoolJson>()?)?;
            return Ok(UseOutcome::Applied(Box::new(spool)));
        }
        Ok(UseOutcome::Refused(answer.status.as_u16()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_become_the_decimals_they_print_as() {
        assert_eq!(exact(22.5).unwrap(), Decimal::from_str("22.5").unwrap());
        assert_eq!(exact(0.1).unwrap(), Decimal::from_str("0.1").unwrap());
        assert_eq!(exact(1000.0).unwrap(), Decimal::from(1000));
        assert_eq!(exact(f64::NAN), Err(PeerError::Contract));
        assert_eq!(
            exact(1e-7).unwrap(),
            Decimal::from_str("0.0000001").unwrap()
        );
    }

    #[test]
    fn a_spool_with_null_fields_left_out_is_valid_and_negative_grams_are_not() {
        let json = r#"{"id": 3, "registered": "2026-11-20T10:00:00", "filament": {"id": 1, "density": 1.24, "diameter": 1.75},
            "used_weight": 12.25, "archived": false, "extra": {}}"#;
        let spool =
            RemoteSpool::try_from(serde_json::from_str::<SpoolJson>(json).unwrap()).unwrap();
        assert_eq!(spool.used_weight, Decimal::from_str("12.25").unwrap());
        assert_eq!(spool.remaining_weight, None);
        assert_eq!(spool.filament.vendor, None);
        let negative = json.replace(
            r#""used_weight""#,
            r#""remaining_weight": -1, "used_weight""#,
        );
        let parsed = serde_json::from_str::<SpoolJson>(&negative).unwrap();
        assert_eq!(RemoteSpool::try_from(parsed), Err(PeerError::Contract));
    }
}
