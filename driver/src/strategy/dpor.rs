//! DPOR with commutative reads and sleep sets (Saarikivi, Kähkönen, Heljanko:
//! "Improving Dynamic Partial Order Reductions for Concolic Testing").
//!
//! The exploration runs over repeated process executions, as in the paper's
//! client–server setting (Sec. IV-C/D):
//!
//! * the driver (the paper's server) keeps only the current path of the
//!   exploration tree with each node's backtrack, done and sleep sets;
//! * each execution replays a prefix of that path ending in a backtracking
//!   choice, with the candidate sleep set `sleep(s) ∪ explored(s)` of the
//!   state it reaches (Sec. IV-D); the runtime (the client) follows it, then
//!   selects only non-sleeping enabled threads and prunes the sleep set after
//!   every operation (Fig. 7), ending the execution when every enabled thread
//!   sleeps;
//! * from the trace, the driver recomputes the sleep sets of the new states
//!   (the same rule, on the same pending operations) and identifies
//!   backtracking points with the DPOR-CR vector clocks (Fig. 3, lines 3–16),
//!   adding to `backtrack(pre(E, i))` the racing thread if it was enabled there,
//!   all enabled threads otherwise.
//!
//! Under `--memory-model rc11` a step has choices as well
//! ([`super::read_choice`]): the store an atomic load reads, the place a
//! store takes in modification order. A transition is then a thread with
//! one of its step's choices, and a backtrack set names threads: exploring
//! a thread from a node explores every choice of its step there, the
//! latest store first, before the next thread of the node. Choices do not
//! change which operation a step is (a compare-and-exchange still counts
//! as a write while pending), and two steps that do not conflict leave
//! each other's candidates as they were (a location's stores and the
//! loading thread's view; `seq_cst` fences conflict with each other
//! through [`reach_channel::ops::SC_FENCE_OBJECT`]), so the races found
//! on each execution reverse every order a different reads-from graph
//! needs (a load reads only a store that ran before it, no-thin-air): the
//! search reaches every graph the exhaustive one does, some of them more
//! than once.
//!
//! Lines 3–16 run at every state for every thread; since a thread's result can
//! only change when it gets a new pending operation or when the last event
//! touches its pending operation's object, the check is skipped otherwise
//! (same backtrack sets, linear-time scans).

use super::read_choice::{prefix_with_choices, ReadChoice};
use super::split::Splittable;
use super::tree::{Node, Path};
use super::{Divergence, Strategy};
use crate::analysis::happens_before::HappensBefore;
use crate::cancel::{Cancel, Checkpoint};
use crate::exec::Request;
use crate::strategy::tree_search::{Launch, TreeSearch};
use crate::trace::Trace;
use reach_channel::{Policy, ThreadSet};

/// DPOR-CR with sleep sets (and, for comparison, its variants without sleep
/// sets and without commutative reads).
pub struct Dpor {
    path: Path,
    /// The reads-from choice at each node of `path` (all
    /// [`ReadChoice::NONE`] under sequential consistency).
    reads: Vec<ReadChoice>,
    started: bool,
    sleep_sets: bool,
    reads_commute: bool,
    /// For a parallel worker: the node its subtree hangs from. Nodes up to
    /// here belong to the coordinator; what this search learns about them is
    /// queued in `reports` instead of being explored here.
    root: Option<usize>,
    /// Facts about the coordinator's nodes, for the coordinator.
    reports: Vec<Report>,
    /// For a parallel worker: the nodes from which it gave subtrees away
    /// ([`Splittable::split`]) that are still being explored, one entry per
    /// subtree. Such a node is kept on the path until its subtrees are done,
    /// since what they learn about it may add choices to it.
    lent: Vec<usize>,
    /// The last [`Strategy::next_request`] stopped at a node in `lent`.
    waiting: bool,
    /// Cuts the analysis of a trace short when the exploration must stop.
    cancel: Cancel,
    /// Never force a choice that makes the prefix exceed this many
    /// preemptions (see [`Dpor::bounded`]).
    preemption_bound: Option<u32>,
    /// Some backtrack choice was left out because of the bound.
    pruned: bool,
    /// For a shard (`--shard`): the partition into a shared part, whose
    /// forced nodes get every enabled thread as backtrack choices, and
    /// frontier subtrees.
    shard_plan: Option<crate::strategy::partition::PathPlan>,
    /// Sleep set of the final state of the last observed execution (the
    /// state after its last event, which has no node).
    final_sleep: ThreadSet,
}

