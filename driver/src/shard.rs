//! One search split over N processes (`--shard i/N`): a CI matrix, a
//! Kubernetes Indexed Job or a Slurm job array runs the same command N
//! times with an index, and `reach-native merge` unions their reports.
//!
//! Every shard runs the same *shared part* of the search (deterministic:
//! it depends only on the program and the options), counted by shard 0
//! alone. The shared part ends at a *frontier* of subtrees; each frontier
//! subtree is explored by exactly one shard and skipped by the others:
//!
//! - `dpor` and `exhaustive`: the schedule tree down to the node after the
//!   [`ShardSpec::depth`]-th branching node (a node where two or more threads
//!   are enabled) is shared. DPOR explores every enabled thread at these top
//!   nodes (as the exhaustive search does everywhere), so no race found in a
//!   subtree adds a choice above the frontier and the subtrees never need
//!   to tell each other anything; sleep sets keep the subtrees' complete
//!   executions pairwise inequivalent. A frontier subtree is named by the
//!   schedule down to the frontier.
//! - `rt`: race variants form a tree (each variant has one parent, the
//!   execution it was generated from); variants of the first
//!   [`ShardSpec::depth`] generations are shared, and each variant of the
//!   next generation roots a frontier subtree, named by its schedule prefix.
//!
//! A frontier subtree goes to shard `k mod N`, `k` its index in the order
//! in which the shared part reaches it (the same in every shard); see
//! [`Assignment`] for the alternative measured against it.

use crate::cancel::Cancel;
use crate::exec::Request;
use crate::strategy::tree::Path;
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Environment variable of a Kubernetes Indexed Job's completion index.
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
/// Environment variable of a Slurm job array's task id.
pub const SLURM_INDEX: &str = "SLURM_ARRAY_TASK_ID";
/// Default `--shard-depth` of `strategy` (`dpor`, `exhaustive`, `rt`):
/// branching nodes of the first path (dpor) or of every path (exhaustive),
/// generations of first-explored variants (rt). Measured in BENCHMARKS.md.
pub fn default_depth(strategy: &str) -> u32 {
    match strategy {
        "exhaustive" => 3,
        "rt" => 4,
        _ => 8,
    }
}

/// Which shard this process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// This shard's index, `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
    /// Branching nodes (dpor, exhaustive) or generations of variants (rt)
    /// in the shared part.
    pub depth: u32,
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
        depth: u32,
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
            depth,
        })
    }
}

/// How frontier subtrees are given to shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assignment {
    /// Subtree `k` (in the order the shared part reaches them) to shard
    /// `k mod N`: deterministic; the better of the two on most examples
    /// measured in BENCHMARKS.md (section Shards).
    RoundRobin,
    /// By a stable hash of the subtree's schedule prefix, mod N: independent
    /// of the order, but leaves shards empty when there are few subtrees.
    Hash,
}

/// A search that can be sharded: it says which frontier subtree a request
/// belongs to.
pub trait Shardable: Strategy {
    /// `None` if `request` is in the shared part, else a stable name of the
    /// frontier subtree it belongs to (requests of one subtree come one after
    /// another).
    fn subtree_of(&mut self, request: &Request) -> Option<u64>;
    /// `request`, just returned by [`Strategy::next_request`], belongs to
    /// another shard and will not be run.
    fn skip(&mut self, _request: &Request) {}
}

/// A search restricted to one shard: the shared part and the frontier
/// subtrees assigned to this shard.
pub struct Sharded<S> {
    inner: S,
    spec: ShardSpec,
    assignment: Assignment,
    /// The frontier subtree of the last request (name, owned here).
    current: Option<(u64, bool)>,
    /// Frontier subtrees reached so far.
    subtrees: u64,
    /// Of those, the ones this shard owns.
    owned: u64,
    /// The last request returned is in the shared part.
    shared: bool,
    /// Shared executions run.
    shared_runs: u64,
}

impl<S: Shardable> Sharded<S> {
    /// `inner` restricted to shard `spec`.
    pub fn new(inner: S, spec: ShardSpec, assignment: Assignment) -> Sharded<S> {
        Sharded {
            inner,
            spec,
            assignment,
            current: None,
            subtrees: 0,
            owned: 0,
            shared: false,
            shared_runs: 0,
        }
    }

    fn owns(&self, name: u64, k: u64) -> bool {
        let n = u64::from(self.spec.count);
        let slot = match self.assignment {
            Assignment::RoundRobin => k % n,
            Assignment::Hash => name % n,
        };
        slot == u64::from(self.spec.index)
    }
}

impl<S: Shardable> Strategy for Sharded<S> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn next_request(&mut self) -> Option<Request> {
        loop {
            let request = self.inner.next_request()?;
            let Some(name) = self.inner.subtree_of(&request) else {
                self.shared = true;
                self.shared_runs += 1;
                self.current = None;
                return Some(request);
            };
            self.shared = false;
            let owned = match self.current {
                Some((current, owned)) if current == name => owned,
                _ => {
                    let owned = self.owns(name, self.subtrees);
                    self.subtrees += 1;
                    self.owned += u64::from(owned);
                    self.current = Some((name, owned));
                    owned
                }
            };
            if owned {
                return Some(request);
            }
            self.inner.skip(&request);
        }
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        self.inner.observe(request, trace)
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
        !self.shared || self.spec.index == 0
    }
}

