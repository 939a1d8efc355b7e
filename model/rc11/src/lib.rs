//! An axiomatic oracle for the RC11 memory model: the model of C11 atomics
//! in Lahav, Vafeiadis, Kang, Hur and Dreyer, "Repairing sequential
//! consistency in C/C++11" (PLDI 2017), §3.
//!
//! - [`graph`]: execution graphs (§3.1): events, rf, mo, rmw; thread
//!   creation and join.
//! - [`relations`]: the derived relations rb, eco, rs, sw, hb, scb, psc.
//! - [`consistency`]: the RC11 axioms (coherence, atomicity, SC,
//!   no-thin-air) and sequential consistency; races on plain accesses.
//! - [`litmus`]: small programs, threads of operations with constant values.
//! - [`enumerate`]: a program's consistent executions, each once.
//!
//! The oracle stands alone: it knows nothing of the runtime or the driver.
//! An execution the tester reports maps to a [`graph::Graph`] through
//! [`graph::GraphBuilder`], and [`consistency::violations`] says whether
//! RC11 allows it; for a program written in [`litmus`], [`enumerate()`]
//! gives the exact set a search must find.

pub mod consistency;
pub mod enumerate;
pub mod graph;
pub mod litmus;
pub mod relation;
pub mod relations;

mod candidates;
mod explore;
mod ops;
mod trace;

pub use consistency::{violations, Axiom, Model};
pub use enumerate::{
    enumerate, enumerate_candidates, interleavings, Enumeration, Execution, Outcome,
};
pub use graph::{Graph, GraphBuilder, Mode};
pub use litmus::{Op, Order, Program};
