//! Bitcode from `rustc --emit=llvm-bc`.

use super::common::*;

const SOURCE: &str = r#"use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

static HITS: AtomicUsize = AtomicUsize::new(0);

fn main() {
    let total = Arc::new(Mutex::new(0u64));
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let total = Arc::clone(&total);
            thread::spawn(move || {
                *total.lock().unwrap() += i;
                HITS.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    println!("{} {}", total.lock().unwrap(), HITS.load(Ordering::SeqCst));
}
"#;

#[test]
fn threaded_rust_program_is_instrumented_and_verifies() {
    let dir = tempdir();
    std::fs::write(dir.path().join("main.rs"), SOURCE).expect("write");
    for opt in ["0", "2"] {
        let level = format!("opt-level={opt}");
        ok_in(
            dir.path(),
            "rustc",
            &[
                "-g",
                "-C",
                &level,
                "--emit=llvm-bc",
                "main.rs",
                "-o",
                "main.bc",
            ],
        );
        let stats = ok_in(
            dir.path(),
            bin("reach-instrument"),
            &["--stats", "main.bc", "-o", "main.inst.bc"],
        );
        assert!(stats.contains("atomics instrumented"), "{stats}");
        let ir = disassemble(&dir.path().join("main.inst.bc"));
        assert!(ir.contains("call void @__reach_atomic_rmw.guard("));
        assert!(ir.contains("section \"reach_sites\""));
        assert!(ir.contains("main.rs"));
    }
}
