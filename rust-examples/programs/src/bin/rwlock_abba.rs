//! ABBA over two std `RwLock`s: one thread write-locks `a` then
//! read-locks `b`, the other write-locks `b` then read-locks `a`.
use std::sync::RwLock;
use std::thread;

static A: RwLock<u32> = RwLock::new(0);
static B: RwLock<u32> = RwLock::new(0);

fn main() {
    let t = thread::spawn(|| {
        let mut b = B.write().unwrap();
        *b += *A.read().unwrap();
    });
    {
        let mut a = A.write().unwrap();
        *a += *B.read().unwrap();
    }
    t.join().unwrap();
}
