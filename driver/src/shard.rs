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
use reach_channel::ThreadSet;
use serde::{Deserialize, Serialize};
use thiserror::Error;

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

/// Forced choices (dpor) a shared part may add per frontier subtree it
/// aims for: each costs at least one execution that an unsharded search
/// would not run.
const FORCING_PER_SUBTREE: u64 = 16;

/// Probes ([`Assignment::Probed`]) a shared part may run per frontier
/// subtree it aims for: each is an execution every shard runs. Past them,
/// subtrees are given by the estimate they were named with.
const PROBES_PER_SUBTREE: u32 = 4;

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

/// A search that can be sharded: it says which frontier subtree a request
/// belongs to.
pub trait Shardable: Strategy {
    /// `None` if `request` is in the shared part, else the frontier subtree
    /// it belongs to (requests of one subtree come one after another).
    fn subtree_of(&mut self, request: &Request) -> Option<Subtree>;
    /// `request`, just returned by [`Strategy::next_request`], belongs to
    /// another shard and will not be run.
    fn skip(&mut self, _request: &Request) {}
    /// Every shard runs the first execution of each frontier subtree
    /// ([`Assignment::Probed`]): what it finds may make the subtree part of
    /// the shared part after all ([`Probe::Shared`]).
    fn set_probing(&mut self) {}
    /// Just after the first execution of a frontier subtree was observed:
    /// what it says of the subtree (`None`: nothing, the estimate named
    /// with the subtree stands).
    fn probe(&mut self) -> Option<Probe> {
        None
    }
}

/// What the first execution of a frontier subtree, run by every shard,
/// says of the subtree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Probe {
    /// Still estimated above `1/(K·N)` of the search: the execution joins
    /// the shared part, which splits below it.
    Shared,
    /// A frontier subtree estimated at this share of the search (as
    /// [`Subtree::estimate`]).
    Estimate(f64),
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
    /// Executions run (observed).
    ran: u64,
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
            ran: 0,
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
        self.ran += 1;
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
        stats.push((RAN_STAT, self.ran.to_string()));
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

/// The [`Strategy::stats`] entry of a sharded search that counts the
/// executions the shard ran ([`ShardInfo::ran`]).
pub const RAN_STAT: &str = "executions run";

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

/// A frontier subtree, as a search names it when one of its requests
/// comes up: a stable name and the share of the whole search it is
/// estimated to hold (0 when the subtree was named before).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Subtree {
    /// Stable name (FNV-1a of a schedule prefix).
    pub name: u64,
    /// Estimated share of the whole search, in `0..=1`.
    pub estimate: f64,
    /// To be probed ([`Assignment::Probed`]): its first execution is run
    /// by every shard (a choice the search made itself, while the probe
    /// budget lasts).
    pub probe: bool,
}

/// Where a node of a path-based search (dpor, exhaustive) stands in the
/// partition.
#[derive(Clone, Copy, Debug)]
enum Label {
    /// A node of the shared part: every enabled thread is a choice, and
    /// each choice other than the shared path's roots a candidate subtree.
    Shared {
        /// log2 of the estimated size of a choice's subtree here.
        below: f64,
        /// The choices the search itself found needed here (DPOR: from the
        /// races of the execution that reached the node); only these may
        /// be shared executions.
        natural: ThreadSet,
    },
    /// A node inside the frontier subtree of this name, estimated at this
    /// share (log2) of the search.
    In(u64, f64),
}

