//! Correct twin of `publish_before_init`: the data is stored first and the
//! flag published with release, read with acquire.
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread;

static DATA: AtomicU32 = AtomicU32::new(0);
static READY: AtomicBool = AtomicBool::new(false);

fn main() {
    let reader = thread::spawn(|| {
        if READY.load(Ordering::Acquire) {
            assert_eq!(DATA.load(Ordering::Relaxed), 42);
        }
    });
    DATA.store(42, Ordering::Relaxed);
    READY.store(true, Ordering::Release);
    reader.join().unwrap();
}
