//! A simulated program for testing strategies without processes: a small
//! interpreter plays the runtime's role (forced prefix, then "continue, else
//! lowest" with sleep sets, Fig. 7) over threads that run fixed lists of
//! memory, mutex, semaphore, rwlock and `pthread_once` operations.

#![allow(dead_code)]

pub mod spin;

use reach_channel::{EventFlags, Op, OpKind, RmwFamily, ThreadSet};
use reach_native::analysis::fingerprint::fingerprint;
use reach_native::exec::Request;
use reach_native::shard::{Assignment, ShardSpec, Shardable, Sharded};
use reach_native::strategy::Strategy;
use reach_native::trace::{Trace, TraceEvent};
use std::collections::{HashMap, HashSet};

/// The runtime's "continue, then lowest" choice past a prefix: the
/// current thread if it is enabled and awake, else the lowest awake one;
/// `None` if every enabled thread sleeps (the execution is sleep-blocked).
pub fn continue_choice(enabled: ThreadSet, sleep: ThreadSet, current: usize) -> Option<usize> {
    let awake = enabled.minus(&sleep);
    let lowest = awake.first()?;
    Some(if awake.contains(current as u32) {
        current
    } else {
        lowest as usize
    })
}

/// A memory or synchronisation operation of 4 bytes on `object`.
pub fn op(kind: OpKind, object: u64) -> Op {
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
pub struct Model {
    /// Operations of threads 1..=n.
    pub threads: Vec<Vec<Op>>,
    /// Initial semaphore counts.
    pub semaphores: Vec<(u64, u32)>,
    /// Thread 0 ends the process right after creating the others.
    pub exit_early: bool,
    /// `(t, k)`: thread `t` (1-based) crashes in the transition of its
    /// `k`-th operation (0-based), ending the process as a fatal signal
    /// would (the trace's `ended_by`).
    pub crash: Option<(usize, usize)>,
    /// Thread 0 only creates the others, then ends without joining them.
    pub main_returns: bool,
}

/// One simulated execution.
pub struct Execution {
    /// Its trace.
    pub trace: Trace,
    /// Ended because every enabled thread was asleep (Fig. 7).
    pub sleep_blocked: bool,
    /// Ended with live threads that can never run again.
    pub deadlock: bool,
}

impl Model {
    /// A model without semaphores that joins its threads.
    pub fn new(threads: Vec<Vec<Op>>) -> Model {
        Model {
            threads,
            semaphores: Vec::new(),
            exit_early: false,
            crash: None,
            main_returns: false,
        }
    }

    fn program_of(&self, t: usize) -> Vec<Op> {
        if t == 0 {
            let n = self.threads.len() as u64;
            let creates = (1..=n).map(|c| op(OpKind::ThreadCreate, c));
            if self.main_returns {
                creates.collect()
            } else if self.exit_early {
                {
                    // The simulated exit is always enabled: it cuts threads short.
                    let mut exit = op(OpKind::ProcessExit, 0);
                    exit.flags = EventFlags(EventFlags::CUTS_THREADS);
                    creates.chain([exit]).collect()
                }
            } else {
                creates
                    .chain((1..=n).map(|c| op(OpKind::ThreadJoin, c)))
                    .collect()
            }
        } else {
            self.threads[t - 1].clone()
        }
    }

    /// Runs one execution as the runtime would: the prefix, then "continue,
    /// else lowest" among enabled threads not in the sleep set, pruning the
    /// sleep set after the prefix (Fig. 7).
    pub fn run(&self, request: &Request) -> Execution {
        let n = self.threads.len() + 1;
        let programs: Vec<Vec<Op>> = (0..n).map(|t| self.program_of(t)).collect();
        let mut pc = vec![0usize; n];
        let mut alive = vec![false; n];
        alive[0] = true;
        let mut owner: HashMap<u64, usize> = HashMap::new();
        // Rwlocks: the writer, and how many read locks are held.
        let mut writer: HashMap<u64, usize> = HashMap::new();
        let mut readers: HashMap<u64, u32> = HashMap::new();
        // Once controls: running (false) or done (true).
        let mut once: HashMap<u64, bool> = HashMap::new();
        let mut counts: HashMap<u64, u32> = self.semaphores.iter().copied().collect();
        let mut sleep = if request.sleep_sets {
            request.sleep_set
        } else {
            ThreadSet::EMPTY
        };
        let mut events = Vec::new();
        let mut current = 0usize;
        let mut exited = false;
        let mut crashed = None;
        let mut sleep_blocked = false;
        loop {
            let mut enabled = ThreadSet::EMPTY;
            for t in (0..n).filter(|&t| alive[t]) {
                let Some(o) = programs[t].get(pc[t]) else {
                    continue;
                };
                let ok = match o.kind {
                    OpKind::MutexLock => !owner.contains_key(&o.object),
                    OpKind::RwReadLock => !writer.contains_key(&o.object),
                    OpKind::RwWriteLock => {
                        !writer.contains_key(&o.object)
                            && readers.get(&o.object).copied().unwrap_or(0) == 0
                    }
                    OpKind::Once if o.aux == 0 => once.get(&o.object) != Some(&false),
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
                    "prefix {:?} asks for disabled T{t} at step {step} of\n{}",
                    request.prefix,
                    describe(self)
                );
                t as usize
            } else {
                let Some(next) = continue_choice(enabled, sleep, current) else {
                    sleep_blocked = true;
                    break;
                };
                next
            };
            let mut executed = programs[chosen][pc[chosen]];
            if matches!(
                executed.kind,
                OpKind::SemWait | OpKind::SemPost | OpKind::SemGetValue
            ) {
                // As the runtime: the count found, in `aux`.
                executed.aux = u64::from(counts.get(&executed.object).copied().unwrap_or(0));
            }
            match executed.kind {
                OpKind::MutexLock => {
                    owner.insert(executed.object, chosen);
                }
                OpKind::MutexUnlock => {
                    owner.remove(&executed.object);
                }
                OpKind::RwReadLock => *readers.entry(executed.object).or_default() += 1,
                OpKind::RwWriteLock => {
                    writer.insert(executed.object, chosen);
                }
                OpKind::RwUnlock => {
                    if writer.get(&executed.object) == Some(&chosen) {
                        writer.remove(&executed.object);
                    } else {
                        *readers.entry(executed.object).or_default() -= 1;
                    }
                }
                OpKind::Once if executed.aux == 0 => {
                    if let std::collections::hash_map::Entry::Vacant(control) =
                        once.entry(executed.object)
                    {
                        control.insert(false);
                    } else {
                        // Done before: skip the init routine and its completion.
                        let end = programs[chosen][pc[chosen]..]
                            .iter()
                            .position(|o| o.kind == OpKind::Once && o.aux == 1)
                            .expect("a once block ends with its completion");
                        pc[chosen] += end;
                    }
                }
                OpKind::Once => {
                    once.insert(executed.object, true);
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
            if self.crash == Some((chosen, pc[chosen])) {
                exited = true;
                crashed = Some(chosen as u32);
            }
            pc[chosen] += 1;
            current = chosen;
            if request.sleep_sets && step + 1 >= request.prefix.len() {
                for r in sleep.iter().collect::<Vec<_>>() {
                    let pending = programs[r as usize].get(pc[r as usize]);
                    if r as usize == chosen || pending.is_none_or(|o| o.conflicts(&executed)) {
                        sleep.remove(r);
                    }
                }
            }
        }
        let deadlock =
            !exited && !sleep_blocked && (0..n).any(|t| alive[t] && pc[t] < programs[t].len());
        let final_pending = (0..n)
            .map(|t| {
                (alive[t] && pc[t] < programs[t].len() && crashed != Some(t as u32))
                    .then(|| (programs[t][pc[t]], 0))
            })
            .collect();
        let mut trace = Trace::new(events, final_pending);
        trace.ended_by = crashed;
        Execution {
            trace,
            sleep_blocked,
            deadlock,
        }
    }
}

/// The model as text, for assertion messages.
pub fn describe(model: &Model) -> String {
    let mut text = format!(
        "{:?} exit_early={} crash={:?}\n",
        model.semaphores, model.exit_early, model.crash
    );
    for (t, ops) in model.threads.iter().enumerate() {
        let ops: Vec<String> = ops
            .iter()
            .map(|o| format!("{} {:#x}", o.kind.name(), o.object))
            .collect();
        text += &format!("  T{}: {}\n", t + 1, ops.join(", "));
    }
    text
}

/// Shared variables and synchronisation objects of the random programs.
pub const X: u64 = 0x1000;
/// See [`X`].
pub const Y: u64 = 0x2000;
/// See [`X`].
pub const Z: u64 = 0x3000;
/// See [`X`].
pub const M: u64 = 0x9000;
/// See [`X`].
pub const N: u64 = 0x9100;
/// See [`X`].
pub const S: u64 = 0xa000;

/// Random generator (xorshift), deterministic.
pub struct Rng(pub u64);

impl Rng {
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A random program of `threads` threads with at most `max_ops` operations
/// each: plain accesses, lock sections, semaphore operations, sometimes an
/// early exit.
pub fn random_model(rng: &mut Rng, threads: usize, max_ops: usize) -> Model {
    let mut model = Model::new(Vec::new());
    model.semaphores = vec![(S, 0)];
    model.exit_early = rng.below(6) == 0;
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
                7 => ops.push(op(OpKind::SemPost, S)),
                _ => ops.push(op(OpKind::SemWait, S)),
            }
        }
        model.threads.push(ops);
    }
    model
}

/// An unused-result read-modify-write of `family` on 4 bytes at `object`,
/// as the runtime records it with `--commute-rmws`.
pub fn update(family: RmwFamily, object: u64) -> Op {
    Op {
        flags: EventFlags(EventFlags::update(family)),
        ..op(OpKind::AtomicRmw, object)
    }
}

/// A random program of `threads` threads with at most `max_ops` operations
/// each over two variables: commuting updates of two families (one of them
/// sometimes 8 bytes wide: another range on the same granule), loads,
/// stores, plain read-modify-writes and lock sections.
pub fn random_update_model(rng: &mut Rng, threads: usize, max_ops: usize) -> Model {
    let mut model = Model::new(Vec::new());
    model.exit_early = rng.below(8) == 0;
    for _ in 0..threads {
        let mut ops = Vec::new();
        while ops.len() < max_ops && (ops.is_empty() || rng.below(4) != 0) {
            let var = [X, Y][rng.below(2) as usize];
            match rng.below(10) {
                0..=3 => ops.push(update(RmwFamily::Additive, var)),
                4 => ops.push(update(RmwFamily::Or, var)),
                5 => ops.push(Op {
                    aux: 8,
                    ..update(RmwFamily::Additive, var)
                }),
                6 => ops.push(op(OpKind::AtomicLoad, var)),
                7 => ops.push(op(OpKind::AtomicRmw, var)),
                8 => ops.push(op(OpKind::AtomicStore, var)),
                _ => {
                    ops.push(op(OpKind::MutexLock, M));
                    ops.push(update(RmwFamily::Additive, var));
                    ops.push(op(OpKind::MutexUnlock, M));
                }
            }
        }
        model.threads.push(ops);
    }
    model
}

/// Programs whose shared variables are only accessed under a lock, plus
/// semaphore signalling: the synchronisation-object programs of Table 1.
pub fn random_sync_model(rng: &mut Rng, threads: usize) -> Model {
    let mut model = Model::new(Vec::new());
    model.semaphores = vec![(S, 0)];
    for _ in 0..threads {
        let mut ops = Vec::new();
        for _ in 0..1 + rng.below(2) {
            match rng.below(4) {
                0 | 1 => {
                    let lock = if rng.below(2) == 0 { M } else { N };
                    let var = [X, Y][rng.below(2) as usize];
                    ops.push(op(OpKind::MutexLock, lock));
                    ops.push(op(
                        if rng.below(2) == 0 {
                            OpKind::Load
                        } else {
                            OpKind::Store
                        },
                        var + lock,
                    ));
                    ops.push(op(OpKind::MutexUnlock, lock));
                }
                2 => ops.push(op(OpKind::SemPost, S)),
                _ => ops.push(op(OpKind::SemWait, S)),
            }
        }
        model.threads.push(ops);
    }
    model
}

/// The start of a `pthread_once` call on `object` (`aux` 0); the
/// interpreter skips what follows up to its completion ([`once_done`]) when
/// the control was already taken.
pub fn once_start(object: u64) -> Op {
    Op {
        aux: 0,
        ..op(OpKind::Once, object)
    }
}

/// The completion of the init routine of the `pthread_once` on `object`.
pub fn once_done(object: u64) -> Op {
    Op {
        aux: 1,
        ..op(OpKind::Once, object)
    }
}

/// An rwlock of the random programs.
pub const RW: u64 = 0x9200;
/// A once control of the random programs.
pub const ONCE: u64 = 0x9300;

/// Programs over an rwlock and a once control: each thread may first touch
/// a variable of its own (so that its lock call is not its first step),
/// then runs read sections, write sections and `pthread_once` calls whose
/// init routine writes a variable the caller reads afterwards.
pub fn random_rwlock_once_model(rng: &mut Rng, threads: usize) -> Model {
    let mut model = Model::new(Vec::new());
    for t in 0..threads {
        let mut ops = Vec::new();
        if rng.below(2) == 0 {
            ops.push(op(OpKind::Store, 0x5000 + 0x100 * t as u64));
        }
        for _ in 0..1 + rng.below(2) {
            match rng.below(5) {
                0 | 1 => {
                    ops.push(op(OpKind::RwReadLock, RW));
                    ops.push(op(OpKind::Load, X));
                    ops.push(op(OpKind::RwUnlock, RW));
                }
                2 | 3 => {
                    ops.push(op(OpKind::RwWriteLock, RW));
                    ops.push(op(OpKind::Store, X));
                    ops.push(op(OpKind::RwUnlock, RW));
                }
                _ => {
                    ops.push(once_start(ONCE));
                    ops.push(op(OpKind::Store, Y));
                    ops.push(once_done(ONCE));
                    ops.push(op(OpKind::Load, Y));
                }
            }
        }
        model.threads.push(ops);
    }
    model
}

/// What exploring a model found.
#[derive(Default)]
pub struct Run {
    /// Executions run.
    pub executions: usize,
    /// Distinct partial orders of the executions not blocked by a sleep set.
    pub orders: HashSet<u64>,
    /// Executions that ended in a deadlock.
    pub deadlocks: usize,
    /// Executions that ended with every enabled thread asleep.
    pub sleep_blocked: usize,
    /// Executions blocked at an await (a loop read what changed later).
    pub await_blocked: usize,
}

impl Run {
    /// Counts one execution.
    fn record(&mut self, execution: &Execution) {
        self.executions += 1;
        assert!(self.executions < 200_000, "exploration does not terminate");
        self.sleep_blocked += usize::from(execution.sleep_blocked);
        if !execution.sleep_blocked {
            self.orders.insert(fingerprint(&execution.trace));
        }
        self.deadlocks += usize::from(execution.deadlock);
    }
}

/// Explores `model` with `strategy` to the end; a divergence is reported
/// with the model.
pub fn explore(model: &Model, strategy: &mut dyn Strategy) -> Run {
    let mut run = Run::default();
    while let Some(request) = strategy.next_request() {
        let execution = model.run(&request);
        if let Err(divergence) = strategy.observe(&request, &execution.trace) {
            panic!(
                "prefix {:?} not followed ({divergence}) in\n{}",
                request.prefix,
                describe(model)
            );
        }
        run.record(&execution);
    }
    run
}

/// A subtree being explored in [`explore_split`].
struct SimTask<S> {
    search: S,
    /// The task that gave it away (`None`: the first search).
    parent: Option<usize>,
    root: usize,
    branch: Option<usize>,
    request: Option<Request>,
}

/// Explores `model` as `--jobs` does, in one thread: the first search runs
/// the first execution and hands out subtrees; tasks run one execution at a
/// time in an order `rng` picks and are asked to share at random; reports
/// go where the coordinator of `reach_native::parallel` sends them: up to
/// the nearest ancestor that owns the node, or down to a subtree given
/// away (back to the sender if that subtree is finished).
pub fn explore_split<S: reach_native::strategy::split::Splittable>(
    model: &Model,
    mut master: S,
    rng: &mut Rng,
) -> Run {
    let mut run = Run::default();
    let Some(first) = master.next_request() else {
        return run;
    };
    let execution = model.run(&first);
    master
        .observe(&first, &execution.trace)
        .unwrap_or_else(|d| panic!("first execution diverged ({d}) in\n{}", describe(model)));
    run.record(&execution);
    let mut tasks: Vec<Option<SimTask<S>>> = Vec::new();
    loop {
        let live: Vec<usize> = (0..tasks.len()).filter(|&t| tasks[t].is_some()).collect();
        let action = rng.below(4);
        if live.is_empty() || action == 0 {
            if let Some((request, search)) = master.take_subtree() {
                tasks.push(Some(SimTask {
                    root: search.root().unwrap_or(0),
                    branch: search.lent_branch(),
                    search,
                    parent: None,
                    request: Some(request),
                }));
                continue;
            }
            if live.is_empty() {
                break;
            }
        }
        let t = live[rng.below(live.len() as u64) as usize];
        if action == 1 {
            let task = tasks[t].as_mut().expect("live task");
            if let Some((request, search)) = task.search.split() {
                tasks.push(Some(SimTask {
                    root: search.root().unwrap_or(0),
                    branch: search.lent_branch(),
                    search,
                    parent: Some(t),
                    request: Some(request),
                }));
            }
            continue;
        }
        let task = tasks[t].as_mut().expect("live task");
        let Some(request) = task.request.take() else {
            if task.search.paused() {
                task.request = task.search.next_request();
                if task.request.is_some() || task.search.paused() {
                    continue;
                }
            }
            let done = tasks[t].take().expect("live task");
            if let Some(p) = done.parent {
                if let Some(parent) = tasks[p].as_mut() {
                    parent.search.subtree_done(done.root);
                }
            }
            continue;
        };
        let execution = model.run(&request);
        task.search
            .observe(&request, &execution.trace)
            .unwrap_or_else(|d| panic!("a subtree diverged ({d}) in\n{}", describe(model)));
        run.record(&execution);
        let reports = task.search.take_reports();
        task.request = task.search.next_request();
        let mut queue: Vec<(Option<usize>, S::Report)> =
            reports.into_iter().map(|r| (Some(t), r)).collect();
        while let Some((from, report)) = queue.pop() {
            let target = match S::forward_to(&report) {
                Some((depth, branch)) => {
                    let child = (0..tasks.len()).find(|&c| {
                        tasks[c].as_ref().is_some_and(|c| {
                            c.parent == from && c.root == depth && c.branch == Some(branch)
                        })
                    });
                    match child {
                        Some(c) => {
                            // Reported up from the child, it reaches the sender.
                            if let Some(settled) = S::settled(&report) {
                                queue.push((Some(c), settled));
                            }
                            Some(c)
                        }
                        None => from,
                    }
                }
                None => {
                    let depth = S::report_depth(&report);
                    let mut owner = from.and_then(|f| tasks[f].as_ref()).and_then(|f| f.parent);
                    while let Some(o) = owner {
                        let found = tasks[o].as_ref().expect("an owner outlives its subtrees");
                        if depth > found.root {
                            break;
                        }
                        owner = found.parent;
                    }
                    owner
                }
            };
            let search = match target {
                Some(o) => &mut tasks[o].as_mut().expect("owner").search,
                None => &mut master,
            };
            let forwarded = S::forward_to(&report).is_some();
            search.apply_reports(vec![report]);
            queue.extend(search.take_reports().into_iter().map(|r| (target, r)));
            if let (true, Some(c)) = (forwarded, target) {
                // A task that had nothing left may have again.
                let child = tasks[c].as_mut().expect("live task");
                if child.request.is_none() && !child.search.paused() {
                    child.request = child.search.next_request();
                }
            }
        }
    }
    run
}

/// Shard counts, `--shard-split` values and assignments the model tests
/// split searches with.
pub const SHARD_SHAPES: [(u32, u32, Assignment); 5] = [
    (2, 1, Assignment::Balanced),
    (4, 2, Assignment::Balanced),
    (2, 2, Assignment::Probed),
    (3, 4, Assignment::Probed),
    (4, 1, Assignment::Probed),
];

/// Runs shard `index` of `count` (`--shard-split` `split`) of the search
/// `make` builds over `model`: the partial orders of the executions the
/// shard counts (the shared part is counted once, by one shard), and how
/// many executions it ran.
pub fn shard_orders<S: Shardable>(
    model: &Model,
    search: S,
    (index, count, split): (u32, u32, u32),
    how: Assignment,
) -> (HashSet<u64>, usize) {
    let spec = ShardSpec {
        index,
        count,
        split,
    };
    let mut shard = Sharded::new(search, spec, how);
    let (mut orders, mut executions) = (HashSet::new(), 0);
    while let Some(request) = shard.next_request() {
        let execution = model.run(&request);
        shard
            .observe(&request, &execution.trace)
            .unwrap_or_else(|d| {
                panic!(
                    "shard {index}/{count} diverged ({d}) in\n{}",
                    describe(model)
                )
            });
        executions += 1;
        assert!(executions < 200_000, "exploration does not terminate");
        if shard.counted() && !execution.sleep_blocked {
            orders.insert(fingerprint(&execution.trace));
        }
    }
    (orders, executions)
}

/// Every shard of `count` (`--shard-split` `split`) of the search `make`
/// builds, run over `model`: the union of the partial orders they count,
/// how many they count together, and the executions they ran.
pub fn run_shards<S: Shardable>(
    model: &Model,
    make: impl Fn() -> S,
    (count, split): (u32, u32),
    how: Assignment,
) -> (HashSet<u64>, usize, usize) {
    let (mut union, mut counted, mut executions) = (HashSet::new(), 0, 0);
    for index in 0..count {
        let (shard, ran) = shard_orders(model, make(), (index, count, split), how);
        counted += shard.len();
        executions += ran;
        union.extend(shard);
    }
    (union, counted, executions)
}

/// Runs every shard of `count` (`--shard-split` `split`) of the search
/// `make` builds over `model` and checks that together they count exactly
/// `oracle`, each partial order in one shard only; returns the executions
/// they ran.
pub fn check_shards<S: Shardable>(
    model: &Model,
    oracle: &HashSet<u64>,
    make: impl Fn() -> S,
    (count, split): (u32, u32),
    how: Assignment,
) -> usize {
    let (union, counted, executions) = run_shards(model, make, (count, split), how);
    assert!(
        union == *oracle,
        "{count} shards ({how:?}): {} partial orders against the oracle's {} in\n{}",
        union.len(),
        oracle.len(),
        describe(model)
    );
    assert_eq!(
        counted,
        union.len(),
        "{count} shards ({how:?}) ran a partial order in two shards in\n{}",
        describe(model)
    );
    executions
}
