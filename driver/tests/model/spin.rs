//! Simulated programs of busy-waiting shapes, with values: threads run
//! loads, stores, compare-and-swaps that may fail, exchanges that may
//! write the value already there, yields, retry loops that yield or give
//! a spin hint, an exchange lock taken with yields between tries, and
//! await loops (`while (v != c);`). The interpreter plays the runtime's
//! role as for [`super::Model`] (forced prefix, sleep sets, "continue,
//! else lowest"), records each operation with its outcome (a failed
//! compare-and-swap or an unchanged exchange is a read), parks a thread
//! whose await iteration failed at an `Await` for good (the systematic
//! policy), and, with `holds`, holds back a thread that announced
//! busy-waiting as the runtime's spin detection does (`runtime/src/spin.rs`):
//! left out of the enabled set while another thread can run, yet run when
//! a prefix asks for it.

use super::{continue_choice, op, Rng, Run, X, Y};
use reach_channel::{EventFlags, Op, OpKind, ThreadSet};
use reach_native::analysis::awaits::verdict;
use reach_native::analysis::fingerprint::fingerprint;
use reach_native::exec::Request;
use reach_native::strategy::Strategy;
use reach_native::trace::{Trace, TraceEvent};

/// One operation of a thread of a [`SpinModel`], on variable `X` or `Y`.
#[derive(Clone, Copy, Debug)]
pub enum Inst {
    /// `atomic_load(v)`.
    Load(u64),
    /// `atomic_store(v, value)`.
    Store(u64, i32),
    /// `atomic_compare_exchange_strong(v, from, to)`.
    Cas(u64, i32, i32),
    /// `atomic_exchange(v, to)`.
    Xchg(u64, i32),
    /// `sched_yield()`.
    Yield,
    /// A compare-and-swap tried at most twice, `sched_yield()` after a
    /// failure.
    CasRetryYield(u64, i32, i32),
    /// A compare-and-swap tried at most twice, a spin hint (`pause`, not an
    /// event) after a failure.
    CasRetryPause(u64, i32, i32),
    /// `atomic_exchange(v, 1)` tried at most twice with `sched_yield()`
    /// between; when it found 0, `atomic_store(v, 0)`.
    XchgLock(u64),
    /// `while (atomic_load(v) != value);`: an await loop.
    AwaitEq(u64, i32),
    /// `old = atomic_load(v); while (!atomic_compare_exchange_strong(v,
    /// &old, old + 1));`: an increment retried until it succeeds (a
    /// failed compare-and-swap loads the current value into `old`).
    CasInc(u64),
}

/// A simulated program: thread 0 creates threads 1..=n, each runs its
/// list, then thread 0 joins them all. Variables start at 0.
#[derive(Clone, Debug)]
pub struct SpinModel {
    /// Operations of threads 1..=n.
    pub threads: Vec<Vec<Inst>>,
    /// Hold back threads that announced busy-waiting, as the runtime does.
    pub holds: bool,
}

/// Where a thread is in its operation list.
#[derive(Clone, Copy, Default)]
struct Pc {
    index: usize,
    /// The step of a multi-step operation (retry loops, the lock).
    phase: u8,
    tries: u8,
    /// The value a [`Inst::CasInc`] expects.
    old: i32,
    /// Parked at the `Await` of the failed iteration that began here.
    awaiting: Option<usize>,
}

/// What the runtime's spin detection remembers of a thread since its
/// last progress.
#[derive(Clone, Default)]
struct SpinState {
    count: u32,
    reads: Vec<Op>,
    hinted: bool,
}

impl SpinState {
    fn clear(&mut self) {
        *self = SpinState::default();
    }
}

/// One simulated execution.
pub struct SpinExecution {
    /// Its trace.
    pub trace: Trace,
    /// Ended with every enabled thread asleep.
    pub sleep_blocked: bool,
    /// The prefix asked for a thread that could not run.
    pub diverged: Option<String>,
}

const VARS: [u64; 2] = [X, Y];

fn var_index(var: u64) -> usize {
    usize::from(var == Y)
}

fn valued(kind: OpKind, var: u64, failed: bool) -> Op {
    let mut o = op(kind, var);
    if failed {
        o.flags = EventFlags(EventFlags::FAILED);
    }
    o
}