/// What a parallel worker learned about a node above its subtree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// Thread to add to the node's backtrack set.
    Backtrack(usize, u32),
    /// The thread's transition from the node crashed the process.
    Crashed(usize, u32),
}

impl Dpor {
    /// A new search; `sleep_sets` turns the sleep-set reduction (Fig. 7) on.
    pub fn new(sleep_sets: bool) -> Dpor {
        Dpor {
            path: Path::default(),
            reads: Vec::new(),
            started: false,
            sleep_sets,
            reads_commute: true,
            root: None,
            reports: Vec::new(),
            lent: Vec::new(),
            waiting: false,
            cancel: Cancel::never(),
            preemption_bound: None,
            pruned: false,
            shard_plan: None,
            final_sleep: ThreadSet::EMPTY,
        }
    }

    /// This search split for [`crate::shard::Sharded`] into about `split`
    /// frontier subtrees per shard, `count` shards
    /// ([`crate::strategy::partition::PathPlan`]; one shard needs no partition). Every enabled thread is a backtrack
    /// choice at the nodes of the shared part, so what a subtree learns
    /// never adds a choice above it.
    pub fn with_shard_plan(self, split: u32, count: u32) -> Dpor {
        Dpor {
            shard_plan: (count > 1)
                .then(|| crate::strategy::partition::PathPlan::new(split, count)),
            ..self
        }
    }

    /// DPOR with sleep sets that never forces a backtrack choice whose
    /// prefix has more than `bound` preemptions (switches away from an
    /// enabled thread). What it guarantees is weaker than
    /// `Exhaustive::bounded`: DPOR may need a schedule with more preemptions
    /// than an equivalent one it did not choose (Coons, Musuvathi and
    /// McKinley, OOPSLA 2013), and the continuation after the prefix may
    /// preempt a sleeping thread. Every bug it reports is real; not every
    /// schedule within the bound is covered.
    pub fn bounded(bound: u32) -> Dpor {
        Dpor {
            preemption_bound: Some(bound),
            ..Dpor::new(true)
        }
    }

    /// Classic DPOR (Fig. 2: reads conflict with reads), without sleep sets:
    /// the paper's baseline column.
    pub fn classic() -> Dpor {
        Dpor {
            reads_commute: false,
            ..Dpor::new(false)
        }
    }

    fn request(&self, prefix: Vec<u32>, sleep_set: ThreadSet) -> Request {
        Request {
            prefix,
            policy: Policy::ContinueThenLowest,
            seed: 0,
            sleep_set,
            sleep_sets: self.sleep_sets,
            change_points: Vec::new(),
            inputs: Vec::new(),
        }
    }

    /// Adds `t` to the backtrack set of node `i` (and reports it when the
    /// node belongs to the coordinator).
    fn insert_backtrack(&mut self, i: usize, t: u32) {
        let node = &mut self.path.nodes[i];
        if !node.backtrack.contains(t) {
            node.backtrack.insert(t);
            if self.root.is_some_and(|r| i <= r) {
                self.reports.push(Report::Backtrack(i, t));
            }
        }
    }

    /// The candidate sleep set for exploring a new thread from `node`
    /// (Sec. IV-D): its sleep set and the threads already explored from it,
    /// except those whose transition crashed.
    fn candidate_sleep(&self, node: &Node) -> ThreadSet {
        let mut candidate = ThreadSet::EMPTY;
        if self.sleep_sets {
            for t in node.sleep.iter().chain(node.done.iter()) {
                if !node.crashed.contains(t) {
                    candidate.insert(t);
                }
            }
        }
        candidate
    }

