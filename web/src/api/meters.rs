//! `/api/printers/{id}/meter`: a printer's energy meter (a point of the bridge in this process,
//! or an MQTT topic with the path of its counter), its live and last kept readings, and its
//! history (`/meter/readings`). Meters are read from the bridge's broker, so they are read
//! while a bridge runs in this process (`--bridge-config`); a link is kept either way.

use crate::error::{ApiError, ErrorBody};
use crate::extract::{PathId, StrictJson, StrictQuery};
use crate::input::query::{self, Params};
use crate::input::{Faults, Refusal};
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{dec, ts};
use actix_web::web::{Data, Json};
use actix_web::{HttpResponse, delete, get, put};
use actors::bridge::BridgeConfig;
use actors::meters::history::Sample;
use actors::meters::links::{self, LinkMeter, MeterOf, MeterReadings};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records::{EnergyUnit, MeterLink, MeterSource};
use storage::{Id, Timestamp};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::{IntoParams, ToSchema};

/// Registers the meter routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_meter)
        .add(link_meter)
        .add(unlink_meter)
        .add(readings);
}

/// Where a meter is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MeterKind {
    /// A numeric point of the bridge running in this process (`source`, `point`).
    BridgePoint,
    /// A topic on the bridge's broker (`topic`, `jsonPath`).
    Mqtt,
}

crate::input::deserr_by_name!(MeterKind);

/// The unit of a meter's counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum UnitDto {
    /// Kilowatt-hours (Tasmota's `ENERGY.Total`, an SDM120's import energy).
    Kwh,
    /// Watt-hours (Shelly Gen2's `aenergy.total`).
    Wh,
}

crate::input::deserr_by_name!(UnitDto);

/// A printer's meter as answered: `{kind: BRIDGE_POINT, source, point, unit}` or `{kind: MQTT,
/// topic, jsonPath?, unit}`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterLinkDto {
    /// Where it is read.
    pub kind: MeterKind,
    /// BRIDGE_POINT: the bridge source's `id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "sdm120")]
    pub source: Option<String>,
    /// BRIDGE_POINT: the point's `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "Import energy")]
    pub point: Option<String>,
    /// MQTT: the topic, without wildcards.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(
        min_length = 1,
        max_length = 512,
        pattern = "^[^+#]+$",
        example = "tele/plug-mk4/SENSOR"
    )]
    pub topic: Option<String>,
    /// MQTT: the dotted path of the counter in the JSON message (`ENERGY.Total`,
    /// `aenergy.total`); absent: the message is the number.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(
        max_length = 200,
        pattern = "^[^.]+(\\.[^.]+)*$",
        example = "ENERGY.Total"
    )]
    pub json_path: Option<String>,
    /// The counter's unit.
    pub unit: UnitDto,
}

/// A printer's meter as sent. Its OpenAPI schema is one object per kind (below): a bridge
/// point (`source`, `point`) or an MQTT topic (`topic`, `jsonPath?`), each with its `unit`.
#[derive(Debug, Deserr)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct MeterLinkInput {
    /// Where it is read.
    pub kind: MeterKind,
    /// BRIDGE_POINT: the bridge source's `id`.
    #[deserr(default)]
    pub source: Option<String>,
    /// BRIDGE_POINT: the point's `name`.
    #[deserr(default)]
    pub point: Option<String>,
    /// MQTT: the topic, without wildcards.
    #[deserr(default)]
    pub topic: Option<String>,
    /// MQTT: the dotted path of the counter in the JSON message; absent: a bare number.
    #[deserr(default)]
    pub json_path: Option<String>,
    /// The counter's unit.
    pub unit: UnitDto,
}

/// A name's pattern: at least one character that is not white space (`errors.required` else).
const NAMED: &str = "\\S";
/// A topic's: no wildcard (`+`, `#`), no control character (U+0000–U+001F, U+007F–U+009F:
/// `meters::links::check`), not only white space.
const TOPIC: &str = "^[^+#\\u0000-\\u001F\\u007F-\\u009F]*[^+#\\s\\u0000-\\u001F\\u007F-\\u009F][^+#\\u0000-\\u001F\\u007F-\\u009F]*$";
/// A counter's path: dotted steps, none empty.
const PATH: &str = "^[^.]+(\\.[^.]+)*$";

fn text(pattern: &str, max: usize) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(max))
        .pattern(Some(pattern))
}

fn unit() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(["KWH", "WH"]))
        .description(Some("The counter's unit: KWH or WH."))
        .into()
}