impl SpinModel {
    fn inst(&self, t: usize, pc: &Pc) -> Option<Inst> {
        self.threads[t - 1].get(pc.index).copied()
    }

    /// The pending operation of thread `t` at `pc`, as the runtime shows it
    /// before it runs (outcome unknown), or `None` if it finished.
    fn pending(&self, t: usize, pc: &Pc) -> Option<Op> {
        let n = self.threads.len();
        if t == 0 {
            return match pc.index {
                i if i < n => Some(op(OpKind::ThreadCreate, i as u64 + 1)),
                i if i < 2 * n => Some(op(OpKind::ThreadJoin, (i - n) as u64 + 1)),
                _ => None,
            };
        }
        if let Some(since) = pc.awaiting {
            return Some(op(OpKind::Await, since as u64));
        }
        Some(match (self.inst(t, pc)?, pc.phase) {
            (Inst::Load(v) | Inst::AwaitEq(v, _) | Inst::CasInc(v), 0) => op(OpKind::AtomicLoad, v),
            (Inst::CasInc(v), _) => op(OpKind::CmpXchg, v),
            (Inst::Load(v) | Inst::AwaitEq(v, _), _) => op(OpKind::AtomicLoad, v),
            (Inst::Store(v, _), _) | (Inst::XchgLock(v), 2) => op(OpKind::AtomicStore, v),
            (Inst::Cas(v, ..) | Inst::CasRetryYield(v, ..) | Inst::CasRetryPause(v, ..), 0) => {
                op(OpKind::CmpXchg, v)
            }
            (Inst::Xchg(v, _) | Inst::XchgLock(v), 0) => op(OpKind::AtomicRmw, v),
            _ => op(OpKind::Yield, 0),
        })
    }

    /// Runs thread `t`'s pending operation: updates `vars` and `pc`,
    /// returns the operation as executed and whether a spin hint followed.
    fn execute(&self, t: usize, pc: &mut Pc, vars: &mut [i32; 2], step: usize) -> (Op, bool) {
        let pending = self.pending(t, pc).expect("a pending operation");
        if t == 0 {
            pc.index += 1;
            return (pending, false);
        }
        let inst = self.inst(t, pc).expect("an operation");
        let mut done = |pc: &mut Pc| {
            *pc = Pc {
                index: pc.index + 1,
                ..Pc::default()
            }
        };
        let retry = |pc: &mut Pc, done: &mut dyn FnMut(&mut Pc)| {
            pc.tries += 1;
            pc.phase = 0;
            if pc.tries == 2 {
                done(pc);
            }
        };
        match (inst, pc.phase) {
            (Inst::Load(_), _) => {
                done(pc);
                (pending, false)
            }
            (Inst::Store(v, value), _) => {
                vars[var_index(v)] = value;
                done(pc);
                (pending, false)
            }
            (Inst::Cas(v, from, to), _) => {
                let ok = vars[var_index(v)] == from;
                if ok {
                    vars[var_index(v)] = to;
                }
                done(pc);
                (valued(OpKind::CmpXchg, v, !ok), false)
            }
            (Inst::Xchg(v, to), _) => {
                let same = vars[var_index(v)] == to;
                vars[var_index(v)] = to;
                done(pc);
                (valued(OpKind::AtomicRmw, v, same), false)
            }
            (Inst::Yield, _) => {
                done(pc);
                (pending, false)
            }
            (Inst::CasRetryYield(v, from, to) | Inst::CasRetryPause(v, from, to), 0) => {
                let ok = vars[var_index(v)] == from;
                let mut hint = false;
                if ok {
                    vars[var_index(v)] = to;
                    done(pc);
                } else if matches!(inst, Inst::CasRetryPause(..)) {
                    hint = true;
                    retry(pc, &mut done);
                } else {
                    pc.phase = 1;
                }
                (valued(OpKind::CmpXchg, v, !ok), hint)
            }
            (Inst::CasRetryYield(..) | Inst::CasRetryPause(..), _) => {
                retry(pc, &mut done);
                (pending, false)
            }
            (Inst::XchgLock(v), 0) => {
                let old = vars[var_index(v)];
                vars[var_index(v)] = 1;
                pc.phase = if old == 0 { 2 } else { 1 };
                (valued(OpKind::AtomicRmw, v, old == 1), false)
            }
            (Inst::XchgLock(v), 2) => {
                vars[var_index(v)] = 0;
                done(pc);
                (op(OpKind::AtomicStore, v), false)
            }
            (Inst::XchgLock(_), _) => {
                retry(pc, &mut done);
                (pending, false)
            }
            (Inst::CasInc(v), 0) => {
                pc.old = vars[var_index(v)];
                pc.phase = 1;
                (pending, false)
            }
            (Inst::CasInc(v), _) => {
                let current = vars[var_index(v)];
                let ok = current == pc.old;
                if ok {
                    vars[var_index(v)] = current + 1;
                    done(pc);
                } else {
                    pc.old = current;
                }
                (valued(OpKind::CmpXchg, v, !ok), false)
            }
            (Inst::AwaitEq(v, value), _) => {
                if vars[var_index(v)] == value {
                    done(pc);
                } else {
                    pc.awaiting = Some(step);
                }
                (pending, false)
            }
        }
    }