    /// True if node `i` has a backtrack choice left to explore: another
    /// thread, or another reads-from choice of its chosen thread's step.
    fn has_choice(&self, i: usize) -> bool {
        let n = &self.path.nodes[i];
        let read = self.reads[i];
        read.choice + 1 < read.candidates || !n.backtrack.minus(&n.done).minus(&n.sleep).is_empty()
    }

    /// [`Strategy::next_request`] within the subtree of the path's first
    /// `floor` nodes: the nodes from `floor` on are explored and popped, and
    /// `None` is returned once the path has `floor` nodes left (the
    /// combined execution tree of concolic testing,
    /// [`crate::concolic::tree`], flips a branch node there before the
    /// scheduling nodes above it are backtracked).
    fn next_request_from(&mut self, floor: usize) -> Option<Request> {
        if !self.started {
            self.started = true;
            return Some(self.request(Vec::new(), ThreadSet::EMPTY));
        }
        self.waiting = false;
        while let Some(node) = self
            .path
            .nodes
            .last()
            .filter(|_| self.path.nodes.len() > floor)
        {
            let i = self.path.nodes.len() - 1;
            if self.root.is_some_and(|r| i < r) {
                return None;
            }
            if self.reads[i].advance() {
                // The same thread with its step's next candidate.
                let thread = node.chosen;
                let mut sleep = self.candidate_sleep(node);
                sleep.remove(thread);
                let prefix = prefix_with_choices(&self.path.nodes, &self.reads, i, thread);
                return Some(self.request(prefix, sleep));
            }
            if self.root == Some(i) {
                return None;
            }
            let todo = node.backtrack.minus(&node.done).minus(&node.sleep);
            if let Some(next) = todo.first() {
                if let Some(bound) = self.preemption_bound {
                    if self.path.is_preemption(i, next) && self.path.preemptions_before(i) >= bound
                    {
                        self.pruned = true;
                        self.path.nodes[i].backtrack.remove(next);
                        continue;
                    }
                }
                let candidate_sleep = self.candidate_sleep(node);
                let node = &mut self.path.nodes[i];
                node.done.insert(next);
                node.chosen = next;
                self.reads[i] = ReadChoice::NONE;
                let prefix = prefix_with_choices(&self.path.nodes, &self.reads, i, next);
                return Some(self.request(prefix, candidate_sleep));
            }
            if self.lent.contains(&i) {
                self.waiting = true;
                return None;
            }
            self.path.nodes.pop();
            self.reads.pop();
        }
        None
    }

    /// Gives the first unexplored choice of node `i` away as a subtree:
    /// the chosen thread's next reads-from choice, with the ones after it
    /// (the worker tries them at its root), else the next thread.
    fn give_away(&mut self, i: usize) -> Option<(Request, Dpor)> {
        let node = &self.path.nodes[i];
        let mut read = self.reads[i];
        let (next, root_read, sleep) = if read.advance() {
            // The choices from `read` on are the worker's; the path keeps
            // the choice it took (its prefixes name it).
            self.reads[i].candidates = self.reads[i].choice + 1;
            let mut sleep = self.candidate_sleep(node);
            sleep.remove(node.chosen);
            (node.chosen, read, sleep)
        } else {
            let next = node
                .backtrack
                .minus(&node.done)
                .minus(&node.sleep)
                .first()?;
            let sleep = self.candidate_sleep(node);
            self.path.nodes[i].done.insert(next);
            (next, ReadChoice::NONE, sleep)
        };
        let mut nodes = self.path.nodes[..=i].to_vec();
        nodes[i].chosen = next;
        let mut reads = self.reads[..i].to_vec();
        reads.push(root_read);
        let prefix = prefix_with_choices(&nodes, &reads, i, next);
        let worker = Dpor {
            path: Path { nodes },
            reads,
            started: true,
            sleep_sets: self.sleep_sets,
            reads_commute: self.reads_commute,
            root: Some(i),
            reports: Vec::new(),
            lent: Vec::new(),
            waiting: false,
            cancel: self.cancel.clone(),
            preemption_bound: self.preemption_bound,
            pruned: false,
            shard_plan: None,
            final_sleep: ThreadSet::EMPTY,
        };
        Some((self.request(prefix, sleep), worker))
    }

