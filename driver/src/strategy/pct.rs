//! Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi and
//! Nagarakatte, ASPLOS 2010). Each execution gives the threads a random
//! order of priorities and draws `d - 1` priority change points uniformly
//! over the steps of an execution (Sec. 3, Algorithm 1); the runtime runs
//! the enabled thread of highest priority ([`Policy::Pct`]). A bug of depth
//! `d` (`d` ordering constraints between events, Sec. 2) is then hit with
//! probability at least `1 / (n·k^(d−1))` per execution, for `n` threads and
//! `k` steps (Sec. 4, Theorem 1).
//!
//! `k` is not known before running: it is the largest number of steps of
//! any execution so far, updated as executions run (the first execution
//! has no change points). An execution longer than the `k` its change
//! points were drawn over does not count towards the guarantee.

use super::random::SplitMix;
use super::{Divergence, Strategy};
use crate::exec::Request;
use crate::trace::Trace;
use reach_channel::{ChangePoint, Policy, ThreadSet, MAX_CHANGE_POINTS};

/// Deepest bug depth `--depth` accepts.
pub const MAX_DEPTH: u32 = MAX_CHANGE_POINTS as u32 + 1;

/// The PCT strategy for bugs of depth `depth`.
#[derive(Clone, Debug)]
pub struct Pct {
    depth: u32,
    rng: SplitMix,
    /// The step estimate `k` the next change points are drawn over.
    steps: u64,
    /// The most threads seen in one execution (`n`).
    threads: u64,
    /// Per execution: the `k` its change points were drawn over, or 0 if
    /// the execution was longer (it does not count).
    drawn_over: Vec<u64>,
    /// `k` of the last request.
    last_k: u64,
}

impl Pct {
    /// PCT for bugs of depth `depth` (1..=[`MAX_DEPTH`]), seeded with `seed`.
    pub fn new(depth: u32, seed: u64) -> Pct {
        Pct {
            depth: depth.clamp(1, MAX_DEPTH),
            rng: SplitMix::new(seed),
            steps: 0,
            threads: 1,
            drawn_over: Vec::new(),
            last_k: 0,
        }
    }

    /// The bug depth this search targets.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Executions run so far.
    pub fn executions(&self) -> u64 {
        self.drawn_over.len() as u64
    }

    /// Lower bound on the probability that the executions so far hit a
    /// given bug of depth [`Pct::depth`]: `1 − Π (1 − 1/(n·k_i^(d−1)))`
    /// over the executions `i` that were no longer than the `k_i` their
    /// change points were drawn over (with `n` the most threads seen).
    pub fn probability(&self) -> f64 {
        let n = self.threads.max(1) as f64;
        let mut log_miss = 0.0f64;
        for &k in &self.drawn_over {
            if self.depth > 1 && k == 0 {
                continue;
            }
            let p = 1.0 / (n * (k.max(1) as f64).powi(self.depth as i32 - 1));
            log_miss += (-p).ln_1p();
        }
        1.0 - log_miss.exp()
    }

    /// The threads (`n`) and steps (`k`) measured so far.
    pub fn measured(&self) -> (u64, u64) {
        (self.threads, self.steps)
    }
}

impl Strategy for Pct {
    fn name(&self) -> &'static str {
        "pct"
    }

    fn next_request(&mut self) -> Option<Request> {
        let seed = self.rng.next_u64();
        let mut change_points = Vec::new();
        self.last_k = self.steps;
        if self.steps > 0 {
            // Change point i lowers the priority to i + 1 (Algorithm 1: the
            // i-th change point gives priority i, below the initial ones).
            for i in 0..self.depth - 1 {
                change_points.push(ChangePoint {
                    step: self.rng.below(self.steps),
                    priority: u64::from(i) + 1,
                });
            }
            change_points.sort_by_key(|c| c.step);
        }
        Some(Request {
            prefix: Vec::new(),
            policy: Policy::Pct,
            seed,
            sleep_set: ThreadSet::EMPTY,
            sleep_sets: false,
            change_points,
            inputs: Vec::new(),
        })
    }

    fn pipelined(&self) -> bool {
        true
    }

    fn observe(&mut self, _request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let steps = trace.total_steps.max(trace.len() as u64);
        let counted = if steps <= self.last_k || self.depth == 1 {
            self.last_k.max(1)
        } else {
            0
        };
        self.drawn_over.push(counted);
        self.steps = self.steps.max(steps);
        self.threads = self.threads.max(trace.thread_count() as u64);
        Ok(())
    }

    fn coverage(&self) -> Option<String> {
        let (n, k) = self.measured();
        Some(format!(
            "pct depth {}: {} executions, n = {n} threads, k = {k} steps; a bug of depth {} is hit with probability >= {} (1-(1-p)^executions, p = 1/(n*k^(d-1)))",
            self.depth,
            self.executions(),
            self.depth,
            percent(self.probability())
        ))
    }
}

/// A probability as a percentage with enough digits to tell small ones apart.
pub fn percent(p: f64) -> String {
    if p >= 0.01 || p == 0.0 {
        format!("{:.1}%", p * 100.0)
    } else if p >= 1e-5 {
        format!("{:.3}%", p * 100.0)
    } else {
        format!("{:.1e}", p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_points_lie_within_the_measured_steps_and_are_sorted() {
        let mut pct = Pct::new(3, 7);
        let first = pct.next_request().map(|r| r.change_points);
        assert_eq!(first, Some(Vec::new()));
        pct.steps = 50;
        for _ in 0..100 {
            let Some(r) = pct.next_request() else {
                panic!("PCT never ends")
            };
            assert_eq!(r.policy, Policy::Pct);
            assert_eq!(r.change_points.len(), 2);
            assert!(r.change_points.iter().all(|c| c.step < 50));
            assert!(r.change_points[0].step <= r.change_points[1].step);
        }
    }

    #[test]
    fn probability_grows_with_executions() {
        let mut pct = Pct::new(1, 1);
        pct.threads = 2;
        pct.drawn_over = vec![1; 10];
        // 1 - (1/2)^10
        assert!((pct.probability() - (1.0 - 0.5f64.powi(10))).abs() < 1e-12);
        let mut deep = Pct::new(2, 1);
        deep.threads = 2;
        deep.drawn_over = vec![10, 0, 10];
        // two executions count, p = 1/20 each
        assert!((deep.probability() - (1.0 - 0.95f64.powi(2))).abs() < 1e-12);
    }
}
