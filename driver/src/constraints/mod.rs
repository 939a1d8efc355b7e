//! Path constraints over the program's inputs: negating a branch with z3
//! ([`solver`]), naming an execution's path through branches and
//! schedule, and the counts of `--stats`.

pub mod solver;

use crate::exec::symbolic::SymTrace;
use crate::trace::Trace;
use reach_channel::symbolic::{BranchKind, BranchRecord};
use std::time::Duration;

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
    /// Flips of the combined tree ([`crate::concolic::tree`]) whose execution did not reach
    /// the negated branch with the solved inputs.
    pub diverged: u64,
    /// Time spent in z3.
    pub solver_time: Duration,
}

/// One step of a 64-bit position hash (a multiply-xorshift mix).
pub fn mix(h: u64, x: u64) -> u64 {
    let v = (h ^ x.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    v ^ (v >> 31)
}

/// True if the other outcome of path constraint `b` is worth a query: a
/// conditional branch, or a `reach_assume` that failed.
pub fn negatable(b: &BranchRecord) -> bool {
    b.kind == BranchKind::Branch as u16 || (b.kind == BranchKind::Assume as u16 && b.taken == 0)
}

/// Hash of an execution's whole path in the combined tree: the thread of
/// every event and, at its place among them, the site and outcome of every
/// path constraint.
pub fn path_key(sym: &SymTrace, trace: &Trace) -> u64 {
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
pub fn stats_lines(s: &ConcolicStats) -> Vec<(&'static str, String)> {
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