impl utoipa::PartialSchema for MeterLinkInput {
    /// `oneOf` a BRIDGE_POINT (`source`, `point`) and an MQTT topic (`topic`, `jsonPath`),
    /// each with `unit`. That a bridge point is one of the running bridge's depends on the
    /// bridge and is left to the answer (422 `errors.notFound`).
    fn schema() -> RefOr<Schema> {
        let kind = |name: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([name]))
        };
        let bridge_point = ObjectBuilder::new()
            .property("kind", kind("BRIDGE_POINT"))
            .required("kind")
            .property(
                "source",
                text(NAMED, 200).description(Some("The bridge source's id.")),
            )
            .required("source")
            .property(
                "point",
                text(NAMED, 200).description(Some("The point's name.")),
            )
            .required("point")
            .property("unit", unit())
            .required("unit")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some(
                "A numeric point of the bridge running in this process.",
            ));
        let path = OneOfBuilder::new()
            .item(text(PATH, 200).description(Some(
                "The dotted path of the counter in the JSON message (ENERGY.Total).",
            )))
            .item(ObjectBuilder::new().schema_type(Type::Null));
        let mqtt = ObjectBuilder::new()
            .property("kind", kind("MQTT"))
            .required("kind")
            .property(
                "topic",
                text(TOPIC, 512).description(Some("The topic, no wildcards.")),
            )
            .required("topic")
            .property("jsonPath", path)
            .property("unit", unit())
            .required("unit")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some(
                "A topic on the bridge's broker; without jsonPath a bare number.",
            ));
        OneOfBuilder::new()
            .description(Some("A printer's meter: a bridge point or an MQTT topic."))
            .item(bridge_point)
            .item(mqtt)
            .into()
    }
}

impl ToSchema for MeterLinkInput {}

impl MeterLinkInput {
    /// The link to store, checked against the bridge running in this process, if any.
    ///
    /// Errors: those of the fields (`errors.required`, `errors.invalidValue`); `errors.notFound` at `source` or `point` for a
    /// bridge point the running bridge does not have.
    pub fn checked(self, bridge: Option<&BridgeConfig>) -> Result<MeterLink, ApiError> {
        let link = self.link()?;
        if let (Some(bridge), MeterSource::BridgePoint { .. }) = (bridge, &link.source) {
            links::topic_of(&link.source, Some(bridge))?;
        }
        Ok(link)
    }

    /// The stored link. Errors: `errors.required` at a field its kind needs; `errors.invalid`
    /// at a topic with wildcards or a path with an empty step.
    fn link(self) -> Result<MeterLink, ApiError> {
        let required = |field: &str, value: Option<String>| {
            value
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| ApiError::field(field, "errors.required"))
        };
        let source = match self.kind {
            MeterKind::BridgePoint => MeterSource::BridgePoint {
                source: required("source", self.source)?,
                point: required("point", self.point)?,
            },
            MeterKind::Mqtt => MeterSource::Mqtt {
                topic: required("topic", self.topic)?,
                json_path: self.json_path,
            },
        };
        links::check(&source)?;
        let unit = match self.unit {
            UnitDto::Kwh => EnergyUnit::Kwh,
            UnitDto::Wh => EnergyUnit::Wh,
        };
        Ok(MeterLink {
            source,
            unit,
            updated_at: Timestamp::now(),
        })
    }
}

impl MeterLinkDto {
    fn of(link: &MeterLink) -> MeterLinkDto {
        let unit = match link.unit {
            EnergyUnit::Kwh => UnitDto::Kwh,
            EnergyUnit::Wh => UnitDto::Wh,
        };
        let empty = MeterLinkDto {
            kind: MeterKind::Mqtt,
            source: None,
            point: None,
            topic: None,
            json_path: None,
            unit,
        };
        match &link.source {
            MeterSource::BridgePoint { source, point } => MeterLinkDto {
                kind: MeterKind::BridgePoint,
                source: Some(source.clone()),
                point: Some(point.clone()),
                ..empty
            },
            MeterSource::Mqtt { topic, json_path } => MeterLinkDto {
                topic: Some(topic.clone()),
                json_path: json_path.clone(),
                ..empty
            },
        }
    }
}

/// A reading: when, and the counter in kWh (a decimal string).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadingDto {
    /// When it was read (RFC 3339).
    pub at: String,
    /// The counter, kWh.
    #[schema(example = "1234.567")]
    pub kwh: String,
}

impl From<Sample> for ReadingDto {
    fn from(s: Sample) -> ReadingDto {
        ReadingDto {
            at: ts(s.at),
            kwh: dec(s.kwh),
        }
    }
}