    /// The dependency relation this search uses: the channel's (reads
    /// commute), or, for classic DPOR, any two accesses to a common object.
    fn dependent(&self, a: &reach_channel::Op, b: &reach_channel::Op) -> bool {
        if self.reads_commute {
            return a.conflicts(b);
        }
        a.conflicts(b)
            || a.accesses()
                .iter()
                .flatten()
                .any(|x| b.accesses().iter().flatten().any(|y| x.overlaps(y)))
    }

    /// Adds the threads needed to reverse the race of event `i` with the
    /// pending operation `v` of thread `p` at state `k` (Fig. 3, lines 10–14):
    /// `p` itself if it was enabled at `pre(E, i)`, has not run since and is
    /// not asleep there. When `p` cannot be scheduled there, a thread that can
    /// start the reversed order is needed instead: the initials of the events
    /// after `i` that do not depend on it, followed by `v` (as source sets do,
    /// Abdulla et al. 2014); if one of them is already in the backtrack or
    /// sleep set nothing is needed, else the lowest one is added; if none is
    /// enabled there, every enabled thread is (line 13).
    fn add_backtrack(&mut self, race: Race, hb: &HappensBefore, trace: &Trace, exits: &[usize]) {
        let Race {
            i,
            k,
            p,
            v,
            p_ran_since,
        } = race;
        let node = &self.path.nodes[i];
        if node.enabled.contains(p) && !p_ran_since && !node.sleep.contains(p) {
            self.insert_backtrack(i, p);
            return;
        }
        let initials = initials(i, k, (p, &v), hb, trace, exits);
        let node = &mut self.path.nodes[i];
        if initials
            .iter()
            .any(|&q| node.backtrack.contains(q) || node.sleep.contains(q))
        {
            return;
        }
        let enabled = node.enabled;
        match initials.iter().copied().find(|&q| enabled.contains(q)) {
            Some(q) => self.insert_backtrack(i, q),
            None => {
                for t in enabled.iter() {
                    self.insert_backtrack(i, t);
                }
            }
        }
    }
}

/// How the process ends, as far as the analysis at one state knows it.
#[derive(Clone, Copy)]
struct Ends<'a> {
    /// The event ending the process before the current state (an exit, or
    /// at the final state the transition that crashed), if any.
    process_exit: Option<usize>,
    /// Every `PROC_EXIT` event of the trace.
    exits: &'a [usize],
}

/// A race between event `i` and the pending operation `v` of thread `p` at state `k`.
#[derive(Clone, Copy)]
struct Race {
    i: usize,
    k: usize,
    p: u32,
    v: reach_channel::Op,
    p_ran_since: bool,
}

/// Threads whose next step can start the sequence "events in `(i, k)` that
/// do not happen after event `i`, then `v`" (the initials of that sequence):
/// those whose first event in it has no happens-before predecessor in it.
///
/// The sequence is never materialised. A thread's events that happen after
/// `i` form a suffix of its events, so its part of the sequence is a run of
/// its events starting with its first event after `i`, found by binary
/// search; whether `v` depends on one of them is a search in the
/// per-thread access logs of `v`'s objects. The work is
/// `O(threads² + threads · objects of v · log n)`, whatever `k - i`.
fn initials(
    i: usize,
    k: usize,
    (p, v): (u32, &reach_channel::Op),
    hb: &HappensBefore,
    trace: &Trace,
    exits: &[usize],
) -> Vec<u32> {
    let threads = trace.thread_count() as u32;
    let first_in_seq: Vec<Option<usize>> = (0..threads)
        .map(|t| {
            trace
                .next_event_of(t, i)
                .filter(|&j| j < k && !hb.event_precedes_event(i, j))
        })
        .collect();
    let mut result = Vec::new();
    for (t, first) in first_in_seq.iter().enumerate() {
        let Some(j) = *first else { continue };
        let preceded = first_in_seq
            .iter()
            .enumerate()
            .any(|(r, a)| r != t && a.is_some_and(|a| a < j && hb.event_precedes_event(a, j)));
        if !preceded {
            result.push(t as u32);
        }
    }
    if first_in_seq.get(p as usize).is_none_or(|f| f.is_none()) {
        let clock = hb.clock(p);
        let preceded = (0..threads).any(|q| {
            let Some(first) = first_in_seq[q as usize] else {
                return false;
            };
            if clock.covers(q, first) || v.cuts_threads() {
                return true;
            }
            let end = end_of_run(trace, hb, q, first, i, k);
            exits
                .iter()
                .any(|&e| trace.events[e].thread == q && (first..end).contains(&e))
                || hb.accessed_between(q, v, first, end)
        });
        if !preceded {
            result.push(p);
        }
    }
    result.sort_unstable();
    result
}

