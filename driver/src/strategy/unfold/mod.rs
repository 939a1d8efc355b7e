//! Unfolding-based testing (Kähkönen, Saarikivi, Heljanko: "Unfolding based
//! automated testing of multithreaded programs", ASE journal 2015), over
//! repeated process executions.
//!
//! The strategy builds the unfolding of the program's Petri-net model
//! ([`net`], Sec. 3) from the executions it runs ([`store`]), and covers
//! every event of it, hence every local state of every thread, with one
//! execution per *possible extension* not yet covered (the main loop of
//! Fig. 8): the target's causal past, sorted by event number, is forced as
//! the schedule prefix (EXECUTE, Sec. 4.3); the execution then continues
//! freely, and every operation it shows is matched to its event in the
//! current marking (CORRESPONDINGEVENT) or added with its possible
//! extensions ([`extend`], Sec. 5). Circular waits and threads that end
//! holding a lock are searched for on the unfolding ([`deadlock`],
//! Sec. 4.4) and each one found is run as a schedule, so that the runtime
//! reports it with its wait-for cycle.
//!
//! Under concolic testing ([`inputs`]), the path constraints on input values
//! are symbolic branch events of the same unfolding, and each target's
//! execution runs with inputs solved from the constraints of its causal
//! past (Sec. 4.1): one unfolding covers every input vector.
//!
//! The number of executions can be exponentially smaller than the number
//! of Mazurkiewicz traces (independent pairs of threads, Fig. 12), at a
//! higher cost per execution.

pub mod deadlock;
pub mod extend;
pub mod inputs;
pub mod net;
pub mod store;

use super::{Divergence, Strategy};
use crate::cancel::Cancel;
use crate::exec::symbolic::SymTrace;
use crate::exec::{InputValue, Request, MAX_PREFIX};
use crate::trace::Trace;
use deadlock::Deadlocks;
use extend::{Extender, Marking};
use inputs::Inputs;
use net::{Guard, Label, Place};
use reach_channel::OpKind;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use store::{CondId, EventId, Unfolding};

/// Which possible extension becomes the next target ("choose target",
/// Fig. 8 line 4). The final unfolding is the same either way (Sec. 4.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// The one found first.
    #[default]
    Oldest,
    /// The one found last.
    Newest,
}

/// Possible extensions looked at for joining a target's execution.
const MERGE_CANDIDATES: usize = 256;

/// What the execution in flight was asked to reach.
#[derive(Debug, Default)]
struct InFlight {
    /// The events of the forced prefix, one per step.
    steps: Vec<EventId>,
    /// The possible extension targeted (none for the first execution and
    /// for a deadlock's schedule).
    target: Option<EventId>,
    /// Which steps were events of the unfolding when the request was made
    /// (the others are targets: an execution may reach a different event
    /// there without the program being nondeterministic).
    known: Vec<bool>,
    /// The other possible extensions joined to the target's execution.
    joined: Vec<EventId>,
}

/// Unfolding-based testing: every local state with one execution per
/// possible extension.
#[derive(Default)]
pub struct Unfold {
    unf: Unfolding,
    ext: Extender,
    deadlocks: Deadlocks,
    pending: BTreeSet<EventId>,
    order: Order,
    started: bool,
    /// Requests made and not yet observed, oldest first (several with
    /// `--jobs`: [`crate::pipeline`]).
    in_flight: VecDeque<InFlight>,
    /// Possible extensions that a request in flight targets or joined:
    /// not given to another request meanwhile.
    claimed: BTreeSet<EventId>,
    dropped: usize,
    /// Targets whose path constraint is unsatisfiable (cut).
    unreachable: usize,
    /// Executions under concolic testing that left their forced path.
    diverged: usize,
    unmodelled: BTreeSet<&'static str>,
    /// Concolic testing: symbolic branch events and solved inputs.
    inputs: Option<Box<Inputs>>,
    /// An execution was only partly added when the exploration was
    /// cancelled: the unfolding is no longer searched.
    cut_short: bool,
}

impl Unfold {
    /// The oldest execution in flight has come back: its targets are no
    /// longer claimed.
    fn land(&mut self) -> InFlight {
        let flight = self.in_flight.pop_front().unwrap_or_default();
        for e in flight.target.iter().chain(&flight.joined) {
            self.claimed.remove(e);
        }
        flight
    }

    /// A new search taking targets in `order`.
    pub fn new(order: Order) -> Unfold {
        Unfold {
            unf: Unfolding::new(),
            order,
            ..Unfold::default()
        }
    }

