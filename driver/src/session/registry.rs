//! The strategies behind `--strategy`: for each, how its search is built
//! for every way a search can run (one coordinator, split over workers,
//! sharded, bounded, combined with concolic inputs). Adding a strategy
//! means its folder under `strategy/` and one arm of [`registration`].

use crate::cli::StrategyName;
use crate::exec::{ExecConfig, Executor};
use crate::explore::{ExploreOptions, Summary};
use crate::portfolio::{explore_portfolio, Member};
use crate::shard::{Assignment, ShardSpec, Sharded};
use crate::strategy::bounded::IterativeBound;
use crate::strategy::branches::BranchDirected;
use crate::strategy::dpor::Dpor;
use crate::strategy::exhaustive::Exhaustive;
use crate::strategy::optimal::OptimalDpor;
use crate::strategy::pct::Pct;
use crate::strategy::random::RandomWalk;
use crate::strategy::rt::ReachabilityTesting;
use crate::strategy::tree_search::TreeSearch;
use crate::strategy::unfold::{Order, Unfold};
use crate::strategy::Strategy;
use std::time::Duration;

/// What a strategy's constructors may read of the options.
#[derive(Clone, Copy, Debug)]
pub struct StrategyParams {
    /// Seed of the randomised strategies.
    pub seed: u64,
    /// `--depth` of PCT.
    pub depth: u32,
    /// `--unfold-order`.
    pub unfold_order: Order,
    /// Whether the search explores the program's inputs itself.
    pub inputs: bool,
    /// Bound on one solver call.
    pub solver_timeout: Duration,
}

/// The workers a search may run: `jobs` processes of `config`'s program,
/// placed on `placement`'s cores.
#[derive(Clone, Copy, Debug)]
pub struct Pool<'a> {
    /// How each worker runs the program.
    pub config: &'a ExecConfig,
    /// How many workers.
    pub jobs: usize,
    /// The cores to place them on (empty: anywhere).
    pub placement: &'a [usize],
}

