//! Optimal DPOR with source sets and wakeup trees (Abdulla, Aronis,
//! Jonsson, Sagonas: "Source Sets: A Foundation for Optimal Dynamic Partial
//! Order Reduction", JACM 64(4), 2017, Algorithm 2, Sec. 6), over repeated
//! process executions and with reads commuting.
//!
//! The search keeps the current path; each node holds its sleep set, the
//! threads explored from it, and its wakeup tree ([`wakeup`]). Every
//! execution runs a prefix that ends with the leftmost branch of the
//! deepest non-empty wakeup tree, then continues freely, never scheduling a
//! sleeping thread (the runtime applies the sleep set, Fig. 7 of the
//! DPOR-CR paper). From its trace the driver finds the races `e ≲ e'` whose
//! second event lies in the new part of the execution (the executed
//! operation of `e'`: a failed compare-and-swap is a read), and for each
//! builds `v = notdep(e, E).e'`: the events after `e` that do not happen
//! after it, then `e'`. Unless a thread in the sleep set of `pre(E, e)` is a
//! weak initial of `v` (the reversal was or will be explored from there),
//! `v` is inserted into that state's wakeup tree (Algorithm 2, lines 5–8).
//!
//! Races of blocking operations are only reversed where the reversal can
//! run: a lock acquisition races with the previous acquisition (not with
//! the release that enabled it), and a blocking call whose thread was not
//! enabled before `e` (or that `e` released) is not moved before `e` —
//! unless it re-acquires a condition wait's mutex and what woke it is part
//! of the reversal (`relock_follows_reversal`).
//!
//! Under `--memory-model rc11` a step also has reads-from choices (the
//! store a load reads, the place a store takes in modification order).
//! Every choice of the step a node takes is explored, with the sleep set
//! its branch started with, before the node's next branch (`next_choice`,
//! as DPOR does, [`super::dpor`]). A wakeup sequence's steps carry the
//! choices their events took in the execution `E` whose race gave it: in
//! `notdep(e, E).e'` a step has the same stores of its location before it
//! and the same view as in `E` (a store between `e` and it that it
//! conflicts with would make it depend on `e`), so the same index names
//! the same store. The search reaches every reads-from graph the
//! exhaustive one does, some more than once.

mod choices;
mod combined;
mod place;
mod shard;
mod split;
pub mod wakeup;

use choices::Choices;
use place::Sequence;
pub use split::Report;

use super::{Divergence, Strategy};
use crate::analysis::happens_before::HappensBefore;
use crate::analysis::wakeup::waiter_after;
use crate::cancel::{Cancel, Checkpoint};
use crate::exec::Request;
use crate::strategy::tree::describe;
use crate::trace::{as_pending, Trace};
use reach_channel::memory_model::{entry_thread, prefix_entry};
use reach_channel::{EventFlags, Op, OpKind, ThreadSet};
use wakeup::{count_nodes, Branch, Order, Step, WakeupTree};

/// Largest subtree a node keeps a copy of to decide whether a revisit is
/// new (with `--jobs`): along a wakeup sequence as long as an execution,
/// keeping every node's would take memory quadratic in its length. A node
/// without a copy explores its revisits again (more executions, never
/// fewer).
const KEPT_SUBTREE: usize = 1000;

/// One state on the current path.
#[derive(Clone, Debug)]
struct Node {
    /// Threads enabled here.
    enabled: ThreadSet,
    /// Thread taken here on the current path, and its operation.
    chosen: u32,
    op: Op,
    /// Under `--memory-model rc11`: the reads-from choices of the chosen
    /// thread's step here (the store a load reads, the place a store
    /// takes): the one taken on the current path, and which are left.
    read: Choices,
    /// The sleep set on arrival.
    sleep: ThreadSet,
    /// The threads of `sleep` that stem from a branch of a forced node of
    /// a shard's shared part ([`shard`]): they keep their steps from
    /// running, but no sequence is dropped for them (the sequences their
    /// branch would have placed here never reach this search).
    foreign: ThreadSet,
    /// A node of a shard's shared part: every thread not asleep is a
    /// branch, and each branch is explored on its own ([`shard`]).
    forced: bool,
    /// Threads explored (or being explored) from here.
    done: ThreadSet,
    /// Threads whose step from here crashed the process (never asleep).
    crashed: ThreadSet,
    /// Each thread's next operation here (as a call), for the sleep-set
    /// checks of later races.
    next: Vec<Option<Op>>,
    /// Sequences still to explore from here.
    wut: WakeupTree,
    /// The branches taken from here, in the order they were started.
    branches: Vec<Started>,
    /// The branch (in `branches`) the current path takes.
    current: usize,
    /// Branches to explore again, each with the sleep set it first had
    /// ([`place`]).
    revisits: Vec<Revisit>,
}

/// A finished branch to explore again with a sequence found for it.
#[derive(Clone, Debug)]
struct Revisit {
    /// The sleep set it first had.
    sleep: ThreadSet,
    /// Its step and the sequences to follow.
    branch: Branch,
    /// Its index in the node's `branches`: explored again, it keeps its
    /// place among them (the branches started after it stay later).
    index: usize,
}

