//! Correct: one thread sends two values over an `mpsc::channel`, and the
//! main thread receives them in the order they were sent (messages of one
//! sender keep their order).
use std::sync::mpsc;
use std::thread;

fn main() {
    let (tx, rx) = mpsc::channel::<u32>();
    let sender = thread::spawn(move || {
        tx.send(1).unwrap();
        tx.send(2).unwrap();
    });
    assert_eq!(rx.recv().unwrap(), 1);
    assert_eq!(rx.recv().unwrap(), 2);
    sender.join().unwrap();
}
