//! Concolic testing inside the unfolding (Kähkönen et al., Sec. 3 and
//! Sec. 4.1): the path constraints a thread evaluates on input values are
//! symbolic branch events of the unfolding, and the input vector of an
//! execution comes from its target.
//!
//! A target's causal past fixes the path of every thread in it, branch
//! events included, so the *path constraint of the target* is the
//! conjunction of the constraints of the branch events in its past, each
//! with its event's outcome (EXECUTE, Sec. 4.1: "the path constraint
//! corresponding to the scheduled execution path is solved"). Satisfiable,
//! its model is the execution's input vector; unsatisfiable, the target is
//! unreachable with any input and is cut from the unfolding. Every target
//! is checked, scheduling targets too: possible extensions are computed
//! without the constraints, so two concurrent branch events may contradict
//! each other. The deadlocks found on the unfolding are filtered the same
//! way (FILTERUNSAT, Sec. 4.4).
//!
//! A branch event's constraint is the expression recorded by the first
//! execution that reached its thread condition; the other outcome's event
//! (the possible extension of case 1, Sec. 5.2.1) negates it. Inputs are
//! matched across executions by name, occurrence and size.

use super::store::{CondId, EventId, Unfolding};
use crate::constraints::solver::{Constraint, Solver};
use crate::constraints::ConcolicStats;
use crate::exec::symbolic::SymTrace;
use crate::exec::InputValue;
use crate::trace::Trace;
use rustc_hash::FxHashMap;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// The concolic part of an unfolding search.
pub struct Inputs {
    solver: Solver,
    /// The path constraint after each thread condition whose next step is
    /// a symbolic branch: the recording execution and the record's index.
    sources: FxHashMap<CondId, (Arc<SymTrace>, usize)>,
    /// Input vectors run (sorted values), for the model cache.
    remembered: HashSet<Vec<InputValue>>,
    /// Whole combined paths run (schedule and branch outcomes).
    paths: HashSet<u64>,
    /// The figures of `--stats`.
    pub stats: ConcolicStats,
}

impl Inputs {
    /// No constraints yet; each solver query gives up after `timeout`.
    pub fn new(timeout: Duration) -> Inputs {
        Inputs {
            solver: Solver::new(timeout),
            sources: FxHashMap::default(),
            remembered: HashSet::new(),
            paths: HashSet::new(),
            stats: ConcolicStats::default(),
        }
    }

    /// Thread condition `c`'s next step is path constraint `index` of
    /// `sym` (the first execution to get there records it).
    pub fn record_source(&mut self, c: CondId, sym: &Arc<SymTrace>, index: usize) {
        self.sources.entry(c).or_insert_with(|| {
            self.stats.branch_nodes += 1;
            (sym.clone(), index)
        });
    }

    /// The path constraint of the events `config`: the constraint of each
    /// symbolic branch event among them, with its outcome.
    fn constraints(&self, unf: &Unfolding, config: &[EventId]) -> Vec<Constraint> {
        config
            .iter()
            .filter_map(|&e| {
                let b = unf.events[e as usize].label.branch?;
                let (trace, index) = self.sources.get(&unf.thread_cond(e))?;
                Some(Constraint {
                    trace: trace.clone(),
                    index: *index,
                    holds: b.taken,
                })
            })
            .collect()
    }

    /// Input values that lead every thread along its path in `config`;
    /// `None` if its path constraint is unsatisfiable (or undecided).
    /// Without branch events, the default inputs.
    pub fn solve(&mut self, unf: &Unfolding, config: &[EventId]) -> Option<Vec<InputValue>> {
        let constraints = self.constraints(unf, config);
        if constraints.is_empty() {
            return Some(Vec::new());
        }
        self.stats.targets += 1;
        self.solver.solve(&constraints, &mut self.stats)
    }

    /// An execution ran: its inputs go to the model cache, its path to the
    /// repeated-path count.
    pub fn observed(&mut self, trace: &Trace) {
        let Some(sym) = &trace.symbolic else { return };
        if sym.overflow != 0 {
            self.stats.overflowed += 1;
        }
        let mut key = sym.values();
        key.sort();
        if self.remembered.insert(key) {
            self.stats.input_vectors += 1;
            self.solver.remember(sym);
        }
        if !self.paths.insert(crate::constraints::path_key(sym, trace)) {
            self.stats.repeated_paths += 1;
        }
    }
}