/// The partition of a depth-first search over schedules (dpor,
/// exhaustive) into a shared part and frontier subtrees, built as the
/// search goes, the same way in every shard.
///
/// Each execution of the shared part estimates, as Knuth's estimator does
/// along one path, the size of what hangs below each of its nodes: the
/// product of the nodes' widths below it (DPOR: the backtrack choices the
/// execution's races call for; exhaustive: the enabled threads). The first
/// execution's product estimates the whole search. From the node where a
/// shared execution branched off, its nodes are *forced* (every enabled
/// thread a choice) down to the deepest node that splits (two choices or
/// more) what is still estimated at more than `1/(K·N)` of the whole
/// search, as far as the forcing budget pays ([`PathPlan::forced_end`]);
/// the rest of its path is one frontier subtree. A choice of the search's
/// own at a forced node whose estimate is still above that share is run as
/// a shared execution in turn (split again); any other roots a frontier
/// subtree. Sizes are estimates: the partition is exact whatever they
/// are, only the balance depends on them.
#[derive(Clone, Debug)]
pub struct PathPlan {
    /// log2 of K·N: a frontier subtree is estimated at most `2^-target` of
    /// the search.
    target: f64,
    /// log2 of the estimated size of the whole search (after the first
    /// execution).
    root: Option<f64>,
    /// One label per node of the current path.
    labels: Vec<Label>,
    /// The frontier subtree of the request in flight (`None`: shared).
    pending: Option<u64>,
    /// Shared executions that may still be added by splitting.
    budget: u32,
    /// Forced choices the search would not have made itself (each costs
    /// at least one execution) that may still be added.
    forcing: u64,
    /// Every shard runs the first execution of a frontier subtree
    /// ([`Assignment::Probed`]).
    probing: bool,
    /// Probes that may still be run.
    probes: u32,
    /// The request in flight is the first of its frontier subtree.
    first_of_subtree: bool,
    /// What the last execution observed said of its frontier subtree, if
    /// it was the first.
    probe: Option<Probe>,
}

impl PathPlan {
    /// A plan aiming at `split` frontier subtrees per shard, `count` shards.
    pub fn new(split: u32, count: u32) -> PathPlan {
        let parts = f64::from(split.max(1)) * f64::from(count.max(1));
        PathPlan {
            target: parts.log2(),
            root: None,
            labels: Vec::new(),
            pending: None,
            budget: split.max(1).saturating_mul(count.max(1)).saturating_mul(2),
            forcing: u64::from(split.max(1)) * u64::from(count.max(1)) * FORCING_PER_SUBTREE,
            probing: false,
            probes: split
                .max(1)
                .saturating_mul(count.max(1))
                .saturating_mul(PROBES_PER_SUBTREE),
            first_of_subtree: false,
            probe: None,
        }
    }

    /// The subtree of a request branching at the last element of `prefix`
    /// (see [`Shardable::subtree_of`]); `None` if the request is shared.
    pub fn subtree_of(&mut self, prefix: &[u32]) -> Option<Subtree> {
        self.pending = None;
        self.first_of_subtree = false;
        let (i, &thread) = prefix.len().checked_sub(1).zip(prefix.last())?;
        match *self.labels.get(i)? {
            Label::In(name, share) => {
                self.pending = Some(name);
                Some(Subtree {
                    name,
                    estimate: share.exp2(),
                    probe: false,
                })
            }
            Label::Shared { below, natural } => {
                let chosen = natural.contains(thread);
                let size = if chosen { below } else { 0.0 };
                let share = size - self.root.unwrap_or(0.0);
                if share > -self.target && self.budget > 0 {
                    self.budget -= 1;
                    return None;
                }
                let name = prefix_name(prefix);
                self.pending = Some(name);
                self.first_of_subtree = chosen && self.probing && self.probes > 0;
                self.probes -= u32::from(self.first_of_subtree);
                // A choice only forcing added is never shared, but its subtree
                // is estimated as the search's own below the node: it runs
                // that part of the program again, with the search's choice
                // asleep, and ends blocked by its sleep set only at the end
                // (measured in BENCHMARKS.md, section Shards).
                Some(Subtree {
                    name,
                    estimate: (below - self.root.unwrap_or(0.0)).exp2(),
                    probe: self.first_of_subtree,
                })
            }
        }
    }

