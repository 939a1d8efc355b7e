//! Exhaustive depth-first search over every schedule: the brute-force oracle
//! the reduced strategies are checked against. Every maximal interleaving of
//! visible operations is run exactly once.

use super::tree::{Node, Path};
use super::{Divergence, Strategy};
use crate::exec::Request;
use crate::trace::Trace;
use reach_channel::{Policy, ThreadSet};

/// Depth-first enumeration of all interleavings.
#[derive(Default)]
pub struct Exhaustive {
    path: Path,
    started: bool,
}

impl Strategy for Exhaustive {
    fn name(&self) -> &'static str {
        "exhaustive"
    }

    fn next_request(&mut self) -> Option<Request> {
        if !self.started {
            self.started = true;
            return Some(Request {
                prefix: Vec::new(),
                policy: Policy::ContinueThenLowest,
                seed: 0,
                sleep_set: ThreadSet::EMPTY,
                sleep_sets: false,
            });
        }
        while let Some(node) = self.path.nodes.last_mut() {
            if let Some(next) = node.enabled.minus(&node.done).first() {
                node.done.insert(next);
                node.chosen = next;
                let i = self.path.nodes.len() - 1;
                return Some(Request {
                    prefix: self.path.prefix_to(i, next),
                    policy: Policy::ContinueThenLowest,
                    seed: 0,
                    sleep_set: ThreadSet::EMPTY,
                    sleep_sets: false,
                });
            }
            self.path.nodes.pop();
        }
        None
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let known = request.prefix.len().saturating_sub(1);
        self.path.check_prefix(trace, known)?;
        if let (Some(node), Some(event)) = (self.path.nodes.last_mut(), trace.events.get(known)) {
            if !request.prefix.is_empty() {
                node.op = event.op;
            }
        }
        for event in trace.events.iter().skip(self.path.nodes.len()) {
            let mut done = ThreadSet::EMPTY;
            done.insert(event.thread);
            self.path.nodes.push(Node {
                enabled: event.enabled,
                chosen: event.thread,
                op: event.op,
                backtrack: event.enabled,
                done,
                sleep: ThreadSet::EMPTY,
                crashed: ThreadSet::EMPTY,
            });
        }
        Ok(())
    }
}
