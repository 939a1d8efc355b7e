//! Random walk: every execution picks uniformly among the enabled threads at
//! each scheduling point (the runtime's [`Policy::Random`], seeded per
//! execution). No guarantee beyond "each schedule has a positive
//! probability"; cheap and often quick on shallow bugs.

use super::{Divergence, Strategy};
use crate::exec::Request;
use crate::trace::Trace;
use reach_channel::{Policy, ThreadSet};

/// A small seeded generator (splitmix64): the per-execution seeds and the
/// PCT change points come from it, so one `--seed` fixes the whole run.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number uniform in `0..n` (`n > 0`; the modulo bias is below
    /// `n / 2^64`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// The random-walk strategy.
#[derive(Clone, Debug)]
pub struct RandomWalk {
    rng: SplitMix,
    executions: u64,
}

impl RandomWalk {
    /// A random walk whose executions' seeds come from `seed`.
    pub fn new(seed: u64) -> RandomWalk {
        RandomWalk {
            rng: SplitMix::new(seed),
            executions: 0,
        }
    }
}

impl Strategy for RandomWalk {
    fn name(&self) -> &'static str {
        "random"
    }

    fn next_request(&mut self) -> Option<Request> {
        Some(Request {
            prefix: Vec::new(),
            policy: Policy::Random,
            seed: self.rng.next_u64(),
            sleep_set: ThreadSet::EMPTY,
            sleep_sets: false,
            change_points: Vec::new(),
            inputs: Vec::new(),
        })
    }

    fn pipelined(&self) -> bool {
        true
    }

    fn observe(&mut self, _request: &Request, _trace: &Trace) -> Result<(), Divergence> {
        self.executions += 1;
        Ok(())
    }

    fn coverage(&self) -> Option<String> {
        Some(format!(
            "random walk: {} executions, no coverage guarantee",
            self.executions
        ))
    }
}
