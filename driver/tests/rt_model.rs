//! Reachability testing checked against the exhaustive oracle on simulated
//! programs: a small interpreter plays the runtime's role (forced prefix,
//! then "continue, else lowest"), so RT is tested on many random programs
//! with mutexes, semaphores and shared variables without starting
//! processes. RT must exercise exactly the oracle's partial orders, each
//! once.

use crate::model;

use model::{
    check_shards, describe, explore, op, random_model, random_sync_model, Model, Rng, Run, M, N, S,
    X, Y,
};
use reach_channel::OpKind;
use reach_native::shard::Assignment;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::rt::ReachabilityTesting;

/// Explores `model` with the oracle and with RT; asserts that RT finds the
/// oracle's partial orders, each exactly once, and says it is complete.
fn check(model: &Model) -> (Run, Run) {
    use reach_native::strategy::Strategy;
    let oracle = explore(model, &mut Exhaustive::default());
    let mut strategy = ReachabilityTesting::new();
    let rt = explore(model, &mut strategy);
    assert_eq!(
        strategy.incomplete(),
        None,
        "RT is exact but not complete on\n{}",
        describe(model)
    );
    let missing = oracle.orders.difference(&rt.orders).count();
    let invented = rt.orders.difference(&oracle.orders).count();
    assert!(
        missing == 0 && invented == 0,
        "RT misses {missing} and invents {invented} partial orders of\n{}",
        describe(model)
    );
    assert_eq!(
        rt.executions,
        rt.orders.len(),
        "RT exercised a partial order twice ({} executions, {} orders) in\n{}",
        rt.executions,
        rt.orders.len(),
        describe(model)
    );
    assert_eq!(
        rt.deadlocks > 0,
        oracle.deadlocks > 0,
        "deadlock found by one only"
    );
    (oracle, rt)
}

#[test]
fn three_lockers_have_six_orders() {
    let crit = || vec![op(OpKind::MutexLock, M), op(OpKind::MutexUnlock, M)];
    let (oracle, rt) = check(&Model::new(vec![crit(), crit(), crit()]));
    assert_eq!(oracle.orders.len(), 6);
    assert_eq!(rt.executions, 6);
}

#[test]
fn a_write_overtakes_concurrent_reads() {
    let model = Model::new(vec![
        vec![op(OpKind::Load, X)],
        vec![op(OpKind::Load, X)],
        vec![op(OpKind::Store, X)],
    ]);
    let (oracle, rt) = check(&model);
    assert_eq!(oracle.orders.len(), 4);
    assert_eq!(rt.executions, 4);
}

#[test]
fn readers_commute() {
    let model = Model::new(vec![
        vec![op(OpKind::Load, X), op(OpKind::Load, Y)],
        vec![op(OpKind::Load, X), op(OpKind::Load, Y)],
    ]);
    let (_, rt) = check(&model);
    assert_eq!(rt.executions, 1);
}

#[test]
fn semaphore_handoff() {
    let mut model = Model::new(vec![
        vec![op(OpKind::SemWait, S), op(OpKind::Store, X)],
        vec![op(OpKind::SemWait, S), op(OpKind::Store, X)],
        vec![op(OpKind::SemPost, S), op(OpKind::SemPost, S)],
    ]);
    model.semaphores = vec![(S, 0)];
    check(&model);
}

#[test]
fn abba_deadlock_is_found() {
    let model = Model::new(vec![
        vec![
            op(OpKind::MutexLock, M),
            op(OpKind::MutexLock, N),
            op(OpKind::MutexUnlock, N),
            op(OpKind::MutexUnlock, M),
        ],
        vec![
            op(OpKind::MutexLock, N),
            op(OpKind::MutexLock, M),
            op(OpKind::MutexUnlock, M),
            op(OpKind::MutexUnlock, N),
        ],
    ]);
    let (_, rt) = check(&model);
    assert!(rt.deadlocks > 0);
}

#[test]
fn the_process_ends_before_the_threads() {
    let mut model = Model::new(vec![
        vec![op(OpKind::Store, X), op(OpKind::Load, Y)],
        vec![op(OpKind::Store, Y)],
    ]);
    model.exit_early = true;
    check(&model);
}

