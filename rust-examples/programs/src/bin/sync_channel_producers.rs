//! PRODUCERS producers (default 2) send over std's `mpsc::sync_channel(1)` and the main thread
//! receives every value: a full channel blocks its senders (std's channel
//! spins with backoff before it parks). Expected: no bug.
use std::sync::mpsc::sync_channel;
use std::thread;

fn main() {
    // PRODUCERS (default 2) from the first argument.
    let producers: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    let (tx, rx) = sync_channel::<u32>(1);
    let handles: Vec<_> = (1..=producers)
        .map(|value| {
            let tx = tx.clone();
            thread::spawn(move || tx.send(value).unwrap())
        })
        .collect();
    drop(tx);
    let sum: u32 = rx.iter().sum();
    for p in handles {
        p.join().unwrap();
    }
    assert_eq!(sum, producers * (producers + 1) / 2);
}
