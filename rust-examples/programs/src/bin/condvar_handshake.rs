//! Correct twin of `condvar_lost_wakeup`: the flag lives under the mutex and
//! the waiter re-checks it in a loop around `wait`.
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

fn main() {
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let waiter_pair = Arc::clone(&pair);
    let waiter = thread::spawn(move || {
        let (lock, cv) = &*waiter_pair;
        let mut ready = lock.lock().unwrap();
        while !*ready {
            ready = cv.wait(ready).unwrap();
        }
    });
    let (lock, cv) = &*pair;
    *lock.lock().unwrap() = true;
    cv.notify_one();
    waiter.join().unwrap();
}