    /// A search that also explores the program's inputs (concolic
    /// testing): each solver query gives up after `timeout`.
    pub fn with_inputs(order: Order, timeout: Duration) -> Unfold {
        Unfold {
            inputs: Some(Box::new(Inputs::new(timeout))),
            ..Unfold::new(order)
        }
    }

    /// Events in the unfolding (the Events column of Table 2).
    pub fn events(&self) -> usize {
        self.unf.added
    }

    /// Deadlocks found by the search on the unfolding.
    pub fn deadlocks_found(&self) -> usize {
        self.deadlocks.count
    }

    /// Targets that an execution did not reach (dropped).
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Executions under concolic testing that did not follow their
    /// target's path.
    pub fn diverged(&self) -> usize {
        self.diverged
    }

    /// Targets cut because no input reaches them (concolic testing).
    pub fn unreachable(&self) -> usize {
        self.unreachable
    }

    /// Time spent in the deadlock search.
    pub fn deadlock_time(&self) -> std::time::Duration {
        self.deadlocks.time
    }

    /// The inputs that lead the threads along their paths in `config`
    /// (none without concolic testing); `None` if no input does.
    fn inputs_for(&mut self, config: &[EventId]) -> Option<Vec<InputValue>> {
        match &mut self.inputs {
            Some(inputs) => inputs.solve(&self.unf, config),
            None => Some(Vec::new()),
        }
    }

    /// The request forcing the events of `config` (ascending), then free,
    /// with `inputs`.
    fn request_for(
        &mut self,
        config: Vec<EventId>,
        target: Option<EventId>,
        joined: Vec<EventId>,
        inputs: Vec<InputValue>,
    ) -> Option<Request> {
        let steps: Vec<EventId> = config
            .into_iter()
            .filter(|&e| {
                let label = &self.unf.events[e as usize].label;
                !label.synthetic && label.branch.is_none()
            })
            .collect();
        if steps.len() > MAX_PREFIX {
            self.dropped += 1;
            return None;
        }
        let prefix = steps
            .iter()
            .map(|&e| self.unf.events[e as usize].label.thread)
            .collect();
        let known = steps
            .iter()
            .map(|&e| self.unf.events[e as usize].added)
            .collect();
        self.claimed.extend(target.iter().chain(&joined));
        self.in_flight.push_back(InFlight {
            steps,
            target,
            known,
            joined,
        });
        let mut request = Request::continuing(prefix);
        request.inputs = inputs;
        Some(request)
    }

    /// The request for `target` (joined with other possible extensions
    /// where their path constraints allow), or `None` if no input reaches
    /// it (it is cut) or its prefix is too long.
    fn request_for_target(&mut self, target: EventId) -> Option<Request> {
        let (mut config, mut joined) = self.cover_more(target);
        let mut inputs = self.inputs_for(&config);
        if inputs.is_none() && !joined.is_empty() {
            config = self.unf.configuration(target);
            joined.clear();
            inputs = self.inputs_for(&config);
        }
        let Some(inputs) = inputs else {
            self.unreachable += 1;
            return None;
        };
        self.request_for(config, Some(target), joined, inputs)
    }

    /// The configuration of `target`, joined with those of other possible
    /// extensions that are not in conflict with it (Sec. 4.6: one
    /// execution may cover several targets; the greedy choice here takes
    /// them in the search order, leaving those another request in flight
    /// claimed). Ascending, so a valid firing order; with the targets joined.
    fn cover_more(&mut self, target: EventId) -> (Vec<EventId>, Vec<EventId>) {
        let mut config = self.unf.configuration(target);
        let unclaimed = |e: &&EventId| !self.claimed.contains(*e);
        let others: Vec<EventId> = match self.order {
            Order::Oldest => self
                .pending
                .iter()
                .filter(unclaimed)
                .copied()
                .take(MERGE_CANDIDATES)
                .collect(),
            Order::Newest => self
                .pending
                .iter()
                .rev()
                .filter(unclaimed)
                .copied()
                .take(MERGE_CANDIDATES)
                .collect(),
        };
        let mut joined = vec![target];
        for e in others {
            joined.push(e);
            if self.unf.compatible(&joined) {
                config = self.unf.past_of_events(&joined);
            } else {
                joined.pop();
            }
        }
        joined.remove(0);
        (config, joined)
    }

