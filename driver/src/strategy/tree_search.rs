//! The interface a scheduling search offers to be the scheduling part of
//! concolic testing's combined execution tree ([`crate::concolic::tree`];
//! Saarikivi, Kähkönen, Heljanko, Sec. III-B).

use crate::exec::Request;
use crate::strategy::Strategy;
use reach_channel::ThreadSet;

/// A request of the scheduling part of the combined tree.
pub struct Launch {
    /// What to run (its inputs are set by the tree).
    pub request: Request,
    /// The first state the request may change: branch nodes recorded from
    /// its step on are new positions in the tree.
    pub first_new: usize,
    /// The input vector ([`TreeSearch::set_origin`]) the request's forced
    /// steps were recorded under, if it must run with those; `None`: the
    /// inputs of the subtree being explored.
    pub origin: Option<u32>,
}

/// A scheduling search that can be the scheduling part of the combined
/// execution tree (Sec. III-B): explored depth-first below a floor, and
/// re-entered below a flipped branch node.
pub trait TreeSearch: Strategy {
    /// The next request that branches only from the nodes at depth
    /// `floor` or below (those below the deepest open branch node).
    fn next_request_below(&mut self, floor: usize) -> Option<Launch>;

    /// A request that replays the path's first `len` steps and continues
    /// freely from there with the sleep set `sleep` of that state; the
    /// path is cut to those nodes and rebuilt from the execution.
    fn resume_at(&mut self, len: usize, sleep: ThreadSet) -> Request;

    /// The sleep set of state `state` of the last observed execution.
    fn sleep_at(&self, state: usize) -> ThreadSet;

    /// The number of nodes on the current path.
    fn depth(&self) -> usize;

    /// The input vector of the executions observed from now on (an index
    /// the tree keeps), for searches whose requests depend on it.
    fn set_origin(&mut self, _origin: u32) {}
}
