//! ABBA deadlock on `parking_lot::Mutex`es: one thread locks `a` then `b`,
//! the other `b` then `a`. Expected: a deadlock, each thread waiting for
//! the parking_lot mutex the other holds.
use parking_lot::Mutex;
use std::sync::Arc;
use std::thread;

fn main() {
    let a = Arc::new(Mutex::new(0u32));
    let b = Arc::new(Mutex::new(0u32));
    let (a2, b2) = (Arc::clone(&a), Arc::clone(&b));
    let t = thread::spawn(move || {
        let mut y = b2.lock();
        let mut x = a2.lock();
        *x += 1;
        *y += 1;
    });
    {
        let mut x = a.lock();
        let mut y = b.lock();
        *x += 1;
        *y += 1;
    }
    t.join().unwrap();
}
