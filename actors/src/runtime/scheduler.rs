//! The scheduler: the actor that runs the timed jobs, the nightly backup
//! ([`crate::backup::nightly`]) and the quotes' expiry ([`crate::quotes::ExpireQuotes`]).

use super::acting::{acting_as, system};
use super::reader::Reader;
use super::writer::Writers;
use crate::backup::nightly::{Backups, ReadPlan};
use crate::quotes::ExpireQuotes;
use actix::{Actor, ActorFutureExt, AsyncContext, Context, WrapFuture};
use jiff::civil::Date;
use std::time::Duration;
use storage::Timestamp;
use storage::records::BackupSchedule;

/// How often the scheduler looks at the clock: every second, so a nightly backup starts within
/// a second of its minute and a clock that is set (a board without a battery-backed clock,
/// set at boot; a daylight saving change) is seen at once. A tick is a clock reading; the
/// schedule is read only on a day whose nightly run has not happened yet.
const TICK: Duration = Duration::from_secs(1);

/// The actor that runs the timed jobs: it looks at the clock every second; on a day without
/// its nightly run yet it reads the backup's plan through the one read path ([`ReadPlan`]) and
/// runs [`Backups::run`] on the blocking pool when one is due (never two at once, once a day
/// by the shop's calendar: a night whose minute is skipped by a daylight saving change runs at
/// the first minute after it, one whose minute comes twice runs once). It expires the quotes
/// whose validity has passed on start and whenever the day turns (in the shop's time zone).
pub struct Scheduler {
    backups: Backups,
    reader: Reader,
    writers: Writers,
    last_day: Option<Date>,
    expired_on: Option<Date>,
}

impl Scheduler {
    /// The scheduler of `backups` (its plan read by `reader`) and of the quotes `writers`
    /// write.
    pub fn new(backups: Backups, reader: Reader, writers: Writers) -> Scheduler {
        Scheduler {
            backups,
            reader,
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
            acting_as(system("scheduler"), async move {
                writers.send(ExpireQuotes { today }).await
            })
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
        let today = self.backups.date_of(now);
        self.expire_quotes(ctx, today);
        if self.last_day == Some(today) {
            return;
        }
        let reader = self.reader.clone();
        ctx.wait(
            async move { reader.query(ReadPlan).await }
                .into_actor(self)
                .map(move |plan, scheduler, ctx| match plan {
                    Err(e) => tracing::warn!(error = %e, "the backup schedule cannot be read"),
                    Ok(plan) if scheduler.backups.due(now, scheduler.last_day, &plan) => {
                        scheduler.last_day = Some(scheduler.backups.date_of(now));
                        scheduler.back_up(ctx, now, plan.schedule);
                    }
                    Ok(_) => {}
                }),
        );
    }

    /// Runs the nightly backup taken `now` by `schedule` on the blocking pool; the scheduler
    /// waits for it.
    fn back_up(&mut self, ctx: &mut Context<Self>, now: Timestamp, schedule: BackupSchedule) {
        let backups = self.backups.clone();
        ctx.wait(
            async move { tokio::task::spawn_blocking(move || backups.run(now, &schedule)).await }
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

impl Actor for Scheduler {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let reader = self.reader.clone();
        ctx.wait(
            async move { reader.query(ReadPlan).await }
                .into_actor(self)
                .map(|plan, scheduler, _| {
                    let schedule = plan.map(|p| p.schedule).unwrap_or_default();
                    scheduler.last_day = scheduler
                        .backups
                        .first_last_day(Timestamp::now(), &schedule);
                }),
        );
        self.expire_quotes(ctx, self.backups.date_of(Timestamp::now()));
        ctx.run_interval(TICK, Self::tick);
    }
}