    /// Runs one execution as the runtime would.
    pub fn run(&self, request: &Request) -> SpinExecution {
        let n = self.threads.len() + 1;
        let mut pcs = vec![Pc::default(); n];
        let mut alive = vec![false; n];
        alive[0] = true;
        let mut spins = vec![SpinState::default(); n];
        let mut vars = [0i32; 2];
        let mut sleep = if request.sleep_sets {
            request.sleep_set
        } else {
            ThreadSet::EMPTY
        };
        let (mut events, mut current) = (Vec::new(), 0usize);
        let (mut sleep_blocked, mut diverged) = (false, None);
        loop {
            let pending: Vec<Option<Op>> = (0..n)
                .map(|t| alive[t].then(|| self.pending(t, &pcs[t])).flatten())
                .collect();
            let (mut enabled, mut soft) = (ThreadSet::EMPTY, ThreadSet::EMPTY);
            for t in 0..n {
                let Some(o) = pending[t] else { continue };
                let ok = match o.kind {
                    OpKind::Await => false,
                    OpKind::ThreadJoin => pending[o.object as usize].is_none(),
                    _ => true,
                };
                if !ok {
                    continue;
                }
                if self.holds && held(&spins[t], &o) {
                    soft.insert(t as u32);
                } else {
                    enabled.insert(t as u32);
                }
            }
            if enabled.is_empty() {
                enabled = soft;
            }
            if enabled.is_empty() {
                break;
            }
            let step = events.len();
            let chosen = if step < request.prefix.len() {
                let t = request.prefix[step];
                if soft.contains(t) {
                    // Held back only by spin detection: a prefix gets it.
                    enabled.insert(t);
                }
                if !enabled.contains(t) {
                    diverged = Some(format!(
                        "prefix {:?} asks for T{t} at step {step}, which cannot run",
                        request.prefix
                    ));
                    break;
                }
                t as usize
            } else {
                let Some(next) = continue_choice(enabled, sleep, current) else {
                    sleep_blocked = true;
                    break;
                };
                next
            };
            let (executed, hint) = self.execute(chosen, &mut pcs[chosen], &mut vars, step);
            if executed.kind == OpKind::ThreadCreate {
                alive[executed.object as usize] = true;
            }
            events.push(TraceEvent {
                thread: chosen as u32,
                op: executed,
                site: 0,
                enabled,
            });
            let live = (0..n)
                .filter(|&t| alive[t] && self.pending(t, &pcs[t]).is_some())
                .count();
            after_event(&mut spins, chosen, &executed, live, hint);
            current = chosen;
            if request.sleep_sets && step + 1 >= request.prefix.len() {
                for r in sleep.iter().collect::<Vec<_>>() {
                    let pending = self.pending(r as usize, &pcs[r as usize]);
                    if r as usize == chosen || pending.is_none_or(|o| o.conflicts(&executed)) {
                        sleep.remove(r);
                    }
                }
            }
        }
        let final_pending = (0..n)
            .map(|t| {
                alive[t]
                    .then(|| self.pending(t, &pcs[t]).map(|o| (o, 0)))
                    .flatten()
            })
            .collect();
        SpinExecution {
            trace: Trace::new(events, final_pending),
            sleep_blocked,
            diverged,
        }
    }
}

