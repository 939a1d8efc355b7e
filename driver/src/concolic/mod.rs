//! Concolic testing combined with a scheduling search (Saarikivi,
//! Kähkönen, Heljanko: "Improving Dynamic Partial Order Reductions for
//! Concolic Testing", Sec. III).
//!
//! The paper's combined execution tree interleaves scheduling nodes (the
//! DPOR search) with symbolic branch nodes: after each visible operation
//! comes the "concolic subtree" of the branches its thread takes before its
//! next visible operation. Two searches explore it by re-execution:
//!
//! * [`tree::CombinedTree`] (with `dpor`, `dpor-cr`, `dpor-classic`,
//!   `optimal`): the paper's own, one tree shared by every input vector.
//!   Flipping a branch node replays the schedule prefix up to it with the
//!   new inputs and explores only the subtree below it; the scheduling
//!   nodes above are not explored again, and the races found below add to
//!   their backtrack sets or wakeup trees (Sec. III-B). With dpor no
//!   combined-tree path runs twice.
//! * [`Concolic`] (with `exhaustive`, `unfold`, a preemption bound, or
//!   `--concolic-restart`): any [`Strategy`] run to completion
//!   for one vector of input values, then the next vector. Every path
//!   constraint of every execution's trace is a branch node, identified by
//!   its position in the combined tree: the schedule before it (the thread
//!   of each earlier event) and the outcomes of all earlier path
//!   constraints. One whose other outcome was not yet reached at that
//!   position becomes a target (so is a failed `reach_assume`). The
//!   scheduling nodes above a flipped branch are explored again under the
//!   new input; that is sound (the scheduling search is complete for a
//!   fixed input and every branch node of every explored schedule is
//!   flipped), and what it costs is counted as "repeated paths"
//!   (executions whose whole combined-tree path an earlier one had run).
//!
//! Both negate a branch the same way ([`solver`]): the constraints before
//! it in the execution, sliced to the inputs the branch depends on, and its
//! negation go to z3; a satisfiable query gives the next input vector (the
//! previous values with the model's). Unsatisfiable targets are dropped; a
//! solver timeout is counted, never fatal.

pub mod tree;

use crate::constraints::{mix, negatable};
pub use crate::constraints::{path_key, solver, stats_lines, ConcolicStats};
pub use crate::exec::symbolic::{display_value, Input, SymTrace};

use crate::cancel::Cancel;
use crate::exec::{InputValue, Request};
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

/// An unexplored branch outcome: negate `trace.branches[branch]` under the
/// constraints before it.
struct Target {
    trace: Arc<SymTrace>,
    branch: usize,
}

/// The combined search: a scheduling strategy per input vector, and input
/// vectors from negated branches.
pub struct Concolic {
    make: Box<dyn FnMut() -> Box<dyn Strategy>>,
    name: &'static str,
    current: Box<dyn Strategy>,
    inputs: Vec<InputValue>,
    targets: VecDeque<Target>,
    /// Positions (in the combined tree) of branch outcomes seen or targeted.
    seen: HashSet<u64>,
    /// Whole combined-tree paths run (schedule and every branch outcome).
    paths: HashSet<u64>,
    /// Input vectors explored (sorted values).
    tried: HashSet<Vec<InputValue>>,
    /// Input vectors (as executions reported them) in the model cache.
    remembered: HashSet<Vec<InputValue>>,
    solver: solver::Solver,
    stats: ConcolicStats,
}

impl Concolic {
    /// Combines the scheduling strategies `make` builds (one per input
    /// vector) with concolic input generation; `initial` are the first
    /// execution's inputs (e.g. from a schedule file), `timeout` bounds
    /// each solver query.
    pub fn new(
        mut make: Box<dyn FnMut() -> Box<dyn Strategy>>,
        initial: Vec<InputValue>,
        timeout: Duration,
    ) -> Concolic {
        let current = make();
        let name = current.name();
        let mut tried = HashSet::new();
        let mut key = initial.clone();
        key.sort();
        tried.insert(key);
        Concolic {
            make,
            name,
            current,
            inputs: initial,
            targets: VecDeque::new(),
            seen: HashSet::new(),
            paths: HashSet::new(),
            tried,
            remembered: HashSet::new(),
            solver: solver::Solver::new(timeout),
            stats: ConcolicStats {
                input_vectors: 1,
                ..ConcolicStats::default()
            },
        }
    }