/// A search that runs on a [`Pool`] of workers, to its end.
pub type ParallelSearch = fn(
    executor: &mut Executor,
    pool: &Pool,
    params: &StrategyParams,
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary;

/// How a search that runs several workers of its own is used.
#[derive(Clone, Copy)]
pub enum Workers {
    /// One coordinator only (pipelined if the built search says so).
    None,
    /// Split over the workers when `--jobs` is more than 1.
    Split(ParallelSearch),
    /// Always run this way, whatever `--jobs` says.
    Always(ParallelSearch),
}

/// How a strategy combines with concolic inputs.
#[derive(Clone, Copy)]
pub enum WithInputs {
    /// Not at all: concolic testing falls back to dpor.
    No,
    /// One search per input vector, built by the strategy's `single`.
    Restart,
    /// One combined execution tree (Saarikivi et al., Sec. III-B), or one
    /// search per input vector under `--concolic-restart`.
    Tree(fn() -> Box<dyn TreeSearch>),
    /// The strategy explores inputs itself (its `single` with
    /// [`StrategyParams::inputs`]).
    Itself,
}

/// How one strategy is built for each way a search can run.
#[derive(Clone, Copy)]
pub struct Registration {
    /// The search run by one coordinator.
    pub single: fn(&StrategyParams) -> Box<dyn Strategy>,
    /// How it uses several workers.
    pub workers: Workers,
    /// Shard `spec`'s part of the search, for strategies that shard.
    pub sharded: Option<fn(ShardSpec) -> Box<dyn Strategy>>,
    /// Iterative preemption bounding up to a limit (`--preemption-bound`).
    pub bounded: Option<fn(u32) -> Box<dyn Strategy>>,
    /// How it combines with concolic inputs.
    pub with_inputs: WithInputs,
    /// Whether `--commute-rmws` applies.
    pub commutes_rmws: bool,
    /// Whether the search is randomised (its seed is reported).
    pub randomised: bool,
    /// Whether the search explores the reads-from choices of atomic loads
    /// (`--memory-model rc11`); other searches run sequentially consistent.
    pub reads_from: bool,
    /// Whether a request for a step the runtime holds back (a spinner) is
    /// dropped rather than run: searches that derive their requests from
    /// observed races only (`ExecConfig::drop_held`).
    pub drops_held: bool,
    /// Whether an execution in which a held-back spinner that a prefix
    /// step ran is held back again at the same operation is dropped
    /// (`ExecConfig::drop_respin`: optimal DPOR, which reverses the races
    /// of held-back steps).
    pub drops_respin: bool,
}

impl Registration {
    /// A strategy with a single search only; the other fields at their
    /// "not supported" values.
    const fn single(single: fn(&StrategyParams) -> Box<dyn Strategy>) -> Registration {
        Registration {
            single,
            workers: Workers::None,
            sharded: None,
            bounded: None,
            with_inputs: WithInputs::No,
            commutes_rmws: true,
            randomised: false,
            reads_from: false,
            drops_held: false,
            drops_respin: false,
        }
    }
}

/// Shards of the strategies that estimate each subtree from its first
/// execution (BENCHMARKS.md, section Shards).
const PROBED: Assignment = Assignment::Probed;

/// The registration of `name`.
pub fn registration(name: StrategyName) -> Registration {
    match name {
        StrategyName::Optimal => Registration {
            workers: Workers::Split(|e, pool, _, o, pr| split(OptimalDpor::new(), e, pool, o, pr)),
            sharded: Some(|spec| {
                let plan = OptimalDpor::new().with_shard_plan(spec.split, spec.count);
                Box::new(Sharded::new(plan, spec, PROBED))
            }),
            with_inputs: WithInputs::Tree(|| Box::new(OptimalDpor::new())),
            reads_from: true,
            drops_respin: true,
            ..Registration::single(|_| Box::new(OptimalDpor::new()))
        },
        StrategyName::Dpor | StrategyName::Portfolio => {
            let dpor = Registration {
                workers: Workers::Split(|e, pool, _, o, pr| split(Dpor::new(true), e, pool, o, pr)),
                sharded: Some(|spec| {
                    let plan = Dpor::new(true).with_shard_plan(spec.split, spec.count);
                    Box::new(Sharded::new(plan, spec, PROBED))
                }),
                bounded: Some(|limit| {
                    Box::new(IterativeBound::new(
                        "dpor",
                        limit,
                        false,
                        Box::new(|b| Box::new(Dpor::bounded(b))),
                    ))
                }),
                with_inputs: WithInputs::Tree(|| Box::new(Dpor::new(true))),
                reads_from: true,
                ..Registration::single(|_| Box::new(Dpor::new(true)))
            };
            if name == StrategyName::Dpor {
                return dpor;
            }
            Registration {
                workers: Workers::Always(portfolio),
                sharded: None,
                bounded: None,
                with_inputs: WithInputs::No,
                randomised: true,
                reads_from: false,
                ..dpor
            }
        }
        StrategyName::DporCr => Registration {
            workers: Workers::Split(|e, pool, _, o, pr| split(Dpor::new(false), e, pool, o, pr)),
            sharded: Some(|spec| {
                let plan = Dpor::new(false).with_shard_plan(spec.split, spec.count);
                Box::new(Sharded::new(plan, spec, PROBED))
            }),
            with_inputs: WithInputs::Tree(|| Box::new(Dpor::new(false))),
            reads_from: true,
            ..Registration::single(|_| Box::new(Dpor::new(false)))
        },
        StrategyName::DporClassic => Registration {
            workers: Workers::Split(|e, pool, _, o, pr| split(Dpor::classic(), e, pool, o, pr)),
            sharded: Some(|spec| {
                let plan = Dpor::classic().with_shard_plan(spec.split, spec.count);
                Box::new(Sharded::new(plan, spec, PROBED))
            }),
            with_inputs: WithInputs::Tree(|| Box::new(Dpor::classic())),
            reads_from: true,
            ..Registration::single(|_| Box::new(Dpor::classic()))
        },
        StrategyName::Exhaustive => Registration {
            sharded: Some(|spec| {
                let plan = Exhaustive::default().with_shard_plan(spec.split, spec.count);
                Box::new(Sharded::new(plan, spec, Assignment::Balanced))
            }),
            bounded: Some(|limit| {
                Box::new(IterativeBound::new(
                    "exhaustive",
                    limit,
                    true,
                    Box::new(|b| Box::new(Exhaustive::bounded(b))),
                ))
            }),
            with_inputs: WithInputs::Restart,
            reads_from: true,
            ..Registration::single(|_| Box::new(Exhaustive::default()))
        },
        StrategyName::Rt => Registration {
            drops_held: true,
            sharded: Some(|spec| {
                let plan = ReachabilityTesting::new().with_shard_plan(spec.split, spec.count);
                Box::new(Sharded::new(plan, spec, Assignment::Balanced))
            }),
            commutes_rmws: false,
            ..Registration::single(|_| Box::new(ReachabilityTesting::new()))
        },
        StrategyName::Unfold => Registration {
            drops_held: true,
            with_inputs: WithInputs::Itself,
            commutes_rmws: false,
            ..Registration::single(|p| {
                if p.inputs {
                    Box::new(Unfold::with_inputs(p.unfold_order, p.solver_timeout))
                } else {
                    Box::new(Unfold::new(p.unfold_order))
                }
            })
        },
        StrategyName::Pct => Registration {
            randomised: true,
            reads_from: true,
            ..Registration::single(|p| Box::new(Pct::new(p.depth, p.seed)))
        },
        StrategyName::Random => Registration {
            randomised: true,
            reads_from: true,
            ..Registration::single(|p| Box::new(RandomWalk::new(p.seed)))
        },
        StrategyName::Branches => Registration {
            drops_held: true,
            commutes_rmws: false,
            ..Registration::single(|_| Box::new(BranchDirected::new()))
        },
    }
}

/// `search` split over `pool`'s workers.
fn split<S: crate::strategy::split::Splittable>(
    search: S,
    executor: &mut Executor,
    pool: &Pool,
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    let (config, jobs, placement) = (pool.config, pool.jobs, pool.placement);
    crate::parallel::explore_parallel(executor, config, search, jobs, placement, options, progress)
}

/// The portfolio (`--strategy portfolio`): its members on the workers.
fn portfolio(
    executor: &mut Executor,
    pool: &Pool,
    params: &StrategyParams,
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    explore_portfolio(
        executor,
        pool.config,
        &Member::defaults(params.seed),
        pool.jobs,
        pool.placement,
        options,
        progress,
    )
}

/// The `--strategy` word of `name`.
pub fn strategy_word(name: StrategyName) -> String {
    clap::ValueEnum::to_possible_value(&name)
        .map_or_else(|| format!("{name:?}"), |v| v.get_name().to_string())
}

/// The words of the strategies whose registration has `has`, joined for an
/// error message ("a, b and c").
pub fn words_where(has: impl Fn(&Registration) -> bool) -> String {
    let words: Vec<String> = <StrategyName as clap::ValueEnum>::value_variants()
        .iter()
        .filter(|name| has(&registration(**name)))
        .map(|name| strategy_word(*name))
        .collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}
