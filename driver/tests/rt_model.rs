//! Reachability testing checked against the exhaustive oracle on simulated
//! programs: a small interpreter plays the runtime's role (forced prefix,
//! then "continue, else lowest"), so RT is tested on many random programs
//! with mutexes, semaphores and shared variables without starting
//! processes. RT must exercise exactly the oracle's partial orders, each
//! once.

use reach_channel::{EventFlags, Op, OpKind, ThreadSet};
use reach_native::analysis::fingerprint::fingerprint;
use reach_native::exec::Request;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::rt::ReachabilityTesting;
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
/// of operations, then thread 0 joins them all (or, with `exit_early`,
/// ends the process without joining).
#[derive(Clone, Debug)]
struct Model {
    threads: Vec<Vec<Op>>,
    /// Initial semaphore counts.
    semaphores: Vec<(u64, u32)>,
    exit_early: bool,
}

impl Model {
    fn new(threads: Vec<Vec<Op>>) -> Model {
        Model {
            threads,
            semaphores: Vec::new(),
            exit_early: false,
        }
    }

    fn program_of(&self, t: usize) -> Vec<Op> {
        if t == 0 {
            let n = self.threads.len() as u64;
            let creates = (1..=n).map(|c| op(OpKind::ThreadCreate, c));
            if self.exit_early {
                creates.chain([op(OpKind::ProcessExit, 0)]).collect()
            } else {
                creates
                    .chain((1..=n).map(|c| op(OpKind::ThreadJoin, c)))
                    .collect()
            }
        } else {
            self.threads[t - 1].clone()
        }
    }

