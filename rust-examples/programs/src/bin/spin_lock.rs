//! A hand-written spin lock: `while lock.swap(true, Acquire) { spin_loop() }`.
//! Three threads each enter the critical section twice; a failed swap
//! writes the `true` that is already there, so the waiting iteration does
//! nothing and the thread awaits the release. 90 orders of the critical
//! sections, no bug.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

static LOCK: AtomicBool = AtomicBool::new(false);
static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn main() {
    let workers: Vec<_> = (0..3)
        .map(|_| {
            thread::spawn(|| {
                for _ in 0..2 {
                    while LOCK.swap(true, Ordering::Acquire) {
                        spin_loop();
                    }
                    let seen = COUNTER.load(Ordering::Relaxed);
                    COUNTER.store(seen + 1, Ordering::Relaxed);
                    LOCK.store(false, Ordering::Release);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker panicked");
    }
    assert_eq!(COUNTER.load(Ordering::Relaxed), 6);
}
