//! A spin lock behind `lock_api`'s mutex, a tally it guards, and a
//! process-wide log in a `once_cell` `Lazy`: a crate with crates.io
//! dependencies whose `#[test]`s `cargo reach test` explores.

use once_cell::sync::Lazy;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A test-and-test-and-set spin lock, the raw lock of [`SpinMutex`].
pub struct RawSpinLock(AtomicBool);

// SAFETY: `lock` returns only once the flag went from false to true in
// this thread's swap, and `unlock` clears it: one holder at a time.
unsafe impl lock_api::RawMutex for RawSpinLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: RawSpinLock = RawSpinLock(AtomicBool::new(false));
    type GuardMarker = lock_api::GuardSend;

    fn lock(&self) {
        while self.0.swap(true, Ordering::Acquire) {
            while self.0.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        }
    }

    fn try_lock(&self) -> bool {
        !self.0.swap(true, Ordering::Acquire)
    }

    unsafe fn unlock(&self) {
        self.0.store(false, Ordering::Release);
    }
}

/// A mutex that spins.
pub type SpinMutex<T> = lock_api::Mutex<RawSpinLock, T>;

/// A count behind a [`SpinMutex`].
#[derive(Default)]
pub struct Tally(SpinMutex<u32>);

impl Tally {
    /// Adds one in a single critical section.
    pub fn add(&self) {
        *self.0.lock() += 1;
    }

    /// Adds one in two critical sections: an update can be lost between
    /// them.
    pub fn add_in_two_steps(&self) {
        let seen = *self.0.lock();
        *self.0.lock() = seen + 1;
    }

    /// The count.
    pub fn get(&self) -> u32 {
        *self.0.lock()
    }
}

/// Lines logged by any thread, created on first use.
pub static LOG: Lazy<Mutex<Vec<&'static str>>> = Lazy::new(|| Mutex::new(Vec::new()));

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::thread;

    /// Two threads add one each in a single critical section: always 2.
    #[test]
    fn tally_keeps_every_add() {
        let tally = Tally::default();
        thread::scope(|s| {
            s.spawn(|| tally.add());
            s.spawn(|| tally.add());
        });
        assert_eq!(tally.get(), 2);
    }

    /// Two threads add one each in two critical sections: an add can be
    /// lost.
    #[test]
    fn tally_in_two_steps_loses_an_add() {
        let tally = Tally::default();
        thread::scope(|s| {
            s.spawn(|| tally.add_in_two_steps());
            s.spawn(|| tally.add_in_two_steps());
        });
        assert_eq!(tally.get(), 2, "an add was lost");
    }

    /// A worker logs and answers over a channel.
    #[test]
    fn log_then_channel_hand_off() {
        let (tx, rx) = mpsc::channel();
        thread::scope(|s| {
            s.spawn(|| {
                LOG.lock().expect("not poisoned").push("worker");
                tx.send(7).expect("the receiver is alive");
            });
            assert_eq!(rx.recv(), Ok(7));
        });
        assert!(LOG.lock().expect("not poisoned").contains(&"worker"));
    }
}
