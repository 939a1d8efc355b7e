//! How a search partitions its tree into frontier subtrees with stable
//! names and estimated sizes, so that shards ([`crate::shard`]) can share
//! it out: a depth-first search over schedules partitions itself with a
//! [`PathPlan`], reachability testing with a [`TreePlan`].

use crate::exec::Request;
use crate::strategy::Strategy;

mod path_plan;
mod tree_plan;

pub use path_plan::PathPlan;
pub use tree_plan::{TreePlan, TreeTag};

/// A search that can be sharded: it says which frontier subtree a request
/// belongs to. A depth-first search over schedules (dpor, optimal,
/// exhaustive) partitions itself with a [`PathPlan`] and only needs to
/// hand it out ([`Shardable::path_plan`]); the other methods default to
/// asking it.
pub trait Shardable: Strategy {
    /// The search's [`PathPlan`], if it partitions itself with one.
    fn path_plan(&mut self) -> Option<&mut PathPlan> {
        None
    }
    /// `None` if `request` is in the shared part, else the frontier subtree
    /// it belongs to (requests of one subtree come one after another).
    fn subtree_of(&mut self, request: &Request) -> Option<Subtree> {
        self.path_plan()?.subtree_of(&request.prefix)
    }
    /// `request`, just returned by [`Strategy::next_request`], belongs to
    /// another shard and will not be run.
    fn skip(&mut self, _request: &Request) {}
    /// Every shard runs the first execution of each frontier subtree
    /// (probed assignment): what it finds may make the subtree part of
    /// the shared part after all ([`Probe::Shared`]).
    fn set_probing(&mut self) {
        if let Some(plan) = self.path_plan() {
            plan.set_probing();
        }
    }
    /// Just after the first execution of a frontier subtree was observed:
    /// what it says of the subtree (`None`: nothing, the estimate named
    /// with the subtree stands).
    fn probe(&mut self) -> Option<Probe> {
        self.path_plan()?.probe()
    }
}

/// What the first execution of a frontier subtree, run by every shard,
/// says of the subtree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Probe {
    /// Still estimated above `1/(K·N)` of the search: the execution joins
    /// the shared part, which splits below it.
    Shared,
    /// A frontier subtree estimated at this share of the search (as
    /// [`Subtree::estimate`]).
    Estimate(f64),
}

/// FNV-1a, 64 bits: a stable hash (the same in every process and build).
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Stable name of a schedule prefix.
pub fn prefix_name(prefix: &[u32]) -> u64 {
    fnv1a(prefix.iter().flat_map(|t| t.to_le_bytes()))
}

/// A frontier subtree, as a search names it when one of its requests
/// comes up: a stable name and the share of the whole search it is
/// estimated to hold (0 when the subtree was named before).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Subtree {
    /// Stable name (FNV-1a of a schedule prefix).
    pub name: u64,
    /// Estimated share of the whole search, in `0..=1`.
    pub estimate: f64,
    /// To be probed ([`Assignment::Probed`]): its first execution is run
    /// by every shard (a choice the search made itself, or the first a
    /// forced node adds, while the probe budget lasts).
    pub probe: bool,
}
