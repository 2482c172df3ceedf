//! The one read path: every query of the appliance, a request's or a background actor's, runs
//! through [`Reader`], in a fresh read transaction (a snapshot of the last commit) with the print
//! projection beside it, on the blocking pool (never on the async executor).

use crate::command::{Query, Snapshot};
use crate::projection::PrintIndex;
use crate::{Error, Result};
use std::sync::Arc;
use storage::Store;

/// Runs queries in a read transaction on the runtime's blocking pool.
#[derive(Clone)]
pub struct Reader {
    store: Store,
    index: Arc<PrintIndex>,
}

impl Reader {
    /// A reader of `store` with the print projection `index`.
    pub fn new(store: Store, index: Arc<PrintIndex>) -> Reader {
        Reader { store, index }
    }

    /// Runs `query` in a fresh snapshot, off the async executor.
    /// Errors: the query's refusal; [`Error::Panicked`] when it panicked.
    pub async fn query<Q: Query>(&self, query: Q) -> Result<Q::Answer> {
        let (store, index) = (self.store.clone(), self.index.clone());
        tokio::task::spawn_blocking(move || {
            let txn = store.begin_read()?;
            query.run(&Snapshot {
                txn: &txn,
                index: &index,
            })
        })
        .await
        .map_err(|_| Error::Panicked)?
    }
}