    fn take_found(&mut self) {
        self.ext.retry_deferred(&mut self.unf);
        for e in self.ext.found.drain(..) {
            if !self.unf.events[e as usize].added {
                self.pending.insert(e);
            }
        }
    }

    /// Thread condition `c` is in `marking` and its thread does `label`
    /// next: record it (a thread condition determines its next operation),
    /// and the first time, compute the extensions from it (cases 1–5) and
    /// search for deadlocks through it.
    fn learn_next(
        &mut self,
        c: CondId,
        label: &Label,
        marking: &Marking,
        step: usize,
    ) -> Result<(), Divergence> {
        let Some(info) = self.unf.threads.get_mut(&c) else {
            return Ok(());
        };
        match &info.next {
            None => info.next = Some(label.clone()),
            Some(known) if known.same_call(label) => {}
            Some(known) => {
                return Err(Divergence {
                    step,
                    expected: describe(known),
                    got: describe(label),
                    predicted: false,
                })
            }
        }
        if info.searched {
            return Ok(());
        }
        info.searched = true;
        let known = info.next.clone().unwrap_or_else(|| label.clone());
        if known.guard() == Guard::Unmodelled && known.kind != OpKind::ProcessExit {
            self.unmodelled.insert(known.kind.name());
        }
        if matches!(
            known.guard(),
            Guard::SemWait | Guard::Relock(_) | Guard::Once(_)
        ) {
            self.ext.guarded.entry(known.object).or_default().push(c);
        }
        let mut labels = vec![known.clone()];
        labels.extend(known.other_outcome());
        for l in labels {
            let starts = Extender::starts(&mut self.unf, marking, &l);
            let found = self.ext.from_thread(&mut self.unf, c, &l, starts);
            let acquires = !l.shape().acquires.is_empty();
            if acquires && found == 0 && !self.ext.blocked.contains(&c) {
                self.ext.blocked.push(c);
            }
        }
        self.deadlocks.on_thread_cond(&mut self.unf, c);
        self.take_found();
        Ok(())
    }

    /// An event was just added and fired: extensions from its shared and
    /// lock conditions (cases 6–8), and the deadlock check of a thread end.
    fn after_added(&mut self, e: EventId, marking: &Marking) {
        self.ext.from_shared(&mut self.unf, e);
        if matches!(
            self.unf.events[e as usize].label.kind,
            OpKind::SemPost
                | OpKind::CondSignal
                | OpKind::CondBroadcast
                | OpKind::CondWait
                | OpKind::Once
        ) {
            self.ext.from_guarded_write(&mut self.unf, marking, e);
        }
        let locks: Vec<CondId> = self.unf.events[e as usize]
            .postset
            .iter()
            .copied()
            .filter(|&c| {
                matches!(
                    self.unf.conds[c as usize].place,
                    Place::Lock(_) | Place::Done(_)
                )
            })
            .collect();
        for l in locks {
            self.ext.from_lock(&mut self.unf, marking, l);
        }
        if self.unf.events[e as usize].label.synthetic {
            self.deadlocks.on_end(&mut self.unf, e);
        }
        self.take_found();
    }

    /// Fires event `(label, preset)` in `marking`, adding it if new.
    fn fire(
        &mut self,
        label: Label,
        preset: Vec<CondId>,
        found: Option<u64>,
        marking: &mut Marking,
    ) -> EventId {
        let (e, _) = self.unf.event(label, preset);
        let new = !self.unf.events[e as usize].added;
        if new {
            self.unf.add(e, found);
        }
        self.pending.remove(&e);
        marking.fire(&self.unf, e);
        if new {
            self.after_added(e, marking);
        }
        e
    }

    /// The end of thread `u` (footnote 1 of Sec. 4.4).
    fn end_thread(&mut self, u: u32, marking: &mut Marking, step: usize) -> Result<(), Divergence> {
        let Some(c) = marking.get(&mut self.unf, Place::Thread(u)) else {
            return Ok(());
        };
        let label = Label::end(u);
        self.learn_next(c, &label, marking, step)?;
        self.fire(label, vec![c], None, marking);
        Ok(())
    }

