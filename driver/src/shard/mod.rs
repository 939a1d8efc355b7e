//! One search split over N processes (`--shard i/N`): a CI matrix, a
//! Kubernetes Indexed Job or a Slurm job array runs the same command N
//! times with an index, and `reach-native merge` unions their reports.
//!
//! Every shard runs the same *shared part* of the search (deterministic:
//! it depends only on the program and the options), each of its
//! executions counted by one shard. The shared part is split by estimated
//! size ([`PathPlan`] for optimal, dpor and exhaustive, [`TreePlan`] for rt) until
//! each *frontier subtree* is estimated at most `1/(K·N)` of the search
//! (`--shard-split K`); each frontier subtree is explored by exactly one
//! shard, the one with the least estimated work when the shared part
//! reaches it ([`Assignment`]), and skipped by the others. For dpor and
//! optimal, whose forced choices make the shared part's estimates poor,
//! the first execution of each frontier subtree is shared too (a *probe*)
//! and the subtree is estimated from it ([`Assignment::Probed`]).

use crate::cancel::Cancel;
use crate::exec::Request;
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use crate::strategy::partition::{
    fnv1a, prefix_name, PathPlan, Probe, Shardable, Subtree, TreePlan, TreeTag,
};

/// Environment variable of a Kubernetes Indexed Job's completion index.
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
/// Environment variable of a Slurm job array's task id.
pub const SLURM_INDEX: &str = "SLURM_ARRAY_TASK_ID";
/// Default `--shard-split` of `strategy`: frontier subtrees per shard the
/// shared part aims for (measured in BENCHMARKS.md, section Shards). Lower
/// for dpor, whose shared part forces choices that cost executions.
pub fn default_split(strategy: &str) -> u32 {
    match strategy {
        "exhaustive" | "rt" => 8,
        _ => 4,
    }
}

/// Which shard this process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// This shard's index, `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
    /// Frontier subtrees per shard the shared part aims for
    /// (`--shard-split`).
    pub split: u32,
}

/// A `--shard` value that cannot be used.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ShardError {
    /// Not `i/N` or `auto/N`.
    #[error("--shard expects I/N or auto/N with 0 <= I < N (e.g. 0/4), got {0:?}")]
    Syntax(String),
    /// `auto/N` without an index in the environment.
    #[error("--shard auto/{0}: neither {K8S_INDEX} (Kubernetes Indexed Job) nor {SLURM_INDEX} (Slurm array) is set")]
    NoIndex(u32),
    /// The index from the environment is not one of `0..N`.
    #[error("--shard auto/{count}: {var}={value:?} is not an index in 0..{count} (a Slurm array must be --array=0-{last})", last = count.saturating_sub(1))]
    OutOfRange {
        /// Number of shards.
        count: u32,
        /// The variable read.
        var: &'static str,
        /// Its value.
        value: String,
    },
}

impl ShardSpec {
    /// Parses `I/N` or `auto/N`; `auto` reads the index from
    /// [`K8S_INDEX`], else [`SLURM_INDEX`], through `env`.
    pub fn parse(
        text: &str,
        split: u32,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<ShardSpec, ShardError> {
        let syntax = || ShardError::Syntax(text.to_string());
        let (index, count) = text.split_once('/').ok_or_else(syntax)?;
        let count: u32 = count.trim().parse().map_err(|_| syntax())?;
        if count == 0 {
            return Err(syntax());
        }
        let index = if index.trim() == "auto" {
            let (var, value) = [K8S_INDEX, SLURM_INDEX]
                .into_iter()
                .find_map(|var| env(var).map(|v| (var, v)))
                .ok_or(ShardError::NoIndex(count))?;
            match value.trim().parse::<u32>() {
                Ok(i) if i < count => i,
                _ => return Err(ShardError::OutOfRange { count, var, value }),
            }
        } else {
            match index.trim().parse::<u32>() {
                Ok(i) if i < count => i,
                _ => return Err(syntax()),
            }
        };
        Ok(ShardSpec {
            index,
            count,
            split,
        })
    }
}

/// How frontier subtrees are given to shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assignment {
    /// Each subtree, in the order the shared part reaches them (the same in
    /// every shard), to the shard with the least estimated work so far
    /// (ties: the highest index, as shard 0 also counts the shared part).
    Balanced,
    /// Subtree `k` to shard `k mod N`, whatever its estimate (measured
    /// against [`Assignment::Balanced`] in BENCHMARKS.md).
    RoundRobin,
    /// As [`Assignment::Balanced`], but each subtree's first execution is
    /// run by every shard (counted by one, as the shared part is) and the
    /// subtree is estimated from what that execution found
    /// ([`Shardable::probe`]); only for subtrees worth it
    /// ([`Subtree::probe`]).
    Probed,
}

