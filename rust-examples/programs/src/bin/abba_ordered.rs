//! Correct twin of `abba_deadlock`: both threads lock `a` before `b`.
use std::sync::{Arc, Mutex};
use std::thread;

fn main() {
    let a = Arc::new(Mutex::new(0u32));
    let b = Arc::new(Mutex::new(0u32));
    let (a2, b2) = (Arc::clone(&a), Arc::clone(&b));
    let t = thread::spawn(move || {
        let mut x = a2.lock().unwrap();
        let mut y = b2.lock().unwrap();
        *x += 1;
        *y += 1;
    });
    {
        let mut x = a.lock().unwrap();
        let mut y = b.lock().unwrap();
        *x += 1;
        *y += 1;
    }
    t.join().unwrap();
    assert_eq!(*a.lock().unwrap(), 2);
}
