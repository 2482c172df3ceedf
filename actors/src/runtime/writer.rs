//! The writer actor: one per aggregate, the only code that commits to the store.
//!
//! Each writer runs on its own [`Arbiter`] thread and takes the named commands addressed to its
//! aggregate ([`crate::command::Command`]). Commands arriving together form a batch:
//! the first command of a batch schedules a flush with `ctx.notify`, which runs after the mailbox
//! messages already taken in that poll; the flush applies the whole batch in one write
//! transaction, commits it durably (`Durability::Immediate`), and only then answers every sender
//! (group commit). So an acknowledged write is on disk, and commits per command fall as
//! concurrency rises.
//!
//! A command that fails with a domain error must not leave its partial writes in the batch, and
//! redb takes no savepoints once tables are open. So the writer aborts the transaction, answers
//! that sender with its error, and re-runs the rest of the batch in a fresh transaction: this is
//! why a command may be applied more than once. A storage error (I/O, full disk) fails the whole batch; nothing of it
//! is committed. A command that panics is refused the same way, so a bug in one rule cannot stop
//! the writer.
//!
//! One fan-out after the commit: what a batch changed (its [`Txn`] log, [`Committed`]) is told
//! to every [`Subscriber`] before any sender is answered: the print projection first
//! ([`PrintIndex`], so a sender that reads the list right after its answer sees its own write),
//! then the subscribers added with [`Writers::subscribe`] (the meters' recorder keeps readings
//! when a print's run starts or ends). So what follows from a command happens on every route
//! that commits it, and no caller has to tell an actor what a command did. A panic in a
//! subscriber (a bug, or a record no rule expected) does not undo the commit: it is logged, the
//! projection reads itself again from the store ([`PrintIndex::upsert`]), and the senders are
//! told their write is done, which it is (answering an error would make a client retry, and
//! duplicate, a stored write).

use crate::command::{
    Aggregate, Command, InventoryWriter, LedgerWriter, PrintsWriter, Route, SeriesWriter,
    SettingsWriter,
};
use crate::metrics::metrics;
use crate::projection::PrintIndex;
use crate::runtime::acting;
use crate::txn::Txn;
use crate::{Error, Result};
use actix::prelude::*;
use jiff::tz::TimeZone;
use prometheus::IntGauge;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use storage::Store;
use storage::journal::Who;
use storage::records::Print;
use tokio::sync::oneshot;

/// What one committed batch changed, as its subscribers are told.
#[derive(Debug, Clone, Copy)]
pub struct Committed<'a> {
    /// The prints the batch wrote, each as it was (`None` when new) and as it is, in write
    /// order.
    pub prints: &'a [(Option<Print>, Print)],
}

/// Told what each commit changed, on the writer's thread, after the commit and before any
/// sender is answered: keep it short (derived state, or a note to an actor).
pub trait Subscriber: Send + Sync {
    /// Takes what a committed batch changed.
    fn committed(&self, changes: Committed<'_>);
}

/// The print projection as the first subscriber: every print a batch wrote goes into it.
struct Projection(Arc<PrintIndex>);

impl Subscriber for Projection {
    fn committed(&self, changes: Committed<'_>) {
        changes
            .prints
            .iter()
            .for_each(|(old, print)| self.0.upsert(old.as_ref(), print));
    }
}

/// The subscribers of the writers' commits, in the order they are told; shared by every writer,
/// so one added later hears every writer.
#[derive(Clone)]
struct Subscribers(Arc<RwLock<Vec<Arc<dyn Subscriber>>>>, Arc<PrintIndex>);

impl Subscribers {
    fn of(index: Arc<PrintIndex>) -> Subscribers {
        let projection: Arc<dyn Subscriber> = Arc::new(Projection(index.clone()));
        Subscribers(Arc::new(RwLock::new(vec![projection])), index)
    }

    /// The shop's time zone (the projection's), for the journal's entries.
    fn time_zone(&self) -> TimeZone {
        self.1.time_zone().clone()
    }