/// Where a frontier subtree stands in this shard.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Owner {
    /// Its first execution is in flight in every shard
    /// ([`Assignment::Probed`]).
    Probing,
    /// This shard explores it.
    Here,
    /// Another shard explores it: its requests are skipped.
    Elsewhere,
}

/// A search restricted to one shard: the shared part and the frontier
/// subtrees assigned to this shard.
pub struct Sharded<S> {
    inner: S,
    spec: ShardSpec,
    assignment: Assignment,
    /// The frontier subtree of the last request: its name, where it is
    /// explored, and the estimate it was named with.
    current: Option<(u64, Owner, f64)>,
    /// Frontier subtrees reached so far (the last one perhaps still
    /// probed).
    subtrees: u64,
    /// Of those, the ones this shard owns.
    owned: u64,
    /// Estimated work given to each shard so far.
    loads: Vec<f64>,
    /// The last request returned is in the shared part.
    shared: bool,
    /// Shared executions run.
    shared_runs: u64,
}

impl<S: Shardable> Sharded<S> {
    /// `inner` restricted to shard `spec`.
    pub fn new(mut inner: S, spec: ShardSpec, assignment: Assignment) -> Sharded<S> {
        if assignment == Assignment::Probed {
            inner.set_probing();
        }
        Sharded {
            inner,
            spec,
            assignment,
            current: None,
            subtrees: 0,
            owned: 0,
            loads: vec![0.0; spec.count as usize],
            shared: false,
            shared_runs: 0,
        }
    }

    /// Where the `k`-th subtree reached, estimated at `estimate`, is
    /// explored.
    fn owner(&mut self, estimate: f64, k: u64) -> Owner {
        let shard = match self.assignment {
            Assignment::RoundRobin => (k % u64::from(self.spec.count)) as usize,
            Assignment::Balanced | Assignment::Probed => {
                let mut best = 0;
                for (i, load) in self.loads.iter().enumerate() {
                    if *load <= self.loads[best] {
                        best = i;
                    }
                }
                self.loads[best] += estimate.max(f64::MIN_POSITIVE);
                best
            }
        };
        if shard == self.spec.index as usize {
            self.owned += 1;
            Owner::Here
        } else {
            Owner::Elsewhere
        }
    }

    /// `request` is run by every shard and counted by one.
    fn run_shared(&mut self, request: Request) -> Option<Request> {
        self.shared = true;
        self.shared_runs += 1;
        Some(request)
    }
}

impl<S: Shardable> Strategy for Sharded<S> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn next_request(&mut self) -> Option<Request> {
        loop {
            let request = self.inner.next_request()?;
            let Some(subtree) = self.inner.subtree_of(&request) else {
                self.current = None;
                return self.run_shared(request);
            };
            self.shared = false;
            let owner = match self.current {
                Some((current, owner, _)) if current == subtree.name => owner,
                _ => {
                    let owner = if self.assignment == Assignment::Probed && subtree.probe {
                        Owner::Probing
                    } else {
                        self.owner(subtree.estimate, self.subtrees)
                    };
                    self.subtrees += 1;
                    self.current = Some((subtree.name, owner, subtree.estimate));
                    owner
                }
            };
            match owner {
                Owner::Probing => return self.run_shared(request),
                Owner::Here => return Some(request),
                Owner::Elsewhere => self.inner.skip(&request),
            }
        }
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        self.inner.observe(request, trace)?;
        if let Some((name, Owner::Probing, named)) = self.current {
            self.current = match self.inner.probe() {
                Some(Probe::Shared) => {
                    self.subtrees -= 1;
                    None
                }
                probe => {
                    let estimate = match probe {
                        Some(Probe::Estimate(e)) => e,
                        _ => named,
                    };
                    Some((name, self.owner(estimate, self.subtrees - 1), named))
                }
            };
        }
        Ok(())
    }

    fn abandon(&mut self, request: &Request) -> bool {
        self.inner.abandon(request)
    }

    fn drop_respun(&mut self, request: &Request) -> bool {
        self.inner.drop_respun(request)
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.inner.set_cancel(cancel);
    }

    fn incomplete(&self) -> Option<String> {
        self.inner.incomplete()
    }

    fn coverage(&self) -> Option<String> {
        self.inner.coverage()
    }

    fn stats(&self) -> Vec<(&'static str, String)> {
        let mut stats = self.inner.stats();
        stats.push(("shared executions", self.shared_runs.to_string()));
        stats.push((
            "frontier subtrees",
            format!("{} of {} in this shard", self.owned, self.subtrees),
        ));
        stats
    }

    fn counted(&self) -> bool {
        // Shared execution `k` (from 1) is counted by shard `k mod N`: each
        // is counted once, and the shards' counts stay even.
        !self.shared || self.shared_runs % u64::from(self.spec.count) == u64::from(self.spec.index)
    }
}