/// A branch taken from a node.
#[derive(Clone, Debug)]
struct Started {
    thread: u32,
    /// The sleep set its exploration started with, at the node.
    candidate: ThreadSet,
    /// No wakeup sequence continued below its step when it started (a
    /// leaf of the wakeup tree, or a free step).
    leaf: bool,
    /// Given away to another worker.
    lent: bool,
    /// The wakeup subtree below its step when it started, kept once the
    /// search divides its work ([`place`]).
    subtree: Option<Vec<Branch>>,
}

/// Where the execution in flight left the path: the branch node and the
/// rest of the wakeup subtree it follows.
#[derive(Debug, Default)]
struct InFlight {
    /// Index of the node where a new branch was taken.
    branch: usize,
    /// Sleep set for the branch's subtree, at the branch node.
    candidate: ThreadSet,
    /// Of those, the foreign ones ([`Node::foreign`]).
    foreign: ThreadSet,
    /// The subtree below the branch's first step.
    subtree: Vec<Branch>,
    /// No branch is taken: the execution replays the path's first
    /// `branch` steps and goes on freely from there, the node at `branch`
    /// rebuilt ([`combined`]).
    resume: bool,
}

/// Optimal DPOR: one complete execution per Mazurkiewicz trace (reads
/// commuting), never blocked by its sleep sets.
#[derive(Default)]
pub struct OptimalDpor {
    nodes: Vec<Node>,
    started: bool,
    in_flight: Option<InFlight>,
    cancel: Cancel,
    /// For a subtree explored by a worker (`--jobs`): the node it hangs
    /// from. Nodes up to it belong to the search that gave it away.
    root: Option<usize>,
    /// For such a subtree: it is the reads-from choices left of the
    /// root's step ([`split`]), not a branch of the root's wakeup tree, so
    /// no sequence is forwarded to it (the owner keeps the branch).
    root_choices: bool,
    /// Facts about nodes up to `root`, for their owner.
    reports: Vec<Report>,
    /// Nodes from which subtrees were given away and are not done yet.
    lent: Vec<usize>,
    /// Keep each branch's wakeup subtree (once work is divided).
    keep_subtrees: bool,
    /// Nodes with sequences forwarded to a subtree given away from them,
    /// not yet taken in (one entry per sequence).
    pending: Vec<usize>,
    /// The last `next_request` stopped at a node that waits for subtrees
    /// it lent.
    waiting: bool,
    /// For a shard (`--shard`): the partition into a shared part, whose
    /// nodes are forced, and frontier subtrees ([`shard`]).
    shard_plan: Option<crate::strategy::partition::PathPlan>,
    /// The input vector the executions observed now ran with, for the
    /// sequences their races give ([`wakeup::Branch::origin`]).
    origin: u32,
    /// The input vector of the sequence the last request follows.
    launched: Option<u32>,
    /// The sleep set of the last observed execution's final state.
    final_sleep: ThreadSet,
}

impl Node {
    /// The next branch to explore from here: the leftmost of the wakeup
    /// tree, else a branch to explore again (with its first sleep set and
    /// its index).
    fn next_branch(&mut self) -> Option<(Branch, Option<(ThreadSet, usize)>)> {
        if let Some(branch) = self.wut.pop_first() {
            return Some((branch, None));
        }
        self.revisits
            .pop()
            .map(|r| (r.branch, Some((r.sleep, r.index))))
    }

    /// Takes `branch` from here: a new one (recorded with the sleep set
    /// of this node), or the one at `again` explored again with the
    /// sleep set it first had. Returns its index and sleep set.
    fn take(
        &mut self,
        branch: &Branch,
        again: Option<(ThreadSet, usize)>,
        lent: bool,
        keep: bool,
    ) -> (usize, ThreadSet) {
        match again {
            Some((sleep, k)) if k < self.branches.len() => {
                self.branches[k].lent = lent;
                (k, sleep)
            }
            _ => {
                let candidate = again.map_or_else(|| OptimalDpor::candidate(self), |(s, _)| s);
                (self.record(branch, candidate, lent, keep), candidate)
            }
        }
    }

    /// Records `branch` as started from here with sleep set `candidate`;
    /// returns its index in `branches`.
    fn record(&mut self, branch: &Branch, candidate: ThreadSet, lent: bool, keep: bool) -> usize {
        self.done.insert(branch.step.thread);
        self.branches.push(Started {
            thread: branch.step.thread,
            candidate,
            leaf: branch.children.is_empty(),
            lent,
            subtree: (keep && count_nodes(&branch.children, KEPT_SUBTREE) <= KEPT_SUBTREE)
                .then(|| branch.children.clone()),
        });
        self.branches.len() - 1
    }

    /// True if a branch is still to be explored from here.
    fn has_branch(&self) -> bool {
        !self.wut.is_empty() || !self.revisits.is_empty()
    }

    /// The branch the current path takes from here, if its step's
    /// reads-from choices are this search's to try (not given away with
    /// the branch).
    fn own_branch(&self) -> Option<&Started> {
        self.branches
            .get(self.current)
            .filter(|b| !b.lent && b.thread == self.chosen)
    }

    /// True if the current path's step from here has a reads-from choice
    /// left that this search is to try.
    fn has_choice(&self) -> bool {
        self.own_branch().is_some() && self.read.has_next()
    }
}

