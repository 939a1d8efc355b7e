//! A panic in a spawned thread whose result the main thread ignores: the
//! process exits with status 0, the panic is still a bug.
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::thread;

static JOBS: AtomicU32 = AtomicU32::new(0);

fn main() {
    let worker = thread::spawn(|| {
        let taken = JOBS.fetch_add(1, SeqCst);
        let queue: Vec<u32> = vec![7];
        // The second taker indexes past the end of the queue.
        let _ = queue[taken as usize];
    });
    JOBS.fetch_add(1, SeqCst);
    let _ = worker.join();
}
