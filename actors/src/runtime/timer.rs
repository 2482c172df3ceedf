//! The integrations' background actor: the spool manager's and the printer fleet's rounds on
//! one timer (`--spoolmgr-interval`, 60 s by default).

use super::acting::{acting_as, system};
use super::printfleet::Printfleet;
use super::spoolmgr::Spoolmgr;
use crate::integrations::operations::RecoverSending;
use actix::{Actor, ActorFutureExt, AsyncContext, Context, WrapFuture};
use std::time::Duration;

/// The background actor: on start it marks operations left `SENDING` `UNKNOWN`, then runs a
/// [`Spoolmgr::round`] and a [`Printfleet::round`] every `interval` (rounds never overlap; the
/// next starts `interval` after the previous one ended).
pub struct Timer {
    spoolmgr: Spoolmgr,
    printfleet: Printfleet,
    interval: Duration,
}

impl Timer {
    /// A timer of both integrations' rounds every `interval`.
    pub fn new(spoolmgr: Spoolmgr, printfleet: Printfleet, interval: Duration) -> Timer {
        Timer {
            spoolmgr,
            printfleet,
            interval,
        }
    }

    fn schedule(&self, ctx: &mut Context<Self>) {
        ctx.run_later(self.interval, |timer, ctx| {
            let (spoolmgr, printfleet) = (timer.spoolmgr.clone(), timer.printfleet.clone());
            ctx.wait(
                async move {
                    acting_as(system("spoolman"), spoolmgr.round()).await;
                    acting_as(system("bambuddy"), printfleet.round()).await;
                }
                .into_actor(timer)
                .map(|(), timer, ctx| timer.schedule(ctx)),
            );
        });
    }
}

impl Actor for Timer {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let writers = self.spoolmgr.writers();
        ctx.wait(
            async move {
                let recover = writers.send(RecoverSending);
                match acting_as(system("spoolman"), recover).await {
                    Ok(0) => {}
                    Ok(n) => tracing::warn!(
                        operations = n,
                        "operations interrupted mid-send are UNKNOWN"
                    ),
                    Err(e) => tracing::error!(error = %e, "interrupted operations not recovered"),
                }
            }
            .into_actor(self),
        );
        self.schedule(ctx);
    }
}
