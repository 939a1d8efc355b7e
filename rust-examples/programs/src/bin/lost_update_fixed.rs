//! Correct twin of `lost_update`: each increment is one critical section.
use sync_kit::{run_threads, Counter};

fn main() {
    let c = Counter::default();
    let shared = c.clone();
    run_threads(2, move |_| shared.increment());
    assert_eq!(c.get(), 2);
}