    /// Every shard runs the first execution of each frontier subtree of a
    /// choice the search made itself, as far as the probe budget lasts
    /// ([`Shardable::set_probing`]).
    pub fn set_probing(&mut self) {
        self.probing = true;
    }

    /// What the last execution observed, the first of its frontier
    /// subtree, says of it ([`Shardable::probe`]): shared if Knuth's
    /// estimator along it still gives more than `1/(K·N)` of the search
    /// (and the shared part may grow), else that estimate.
    pub fn probe(&self) -> Option<Probe> {
        self.probe
    }

    /// The search learnt the execution of the request in flight: nodes
    /// from `first_new` on are new; node `first_new + k` has the choices
    /// `natural[k]` and `extra[k]` more enabled threads that forcing it
    /// would add; `schedule` is the execution's schedule. Returns the end
    /// of the forced nodes (from `first_new`), whose choices must be every
    /// enabled thread.
    pub fn observed(
        &mut self,
        first_new: usize,
        natural: &[ThreadSet],
        extra: &[u32],
        schedule: &[u32],
    ) -> usize {
        let widths: Vec<f64> = natural.iter().map(|b| b.len() as f64).collect();
        self.labels.truncate(first_new);
        self.probe = None;
        let mut rest: f64 = widths.iter().map(|w| w.max(1.0).log2()).sum();
        let root = *self.root.get_or_insert(rest);
        if let Some(name) = self.pending {
            let probed = std::mem::take(&mut self.first_of_subtree);
            let splits =
                probed && self.budget > 0 && self.forced_end(rest - root, &widths, extra) > 0;
            if !splits {
                self.probe = probed.then_some(Probe::Estimate((rest - root).exp2()));
                let label = Label::In(name, f64::NEG_INFINITY);
                self.labels.extend(std::iter::repeat_n(label, widths.len()));
                return first_new;
            }
            // Run by every shard and still large: split below it as below
            // any shared execution.
            self.budget -= 1;
            self.pending = None;
            self.probe = Some(Probe::Shared);
        }
        let end = self.forced_end(rest - root, &widths, extra);
        for (k, w) in widths.iter().enumerate() {
            if k == end {
                let name = prefix_name(&schedule[..first_new + k]);
                let label = Label::In(name, rest - root);
                self.labels
                    .extend(std::iter::repeat_n(label, widths.len() - k));
                break;
            }
            self.forcing -= u64::from(extra.get(k).copied().unwrap_or(0));
            rest -= w.max(1.0).log2();
            self.labels.push(Label::Shared {
                below: rest,
                natural: natural.get(k).copied().unwrap_or(ThreadSet::EMPTY),
            });
        }
        first_new + end
    }

    /// How many of a shared execution's new nodes (choices `widths`, and
    /// `extra` more enabled threads each) to force, the first estimated at
    /// `share` (log2) of the search: down to the deepest node that splits
    /// (two choices or more) while what hangs below stays above `1/(K·N)`
    /// of the search and the forcing budget lasts. The nodes after it would
    /// only add choices the search does not need (a node with one choice
    /// splits nothing); forcing them is paid only if a split follows.
    fn forced_end(&self, mut share: f64, widths: &[f64], extra: &[u32]) -> usize {
        let (mut end, mut spent) = (0, 0u64);
        for (k, w) in widths.iter().enumerate() {
            spent += u64::from(extra.get(k).copied().unwrap_or(0));
            if share <= -self.target || spent > self.forcing {
                break;
            }
            share -= w.max(1.0).log2();
            if *w >= 2.0 {
                end = k + 1;
            }
        }
        end
    }
}

/// How the variants of a tree search (rt) stand in the partition: each
/// variant carries the share of the search estimated to hang below it
/// (its part of its parent's, [`TreePlan::children`]; the first execution
/// holds all of it). A variant above `1/(K·N)` is shared (run by
/// every shard, its variants judged in turn); any other roots a frontier
/// subtree with all its descendants.
#[derive(Clone, Copy, Debug, Default)]
pub struct TreeTag {
    /// log2 of the estimated share of the search below this variant.
    pub share: f64,
    /// The frontier subtree the variant is in, once decided.
    pub subtree: Option<u64>,
}

