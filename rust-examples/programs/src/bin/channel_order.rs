//! Bug: two threads send over clones of one `mpsc::Sender`, and the receiver
//! assumes the first thread spawned is the first to send.
use std::sync::mpsc;
use std::thread;

fn main() {
    let (tx, rx) = mpsc::channel::<u32>();
    let tx2 = tx.clone();
    let first = thread::spawn(move || tx.send(1).unwrap());
    let second = thread::spawn(move || tx2.send(2).unwrap());
    assert_eq!(rx.recv().unwrap(), 1, "the second sender's message came first");
    first.join().unwrap();
    second.join().unwrap();
}
