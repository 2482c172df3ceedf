//! Choices for form selects: the active records a form may refer to, read in one transaction.

use crate::api::inventory::Resource;
use crate::api::{components, customers, filaments, manufacturers, printers};
use actors::inventory::{Kind, ListQuery};
use serde_json::Value;
use storage::ReadTransaction;

/// Most records a select offers (a shop has far fewer).
const LIMIT: u32 = 1000;

/// One option of a select.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The record id (the option's value).
    pub id: String,
    /// What the option shows.
    pub label: String,
    /// What it belongs to: a component's type, a spool's filament id; `""` otherwise.
    pub group: String,
}

/// The active (not archived) records of `R` as their API bodies, sorted as the API lists them.
///
/// Errors: storage errors.
pub fn records<R: Resource>(tx: &ReadTransaction) -> actors::Result<Vec<Value>>
where
    <R::Kind as Kind>::Filter: Default,
{
    let query = ListQuery {
        page_size: LIMIT,
        ..ListQuery::default()
    };
    let page = R::Kind::list(tx, &query, &Default::default())?;
    Ok(page
        .items
        .into_iter()
        .filter_map(|view| serde_json::to_value(R::dto(view)).ok())
        .collect())
}

/// The records of `R` as choices: `name` shown, `group` from the body's `group_key` if given.
///
/// Errors: storage errors.
pub fn of<R: Resource>(tx: &ReadTransaction, group_key: &str) -> actors::Result<Vec<Choice>>
where
    <R::Kind as Kind>::Filter: Default,
{
    Ok(records::<R>(tx)?
        .iter()
        .map(|body| Choice {
            id: text(body, "id"),
            label: text(body, "name"),
            group: text(body, group_key),
        })
        .collect())
}

/// A string field of an API body (`""` when absent or not a string).
pub fn text(body: &Value, key: &str) -> String {
    body.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Every list a print or inventory form picks from.
#[derive(Debug, Default, Clone)]
pub struct Choices {
    /// Manufacturers.
    pub manufacturers: Vec<Choice>,
    /// Customers.
    pub customers: Vec<Choice>,
    /// Printers.
    pub printers: Vec<Choice>,
    /// Components; `group` is HOTEND, BUILD_PLATE or OTHER.
    pub components: Vec<Choice>,
    /// Filaments.
    pub filaments: Vec<Choice>,
    /// Spools with filament left (empty with spool management off); `group` is the filament id.
    pub spools: Vec<Choice>,
    /// Active series (empty while print series are off).
    pub series: Vec<Choice>,
}

impl Choices {
    /// Reads every list.
    ///
    /// Errors: storage errors.
    pub fn load(tx: &ReadTransaction) -> actors::Result<Choices> {
        let settings = actors::settings::get(tx)?;
        let spools = if settings.spool_management_enabled {
            let query = ListQuery {
                page_size: LIMIT,
                ..ListQuery::default()
            };
            let filter = actors::ledger::SpoolFilter {
                filament_id: None,
                available_only: true,
            };
            actors::ledger::list(tx, &query, &filter)?
                .items
                .into_iter()
                .map(|v| Choice {
                    id: v.spool.id.to_string(),
                    label: format!(
                        "{} · {} g",
                        v.spool.code,
                        v.spool.remaining_grams.normalize()
                    ),
                    group: v.spool.filament_id.to_string(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let series = if settings.print_series_enabled {
            let query = ListQuery {
                page_size: LIMIT,
                ..ListQuery::default()
            };
            actors::series::list(tx, &query)?
                .items
                .into_iter()
                .map(|s| Choice {
                    id: s.id.to_string(),
                    label: s.name,
                    group: String::new(),
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Choices {
            manufacturers: of::<manufacturers::Manufacturers>(tx, "")?,
            customers: of::<customers::Customers>(tx, "")?,
            printers: of::<printers::Printers>(tx, "")?,
            components: of::<components::Components>(tx, "type")?,
            filaments: of::<filaments::Filaments>(tx, "")?,
            spools,
            series,
        })
    }

    /// The components of `kind` (HOTEND, BUILD_PLATE or OTHER).
    pub fn components_of(&self, kind: &str) -> Vec<&Choice> {
        self.components.iter().filter(|c| c.group == kind).collect()
    }
}