/// The shard a report comes from, as the report states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// This shard's index, `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
    /// `--shard-split`.
    pub split: u32,
    /// Executions this shard ran: those it counted and the shared ones
    /// other shards counted (its work; absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<u64>,
}

impl From<ShardSpec> for ShardInfo {
    fn from(spec: ShardSpec) -> ShardInfo {
        ShardInfo {
            index: spec.index,
            count: spec.count,
            split: spec.split,
            ran: None,
        }
    }
}

/// The options that decide what a search explores and what it counts as a
/// bug: shards merged together must agree on them (limits such as
/// `--max-time` may differ; a shard stopped by one is incomplete).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchOptions {
    /// `--strategy`.
    pub strategy: String,
    /// The program's arguments.
    pub args: Vec<String>,
    /// `--max-steps`.
    pub max_steps: Option<u64>,
    /// `--max-recorded-steps`.
    pub max_recorded_steps: u64,
    /// `--exit-cuts-threads`.
    pub exit_cuts_threads: bool,
    /// `--commute-rmws` (absent in reports that predate it: off).
    #[serde(default)]
    pub commute_rmws: bool,
    /// `--spin-threshold`.
    pub spin_threshold: u32,
    /// `--keep-going`.
    pub keep_going: bool,
    /// `--ignore-races`.
    pub ignore_races: bool,
    /// `--ignore-exit-code`.
    pub ignore_exit_code: bool,
    /// `--race-detector` (`hb`, `lockset`, `both`; `hb` when absent).
    #[serde(default = "default_race_detector")]
    pub race_detector: String,
}

fn default_race_detector() -> String {
    "hb".to_string()
}

/// Hash of the program's bytes, as the reports state it (`fnv1a-64:` and
/// 16 hex digits), so that a merge can refuse reports of different builds.
pub fn program_hash(path: &std::path::Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(format!("fnv1a-64:{:016x}", fnv1a(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn parses_explicit_and_automatic_indices() {
        let spec = ShardSpec::parse("2/4", 3, env(&[])).map(|s| (s.index, s.count, s.split));
        assert_eq!(spec, Ok((2, 4, 3)));
        let k8s = ShardSpec::parse("auto/4", 3, env(&[(K8S_INDEX, "1")])).map(|s| s.index);
        assert_eq!(k8s, Ok(1));
        let slurm = ShardSpec::parse("auto/4", 3, env(&[(SLURM_INDEX, "3")])).map(|s| s.index);
        assert_eq!(slurm, Ok(3));
        let both = env(&[(SLURM_INDEX, "3"), (K8S_INDEX, "0")]);
        assert_eq!(ShardSpec::parse("auto/4", 3, both).map(|s| s.index), Ok(0));
    }

    #[test]
    fn rejects_bad_values() {
        for bad in ["4/4", "1", "a/4", "1/0", "-1/4", "1/4/2"] {
            assert_eq!(
                ShardSpec::parse(bad, 3, env(&[])),
                Err(ShardError::Syntax(bad.to_string())),
                "{bad}"
            );
        }
        assert_eq!(
            ShardSpec::parse("auto/4", 3, env(&[])),
            Err(ShardError::NoIndex(4))
        );
        let error = ShardSpec::parse("auto/4", 3, env(&[(SLURM_INDEX, "4")]));
        assert!(
            matches!(&error, Err(ShardError::OutOfRange { var, .. }) if *var == SLURM_INDEX),
            "{error:?}"
        );
        let text = error.map_or_else(|e| e.to_string(), |_| String::new());
        assert!(text.contains("--array=0-3"), "{text}");
    }

    #[test]
    fn prefix_names_are_stable() {
        assert_eq!(fnv1a(*b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(prefix_name(&[0, 1]), prefix_name(&[1, 0]));
    }
}
