//! One file, built with `reach-rustc` directly: a named thread initialises
//! a `OnceLock` and adds to a total behind a `RwLock`, and the main thread
//! parks until a second thread unparks it.
use std::sync::{OnceLock, RwLock};
use std::thread;

static BASE: OnceLock<u32> = OnceLock::new();
static TOTAL: RwLock<u32> = RwLock::new(0);

fn main() {
    let cpus = thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    assert!(cpus >= 1);
    let worker = thread::Builder::new()
        .name("worker".into())
        .spawn(|| *TOTAL.write().unwrap() += *BASE.get_or_init(|| 10))
        .unwrap();
    let base = *BASE.get_or_init(|| 10);
    worker.join().unwrap();
    assert_eq!(*TOTAL.read().unwrap(), base);
    let main_thread = thread::current();
    let waker = thread::spawn(move || main_thread.unpark());
    thread::park();
    waker.join().unwrap();
}
