//! DPOR-CR with sleep sets checked against the exhaustive oracle on simulated
//! programs: a small interpreter plays the runtime's role (prefix, then
//! "continue, else lowest" with sleep sets, Fig. 7), so the strategies are
//! tested on thousands of random programs without starting processes.

use reach_channel::{EventFlags, Op, OpKind, ThreadSet};
use reach_native::analysis::fingerprint::fingerprint;
use reach_native::exec::Request;
use reach_native::strategy::dpor::Dpor;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::Strategy;
use reach_native::trace::{Trace, TraceEvent};
use std::collections::{HashMap, HashSet};

fn op(kind: OpKind, object: u64) -> Op {
    Op {
        kind,
        flags: EventFlags::default(),
        object,
        aux: 4,
    }
}

/// A simulated program: thread 0 creates threads 1..=n, each runs its list
/// of operations, then thread 0 joins them all.
struct Model {
    threads: Vec<Vec<Op>>,
}

impl Model {
    fn program_of(&self, t: usize) -> Vec<Op> {
        if t == 0 {
            let n = self.threads.len() as u64;
            (1..=n)
                .map(|c| op(OpKind::ThreadCreate, c))
                .chain((1..=n).map(|c| op(OpKind::ThreadJoin, c)))
                .collect()
        } else {
            self.threads[t - 1].clone()
        }
    }

    /// Runs one execution as the runtime would.
    fn run(&self, request: &Request) -> (Trace, bool) {
        let n = self.threads.len() + 1;
        let programs: Vec<Vec<Op>> = (0..n).map(|t| self.program_of(t)).collect();
        let mut pc = vec![0usize; n];
        let mut alive = vec![false; n];
        alive[0] = true;
        let mut owner: HashMap<u64, usize> = HashMap::new();
        let mut sleep = if request.sleep_sets {
            request.sleep_set
        } else {
            ThreadSet::EMPTY
        };
        let mut events = Vec::new();
        let mut current = 0usize;
        let mut blocked = false;
        loop {
            let pending = |t: usize, pc: &Vec<usize>| programs[t].get(pc[t]).copied();
            let mut enabled = ThreadSet::EMPTY;
            for (t, _) in alive.iter().enumerate().filter(|(_, a)| **a) {
                if let Some(o) = pending(t, &pc) {
                    let ok = match o.kind {
                        OpKind::MutexLock => !owner.contains_key(&o.object),
                        OpKind::ThreadJoin => {
                            pc[o.object as usize] >= programs[o.object as usize].len()
                        }
                        _ => true,
                    };
                    if ok {
                        enabled.insert(t as u32);
                    }
                }
            }
            if enabled.is_empty() {
                break;
            }
            let step = events.len();
            let in_prefix = step < request.prefix.len();
            let chosen = if in_prefix {
                let t = request.prefix[step];
                assert!(enabled.contains(t), "prefix asks for a disabled thread");
                t as usize
            } else {
                let awake = enabled.minus(&sleep);
                if awake.is_empty() {
                    blocked = true;
                    break;
                }
                if awake.contains(current as u32) {
                    current
                } else {
                    awake.first().unwrap() as usize
                }
            };
            let executed = pending(chosen, &pc).unwrap();
            match executed.kind {
                OpKind::MutexLock => {
                    owner.insert(executed.object, chosen);
                }
                OpKind::MutexUnlock => {
                    owner.remove(&executed.object);
                }
                OpKind::ThreadCreate => alive[executed.object as usize] = true,
                _ => {}
            }
            events.push(TraceEvent {
                thread: chosen as u32,
                op: executed,
                site: 0,
                enabled,
            });
            pc[chosen] += 1;
            current = chosen;
            if request.sleep_sets && step + 1 >= request.prefix.len() {
                for r in sleep.iter().collect::<Vec<_>>() {
                    let conflict = pending(r as usize, &pc).is_none_or(|o| o.conflicts(&executed));
                    if conflict || r as usize == chosen {
                        sleep.remove(r);
                    }
                }
            }
        }
        let final_pending = (0..n)
            .map(|t| (alive[t] && pc[t] < programs[t].len()).then(|| (programs[t][pc[t]], 0)))
            .collect();
        (Trace::new(events, final_pending), blocked)
    }
}

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
        let (trace, blocked) = model.run(&request);
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
    if dpor.orders != oracle.orders {
        for (t, ops) in model.threads.iter().enumerate() {
            eprintln!(
                "thread {}: {:?}",
                t + 1,
                ops.iter()
                    .map(|o| (o.kind.name(), o.object))
                    .collect::<Vec<_>>()
            );
        }
    }
    assert_eq!(
        dpor.orders, oracle.orders,
        "DPOR+sleep misses or invents partial orders"
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
    let model = Model {
        threads: vec![vec![op(OpKind::Store, X)], vec![op(OpKind::Store, X)]],
    };
    let (oracle, dpor, _) = check(&model);
    assert_eq!(oracle.orders.len(), 2);
    assert_eq!(dpor.executions - dpor.blocked, 2);
}

#[test]
fn readers_commute() {
    let model = Model {
        threads: vec![
            vec![op(OpKind::Load, X), op(OpKind::Load, Y)],
            vec![op(OpKind::Load, X), op(OpKind::Load, Y)],
            vec![op(OpKind::Load, X)],
        ],
    };
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
    let model = Model {
        threads: vec![crit(X), crit(X), crit(Y)],
    };
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
        let mut model = Model {
            threads: Vec::new(),
        };
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
        let mut model = Model {
            threads: Vec::new(),
        };
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