impl OptimalDpor {
    /// A new search.
    pub fn new() -> OptimalDpor {
        OptimalDpor::default()
    }

    /// Takes `branch` of node `i`'s wakeup tree: the node's thread and
    /// operation become the branch's, and the request runs the path to
    /// the node, then the branch's leftmost sequence.
    fn start_branch(
        &mut self,
        i: usize,
        branch: Branch,
        again: Option<(ThreadSet, usize)>,
    ) -> Request {
        let keep = self.keep_subtrees;
        let node = &mut self.nodes[i];
        let (k, candidate) = node.take(&branch, again, false, keep);
        node.current = k;
        if again.is_some() {
            self.launch_again(i, branch, candidate)
        } else {
            self.launch(i, branch, candidate)
        }
    }

    /// Takes the recorded `branch` of node `i`, with sleep set `candidate`
    /// there: the request for it, and the execution in flight.
    fn launch(&mut self, i: usize, mut branch: Branch, candidate: ThreadSet) -> Request {
        let node = &mut self.nodes[i];
        // A step taken anew here; its count of choices is learnt from its
        // run ([`OptimalDpor::next_choice`] keeps its own).
        node.read = Choices::first_run(branch.step.choice, branch.step.choice + 1);
        node.chosen = branch.step.thread;
        node.op = branch.step.op;
        let mut prefix = path_entries(&self.nodes[..i]);
        let path = branch.leftmost_threads();
        prefix.extend(branch.leftmost_entries());
        // The sleep set before the last step of the prefix (the runtime
        // applies that step itself): sleeping threads do not run in a
        // wakeup sequence, so their next operations stay those of node i.
        let next = &self.nodes[i].next;
        let mut sleep = candidate;
        let mut walk = &branch;
        for _ in 1..path.len() {
            sleep = Self::after(sleep, next, &walk.step);
            walk = &walk.children[0];
        }
        let node = &self.nodes[i];
        let foreign = if node.forced {
            candidate
        } else {
            node.foreign.intersect(&candidate)
        };
        self.launched = Some(branch.leftmost_origin());
        self.in_flight = Some(InFlight {
            branch: i,
            candidate,
            foreign,
            subtree: std::mem::take(&mut branch.children),
            resume: false,
        });
        request(prefix, sleep)
    }

    /// The next request, branching only from nodes at depth `floor` or
    /// below (the nodes above are left as they are; `0`: the whole path).
    fn next_request_from(&mut self, floor: usize) -> Option<Request> {
        if !self.started {
            self.started = true;
            self.in_flight = None;
            self.launched = None;
            return Some(request(Vec::new(), ThreadSet::EMPTY));
        }
        self.waiting = false;
        while let Some(i) = self.nodes.len().checked_sub(1).filter(|&i| i >= floor) {
            if self.root.is_some_and(|r| i < r) {
                return None;
            }
            if let Some(request) = self.next_choice(i) {
                return Some(request);
            }
            if self.root == Some(i) {
                // The root's branch, explored again with what was forwarded
                // to it once it was finished (it stays the same branch).
                let again = self.nodes[i].revisits.pop()?;
                return Some(self.launch_again(i, again.branch, again.sleep));
            }
            if let Some((branch, sleep)) = self.nodes[i].next_branch() {
                return Some(self.start_branch(i, branch, sleep));
            }
            if self.lent.contains(&i) || self.pending.contains(&i) {
                self.waiting = true;
                return None;
            }
            self.nodes.pop();
        }
        None
    }

    /// Under `--memory-model rc11`: the request for the next reads-from
    /// choice of the step node `i` took on the current path, if it has
    /// one left and the branch is this search's own. Every choice of a
    /// step is explored, each with the sleep set the branch started with
    /// and no wakeup sequence below it, before the node's next branch, as
    /// DPOR does ([`super::dpor`]); the races of the executions below
    /// place their sequences as usual.
    fn next_choice(&mut self, i: usize) -> Option<Request> {
        let node = &mut self.nodes[i];
        let candidate = node.own_branch()?.candidate;
        if !node.read.advance() {
            return None;
        }
        let read = node.read;
        Some(self.launch_choice(i, read, candidate))
    }

    /// Runs node `i`'s step again with the choice `read` takes (keeping
    /// `read`'s choices left to try), with sleep set `candidate` there and
    /// no wakeup sequence below it.
    fn launch_choice(&mut self, i: usize, read: Choices, candidate: ThreadSet) -> Request {
        let node = &self.nodes[i];
        let branch = Branch {
            step: Step {
                thread: node.chosen,
                op: node.op,
                choice: read.taken,
            },
            children: Vec::new(),
            origin: self.origin,
        };
        let request = self.launch(i, branch, candidate);
        self.nodes[i].read = read;
        request
    }

    /// Explores again a finished branch of node `i` (`branch`, with the
    /// sleep set it first had): its step with the choice the sequence
    /// found for it carries, then the sequence. Its other choices were
    /// tried when it first ran, so none is tried again.
    fn launch_again(&mut self, i: usize, branch: Branch, sleep: ThreadSet) -> Request {
        let request = self.launch(i, branch, sleep);
        self.nodes[i].read.close();
        request
    }