/// A printer's meter and its readings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterDto {
    /// The meter; null when none is linked.
    pub meter: Option<MeterLinkDto>,
    /// The topic it is read on (a bridge point's resolved); null without a bridge in this
    /// process or when the bridge has no such point.
    pub topic: Option<String>,
    /// Whether it is being read: a bridge runs in this process and the link resolves.
    pub reading: bool,
    /// The latest reading since the service started (kept or not); null before one.
    pub live: Option<ReadingDto>,
    /// The latest reading kept in its history; null before one.
    pub last_kept: Option<ReadingDto>,
}

/// Printer `printer`'s meter as [`get_meter`] answers it. Errors: `NOT_FOUND`; the store.
pub async fn meter_of(state: &AppState, printer: Id) -> Result<MeterDto, ApiError> {
    let found = state.query(MeterOf(printer)).await?;
    let live = state
        .meters
        .as_ref()
        .and_then(|m| m.live.of(printer))
        .map(ReadingDto::from);
    Ok(match found {
        None => MeterDto {
            meter: None,
            topic: None,
            reading: false,
            live: None,
            last_kept: None,
        },
        Some((link, last)) => {
            let topic = links::topic_of(&link.source, state.bridge.as_ref())
                .ok()
                .map(|(topic, _)| topic);
            MeterDto {
                meter: Some(MeterLinkDto::of(&link)),
                reading: topic.is_some() && state.meters.is_some(),
                topic,
                live,
                last_kept: last.map(ReadingDto::from),
            }
        }
    })
}

/// A printer's meter, whether it is being read, its live and last kept readings.
#[utoipa::path(tag = "meters", params(("id" = String, Path, description = "Printer id")), responses((status = 200, body = MeterDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/printers/{id}/meter")]
pub async fn get_meter(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<MeterDto>, ApiError> {
    Ok(Json(meter_of(&state, id.0).await?))
}

/// Links a printer to its meter (replacing one). A bridge point must be one of the bridge in
/// this process when one runs (without one the link is kept and read once one runs).
#[utoipa::path(tag = "meters", params(("id" = String, Path, description = "Printer id")), request_body = MeterLinkInput, responses((status = 200, body = MeterDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, description = "A field its kind needs is missing; a wildcard topic; an empty path step; a bridge point the running bridge does not have", body = ErrorBody)), security(("session" = [])))]
#[put("/printers/{id}/meter")]
pub async fn link_meter(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    body: StrictJson<MeterLinkInput>,
) -> Result<Json<MeterDto>, ApiError> {
    let link = body.0.checked(state.bridge.as_ref())?;
    let command = LinkMeter {
        printer: id.0,
        link: Some(link),
    };
    state.send(command).await?;
    if let Some(meters) = &state.meters {
        meters.reload();
    }
    Ok(Json(meter_of(&state, id.0).await?))
}

/// Unlinks a printer's meter (its readings stay).
#[utoipa::path(tag = "meters", params(("id" = String, Path, description = "Printer id")), responses((status = 204, description = "Unlinked (or none was linked)"), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[delete("/printers/{id}/meter")]
pub async fn unlink_meter(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    let command = LinkMeter {
        printer: id.0,
        link: None,
    };
    state.send(command).await?;
    if let Some(meters) = &state.meters {
        meters.reload();
    }
    Ok(HttpResponse::NoContent().finish())
}

/// The readings' window: the last `hours` hours.
#[derive(Debug, Clone, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct WindowParams {
    /// Hours back from now, 1 to 744 (31 days; default 24).
    #[param(minimum = 1, maximum = 744)]
    #[deserr(default, try_from(&String) = query::number::<1, 744> -> Refusal)]
    pub hours: Option<u32>,
}

impl Params for WindowParams {}

/// The kept readings of the window.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReadingsDto {
    /// Oldest first, one a minute (a reset kept at once).
    pub items: Vec<ReadingDto>,
}

/// A printer's kept readings of the last `hours` hours (default 24).
#[utoipa::path(tag = "meters", params(("id" = String, Path, description = "Printer id"), WindowParams), responses((status = 200, body = ReadingsDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[get("/printers/{id}/meter/readings")]
pub async fn readings(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    window: StrictQuery<WindowParams>,
) -> Result<Json<ReadingsDto>, ApiError> {
    let now = Timestamp::now();
    let hours = i64::from(window.0.hours.unwrap_or(24));
    let query = MeterReadings {
        printer: id.0,
        from: Timestamp(now.0 - hours * 3600),
        to: now,
    };
    let found = state.query(query).await?;
    Ok(Json(ReadingsDto {
        items: found.into_iter().map(ReadingDto::from).collect(),
    }))
}
