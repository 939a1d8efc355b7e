//! Correct: a thread sends one value over an `mpsc::channel` and the main
//! thread receives it (the receiver may block on the empty channel first).
use std::sync::mpsc;
use std::thread;

fn main() {
    let (tx, rx) = mpsc::channel::<u32>();
    let sender = thread::spawn(move || tx.send(7).unwrap());
    assert_eq!(rx.recv().unwrap(), 7);
    sender.join().unwrap();
}