/// Is a thread with spin state `s` and pending operation `pending` held
/// back (`spin::holds_back` for a thread that announced busy-waiting)?
fn held(s: &SpinState, pending: &Op) -> bool {
    let goes_round = if matches!(pending.kind, OpKind::Yield) {
        true
    } else {
        s.reads.iter().any(|r| r.object == pending.object)
    };
    s.hinted && pending.may_make_no_progress() && goes_round
}

/// The runtime's `spin::after_event`: thread `me` executed `executed`
/// (`hint`: then gave a spin hint) while `live` threads were alive.
fn after_event(spins: &mut [SpinState], me: usize, executed: &Op, live: usize, hint: bool) {
    if executed.made_no_progress() {
        let s = &mut spins[me];
        if live < 2 {
            s.clear();
            return;
        }
        if executed.kind == OpKind::Yield && s.count > 0 {
            s.hinted = true;
        }
        if executed.kind != OpKind::Yield && !s.reads.contains(executed) {
            s.reads.push(*executed);
        }
        s.count += 1;
        if hint {
            s.hinted = true;
        }
    } else {
        for (t, s) in spins.iter_mut().enumerate() {
            if t == me || s.reads.is_empty() || s.reads.iter().any(|r| r.conflicts(executed)) {
                s.clear();
            }
        }
    }
}

impl Inst {
    /// The most events the operation can take.
    pub fn max_events(&self) -> usize {
        match self {
            Inst::CasRetryYield(..) | Inst::XchgLock(_) => 4,
            Inst::CasRetryPause(..) => 2,
            Inst::CasInc(_) => 4,
            _ => 1,
        }
    }
}

impl SpinModel {
    /// The most events its threads 1..=n can take together.
    pub fn max_events(&self) -> usize {
        self.threads.iter().flatten().map(Inst::max_events).sum()
    }
}

/// The program as text, for assertion messages.
pub fn describe_spin(model: &SpinModel) -> String {
    let mut text = format!("holds={}\n", model.holds);
    for (t, insts) in model.threads.iter().enumerate() {
        text += &format!("  T{}: {:?}\n", t + 1, insts);
    }
    text
}

/// A random program of `threads` threads with one to `max_ops`
/// operations each over two variables holding 0 or 1.
pub fn random_spin_model(rng: &mut Rng, threads: usize, max_ops: usize) -> SpinModel {
    let mut model = SpinModel {
        threads: Vec::new(),
        holds: false,
    };
    for _ in 0..threads {
        let length = 1 + rng.below(max_ops as u64) as usize;
        let insts = (0..length)
            .map(|_| {
                let var = VARS[rng.below(2) as usize];
                let (from, to) = (rng.below(2) as i32, rng.below(2) as i32);
                match rng.below(9) {
                    0 => Inst::Load(var),
                    1 => Inst::Store(var, to),
                    2 => Inst::Cas(var, from, to),
                    3 => Inst::Xchg(var, to),
                    4 => Inst::Yield,
                    5 => Inst::CasRetryYield(var, from, to),
                    6 => Inst::CasRetryPause(var, from, to),
                    7 => Inst::XchgLock(var),
                    _ => Inst::AwaitEq(var, to),
                }
            })
            .collect();
        model.threads.push(insts);
    }
    model
}

/// Explores `model` with `strategy` to the end, as the explorer would: an
/// execution whose prefix the program could not follow, or that the
/// strategy says diverged, is an internal error and fails the test; an
/// execution blocked at an await (a thread's loop read what another thread
/// changed later) is no behaviour of its own.
pub fn explore_spin(model: &SpinModel, strategy: &mut dyn Strategy) -> Run {
    let mut run = Run::default();
    while let Some(request) = strategy.next_request() {
        let execution = model.run(&request);
        if let Some(why) = &execution.diverged {
            panic!("{why} in\n{}", describe_spin(model));
        }
        if let Err(divergence) = strategy.observe(&request, &execution.trace) {
            panic!(
                "prefix {:?} not followed ({divergence}) in\n{}",
                request.prefix,
                describe_spin(model)
            );
        }
        run.executions += 1;
        assert!(run.executions < 200_000, "exploration does not terminate");
        run.sleep_blocked += usize::from(execution.sleep_blocked);
        let blocked = verdict(&execution.trace).is_blocked();
        run.await_blocked += usize::from(blocked);
        if !execution.sleep_blocked && !blocked {
            run.orders.insert(fingerprint(&execution.trace));
        }
    }
    run
}
