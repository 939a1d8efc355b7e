//! Unfolding-based testing checked against the exhaustive oracle on
//! simulated programs (the interpreter of `model` plays the runtime: forced
//! prefix, then "continue, else lowest"). On random programs with mutexes,
//! semaphores, racing plain accesses and early exits, `unfold` must reach
//! every local state (thread, program location, values it read) that some
//! interleaving reaches, find a deadlock whenever one exists, never ask for
//! a schedule the program cannot follow (the interpreter panics), and end
//! with an unfolding of the same size whichever possible extension it
//! takes first (Sec. 4.6 of the paper).

use crate::model;

use model::{describe, op, random_model, random_sync_model, Model, Rng, X, Y};
use reach_channel::OpKind;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::unfold::{Order, Unfold};
use reach_native::strategy::Strategy;
use reach_native::trace::Trace;
use std::collections::{HashMap, HashSet};

/// A local state: thread, operations it executed, values its reads saw.
type LocalState = (u32, usize, Vec<u64>);

/// Every local state of a trace. Memory holds values: each write stores a
/// value unique to its thread and position, each read appends what it saw.
fn local_states(trace: &Trace, into: &mut HashSet<LocalState>) {
    let mut memory: HashMap<u64, u64> = HashMap::new();
    let mut seen: HashMap<u32, (usize, Vec<u64>)> = HashMap::new();
    for event in &trace.events {
        let (pc, values) = seen.entry(event.thread).or_default();
        match event.op.kind {
            OpKind::Load => values.push(memory.get(&event.op.object).copied().unwrap_or(0)),
            OpKind::Store => {
                memory.insert(
                    event.op.object,
                    u64::from(event.thread) * 1000 + *pc as u64 + 1,
                );
            }
            // A semaphore operation sees the count.
            OpKind::SemWait | OpKind::SemPost => values.push(event.op.aux),
            _ => {}
        }
        *pc += 1;
        into.insert((event.thread, *pc, values.clone()));
    }
}

/// What an exploration reached.
struct Reached {
    executions: usize,
    states: HashSet<LocalState>,
    deadlocks: usize,
}

fn run(model: &Model, strategy: &mut dyn Strategy) -> Reached {
    let mut reached = Reached {
        executions: 0,
        states: HashSet::new(),
        deadlocks: 0,
    };
    while let Some(request) = strategy.next_request() {
        let execution = model.run(&request);
        if let Err(divergence) = strategy.observe(&request, &execution.trace) {
            panic!(
                "prefix {:?} not followed ({divergence}) in\n{}",
                request.prefix,
                describe(model)
            );
        }
        reached.executions += 1;
        assert!(
            reached.executions < 100_000,
            "exploration does not terminate"
        );
        local_states(&execution.trace, &mut reached.states);
        reached.deadlocks += usize::from(execution.deadlock);
    }
    reached
}

/// Every local state of the oracle, the same deadlocks, and the same
/// unfolding under two orders. Returns (oracle executions, unfold executions).
fn check(model: &Model) -> (usize, usize) {
    let oracle = run(model, &mut Exhaustive::default());
    let mut first = Unfold::new(Order::Oldest);
    let unfold = run(model, &mut first);
    let missing: Vec<_> = oracle.states.difference(&unfold.states).collect();
    assert!(
        missing.is_empty(),
        "unfold misses local states {missing:?} of\n{}",
        describe(model)
    );
    assert_eq!(
        unfold.deadlocks > 0,
        oracle.deadlocks > 0,
        "deadlock found by one only in\n{}",
        describe(model)
    );
    let mut second = Unfold::new(Order::Newest);
    let other = run(model, &mut second);
    assert_eq!(
        first.events(),
        second.events(),
        "the unfolding depends on the exploration order in\n{}",
        describe(model)
    );
    assert_eq!(other.states, unfold.states);
    (oracle.executions, unfold.executions)
}

#[test]
fn random_racy_programs_reach_every_local_state() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut checked, mut oracle, mut unfold) = (0, 0, 0);
    for _ in 0..700 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_model(&mut rng, threads, 3);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 9 {
            continue;
        }
        let (o, u) = check(&model);
        oracle += o;
        unfold += u;
        checked += 1;
    }
    assert!(checked > 500, "{checked}");
    eprintln!("{checked} racy programs: oracle {oracle} executions, unfold {unfold}");
}

#[test]
fn random_synchronised_programs_reach_every_local_state() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut checked, mut oracle, mut unfold) = (0, 0, 0);
    for _ in 0..300 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_sync_model(&mut rng, threads);
        if model.threads.iter().map(Vec::len).sum::<usize>() > 10 {
            continue;
        }
        let (o, u) = check(&model);
        oracle += o;
        unfold += u;
        checked += 1;
    }
    assert!(checked > 200, "{checked}");
    eprintln!("{checked} synchronised programs: oracle {oracle} executions, unfold {unfold}");
}

/// Pairs(n) of Fig. 3 / Fig. 12: n independent reader/writer pairs. The
/// executions do not grow with n.
#[test]
fn pairs_need_the_same_executions_whatever_n() {
    let mut counts = Vec::new();
    for n in 1..=6u64 {
        let mut threads = Vec::new();
        for k in 0..n {
            let var = 0x1000 + 0x100 * k;
            threads.push(vec![op(OpKind::Load, var)]);
            threads.push(vec![op(OpKind::Store, var)]);
        }
        // Joining would make the main thread's unfolding branch on every
        // combination of the pairs' ends: it only creates them.
        let mut model = Model::new(threads);
        model.main_returns = true;
        let mut unfold = Unfold::new(Order::Oldest);
        let reached = run(&model, &mut unfold);
        counts.push(reached.executions);
    }
    assert_eq!(counts, vec![2; 6]);
}

/// Two threads taking two locks in opposite orders: the deadlock is found
/// by the search on the unfolding even though the continuation of every
/// covering execution avoids it.
#[test]
fn lock_order_inversion_is_found_on_the_unfolding() {
    let (m, n) = (model::M, model::N);
    let model = Model::new(vec![
        vec![
            op(OpKind::MutexLock, m),
            op(OpKind::MutexLock, n),
            op(OpKind::Store, X),
            op(OpKind::MutexUnlock, n),
            op(OpKind::MutexUnlock, m),
        ],
        vec![
            op(OpKind::MutexLock, n),
            op(OpKind::MutexLock, m),
            op(OpKind::Store, Y),
            op(OpKind::MutexUnlock, m),
            op(OpKind::MutexUnlock, n),
        ],
    ]);
    let mut unfold = Unfold::new(Order::Oldest);
    let reached = run(&model, &mut unfold);
    assert_eq!(unfold.deadlocks_found(), 1);
    assert_eq!(reached.deadlocks, 1);
}
