//! `publish_after_init` with the flag stored and loaded `Relaxed`: under
//! sequential consistency the data is always there once the flag is, but
//! the language's memory model (`--memory-model rc11`) lets the reader see
//! the flag and still read the data's initial 0: the assertion fails. The
//! flag needs `Release` and `Acquire` (the twin, `publish_after_init`).
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread;

static DATA: AtomicU32 = AtomicU32::new(0);
static READY: AtomicBool = AtomicBool::new(false);

fn main() {
    let reader = thread::spawn(|| {
        if READY.load(Ordering::Relaxed) {
            assert_eq!(DATA.load(Ordering::Relaxed), 42, "the flag came before the data");
        }
    });
    DATA.store(42, Ordering::Relaxed);
    READY.store(true, Ordering::Relaxed);
    reader.join().unwrap();
}
