//! Lists: the common list query of the spec and one page of a list.

/// The common list query of the spec ("Common list behaviour").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// Case-insensitive text filter; `None` matches everything.
    pub search: Option<String>,
    /// One-based page number.
    pub page: u32,
    /// Items per page, 1 to 100.
    pub page_size: u32,
    /// Also list archived records.
    pub include_archived: bool,
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            search: None,
            page: 1,
            page_size: 25,
            include_archived: false,
        }
    }
}

impl ListQuery {
    /// True when `texts` contain the search text (case-insensitive), or there is none.
    pub fn matches(&self, texts: &[&str]) -> bool {
        match &self.search {
            None => true,
            Some(needle) => {
                let needle = needle.to_lowercase();
                texts.iter().any(|t| t.to_lowercase().contains(&needle))
            }
        }
    }
}

/// How many items come before one-based page `page` of `page_size` items (saturating, so page 0
/// is the first and an absurd page is past the end).
pub fn offset(page: u32, page_size: u32) -> usize {
    (page.saturating_sub(1) as usize).saturating_mul(page_size as usize)
}

/// One page of a list: `total` counts every match (after filters, before pagination).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The page's items.
    pub items: Vec<T>,
    /// Matches in all pages.
    pub total: u64,
    /// One-based page number.
    pub page: u32,
    /// Items per page.
    pub page_size: u32,
}

impl<T> Page<T> {
    /// Cuts page `query.page` out of `items` (already filtered and sorted).
    pub fn cut(items: Vec<T>, query: &ListQuery) -> Page<T> {
        let total = items.len() as u64;
        let skip = offset(query.page, query.page_size);
        let items = items
            .into_iter()
            .skip(skip)
            .take(query.page_size as usize)
            .collect();
        Page {
            items,
            total,
            page: query.page,
            page_size: query.page_size,
        }
    }

    /// Maps every item.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            page: self.page,
            page_size: self.page_size,
        }
    }
}
