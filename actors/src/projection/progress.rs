//! How far the print projection's load has come, for the log and the health answer.
//!
//! The load reads every print's summary, or, on the first start after an upgrade that changed
//! what a summary holds, rebuilds them from the prints (about 8 s for a million prints on a
//! desktop, far longer on a Pi: `benches/README.md`). Meanwhile the service answers, lists and the
//! dashboard wait, and this says what they wait for: health answers the step and the prints done
//! of the total, and a rebuild logs a line at its start and at every tenth of the way.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

/// What the load is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadStep {
    /// Reading the stored print summaries (every start).
    ReadingSummaries,
    /// Rebuilding the print summaries from the prints (once, after an upgrade that changed
    /// them, or when they are missing).
    RebuildingSummaries,
}

/// The load as it stands: its step, the prints done and the prints in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loading {
    /// What it is doing.
    pub step: LoadStep,
    /// Prints done so far.
    pub done: u64,
    /// Prints in the store when the load began.
    pub total: u64,
}

/// A rebuild of fewer prints than this logs no tenths (it takes well under a second).
const LOG_TENTHS_FROM: u64 = 10_000;

/// The counters, moved by the loading thread and read by any.
#[derive(Debug, Default)]
pub struct Progress {
    active: AtomicBool,
    rebuilding: AtomicBool,
    done: AtomicU64,
    total: AtomicU64,
    /// The last tenth logged.
    tenth: AtomicU8,
}

impl Progress {
    /// A load of `total` prints begins with `step`.
    pub fn start(&self, step: LoadStep, total: u64) {
        let rebuilding = step == LoadStep::RebuildingSummaries;
        self.rebuilding.store(rebuilding, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        self.tenth.store(0, Ordering::Relaxed);
        self.active.store(true, Ordering::Release);
        if rebuilding {
            tracing::info!(
                prints = total,
                "rebuilding the print summaries from the prints (once, after an upgrade); lists and the dashboard wait for it"
            );
        }
    }

    /// One more print done; a rebuild logs each tenth of the way once.
    pub fn advance(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.rebuilding.load(Ordering::Relaxed) {
            return;
        }
        let total = self.total.load(Ordering::Relaxed);
        let Some(tenth) = tenth_reached(done, total) else {
            return;
        };
        if self.tenth.fetch_max(tenth, Ordering::Relaxed) < tenth {
            tracing::info!(
                done,
                total,
                "rebuilding the print summaries: {}% done",
                u32::from(tenth) * 10
            );
        }
    }

    /// The load ended (done, failed or panicked).
    pub fn finish(&self) {
        self.active.store(false, Ordering::Release);
    }

    /// The load while it runs; `None` when none runs.
    pub fn snapshot(&self) -> Option<Loading> {
        if !self.active.load(Ordering::Acquire) {
            return None;
        }
        Some(self.counts())
    }

    /// The step and counts of the current or last load.
    pub fn counts(&self) -> Loading {
        let step = if self.rebuilding.load(Ordering::Relaxed) {
            LoadStep::RebuildingSummaries
        } else {
            LoadStep::ReadingSummaries
        };
        Loading {
            step,
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
        }
    }
}

/// The whole tenths (1–10) `done` of `total` prints reach, when the load is long enough to log
/// them (`None` below [`LOG_TENTHS_FROM`] prints, or before the first tenth).
fn tenth_reached(done: u64, total: u64) -> Option<u8> {
    if total < LOG_TENTHS_FROM {
        return None;
    }
    let tenths = u128::from(done.min(total)) * 10 / u128::from(total);
    u8::try_from(tenths).ok().filter(|&t| t > 0)
}

#[cfg(test)]
mod tests {
    use super::{LoadStep, Loading, Progress, tenth_reached};

    #[test]
    fn a_rebuild_reports_its_step_and_counts_until_it_ends() {
        let progress = Progress::default();
        assert_eq!(progress.snapshot(), None, "no load yet");
        progress.start(LoadStep::RebuildingSummaries, 3);
        progress.advance();
        progress.advance();
        assert_eq!(
            progress.snapshot(),
            Some(Loading {
                step: LoadStep::RebuildingSummaries,
                done: 2,
                total: 3
            })
        );
        progress.advance();
        progress.finish();
        assert_eq!(progress.snapshot(), None, "ended");
        assert_eq!(progress.counts().done, 3, "the last load's counts stay");
        progress.start(LoadStep::ReadingSummaries, 5);
        assert_eq!(
            progress.snapshot().map(|l| (l.step, l.done)),
            Some((LoadStep::ReadingSummaries, 0)),
            "a new load starts from nothing"
        );
    }

    #[test]
    fn tenths_are_logged_only_for_long_rebuilds() {
        assert_eq!(tenth_reached(500, 1_000), None, "short");
        assert_eq!(
            tenth_reached(99_999, 1_000_000),
            None,
            "before the first tenth"
        );
        assert_eq!(tenth_reached(100_000, 1_000_000), Some(1));
        assert_eq!(tenth_reached(999_999, 1_000_000), Some(9));
        assert_eq!(tenth_reached(1_000_000, 1_000_000), Some(10));
        assert_eq!(
            tenth_reached(2_000_000, 1_000_000),
            Some(10),
            "more than counted"
        );
        assert_eq!(
            tenth_reached(u64::MAX, u64::MAX),
            Some(10),
            "never overflows"
        );
    }
}
