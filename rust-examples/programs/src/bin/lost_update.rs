//! Lost update: two threads increment a counter, each reading it under the
//! lock and writing it under the lock again; one increment can be lost.
use sync_kit::{run_threads, Counter};

fn main() {
    let c = Counter::default();
    let shared = c.clone();
    run_threads(2, move |_| shared.increment_in_two_steps());
    assert_eq!(c.get(), 2, "an increment was lost");
}
