//! A thread that holds a read lock of std's `RwLock` asks for its write
//! lock: it waits for itself. The other thread only reads, so the program
//! deadlocks in every order.
use std::sync::{Arc, RwLock};
use std::thread;

fn main() {
    let config = Arc::new(RwLock::new(1u32));
    let reader = {
        let config = Arc::clone(&config);
        thread::spawn(move || *config.read().unwrap())
    };
    let current = config.read().unwrap();
    if *current > 0 {
        *config.write().unwrap() = *current + 1;
    }
    drop(current);
    reader.join().unwrap();
}