/// End (exclusive) of thread `q`'s run of events in the sequence of
/// [`initials`]: its events from `first` on that come before `k` and do not
/// happen after event `i` (both properties hold for a prefix of its events).
fn end_of_run(
    trace: &Trace,
    hb: &HappensBefore,
    q: u32,
    first: usize,
    i: usize,
    k: usize,
) -> usize {
    let events = trace.events_of(q);
    let from = events.partition_point(|&j| (j as usize) < first);
    let rest = &events[from..];
    let len =
        rest.partition_point(|&j| (j as usize) < k && !hb.event_precedes_event(i, j as usize));
    rest.get(len).map_or(k, |&j| (j as usize).min(k))
}

impl super::bounded::BoundedSearch for Dpor {
    fn pruned(&self) -> bool {
        self.pruned
    }
}

impl Splittable for Dpor {
    type Report = Report;

    fn take_subtree(&mut self) -> Option<(Request, Dpor)> {
        let i = (0..self.path.nodes.len())
            .rev()
            .find(|&i| self.has_choice(i))?;
        self.give_away(i)
    }

    fn split(&mut self) -> Option<(Request, Dpor)> {
        let first = self.root.map_or(0, |r| r + 1);
        let i = (first..self.path.nodes.len()).find(|&i| self.has_choice(i))?;
        let given = self.give_away(i)?;
        self.lent.push(i);
        Some(given)
    }

    fn subtree_done(&mut self, depth: usize) {
        if let Some(k) = self.lent.iter().position(|&d| d == depth) {
            self.lent.swap_remove(k);
        }
    }

    fn paused(&self) -> bool {
        self.waiting
    }

    fn waiting(&self) -> bool {
        self.waiting
            && self
                .path
                .nodes
                .len()
                .checked_sub(1)
                .is_some_and(|i| self.lent.contains(&i))
    }

    fn root(&self) -> Option<usize> {
        self.root
    }

    fn apply_reports(&mut self, reports: Vec<Report>) {
        for report in reports {
            match report {
                Report::Backtrack(i, t) => {
                    if let Some(node) = self.path.nodes.get_mut(i) {
                        node.backtrack.insert(t);
                    }
                }
                Report::Crashed(i, t) => {
                    if let Some(node) = self.path.nodes.get_mut(i) {
                        node.crashed.insert(t);
                    }
                }
            }
        }
    }

    fn take_reports(&mut self) -> Vec<Report> {
        std::mem::take(&mut self.reports)
    }

    fn report_depth(report: &Report) -> usize {
        match *report {
            Report::Backtrack(d, _) | Report::Crashed(d, _) => d,
        }
    }
}

impl crate::strategy::partition::Shardable for Dpor {
    fn path_plan(&mut self) -> Option<&mut crate::strategy::partition::PathPlan> {
        self.shard_plan.as_mut()
    }
}