    /// Runs one execution as the runtime would. Returns the trace and
    /// whether it deadlocked.
    fn run(&self, request: &Request) -> (Trace, bool) {
        let n = self.threads.len() + 1;
        let programs: Vec<Vec<Op>> = (0..n).map(|t| self.program_of(t)).collect();
        let mut pc = vec![0usize; n];
        let mut alive = vec![false; n];
        alive[0] = true;
        let mut owner: HashMap<u64, usize> = HashMap::new();
        let mut counts: HashMap<u64, u32> = self.semaphores.iter().copied().collect();
        let mut events = Vec::new();
        let mut current = 0usize;
        let mut exited = false;
        loop {
            let mut enabled = ThreadSet::EMPTY;
            for t in (0..n).filter(|&t| alive[t]) {
                let Some(o) = programs[t].get(pc[t]) else {
                    continue;
                };
                let ok = match o.kind {
                    OpKind::MutexLock => !owner.contains_key(&o.object),
                    OpKind::SemWait => counts.get(&o.object).copied().unwrap_or(0) > 0,
                    OpKind::ThreadJoin => {
                        pc[o.object as usize] >= programs[o.object as usize].len()
                    }
                    _ => true,
                };
                if ok {
                    enabled.insert(t as u32);
                }
            }
            if enabled.is_empty() || exited {
                break;
            }
            let step = events.len();
            let chosen = if step < request.prefix.len() {
                let t = request.prefix[step];
                assert!(
                    enabled.contains(t),
                    "prefix asks for a disabled thread at step {step}"
                );
                t as usize
            } else if enabled.contains(current as u32) {
                current
            } else {
                enabled.first().expect("some thread is enabled") as usize
            };
            let executed = programs[chosen][pc[chosen]];
            match executed.kind {
                OpKind::MutexLock => {
                    owner.insert(executed.object, chosen);
                }
                OpKind::MutexUnlock => {
                    owner.remove(&executed.object);
                }
                OpKind::SemWait => *counts.entry(executed.object).or_default() -= 1,
                OpKind::SemPost => *counts.entry(executed.object).or_default() += 1,
                OpKind::ThreadCreate => alive[executed.object as usize] = true,
                OpKind::ProcessExit => exited = true,
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
        }
        let deadlock = !exited && (0..n).any(|t| alive[t] && pc[t] < programs[t].len());
        let final_pending = (0..n)
            .map(|t| (alive[t] && pc[t] < programs[t].len()).then(|| (programs[t][pc[t]], 0)))
            .collect();
        (Trace::new(events, final_pending), deadlock)
    }
}

struct Run {
    executions: usize,
    orders: HashSet<u64>,
    deadlocks: usize,
}

fn explore(model: &Model, strategy: &mut dyn Strategy) -> Run {
    let mut run = Run {
        executions: 0,
        orders: HashSet::new(),
        deadlocks: 0,
    };
    while let Some(request) = strategy.next_request() {
        let (trace, deadlock) = model.run(&request);
        strategy
            .observe(&request, &trace)
            .expect("the model is deterministic");
        run.executions += 1;
        assert!(run.executions < 200_000, "exploration does not terminate");
        run.orders.insert(fingerprint(&trace));
        run.deadlocks += usize::from(deadlock);
    }
    run
}

fn describe(model: &Model) -> String {
    let mut text = format!("{:?} exit_early={}\n", model.semaphores, model.exit_early);
    for (t, ops) in model.threads.iter().enumerate() {
        let ops: Vec<String> = ops
            .iter()
            .map(|o| format!("{} {:#x}", o.kind.name(), o.object))
            .collect();
        text += &format!("  T{}: {}\n", t + 1, ops.join(", "));
    }
    text
}

/// Explores `model` with the oracle and with RT; asserts that RT finds the
/// oracle's partial orders, each exactly once.
fn check(model: &Model) -> (Run, Run) {
    let oracle = explore(model, &mut Exhaustive::default());
    let rt = explore(model, &mut ReachabilityTesting::new());
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

const X: u64 = 0x1000;
const Y: u64 = 0x2000;
const Z: u64 = 0x3000;
const M: u64 = 0x9000;
const N: u64 = 0x9100;
const S: u64 = 0xa000;

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

/// Random generator (xorshift), deterministic.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn random_model(rng: &mut Rng, threads: usize, max_ops: usize) -> Model {
    let mut model = Model::new(Vec::new());
    model.semaphores = vec![(S, 0)];
    model.exit_early = rng.below(6) == 0 && std::env::var_os("RT_NO_EXIT").is_none();
    let mut posts = 0;
    let mut waits = 0;
    for _ in 0..threads {
        let mut ops = Vec::new();
        while ops.len() < max_ops && (ops.is_empty() || rng.below(4) != 0) {
            let var = [X, Y, Z][rng.below(3) as usize];
            match rng.below(9) {
                0..=2 => ops.push(op(OpKind::Load, var)),
                3..=5 => ops.push(op(OpKind::Store, var)),
                6 => {
                    let lock = if rng.below(3) == 0 { N } else { M };
                    ops.push(op(OpKind::MutexLock, lock));
                    ops.push(op(
                        if rng.below(2) == 0 {
                            OpKind::Load
                        } else {
                            OpKind::Store
                        },
                        var,
                    ));
                    ops.push(op(OpKind::MutexUnlock, lock));
                }
                7 => {
                    ops.push(op(OpKind::SemPost, S));
                    posts += 1;
                }
                _ => {
                    ops.push(op(OpKind::SemWait, S));
                    waits += 1;
                }
            }
        }
        model.threads.push(ops);
    }
    let _ = (posts, waits);
    model
}

/// Random programs of 2–3 threads over three variables, two mutexes and a
/// semaphore: RT exercises exactly the oracle's partial orders, each once.
#[test]
fn random_programs_match_the_oracle() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut orders, mut executions) = (0, 0);
    for _ in 0..400 {
        let threads = 2 + rng.below(2) as usize;
        let model = random_model(&mut rng, threads, 3);
        let (oracle, rt) = check(&model);
        orders += oracle.orders.len();
        executions += rt.executions;
    }
    eprintln!("orders {orders}, rt executions {executions}");
}

/// Four threads of up to two operations each.
#[test]
fn random_wider_programs_match_the_oracle() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..40 {
        let model = random_model(&mut rng, 4, 2);
        check(&model);
    }
}

#[test]
#[ignore]
fn debug_print() {
    let mut model = Model::new(vec![
        vec![op(OpKind::Store, X), op(OpKind::Load, Y)],
        vec![op(OpKind::Store, Y)],
    ]);
    model.exit_early = true;
    for r in [explore(&model, &mut Exhaustive::default())] {
        eprintln!("oracle {} orders", r.orders.len());
    }
    let mut rt = ReachabilityTesting::new();
    while let Some(request) = rt.next_request() {
        let (trace, _) = model.run(&request);
        let steps: Vec<String> = trace
            .events
            .iter()
            .map(|e| format!("T{}:{}{:x}", e.thread, e.op.kind.name(), e.op.object >> 12))
            .collect();
        eprintln!(
            "{:?} -> {} [{:x}]",
            request.prefix,
            steps.join(" "),
            fingerprint(&trace) >> 48
        );
        rt.observe(&request, &trace).unwrap();
    }
}
