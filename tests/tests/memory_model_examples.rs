//! The memory-model examples with their correct twins, under
//! `--memory-model rc11`: each bug (a lock, a reference count, a lazily
//! built singleton, a ring and a sequence lock whose orderings are too
//! weak) is found, its schedule file replays it, and sequential
//! consistency never shows it; each twin is clean, explored exhaustively,
//! or by 2,000 random executions (seed 1) where the exhaustive search is
//! too large (the ring, Peterson with an exchange, the C++ singleton).

use crate::memory_model::assert_replays;
use reach_tests::{build_example, reach};

const EXHAUSTIVE: &[&str] = &["--memory-model", "rc11", "--strategy", "exhaustive"];
/// `--memory-model rc11` with 2,000 random executions, seed 1.
pub(crate) const RANDOM: &[&str] = &[
    "--memory-model",
    "rc11",
    "--strategy",
    "random",
    "--seed",
    "1",
    "--max-executions",
    "2000",
];

/// `file` with each of `buggy`'s arguments fails its assertion under RC11
/// (exhaustive), replays, and is clean under SC; with each of `exhaustive`
/// it is clean and the exhaustive search completes; with each of `random`
/// 2,000 random executions find nothing.
fn check(file: &str, buggy: &[&[&str]], exhaustive: &[&[&str]], random: &[&[&str]]) {
    let program = build_example(file);
    for args in buggy {
        let run = reach(&program, EXHAUSTIVE, args);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("assertion"),
            "{file} {args:?}: {}",
            run.stdout
        );
        assert_replays(&program, args, &run);
        let sc = reach(&program, &[], args);
        assert_eq!(sc.code, 0, "{file} {args:?} under sc: {}", sc.stdout);
    }
    for args in exhaustive {
        let run = reach(&program, EXHAUSTIVE, args);
        assert_eq!(run.code, 0, "{file} {args:?}: {}", run.stdout);
        assert!(run.complete(), "{file} {args:?}: not complete");
    }
    for args in random {
        let run = reach(&program, RANDOM, args);
        assert!(
            run.code != 1 && run.json["bug"].is_null(),
            "{file} {args:?}: {}",
            run.stdout
        );
        assert_eq!(run.executions(), 2000, "{file} {args:?}");
    }
}

/// Dekker without a `seq_cst` fence lets both threads in, with it none;
/// Peterson needs more than the fence: the turn given by an exchange.
#[test]
fn peterson_and_dekker_need_a_fence_or_an_exchange() {
    check(
        "mm_peterson.c",
        &[&["dekker"], &["peterson"], &["peterson", "fence"]],
        &[&["dekker", "fence"]],
        &[&["peterson", "xchg"]],
    );
}

/// A reference count freed after a relaxed or release-only decrement
/// reads a stale use; Arc's acquire fence fixes it.
#[test]
fn a_reference_count_needs_an_acquire_before_the_free() {
    check(
        "mm_refcount.c",
        &[&["relaxed"], &["release"]],
        &[&["arc"]],
        &[],
    );
}

/// Double-checked locking with a relaxed pointer, in C and C++; the
/// release/acquire twins are clean.
#[test]
fn double_checked_locking_needs_release_and_acquire() {
    check("mm_dcl.c", &[&["relaxed"]], &[&["acquire"]], &[]);
    check("mm_dcl.cpp", &[&["relaxed"]], &[], &[&["acquire"]]);
}

/// A single-producer single-consumer ring with relaxed indices hands over
/// a slot before its value; release/acquire indices carry it.
#[test]
fn a_ring_with_relaxed_indices_reads_an_old_slot() {
    check("mm_spsc_ring.c", &[&["relaxed"]], &[], &[&["release"]]);
}

/// A sequence lock without the writer's release fence or the reader's
/// acquire fence keeps a torn pair; with both it does not.
#[test]
fn a_seqlock_needs_both_fences() {
    check(
        "mm_seqlock.c",
        &[&["no-write-fence"], &["no-read-fence"]],
        &[&["fenced"]],
        &[],
    );
}
