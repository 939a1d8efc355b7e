//! Iterative preemption bounding (Musuvathi and Qadeer, PLDI 2007): explore
//! every schedule with at most 0 preemptions, then at most 1, 2, ... until
//! the budget ends or a bound prunes nothing (the search is then complete).
//! A preemption is a switch away from a thread that is still enabled; most
//! bugs need only one to three. Each round re-runs the executions of the
//! rounds before it (they are what its choices hang from), so the
//! execution count includes those repeats.

use super::{Divergence, Strategy};
use crate::cancel::Cancel;
use crate::exec::Request;
use crate::trace::Trace;

/// A search that can be bounded, and says whether the bound left anything out.
pub trait BoundedSearch: Strategy {
    /// Some choice was left out because of the bound.
    fn pruned(&self) -> bool;
}

/// Makes the search for one bound.
pub type MakeSearch = Box<dyn Fn(u32) -> Box<dyn BoundedSearch>>;

/// Rounds of a bounded search with growing bounds.
pub struct IterativeBound {
    name: &'static str,
    make: MakeSearch,
    bound: u32,
    limit: u32,
    inner: Box<dyn BoundedSearch>,
    /// The largest bound whose round finished.
    completed: Option<u32>,
    /// The last round pruned nothing: every schedule was explored.
    exhausted: bool,
    cancel: Cancel,
    /// Whether rounds give the exact guarantee (exhaustive) or DPOR's.
    exact: bool,
}

impl IterativeBound {
    /// Rounds of `make(0)`, `make(1)`, ... up to `make(limit)`, shown as
    /// `name`; `exact` if a finished round covers every schedule within
    /// its bound.
    pub fn new(name: &'static str, limit: u32, exact: bool, make: MakeSearch) -> IterativeBound {
        let inner = make(0);
        IterativeBound {
            name,
            make,
            bound: 0,
            limit,
            inner,
            completed: None,
            exhausted: false,
            cancel: Cancel::never(),
            exact,
        }
    }

    /// The largest bound whose round finished, if any.
    pub fn completed(&self) -> Option<u32> {
        self.completed
    }
}

impl Strategy for IterativeBound {
    fn name(&self) -> &'static str {
        self.name
    }

    fn next_request(&mut self) -> Option<Request> {
        loop {
            if let Some(request) = self.inner.next_request() {
                return Some(request);
            }
            self.completed = Some(self.bound);
            if !self.inner.pruned() {
                self.exhausted = true;
                return None;
            }
            if self.bound >= self.limit {
                return None;
            }
            self.bound += 1;
            self.inner = (self.make)(self.bound);
            self.inner.set_cancel(self.cancel.clone());
        }
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        self.inner.observe(request, trace)
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel.clone();
        self.inner.set_cancel(cancel);
    }

    fn incomplete(&self) -> Option<String> {
        if self.exhausted {
            return self.inner.incomplete();
        }
        Some(format!(
            "preemption bound {} explored, schedules with more preemptions were not",
            self.completed.unwrap_or(0)
        ))
    }

    fn coverage(&self) -> Option<String> {
        let guarantee = if self.exact {
            "every schedule"
        } else {
            "the DPOR schedules (not every equivalence class: see docs/limits.md)"
        };
        Some(match (self.exhausted, self.completed) {
            (true, _) => format!(
                "{}: no schedule needed more than {} preemptions: all behaviours covered",
                self.name, self.bound
            ),
            (false, Some(done)) if self.bound > done => format!(
                "{}: preemption bound {done} completed ({guarantee} with at most {done} preemptions), bound {} partly explored",
                self.name, self.bound
            ),
            (false, Some(done)) => format!(
                "{}: preemption bound {done} completed ({guarantee} with at most {done} preemptions)",
                self.name
            ),
            (false, None) => format!(
                "{}: preemption bound 0 not completed (bound {} partly explored)",
                self.name, self.bound
            ),
        })
    }
}