impl Strategy for Dpor {
    fn name(&self) -> &'static str {
        match (self.reads_commute, self.sleep_sets) {
            (true, true) => "dpor",
            (true, false) => "dpor-cr",
            (false, _) => "dpor-classic",
        }
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel;
    }

    fn next_request(&mut self) -> Option<Request> {
        self.next_request_from(0)
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let branch = request.prefix.len().checked_sub(1);
        let known = branch.unwrap_or(0);
        self.path.check_prefix(trace, known)?;
        if let (Some(i), Some(event)) = (branch, branch.and_then(|i| trace.events.get(i))) {
            self.path.nodes[i].op = event.op;
            self.reads[i].candidates = ReadChoice::of(trace, i).candidates;
        }
        let first_new_state = branch.map_or(0, |i| i + 1);

        self.path
            .nodes
            .reserve(trace.len().saturating_sub(self.path.nodes.len()));
        let mut hb = HappensBefore::new(self.reads_commute);
        let mut cursor = trace.cursor();
        let mut last_ran: Vec<Option<usize>> = vec![None; trace.thread_count()];
        let mut sleep = ThreadSet::EMPTY;
        let mut process_exit: Option<usize> = None;
        let cancel = self.cancel.clone();
        let mut checkpoint = Checkpoint::new(&cancel);
        let exits: Vec<usize> = (0..trace.len())
            .filter(|&j| trace.events[j].op.cuts_threads())
            .collect();
        for state in 0..=trace.len() {
            if checkpoint.stop() {
                // The exploration stops: what was learnt so far is kept.
                return Ok(());
            }
            if state == trace.len() {
                // A crash ends the process inside the transition of the
                // thread that crashed: treat it like an exit by that thread.
                if let Some(last) = trace.ended_by.and_then(|t| trace.last_event_of(t)) {
                    process_exit = Some(process_exit.map_or(last, |e| e.max(last)));
                }
            }
            if state >= first_new_state {
                if state > 0 {
                    self.new_node_sleep(state, request, trace, &cursor, &mut sleep);
                }
                let ends = Ends {
                    process_exit,
                    exits: &exits,
                };
                self.analyse_state(state, trace, &hb, &cursor, &last_ran, ends);
            }
            let Some(event) = trace.events.get(state) else {
                break;
            };
            if state >= self.path.nodes.len() {
                let mut chosen = ThreadSet::EMPTY;
                chosen.insert(event.thread);
                self.path.nodes.push(Node {
                    enabled: event.enabled,
                    chosen: event.thread,
                    op: event.op,
                    backtrack: chosen,
                    done: chosen,
                    sleep,
                    crashed: ThreadSet::EMPTY,
                });
                self.reads.push(ReadChoice::of(trace, state));
            }
            if event.op.cuts_threads() {
                process_exit = Some(state);
            }
            hb.apply(state, event);
            last_ran[event.thread as usize] = Some(state);
            cursor.advance();
        }
        self.final_sleep = sleep;
        if let Some(plan) = &mut self.shard_plan {
            let new = self.path.nodes.get(first_new_state..).unwrap_or_default();
            let natural: Vec<ThreadSet> = new.iter().map(|n| n.backtrack.minus(&n.sleep)).collect();
            let extra: Vec<u32> = new
                .iter()
                .map(|n| n.enabled.minus(&n.sleep).minus(&n.backtrack).len() as u32)
                .collect();
            let forced = plan.observed(first_new_state, &natural, &extra, &trace.schedule());
            for node in &mut self.path.nodes[first_new_state..forced] {
                node.backtrack = node.enabled;
            }
        }
        if let Some(last) = trace.ended_by.and_then(|t| trace.last_event_of(t)) {
            let thread = trace.events[last].thread;
            if let Some(node) = self.path.nodes.get_mut(last) {
                node.crashed.insert(thread);
                if self.root.is_some_and(|r| last <= r) {
                    self.reports.push(Report::Crashed(last, thread));
                }
            }
        }
        Ok(())
    }
}

