//! When an exploration must stop early: the user's interrupt (Ctrl-C,
//! SIGTERM, SIGHUP) or the `--max-time` deadline.
//!
//! A [`Cancel`] is shared by everything that can take long: the executor
//! waits for an execution in slices of at most [`POLL_SLICE`] and kills it
//! when cancelled, and the analyses look at it every few thousand events, so
//! a limit holds within a fraction of a second whatever the program under
//! test or the analysis does.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest wait between two looks at a [`Cancel`].
pub const POLL_SLICE: Duration = Duration::from_millis(50);

/// Why a [`Cancel`] fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cancelled {
    /// The user interrupted the exploration.
    Interrupted,
    /// The wall-clock limit of the exploration passed.
    TimeLimit,
}

/// A cheap, cloneable "stop now" condition.
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    interrupt: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Cancel {
    /// Fires when `interrupt` is set or at `deadline`.
    pub fn new(interrupt: Arc<AtomicBool>, deadline: Option<Instant>) -> Cancel {
        Cancel {
            interrupt,
            deadline,
        }
    }

    /// A condition that never fires.
    pub fn never() -> Cancel {
        Cancel::default()
    }

    /// Why the work must stop now, if it must.
    pub fn reason(&self) -> Option<Cancelled> {
        if self.interrupt.load(Ordering::Relaxed) {
            Some(Cancelled::Interrupted)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Cancelled::TimeLimit)
        } else {
            None
        }
    }

    /// True if the work must stop now.
    pub fn is_set(&self) -> bool {
        self.reason().is_some()
    }

    /// The end of the next wait that ends at `until` at the latest: at most
    /// [`POLL_SLICE`] from now, so that the waiter looks at this condition
    /// again soon.
    pub fn slice_until(&self, until: Instant) -> Instant {
        until.min(Instant::now() + POLL_SLICE)
    }
}

/// Looks at a [`Cancel`] once every `EVERY` calls of [`Checkpoint::stop`]:
/// for loops over events, where reading the clock at each step would cost
/// more than the step.
pub struct Checkpoint<'a> {
    cancel: &'a Cancel,
    count: u32,
}

impl<'a> Checkpoint<'a> {
    /// Calls between two looks at the condition.
    pub const EVERY: u32 = 4096;

    /// A checkpoint on `cancel`.
    pub fn new(cancel: &'a Cancel) -> Checkpoint<'a> {
        Checkpoint { cancel, count: 0 }
    }

    /// True if the loop must stop (looked up every [`Checkpoint::EVERY`] calls).
    pub fn stop(&mut self) -> bool {
        self.count += 1;
        if self.count < Self::EVERY {
            return false;
        }
        self.count = 0;
        self.cancel.is_set()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_on_interrupt_and_on_deadline() {
        let flag = Arc::new(AtomicBool::new(false));
        let cancel = Cancel::new(flag.clone(), None);
        assert_eq!(cancel.reason(), None);
        flag.store(true, Ordering::Relaxed);
        assert_eq!(cancel.reason(), Some(Cancelled::Interrupted));
        let past = Cancel::new(Arc::default(), Some(Instant::now()));
        assert_eq!(past.reason(), Some(Cancelled::TimeLimit));
        assert!(!Cancel::never().is_set());
    }

    #[test]
    fn checkpoint_looks_every_few_thousand_calls() {
        let past = Cancel::new(Arc::default(), Some(Instant::now()));
        let mut checkpoint = Checkpoint::new(&past);
        let first_stop = (1..=Checkpoint::EVERY).find(|_| checkpoint.stop());
        assert_eq!(first_stop, Some(Checkpoint::EVERY));
    }

    #[test]
    fn slices_are_short() {
        let far = Instant::now() + Duration::from_secs(60);
        assert!(Cancel::never().slice_until(far) <= Instant::now() + POLL_SLICE);
    }
}
