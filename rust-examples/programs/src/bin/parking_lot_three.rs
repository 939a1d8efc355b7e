//! Three threads each add one to a counter behind `parking_lot::Mutex`:
//! its lock spins with a spin hint and `sched_yield` before it parks, and
//! none of that is a behaviour of its own. Expected: no bug.
use parking_lot::Mutex;
use std::sync::Arc;
use std::thread;

fn main() {
    let counter = Arc::new(Mutex::new(0u32));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let counter = Arc::clone(&counter);
            thread::spawn(move || *counter.lock() += 1)
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*counter.lock(), 3);
}
