//! The writer actor: one per aggregate, the only code that commits to the store.
//!
//! Each writer runs on its own [`Arbiter`] thread. A command is a closure over the write
//! transaction that calls the aggregate's rule functions. Commands arriving together form a batch:
//! the first command of a batch schedules a flush with `ctx.notify`, which runs after the mailbox
//! messages already taken in that poll; the flush applies the whole batch in one write
//! transaction, commits it durably (`Durability::Immediate`), and only then answers every sender
//! (group commit). So an acknowledged write is on disk, and commits per command fall as
//! concurrency rises.
//!
//! A command that fails with a domain error must not leave its partial writes in the batch, and
//! redb takes no savepoints once tables are open. So the writer aborts the transaction, answers
//! that sender with its error, and re-runs the rest of the batch in a fresh transaction: this is
//! why commands are `FnMut`. A storage error (I/O, full disk) fails the whole batch; nothing of it
//! is committed. A command that panics is refused the same way, so a bug in one rule cannot stop
//! the writer.

use crate::{Error, Result};
use actix::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use storage::{Store, WriteTransaction};
use tokio::sync::oneshot;

/// A command queued in a batch, type-erased so that one writer serves commands of any reply type.
trait PendingCommand: Send {
    /// Runs the command in `txn`, keeping its reply until the commit.
    fn apply(&mut self, txn: &WriteTransaction) -> Result<()>;
    /// Sends the kept reply (after a successful commit).
    fn complete(self: Box<Self>);
    /// Sends `error` instead.
    fn fail(self: Box<Self>, error: Error);
}

struct Command<R, F> {
    run: F,
    reply: Option<R>,
    sender: oneshot::Sender<Result<R>>,
}

impl<R, F> PendingCommand for Command<R, F>
where
    R: Send + 'static,
    F: FnMut(&WriteTransaction) -> Result<R> + Send + 'static,
{
    fn apply(&mut self, txn: &WriteTransaction) -> Result<()> {
        self.reply = Some((self.run)(txn)?);
        Ok(())
    }

    fn complete(self: Box<Self>) {
        let reply = self.reply.ok_or(Error::WriterGone("batch"));
        let _ = self.sender.send(reply);
    }

    fn fail(self: Box<Self>, error: Error) {
        let _ = self.sender.send(Err(error));
    }
}

/// Counters of one writer, for benchmarks and logs.
#[derive(Debug, Default)]
pub struct WriterStats {
    commands: AtomicU64,
    commits: AtomicU64,
}

impl WriterStats {
    /// Commands answered so far (successful or not).
    pub fn commands(&self) -> u64 {
        self.commands.load(Ordering::Relaxed)
    }

    /// Write transactions committed so far.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }
}

/// The actor. Start it with [`WriterHandle::start`].
pub struct Writer {
    name: &'static str,
    store: Store,
    pending: Vec<Box<dyn PendingCommand>>,
    stats: Arc<WriterStats>,
}

impl Actor for Writer {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.set_mailbox_capacity(4096);
    }
}

struct Enqueue(Box<dyn PendingCommand>);

impl Message for Enqueue {
    type Result = ();
}

struct Flush;

impl Message for Flush {
    type Result = ();
}

impl Handler<Enqueue> for Writer {
    type Result = ();

    fn handle(&mut self, msg: Enqueue, ctx: &mut Self::Context) {
        if self.pending.is_empty() {
            ctx.notify(Flush);
        }
        self.pending.push(msg.0);
    }
}

impl Handler<Flush> for Writer {
    type Result = ();

    fn handle(&mut self, _: Flush, _: &mut Self::Context) {
        let batch = std::mem::take(&mut self.pending);
        self.commit(batch);
    }
}

impl Writer {
    fn commit(&mut self, mut batch: Vec<Box<dyn PendingCommand>>) {
        self.stats
            .commands
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        loop {
            let txn = match self.store.begin_write() {
                Ok(txn) => txn,
                Err(e) => return fail_all(batch, &Error::Storage(e)),
            };
            let mut refused = None;
            for (index, command) in batch.iter_mut().enumerate() {
                // A panicking command (a bug) is contained: it is refused like an invalid one, its
                // writes are discarded with the transaction, and the writer goes on.
                let applied =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| command.apply(&txn)))
                        .unwrap_or_else(|_| {
                            tracing::error!(
                                writer = self.name,
                                "a command panicked; it was refused"
                            );
                            Err(Error::Panicked)
                        });
                match applied {
                    Ok(()) => {}
                    Err(e @ Error::Storage(_)) => {
                        let _ = txn.abort();
                        return fail_all(batch, &e);
                    }
                    Err(e) => {
                        refused = Some((index, e));
                        break;
                    }
                }
            }
            match refused {
                Some((index, error)) => {
                    let _ = txn.abort();
                    batch.remove(index).fail(error);
                    if batch.is_empty() {
                        break;
                    }
                }
                None => {
                    match txn.commit() {
                        Ok(()) => {
                            self.stats.commits.fetch_add(1, Ordering::Relaxed);
                            batch.into_iter().for_each(|c| c.complete());
                        }
                        Err(e) => {
                            tracing::error!(writer = self.name, error = %e, "commit failed");
                            fail_all(batch, &Error::Storage(e.into()));
                        }
                    }
                    break;
                }
            }
        }
    }
}

