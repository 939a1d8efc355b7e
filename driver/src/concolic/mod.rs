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

pub mod solver;
pub mod tree;

use crate::cancel::Cancel;
use crate::exec::{ExecError, InputValue, Request};
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use reach_channel::symbolic::{
    BranchKind, BranchRecord, InputKind, SymNode, SYM_REQ_ARGS, SYM_REQ_STDIN,
};
use reach_channel::ChannelView;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

/// One input an execution created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Name (lossy UTF-8).
    pub name: String,
    /// Occurrence of the name in the execution.
    pub occurrence: u32,
    /// Integer or bytes.
    pub kind: InputKind,
    /// The value used.
    pub bytes: Vec<u8>,
    /// Range of an integer input.
    pub lo: i64,
    /// Range of an integer input.
    pub hi: i64,
    /// Thread that created it.
    pub thread: u32,
}

impl Input {
    /// The value as the driver passes it back.
    pub fn value(&self) -> InputValue {
        InputValue {
            name: self.name.clone(),
            occurrence: self.occurrence,
            bytes: self.bytes.clone(),
        }
    }

    /// The value for people: a decimal integer, or the bytes as a string
    /// with escapes.
    pub fn display(&self) -> String {
        display_value(self.kind, &self.bytes)
    }
}

/// Formats an input value: an integer in decimal, bytes as an escaped string.
pub fn display_value(kind: InputKind, bytes: &[u8]) -> String {
    match kind {
        InputKind::Int if bytes.len() == 4 => {
            i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]).to_string()
        }
        _ => format!("\"{}\"", bytes.escape_ascii()),
    }
}

/// What one execution recorded in the symbolic region.
#[derive(Clone, Debug, Default)]
pub struct SymTrace {
    /// Inputs in creation order (index = the `imm` of an input node).
    pub inputs: Vec<Input>,
    /// Expression nodes (node id `n` is entry `n - 1`), unvalidated.
    pub nodes: Vec<SymNode>,
    /// Path constraints in execution order.
    pub branches: Vec<BranchRecord>,
    /// `SYM_OVERFLOW_*` bits.
    pub overflow: u32,
    /// The execution ran with `--symbolic-args`.
    pub args: bool,
    /// Bytes of stdin the execution made symbolic (`--symbolic-stdin`).
    pub stdin_bytes: u32,
}

impl SymTrace {
    /// Reads the symbolic region (`None` if the execution recorded nothing
    /// there: no input, and no shared-load expression with `--strategy
    /// branches`).
    pub fn read(view: &ChannelView<'_>) -> Result<Option<SymTrace>, ExecError> {
        let counts = view.sym_counts()?;
        if counts.inputs == 0 && counts.nodes == 0 && counts.branches == 0 {
            return Ok(None);
        }
        let mut inputs = Vec::with_capacity(counts.inputs);
        for i in 0..counts.inputs {
            let slot = view.sym_input(i)?;
            let kind = InputKind::from_u32(slot.kind)
                .ok_or_else(|| ExecError::CorruptChannel(format!("input {i} has a bad kind")))?;
            let len = (slot.len as usize).min(slot.bytes.len());
            inputs.push(Input {
                name: String::from_utf8_lossy(slot.name_bytes()).into_owned(),
                occurrence: slot.occurrence,
                kind,
                bytes: slot.bytes[..len].to_vec(),
                lo: slot.lo,
                hi: slot.hi,
                thread: slot.thread,
            });
        }
        let mut nodes = Vec::with_capacity(counts.nodes);
        for id in 1..=counts.nodes as u32 {
            nodes.push(view.sym_node(id)?);
        }
        let mut branches = Vec::with_capacity(counts.branches);
        for i in 0..counts.branches {
            branches.push(view.sym_branch(i)?);
        }
        Ok(Some(SymTrace {
            inputs,
            nodes,
            branches,
            overflow: counts.overflow,
            args: counts.flags & SYM_REQ_ARGS != 0,
            stdin_bytes: if counts.flags & SYM_REQ_STDIN != 0 {
                counts.stdin_bytes
            } else {
                0
            },
        }))
    }

