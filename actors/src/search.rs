//! Global search: prints, inventory records and spools whose names (a spool's code) contain a
//! text, grouped by kind.

use crate::command::{Query, Snapshot};
use crate::inventory::components::Components;
use crate::inventory::customers::Customers;
use crate::inventory::filaments::Filaments;
use crate::inventory::manufacturers::Manufacturers;
use crate::inventory::printers::Printers;
use crate::inventory::{Kind, ListQuery};
use crate::prints;
use crate::projection::query::PrintFilter;
use crate::stock::{self, SpoolFilter};
use crate::{Error, Result};
use storage::Id;
use storage::records::PrintStatus;

/// Hits per kind at most.
pub const PER_GROUP: u32 = 10;
/// Fewest characters a search text may have (spec, Limits: "search q at least 2 characters").
pub const MIN_CHARS: usize = 2;

/// One hit: the record and its name.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The record.
    pub id: Id,
    /// Its name (a filament's derived name).
    pub name: String,
}

/// The hits of a search, at most [`PER_GROUP`] per kind, archived records left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// Prints (name or any part's printer), newest first, with their status.
    pub prints: Vec<(Hit, PrintStatus)>,
    /// Customers.
    pub customers: Vec<Hit>,
    /// Manufacturers.
    pub manufacturers: Vec<Hit>,
    /// Printers.
    pub printers: Vec<Hit>,
    /// Components.
    pub components: Vec<Hit>,
    /// Filaments.
    pub filaments: Vec<Hit>,
    /// Spools by code, lot, location or filament (with spool management on), named
    /// `<code> · <filament>`.
    pub spools: Vec<Hit>,
}

/// Searches prints and inventory for a text (case-insensitive).
///
/// Errors: [`Error::Validation`] on `q` (`errors.tooShort`) under [`MIN_CHARS`] characters.
#[derive(Debug, Clone)]
pub struct Search(pub String);

impl Query for Search {
    type Answer = Found;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Found> {
        let q = self.0;
        if q.chars().count() < MIN_CHARS {
            return Err(Error::field("q", "errors.tooShort"));
        }
        let filter = PrintFilter {
            search: Some(q.to_lowercase()),
            ..PrintFilter::default()
        };
        let (ids, _) = snapshot.index.page(&filter, 0, PER_GROUP as usize)?;
        let prints = ids
            .iter()
            .map(|id| {
                prints::get(snapshot, *id).map(|p| {
                    (
                        Hit {
                            id: p.id,
                            name: p.name,
                        },
                        p.status,
                    )
                })
            })
            .collect::<Result<_>>()?;
        let list = ListQuery {
            search: Some(q),
            page: 1,
            page_size: PER_GROUP,
            include_archived: false,
        };
        let hits = |items: Vec<(Id, String)>| {
            items
                .into_iter()
                .map(|(id, name)| Hit { id, name })
                .collect()
        };
        Ok(Found {
            prints,
            customers: hits(
                Customers::list(snapshot, &list, &())?
                    .items
                    .into_iter()
                    .map(|c| (c.id, c.name))
                    .collect(),
            ),
            manufacturers: hits(
                Manufacturers::list(snapshot, &list, &())?
                    .items
                    .into_iter()
                    .map(|m| (m.id, m.name))
                    .collect(),
            ),
            printers: hits(
                Printers::list(snapshot, &list, &())?
                    .items
                    .into_iter()
                    .map(|v| (v.printer.id, v.printer.name))
                    .collect(),
            ),
            components: hits(
                Components::list(snapshot, &list, &Default::default())?
                    .items
                    .into_iter()
                    .map(|v| (v.component.id, v.component.name))
                    .collect(),
            ),
            filaments: hits(
                Filaments::list(snapshot, &list, &())?
                    .items
                    .into_iter()
                    .map(|v| (v.filament.id, v.name))
                    .collect(),
            ),
            spools: match stock::list(snapshot, &list, &SpoolFilter::default()) {
                Ok(page) => hits(
                    page.items
                        .into_iter()
                        .map(|v| (v.spool.id, format!("{} · {}", v.spool.code, v.filament)))
                        .collect(),
                ),
                Err(Error::SpoolManagementDisabled) => Vec::new(),
                Err(e) => return Err(e),
            },
        })
    }
}
