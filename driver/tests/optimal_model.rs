//! Optimal DPOR checked against the exhaustive oracle on simulated programs
//! (the interpreter of `model` plays the runtime: forced prefix, sleep set,
//! then "continue, else lowest"): on random programs with mutexes,
//! semaphores, racing plain accesses and early exits, `optimal` must run
//! exactly one execution per partial order of the oracle, find the same
//! deadlocks, and never end an execution blocked by its sleep set; also
//! with commuting updates (`--commute-rmws`) among them.

use crate::model;

use model::{
    check_shards, describe, explore, explore_split, op, random_model, random_rwlock_once_model,
    random_sync_model, random_update_model, Model, Rng, M, S, SHARD_SHAPES, X, Y, Z,
};
use reach_channel::OpKind;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::optimal::OptimalDpor;

/// One execution per partial order of the oracle, none sleep-blocked.
fn check(model: &Model) -> usize {
    let oracle = explore(model, &mut Exhaustive::default());
    let optimal = explore(model, &mut OptimalDpor::new());
    let missing = oracle.orders.difference(&optimal.orders).count();
    let invented = optimal.orders.difference(&oracle.orders).count();
    assert!(
        missing == 0 && invented == 0,
        "optimal misses {missing} and invents {invented} partial orders of\n{}",
        describe(model)
    );
    assert_eq!(
        optimal.sleep_blocked,
        0,
        "optimal was blocked by a sleep set in\n{}",
        describe(model)
    );
    assert_eq!(
        optimal.executions,
        optimal.orders.len(),
        "optimal ran a partial order twice in\n{}",
        describe(model)
    );
    assert_eq!(
        optimal.deadlocks > 0,
        oracle.deadlocks > 0,
        "deadlock found by one only in\n{}",
        describe(model)
    );
    oracle.orders.len()
}

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
        orders += check(&model);
        checked += 1;
    }
    assert!(checked > 250);
    eprintln!("{checked} programs, {orders} partial orders, each run once");
}

/// Readers share an rwlock (a read acquisition may go before another
/// reader's release), writers exclude everyone, and one caller of a
/// `pthread_once` runs the init routine while the others wait for it.
#[test]
fn random_programs_with_rwlocks_and_once_match_the_oracle() {
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    let (mut checked, mut orders) = (0, 0);
    for _ in 0..600 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_rwlock_once_model(&mut rng, threads);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 11 {
            continue;
        }
        orders += check(&model);
        checked += 1;
    }
    assert!(checked > 150, "{checked}");
    eprintln!("{checked} programs with rwlocks and once, {orders} partial orders, each run once");
}

#[test]
fn random_racy_programs_match_the_oracle() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut checked, mut orders) = (0, 0);
    for _ in 0..1500 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_model(&mut rng, threads, 3);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 9 {
            continue;
        }
        orders += check(&model);
        checked += 1;
    }
    assert!(checked > 1300);
    eprintln!("{checked} racy programs, {orders} partial orders, each run once");
}

/// Commuting updates of two families (and of two ranges of one granule)
/// mixed with loads, stores, plain read-modify-writes and lock sections:
/// the updates of one group commute, everything else stays ordered.
#[test]
fn random_programs_with_commuting_updates_match_the_oracle() {
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    let (mut checked, mut orders) = (0, 0);
    for _ in 0..1500 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_update_model(&mut rng, threads, 3);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 9 {
            continue;
        }
        orders += check(&model);
        checked += 1;
    }
    assert!(checked > 1000);
    eprintln!("{checked} programs with updates, {orders} partial orders, each run once");
}

/// Program `round` of a mix of the random generators, 2 or 3 threads, or
/// `None` if it has more than 9 operations (the oracle stays fast).
fn mixed_model(rng: &mut Rng, round: u64) -> Option<Model> {
    let threads = 2 + rng.below(2) as usize;
    let model = match round % 4 {
        0 => random_model(rng, threads, 3),
        1 => random_sync_model(rng, threads),
        2 => random_update_model(rng, threads, 3),
        _ => random_rwlock_once_model(rng, threads),
    };
    (model.threads.iter().map(Vec::len).sum::<usize>() <= 9).then_some(model)
}

