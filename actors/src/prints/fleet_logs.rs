//! Print parts linked to entries of the printer fleet's print log: the rules that read them
//! without the fleet manager (docs/api-contract.md, "Integrations").
//!
//! - A log is terminal when it completed (`SUCCESS`) or failed, stopped or was cancelled
//!   (`FAILED`); a skipped one never imports.
//! - The preview fingerprint of a log is the SHA-256 of its validated projection.
//! - Once a FAILED log is imported, the print's outcome stays FAILED, in corrections too.

use crate::{Result, money, values};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use storage::Id;
use storage::records::{LogLink, OutcomeStatus, Print, PrintLog};
use storage::repo::{self, Tx};

/// Lower-case hex SHA-256 of `value`'s compact JSON text, keys sorted at every level: the
/// fingerprint of a validated projection a person saw.
pub fn fingerprint(value: &Value) -> String {
    let digest = Sha256::digest(value.to_string().as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// An optional decimal as its canonical JSON string, or `null`.
pub fn text(value: Option<Decimal>) -> Value {
    value.map_or(Value::Null, |d| Value::String(money::canonical(d)))
}

/// The outcome a log stands for, or `None` while it is not terminal.
pub fn terminal(log: &PrintLog) -> Option<OutcomeStatus> {
    match log.status.as_str() {
        "completed" => Some(OutcomeStatus::Success),
        "failed" | "stopped" | "cancelled" => Some(OutcomeStatus::Failed),
        _ => None,
    }
}

/// A time as the API writes it: RFC 3339 in UTC (`2026-11-20T11:00:00Z`).
fn rfc3339(at: Option<storage::Timestamp>) -> Value {
    at.and_then(values::rfc3339)
        .map_or(Value::Null, Value::String)
}

/// The validated projection of `log` the preview shows and fingerprints: camelCase names,
/// grams as a canonical decimal string, times in RFC 3339 (UTC).
pub fn projection(log: &PrintLog) -> Value {
    json!({
        "id": log.id,
        "printerId": log.printer_id,
        "printName": log.print_name,
        "status": log.status,
        "startedAt": rfc3339(log.started_at),
        "completedAt": rfc3339(log.completed_at),
        "durationSeconds": log.duration_seconds,
        "filamentUsedGrams": text(log.filament_used_grams),
        "failureReason": log.failure_reason,
        "energyKwh": text(log.energy_kwh),
    })
}

/// The preview fingerprint of `log`.
pub fn preview_hash(log: &PrintLog) -> String {
    fingerprint(&projection(log))
}

/// The log link of part `part_id`, if any. Errors: the store cannot be read.
pub fn of(tx: &impl Tx, part_id: Id) -> Result<Option<LogLink>> {
    Ok(repo::get(tx, part_id)?)
}

/// The log links of `print`'s parts, in part order. Errors: the store cannot be read.
pub fn of_print(tx: &impl Tx, print: &Print) -> Result<Vec<LogLink>> {
    let mut found = Vec::new();
    for part in &print.parts {
        if let Some(link) = of(tx, part.id)? {
            found.push(link);
        }
    }
    Ok(found)
}

/// True when an imported log of `print` failed: its outcome must stay FAILED.
/// Errors: the store cannot be read.
pub fn imported_failure(tx: &impl Tx, print: &Print) -> Result<bool> {
    Ok(of_print(tx, print)?.iter().any(|l| {
        l.imported_at.is_some() && l.log.as_ref().and_then(terminal) == Some(OutcomeStatus::Failed)
    }))
}
