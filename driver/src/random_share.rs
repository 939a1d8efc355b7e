//! The randomised share of the default search. While optimal DPOR works
//! through the behaviours, each executor (one, or each `--jobs` worker)
//! runs one PCT execution after every [`ShareSpec::every`] systematic
//! ones, PCT for bugs of depth 2 and 3 in turn ([`DEPTHS`]: one or two
//! preemptions). Shallow bugs that the depth-first order reaches late
//! (one thread overtaking many, a preemption between two stores of a
//! late thread's victim) are then found in seconds, and the systematic
//! search is untouched: its requests, counts and completion are those of
//! the search alone, and the share's executions are counted apart
//! ([`ShareSummary`]). Only the default search has a share: an explicit
//! `--strategy` runs alone.

use crate::exec::Request;
use crate::strategy::pct::Pct;
use crate::strategy::random::SplitMix;
use crate::strategy::Strategy;
use serde::Serialize;

/// Systematic executions per PCT execution by default (BENCHMARKS.md,
/// section "The PCT share of the default search": with 4 the shallow bugs
/// measured there are found within seconds with two jobs, and a complete
/// search takes up to about a quarter more time; 2 halves the first and
/// doubles the second, 8 and 16 miss some of those bugs within 30 s).
pub const DEFAULT_EVERY: u64 = 4;

/// The PCT depths the share runs, in turn.
pub const DEPTHS: [u32; 2] = [2, 3];

/// The share's seed when `--seed` is not given: the default search stays
/// deterministic with one job.
pub const DEFAULT_SEED: u64 = 0;

/// How much of the run the share takes, and its seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareSpec {
    /// One PCT execution after every this many systematic ones (at least 1).
    pub every: u64,
    /// The run's seed (`--seed`); each executor draws its PCT seeds from it.
    pub seed: u64,
}

/// What the share ran, for `--stats` and the JSON report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShareSummary {
    /// PCT executions run beside the systematic search (not counted in
    /// its executions).
    pub executions: u64,
    /// Events executed by them.
    pub steps: u64,
    /// One PCT execution after every this many systematic ones.
    pub every: u64,
    /// The PCT depths run in turn.
    pub depths: Vec<u32>,
    /// The seed the PCT searches were drawn from.
    pub seed: u64,
}

impl ShareSummary {
    /// Nothing run yet under `spec`.
    pub fn empty(spec: ShareSpec) -> ShareSummary {
        ShareSummary {
            executions: 0,
            steps: 0,
            every: spec.every,
            depths: DEPTHS.to_vec(),
            seed: spec.seed,
        }
    }

    /// Adds one PCT execution of `steps` events.
    pub fn record(&mut self, steps: u64) {
        self.executions += 1;
        self.steps += steps;
    }

    /// How `--stats` states it: "12 executions (one after every 4
    /// systematic ones; PCT depths 2 and 3; seed 0)".
    pub fn describe(&self) -> String {
        let depths: Vec<String> = self.depths.iter().map(u32::to_string).collect();
        let depths = match depths.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => depths.join(""),
        };
        let executions = match self.executions {
            1 => "1 execution".to_string(),
            n => format!("{n} executions"),
        };
        format!(
            "{executions} (one after every {} systematic ones; PCT depths {depths}; seed {})",
            self.every, self.seed
        )
    }
}

/// One executor's share: the PCT searches it runs in turn, and the count
/// of systematic executions since its last PCT execution.
pub struct RandomShare {
    spec: ShareSpec,
    searches: Vec<Pct>,
    turn: usize,
    since: u64,
}

impl RandomShare {
    /// The share of executor `stream` (0 with one job, the worker's index
    /// with `--jobs`): its PCT seeds are drawn from the run's seed and
    /// `stream`, so that workers explore different schedules.
    pub fn new(spec: ShareSpec, stream: u64) -> RandomShare {
        let mut rng = SplitMix::new(spec.seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        RandomShare {
            spec,
            searches: DEPTHS
                .iter()
                .map(|&d| Pct::new(d, rng.next_u64()))
                .collect(),
            turn: 0,
            since: 0,
        }
    }

    /// Counts one systematic execution; true when a PCT execution is due
    /// after it.
    pub fn due(&mut self) -> bool {
        self.since += 1;
        if self.since < self.spec.every.max(1) {
            return false;
        }
        self.since = 0;
        true
    }

    /// The PCT search whose turn it is, its request, and the label a bug it
    /// finds is reported with ("the PCT share (depth 2, seed 0)"); the
    /// turn passes to the next depth. (PCT always has a next request.)
    pub fn next_turn(&mut self) -> Option<(&mut Pct, Request, String)> {
        let at = self.turn % self.searches.len();
        self.turn = at + 1;
        let seed = self.spec.seed;
        let search = self.searches.get_mut(at)?;
        let label = format!("the PCT share (depth {}, seed {seed})", search.depth());
        let request = search.next_request()?;
        Some((search, request, label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pct_execution_after_every_n_systematic_ones() {
        let mut share = RandomShare::new(ShareSpec { every: 3, seed: 5 }, 0);
        let due: Vec<bool> = (0..7).map(|_| share.due()).collect();
        assert_eq!(due, [false, false, true, false, false, true, false]);
    }

    #[test]
    fn depths_take_turns_and_label_the_run_seed() {
        let mut share = RandomShare::new(ShareSpec { every: 1, seed: 9 }, 0);
        let labels: Vec<String> = (0..3)
            .filter_map(|_| share.next_turn().map(|n| n.2))
            .collect();
        assert_eq!(
            labels,
            [
                "the PCT share (depth 2, seed 9)",
                "the PCT share (depth 3, seed 9)",
                "the PCT share (depth 2, seed 9)"
            ]
        );
    }

    #[test]
    fn one_seed_gives_the_same_requests_and_streams_differ() {
        let spec = ShareSpec { every: 1, seed: 1 };
        let seeds = |stream| {
            let mut share = RandomShare::new(spec, stream);
            (0..4)
                .filter_map(|_| share.next_turn().map(|n| n.1.seed))
                .collect::<Vec<u64>>()
        };
        assert_eq!(seeds(0), seeds(0));
        assert_ne!(seeds(0), seeds(1));
    }

    #[test]
    fn stats_name_the_share() {
        let mut summary = ShareSummary::empty(ShareSpec { every: 4, seed: 0 });
        summary.record(10);
        assert_eq!(
            summary.describe(),
            "1 execution (one after every 4 systematic ones; PCT depths 2 and 3; seed 0)"
        );
        assert_eq!(summary.steps, 10);
    }
}
