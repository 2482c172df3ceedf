//! The write transaction every change goes through, and what it notes of each change.
//!
//! [`WriteTxn`] wraps redb's write transaction. Every function of this crate that changes a
//! record of the shop (`repo::put`, `repo::remove`, the settings, the ledger's spools and
//! movements, sessions, number ranges, meter links) takes it, and when it is *recording* it notes
//! each change: the record's kind, its id, and the record as it was and as it is (their serde
//! form as JSON values). [`WriteTxn::take_changes`] hands them over, one touched record each,
//! with the fields that changed: what the journal's entry of a command is made of
//! (`crate::journal`). Derived state (the print summaries, wear, reference edges, indexes) is
//! not noted: it is rebuilt from the records.
//!
//! Migrations and tools write through [`WriteTxn::plain`], which notes nothing.

use crate::{Result, tables};
use redb::{ReadableTable, WriteTransaction};
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value as Json;
use std::cell::RefCell;
use std::ops::Deref;

/// One noted change: a record's kind and id, and its serde form before and after (`None`: it did
/// not exist, or it is gone).
struct Noted {
    kind: &'static str,
    id: String,
    before: Option<Json>,
    after: Option<Json>,
}

/// A write transaction that may note what it changes. Derefs to redb's [`WriteTransaction`].
pub struct WriteTxn {
    inner: WriteTransaction,
    noted: Option<RefCell<Vec<Noted>>>,
}

impl WriteTxn {
    /// `inner`, noting nothing (migrations, tools, tests).
    pub fn plain(inner: WriteTransaction) -> WriteTxn {
        WriteTxn { inner, noted: None }
    }

    /// `inner`, noting every change of a record until [`WriteTxn::take_changes`].
    pub fn recording(inner: WriteTransaction) -> WriteTxn {
        WriteTxn {
            inner,
            noted: Some(RefCell::new(Vec::new())),
        }
    }

    /// True when changes are noted (so a write reads what it replaces).
    pub fn is_recording(&self) -> bool {
        self.noted.is_some()
    }

    /// Notes that record `kind`/`id` was `before` and is now `after` (either `None`: created,
    /// deleted). Nothing when not recording; a record whose serde form is not JSON (never, for
    /// the records of this crate) is noted as touched without fields. For a write this crate
    /// does not make itself (a table of a caller's own).
    pub fn note<T: Serialize + ?Sized>(
        &self,
        kind: &'static str,
        id: impl ToString,
        before: Option<&T>,
        after: Option<&T>,
    ) {
        let Some(noted) = &self.noted else { return };
        let json = |v: Option<&T>| v.map(|v| serde_json::to_value(v).unwrap_or(Json::Null));
        noted.borrow_mut().push(Noted {
            kind,
            id: id.to_string(),
            before: json(before),
            after: json(after),
        });
    }

    /// Notes that `kind`/`id` changed from `before` to `after` (both exist).
    pub fn note_changed(&self, kind: &'static str, id: impl ToString, before: &Json, after: &Json) {
        self.note(kind, id, Some(before), Some(after));
    }

    /// The records changed since the last call, in the order first touched, each with the fields
    /// that changed (a record written twice shows its first before and its last after; one that
    /// ends as it began is left out). Secret fields ([`SECRET_FIELDS`]) show only that they
    /// changed.
    pub fn take_changes(&self) -> Vec<Touched> {
        let Some(noted) = &self.noted else {
            return Vec::new();
        };
        let noted = std::mem::take(&mut *noted.borrow_mut());
        let mut merged: Vec<Noted> = Vec::new();
        for change in noted {
            match merged
                .iter_mut()
                .find(|m| m.kind == change.kind && m.id == change.id)
            {
                Some(first) => first.after = change.after,
                None => merged.push(change),
            }
        }
        merged.into_iter().filter_map(touched).collect()
    }

    /// Commits durably (when the transaction was begun by `Store::begin_write`).
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit(self) -> Result<()> {
        Ok(self.inner.commit()?)
    }

