//! Correct: a thread hands one value to the main thread over a rendezvous
//! channel (`sync_channel(0)`): the send waits for the receive.
use std::sync::mpsc;
use std::thread;

fn main() {
    let (tx, rx) = mpsc::sync_channel::<u32>(0);
    let sender = thread::spawn(move || tx.send(7).unwrap());
    assert_eq!(rx.recv().unwrap(), 7);
    sender.join().unwrap();
}
