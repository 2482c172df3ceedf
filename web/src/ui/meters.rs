//! A printer's energy meter on the printer's page: where it is read, its live reading and when
//! it was read, its last kept one, and the form that links, changes or unlinks it
//! (`POST /printers/{id}/meter`, the API's `PUT`/`DELETE /api/printers/{id}/meter` rules).

use super::forms::{Faults, Submitted};
use super::i18n::Tr;
use super::page::{Ctx, Page, see_other};
use super::paths;
use crate::api::meters::{MeterDto, MeterLinkInput, ReadingDto, meter_of};
use crate::error::{ApiError, Rendered};
use actix_web::web::Bytes;
use actors::meters::links::LinkMeter;
use actors::prints::power::{AdoptPower, PowerOf, PrinterPower};
use actors::values::Watts;
use rust_decimal::Decimal;
use storage::Id;

/// The printer page's meter card.
pub struct MeterCard {
    /// The meter as the API answers it.
    pub meter: MeterDto,
    /// The link form's values: the meter's, or an MQTT topic in kWh for a new one.
    pub form: Submitted,
    /// The live reading, worded (`1.234,567 kWh · 27.11.2026, 11:05`); empty before one.
    pub live: String,
    /// The last kept reading, worded; empty before one.
    pub last_kept: String,
    /// Where it is read: the topic (a bridge point's resolved one), else the source and point.
    pub read_on: String,
    /// The printer's power learned from its metered runs.
    pub power: PrinterPower,
    /// A refused link's faults, beside its fields (the form keeps what was typed).
    pub faults: Faults,
}

impl MeterCard {
    /// The card showing the refused link `form` with `faults` (`None`: as stored).
    pub fn refused(mut self, refusal: Option<(Submitted, Faults)>) -> MeterCard {
        if let Some((form, faults)) = refusal {
            self.form = form;
            self.faults = faults;
        }
        self
    }

    /// The message key of the fault at link field `name`, or `""`.
    pub fn fault(&self, name: &str) -> &str {
        self.faults.at(name)
    }

    /// A share as a whole percentage in the page's locale (`0.0354` → `4 %`).
    pub fn percent(&self, t: &Tr, share: &Decimal) -> String {
        format!("{} %", t.number(*share * Decimal::ONE_HUNDRED, 0))
    }
}

fn worded(t: &Tr, reading: Option<&ReadingDto>) -> String {
    reading.map_or_else(String::new, |r| {
        format!("{} kWh · {}", t.exact_str(&r.kwh), t.datetime(&r.at))
    })
}

/// The card of printer `printer`. Errors: its refusal as the error page.
pub async fn card(ctx: &Ctx, printer: Id) -> Result<MeterCard, Rendered> {
    let meter = meter_of(&ctx.state, printer)
        .await
        .map_err(|e| ctx.fail(&e))?;
    let power = ctx.query(PowerOf(printer)).await?;
    let mut form = Submitted::default();
    form.set("kind", "MQTT");
    form.set("unit", "KWH");
    if let Some(link) = &meter.meter {
        let kind = serde_json::to_value(link.kind).unwrap_or_default();
        form.set("kind", kind.as_str().unwrap_or("MQTT"));
        let unit = serde_json::to_value(link.unit).unwrap_or_default();
        form.set("unit", unit.as_str().unwrap_or("KWH"));
        let fields = [
            ("source", &link.source),
            ("point", &link.point),
            ("topic", &link.topic),
            ("jsonPath", &link.json_path),
        ];
        for (name, value) in fields {
            form.set(name, value.clone().unwrap_or_default());
        }
    }
    let t = &ctx.chrome.t;
    let read_on = match (&meter.topic, &meter.meter) {
        (Some(topic), _) => topic.clone(),
        (None, Some(link)) => match (&link.topic, &link.source, &link.point) {
            (Some(topic), _, _) => topic.clone(),
            (None, Some(source), Some(point)) => format!("{source} › {point}"),
            _ => String::new(),
        },
        (None, None) => String::new(),
    };
    Ok(MeterCard {
        read_on,
        live: worded(t, meter.live.as_ref()),
        last_kept: worded(t, meter.last_kept.as_ref()),
        meter,
        form,
        power,
        faults: Faults::default(),
    })
}

/// Links the meter `form` names to `printer` (`unlink=1` unlinks it), by the API's rules
/// (`PUT`/`DELETE /api/printers/{id}/meter`), and reloads the meters.
///
/// Errors: the API's refusal, with the link's fields at fault.
pub async fn link(ctx: &Ctx, printer: Id, form: &Submitted) -> Result<(), ApiError> {
    let link = if form.get("unlink") == "1" {
        None
    } else {
        let mut fields = form.clone();
        fields
            .0
            .retain(|(name, value)| name != "unlink" && !value.trim().is_empty());
        let input = ctx.typed(|| fields.document::<MeterLinkInput>(&[]));
        Some(input.and_then(|input| input.checked(ctx.state.bridge.as_ref()))?)
    };
    ctx.state.send(LinkMeter { printer, link }).await?;
    if let Some(meters) = &ctx.state.meters {
        meters.reload();
    }
    Ok(())
}

/// `POST /printers/{id}/power`: makes the form's `watts` (a learned figure the page showed) the
/// printer's average power; back to the printer's page.
pub async fn adopt(ctx: Ctx, body: Bytes) -> Page {
    let printer = ctx.id()?;
    let form = Submitted::parse(&body);
    let watts = form
        .get("watts")
        .parse::<u64>()
        .ok()
        .and_then(|w| Watts::try_from(w).ok())
        .ok_or_else(|| ctx.fail(&ApiError::field("watts", "errors.outOfRange")))?;
    ctx.state
        .send(AdoptPower { printer, watts })
        .await
        .map_err(|e| ctx.fail(&e))?;
    let page = paths::PRINTER.replace("{id}", &printer.to_string());
    Ok(see_other(&format!("{page}?saved")))
}
