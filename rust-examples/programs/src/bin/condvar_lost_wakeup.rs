//! Condvar lost wake-up: the waiter checks the flag before taking the lock,
//! and the notifier sets it and notifies without the lock; a notification
//! between the check and the wait is lost and the waiter sleeps forever.
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

fn main() {
    let pair = Arc::new((Mutex::new(()), Condvar::new(), AtomicBool::new(false)));
    let waiter_pair = Arc::clone(&pair);
    let waiter = thread::spawn(move || {
        let (lock, cv, ready) = &*waiter_pair;
        if !ready.load(SeqCst) {
            let guard = lock.lock().unwrap();
            let _guard = cv.wait(guard).unwrap();
        }
    });
    let (_, cv, ready) = &*pair;
    ready.store(true, SeqCst);
    cv.notify_one();
    waiter.join().unwrap();
}
