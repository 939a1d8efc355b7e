//! A loop of calls from the program's own code into Rust's standard
//! library (`fetch_add`, `Vec::len`, `Vec::push`, `Vec::clear`, the range's
//! `next`), for measuring what noting those calls costs a debug build
//! (BENCHMARKS.md, "Rust: steps placed at the program's line").
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn bump(c: &AtomicUsize, v: &mut Vec<usize>) {
    let n = c.fetch_add(1, Ordering::Relaxed);
    if v.len() < 16 {
        v.push(n);
    } else {
        v.clear();
    }
}

fn main() {
    let c = Arc::new(AtomicUsize::new(0));
    let mut v = Vec::with_capacity(16);
    for _ in 0..200_000 {
        bump(&c, &mut v);
    }
    println!("{}", c.load(Ordering::Relaxed));
}
