//! Ticket slots: each worker takes a ticket with `fetch_add`, then reads
//! the counter again to find its slot instead of using the ticket it was
//! handed. Another worker's ticket can come in between, so both workers
//! write the same slot: a data race on the block `Arc::new` allocated.
//! In a debug build the atomic operations and the allocation run in the
//! standard library's code; reports place them at the lines below.
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;

struct Slots {
    next: AtomicUsize,
    slots: [UnsafeCell<u64>; 2],
}

// SAFETY: not really: two workers may write one slot (the bug shown).
unsafe impl Sync for Slots {}

fn main() {
    let shared = Arc::new(Slots {
        next: AtomicUsize::new(0),
        slots: [UnsafeCell::new(0), UnsafeCell::new(0)],
    });
    let workers: Vec<_> = (1..=2u64)
        .map(|id| {
            let shared = Arc::clone(&shared);
            thread::spawn(move || {
                shared.next.fetch_add(1, SeqCst);
                let mine = shared.next.load(SeqCst) - 1;
                // SAFETY: meant to be this worker's slot alone.
                unsafe { shared.slots[mine].get().write(id) };
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker panicked");
    }
}
