//! Publish before init: the writer raises the `READY` flag before it stores
//! the data (relaxed atomics), so a reader that sees the flag can read the
//! data uninitialised, even under sequential consistency.
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::thread;

static DATA: AtomicU32 = AtomicU32::new(0);
static READY: AtomicBool = AtomicBool::new(false);

fn main() {
    let reader = thread::spawn(|| {
        if READY.load(Relaxed) {
            assert_eq!(DATA.load(Relaxed), 42, "published data read uninitialised");
        }
    });
    READY.store(true, Relaxed);
    DATA.store(42, Relaxed);
    reader.join().unwrap();
}