/// Splitting decisions for [`TreeTag`]s.
#[derive(Clone, Debug)]
pub struct TreePlan {
    target: f64,
    budget: u32,
}

impl TreePlan {
    /// A plan aiming at `split` frontier subtrees per shard, `count` shards.
    pub fn new(split: u32, count: u32) -> TreePlan {
        let parts = f64::from(split.max(1)) * f64::from(count.max(1));
        TreePlan {
            target: parts.log2(),
            budget: split.max(1).saturating_mul(count.max(1)).saturating_mul(2),
        }
    }

    /// The subtree of the variant tagged `tag` with schedule `prefix`
    /// (deciding it, and recording it in `tag`, if not yet decided); `None`
    /// if the variant is shared.
    pub fn subtree_of(
        &mut self,
        tag: &mut TreeTag,
        prefix: &[u32],
        first: bool,
    ) -> Option<Subtree> {
        if let Some(name) = tag.subtree {
            return Some(Subtree {
                name,
                estimate: 0.0,
                probe: false,
            });
        }
        if first || (tag.share > -self.target && self.budget > 0) {
            self.budget = self.budget.saturating_sub(u32::from(!first));
            return None;
        }
        let name = prefix_name(prefix);
        tag.subtree = Some(name);
        Some(Subtree {
            name,
            estimate: tag.share.exp2(),
            probe: false,
        })
    }