/// As `crash_abort.c`: a checker thread crashes (a fatal signal) in the
/// transition after reading under the lock, while an updater runs critical
/// sections: the crash ends the process like an exit, and what the updater
/// did before it is raced as before an exit.
#[test]
fn a_crash_ends_the_process_like_an_exit() {
    let section = || {
        vec![
            op(OpKind::MutexLock, M),
            op(OpKind::Store, X),
            op(OpKind::MutexUnlock, M),
        ]
    };
    let mut model = Model::new(vec![
        [section(), section()].concat(),
        vec![op(OpKind::MutexLock, M), op(OpKind::Load, X)],
    ]);
    model.crash = Some((2, 1));
    let (oracle, rt) = check(&model);
    assert!(oracle.orders.len() > 1);
    assert_eq!(rt.executions, oracle.orders.len());
}

/// Random programs of 2–3 threads over two mutexes, the variables they
/// protect and a semaphore (the kind of program of Table 1): RT exercises
/// exactly the oracle's partial orders, each once, and finds the same
/// deadlocks.
#[test]
fn random_synchronised_programs_match_the_oracle() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut checked, mut orders) = (0, 0);
    for _ in 0..400 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_sync_model(&mut rng, threads);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 10 {
            continue;
        }
        let (oracle, _) = check(&model);
        checked += 1;
        orders += oracle.orders.len();
    }
    assert!(checked > 250);
    eprintln!("{checked} programs, {orders} partial orders, each exercised once");
}

/// Split into 2, 3 and 4 shards that never talk to each other (`--shard`),
/// subtrees given by estimate or in turn, RT exercises exactly the
/// oracle's partial orders on synchronised programs, each in one shard
/// only.
#[test]
fn random_programs_split_into_shards_match_the_oracle() {
    let mut rng = Rng(0x51ed_2701_a3c4_9b6f);
    let (mut checked, mut executions, mut orders) = (0, 0, 0);
    for _ in 0..300 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_sync_model(&mut rng, threads);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 10 {
            continue;
        }
        let (oracle, _) = check(&model);
        for (count, split, how) in [
            (2, 1, Assignment::Balanced),
            (4, 2, Assignment::Balanced),
            (3, 4, Assignment::Balanced),
            (4, 1, Assignment::RoundRobin),
        ] {
            let make = || ReachabilityTesting::new().with_shard_plan(split, count);
            executions += check_shards(&model, &oracle.orders, make, (count, split), how);
            orders += oracle.orders.len();
        }
        checked += 1;
    }
    assert!(checked > 200, "{checked}");
    eprintln!("{checked} programs in 2, 3 and 4 shards: {executions} executions for {orders} partial orders");
}

/// Unprotected accesses (data races), mutexes, a semaphore and early
/// process exits, 1372 random programs of 2–3 threads: RT never invents a
/// partial order, and on all but a handful of programs exercises exactly
/// the oracle's partial orders, each once, with the same deadlocks. The
/// remaining programs (measured: 7, each with partial orders run twice,
/// none missed) involve a tangled cycle broken through a receive whose
/// gray colour is lost when it is recollected with a changed prime
/// structure, or a read that reads an old partner write again at the
/// place a variant moved it to (see `strategy::rt`, "Remaining gap"); the
/// bound keeps that from growing unnoticed.
#[test]
fn random_racy_programs_match_the_oracle() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut checked, mut orders, mut inexact, mut missed, mut repeated) = (0, 0, 0, 0, 0);
    for _ in 0..1500 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_model(&mut rng, threads, 3);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 9 {
            continue;
        }
        let oracle = explore(&model, &mut Exhaustive::default());
        let rt = explore(&model, &mut ReachabilityTesting::new());
        assert!(
            rt.orders.is_subset(&oracle.orders),
            "RT invents partial orders of\n{}",
            describe(&model)
        );
        let missing = oracle.orders.len() - rt.orders.len();
        let duplicates = rt.executions - rt.orders.len();
        if missing > 0 || duplicates > 0 {
            eprintln!(
                "inexact ({missing} missed, {duplicates} repeated):\n{}",
                describe(&model)
            );
            inexact += 1;
        }
        assert_eq!(
            rt.deadlocks > 0,
            oracle.deadlocks > 0,
            "deadlock found by one only in\n{}",
            describe(&model)
        );
        checked += 1;
        orders += oracle.orders.len();
        missed += missing;
        repeated += duplicates;
    }
    eprintln!(
        "{checked} racy programs, {orders} partial orders; {inexact} programs inexact \
         ({missed} orders missed, {repeated} repeated)"
    );
    assert!(checked > 1300);
    assert!(inexact <= 7, "{inexact} of {checked} programs inexact");
    assert!(
        missed == 0 && repeated <= 15,
        "{missed} missed, {repeated} repeated"
    );
}