/// The shard a report comes from, as the report states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// This shard's index, `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
    /// `--shard-depth`.
    pub depth: u32,
}

impl From<ShardSpec> for ShardInfo {
    fn from(spec: ShardSpec) -> ShardInfo {
        ShardInfo {
            index: spec.index,
            count: spec.count,
            depth: spec.depth,
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
    /// `--spin-threshold`.
    pub spin_threshold: u32,
    /// `--keep-going`.
    pub keep_going: bool,
    /// `--ignore-races`.
    pub ignore_races: bool,
    /// `--ignore-exit-code`.
    pub ignore_exit_code: bool,
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

/// Hash of the program's bytes, as the reports state it (`fnv1a-64:` and
/// 16 hex digits), so that a merge can refuse reports of different builds.
pub fn program_hash(path: &std::path::Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(format!("fnv1a-64:{:016x}", fnv1a(bytes)))
}

/// The top of the first execution's path (dpor): its nodes up to and
/// including its [`ShardSpec::depth`]-th branching node. The shared part is
/// the first execution alone; each other choice at a top node roots a
/// frontier subtree, and so does the rest of the first path below the top.
#[derive(Clone, Debug)]
pub struct FirstPath {
    depth: u32,
    /// The first execution's schedule.
    first: Option<Vec<u32>>,
    /// Number of top nodes.
    cut: usize,
}

impl FirstPath {
    /// The top of `depth` branching nodes.
    pub fn new(depth: u32) -> FirstPath {
        FirstPath {
            depth,
            first: None,
            cut: 0,
        }
    }

    /// Learns the first execution: returns the number of top nodes, whose
    /// backtrack sets must hold every enabled thread.
    pub fn first_execution(&mut self, trace: &Trace) -> usize {
        let mut left = self.depth;
        self.cut = trace.len();
        for (i, event) in trace.events.iter().enumerate() {
            if left == 0 {
                self.cut = i;
                break;
            }
            if event.enabled.len() >= 2 {
                left -= 1;
            }
        }
        self.first = Some(trace.schedule());
        self.cut
    }

    /// The subtree of a request (see [`Shardable::subtree_of`]): named by
    /// the prefix up to its first step off the first path, if that step is
    /// at a top node; the rest of the first path otherwise.
    pub fn subtree_of(&self, request: &Request) -> Option<u64> {
        let first = self.first.as_ref()?;
        let prefix = &request.prefix;
        let off = prefix.iter().zip(first).position(|(a, b)| a != b);
        Some(match off {
            Some(j) if j < self.cut => prefix_name(&prefix[..=j]),
            _ => prefix_name(&first[..self.cut.min(first.len())]),
        })
    }
}

/// The shared top of a schedule tree (exhaustive): the nodes up to
/// and including the [`ShardSpec::depth`]-th branching node of the path.
#[derive(Clone, Debug)]
pub struct TopCut {
    depth: u32,
    /// The cut of the current path, once computed: the index of its first
    /// node below the top (`None`: the path does not reach that deep).
    cached: Option<Option<usize>>,
}

impl TopCut {
    /// The top of `depth` branching nodes.
    pub fn new(depth: u32) -> TopCut {
        TopCut {
            depth,
            cached: None,
        }
    }

    /// Index of the first node of `path` below the top, if the path
    /// reaches it.
    pub fn cut(&mut self, path: &Path) -> Option<usize> {
        if let Some(cut) = self.cached {
            return cut;
        }
        let mut left = self.depth;
        let mut cut = None;
        if left == 0 {
            cut = Some(0);
        } else {
            for (i, node) in path.nodes.iter().enumerate() {
                if node.enabled.len() >= 2 {
                    left -= 1;
                    if left == 0 {
                        cut = Some(i + 1);
                        break;
                    }
                }
            }
        }
        self.cached = Some(cut);
        cut
    }

    /// The subtree a request branching from `path` belongs to (see
    /// [`Shardable::subtree_of`]).
    pub fn subtree_of(&mut self, path: &Path, request: &Request) -> Option<u64> {
        let branch = request.prefix.len().checked_sub(1)?;
        let cut = self.cut(path)?;
        (branch >= cut).then(|| prefix_name(&request.prefix[..cut]))
    }

    /// Called before `path` learns the trace of `request`: true if the
    /// request is in the shared part (the top may change).
    pub fn observing(&mut self, path: &Path, request: &Request) -> bool {
        let shared = match request.prefix.len().checked_sub(1) {
            None => true,
            Some(branch) => self.cut(path).is_none_or(|cut| branch < cut),
        };
        if shared {
            self.cached = None;
        }
        shared
    }
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
        let spec = ShardSpec::parse("2/4", 3, env(&[])).map(|s| (s.index, s.count, s.depth));
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