    /// Discards every write of this transaction.
    pub fn abort(self) {
        let _ = self.inner.abort();
    }
}

impl Deref for WriteTxn {
    type Target = WriteTransaction;

    fn deref(&self) -> &WriteTransaction {
        &self.inner
    }
}

/// How a touched record changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    /// It did not exist before.
    Created,
    /// It existed and exists, with other values.
    Changed,
    /// It existed and is gone.
    Deleted,
}

/// A field that changed: its path in the record's stored form (`parts.0.grams`), its value before
/// and after (absent: the field did not exist or was empty), or only that it changed (a secret).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    /// The field's path: names of members, and indexes of lists of unchanged length, joined by
    /// dots.
    pub path: String,
    /// The value before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Json>,
    /// The value after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Json>,
    /// True for a secret: neither value is kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
}

impl FieldChange {
    /// A field that changed from `before` to `after` (a JSON `null` is kept as absent).
    pub(crate) fn plain(path: &str, before: &Json, after: &Json) -> FieldChange {
        let kept = |v: &Json| (!v.is_null()).then(|| v.clone());
        FieldChange {
            path: path.to_string(),
            before: kept(before),
            after: kept(after),
            secret: false,
        }
    }

    /// A secret field that changed.
    pub(crate) fn secret(path: String) -> FieldChange {
        FieldChange {
            path,
            before: None,
            after: None,
            secret: true,
        }
    }
}

/// A record a command touched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Touched {
    /// Its kind: the table it lives in (`spools`, `movements`, `prints`, `settings`, …).
    pub kind: String,
    /// Its id (a UUID, or the name of a single row such as `pricing`).
    pub id: String,
    /// How it changed.
    pub change: Change,
    /// The fields that changed.
    pub fields: Vec<FieldChange>,
}

/// Field names whose values the journal never holds, only that they changed: an account's
/// password hash, a webhook's token, an integration's credential, the metrics token's hash.
pub const SECRET_FIELDS: [&str; 4] = ["password_hash", "token", "credential", "metrics_token"];

/// The touched record of a merged change, or `None` when it did not change.
fn touched(noted: Noted) -> Option<Touched> {
    let (change, fields) = match (&noted.before, &noted.after) {
        (None, None) => return None,
        (None, Some(after)) => (Change::Created, fields(&Json::Null, after)),
        (Some(before), None) => (Change::Deleted, fields(before, &Json::Null)),
        (Some(before), Some(after)) if before == after => return None,
        (Some(before), Some(after)) => (Change::Changed, fields(before, after)),
    };
    Some(Touched {
        kind: noted.kind.to_string(),
        id: noted.id,
        change,
        fields,
    })
}

/// The fields that differ between `before` and `after` (`Null` for a side that does not exist).
fn fields(before: &Json, after: &Json) -> Vec<FieldChange> {
    let mut out = Vec::new();
    diff("", before, after, &mut out);
    out
}

/// Appends to `out` the leaves under `path` that differ: objects by key, arrays of one length by
/// index; anything else is one field. A value under a secret key becomes "changed".
fn diff(path: &str, before: &Json, after: &Json, out: &mut Vec<FieldChange>) {
    if before == after {
        return;
    }
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (before, after) {
        (Json::Object(_), _) | (_, Json::Object(_)) if !leaf_pair(before, after) => {
            let empty = serde_json::Map::new();
            let b = before.as_object().unwrap_or(&empty);
            let a = after.as_object().unwrap_or(&empty);
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let (b, a) = (b.get(key), a.get(key));
                if SECRET_FIELDS.contains(&key.as_str()) {
                    if b != a {
                        out.push(FieldChange::secret(join(key)));
                    }
                    continue;
                }
                diff(
                    &join(key),
                    b.unwrap_or(&Json::Null),
                    a.unwrap_or(&Json::Null),
                    out,
                );
            }
        }
        (Json::Array(b), Json::Array(a)) if b.len() == a.len() => {
            for (index, (b, a)) in b.iter().zip(a).enumerate() {
                diff(&join(&index.to_string()), b, a, out);
            }
        }
        _ => out.push(FieldChange::plain(
            path,
            &scrubbed(before),
            &scrubbed(after),
        )),
    }
}

