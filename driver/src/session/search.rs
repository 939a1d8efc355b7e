//! Exploring: which engine runs the strategy's search (one coordinator,
//! workers, shards, the portfolio, concolic inputs), and what follows the
//! search (shortening the bug, the bounds, the notes).

use super::registry::{registration, Pool, Registration, StrategyParams, WithInputs, Workers};
use super::{bounds, output, setup, Outcome, Session};
use crate::cli::Cli;
use crate::concolic::tree::CombinedTree;
use crate::concolic::Concolic;
use crate::exec::{DirSnapshot, Executor};
use crate::explore::{ExploreOptions, Summary};
use crate::progress::Progress;
use crate::recheck::Recheck;
use crate::record::Recorder;
use crate::strategy::tree_search::TreeSearch;
use crate::strategy::Strategy;
use anyhow::{Context, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Explores `session`'s program, then shortens the first bug, applies the
/// bounds of the run, and writes the reports.
pub fn explore(session: Session) -> Result<Outcome> {
    let Session {
        cli,
        binary,
        shard,
        mut executor,
        worker_config,
        setting,
        policy,
        placement,
        concolic,
        ..
    } = session;
    // Without isolation, what the executions leave in the working directory
    // is compared at the end.
    let workdir = (executor.config().isolate.is_none())
        .then(|| std::env::current_dir().ok())
        .flatten()
        .map(|dir| Arc::new(DirSnapshot::take(&dir)));
    let options = ExploreOptions {
        max_executions: cli.max_executions,
        max_time: cli
            .max_time
            .map(|s| setup::seconds(s, "--max-time"))
            .transpose()?,
        keep_going: cli.keep_going,
        bug_policy: policy,
        count_partial_orders: cli.stats || cli.json.is_some() || cli.audit,
        interrupt: interrupt_flag()?,
        record: cli
            .record
            .as_ref()
            .map(|_| Arc::new(Recorder::new(cli.record_execution))),
        recheck: Some(Arc::new(Recheck::new(
            worker_config.clone(),
            workdir.clone(),
        ))),
        random_share: super::checks::random_share(&cli, shard.is_some(), concolic),
    };
    let params = StrategyParams {
        seed: cli.seed.unwrap_or_else(setup::clock_seed),
        depth: cli.depth,
        unfold_order: cli.target_order(),
        inputs: false,
        solver_timeout: Duration::from_millis(cli.solver_timeout),
    };
    let pool = Pool {
        config: &worker_config,
        jobs: match cli.jobs {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        },
        placement: &placement,
    };
    let progress = Progress::new(cli.quiet);
    let mut update = |s: &Summary| progress.update(s);
    let engine = Engine {
        cli: &cli,
        strategy: registration(cli.strategy),
        params,
        concolic,
    };
    let mut summary = match shard {
        Some(spec) => {
            let mut strategy = (engine.strategy.sharded.context("a sharded search")?)(spec);
            crate::explore::explore(&mut executor, strategy.as_mut(), &options, &mut update)
        }
        None => engine.run(&mut executor, &pool, &options, &mut update),
    };
    progress.finish();
    if engine.strategy.randomised {
        summary.seed = Some(params.seed);
    }
    name_the_finder(&mut summary);
    if let Some(why) = bounds::fixed_inputs(&cli, &binary) {
        bounds::bound_by(&mut summary, &why);
    }
    if !cli.no_shorten && !options.interrupt.load(Ordering::Relaxed) {
        shorten_first(&mut executor, &mut summary, &options);
    }
    if let Some(snapshot) = &workdir {
        bounds::files_changed(&cli, &mut summary, &snapshot.changes());
    }
    print_mode_notes(&cli, &executor);
    let max_steps = executor.config().max_steps;
    // Ends the fork server, so its children count in the peak RSS statistics.
    drop(executor);
    let record = options.record.as_deref();
    output::write_recorded(&cli, max_steps, &setting, record, Some(&summary))?;
    let status = output::finish(&cli, &binary, &summary, None, &setting)?;
    Ok(Outcome { summary, status })
}

/// With a randomised share that ran, says which part found the first bug
/// (the share already named itself when it did).
fn name_the_finder(summary: &mut Summary) {
    let shared = summary
        .random_share
        .as_ref()
        .is_some_and(|s| s.executions > 0);
    if shared && !summary.findings.is_empty() && summary.found_by.is_none() {
        summary.found_by = Some(format!("the systematic search ({})", summary.strategy));
    }
}

/// The flag Ctrl-C sets to stop the search.
fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = interrupt.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))
        .context("cannot install the Ctrl-C handler")?;
    Ok(interrupt)
}

/// Says when persistent executions or user-level threads were asked for
/// (or are on by default) but could not be used.
fn print_mode_notes(cli: &Cli, executor: &Executor) {
    if cli.quiet {
        return;
    }
    // Persistence is on by default where the machine allows it: only an
    // explicit --persistent hears that it does not.
    let said = cli.persistent || !executor.persistence_unsupported();
    if let Some(note) = executor.persistent_note().filter(|_| said) {
        eprintln!("reach-native: note: {note}");
    }
    let said = cli.user_threads || !executor.user_threads_unsupported();
    if let Some(note) = executor.user_threads_note().filter(|_| said) {
        eprintln!("reach-native: note: {note}");
    }
}

