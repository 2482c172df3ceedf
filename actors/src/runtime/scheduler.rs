//! The scheduler: the actor that runs the timed jobs, the nightly backup
//! ([`crate::backup::nightly`]) and the quotes' expiry ([`crate::quotes::ExpireQuotes`]).

use super::writer::Writers;
use crate::backup::nightly::Backups;
use crate::quotes::ExpireQuotes;
use actix::{Actor, ActorFutureExt, AsyncContext, Context, WrapFuture};
use jiff::civil::Date;
use std::time::Duration;
use storage::Timestamp;

/// How often the scheduler looks at the clock.
const TICK: Duration = Duration::from_secs(30);

/// The actor that runs the timed jobs: it looks at the clock every 30 s, runs [`Backups::run`]
/// on the blocking pool when one is due (never two at once), and expires the quotes whose
/// validity has passed on start and whenever the day turns (in the shop's time zone).
pub struct Scheduler {
    backups: Backups,
    writers: Writers,
    last_day: Option<Date>,
    expired_on: Option<Date>,
}

impl Scheduler {
    /// The scheduler of `backups` and of the quotes `writers` write.
    pub fn new(backups: Backups, writers: Writers) -> Scheduler {
        Scheduler {
            backups,
            writers,
            last_day: None,
            expired_on: None,
        }
    }

    /// Sends [`ExpireQuotes`] once a day (a failed run is tried again at the next tick).
    fn expire_quotes(&mut self, ctx: &mut Context<Self>, today: Date) {
        if self.expired_on == Some(today) {
            return;
        }
        self.expired_on = Some(today);
        let writers = self.writers.clone();
        ctx.spawn(
            async move { writers.send(ExpireQuotes { today }).await }
                .into_actor(self)
                .map(|sent, scheduler, _| match sent {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(quotes = n, "quotes past their validity expired"),
                    Err(e) => {
                        scheduler.expired_on = None;
                        tracing::warn!(error = %e, "quotes not expired");
                    }
                }),
        );
    }

    fn tick(&mut self, ctx: &mut Context<Self>) {
        let now = Timestamp::now();
        self.expire_quotes(ctx, self.backups.date_of(now));
        match self.backups.due(now, self.last_day) {
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "the backup schedule cannot be read"),
            Ok(true) => {
                self.last_day = Some(self.backups.date_of(now));
                let backups = self.backups.clone();
                ctx.wait(
                    async move { tokio::task::spawn_blocking(move || backups.run(now)).await }
                        .into_actor(self)
                        .map(|ran, _, _| match ran {
                            Ok(Ok(run)) => tracing::info!(
                                file = %run.file.name,
                                bytes = run.file.bytes,
                                entries = run.entries,
                                removed = run.removed.len(),
                                "nightly backup written and checked"
                            ),
                            Ok(Err(e)) => tracing::error!(error = %e, "nightly backup failed"),
                            Err(e) => tracing::error!(error = %e, "nightly backup panicked"),
                        }),
                );
            }
        }
    }
}

impl Actor for Scheduler {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        self.last_day = self.backups.first_last_day(Timestamp::now());
        self.expire_quotes(ctx, self.backups.date_of(Timestamp::now()));
        ctx.run_interval(TICK, Self::tick);
    }
}
