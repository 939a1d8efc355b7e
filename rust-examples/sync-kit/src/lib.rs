//! Helpers shared by the example programs.

use std::sync::{Arc, Mutex};
use std::thread;

/// A counter shared between threads behind a `std::sync::Mutex`.
#[derive(Clone, Default)]
pub struct Counter(Arc<Mutex<u32>>);

impl Counter {
    /// Adds one in a single critical section.
    pub fn increment(&self) {
        *self.0.lock().unwrap() += 1;
    }

    /// Adds one in two critical sections: reads under the lock, releases it,
    /// and writes under the lock again (an update can be lost in between).
    pub fn increment_in_two_steps(&self) {
        let seen = *self.0.lock().unwrap();
        *self.0.lock().unwrap() = seen + 1;
    }

    /// The current value.
    pub fn get(&self) -> u32 {
        *self.0.lock().unwrap()
    }
}

/// Runs `f(i)` on `n` new threads and joins them all.
pub fn run_threads(n: usize, f: impl Fn(usize) + Send + Sync + 'static) {
    let f = Arc::new(f);
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let f = Arc::clone(&f);
            thread::spawn(move || f(i))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads add one each in a single critical section: always 2.
    #[test]
    fn increments_are_not_lost() {
        let c = Counter::default();
        let c2 = c.clone();
        run_threads(2, move |_| c2.increment());
        assert_eq!(c.get(), 2);
    }

    /// Two threads add one each in two critical sections: one update can be
    /// lost (found by `reach-native` on the test binary).
    #[test]
    fn two_step_increments_lose_an_update() {
        let c = Counter::default();
        let c2 = c.clone();
        run_threads(2, move |_| c2.increment_in_two_steps());
        assert_eq!(c.get(), 2, "an update was lost");
    }
}