    /// The inputs for people: `mode = 3, name#1 = "ab\x00"` (`#k` for the
    /// k-th occurrence of a name after the first).
    pub fn inputs_text(&self) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|i| {
                let occurrence = if i.occurrence > 0 {
                    format!("#{}", i.occurrence)
                } else {
                    String::new()
                };
                format!("{}{occurrence} = {}", i.name, i.display())
            })
            .collect();
        inputs.join(", ")
    }

    /// The input values as the driver passes them to an execution.
    pub fn values(&self) -> Vec<InputValue> {
        self.inputs.iter().map(Input::value).collect()
    }
}

/// Counts for `--stats`.
#[derive(Clone, Debug, Default)]
pub struct ConcolicStats {
    /// Branch nodes seen (distinct positions in the combined tree).
    pub branch_nodes: u64,
    /// Targets (unexplored branch outcomes) queued.
    pub targets: u64,
    /// Queries sent to z3.
    pub solver_calls: u64,
    /// Satisfiable answers.
    pub sat: u64,
    /// Unsatisfiable answers (targets dropped).
    pub unsat: u64,
    /// Queries that hit `--solver-timeout` or that z3 could not decide.
    pub unknown: u64,
    /// Targets answered from the model cache.
    pub cache_hits: u64,
    /// Targets whose expressions were malformed (dropped).
    pub malformed: u64,
    /// Targets whose model gave an input vector already run (dropped).
    pub duplicate_inputs: u64,
    /// Input vectors explored.
    pub input_vectors: u64,
    /// Executions whose symbolic region overflowed or concretised a value.
    pub overflowed: u64,
    /// Executions whose whole combined-tree path (schedule and branch
    /// outcomes) an earlier execution had already run: the price of
    /// repeating the scheduling search for each input vector.
    pub repeated_paths: u64,
    /// Flips of the combined tree ([`tree`]) whose execution did not reach
    /// the negated branch with the solved inputs.
    pub diverged: u64,
    /// Time spent in z3.
    pub solver_time: Duration,
}

/// One step of a 64-bit position hash (a multiply-xorshift mix).
fn mix(h: u64, x: u64) -> u64 {
    let v = (h ^ x.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    v ^ (v >> 31)
}

/// True if the other outcome of path constraint `b` is worth a query: a
/// conditional branch, or a `reach_assume` that failed.
fn negatable(b: &BranchRecord) -> bool {
    b.kind == BranchKind::Branch as u16 || (b.kind == BranchKind::Assume as u16 && b.taken == 0)
}

/// Hash of an execution's whole path in the combined tree: the thread of
/// every event and, at its place among them, the site and outcome of every
/// path constraint.
pub(crate) fn path_key(sym: &SymTrace, trace: &Trace) -> u64 {
    let mut position = 0x51_7C_C1_B7_27_22_0A_95u64;
    let mut events = trace.events.iter();
    let mut done = 0usize;
    for b in &sym.branches {
        let upto = usize::try_from(b.step).unwrap_or(usize::MAX);
        while done < upto {
            let Some(e) = events.next() else { break };
            position = mix(position, 1 + u64::from(e.thread));
            done += 1;
        }
        position = mix(mix(position, b.site), 2 + u64::from(b.taken != 0));
    }
    for e in events {
        position = mix(position, 1 + u64::from(e.thread));
    }
    position
}

/// The concolic figures of `--stats`.
pub(crate) fn stats_lines(s: &ConcolicStats) -> Vec<(&'static str, String)> {
    vec![
        ("input vectors", s.input_vectors.to_string()),
        ("branch nodes", s.branch_nodes.to_string()),
        ("targets", s.targets.to_string()),
        ("solver calls", s.solver_calls.to_string()),
        (
            "sat/unsat/timeout",
            format!("{}/{}/{}", s.sat, s.unsat, s.unknown),
        ),
        ("model cache hits", s.cache_hits.to_string()),
        ("duplicate inputs", s.duplicate_inputs.to_string()),
        ("diverged flips", s.diverged.to_string()),
        ("symbolic overflow", s.overflowed.to_string()),
        ("repeated paths", s.repeated_paths.to_string()),
        (
            "solver time",
            format!("{:.3} s", s.solver_time.as_secs_f64()),
        ),
    ]
}

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