    /// The sleep set of the state after `executed`, from `candidate`: the
    /// threads other than the executing one whose next operation commutes
    /// with it.
    fn after(candidate: ThreadSet, next: &[Option<Op>], executed: &Step) -> ThreadSet {
        let mut sleep = ThreadSet::EMPTY;
        for q in candidate.iter() {
            let commutes = next
                .get(q as usize)
                .copied()
                .flatten()
                .is_some_and(|op| !op.conflicts(&executed.op));
            if q != executed.thread && commutes {
                sleep.insert(q);
            }
        }
        sleep
    }

    /// The sleep set for exploring a new branch from `node`: its sleep set
    /// and the threads explored from it, except those that crashed.
    fn candidate(node: &Node) -> ThreadSet {
        let mut candidate = ThreadSet::EMPTY;
        for t in node.sleep.iter().chain(node.done.iter()) {
            if !node.crashed.contains(t) {
                candidate.insert(t);
            }
        }
        candidate
    }
}

/// The transition in which a thread crashed, as the analysis sees it: it
/// ends the process there, so it conflicts with every operation.
const CRASH: Op = Op {
    kind: OpKind::ProcessExit,
    flags: EventFlags(EventFlags::CUTS_THREADS),
    object: 0,
    aux: 0,
};

/// A race found in a trace: event `i` against the operation `v` that thread
/// `p` executes at state `k` (or still has pending at the end).
#[derive(Clone, Copy)]
struct Race {
    i: usize,
    k: usize,
    p: u32,
    v: Op,
    p_ran_since: bool,
}

/// True for an operation the runtime leaves out of the enabled set only
/// when its thread busy-waits (`runtime/src/spin.rs`): it can always run,
/// and does when a schedule prefix asks for it, so a race of it with the
/// event that let its thread go is reversed where the trace shows the
/// thread held back (a retry that fails once more and gives up). A step
/// after a held-back yield is not moved before that event: it would add a
/// spin iteration and nothing else, as on std's channels.
fn held_only_by_spinning(op: &Op) -> bool {
    op.may_make_no_progress() && op.kind != OpKind::Await && !blocking(op)
}

/// Did thread `p` exist at state `i` of `trace`?
fn alive_at(trace: &Trace, p: u32, i: usize) -> bool {
    trace.born_at(p).is_some_and(|b| b <= i)
}

/// True for an operation that may have to wait for another thread.
fn blocking(op: &Op) -> bool {
    let try_or_timed = op.flags.has(EventFlags::TRY) || op.flags.has(EventFlags::TIMED);
    match op.kind {
        OpKind::MutexLock | OpKind::SpinLock | OpKind::RwReadLock | OpKind::RwWriteLock => {
            !try_or_timed
        }
        OpKind::SemWait => !try_or_timed,
        // A `pthread_once` call waits while another thread runs the init
        // routine; its completion (`aux` = 1) never waits.
        OpKind::Once => op.aux == 0,
        // A futex wait's compare never waits; its return waits for a wake.
        OpKind::FutexWait => resumes(op) && !op.flags.has(EventFlags::TIMED),
        OpKind::CondRelock | OpKind::BarrierLeave | OpKind::ThreadJoin => true,
        _ => false,
    }
}

/// True for the return of a futex wait that slept: it can only run after
/// the wake that let it go, which the compare before it raced with, so its
/// own races are reversed only where it was already enabled.
fn resumes(op: &Op) -> bool {
    op.kind == OpKind::FutexWait && op.flags.has(EventFlags::RESUMES)
}

/// The events an operation that conflicts with everything races with when
/// thread `p` performs it now: each other thread's last event, unless it
/// happens before `p` or before another such event.
fn maximal_events_not_before(hb: &HappensBefore, p: u32, threads: usize) -> Vec<usize> {
    let candidates: Vec<usize> = (0..threads as u32)
        .filter(|&q| q != p)
        .filter_map(|q| hb.last_event_of(q))
        .filter(|&j| !hb.event_precedes_thread(j, p))
        .collect();
    candidates
        .iter()
        .copied()
        .filter(|&j| {
            !candidates
                .iter()
                .any(|&r| r != j && hb.event_precedes_event(j, r))
        })
        .collect()
}

/// Could the call `v` run in the state before the event `e` it depends on?
/// A blocking call cannot go before the release that let it go on; a
/// semaphore wait can go before any operation that found the count
/// positive (each records the count it found).
fn may_run_before(v: &Op, e: &Op) -> bool {
    if !blocking(v) {
        return true;
    }
    let semaphore = matches!(
        e.kind,
        OpKind::SemWait | OpKind::SemPost | OpKind::SemGetValue
    );
    if v.kind == OpKind::SemWait && semaphore && e.object == v.object {
        return e.aux > 0;
    }
    !releases(e)
}