fn fail_all(batch: Vec<Box<dyn PendingCommand>>, error: &Error) {
    tracing::error!(%error, commands = batch.len(), "write batch failed");
    batch.into_iter().for_each(|c| c.fail(error.clone()));
}

/// The address of a running writer; cheap to clone and share between request handlers.
#[derive(Clone)]
pub struct WriterHandle {
    name: &'static str,
    addr: Addr<Writer>,
    stats: Arc<WriterStats>,
}

impl WriterHandle {
    /// Starts a writer named `name` (used in logs and errors) on a new arbiter thread, and returns
    /// its handle and the arbiter (stop and join it at shutdown, after the last sender is done).
    /// Must be called inside a running actix `System`.
    pub fn start(name: &'static str, store: Store) -> (WriterHandle, Arbiter) {
        let owner = Arbiter::new();
        let arbiter = owner.handle();
        let stats = Arc::new(WriterStats::default());
        let actor_stats = stats.clone();
        let addr = Writer::start_in_arbiter(&arbiter, move |_| Writer {
            name,
            store,
            pending: Vec::new(),
            stats: actor_stats,
        });
        let handle = WriterHandle { name, addr, stats };
        (handle, owner)
    }

    /// Runs `command` in the writer's next batch and returns its reply once the batch is durably
    /// committed.
    ///
    /// A refused command's writes are always discarded (see the module doc), so `command` may
    /// run more than once and must have no effect outside the transaction.
    ///
    /// Errors: the command's own error; [`Error::Storage`] when the batch could not be committed;
    /// [`Error::WriterGone`] when the writer has stopped.
    pub async fn run<R, F>(&self, command: F) -> Result<R>
    where
        R: Send + 'static,
        F: FnMut(&WriteTransaction) -> Result<R> + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let command = Command {
            run: command,
            reply: None,
            sender,
        };
        self.addr
            .send(Enqueue(Box::new(command)))
            .await
            .map_err(|_| Error::WriterGone(self.name))?;
        receiver.await.map_err(|_| Error::WriterGone(self.name))?
    }

    /// The writer's counters.
    pub fn stats(&self) -> &WriterStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::TableDefinition;
    use storage::StoreOptions;

    const TEST: TableDefinition<u64, u64> = TableDefinition::new("writer_test");

    fn put(key: u64, refuse: bool) -> impl FnMut(&WriteTransaction) -> Result<u64> {
        move |txn| {
            txn.open_table(TEST)
                .map_err(storage::Error::from)?
                .insert(key, key * 10)
                .map_err(storage::Error::from)?;
            if refuse {
                return Err(Error::field("key", "errors.refused"));
            }
            Ok(key)
        }
    }

    #[actix_rt::test]
    async fn a_refused_command_leaves_nothing_and_its_batch_mates_commit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let (writer, _arbiter) = WriterHandle::start("test", store.clone());
        let (a, b, c) = tokio::join!(
            writer.run(put(1, false)),
            writer.run(put(2, true)),
            writer.run(put(3, false)),
        );
        assert_eq!(a.unwrap(), 1);
        assert!(matches!(b, Err(Error::Validation(_))));
        assert_eq!(c.unwrap(), 3);

        let txn = store.begin_read().unwrap();
        let table = txn.open_table(TEST).unwrap();
        assert_eq!(table.get(1).unwrap().unwrap().value(), 10);
        assert!(table.get(2).unwrap().is_none(), "refused write leaked");
        assert_eq!(table.get(3).unwrap().unwrap().value(), 30);
        assert_eq!(writer.stats().commands(), 3);
        assert!(writer.stats().commits() >= 1 && writer.stats().commits() <= 2);
    }

    #[actix_rt::test]
    async fn a_panicking_command_is_refused_and_the_writer_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let (writer, _arbiter) = WriterHandle::start("test", store.clone());
        let panics = writer.run(|txn| -> Result<u64> {
            put(9, false)(txn)?;
            panic!("a bug in a rule");
        });
        let (panicked, fine) = tokio::join!(panics, writer.run(put(1, false)));
        assert!(matches!(panicked, Err(Error::Panicked)));
        assert_eq!(fine.unwrap(), 1);
        assert_eq!(
            writer.run(put(2, false)).await.unwrap(),
            2,
            "the writer still runs"
        );
        let txn = store.begin_read().unwrap();
        let table = txn.open_table(TEST).unwrap();
        assert!(
            table.get(9).unwrap().is_none(),
            "the panicking command's write was discarded"
        );
        assert!(table.get(1).unwrap().is_some());
    }

    #[actix_rt::test]
    async fn concurrent_commands_share_commits() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let (writer, _arbiter) = WriterHandle::start("test", store);
        let runs = (0..64).map(|k| writer.run(put(k, false)));
        let replies = futures_util::future::join_all(runs).await;
        assert!(replies.iter().all(|r| r.is_ok()));
        assert_eq!(writer.stats().commands(), 64);
        assert!(
            writer.stats().commits() < 64,
            "no group commit: {}",
            writer.stats().commits()
        );
    }
}