/// The strategy's search, and how to run it without shards.
struct Engine<'a> {
    cli: &'a Cli,
    strategy: Registration,
    params: StrategyParams,
    /// The program's inputs are explored too.
    concolic: bool,
}

impl Engine<'_> {
    /// Whether the strategy explores the program's inputs itself.
    fn inputs_itself(&self) -> bool {
        self.concolic
            && matches!(self.strategy.with_inputs, WithInputs::Itself)
            && !self.cli.concolic_restart
    }

    /// Runs the search: on the strategy's own workers, pipelined over the
    /// workers, split over them, or by one coordinator.
    fn run(
        &self,
        executor: &mut Executor,
        pool: &Pool,
        options: &ExploreOptions,
        progress: &mut dyn FnMut(&Summary),
    ) -> Summary {
        let params = StrategyParams {
            inputs: self.inputs_itself(),
            ..self.params
        };
        let bounded = self.cli.preemption_bound.is_some();
        match self.strategy.workers {
            Workers::Always(search) => return search(executor, pool, &params, options, progress),
            _ if pool.jobs > 1 && (!self.concolic || params.inputs) && !bounded => {
                let mut search = (self.strategy.single)(&params);
                if search.pipelined() {
                    return crate::pipeline::explore_pipelined(
                        executor,
                        pool.config,
                        search.as_mut(),
                        pool.jobs,
                        pool.placement,
                        options,
                        progress,
                    );
                }
            }
            _ => {}
        }
        match self.strategy.workers {
            Workers::Split(search) if pool.jobs > 1 && !bounded && !self.concolic => {
                search(executor, pool, &params, options, progress)
            }
            _ => {
                if pool.jobs > 1 && !self.cli.quiet && self.cli.jobs != 0 && !self.concolic {
                    eprintln!("reach-native: note: --jobs applies to the DPOR strategies, unfold, random, pct and the portfolio; exploring with one job");
                }
                let mut search = self.single(&params);
                crate::explore::explore(executor, search.as_mut(), options, progress)
            }
        }
    }

    /// The search one coordinator runs: the strategy's own, bounded by
    /// `--preemption-bound`, or combined with concolic inputs.
    fn single(&self, params: &StrategyParams) -> Box<dyn Strategy> {
        if !self.concolic || params.inputs {
            return self.plain();
        }
        let mut strategy = self.strategy;
        if matches!(strategy.with_inputs, WithInputs::No) {
            if !self.cli.quiet {
                eprintln!("reach-native: note: concolic testing combines inputs with dpor, dpor-cr, dpor-classic, exhaustive, optimal or unfold; using dpor");
            }
            strategy = registration(crate::cli::StrategyName::Dpor);
        }
        let timeout = self.params.solver_timeout;
        let restart = self.cli.preemption_bound.is_some() || self.cli.concolic_restart;
        match strategy.with_inputs {
            WithInputs::Tree(tree) if !restart => {
                let search: Box<dyn TreeSearch> = tree();
                Box::new(CombinedTree::new(search, Vec::new(), timeout))
            }
            _ => {
                let (bound, params) = (self.cli.preemption_bound, self.params);
                let make = move || -> Box<dyn Strategy> {
                    match (bound, strategy.bounded) {
                        (Some(limit), Some(bounded)) => bounded(limit),
                        _ => (strategy.single)(&params),
                    }
                };
                Box::new(Concolic::new(Box::new(make), Vec::new(), timeout))
            }
        }
    }

    /// The strategy's own search, bounded by `--preemption-bound` if given.
    fn plain(&self) -> Box<dyn Strategy> {
        match (self.cli.preemption_bound, self.strategy.bounded) {
            (Some(limit), Some(bounded)) => bounded(limit),
            _ => (self.strategy.single)(&StrategyParams {
                inputs: self.inputs_itself(),
                ..self.params
            }),
        }
    }
}

/// Shortens the first bug's schedule (fewer switches and steps, same bug)
/// with a few hundred re-runs at most, within what is left of `--max-time`.
fn shorten_first(executor: &mut Executor, summary: &mut Summary, options: &ExploreOptions) {
    let Some(first) = summary.findings.first() else {
        return;
    };
    let deadline = options
        .max_time
        .map(|limit| Instant::now() + limit.saturating_sub(summary.elapsed));
    let cancel = crate::cancel::Cancel::new(options.interrupt.clone(), deadline);
    let started = Instant::now();
    let (shorter, stats) = crate::shorten::shorten(
        executor,
        first,
        options,
        crate::shorten::DEFAULT_BUDGET,
        &cancel,
    );
    summary.findings[0] = shorter;
    summary.shortened = Some(stats);
    summary.elapsed += started.elapsed();
}