impl Dpor {
    /// Sleep set of the state reached after event `state - 1` (Sec. IV-D):
    /// the candidate set (the request's, after the branching event; the
    /// parent's otherwise) without the threads whose pending operation
    /// conflicts with the executed one.
    fn new_node_sleep(
        &self,
        state: usize,
        request: &Request,
        trace: &Trace,
        cursor: &crate::trace::PendingCursor<'_>,
        sleep: &mut ThreadSet,
    ) {
        if !self.sleep_sets {
            return;
        }
        let executed = &trace.events[state - 1];
        let candidate = if state == request.prefix.len() {
            request.sleep_set
        } else {
            self.path
                .nodes
                .get(state - 1)
                .map_or(ThreadSet::EMPTY, |n| n.sleep)
        };
        let mut next = ThreadSet::EMPTY;
        for r in candidate.iter() {
            if r == executed.thread {
                continue;
            }
            let independent = cursor
                .pending(r)
                .is_some_and(|(op, _)| !op.conflicts(&executed.op));
            if independent {
                next.insert(r);
            }
        }
        *sleep = next;
    }

    /// Fig. 3, lines 3–16 at one state: backtracking points for every thread.
    fn analyse_state(
        &mut self,
        state: usize,
        trace: &Trace,
        hb: &HappensBefore,
        cursor: &crate::trace::PendingCursor<'_>,
        last_ran: &[Option<usize>],
        ends: Ends<'_>,
    ) {
        let Ends {
            process_exit,
            exits,
        } = ends;
        let previous = state.checked_sub(1).map(|i| &trace.events[i]);
        for p in 0..trace.thread_count() as u32 {
            let Some((v, _)) = cursor.pending(p) else {
                continue;
            };
            // Ending the process (an exit, or the transition in which the
            // thread crashed) conflicts with every operation: it races with
            // the latest event that does not happen before it, so it is
            // checked at every state.
            let crashes_here = trace.ended_by == Some(p)
                && cursor
                    .next_index(p)
                    .is_some_and(|i| trace.last_event_of(p) == Some(i));
            let ends_process = v.cuts_threads() || crashes_here;
            let fresh = ends_process
                || previous.is_none_or(|e| {
                    e.thread == p
                        || trace.born_at(p) == Some(state)
                        || self.dependent(&e.op, &v)
                        || state == trace.len()
                });
            if !fresh {
                continue;
            }
            let mut racing = hb.racing_events(p, &v);
            if ends_process {
                if let Some(j) = hb.latest_event_not_before(p) {
                    if !racing.contains(&j) {
                        racing.push(j);
                    }
                }
            }
            if let Some(exit) = process_exit {
                if !hb.event_precedes_thread(exit, p) && !racing.contains(&exit) {
                    racing.push(exit);
                }
            }
            for i in racing {
                if i >= self.path.nodes.len() {
                    continue;
                }
                let race = Race {
                    i,
                    k: state,
                    p,
                    v,
                    p_ran_since: last_ran[p as usize].is_some_and(|j| j >= i),
                };
                self.add_backtrack(race, hb, trace, exits);
            }
        }
    }
}

/// DPOR as the scheduling part of the combined execution tree of concolic
/// testing (Saarikivi et al., Sec. III-B).
impl TreeSearch for Dpor {
    fn next_request_below(&mut self, floor: usize) -> Option<Launch> {
        // A backtracking choice fixes one step: any inputs of the subtree
        // reach it.
        let request = self.next_request_from(floor)?;
        Some(Launch {
            first_new: request.prefix.len(),
            request,
            origin: None,
        })
    }

    /// Replays the path's first `len` choices, cut to those nodes; the
    /// observed execution's nodes from `len` on are new ones, and its races
    /// update the backtrack sets of the nodes above.
    fn resume_at(&mut self, len: usize, sleep: ThreadSet) -> Request {
        self.started = true;
        self.path.nodes.truncate(len);
        self.reads.truncate(len);
        let prefix = match len.checked_sub(1) {
            Some(last) => prefix_with_choices(
                &self.path.nodes,
                &self.reads,
                last,
                self.path.nodes[last].chosen,
            ),
            None => Vec::new(),
        };
        self.request(prefix, sleep)
    }

    /// A node's sleep set, or for the final state the one computed last
    /// (Sec. IV-D).
    fn sleep_at(&self, state: usize) -> ThreadSet {
        self.path
            .nodes
            .get(state)
            .map_or(self.final_sleep, |n| n.sleep)
    }

    fn depth(&self) -> usize {
        self.path.nodes.len()
    }
}