/// `value` with every secret inside it (at any depth) replaced by `"(secret)"`: a list or object
/// shown whole (a webhook added to the list) must not carry its token.
fn scrubbed(value: &Json) -> Json {
    match value {
        Json::Object(map) => Json::Object(
            map.iter()
                .map(|(key, v)| {
                    let v = if SECRET_FIELDS.contains(&key.as_str()) && !v.is_null() {
                        Json::String("(secret)".into())
                    } else {
                        scrubbed(v)
                    };
                    (key.clone(), v)
                })
                .collect(),
        ),
        Json::Array(items) => Json::Array(items.iter().map(scrubbed).collect()),
        other => other.clone(),
    }
}

/// True when neither side is an object, or one is an object and the other a value that is not
/// null (a field that changed shape is shown whole).
fn leaf_pair(before: &Json, after: &Json) -> bool {
    let object_or_null = |v: &Json| v.is_object() || v.is_null();
    !(object_or_null(before) && object_or_null(after))
}

/// The settings table's rows, named for the journal by key (`tables::SETTINGS`).
pub(crate) fn setting_name(key: u8) -> &'static str {
    match key {
        0 => "settings",
        1 => "integrations",
        2 => "backup_schedule",
        3 => "metrics_token",
        4 => "alert_settings",
        5 => "standing_alerts",
        6 => "pricing",
        7 => "company",
        8 => "numbering",
        _ => "settings",
    }
}

/// What the settings row `key` held, for a recording transaction's note.
pub(crate) fn old_setting(tx: &WriteTxn, key: u8) -> Result<Option<Vec<u8>>> {
    if !tx.is_recording() {
        return Ok(None);
    }
    let table = tx.open_table(tables::SETTINGS)?;
    let found = table.get(key)?;
    Ok(found.map(|v| v.value().to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_diff_names_the_leaves_that_changed_and_hides_secrets() {
        let before = json!({"name": "A", "parts": [{"grams": "1"}], "token": "s1", "n": {"x": 1}});
        let after = json!({"name": "B", "parts": [{"grams": "2"}], "token": "s2", "n": {"x": 1}});
        let changed = fields(&before, &after);
        let paths: Vec<&str> = changed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["name", "parts.0.grams", "token"]);
        assert_eq!(changed[0].before, Some(json!("A")));
        assert_eq!(changed[0].after, Some(json!("B")));
        assert!(changed[2].secret && changed[2].before.is_none() && changed[2].after.is_none());
        let text = serde_json::to_string(&changed).unwrap();
        assert!(!text.contains("s1") && !text.contains("s2"), "{text}");
    }

    #[test]
    fn a_list_shown_whole_carries_no_secret_of_its_items() {
        let before = json!({"webhooks": []});
        let after = json!({"webhooks": [{"url": "http://a", "token": "s3", "headers": {"credential": "s4"}}]});
        let changed = fields(&before, &after);
        assert_eq!(changed.len(), 1);
        let text = serde_json::to_string(&changed).unwrap();
        assert!(!text.contains("s3") && !text.contains("s4"), "{text}");
        assert!(
            text.contains("http://a") && text.contains("(secret)"),
            "{text}"
        );
    }

    #[test]
    fn a_created_record_lists_its_fields_and_an_unchanged_one_is_left_out() {
        let created = touched(Noted {
            kind: "customers",
            id: "c".into(),
            before: None,
            after: Some(json!({"name": "A", "email": null})),
        })
        .unwrap();
        assert_eq!(created.change, Change::Created);
        assert_eq!(created.fields.len(), 1, "a null field is no change");
        assert_eq!(created.fields[0].path, "name");
        let same = Noted {
            kind: "customers",
            id: "c".into(),
            before: Some(json!({"name": "A"})),
            after: Some(json!({"name": "A"})),
        };
        assert!(touched(same).is_none());
    }
}
