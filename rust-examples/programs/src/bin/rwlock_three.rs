//! Two readers and one writer on std's `RwLock`: the writer adds one to
//! both halves of a pair, each reader checks that it never sees them
//! differ. std's futex `RwLock` spins a while before it sleeps, and the
//! search must not count the spinning.
use std::sync::RwLock;
use std::thread;

static PAIR: RwLock<(u32, u32)> = RwLock::new((0, 0));

fn main() {
    let readers: Vec<_> = (0..2)
        .map(|_| {
            thread::spawn(|| {
                let (a, b) = *PAIR.read().unwrap();
                assert_eq!(a, b, "a reader saw half an update");
            })
        })
        .collect();
    let writer = thread::spawn(|| {
        let mut pair = PAIR.write().unwrap();
        pair.0 += 1;
        pair.1 += 1;
    });
    writer.join().unwrap();
    for reader in readers {
        reader.join().unwrap();
    }
    assert_eq!(*PAIR.read().unwrap(), (1, 1));
}
