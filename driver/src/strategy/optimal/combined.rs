//! Optimal DPOR as the scheduling part of the combined execution tree of
//! concolic testing (Saarikivi, Kähkönen, Heljanko, Sec. III-B;
//! [`crate::concolic::tree`]).
//!
//! The tree explores the scheduling nodes below its deepest open branch
//! node first ([`TreeSearch::next_request_below`]), then flips that
//! branch: the path is replayed up to it with new inputs and rebuilt from
//! there ([`TreeSearch::resume_at`]). The nodes above keep their sleep
//! sets and wakeup trees, and the races of the executions below add
//! sequences to them as in Algorithm 2.
//!
//! Unlike a backtracking choice of DPOR, a wakeup sequence fixes several
//! steps, recorded in the execution whose race gave it: under other inputs
//! a thread may branch the other way before it ends. So each sequence is
//! tagged with the input vector it was recorded under
//! ([`super::wakeup::Branch::origin`]), and the execution that follows it
//! runs with those inputs. They agree with every path constraint above the
//! node it hangs from (that node was on the path when the sequence was
//! found, and every flip since lay below it), so the node is reached as
//! before.

use super::{InFlight, OptimalDpor};
use crate::exec::Request;
use crate::strategy::tree_search::{Launch, TreeSearch};
use reach_channel::ThreadSet;

impl TreeSearch for OptimalDpor {
    fn next_request_below(&mut self, floor: usize) -> Option<Launch> {
        let request = self.next_request_from(floor)?;
        let first_new = self.in_flight.as_ref().map_or(0, |f| f.branch + 1);
        Some(Launch {
            request,
            first_new,
            origin: self.launched,
        })
    }

    fn resume_at(&mut self, len: usize, sleep: ThreadSet) -> Request {
        self.started = true;
        self.nodes.truncate(len);
        let prefix = super::path_entries(&self.nodes);
        self.launched = None;
        self.in_flight = Some(InFlight {
            branch: len,
            candidate: sleep,
            foreign: ThreadSet::EMPTY,
            subtree: Vec::new(),
            resume: true,
        });
        super::request(prefix, sleep)
    }

    fn sleep_at(&self, state: usize) -> ThreadSet {
        self.nodes.get(state).map_or(self.final_sleep, |n| n.sleep)
    }

    fn depth(&self) -> usize {
        self.nodes.len()
    }

    fn set_origin(&mut self, origin: u32) {
        self.origin = origin;
    }
}