    /// The counts so far.
    pub fn concolic_stats(&self) -> &ConcolicStats {
        &self.stats
    }

    /// Queues the unexplored outcome of every branch node of `trace`.
    ///
    /// A branch node is identified by its position in the combined tree
    /// (Sec. III): the schedule up to it (the thread of every event before
    /// it) and the outcome of every path constraint before it, of any
    /// thread. A branch whose condition reads shared data can go either way
    /// under different interleavings for the same input, so the schedule
    /// belongs to its identity: each (schedule prefix, branch) pair whose
    /// other outcome was not yet seen is a target.
    fn queue_targets(&mut self, sym: &Arc<SymTrace>, trace: &Trace) {
        if sym.overflow != 0 {
            self.stats.overflowed += 1;
        }
        let mut position = 0x51_7C_C1_B7_27_22_0A_95u64;
        let mut events = 0usize;
        let mut path_events = trace.events.iter();
        for (i, b) in sym.branches.iter().enumerate() {
            // The scheduling nodes before this branch.
            let upto = usize::try_from(b.step).unwrap_or(usize::MAX);
            while events < upto {
                let Some(e) = path_events.next() else { break };
                position = mix(position, 1 + u64::from(e.thread));
                events += 1;
            }
            let key = |taken: bool| mix(mix(position, b.site), 2 + u64::from(taken));
            let taken = b.taken != 0;
            let here = key(taken);
            if negatable(b) {
                if self.seen.insert(here) {
                    self.stats.branch_nodes += 1;
                }
                if self.seen.insert(key(!taken)) {
                    self.stats.targets += 1;
                    self.targets.push_back(Target {
                        trace: sym.clone(),
                        branch: i,
                    });
                }
            }
            position = here;
        }
        for e in path_events {
            position = mix(position, 1 + u64::from(e.thread));
        }
        if !self.paths.insert(position) {
            self.stats.repeated_paths += 1;
        }
    }

    /// The next input vector from the targets, if any is satisfiable.
    fn next_inputs(&mut self) -> Option<Vec<InputValue>> {
        while let Some(target) = self.targets.pop_front() {
            let answer = self
                .solver
                .negate(&target.trace, target.branch, &mut self.stats);
            let Some(inputs) = answer else { continue };
            let mut key = inputs.clone();
            key.sort();
            if !self.tried.insert(key) {
                self.stats.duplicate_inputs += 1;
                continue;
            }
            return Some(inputs);
        }
        None
    }
}

impl Strategy for Concolic {
    fn name(&self) -> &'static str {
        self.name
    }

    fn next_request(&mut self) -> Option<Request> {
        loop {
            if let Some(mut request) = self.current.next_request() {
                request.inputs = self.inputs.clone();
                return Some(request);
            }
            let inputs = self.next_inputs()?;
            self.stats.input_vectors += 1;
            self.inputs = inputs;
            self.current = (self.make)();
        }
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        self.current.observe(request, trace)?;
        if let Some(sym) = &trace.symbolic {
            let mut key = sym.values();
            key.sort();
            if self.remembered.insert(key) {
                self.solver.remember(sym);
            }
            self.queue_targets(sym, trace);
        }
        Ok(())
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.current.set_cancel(cancel);
    }

    fn incomplete(&self) -> Option<String> {
        let mut why = self.current.incomplete();
        if self.stats.unknown > 0 {
            let note = format!(
                "{} solver queries timed out or were undecided (raise --solver-timeout)",
                self.stats.unknown
            );
            why = Some(why.map_or(note.clone(), |w| format!("{w}; {note}")));
        }
        why
    }

    fn stats(&self) -> Vec<(&'static str, String)> {
        let mut out = self.current.stats();
        out.extend(stats_lines(&self.stats));
        out
    }
}