/// For a write acquisition `v` of an rwlock by thread `p`: does a thread
/// other than `p` and the one of event `i` hold the lock for reading in
/// the state before event `i`? Readers share the lock, so the previous
/// acquisition (a read) does not leave it free before it, as a mutex's
/// does; the write could not run there.
fn read_held_by_others(v: &Op, i: usize, p: u32, trace: &Trace) -> bool {
    if v.kind != OpKind::RwWriteLock || v.flags.has(EventFlags::TRY) {
        return false;
    }
    let Some(at_i) = trace.events.get(i) else {
        return false;
    };
    let mut held = vec![0u32; trace.thread_count()];
    for event in trace.events[..i].iter().filter(|e| e.op.object == v.object) {
        let Some(count) = held.get_mut(event.thread as usize) else {
            continue;
        };
        match event.op.kind {
            OpKind::RwReadLock | OpKind::RwWriteLock => *count += 1,
            OpKind::RwUnlock => *count = count.saturating_sub(1),
            _ => {}
        }
    }
    held.iter()
        .enumerate()
        .any(|(t, &n)| n > 0 && t as u32 != p && t as u32 != at_i.thread)
}

/// For a read acquisition `v` of an rwlock: is event `i` the release of a
/// read lock on it? Readers share the lock, so the acquisition could run
/// before that release as well as after it (only a writer excludes it).
fn ends_read_hold(v: &Op, i: usize, trace: &Trace) -> bool {
    let Some(at_i) = trace.events.get(i) else {
        return false;
    };
    if v.kind != OpKind::RwReadLock
        || at_i.op.kind != OpKind::RwUnlock
        || at_i.op.object != v.object
    {
        return false;
    }
    let mut writer = None;
    for event in trace.events[..i].iter().filter(|e| e.op.object == v.object) {
        match event.op.kind {
            OpKind::RwWriteLock => writer = Some(event.thread),
            OpKind::RwUnlock if writer == Some(event.thread) => writer = None,
            _ => {}
        }
    }
    writer != Some(at_i.thread)
}

/// True for an operation that may let a blocked call of another thread go
/// on (a release, a post, a signal, an arrival).
fn releases(op: &Op) -> bool {
    if op.kind == OpKind::Once {
        // Only the completion of the init routine lets waiting callers go.
        return op.aux == 1;
    }
    matches!(
        op.kind,
        OpKind::MutexUnlock
            | OpKind::SpinUnlock
            | OpKind::RwUnlock
            | OpKind::SemPost
            | OpKind::CondSignal
            | OpKind::CondBroadcast
            | OpKind::CondWait
            | OpKind::BarrierArrive
            | OpKind::FutexWake
            | OpKind::ThreadExit
    )
}

