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
