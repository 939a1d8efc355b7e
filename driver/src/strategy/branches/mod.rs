//! Branch-directed, race-equivalent exploration (Setiadi, Hwang et al.:
//! "race-equivalent path exploration"; `--strategy branches`).
//!
//! Lockset races (inconsistent locking, unlock without lock) depend only on
//! which operations each thread performs under which locks: its *access
//! manners* ([`manners`]). Executions whose threads take the same branches
//! have the same manners, and only an interleaving that changes the value
//! a branch condition is computed from can change a branch. So instead of
//! every partial order, the search runs one execution per order of the
//! operations each branch condition depends on:
//!
//! | part | paper | module |
//! |---|---|---|
//! | access manners, race-equivalence, equivalent iterations | Sec. 4.1 | [`manners`], [`events`] |
//! | use-defines, `BranchRelUD`/`BranchRelOP` by fixpoint | Sec. 4.2, Alg. 2 | [`dataflow`] |
//! | branch-affect groups, branch-condition table | Sec. 4.3–4.4, Alg. 3 | [`groups`] |
//! | variant graph: index and version vectors, lock and wait flags | Sec. 3, Alg. 1 | [`variant_graph`] over [`crate::strategy::rt`] |
//! | the main loop | Sec. 4.4, Alg. 4 | [`strategy`] |
//!
//! Its guarantee (Theorem 1) is for a fixed input and lockset races: it
//! does not cover assertion failures or value-dependent bugs, which
//! `dpor`, `optimal` or `rt` find. It needs a program built with
//! `REACH_SYMBOLIC=1` (the shadow computations that trace data flow into
//! branch conditions); program inputs keep their default values.

pub mod dataflow;
pub mod events;
pub mod groups;
pub mod manners;
pub mod strategy;
pub mod variant_graph;

pub use strategy::BranchDirected;

#[cfg(test)]
mod tests;