impl Strategy for OptimalDpor {
    fn name(&self) -> &'static str {
        "optimal"
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel;
    }

    /// The branch that was launched ran a held-back spinner's step that
    /// turned out to be one spin iteration more: dropped, with the
    /// sequences below it (each of them runs the same step first). The
    /// branch node keeps its other branches; the path below it is stale.
    fn drop_respun(&mut self, _request: &Request) -> bool {
        if let Some(flight) = self.in_flight.take() {
            self.nodes.truncate(flight.branch + 1);
        }
        self.launched = None;
        true
    }

    fn next_request(&mut self) -> Option<Request> {
        self.next_request_from(0)
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let flight = self.in_flight.take();
        let branch = flight.as_ref().map_or(0, |f| f.branch);
        check_prefix(&self.nodes, branch, request, trace)?;
        // The branch node stays (its other branches are still to explore);
        // the nodes after it are rebuilt from the trace (from it on, when
        // the execution resumes the path there).
        let keep = flight
            .as_ref()
            .map_or(0, |f| f.branch + usize::from(!f.resume));
        self.nodes.truncate(keep);
        let (mut candidate, mut foreign, mut subtree) = match flight {
            Some(f) => (f.candidate, f.foreign, f.subtree),
            None => (ThreadSet::EMPTY, ThreadSet::EMPTY, Vec::new()),
        };
        // Nodes of `subtree`, once counted (only when subtrees are kept).
        let mut subtree_nodes: Option<usize> = None;
        let mut hb = HappensBefore::new(true);
        let mut cursor = trace.cursor();
        let mut last_ran: Vec<Option<usize>> = vec![None; trace.thread_count()];
        let mut races: Vec<Race> = Vec::new();
        let cancel = self.cancel.clone();
        let mut checkpoint = Checkpoint::new(&cancel);
        let crash = trace.ended_by.and_then(|t| trace.last_event_of(t));
        let mut cutting_exit: Option<usize> = None;
        for (state, event) in trace.events.iter().enumerate() {
            if checkpoint.stop() {
                return Ok(());
            }
            let step = Step {
                thread: event.thread,
                op: event.op,
                choice: trace.read(state).map_or(0, |r| r.choice),
            };
            if state >= branch {
                let p = event.thread;
                let v = if crash == Some(state) {
                    CRASH
                } else {
                    event.op
                };
                let mut racing = hb.racing_events(p, &v);
                if v.cuts_threads() {
                    racing.extend(maximal_events_not_before(&hb, p, trace.thread_count()));
                }
                for i in racing {
                    races.push(Race {
                        i,
                        k: state,
                        p,
                        v,
                        p_ran_since: last_ran[p as usize].is_some_and(|j| j >= i),
                    });
                }
            }
            if state >= keep {
                let mut next: Vec<Option<Op>> = (0..trace.thread_count() as u32)
                    .map(|t| cursor.pending(t).map(|(op, _)| op))
                    .collect();
                // Where the outcome is known, the step is what it did: the
                // executed one's here, and a sleeper's as it did it where
                // it was explored (unchanged while it sleeps: nothing that
                // conflicts with it has run). A compare-and-swap that failed
                // there is a read, not the write a pending one counts as.
                if let Some(prev) = state.checked_sub(1).and_then(|s| self.nodes.get(s)) {
                    for q in candidate.iter() {
                        let known = prev.next.get(q as usize).copied().flatten();
                        if let (Some(slot), Some(op)) = (next.get_mut(q as usize), known) {
                            if slot.is_some_and(|pending| pending == as_pending(op)) {
                                *slot = Some(op);
                            }
                        }
                    }
                }
                if let Some(slot) = next.get_mut(event.thread as usize) {
                    *slot = Some(event.op);
                }
                let mut done = ThreadSet::EMPTY;
                done.insert(event.thread);
                // Along a wakeup sequence: its other branches stay here.
                let mut wut = WakeupTree::default();
                let mut leaf = true;
                let mut kept = None;
                if !subtree.is_empty() {
                    let mut first = subtree.remove(0);
                    wut = WakeupTree::of(std::mem::take(&mut subtree));
                    subtree = std::mem::take(&mut first.children);
                    leaf = subtree.is_empty();
                    if self.keep_subtrees {
                        // The nodes left below: counted once, then less
                        // the branches left here and the step taken.
                        let left = match subtree_nodes {
                            None => count_nodes(&subtree, usize::MAX),
                            Some(before) => {
                                before.saturating_sub(1 + count_nodes(&wut.children, usize::MAX))
                            }
                        };
                        subtree_nodes = Some(left);
                        kept = (left <= KEPT_SUBTREE).then(|| subtree.clone());
                    }
                }
                self.nodes.push(Node {
                    enabled: event.enabled,
                    chosen: event.thread,
                    op: event.op,
                    read: Choices::of(trace, state),
                    sleep: candidate,
                    foreign,
                    forced: false,
                    done,
                    crashed: ThreadSet::EMPTY,
                    next,
                    wut,
                    branches: vec![Started {
                        thread: event.thread,
                        candidate,
                        leaf,
                        lent: false,
                        subtree: kept,
                    }],
                    current: 0,
                    revisits: Vec::new(),
                });
            } else if state == branch {
                self.nodes[state].op = event.op;
                if let Some(r) = trace.read(state) {
                    self.nodes[state].read.candidates = r.candidates.max(1);
                }
                if let Some(slot) = self.nodes[state].next.get_mut(event.thread as usize) {
                    *slot = Some(event.op);
                }
            }
            if state + 1 >= keep {
                candidate = Self::after(candidate, &self.nodes[state].next, &step);
                foreign = foreign.intersect(&candidate);
            }
            if event.op.cuts_threads() || crash == Some(state) {
                cutting_exit = Some(state);
            }
            hb.apply(state, event);
            last_ran[event.thread as usize] = Some(state);
            cursor.advance();
        }
        // Calls still pending at the end race with what they never ran after.
        for p in 0..trace.thread_count() as u32 {
            let Some((v, _)) = trace.final_pending.get(p as usize).copied().flatten() else {
                continue;
            };
            let mut racing = hb.racing_events(p, &v);
            if let Some(exit) = cutting_exit {
                if !hb.event_precedes_thread(exit, p) {
                    racing.push(exit);
                }
            }
            for i in racing {
                races.push(Race {
                    i,
                    k: trace.len(),
                    p,
                    v,
                    p_ran_since: last_ran[p as usize].is_some_and(|j| j >= i),
                });
            }
        }
        if let Some(c) = crash {
            let thread = trace.events[c].thread;
            if let Some(node) = self.nodes.get_mut(c) {
                node.crashed.insert(thread);
            }
            if self.root.is_some_and(|r| c <= r) {
                self.reports.push(Report::Crashed(c, thread));
            }
        }
        let since = enabled_since(trace);
        for race in races {
            if checkpoint.stop() {
                return Ok(());
            }
            self.reverse(race, &hb, trace, &since);
        }
        self.final_sleep = candidate;
        self.plan_shared_part(keep, trace);
        Ok(())
    }
}