    /// Fires the symbolic branch events of thread `u` still in `pending`
    /// whose records precede event `upto` (all of them: `None`): a thread's
    /// path constraints after its event `i - 1` come before its next one.
    fn fire_branches(
        &mut self,
        sym: &Arc<SymTrace>,
        pending: &mut [VecDeque<usize>],
        u: u32,
        upto: Option<usize>,
        marking: &mut Marking,
    ) -> Result<(), Divergence> {
        let Some(queue) = pending.get_mut(u as usize) else {
            return Ok(());
        };
        while let Some(&index) = queue.front() {
            let record = &sym.branches[index];
            if upto.is_some_and(|i| record.step > i as u64) {
                break;
            }
            queue.pop_front();
            let step = usize::try_from(record.step).unwrap_or(usize::MAX);
            let label = Label::branch(u, record);
            let Some(c) = marking.get(&mut self.unf, Place::Thread(u)) else {
                return Err(Divergence {
                    step,
                    expected: "a path constraint of a running thread".into(),
                    got: describe(&label),
                    predicted: false,
                });
            };
            if let Some(inputs) = &mut self.inputs {
                inputs.record_source(c, sym, index);
            }
            self.learn_next(c, &label, marking, step)?;
            self.fire(label, vec![c], None, marking);
        }
        Ok(())
    }

    /// Adds the execution's operations to the unfolding (Fig. 8, lines
    /// 7–15) and checks that its first steps are the forced ones.
    fn replay(&mut self, trace: &Trace, flight: &InFlight) -> Result<(), Divergence> {
        self.unf.grow(trace.thread_count() as u32);
        let mut marking = Marking::default();
        // The path constraints of each thread, in order (symbolic branch
        // events: concolic testing only).
        let sym = trace.symbolic.clone().filter(|_| self.inputs.is_some());
        let mut branches: Vec<VecDeque<usize>> = vec![VecDeque::new(); trace.thread_count()];
        for (index, record) in sym.iter().flat_map(|s| s.branches.iter().enumerate()) {
            if Label::models(record) {
                if let Some(queue) = branches.get_mut(record.thread as usize) {
                    queue.push_back(index);
                }
            }
        }
        let mut fire_branches =
            |me: &mut Unfold, u: u32, upto: Option<usize>, marking: &mut Marking| match &sym {
                Some(sym) => me.fire_branches(sym, &mut branches, u, upto, marking),
                None => Ok(()),
            };
        let finished = |u: u32| {
            trace
                .final_pending
                .get(u as usize)
                .is_none_or(|p| p.is_none())
                && trace.ended_by != Some(u)
        };
        for (i, event) in trace.events.iter().enumerate() {
            // Each event may cost a search of the unfolding: looked at
            // every event.
            if self.ext.cancelled() {
                self.cut_short = true;
                return Ok(());
            }
            let t = event.thread;
            fire_branches(self, t, Some(i), &mut marking)?;
            let label = Label::of(t, &event.op);
            let Some(c) = marking.get(&mut self.unf, Place::Thread(t)) else {
                return Err(Divergence {
                    step: i,
                    expected: "a step of a running thread".into(),
                    got: describe(&label),
                    predicted: false,
                });
            };
            self.learn_next(c, &label, &marking, i)?;
            let mut preset = vec![c];
            for place in label.access_places(self.unf.universe) {
                match marking.get(&mut self.unf, place) {
                    Some(b) => preset.push(b),
                    None => {
                        return Err(Divergence {
                            step: i,
                            expected: format!("{place:?} marked (the net model of the program)"),
                            got: describe(&label),
                            predicted: false,
                        })
                    }
                }
            }
            let found =
                matches!(event.op.kind, OpKind::SemWait | OpKind::SemPost).then_some(event.op.aux);
            let spawned = label.shape().spawns;
            let e = self.fire(label, preset, found, &mut marking);
            if flight.known.get(i).copied().unwrap_or(false) && flight.steps[i] != e {
                return Err(Divergence {
                    step: i,
                    expected: describe(&self.unf.events[flight.steps[i] as usize].label),
                    got: describe(&self.unf.events[e as usize].label),
                    predicted: false,
                });
            }
            for u in std::iter::once(t).chain(spawned) {
                if trace.next_event_of(u, i).is_none() && finished(u) {
                    fire_branches(self, u, None, &mut marking)?;
                    self.end_thread(u, &mut marking, i)?;
                }
            }
        }
        for u in 0..trace.thread_count() as u32 {
            if marking.get(&mut self.unf, Place::Thread(u)).is_some() {
                fire_branches(self, u, None, &mut marking)?;
            }
        }
        for (u, pending) in trace.final_pending.iter().enumerate() {
            let (Some((op, _)), Some(c)) =
                (pending, marking.get(&mut self.unf, Place::Thread(u as u32)))
            else {
                continue;
            };
            let label = Label::of(u as u32, op);
            self.learn_next(c, &label, &marking, trace.len())?;
        }
        Ok(())
    }
}