    /// Tells each subscriber `changes`; a panicking one is logged and the others are told.
    fn tell(&self, writer: &str, changes: Committed<'_>) {
        let subscribers = self.0.read().unwrap_or_else(|p| p.into_inner()).clone();
        for subscriber in subscribers {
            if catch_unwind(AssertUnwindSafe(|| subscriber.committed(changes))).is_err() {
                tracing::error!(writer, "a subscriber of the commit panicked");
            }
        }
    }
}

/// A command queued in a batch, type-erased so that one writer serves commands of any reply type.
trait PendingCommand: Send {
    /// Runs the command in `txn` and appends its journal entry, keeping its reply until the
    /// commit.
    fn apply(&mut self, txn: &Txn, time_zone: &TimeZone) -> Result<()>;
    /// Sends the kept reply (after a successful commit).
    fn complete(self: Box<Self>);
    /// Sends `error` instead.
    fn fail(self: Box<Self>, error: Error);
}

struct Pending<C: Command> {
    command: C,
    /// Who sent it ([`acting::current`] when it was sent).
    who: Who,
    reply: Option<C::Reply>,
    sender: oneshot::Sender<Result<C::Reply>>,
}

impl<C: Command> PendingCommand for Pending<C> {
    fn apply(&mut self, txn: &Txn, time_zone: &TimeZone) -> Result<()> {
        let reply = self.command.apply(txn)?;
        txn.journal(&self.who, &command_name::<C>(), time_zone);
        self.reply = Some(reply);
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

/// A command's name for the journal: its type's name without module paths
/// (`BookMovement`, `CreateRecord<Customer>`).
pub fn command_name<C>() -> String {
    let full = std::any::type_name::<C>();
    let mut name = String::with_capacity(full.len());
    let mut segment = String::new();
    for c in full.chars() {
        match c {
            ':' => segment.clear(),
            '<' | '>' | ',' | ' ' => {
                name.push_str(&segment);
                segment.clear();
                name.push(c);
            }
            c => segment.push(c),
        }
    }
    name.push_str(&segment);
    name
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
    subscribers: Subscribers,
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
        // Commands' panics are caught one by one in `commit`, and the projection catches its
        // own; this catches the rest, so that the actor (and its mailbox) always survives. The
        // senders it had not answered yet are dropped: they get `WriterGone`.
        if catch_unwind(AssertUnwindSafe(|| self.commit(batch))).is_err() {
            tracing::error!(
                writer = self.name,
                "a write batch panicked outside its commands"
            );
        }
    }
}

impl Writer {
    fn commit(&mut self, mut batch: Vec<Box<dyn PendingCommand>>) {
        self.stats
            .commands
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        let time_zone = self.subscribers.time_zone();
        loop {
            let started = std::time::Instant::now();
            let txn = match self.store.begin_recorded() {
                Ok(txn) => Txn::new(txn),
                Err(e) => return fail_all(batch, &Error::Storage(e)),
            };
            let mut refused = None;
            for (index, command) in batch.iter_mut().enumerate() {
                // A panicking command (a bug) is contained: it is refused like an invalid one, its
                // writes are discarded with the transaction, and the writer goes on.
                let applied = catch_unwind(AssertUnwindSafe(|| command.apply(&txn, &time_zone)))
                    .unwrap_or_else(|_| {
                        tracing::error!(writer = self.name, "a command panicked; it was refused");
                        Err(Error::Panicked)
                    });
                match applied {
                    Ok(()) => {}
                    Err(e @ Error::Storage(_)) => {
                        txn.abort();
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
                    txn.abort();
                    batch.remove(index).fail(error);
                    if batch.is_empty() {
                        break;
                    }
                }
                None => {
                    match txn.commit() {
                        Ok(prints) => {
                            self.stats.commits.fetch_add(1, Ordering::Relaxed);
                            metrics()
                                .writer_commit
                                .with_label_values(&[self.name])
                                .observe(started.elapsed().as_secs_f64());
                            // Subscribers first, so a sender that reads the list right after
                            // its answer sees its own write.
                            let changes = Committed { prints: &prints };
                            self.subscribers.tell(self.name, changes);
                            batch.into_iter().for_each(|c| c.complete());
                        }
                        Err(e) => {
                            tracing::error!(writer = self.name, error = %e, "commit failed");
                            fail_all(batch, &Error::Storage(e));
                        }
                    }
                    break;
                }
            }
        }
    }
}

/// A command counted in its writer's queue depth (`printcost_writer_queue_depth`) until
/// dropped: answered, or abandoned by its sender.
struct Queued(IntGauge);

impl Queued {
    fn new(writer: &str) -> Queued {
        let depth = metrics().writer_queue.with_label_values(&[writer]);
        depth.inc();
        Queued(depth)
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// Applies `command` alone and commits it durably, without a writer: for the command-line tools
/// that run on the box while the service is stopped (so no writer and no print projection are
/// running; the projection is loaded from the store when the service starts). Its journal entry
/// names the command line (`{"system": "cli"}`) and the shop's time in `time_zone`.
///
/// Errors: the command's own error (nothing is committed); [`Error::Storage`].
pub fn apply_offline<C: Command>(
    store: &Store,
    time_zone: &TimeZone,
    mut command: C,
) -> Result<C::Reply> {
    let txn = Txn::new(store.begin_recorded()?);
    let applied = command.apply(&txn).inspect(|_| {
        txn.journal(&acting::system("cli"), &command_name::<C>(), time_zone);
    });
    match applied {
        Ok(reply) => {
            txn.commit()?;
            Ok(reply)
        }
        Err(e) => {
            txn.abort();
            Err(e)
        }
    }
}

fn fail_all(batch: Vec<Box<dyn PendingCommand>>, error: &Error) {
    tracing::error!(%error, commands = batch.len(), "write batch failed");
    batch.into_iter().for_each(|c| c.fail(error.clone()));
}

/// The address of a running writer of aggregate `W` (a marker of [`crate::command`]); cheap to
/// clone and share between request handlers. It takes only commands addressed to `W`.
pub struct WriterHandle<W> {
    name: &'static str,
    addr: Addr<Writer>,
    stats: Arc<WriterStats>,
    writer: PhantomData<fn() -> W>,
}

impl<W> Clone for WriterHandle<W> {
    fn clone(&self) -> Self {
        WriterHandle {
            name: self.name,
            addr: self.addr.clone(),
            stats: self.stats.clone(),
            writer: PhantomData,
        }
    }
}

impl<W: 'static> WriterHandle<W> {
    /// Starts a writer named `name` (used in logs and errors) on a new arbiter thread, and returns
    /// its handle and the arbiter (stop and join it at shutdown, after the last sender is done).
    /// After every commit it applies the prints the batch changed to `index`.
    /// Must be called inside a running actix `System`.
    pub fn start(
        name: &'static str,
        store: Store,
        index: Arc<PrintIndex>,
    ) -> (WriterHandle<W>, Arbiter) {
        Self::start_telling(name, store, Subscribers::of(index))
    }

    fn start_telling(
        name: &'static str,
        store: Store,
        subscribers: Subscribers,
    ) -> (WriterHandle<W>, Arbiter) {
        let owner = Arbiter::new();
        let arbiter = owner.handle();
        let stats = Arc::new(WriterStats::default());
        let actor_stats = stats.clone();
        let addr = Writer::start_in_arbiter(&arbiter, move |_| Writer {
            name,
            store,
            subscribers,
            pending: Vec::new(),
            stats: actor_stats,
        });
        let handle = WriterHandle {
            name,
            addr,
            stats,
            writer: PhantomData,
        };
        (handle, owner)
    }

    /// Applies `command` in the writer's next batch and returns its reply once the batch is
    /// durably committed (and the print projection has taken its changes).
    ///
    /// Errors: the command's own error; [`Error::Storage`] when the batch could not be committed;
    /// [`Error::WriterGone`] when the writer has stopped.
    pub async fn send<C: Command<Writer = W>>(&self, command: C) -> Result<C::Reply> {
        self.send_any(command).await
    }

    /// [`WriterHandle::send`] for a command [`Writers::send`] routed here by its marker.
    async fn send_any<C: Command>(&self, command: C) -> Result<C::Reply> {
        let _queued = Queued::new(self.name);
        let (sender, receiver) = oneshot::channel();
        let pending = Pending {
            command,
            who: acting::current(),
            reply: None,
            sender,
        };
        // Queued without a reply of its own: `send` would wake this task once more when the
        // writer takes the message, a cross-thread wake-up per command for nothing. A full
        // mailbox (this sender is parked) waits for room as `send` does.
        match self.addr.try_send(Enqueue(Box::new(pending))) {
            Ok(()) => {}
            Err(SendError::Full(enqueue)) => self
                .addr
                .send(enqueue)
                .await
                .map_err(|_| Error::WriterGone(self.name))?,
            Err(SendError::Closed(_)) => return Err(Error::WriterGone(self.name)),
        }
        receiver.await.map_err(|_| Error::WriterGone(self.name))?
    }

    /// The writer's counters.
    pub fn stats(&self) -> &WriterStats {
        &self.stats
    }
}

/// The five writers of the appliance. [`Writers::send`] routes a command to the writer it names.
#[derive(Clone)]
pub struct Writers {
    /// Settings, feature flags, accounts, sessions.
    pub settings: WriterHandle<SettingsWriter>,
    /// Inventory records.
    pub inventory: WriterHandle<InventoryWriter>,
    /// Prints.
    pub prints: WriterHandle<PrintsWriter>,
    /// Print series.
    pub series: WriterHandle<SeriesWriter>,
    /// Spools and their ledger.
    pub ledger: WriterHandle<LedgerWriter>,
    subscribers: Subscribers,
}

impl Writers {
    /// Starts the five writers over `store`, each on its own arbiter thread, all keeping `index`
    /// current. Returns them and their arbiters (stop and join those at shutdown). Must be called
    /// inside a running actix `System`.
    pub fn start(store: &Store, index: &Arc<PrintIndex>) -> (Writers, Vec<Arbiter>) {
        let subscribers = Subscribers::of(index.clone());
        let start = |name| (name, store.clone(), subscribers.clone());
        let (settings, a) = start_as(start("settings"));
        let (inventory, b) = start_as(start("inventory"));
        let (prints, c) = start_as(start("prints"));
        let (series, d) = start_as(start("series"));
        let (ledger, e) = start_as(start("ledger"));
        let writers = Writers {
            settings,
            inventory,
            prints,
            series,
            ledger,
            subscribers,
        };
        (writers, vec![a, b, c, d, e])
    }