    /// The tags of the variants generated from a variant tagged `parent`,
    /// whose forced prefixes are `lengths` steps long. The parent's share
    /// is divided half evenly (the parent's own execution counting as one
    /// more part) and half as Knuth's estimator would along the parent's
    /// execution: the variants whose prefixes end at one step are that
    /// step's alternatives, and what hangs below a variant is estimated as
    /// the product of the widths (one plus the alternatives) of the steps
    /// after its own. Either estimate alone fails on some programs
    /// (BENCHMARKS.md, section Shards); their mean holds on both.
    pub fn children(parent: TreeTag, lengths: &[usize]) -> Vec<TreeTag> {
        let mut widths: Vec<(usize, f64)> = Vec::new();
        for &length in lengths {
            match widths.binary_search_by_key(&length, |&(l, _)| l) {
                Ok(i) => widths[i].1 += 1.0,
                Err(i) => widths.insert(i, (length, 2.0)),
            }
        }
        let below = |length: usize| -> f64 {
            widths
                .iter()
                .filter(|&&(l, _)| l > length)
                .map(|&(_, w)| w.log2())
                .sum()
        };
        let sizes: Vec<f64> = lengths.iter().map(|&l| below(l)).collect();
        let total = 1.0 + sizes.iter().map(|s| s.exp2()).sum::<f64>();
        let even = 1.0 / (lengths.len() + 1) as f64;
        sizes
            .iter()
            .map(|size| TreeTag {
                share: parent.share + ((size.exp2() / total + even) / 2.0).log2(),
                subtree: parent.subtree,
            })
            .collect()
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

    fn threads(ids: &[u32]) -> ThreadSet {
        let mut set = ThreadSet::EMPTY;
        for &t in ids {
            set.insert(t);
        }
        set
    }

    /// With enough budget the plan forces down to the deepest node that
    /// splits what is still large, never past it.
    #[test]
    fn forcing_stops_after_the_deepest_split_it_can_pay_for() {
        let plan = PathPlan::new(2, 2);
        // The whole search below the first node, target 1/4: the nodes
        // that split it in 2 and 4, not the one with one choice after them
        // (nor the last, whose subtrees are already small enough).
        assert_eq!(plan.forced_end(0.0, &[1.0, 2.0, 2.0, 1.0, 2.0], &[0; 5]), 3);
        // Not worth a split at all: nothing forced.
        assert_eq!(plan.forced_end(-2.0, &[2.0, 2.0], &[0, 0]), 0);
        // A node with one choice costs its extra threads and splits nothing:
        // with the budget (2·2·16) spent before the first split, no forcing.
        let costly = [3, u32::try_from(plan.forcing).unwrap_or(u32::MAX), 0];
        assert_eq!(plan.forced_end(0.0, &[1.0, 1.0, 2.0], &costly), 0);
    }

    /// A subtree's first execution, with probing on: split further if it
    /// still looks large, else estimated from its own choices.
    #[test]
    fn a_probe_joins_the_shared_part_only_if_it_splits() {
        let mut plan = PathPlan::new(1, 2);
        plan.set_probing();
        let (one, two) = (threads(&[0]), threads(&[0, 1]));
        // The first execution: one choice, then two; the search is
        // estimated at 2 executions and the shared part forces both nodes.
        assert_eq!(plan.observed(0, &[one, two], &[0, 0], &[0, 0]), 2);
        // Thread 1 at the second node is a subtree of half the search...
        let subtree = plan.subtree_of(&[0, 1]);
        assert_eq!(subtree.map(|s| (s.probe, s.estimate)), Some((true, 0.5)));
        // ...whose first execution finds nothing more: a frontier subtree
        // of one execution.
        assert_eq!(plan.observed(2, &[one], &[0], &[0, 1, 0]), 2);
        assert_eq!(plan.probe(), Some(Probe::Estimate(0.5)));
        // A later execution of the same subtree is not a probe.
        assert_eq!(plan.subtree_of(&[0, 1, 0]).map(|s| s.probe), Some(false));
        plan.observed(3, &[], &[], &[0, 1, 0]);
        assert_eq!(plan.probe(), None);

        // A probe that finds its subtree larger than the search was
        // estimated at splits it.
        let mut plan = PathPlan::new(1, 2);
        plan.set_probing();
        plan.observed(0, &[one, two], &[0, 0], &[0, 0]);
        plan.subtree_of(&[0, 1]);
        assert_eq!(plan.observed(2, &[two, two], &[0, 0], &[0, 1, 0, 0]), 4);
        assert_eq!(plan.probe(), Some(Probe::Shared));
    }

    /// Variants ending early get the larger shares: half of the parent's
    /// share is divided evenly, half by the product of the widths of the
    /// later steps of its execution.
    #[test]
    fn variants_share_their_parent_half_evenly_half_as_knuth_does() {
        let parent = TreeTag {
            share: -1.0,
            subtree: None,
        };
        // Two alternatives at step 3, one at step 5: a variant at step 3
        // has the step-5 node (width 2) below it, one at step 5 nothing.
        // Knuth: sizes 2, 2, 1 and the parent's execution 1 (of 6); even:
        // a quarter each.
        let tags = TreePlan::children(parent, &[3, 3, 5]);
        let shares: Vec<f64> = tags.iter().map(|t| (t.share + 1.0).exp2()).collect();
        let expected = [
            (2.0 / 6.0 + 0.25) / 2.0,
            (2.0 / 6.0 + 0.25) / 2.0,
            (1.0 / 6.0 + 0.25) / 2.0,
        ];
        for (share, want) in shares.iter().zip(expected) {
            assert!((share - want).abs() < 1e-12, "{shares:?}");
        }
        // With the parent's own execution, the parts make the whole.
        let own = (1.0 / 6.0 + 0.25) / 2.0;
        assert!((shares.iter().sum::<f64>() + own - 1.0).abs() < 1e-12);
    }

    #[test]
    fn prefix_names_are_stable() {
        assert_eq!(fnv1a(*b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(prefix_name(&[0, 1]), prefix_name(&[1, 0]));
    }
}