/// Divided among simulated workers (`--jobs`), each program in several
/// random orders of execution and sharing, optimal DPOR runs exactly the
/// partial orders of the oracle, never blocked by a sleep set. A branch
/// whose subtree finished before an earlier sibling found a sequence for
/// it is explored again, so some executions may repeat one.
#[test]
fn random_programs_divided_among_workers_match_the_oracle() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut checked, mut orders, mut executions) = (0, 0, 0);
    for round in 0..900u64 {
        let Some(model) = mixed_model(&mut rng, round) else {
            continue;
        };
        let oracle = explore(&model, &mut Exhaustive::default());
        for order in 0..3u64 {
            let mut schedule = Rng(round.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ order);
            let split = explore_split(&model, OptimalDpor::new(), &mut schedule);
            let missing = oracle.orders.difference(&split.orders).count();
            let invented = split.orders.difference(&oracle.orders).count();
            assert!(
                missing == 0 && invented == 0,
                "divided, optimal misses {missing} and invents {invented} partial orders of\n{}",
                describe(&model)
            );
            assert_eq!(
                split.sleep_blocked,
                0,
                "sleep-blocked in\n{}",
                describe(&model)
            );
            assert_eq!(
                split.deadlocks > 0,
                oracle.deadlocks > 0,
                "deadlock found by one only in\n{}",
                describe(&model)
            );
            orders += oracle.orders.len();
            executions += split.executions;
        }
        checked += 1;
    }
    assert!(checked > 600);
    eprintln!(
        "{checked} programs divided three ways each: {executions} executions for {orders} partial orders"
    );
}

/// Split into 2, 3 and 4 shards that never talk to each other (`--shard`),
/// subtrees given by estimate or by probe, optimal DPOR explores exactly
/// the partial orders of the oracle, each in one shard only.
#[test]
fn random_programs_split_into_shards_match_the_oracle() {
    let mut rng = Rng(0x3c6e_f372_fe94_f82b);
    let (mut checked, mut orders, mut executions) = (0, 0, 0);
    for round in 0..400u64 {
        let Some(model) = mixed_model(&mut rng, round) else {
            continue;
        };
        let oracle = explore(&model, &mut Exhaustive::default());
        for (count, split, how) in SHARD_SHAPES {
            let make = || OptimalDpor::new().with_shard_plan(split, count);
            executions += check_shards(&model, &oracle.orders, make, (count, split), how);
            orders += oracle.orders.len();
        }
        checked += 1;
    }
    assert!(checked > 250, "{checked}");
    eprintln!("{checked} programs in 2, 3 and 4 shards: {executions} executions for {orders} partial orders");
}

/// An exit that cuts threads short follows the sequence that reverses a
/// race with it (`v.e`): a sleeping thread that only commutes with `v`
/// conflicts with the exit, so it does not cover the reversal. Explored in
/// an order other than one job's (here: divided among workers), dropping
/// such a sequence lost partial orders.
#[test]
fn a_reversed_exit_is_not_covered_by_a_sleeper_that_commutes_with_the_rest() {
    let mut model = Model::new(vec![
        vec![op(OpKind::Load, Z), op(OpKind::Load, Z)],
        vec![
            op(OpKind::MutexLock, M),
            op(OpKind::Store, Z),
            op(OpKind::MutexUnlock, M),
            op(OpKind::Load, Y),
        ],
        vec![
            op(OpKind::Load, Y),
            op(OpKind::Store, X),
            op(OpKind::Store, Y),
            op(OpKind::SemWait, S),
        ],
    ]);
    model.semaphores = vec![(S, 0)];
    model.exit_early = true;
    let oracle = explore(&model, &mut Exhaustive::default());
    assert_eq!(check(&model), oracle.orders.len());
    for order in 0..40u64 {
        let mut schedule = Rng(69u64.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (order + 1));
        let split = explore_split(&model, OptimalDpor::new(), &mut schedule);
        let missing = oracle.orders.difference(&split.orders).count();
        assert_eq!(
            missing, 0,
            "order {order}: divided, optimal misses {missing}"
        );
    }
}
