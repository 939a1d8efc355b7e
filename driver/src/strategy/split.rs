//! The seam between a search and parallel exploration (`--jobs N`,
//! [`crate::parallel`]): a search that can hand subtrees of its path to
//! other workers and take back what they learn about its own nodes.

use super::Strategy;
use crate::exec::Request;

/// A search whose subtrees other workers can explore.
///
/// A subtree hangs from a node of the path (its *root*); the nodes up to
/// the root belong to the search that gave it away, which keeps them until
/// the subtree is done. What the subtree's search learns about those nodes
/// (a choice to add, a transition that crashed) it queues as reports, which
/// the coordinator routes to the owner of each node.
pub trait Splittable: Strategy + Send + Sized {
    /// A fact about a node above a subtree, for the node's owner.
    type Report: Send;

    /// For the coordinator: the deepest unexplored choice on the path, as
    /// a request and a search of its own restricted to the subtree below
    /// it. The choice counts as explored from now on.
    fn take_subtree(&mut self) -> Option<(Request, Self)>;

    /// For a worker asked to share: the unexplored choice nearest to its
    /// root (the largest subtree it knows of), given away like
    /// [`Splittable::take_subtree`]; the node it hangs from stays on the
    /// path until [`Splittable::subtree_done`] is called for it.
    fn split(&mut self) -> Option<(Request, Self)>;

    /// The subtree given away from the node at `depth` is explored and its
    /// reports applied.
    fn subtree_done(&mut self, depth: usize);

    /// True if the last [`Strategy::next_request`] returned `None` only
    /// because a node waits for subtrees it gave away: calling it again
    /// continues the search.
    fn paused(&self) -> bool;

    /// True if the search is paused and the node it stopped at still lends
    /// a subtree.
    fn waiting(&self) -> bool;

    /// The node this search's subtree hangs from (`None` for a whole search).
    fn root(&self) -> Option<usize>;

    /// Applies what subtrees given away reported about this search's nodes.
    fn apply_reports(&mut self, reports: Vec<Self::Report>);

    /// For a worker: the reports gathered since the last call.
    fn take_reports(&mut self) -> Vec<Self::Report>;

    /// The depth of the node a report is about.
    fn report_depth(report: &Self::Report) -> usize;

    /// For a subtree given away: which of its root node's branches it is
    /// (for [`Splittable::forward_to`]); `None` if reports never go down.
    fn lent_branch(&self) -> Option<usize> {
        None
    }

    /// For a report that goes down, from the owner of a node to a subtree
    /// it gave away from it: the node's depth and the subtree's
    /// [`Splittable::lent_branch`]. If that subtree is finished, the
    /// report goes back to the search that made it.
    fn forward_to(_report: &Self::Report) -> Option<(usize, usize)> {
        None
    }

    /// For a report that went down and was applied: the report that tells
    /// the search that made it so.
    fn settled(_report: &Self::Report) -> Option<Self::Report> {
        None
    }
}
