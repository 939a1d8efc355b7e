//! The correct twin of `rwlock_abba`: both threads take `a` before `b`.
use std::sync::RwLock;
use std::thread;

static A: RwLock<u32> = RwLock::new(0);
static B: RwLock<u32> = RwLock::new(0);

fn main() {
    let t = thread::spawn(|| {
        let a = A.read().unwrap();
        *B.write().unwrap() += *a;
    });
    {
        let mut a = A.write().unwrap();
        *a += *B.read().unwrap();
    }
    t.join().unwrap();
}
