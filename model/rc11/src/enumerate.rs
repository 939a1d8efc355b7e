//! A program's consistent executions under a model, each once, with their
//! outcomes, failed assertions and races.
//!
//! Three enumerations, which the tests hold against each other:
//! - [`enumerate`]: candidates built in `po ∪ rf` order (`explore`),
//!   then the model's axioms; handles every program.
//! - [`enumerate_candidates`]: every rf and mo candidate of a program of
//!   fixed shape, thin-air cycles included, then the axioms.
//! - [`interleavings`]: the executions of the interleavings of the threads,
//!   no axiom applied; equal to `enumerate(p, Model::Sc)`.
//!
//! Two executions are the same when their graphs are: the same events with
//! the same values, rf and mo.

use crate::consistency::{data_races, violations_with, Model};
use crate::explore::{explore, Finished, Policy};
use crate::graph::{EventId, Graph, LocId, Value};
use crate::litmus::{Program, ProgramError};
use crate::ops::Code;
use crate::relations::Relations;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// What an execution ends with: the registers set, and each location's
/// final value (its mo-last write).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Outcome {
    /// Register name → value read.
    pub registers: BTreeMap<String, Value>,
    /// Location name → final value.
    pub memory: BTreeMap<String, Value>,
}

impl Outcome {
    /// The value of a register, or else of a location, with this name.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.registers
            .get(name)
            .or_else(|| self.memory.get(name))
            .copied()
    }

    /// Whether every `(name, value)` pair holds.
    pub fn matches(&self, want: &[(&str, Value)]) -> bool {
        want.iter()
            .all(|&(name, value)| self.get(name) == Some(value))
    }
}

/// One consistent execution.
#[derive(Clone, Debug)]
pub struct Execution {
    /// The execution graph.
    pub graph: Graph,
    /// Its registers and final memory.
    pub outcome: Outcome,
    /// The assertions that failed, one line each, sorted.
    pub failed_assertions: Vec<String>,
    /// Its races on non-atomic accesses (undefined behaviour).
    pub races: Vec<(EventId, EventId)>,
}

/// A program's consistent executions.
#[derive(Clone, Debug)]
pub struct Enumeration {
    /// The executions, each once, in an order fixed by the program.
    pub executions: Vec<Execution>,
    /// How many candidates were checked to find them.
    pub candidates: usize,
}

impl Enumeration {
    /// The number of executions.
    pub fn len(&self) -> usize {
        self.executions.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.executions.is_empty()
    }

    /// The distinct outcomes.
    pub fn outcomes(&self) -> BTreeSet<Outcome> {
        self.executions.iter().map(|e| e.outcome.clone()).collect()
    }

    /// Whether some execution ends with every `(name, value)` pair.
    pub fn allows(&self, want: &[(&str, Value)]) -> bool {
        self.executions.iter().any(|e| e.outcome.matches(want))
    }

    /// How many executions fail an assertion.
    pub fn failing(&self) -> usize {
        self.executions
            .iter()
            .filter(|e| !e.failed_assertions.is_empty())
            .count()
    }

    /// Whether some execution has a race on a non-atomic access.
    pub fn racy(&self) -> bool {
        self.executions.iter().any(|e| !e.races.is_empty())
    }

    /// The graphs, as a set.
    pub fn graphs(&self) -> HashSet<&Graph> {
        self.executions.iter().map(|e| &e.graph).collect()
    }
}

/// The executions of `program` consistent under `model`.
pub fn enumerate(program: &Program, model: Model) -> Result<Enumeration, ProgramError> {
    let code = Code::new(program)?;
    let finished = explore(&code, Policy::AnyChoice)?;
    let candidates = finished.len();
    Ok(keep(&code, finished, Some(model), candidates))
}

/// The same as [`enumerate`], found by checking every rf and mo candidate,
/// including those with `po ∪ rf` cycles; only for programs of fixed shape
/// ([`Program::has_fixed_shape`]).
pub fn enumerate_candidates(program: &Program, model: Model) -> Result<Enumeration, ProgramError> {
    let code = Code::new(program)?;
    let all = crate::candidates::all_candidates(&code)?;
    Ok(keep(&code, all.finished, Some(model), all.total))
}

/// The executions of the interleavings of `program`'s threads: each read
/// reads the latest write. No axiom is applied.
pub fn interleavings(program: &Program) -> Result<Enumeration, ProgramError> {
    let code = Code::new(program)?;
    let finished = explore(&code, Policy::Interleaving)?;
    let candidates = finished.len();
    Ok(keep(&code, finished, None, candidates))
}

/// The executions among `finished` that `model` accepts (all if `None`).
fn keep(
    code: &Code,
    finished: Vec<Finished>,
    model: Option<Model>,
    candidates: usize,
) -> Enumeration {
    let mut executions = Vec::new();
    for f in finished {
        let graph = f.trace.to_graph(&code.locations);
        let relations = Relations::of(&graph);
        if let Some(model) = model {
            if !violations_with(&graph, &relations, model).is_empty() {
                continue;
            }
        }
        let memory = code
            .locations
            .iter()
            .enumerate()
            .map(|(l, (name, _))| (name.clone(), graph.final_value(LocId(l))))
            .collect();
        let mut failed_assertions = f.seen.failed;
        failed_assertions.sort();
        executions.push(Execution {
            races: data_races(&graph, &relations),
            outcome: Outcome {
                registers: f.seen.registers,
                memory,
            },
            failed_assertions,
            graph,
        });
    }
    Enumeration {
        executions,
        candidates,
    }
}