    /// Adds `subscriber` to what every writer tells after each commit, after the print
    /// projection and the subscribers added before it.
    pub fn subscribe(&self, subscriber: Arc<dyn Subscriber>) {
        self.subscribers
            .0
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .push(subscriber);
    }

    /// Sends `command` to the writer it names ([`Command::Writer`]); see [`WriterHandle::send`].
    ///
    /// Errors: as [`WriterHandle::send`].
    pub async fn send<C>(&self, command: C) -> Result<C::Reply>
    where
        C: Command,
        C::Writer: Route,
    {
        match C::Writer::WRITER {
            Aggregate::Settings => self.settings.send_any(command).await,
            Aggregate::Inventory => self.inventory.send_any(command).await,
            Aggregate::Prints => self.prints.send_any(command).await,
            Aggregate::Series => self.series.send_any(command).await,
            Aggregate::Ledger => self.ledger.send_any(command).await,
        }
    }
}

fn start_as<W: 'static>(
    (name, store, subscribers): (&'static str, Store, Subscribers),
) -> (WriterHandle<W>, Arbiter) {
    WriterHandle::start_telling(name, store, subscribers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::TableDefinition;
    use std::time::Duration;
    use storage::StoreOptions;

    const TEST: TableDefinition<u64, u64> = TableDefinition::new("writer_test");

    /// Writes `key → key × 10`, then refuses or panics when told to.
    struct Put {
        key: u64,
        refuse: bool,
        panic: bool,
    }

    fn put(key: u64, refuse: bool) -> Put {
        Put {
            key,
            refuse,
            panic: false,
        }
    }

    impl Command for Put {
        type Writer = LedgerWriter;
        type Reply = u64;

        fn apply(&mut self, txn: &Txn) -> Result<u64> {
            txn.open_table(TEST)
                .map_err(storage::Error::from)?
                .insert(self.key, self.key * 10)
                .map_err(storage::Error::from)?;
            if self.refuse {
                return Err(Error::field("key", "errors.refused"));
            }
            assert!(!self.panic, "a bug in a rule");
            Ok(self.key)
        }
    }

    fn start(dir: &tempfile::TempDir) -> (Store, WriterHandle<LedgerWriter>, Arbiter) {
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let index = Arc::new(PrintIndex::load(&store, jiff::tz::TimeZone::UTC).unwrap());
        let (writer, arbiter) = WriterHandle::start("test", store.clone(), index);
        (store, writer, arbiter)
    }

    #[actix_rt::test]
    async fn a_refused_command_leaves_nothing_and_its_batch_mates_commit() {
        let dir = tempfile::tempdir().unwrap();
        let (store, writer, _arbiter) = start(&dir);
        let (a, b, c) = tokio::join!(
            writer.send(put(1, false)),
            writer.send(put(2, true)),
            writer.send(put(3, false)),
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
        let (store, writer, _arbiter) = start(&dir);
        let panics = writer.send(Put {
            key: 9,
            refuse: false,
            panic: true,
        });
        let (panicked, fine) = tokio::join!(panics, writer.send(put(1, false)));
        assert!(matches!(panicked, Err(Error::Panicked)));
        assert_eq!(fine.unwrap(), 1);
        assert_eq!(
            writer.send(put(2, false)).await.unwrap(),
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

    /// Holds the writer in its batch until the test lets it go: says when it is in.
    struct Gate {
        entered: std::sync::mpsc::Sender<()>,
        open: std::sync::mpsc::Receiver<()>,
    }

    impl Command for Gate {
        type Writer = LedgerWriter;
        type Reply = ();

        fn apply(&mut self, _: &Txn) -> Result<()> {
            let _ = self.entered.send(());
            let _ = self.open.recv();
            Ok(())
        }
    }

    #[actix_rt::test]
    async fn senders_beyond_a_full_mailbox_wait_for_room_and_are_all_answered() {
        let dir = tempfile::tempdir().unwrap();
        let (_store, writer, _arbiter) = start(&dir);
        let (entered, inside) = std::sync::mpsc::channel();
        let (open, gate) = std::sync::mpsc::channel();
        let held = actix_rt::spawn({
            let writer = writer.clone();
            async move {
                let gate = Gate {
                    entered,
                    open: gate,
                };
                writer.send(gate).await
            }
        });
        while inside.try_recv().is_err() {
            actix_rt::time::sleep(Duration::from_millis(1)).await;
        }
        // The writer is held while more commands are queued than its mailbox takes (4,096).
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let _ = open.send(());
        });
        let runs = (0..5_000).map(|k| writer.send(put(k, false)));
        let replies = futures_util::future::join_all(runs).await;
        for (k, reply) in replies.into_iter().enumerate() {
            assert_eq!(reply.unwrap(), k as u64);
        }
        held.await.unwrap().unwrap();
        assert_eq!(writer.stats().commands(), 5_001);
    }

    #[actix_rt::test]
    async fn concurrent_commands_share_commits() {
        let dir = tempfile::tempdir().unwrap();
        let (_store, writer, _arbiter) = start(&dir);
        let runs = (0..64).map(|k| writer.send(put(k, false)));
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
