//! Exploration strategies behind one small trait.
//!
//! A strategy proposes the next execution as a [`Request`] (schedule prefix,
//! sleep set) and learns from the [`Trace`] that execution produced. It never
//! runs anything itself, so every strategy works with every executor.

pub mod bounded;
pub mod branches;
pub mod dpor;
pub mod exhaustive;
pub mod optimal;
pub mod partition;
pub mod pct;
pub mod random;
pub mod read_choice;
pub mod rt;
pub mod split;
pub mod tree;
pub mod tree_search;
pub mod unfold;

use crate::cancel::Cancel;
use crate::exec::Request;
use crate::trace::Trace;
use std::fmt;

/// A replayed prefix did not reproduce the operations seen before at the same
/// position: the program is nondeterministic beyond thread scheduling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Step (event index) where the executions differ.
    pub step: usize,
    /// What an earlier execution did there.
    pub expected: String,
    /// What this execution did.
    pub got: String,
    /// The expected step was the strategy's prediction, not a replay: a
    /// step of a reordering of events seen in other executions (an
    /// optimal-DPOR wakeup sequence, a race variant), which no execution
    /// has taken after this prefix. A
    /// program that repeats itself and still leaves such a step depends
    /// on something the trace does not show (an access in uninstrumented
    /// code), never on what an earlier run read.
    pub predicted: bool,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected {} at step {}, got {}",
            self.expected, self.step, self.got
        )
    }
}

/// An exploration strategy.
pub trait Strategy {
    /// Name shown in reports (`dpor`, `exhaustive`, ...).
    fn name(&self) -> &'static str;
    /// The next execution to run, or `None` when the search is complete.
    fn next_request(&mut self) -> Option<Request>;
    /// Learns from the trace of the execution of the last request.
    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence>;
    /// The execution of the last request stopped inside its prefix: the
    /// prefix asked for a thread the runtime holds back as a spinner (an
    /// order that puts a busy-waiting step before what it waits for), and
    /// the run asked the runtime to drop such requests
    /// ([`crate::exec::ExecConfig::drop_held`]; otherwise the step runs).
    /// Returns true if the strategy drops the request, as reachability
    /// testing drops such a variant and unfolding such a target (the same
    /// behaviour with the step later is reached on its own); false (the
    /// default) reports the execution as a divergence.
    fn abandon(&mut self, _request: &Request) -> bool {
        false
    }
    /// The runtime dropped the execution of the last request: a thread
    /// its prefix ran while the runtime held it back as a spinner was held
    /// back again at the same operation before any progress
    /// ([`crate::exec::ExecConfig::drop_respin`]), so the step added one
    /// spin iteration and nothing else. Returns true if the strategy drops
    /// the execution with its branch (optimal DPOR, which reverses the
    /// races of held-back steps); false (the default) observes it as a
    /// sleep-blocked execution.
    fn drop_respun(&mut self, _request: &Request) -> bool {
        false
    }
    /// Lets the analysis in [`Strategy::observe`] stop early when `cancel`
    /// fires (what it learnt is then partial; the exploration stops).
    fn set_cancel(&mut self, _cancel: Cancel) {}
    /// Why the search, once out of requests, has still not covered every
    /// behaviour (a bound it had to apply), if it had to.
    fn incomplete(&self) -> Option<String> {
        None
    }
    /// What the executions run so far cover, beyond the count of
    /// executions and behaviours (a completed bound, a probability bound),
    /// for the coverage line at the end of a report.
    fn coverage(&self) -> Option<String> {
        None
    }
    /// Strategy-specific figures for `--stats` (name, value).
    fn stats(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// Whether the execution of the last request counts in this run's
    /// totals: false for a shard's run of the shared part that shard 0
    /// counts ([`crate::shard`]).
    fn counted(&self) -> bool {
        true
    }
    /// True if the search can have several requests in flight: it may be
    /// asked for the next request before it has observed the previous ones,
    /// observes them in the order it made them, and returns `None` from
    /// [`Strategy::next_request`] while it must wait for results
    /// ([`crate::pipeline`]).
    fn pipelined(&self) -> bool {
        false
    }
}
