//! Concurrency Kit (`libck-dev`, header-only: its atomics are x86 inline
//! assembly) used as a program would use it, `c-examples/ck/`: its spin
//! locks, its lock-free stack, its ring buffer and its SPSC FIFO, each with
//! a correct use and a misuse. The spin locks' retry loops await a change
//! as C11 ones do: the asm exchange and compare-and-exchange are read as
//! such, and the optimiser's rotated wait loops (first test before the
//! loop) are one loop again, so the locks that order critical sections
//! without further protocol have the peers' 90 behaviours for 3 threads of
//! 2 critical sections, optimised or not.

use reach_tests::{build_source, reach, Run};
use std::path::{Path, PathBuf};

/// Builds `c-examples/ck/NAME.c` at `-O1` or `-O0`.
fn ck(name: &str, opt: &str) -> PathBuf {
    build_source(
        &format!("c-examples/ck/{name}.c"),
        &[opt, "-g"],
        &format!("{name}{opt}"),
    )
}

fn explore(program: &Path, strategy: &str, args: &[&str]) -> Run {
    reach(program, &["--strategy", strategy, "--stats"], args)
}

/// A clean, complete search of `program` with `args` under `strategy`.
fn clean(program: &Path, strategy: &str, args: &[&str]) -> Run {
    let run = explore(program, strategy, args);
    let name = program.display();
    assert!(
        run.complete(),
        "{name} {args:?} ({strategy}): {}",
        run.stdout
    );
    assert!(run.json["bug"].is_null(), "{name} {args:?}: {}", run.stdout);
    run
}

/// Exchange, compare-and-swap, CLH and Anderson locks, 3 threads of 2
/// critical sections: the 90 orders of the critical sections and nothing
/// else, at `-O1` and `-O0`, optimal and dpor alike.
#[test]
fn spin_locks_without_handover_protocol_have_the_peers_count() {
    for opt in ["-O1", "-O0"] {
        let program = ck("ck_spinlocks", opt);
        for lock in ["fas", "cas", "clh", "anderson"] {
            let optimal = clean(&program, "optimal", &[lock]);
            assert_eq!(optimal.partial_orders(), 90, "{lock} {opt}");
            assert_eq!(optimal.complete_executions(), 90, "{lock} {opt}");
            let dpor = clean(&program, "dpor", &[lock]);
            assert_eq!(dpor.fingerprints(), optimal.fingerprints(), "{lock} {opt}");
        }
    }
}

/// The ticket lock (ticket and position share one word, so a waiter's read
/// races with later tickets), the MCS queue lock (a release races with the
/// next waiter's enqueue) and the decrement lock (a failed acquisition
/// writes the word) have behaviours of their own protocol: 3 threads of one
/// critical section complete, optimal and dpor agreeing.
#[test]
fn spin_locks_with_protocol_complete() {
    let program = ck("ck_spinlocks", "-O1");
    for (lock, orders) in [("ticket", 36), ("mcs", 120), ("dec", 78)] {
        let optimal = clean(&program, "optimal", &[lock, "3", "1"]);
        assert_eq!(optimal.partial_orders(), orders, "{lock}");
        assert_eq!(optimal.complete_executions(), orders, "{lock}");
        let dpor = clean(&program, "dpor", &[lock, "3", "1"]);
        assert_eq!(dpor.fingerprints(), optimal.fingerprints(), "{lock}");
    }
}

/// `name` at `-O1` and `-O0`: with `clean_arg` complete and clean in
/// `orders` partial orders; with `misuse_arg` a bug of `kind`.
fn clean_at_both_levels_and_misuse_found(
    name: &str,
    clean_arg: &str,
    orders: u64,
    misuse_arg: &str,
    kind: &str,
) {
    for opt in ["-O1", "-O0"] {
        let program = ck(name, opt);
        let run = clean(&program, "optimal", &[clean_arg]);
        assert_eq!(run.partial_orders(), orders, "{name} {opt}");
        let misuse = explore(&program, "optimal", &[misuse_arg]);
        assert_eq!(
            misuse.bug_kind().as_deref(),
            Some(kind),
            "{name} {opt}: {}",
            misuse.stdout
        );
    }
}

/// Two producers on the lock-free stack and a consumer that retries while
/// it is empty: complete and clean, with the same count at `-O0` (where the
/// pop's `entry` lives in a stack slot whose address goes to the
/// compare-and-swap helper, which only writes through it: the slot stays
/// private, its stores are no progress); the single-producer push used by
/// both producers is a data race on the head.
#[test]
fn stack_upmc_is_clean_and_spnc_from_two_producers_races() {
    clean_at_both_levels_and_misuse_found("ck_stack", "upmc", 16, "spnc", "data_race");
}

/// The ring buffer with one producer and one consumer, both retrying (full,
/// empty): the values arrive in order in every interleaving, at `-O1` and
/// `-O0`; two producers on the single-producer enqueue race on a slot.
#[test]
fn ring_spsc_is_clean_and_two_producers_race() {
    clean_at_both_levels_and_misuse_found("ck_ring", "spsc", 14, "mpsc", "data_race");
}

/// The SPSC FIFO: one consumer gets both entries in order; two consumers
/// on the single-consumer dequeue can take one entry twice.
#[test]
fn fifo_spsc_is_clean_and_two_consumers_take_an_entry_twice() {
    clean_at_both_levels_and_misuse_found("ck_fifo", "spsc", 1, "spmc", "assertion");
}
