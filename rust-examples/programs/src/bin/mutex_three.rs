//! Three threads each add one to a counter behind std's `Mutex`: std's
//! futex mutex spins a while before it sleeps, and the search must not
//! count the spinning.
use sync_kit::{run_threads, Counter};

fn main() {
    let c = Counter::default();
    let shared = c.clone();
    run_threads(3, move |_| shared.increment());
    assert_eq!(c.get(), 3);
}
