//! The backup scheduler: the actor that runs the nightly backup ([`crate::backup::nightly`]).

use crate::backup::nightly::Backups;
use actix::{Actor, ActorFutureExt, AsyncContext, Context, WrapFuture};
use jiff::civil::Date;
use std::time::Duration;
use storage::Timestamp;

/// How often the scheduler looks at the clock.
const TICK: Duration = Duration::from_secs(30);

/// The actor that runs the nightly backup: it looks at the clock every 30 s and runs
/// [`Backups::run`] on the blocking pool when one is due (never two at once).
pub struct Scheduler {
    backups: Backups,
    last_day: Option<Date>,
}

impl Scheduler {
    /// The scheduler of `backups`.
    pub fn new(backups: Backups) -> Scheduler {
        Scheduler {
            backups,
            last_day: None,
        }
    }

    fn tick(&mut self, ctx: &mut Context<Self>) {
        let now = Timestamp::now();
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
        ctx.run_interval(TICK, Self::tick);
    }
}