impl OptimalDpor {
    /// Algorithm 2, lines 5–8, for one race: builds `v = notdep(e, E).e'`
    /// and inserts it into the wakeup tree of `pre(E, e)` unless a sleeping
    /// or explored thread there is a weak initial of it.
    fn reverse(&mut self, race: Race, hb: &HappensBefore, trace: &Trace, since: &[u32]) {
        let Race {
            i,
            k,
            p,
            v,
            p_ran_since,
        } = race;
        if i >= self.nodes.len() || trace.events[i].thread == p {
            return;
        }
        // For a condition wait's re-acquisition: the events on its
        // condition variable and mutex, gathered once for every place the
        // race is tried at.
        let relock_events = relock_events(&v, k, trace);
        let feasible = |i: usize, ran_since: bool| {
            if ran_since && resumes(&v) {
                false
            } else if ran_since {
                let e = &trace.events[i].op;
                (may_run_before(&v, e) || ends_read_hold(&v, i, trace))
                    && !read_held_by_others(&v, i, p, trace)
            } else {
                self.nodes.get(i).is_some_and(|n| n.enabled.contains(p))
                    || (held_only_by_spinning(&v) && alive_at(trace, p, i))
                    || relock_follows_reversal(&v, p, i, &relock_events, hb, trace)
            }
        };
        let i = if feasible(i, p_ran_since) {
            i
        } else if blocking(&v) && !resumes(&v) {
            // The blocking call cannot go before the release that let it
            // go on: it races with the latest earlier operation on its
            // object it could go before (the acquisition, the start).
            let Some(j) = self.earlier_partner(i, k, p, &v, hb, trace, &feasible) else {
                return;
            };
            j
        } else {
            return;
        };
        let Some(node) = self.nodes.get(i) else {
            return;
        };
        let crash = trace.ended_by.and_then(|t| trace.last_event_of(t));
        // notdep(e, E) up to k, then e' (as a call: its outcome may change).
        // An exit that cuts threads short, or a crash, follows everything
        // before it (the vector clocks, which follow objects, do not say so).
        let ends = |j: usize| crash == Some(j) || trace.events[j].op.cuts_threads();
        let held = held_after(i, k, hb, trace, since);
        if held.iter().any(|&f| trace.events[f].thread == p) {
            // The call itself only ran once `i`'s event let its thread go.
            return;
        }
        let follows_held = |j: usize| {
            held.iter().any(|&f| {
                j >= f
                    && (trace.events[j].thread == trace.events[f].thread
                        || hb.event_precedes_event(f, j))
            })
        };
        let mut positions: Vec<usize> = (i + 1..k.min(trace.len()))
            .filter(|&j| !hb.event_precedes_event(i, j) && !ends(j) && !follows_held(j))
            .collect();
        let mut seq: Vec<Step> = positions
            .iter()
            .map(|&j| Step {
                thread: trace.events[j].thread,
                op: if crash == Some(j) {
                    CRASH
                } else {
                    trace.events[j].op
                },
                choice: trace.read(j).map_or(0, |r| r.choice),
            })
            .collect();
        seq.push(Step {
            thread: p,
            op: as_pending(v),
            choice: 0,
        });
        let last = seq.len() - 1;
        positions.push(usize::MAX);
        if ends(i) {
            // An exit that cuts threads short (or a crash) follows the
            // reversal: `v.e`. A thread that only commutes with `v` is no
            // weak initial of it (its step conflicts with `e`), so a
            // sleeping one does not cover it.
            seq.push(Step {
                thread: trace.events[i].thread,
                op: if crash == Some(i) {
                    CRASH
                } else {
                    trace.events[i].op
                },
                choice: 0,
            });
            positions.push(usize::MAX);
        }
        let precedes = |a: usize, b: usize| {
            if b > last {
                true
            } else if b == last {
                seq[a].thread == p || seq[a].op.conflicts(&seq[b].op)
            } else {
                hb.event_precedes_event(positions[a], positions[b])
            }
        };
        let independent = |x: &Op, y: &Op| !x.conflicts(y);
        let order = Order {
            precedes: &precedes,
            independent: &independent,
        };
        let from = Some(node.current);
        if self.root.is_some_and(|r| i <= r) {
            // The owner of the node decides; what this copy of it already
            // covers, the owner covers too.
            if place::covered_up_to(node, &seq, &order, from) {
                return;
            }
            self.reports.push(Report::Insert {
                depth: i,
                from: node.current,
                sequence: Sequence::of(seq.clone(), &order),
            });
        } else {
            self.place(i, &seq, &order, from);
        }
    }

    /// For a blocking call `v` of thread `p` (executed at `k`, or pending at
    /// the end) whose race with event `i` cannot be reversed: the latest
    /// earlier event on its objects, of another thread, that does not happen
    /// before the call and before which the call could run.
    #[allow(clippy::too_many_arguments)]
    fn earlier_partner(
        &self,
        i: usize,
        k: usize,
        p: u32,
        v: &Op,
        hb: &HappensBefore,
        trace: &Trace,
        feasible: &dyn Fn(usize, bool) -> bool,
    ) -> Option<usize> {
        // What happens before the call: before the thread's previous event,
        // or before its creation (not through the release at `i`).
        let events = trace.events_of(p);
        let previous = events[..events.partition_point(|&x| (x as usize) < k)]
            .last()
            .map(|&x| x as usize)
            .or_else(|| trace.born_at(p).and_then(|b| b.checked_sub(1)));
        let precedes_call =
            |j: usize| previous.is_some_and(|x| x == j || hb.event_precedes_event(j, x));
        let ran_since = |j: usize| trace.next_event_of(p, j).is_some_and(|x| x < k);
        (0..i)
            .rev()
            .take(MAX_PARTNER_SCAN)
            .filter(|&j| trace.events[j].thread != p && trace.events[j].op.conflicts(v))
            .take_while(|&j| !precedes_call(j))
            .find(|&j| feasible(j, ran_since(j)))
    }
}