/// Three threads read a variable and two of them then write it: the
/// combination in which both of the first two reads read the second
/// writer's write, placed before the first writer's, is reached only
/// from the execution in which that write was moved before the other;
/// there the first read's partner was pruned as old (Fig. 4, step 1), as
/// if the parent's variant that read it had covered it, but that variant
/// read it after the other write. RT ran 11 of the 12 partial orders.
#[test]
fn reads_of_a_write_moved_before_another_are_not_pruned() {
    let model = Model::new(vec![
        vec![op(OpKind::Load, X)],
        vec![op(OpKind::Load, X), op(OpKind::Store, X)],
        vec![op(OpKind::Load, X), op(OpKind::Store, X)],
    ]);
    let (oracle, rt) = check(&model);
    assert_eq!(oracle.orders.len(), 12);
    assert_eq!(rt.executions, 12);
}

/// Two racing writers and a reader: 2 orders of the writes times 3 places
/// of the read, each once (the case the reads-from receive was made for).
#[test]
fn two_writers_and_a_reader_have_six_orders() {
    let model = Model::new(vec![
        vec![op(OpKind::Store, X)],
        vec![op(OpKind::Store, X)],
        vec![op(OpKind::Load, X)],
    ]);
    let (oracle, rt) = check(&model);
    assert_eq!(oracle.orders.len(), 6);
    assert_eq!(rt.executions, 6);
}

/// A writer of two writes, another writer and a reader that reads first
/// and then writes elsewhere: every reversal of a write-write, write-read
/// and read-write pair, once.
#[test]
fn reads_from_every_write_once() {
    let model = Model::new(vec![
        vec![op(OpKind::Load, X), op(OpKind::Store, Y)],
        vec![op(OpKind::Store, X), op(OpKind::Store, X)],
        vec![op(OpKind::Store, X), op(OpKind::Load, Y)],
    ]);
    check(&model);
}

/// `x = 0; r = y; y = 2` and `y = 1; r = x; x = 1`: 5 partial orders.
/// The write `x = 1` can take the place of `x = 0` only once `r = x`
/// read before it, which needs `r = y` to have read `y = 1` first; that
/// change blackens `x = 0`, in the prime structure of `r = y`, so RT does
/// not run the order where `x = 1` comes first, and then it must not say
/// it is complete (strategy::rt, "Still missed").
#[test]
fn a_receive_kept_black_with_races_left_is_no_complete_search() {
    use reach_native::strategy::Strategy;
    let model = Model::new(vec![
        vec![
            op(OpKind::Store, X),
            op(OpKind::Load, Y),
            op(OpKind::Store, Y),
        ],
        vec![
            op(OpKind::Store, Y),
            op(OpKind::Load, X),
            op(OpKind::Store, X),
        ],
    ]);
    let oracle = explore(&model, &mut Exhaustive::default());
    let mut strategy = ReachabilityTesting::new();
    let rt = explore(&model, &mut strategy);
    assert_eq!(oracle.orders.len(), 5);
    assert!(rt.orders.is_subset(&oracle.orders));
    let missed = oracle.orders.len() - rt.orders.len();
    assert!(
        missed == 0 || strategy.incomplete().is_some(),
        "RT misses {missed} orders and says it is complete"
    );
    assert_eq!(missed, 1, "RT finds them all: drop this test's premise");
}
