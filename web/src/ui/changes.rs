//! "Who changed what": a record's history from the journal, as its page shows it (spools,
//! prints, inventory records, quotes, invoices), and who booked each movement of a spool.

use super::i18n::Tr;
use super::page::Ctx;
use crate::error::Rendered;
use actors::journal::{Authored, Created, Creators, RecordHistory};
use serde_json::Value;
use std::collections::HashMap;
use storage::Id;
use storage::journal::{Change, FieldChange, Who};

/// How many entries a record's page shows (the rest: `GET /api/journal?record=<id>`).
pub const SHOWN: u32 = 20;

/// A field that changed, as shown: its path, and its values before and after as text.
pub struct FieldRow {
    /// The field's path (`remaining_grams`, `parts.0.grams`).
    pub path: String,
    /// The value before ("–": none).
    pub before: String,
    /// The value after.
    pub after: String,
}

/// One entry of a record's history, as shown.
pub struct ChangeRow {
    /// When, in the shop's time and the page's locale.
    pub when: String,
    /// Who: an account's display name, or the appliance's part in words.
    pub who: String,
    /// What: the change's kind in words and the command's name.
    pub what: String,
    /// The fields that changed.
    pub fields: Vec<FieldRow>,
}

/// The newest entries that touched record `id`, as its page shows them.
///
/// Errors: the journal cannot be read (the page's error).
pub async fn of(ctx: &Ctx, id: Id) -> Result<Vec<ChangeRow>, Rendered> {
    let history = ctx
        .query(RecordHistory {
            id: id.to_string(),
            limit: SHOWN,
        })
        .await?;
    Ok(rows(&ctx.chrome.t, &history, &id.to_string()))
}

fn rows(t: &Tr, history: &Authored, id: &str) -> Vec<ChangeRow> {
    history
        .entries
        .iter()
        .map(|stored| {
            let entry = &stored.entry;
            let mine: Vec<_> = entry.records.iter().filter(|r| r.id == id).collect();
            let change = mine.first().map_or(Change::Changed, |r| r.change);
            let key = change_key(change);
            ChangeRow {
                when: t.datetime(&entry.at),
                who: who(t, &entry.who, &history.names),
                what: format!("{} ({})", t.t(key), entry.command),
                fields: mine
                    .iter()
                    .flat_map(|r| r.fields.iter())
                    .map(|f| field(t, f))
                    .collect(),
            }
        })
        .collect()
}

/// The catalogue key of how a record changed.
pub fn change_key(change: Change) -> &'static str {
    match change {
        Change::Created => "changes.created",
        Change::Changed => "changes.changed",
        Change::Deleted => "changes.deleted",
    }
}

/// `who` in words: the account's display name (from `names`), or the part of the appliance
/// that acted.
pub fn who(t: &Tr, who: &Who, names: &HashMap<Id, String>) -> String {
    match who {
        Who::Account(id) => names.get(id).cloned().unwrap_or_else(|| id.to_string()),
        Who::System(system) => {
            let key = format!("changes.system.{system}");
            match t.t(&key) {
                text if text == key => system.clone(),
                text => text.to_string(),
            }
        }
    }
}

/// A field's change as shown: a secret only as "changed".
pub fn field(t: &Tr, f: &FieldChange) -> FieldRow {
    let shown = |v: &Option<Value>| match v {
        None => "–".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    if f.secret {
        let changed = t.t("changes.secret").to_string();
        return FieldRow {
            path: f.path.clone(),
            before: "…".into(),
            after: changed,
        };
    }
    FieldRow {
        path: f.path.clone(),
        before: shown(&f.before),
        after: shown(&f.after),
    }
}

/// Who created each of `ids` (a spool's movements), in words; an id the journal does not name
/// (booked before it began) is left out.
///
/// Errors: the journal cannot be read.
pub async fn creators(ctx: &Ctx, ids: Vec<String>) -> Result<HashMap<String, String>, Rendered> {
    let Created { by, names } = ctx.query(Creators { ids }).await?;
    let t = &ctx.chrome.t;
    Ok(by
        .into_iter()
        .map(|(id, w)| (id, who(t, &w, &names)))
        .collect())
}