/// `T<thread> <OP> <object>` for divergence messages.
fn describe(label: &Label) -> String {
    if label.synthetic {
        return format!("T{} ends", label.thread);
    }
    if let Some(b) = label.branch {
        return format!(
            "T{} path constraint at {:#x} ({})",
            label.thread, b.site, b.taken
        );
    }
    format!(
        "T{} {} {:#x}",
        label.thread,
        label.kind.name(),
        label.object
    )
}

impl Strategy for Unfold {
    fn name(&self) -> &'static str {
        "unfold"
    }

    fn next_request(&mut self) -> Option<Request> {
        if self.cut_short {
            return None;
        }
        if !self.started {
            self.started = true;
            return self.request_for(Vec::new(), None, Vec::new(), Vec::new());
        }
        while let Some(set) = self.deadlocks.witnesses.pop_front() {
            let past = self.unf.past(&set);
            // FILTERUNSAT (Sec. 4.4): a deadlock no input reaches is cut.
            let Some(inputs) = self.inputs_for(&past) else {
                self.unreachable += 1;
                continue;
            };
            if let Some(request) = self.request_for(past, None, Vec::new(), inputs) {
                return Some(request);
            }
        }
        loop {
            let unclaimed = |e: &&EventId| !self.claimed.contains(*e);
            let target = match self.order {
                Order::Oldest => self.pending.iter().find(unclaimed),
                Order::Newest => self.pending.iter().rev().find(unclaimed),
            }
            .copied()?;
            self.pending.remove(&target);
            if self.unf.events[target as usize].added {
                continue;
            }
            if let Some(request) = self.request_for_target(target) {
                return Some(request);
            }
        }
    }

    fn abandon(&mut self, _request: &Request) -> bool {
        // The target's configuration puts a held-back spinner's re-read
        // before what releases it: the same local state as its first read.
        if self.land().target.is_some() {
            self.dropped += 1;
        }
        true
    }

    fn observe(&mut self, _request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let flight = self.land();
        let mut result = self.replay(trace, &flight);
        if let Some(inputs) = &mut self.inputs {
            inputs.observed(trace);
            // Inputs the runtime could not constrain exactly (a branch on
            // a value it keeps concrete, such as a float) lead elsewhere:
            // the events seen up to there are added all the same, and the
            // target is not reached.
            if result.is_err() {
                self.diverged += 1;
                result = Ok(());
            }
        }
        if let Some(target) = flight.target {
            if !self.unf.events[target as usize].added {
                self.dropped += 1;
            }
        }
        // Targets joined to this execution that it did not reach stay
        // pending only if still not added (the replay removed the others).
        result
    }

    fn pipelined(&self) -> bool {
        true
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.ext.cancel = Some(cancel);
    }

    fn incomplete(&self) -> Option<String> {
        let mut notes = Vec::new();
        if !self.unmodelled.is_empty() {
            let kinds: Vec<&str> = self.unmodelled.iter().copied().collect();
            notes.push(format!(
                "unfold does not model the blocking of {}: states after them are covered only as executed",
                kinds.join(", ")
            ));
        }
        if let Some(inputs) = &self.inputs {
            if inputs.stats.unknown > 0 {
                notes.push(format!(
                    "{} solver queries timed out or were undecided (raise --solver-timeout)",
                    inputs.stats.unknown
                ));
            }
            if self.diverged > 0 {
                notes.push(format!(
                    "{} executions did not follow their target's path (a branch on inputs the runtime keeps concrete)",
                    self.diverged
                ));
            }
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    fn coverage(&self) -> Option<String> {
        let done = self.pending.is_empty() && self.deadlocks.witnesses.is_empty();
        let state = if done && !self.cut_short {
            "complete: every local state of every thread reached"
        } else {
            "not complete"
        };
        Some(format!(
            "{state} (an unfolding of {} events; {} deadlock(s) found on it)",
            self.unf.added, self.deadlocks.count
        ))
    }

    fn stats(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![
            ("unfolding events", self.unf.added.to_string()),
            (
                "deadlock check",
                format!("{:.3} s", self.deadlocks.time.as_secs_f64()),
            ),
            ("targets not reached", self.dropped.to_string()),
        ];
        if let Some(inputs) = &self.inputs {
            out.push(("targets no input reaches", self.unreachable.to_string()));
            out.extend(crate::constraints::stats_lines(&inputs.stats));
        }
        out
    }
}
