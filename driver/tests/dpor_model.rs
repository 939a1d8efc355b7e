//! DPOR-CR with sleep sets checked against the exhaustive oracle on simulated
//! programs (`model`: a small interpreter plays the runtime's role), so the
//! strategies are tested on thousands of random programs without starting
//! processes.

use crate::model;

use model::{
    check_shards, describe, op, random_model, random_rwlock_once_model, random_sync_model,
    random_update_model, run_shards, update, Model, Rng, SHARD_SHAPES,
};
use reach_channel::{OpKind, RmwFamily};
use reach_native::analysis::fingerprint::fingerprint;
use reach_native::shard::Assignment;
use reach_native::strategy::dpor::Dpor;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::Strategy;
use std::collections::HashSet;

struct Run {
    executions: usize,
    blocked: usize,
    orders: HashSet<u64>,
}

fn explore(model: &Model, strategy: &mut dyn Strategy) -> Run {
    let mut run = Run {
        executions: 0,
        blocked: 0,
        orders: HashSet::new(),
    };
    while let Some(request) = strategy.next_request() {
        let execution = model.run(&request);
        let (trace, blocked) = (execution.trace, execution.sleep_blocked);
        strategy
            .observe(&request, &trace)
            .expect("model is deterministic");
        run.executions += 1;
        assert!(run.executions < 200_000, "exploration does not terminate");
        if blocked {
            run.blocked += 1;
        } else {
            run.orders.insert(fingerprint(&trace));
        }
    }
    run
}

fn check(model: &Model) -> (Run, Run, Run) {
    let oracle = explore(model, &mut Exhaustive::default());
    let dpor = explore(model, &mut Dpor::new(true));
    let plain = explore(model, &mut Dpor::new(false));
    assert_eq!(
        dpor.orders,
        oracle.orders,
        "DPOR+sleep misses or invents partial orders of\n{}",
        describe(model)
    );
    assert_eq!(
        plain.orders, oracle.orders,
        "DPOR misses or invents partial orders"
    );
    (oracle, dpor, plain)
}

const X: u64 = 0x1000;
const Y: u64 = 0x2000;
const M: u64 = 0x9000;

#[test]
fn two_writers_have_two_orders() {
    let model = Model::new(vec![vec![op(OpKind::Store, X)], vec![op(OpKind::Store, X)]]);
    let (oracle, dpor, _) = check(&model);
    assert_eq!(oracle.orders.len(), 2);
    assert_eq!(dpor.executions - dpor.blocked, 2);
}

#[test]
fn readers_commute() {
    let model = Model::new(vec![
        vec![op(OpKind::Load, X), op(OpKind::Load, Y)],
        vec![op(OpKind::Load, X), op(OpKind::Load, Y)],
        vec![op(OpKind::Load, X)],
    ]);
    let (oracle, dpor, _) = check(&model);
    assert_eq!(oracle.orders.len(), 1);
    assert_eq!(dpor.executions, 1);
}

#[test]
fn locks_protecting_independent_work() {
    let crit = |v| {
        vec![
            op(OpKind::MutexLock, M),
            op(OpKind::Load, v),
            op(OpKind::Store, v),
            op(OpKind::MutexUnlock, M),
        ]
    };
    let model = Model::new(vec![crit(X), crit(X), crit(Y)]);
    let (oracle, dpor, _) = check(&model);
    assert_eq!(oracle.orders.len(), 6);
    assert_eq!(dpor.executions - dpor.blocked, 6);
}

/// Random programs of 2–3 threads over two variables and one mutex: DPOR-CR
/// with and without sleep sets finds exactly the oracle's partial orders.
#[test]
fn random_programs_match_the_oracle() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut totals = (0, 0, 0);
    for _ in 0..300 {
        let threads = 2 + next(2) as usize;
        let mut model = Model::new(Vec::new());
        for _ in 0..threads {
            let mut ops = Vec::new();
            while ops.len() < 3 && (ops.is_empty() || next(3) != 0) {
                let var = if next(2) == 0 { X } else { Y };
                match next(5) {
                    0 | 1 => ops.push(op(OpKind::Load, var)),
                    2 | 3 => ops.push(op(OpKind::Store, var)),
                    _ if ops.is_empty() => {
                        ops.push(op(OpKind::MutexLock, M));
                        ops.push(op(OpKind::Store, var));
                        ops.push(op(OpKind::MutexUnlock, M));
                    }
                    _ => ops.push(op(OpKind::Store, var)),
                }
            }
            model.threads.push(ops);
        }
        let (oracle, dpor, plain) = check(&model);
        assert!(dpor.executions <= oracle.executions);
        assert!(dpor.executions - dpor.blocked <= plain.executions);
        totals.0 += oracle.orders.len();
        totals.1 += dpor.executions - dpor.blocked;
        totals.2 += dpor.blocked;
    }
    eprintln!(
        "orders {} / dpor complete executions {} / sleep-blocked {}",
        totals.0, totals.1, totals.2
    );
}

