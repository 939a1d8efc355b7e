//! A reference count shaped like `Arc`'s drop: two threads share an
//! object, each records its last use (a `Relaxed` store, so that the
//! memory model sees it; in a real program, any use of the object), then
//! decrements the count with `Release`, and the one that takes it to 0
//! frees the object. The destructor checks that both uses are visible.
//!
//! Without an acquire after the decrement that reaches 0, nothing orders
//! the other thread's last use before the free: under
//! `--memory-model rc11` the destructor may read that use's initial 0 (in
//! a real program, free memory still in use). With the argument `arc` it
//! does what `Arc::drop` does, `fence(Acquire)` before freeing, which
//! synchronises with the other thread's `Release` decrement: no bug.
use std::sync::atomic::{fence, AtomicU32, AtomicUsize, Ordering};
use std::thread;

struct Shared {
    refs: AtomicUsize,
    used: [AtomicU32; 2],
}

/// Records thread `me`'s last use of `*shared`, then drops its reference.
fn use_and_drop(shared: *const Shared, me: usize, acquire: bool) {
    // SAFETY: the object lives until the last reference is dropped, and
    // this thread holds one.
    let s = unsafe { &*shared };
    s.used[me].store(1, Ordering::Relaxed);
    if s.refs.fetch_sub(1, Ordering::Release) != 1 {
        return;
    }
    if acquire {
        fence(Ordering::Acquire);
    }
    assert!(
        s.used.iter().all(|u| u.load(Ordering::Relaxed) == 1),
        "freed before the other thread's last use was visible"
    );
    // SAFETY: the count reached 0: no other reference is left.
    drop(unsafe { Box::from_raw(shared as *mut Shared) });
}

fn main() {
    let acquire = std::env::args().nth(1).as_deref() == Some("arc");
    let shared = Box::into_raw(Box::new(Shared {
        refs: AtomicUsize::new(2),
        used: [AtomicU32::new(0), AtomicU32::new(0)],
    })) as usize;
    let other = thread::spawn(move || use_and_drop(shared as *const Shared, 1, acquire));
    use_and_drop(shared as *const Shared, 0, acquire);
    other.join().unwrap();
}
