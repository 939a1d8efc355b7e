//! Correct: a small worker pool. Two producers send three jobs each over a
//! channel to two workers that share the receiver behind a `Mutex`; the
//! results come back over a second channel and the main thread sums them.
//! Threads allocate and free as they go (closures, messages), so the C
//! library hands one thread memory another has freed.
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

fn main() {
    let (job_tx, job_rx) = mpsc::channel::<u32>();
    let (res_tx, res_rx) = mpsc::channel::<u32>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let mut handles = Vec::new();
    for p in 0..2u32 {
        let tx = job_tx.clone();
        handles.push(thread::spawn(move || {
            for i in 0..3 {
                tx.send(p * 10 + i).unwrap();
            }
        }));
    }
    drop(job_tx);
    for _ in 0..2 {
        let rx = Arc::clone(&job_rx);
        let out = res_tx.clone();
        handles.push(thread::spawn(move || loop {
            let job = rx.lock().unwrap().recv();
            match job {
                Ok(j) => out.send(j * 2).unwrap(),
                Err(_) => break,
            }
        }));
    }
    drop(res_tx);
    let total: u32 = res_rx.iter().sum();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(total, 2 * (0 + 1 + 2 + 10 + 11 + 12));
}