/// Rwlocks shared by readers and `pthread_once` calls: DPOR with and
/// without sleep sets explores every partial order of the oracle.
#[test]
fn random_programs_with_rwlocks_and_once_match_the_oracle() {
    let mut rng = Rng(0xbb67_ae85_84ca_a73b);
    let mut checked = 0;
    for _ in 0..400 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_rwlock_once_model(&mut rng, threads);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 11 {
            continue;
        }
        check(&model);
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}

/// Four threads of two unprotected accesses each over three variables.
#[test]
fn random_lock_free_programs_match_the_oracle() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for _ in 0..15 {
        let mut model = Model::new(Vec::new());
        for _ in 0..4 {
            let ops = (0..2)
                .map(|_| {
                    let var = [X, Y, 0x3000][next(3) as usize];
                    let kind = if next(2) == 0 {
                        OpKind::Load
                    } else {
                        OpKind::Store
                    };
                    op(kind, var)
                })
                .collect();
            model.threads.push(ops);
        }
        check(&model);
    }
}

/// Unused-result additions commute: three threads adding to one counter
/// are one partial order, one execution; an or on the same counter, or a
/// read, is ordered against each of them.
#[test]
fn commuting_updates() {
    let add = || vec![update(RmwFamily::Additive, X)];
    let (oracle, dpor, _) = check(&Model::new(vec![add(), add(), add()]));
    assert_eq!((oracle.orders.len(), dpor.executions), (1, 1));
    let mixed = Model::new(vec![add(), add(), vec![update(RmwFamily::Or, X)]]);
    assert_eq!(check(&mixed).0.orders.len(), 4);
    let read = Model::new(vec![add(), add(), vec![op(OpKind::AtomicLoad, X)]]);
    assert_eq!(check(&read).0.orders.len(), 4);
}

/// Random programs with commuting updates: DPOR-CR with and without sleep
/// sets finds exactly the oracle's partial orders.
#[test]
fn random_programs_with_commuting_updates_match_the_oracle() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..400 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_update_model(&mut rng, threads, 3);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 8 {
            continue;
        }
        check(&model);
    }
}

/// Split into 2, 3 and 4 shards that never talk to each other (`--shard`),
/// subtrees given by estimate or by probe, DPOR with and without sleep sets
/// (and the exhaustive search) explore exactly the partial orders of the
/// oracle, each in one shard only (with sleep sets).
#[test]
fn random_programs_split_into_shards_match_the_oracle() {
    let mut rng = Rng(0x7f4a_7c15_9e37_79b9);
    let (mut checked, mut executions, mut orders) = (0, 0, 0);
    for round in 0..300u64 {
        let threads = 2 + rng.below(2) as usize;
        let model = match round % 3 {
            0 => random_model(&mut rng, threads, 3),
            1 => random_sync_model(&mut rng, threads),
            _ => random_rwlock_once_model(&mut rng, threads),
        };
        if model.threads.iter().map(Vec::len).sum::<usize>() > 9 {
            continue;
        }
        let oracle = model::explore(&model, &mut Exhaustive::default());
        for (count, split, how) in SHARD_SHAPES {
            let shape = (count, split);
            let sleep = || Dpor::new(true).with_shard_plan(split, count);
            executions += check_shards(&model, &oracle.orders, sleep, shape, how);
            // Without sleep sets DPOR may run a partial order twice, in one
            // search as across shards: only the union is exact.
            let plain = || Dpor::new(false).with_shard_plan(split, count);
            let (union, _, _) = run_shards(&model, plain, shape, how);
            assert!(
                union == oracle.orders,
                "dpor-cr in {count} shards ({how:?}) in\n{}",
                describe(&model)
            );
            // The exhaustive search runs every interleaving: its shards
            // share partial orders, never an interleaving.
            let all = || Exhaustive::default().with_shard_plan(split, count);
            let (union, _, ran) = run_shards(&model, all, shape, Assignment::Balanced);
            assert!(
                union == oracle.orders && ran >= oracle.executions,
                "exhaustive in {count} shards in\n{}",
                describe(&model)
            );
            orders += oracle.orders.len();
        }
        checked += 1;
    }
    assert!(checked > 150, "{checked}");
    eprintln!("{checked} programs in 2, 3 and 4 shards: dpor ran {executions} executions for {orders} partial orders");
}
