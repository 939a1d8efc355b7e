//! PRODUCERS producers (default 2) push into a `crossbeam_queue::ArrayQueue` of capacity 1,
//! retrying with a spin hint while it is full, and the main thread pops
//! every value, retrying while it is empty. Expected: no bug.
use crossbeam_queue::ArrayQueue;
use std::sync::Arc;
use std::thread;

fn main() {
    // PRODUCERS (default 2) from the first argument.
    let producers: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    let queue = Arc::new(ArrayQueue::<u32>::new(1));
    let handles: Vec<_> = (1..=producers)
        .map(|value| {
            let queue = Arc::clone(&queue);
            thread::spawn(move || {
                let mut item = value;
                while let Err(back) = queue.push(item) {
                    item = back;
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let mut sum = 0;
    for _ in 0..producers {
        loop {
            if let Some(value) = queue.pop() {
                sum += value;
                break;
            }
            std::hint::spin_loop();
        }
    }
    for p in handles {
        p.join().unwrap();
    }
    assert_eq!(sum, producers * (producers + 1) / 2);
}