/// The first events, after event `i` and before state `k`, of the threads
/// that could not run at `i` and were let go by `i`'s
/// event or one that follows it: a spinner held back until what it re-reads
/// is written, an exit held back while other threads can run. What let
/// them go is not an access they conflict with (a spinner's next step may
/// be a yield), so the vector clocks do not order their steps after `i`;
/// moving those steps before `i`'s event would ask for a thread the runtime
/// does not let run there. `since` is [`enabled_since`] of the trace.
fn held_after(i: usize, k: usize, hb: &HappensBefore, trace: &Trace, since: &[u32]) -> Vec<usize> {
    let Some(at_i) = trace.events.get(i) else {
        return Vec::new();
    };
    let end = k.min(trace.len());
    let mut held = Vec::new();
    for q in 0..trace.thread_count() as u32 {
        if at_i.enabled.contains(q) {
            continue;
        }
        let Some(first) = trace.next_event_of(q, i).filter(|&f| f < end) else {
            continue;
        };
        // q was not enabled at i, so it became enabled after i.
        let enabler = (since[first] as usize).max(i + 1) - 1;
        if enabler == i || hb.event_precedes_event(i, enabler) {
            held.push(first);
        }
    }
    held
}

/// For the re-acquisition `v` of a condition wait, at `k`: the events
/// before `k` on its condition variable or its mutex (none for any other
/// operation).
fn relock_events(v: &Op, k: usize, trace: &Trace) -> Vec<usize> {
    if v.kind != OpKind::CondRelock {
        return Vec::new();
    }
    let (cond, mutex) = (v.object, v.aux);
    let end = k.min(trace.len());
    (0..end)
        .filter(|&j| {
            let op = &trace.events[j].op;
            match op.kind {
                OpKind::CondWait | OpKind::CondRelock => op.object == cond || op.aux == mutex,
                _ => op.object == cond || op.object == mutex,
            }
        })
        .collect()
}

/// For the re-acquisition `v` of a condition wait by thread `p`, whose
/// thread was asleep on the condition variable at event `i` and has not
/// run since: can it follow `notdep(e_i, E)` all the same? The events on
/// the condition variable and the mutex before it (`events`, from
/// [`relock_events`]) that come before `i` or belong to `notdep` (`i`'s
/// event and all that follows it left out) are replayed as the runtime
/// would ([`waiter_after`]). Yes if `p` ends up woken and the mutex free:
/// a waiter woken by a shutdown broadcast that does not depend on `i` then
/// re-acquires the mutex before `i`'s acquisition, as it can.
fn relock_follows_reversal(
    v: &Op,
    p: u32,
    i: usize,
    events: &[usize],
    hb: &HappensBefore,
    trace: &Trace,
) -> bool {
    if v.kind != OpKind::CondRelock {
        return false;
    }
    let kept = events
        .iter()
        .filter(|&&j| j < i || (j > i && !hb.event_precedes_event(i, j)))
        .map(|&j| (trace.events[j].thread, &trace.events[j].op));
    let waiter = waiter_after(kept, v.object, v.aux, p);
    waiter.woken && waiter.mutex_free
}

/// For each event, the state from which its thread had been enabled
/// without a break until it ran (one pass over the trace's enabled sets).
fn enabled_since(trace: &Trace) -> Vec<u32> {
    let mut since = vec![0u32; trace.thread_count()];
    let mut before = ThreadSet::EMPTY;
    trace
        .events
        .iter()
        .enumerate()
        .map(|(state, event)| {
            for t in event.enabled.minus(&before).iter() {
                if let Some(s) = since.get_mut(t as usize) {
                    *s = state as u32;
                }
            }
            before = event.enabled;
            since.get(event.thread as usize).copied().unwrap_or(0)
        })
        .collect()
}

/// Most events looked at backwards for the partner of a blocking call.
const MAX_PARTNER_SCAN: usize = 100_000;

/// The schedule prefix that takes `nodes`' steps, each with its
/// reads-from choice.
fn path_entries(nodes: &[Node]) -> Vec<u32> {
    nodes
        .iter()
        .map(|n| prefix_entry(n.chosen, n.read.taken))
        .collect()
}

/// A request for `prefix`, then the "continue" policy with sleep set
/// `sleep` (the set before the prefix's last step).
fn request(prefix: Vec<u32>, sleep: ThreadSet) -> Request {
    Request {
        sleep_set: sleep,
        sleep_sets: true,
        ..Request::continuing(prefix)
    }
}

/// Checks that `trace` followed the path up to the branch node and the
/// request's prefix.
fn check_prefix(
    nodes: &[Node],
    branch: usize,
    request: &Request,
    trace: &Trace,
) -> Result<(), Divergence> {
    for (step, &entry) in request.prefix.iter().enumerate() {
        let thread = entry_thread(entry);
        let Some(event) = trace.events.get(step) else {
            let expected = nodes
                .get(step)
                .map_or(format!("T{thread}"), |n| describe(n.chosen, &n.op));
            return Err(Divergence {
                step,
                expected,
                got: "the end of the execution".into(),
                predicted: step >= branch,
            });
        };
        let same_op = nodes.get(step).filter(|_| step < branch).is_none_or(|n| {
            n.op.kind == event.op.kind && n.op.object == event.op.object && n.op.aux == event.op.aux
        });
        if event.thread != thread || !same_op {
            let expected = nodes
                .get(step)
                .filter(|_| step < branch)
                .map_or(format!("T{thread}"), |n| describe(n.chosen, &n.op));
            return Err(Divergence {
                step,
                expected,
                got: describe(event.thread, &event.op),
                predicted: step >= branch,
            });
        }
    }
    Ok(())
}
