//! `reach-native`: the command-line driver.

use anyhow::{bail, Context, Result};
use clap::Parser;
use reach_native::binary::Binary;
use reach_native::bug::{BugPolicy, RaceDetector};
use reach_native::cli::{Cli, MergeCli, StrategyName};
use reach_native::concolic::tree::TreeSearch;
use reach_native::exec::{DirSnapshot, EnvLayout, ExecConfig, Executor, Isolation};
use reach_native::explore::{explore, ExploreOptions, StopReason, Summary};
use reach_native::record::Recorder;
use reach_native::replay::replay;
use reach_native::report;
use reach_native::schedule::ScheduleFile;
use reach_native::shard::{Assignment, ShardSpec, Sharded};
use reach_native::strategy::bounded::IterativeBound;
use reach_native::strategy::branches::BranchDirected;
use reach_native::strategy::dpor::Dpor;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::optimal::OptimalDpor;
use reach_native::strategy::pct::Pct;
use reach_native::strategy::portfolio::Member;
use reach_native::strategy::random::RandomWalk;
use reach_native::strategy::rt::ReachabilityTesting;
use reach_native::strategy::unfold::Unfold;
use reach_native::strategy::Strategy;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Exit status: search complete, no bug.
const EXIT_CLEAN: u8 = 0;
/// Exit status: a bug was found.
const EXIT_BUG: u8 = 1;
/// Exit status: usage or input error.
const EXIT_ERROR: u8 = 2;
/// Exit status: stopped by a limit with no bug found.
const EXIT_LIMIT: u8 = 3;

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`reach-native ... | head`) like other
    // command-line tools, instead of failing on every print.
    // SAFETY: setting a signal disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `reach-native merge ...` (a program named merge runs as ./merge).
    if std::env::args_os().nth(1).as_deref() == Some(std::ffi::OsStr::new("merge")) {
        let cli = MergeCli::parse_from(std::env::args_os().skip(1));
        return match run_merge(&cli) {
            Ok(code) => ExitCode::from(code),
            Err(error) => {
                eprintln!("reach-native merge: error: {error:#}");
                ExitCode::from(EXIT_ERROR)
            }
        };
    }
    // `reach-native test PROGRAM [FILTER...]` (a program named test runs as ./test).
    if std::env::args_os().nth(1).as_deref() == Some(std::ffi::OsStr::new("test")) {
        let words: Vec<_> = std::env::args_os().skip(2).collect();
        return match reach_native::harness::mode::run_test_command(&words) {
            Ok(code) => ExitCode::from(code),
            Err(error) => {
                eprintln!("reach-native test: error: {error:#}");
                ExitCode::from(EXIT_ERROR)
            }
        };
    }
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("reach-native: error: {error:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// `reach-native merge`: prints the union of the shards' reports, writes
/// it with `--json`, and returns the exit status of one run.
fn run_merge(cli: &MergeCli) -> Result<u8> {
    let merged = reach_native::merge::merge(&cli.reports)?;
    if let Some(path) = &cli.json {
        let text = serde_json::to_string_pretty(&merged.to_json())?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if !cli.quiet {
        for bug in &merged.bugs {
            let word = |k: &str| bug[k].as_str().unwrap_or("?").to_string();
            println!(
                "BUG: {} (shard {}, execution {}): {}",
                word("kind"),
                bug["shard"],
                bug["execution"],
                word("message")
            );
        }
        if !merged.bugs.is_empty() {
            println!();
        }
        for shard in &merged.shards {
            let ran = shard
                .ran
                .map_or(String::new(), |ran| format!(" ({ran} run)"));
            println!(
                "shard {}/{}: {} executions{ran}, {} partial orders, {} ({:.2} s) [{}]",
                shard.index,
                merged.count,
                shard.executions,
                shard.partial_orders,
                shard.completion,
                shard.seconds,
                shard.file
            );
        }
        let how = match merged.completion {
            "complete" => "search complete".to_string(),
            "bug" => "stopped at a bug".to_string(),
            _ => format!("not complete ({})", merged.stop_reason),
        };
        println!(
            "\n{} ({}, {} shards): {} executions, {} distinct partial orders, {how} (slowest shard {:.2} s, all shards {:.2} s)",
            merged.program,
            merged.strategy,
            merged.count,
            merged.executions,
            merged.fingerprints.len(),
            merged.seconds_max,
            merged.seconds_sum
        );
    }
    Ok(match merged.completion {
        _ if !merged.bugs.is_empty() => EXIT_BUG,
        "complete" => EXIT_CLEAN,
        "error" => EXIT_ERROR,
        _ => EXIT_LIMIT,
    })
}

fn runtime_library() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(reach_channel::env::RUNTIME) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().context("cannot locate the reach-native executable")?;
    let path = exe
        .parent()
        .map(|dir| dir.join("libreach_runtime.so"))
        .context("reach-native executable has no parent directory")?;
    if !path.exists() {
        bail!(
            "runtime library {} not found; build the workspace or set {}",
            path.display(),
            reach_channel::env::RUNTIME
        );
    }
    Ok(path)
}

fn warn_unknown_env(quiet: bool) {
    let names: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .collect();
    for (unknown, known) in reach_channel::env::unknown_reach_vars(names.iter().map(String::as_str))
    {
        if !quiet {
            eprintln!("reach-native: warning: unknown variable {unknown} (did you mean {known}?)");
        }
    }
}

fn run(cli: &Cli) -> Result<u8> {
    warn_unknown_env(cli.quiet);
    let program = reach_native::exec::locate_program(&cli.program)?;
    let binary = Binary::inspect(&program)?;
    let mut cli = cli.clone();
    cli.resolve_strategy(
        cli.symbolic_args
            || cli.symbolic_stdin > 0
            || binary.sites.values().any(|s| s.what == "branch"),
    );
    let cli = &cli;
    if cli.commute_rmws
        && matches!(
            cli.strategy,
            StrategyName::Rt | StrategyName::Unfold | StrategyName::Branches
        )
    {
        bail!("--commute-rmws applies to --strategy dpor, dpor-cr, dpor-classic, optimal, exhaustive, pct, random and portfolio, not rt, unfold or branches");
    }
    if cli.strategy == StrategyName::Unfold
        && !cli.quiet
        && binary
            .sites
            .values()
            .any(|s| s.what == reach_channel::hooks::LOOP_SITE_WHAT)
    {
        eprintln!(
            "reach-native: note: --strategy unfold does not use await semantics: spin loops are cut by --spin-threshold only"
        );
    }
    if !binary.instrumented && !cli.quiet {
        eprintln!(
            "reach-native: warning: {} is not instrumented (build it with reach-cc): only pthread calls are explored, plain memory accesses are not",
            cli.program.display()
        );
    }
    let shard = cli
        .shard
        .as_deref()
        .map(|text| ShardSpec::parse(text, shard_split(cli), |v| std::env::var(v).ok()))
        .transpose()?;
    if shard.is_some() {
        if cli.replay.is_some() {
            bail!("--shard explores; it does not apply to --replay");
        }
        if cli.preemption_bound.is_some() {
            bail!("--shard does not apply to --preemption-bound");
        }
        if cli.jobs > 1 {
            bail!(
                "--shard runs one job per shard: run more shards instead of --jobs {}",
                cli.jobs
            );
        }
    }
    let schedule = cli.replay.as_deref().map(ScheduleFile::read).transpose()?;
    if let (Some(file), Some(path)) = (&schedule, &cli.replay) {
        check_schedule_program(path, &file.program, &cli.program)?;
    }
    // A replay runs under the recorded step bound unless given another, and
    // records at least the steps the schedule file checks.
    let max_steps = cli
        .max_steps
        .or_else(|| schedule.as_ref().and_then(|s| s.max_steps));
    let record_steps = schedule
        .as_ref()
        .map_or(0, |s| s.recorded_steps)
        .max(cli.max_recorded_steps)
        .min(max_steps.unwrap_or(u64::MAX))
        .min(reach_native::exec::MAX_EVENTS);
    let branch_directed = cli.strategy == StrategyName::Branches && schedule.is_none();
    if branch_directed {
        if !binary.traced() {
            bail!(
                "--strategy branches needs the branch conditions traced: rebuild {} with REACH_SYMBOLIC=1 reach-cc",
                cli.program.display()
            );
        }
        if cli.symbolic_args || cli.symbolic_stdin > 0 {
            bail!("--strategy branches explores one fixed input: drop --symbolic-args/--symbolic-stdin");
        }
        if shard.is_some() {
            bail!("--shard does not apply to --strategy branches");
        }
    }
    let config = ExecConfig {
        program,
        args: cli.args.clone(),
        runtime: runtime_library()?,
        timeout: seconds(cli.timeout, "--timeout")?,
        max_steps,
        record_steps,
        spin_threshold: schedule
            .as_ref()
            .and_then(|s| s.spin_threshold)
            .unwrap_or(cli.spin_threshold),
        fork_server: !cli.no_fork_server,
        persistent: !cli.no_persistent,
        exit_cuts_threads: cli.exit_cuts_threads
            || schedule.as_ref().is_some_and(|s| s.exit_cuts_threads),
        commute_rmws: cli.commute_rmws || schedule.as_ref().is_some_and(|s| s.commute_rmws),
        await_retries: schedule.as_ref().is_some_and(|s| s.await_retries),
        awaits_off: cli.strategy == StrategyName::Unfold
            || cli.no_await
            || schedule.as_ref().is_some_and(|s| s.no_await),
        user_threads: schedule
            .as_ref()
            .map_or(!cli.no_user_threads, |s| s.user_threads(cli.user_threads)),
        symbolic_args: cli.symbolic_args || schedule.as_ref().is_some_and(|s| s.symbolic_args),
        symbolic_stdin: cli
            .symbolic_stdin
            .max(schedule.as_ref().map_or(0, |s| s.symbolic_stdin)),
        trace_shared: branch_directed,
        env_layout: schedule
            .as_ref()
            .and_then(|s| s.env_layout)
            .unwrap_or_default(),
        isolate: isolation(cli, schedule.as_ref())?,
    };
    // Concolic testing when the program records branches on inputs.
    let concolic = !branch_directed
        && (cli.symbolic_args
            || cli.symbolic_stdin > 0
            || binary.sites.values().any(|s| s.what == "branch"));
    if concolic && shard.is_some() {
        bail!("--shard does not apply to concolic testing (a program built with REACH_SYMBOLIC=1, or --symbolic-args/--symbolic-stdin)");
    }
    let config_for_workers = config.clone();
    let placement = if cli.no_pin {
        Vec::new()
    } else {
        reach_native::affinity::placement()
    };
    reach_native::affinity::bind_current_thread(&placement, 0);
    let asked_layout = config.env_layout;
    let mut executor = Executor::new(config).context("cannot prepare the program for testing")?;
    let env_layout = executor.config().env_layout;
    let setting = StartSetting::of(executor.config());
    if schedule.is_some() && env_layout != asked_layout {
        eprintln!(
            "reach-native: warning: the arguments and environment take more room than when the schedule was recorded ({} bytes in {} strings, now {} in {}): stack addresses may differ; replay with a smaller environment (env -u NAME ...)",
            asked_layout.bytes, asked_layout.entries, env_layout.bytes, env_layout.entries
        );
    }
    let policy = BugPolicy {
        data_races: !cli.ignore_races,
        exit_code_is_bug: !cli.ignore_exit_code,
        race_detector: race_detector(cli, schedule.as_ref())?,
    };
    if let Some(schedule) = &schedule {
        let recorder = cli.record.as_ref().map(|_| Recorder::new(1));
        let (summary, replayed) = replay(&mut executor, schedule, policy, recorder.as_ref());
        write_recorded(cli, max_steps, &setting, recorder.as_ref(), None)?;
        return finish(cli, &binary, &summary, replayed.as_ref(), &setting);
    }
    // Without isolation, what the executions leave in the working directory
    // is compared at the end.
    let workdir = (executor.config().isolate.is_none())
        .then(|| std::env::current_dir().ok())
        .flatten()
        .map(|dir| DirSnapshot::take(&dir));
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))
            .context("cannot install the Ctrl-C handler")?;
    }
    let options = ExploreOptions {
        max_executions: cli.max_executions,
        max_time: cli.max_time.map(|s| seconds(s, "--max-time")).transpose()?,
        keep_going: cli.keep_going,
        bug_policy: policy,
        count_partial_orders: cli.stats || cli.json.is_some() || cli.audit,
        interrupt,
        record: cli
            .record
            .as_ref()
            .map(|_| Arc::new(Recorder::new(cli.record_execution))),
    };
    let jobs = match cli.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let seed = cli.seed.unwrap_or_else(clock_seed);
    let seeded = matches!(
        cli.strategy,
        StrategyName::Pct | StrategyName::Random | StrategyName::Portfolio
    );
    if cli.unfold_order.is_some() && cli.strategy != StrategyName::Unfold {
        bail!("--unfold-order applies to --strategy unfold");
    }
    if cli.preemption_bound.is_some()
        && !matches!(cli.strategy, StrategyName::Dpor | StrategyName::Exhaustive)
    {
        bail!("--preemption-bound applies to --strategy dpor and exhaustive");
    }
    let parallel_search = match cli.strategy {
        _ if cli.preemption_bound.is_some() || concolic => None,
        StrategyName::Dpor => Some(Dpor::new(true)),
        StrategyName::DporCr => Some(Dpor::new(false)),
        StrategyName::DporClassic => Some(Dpor::classic()),
        _ => None,
    };
    let parallel_optimal = cli.strategy == StrategyName::Optimal && !concolic;
    let sharded = shard.map(|spec| sharded(cli.strategy, spec)).transpose()?;
    // Unfolding-based testing explores inputs itself (symbolic branch
    // events), so it pipelines under concolic testing too.
    let concolic_unfold = concolic && cli.strategy == StrategyName::Unfold && !cli.concolic_restart;
    let pipelined_search = (jobs > 1 && sharded.is_none() && (!concolic || concolic_unfold))
        .then(|| single_search(cli, seed, concolic_unfold))
        .filter(|s| s.pipelined());
    let progress = reach_native::progress::Progress::new(cli.quiet);
    let mut summary = match parallel_search {
        _ if sharded.is_some() => {
            let mut strategy = sharded.context("a sharded search")?;
            explore(&mut executor, strategy.as_mut(), &options, &mut |s| {
                progress.update(s)
            })
        }
        _ if cli.strategy == StrategyName::Portfolio => {
            reach_native::strategy::portfolio::explore_portfolio(
                &mut executor,
                &config_for_workers,
                &Member::defaults(seed),
                jobs,
                &placement,
                &options,
                &mut |s| progress.update(s),
            )
        }
        _ if pipelined_search.is_some() => {
            let mut strategy = pipelined_search.context("a pipelined search")?;
            reach_native::pipeline::explore_pipelined(
                &mut executor,
                &config_for_workers,
                strategy.as_mut(),
                jobs,
                &placement,
                &options,
                &mut |s| progress.update(s),
            )
        }
        _ if parallel_optimal && jobs > 1 => reach_native::parallel::explore_parallel(
            &mut executor,
            &config_for_workers,
            OptimalDpor::new(),
            jobs,
            &placement,
            &options,
            &mut |s| progress.update(s),
        ),
        Some(search) if jobs > 1 => reach_native::parallel::explore_parallel(
            &mut executor,
            &config_for_workers,
            search,
            jobs,
            &placement,
            &options,
            &mut |s| progress.update(s),
        ),
        _ => {
            if jobs > 1 && !cli.quiet && cli.jobs != 0 && !concolic {
                eprintln!("reach-native: note: --jobs applies to the DPOR strategies, unfold, random, pct and the portfolio; exploring with one job");
            }
            let mut strategy = single_search(cli, seed, concolic_unfold);
            let unfold_order = cli.target_order();
            if concolic && !concolic_unfold {
                let name = cli.strategy;
                let bound = cli.preemption_bound;
                let make = move || -> Box<dyn Strategy> {
                    match name {
                        StrategyName::Dpor | StrategyName::Exhaustive if bound.is_some() => {
                            bounded(name, bound.unwrap_or(0))
                        }
                        StrategyName::DporCr => Box::new(Dpor::new(false)),
                        StrategyName::DporClassic => Box::new(Dpor::classic()),
                        StrategyName::Exhaustive => Box::new(Exhaustive::default()),
                        StrategyName::Optimal => Box::new(OptimalDpor::new()),
                        StrategyName::Unfold => Box::new(Unfold::new(unfold_order)),
                        _ => Box::new(Dpor::new(true)),
                    }
                };
                if !matches!(
                    name,
                    StrategyName::Dpor
                        | StrategyName::DporCr
                        | StrategyName::DporClassic
                        | StrategyName::Exhaustive
                        | StrategyName::Optimal
                        | StrategyName::Unfold
                ) && !cli.quiet
                {
                    eprintln!("reach-native: note: concolic testing combines inputs with dpor, dpor-cr, dpor-classic, exhaustive, optimal or unfold; using dpor");
                }
                let timeout = std::time::Duration::from_millis(cli.solver_timeout);
                // One combined execution tree for the DPOR variants and
                // optimal (Saarikivi et al., Sec. III-B); a search per
                // input vector for the others.
                let tree_search: Option<Box<dyn TreeSearch>> = match name {
                    _ if bound.is_some() || cli.concolic_restart => None,
                    StrategyName::DporCr => Some(Box::new(Dpor::new(false))),
                    StrategyName::DporClassic => Some(Box::new(Dpor::classic())),
                    StrategyName::Optimal => Some(Box::new(OptimalDpor::new())),
                    StrategyName::Exhaustive | StrategyName::Unfold => None,
                    _ => Some(Box::new(Dpor::new(true))),
                };
                strategy = match tree_search {
                    Some(search) => Box::new(reach_native::concolic::tree::CombinedTree::new(
                        search,
                        Vec::new(),
                        timeout,
                    )),
                    None => Box::new(reach_native::concolic::Concolic::new(
                        Box::new(make),
                        Vec::new(),
                        timeout,
                    )),
                };
            }
            explore(&mut executor, strategy.as_mut(), &options, &mut |s| {
                progress.update(s)
            })
        }
    };
    progress.finish();
    if seeded {
        summary.seed = Some(seed);
    }
    if let Some(why) = fixed_inputs(cli, &binary) {
        bound_by(&mut summary, &why);
    }
    if !cli.no_shorten && !options.interrupt.load(Ordering::Relaxed) {
        shorten_first(&mut executor, &mut summary, &options);
    }
    if let Some(snapshot) = &workdir {
        files_changed(cli, &mut summary, &snapshot.changes());
    }
    // Persistence is on by default where the machine allows it: only an
    // explicit --persistent hears that it does not.
    let said = cli.persistent || !executor.persistence_unsupported();
    if let Some(note) = executor.persistent_note().filter(|_| !cli.quiet && said) {
        eprintln!("reach-native: note: {note}");
    }
    let said = cli.user_threads || !executor.user_threads_unsupported();
    if let Some(note) = executor.user_threads_note().filter(|_| !cli.quiet && said) {
        eprintln!("reach-native: note: {note}");
    }
    // Ends the fork server, so its children count in the peak RSS statistics.
    drop(executor);
    write_recorded(
        cli,
        max_steps,
        &setting,
        options.record.as_deref(),
        Some(&summary),
    )?;
    finish(cli, &binary, &summary, None, &setting)
}

/// Refuses a schedule recorded for a program of another name: its steps
/// would not match this program's.
fn check_schedule_program(
    path: &std::path::Path,
    recorded: &str,
    program: &std::path::Path,
) -> Result<()> {
    let name = |p: &std::path::Path| p.file_name().map(|n| n.to_os_string());
    let recorded_path = std::path::Path::new(recorded);
    if !recorded.is_empty() && name(recorded_path) != name(program) {
        bail!(
            "{} was recorded for program {recorded}, not {}: replay it with that program, or find a new schedule for this one",
            path.display(),
            program.display()
        );
    }
    Ok(())
}

/// A seed from the clock, for runs without `--seed`.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The part of `strategy`'s search that shard `spec` explores.
fn sharded(strategy: StrategyName, spec: ShardSpec) -> Result<Box<dyn Strategy>> {
    // dpor and optimal estimate each subtree of a choice of their own from
    // its first execution, run by every shard (BENCHMARKS.md, section
    // Shards); rt and the exhaustive search estimate subtrees beforehand.
    let how = Assignment::Probed;
    let (split, n) = (spec.split, spec.count);
    Ok(match strategy {
        StrategyName::Dpor => Box::new(Sharded::new(
            Dpor::new(true).with_shard_plan(split, n),
            spec,
            how,
        )),
        StrategyName::DporCr => Box::new(Sharded::new(
            Dpor::new(false).with_shard_plan(split, n),
            spec,
            how,
        )),
        StrategyName::DporClassic => Box::new(Sharded::new(
            Dpor::classic().with_shard_plan(split, n),
            spec,
            how,
        )),
        StrategyName::Exhaustive => Box::new(Sharded::new(
            Exhaustive::default().with_shard_plan(split, n),
            spec,
            Assignment::Balanced,
        )),
        StrategyName::Rt => Box::new(Sharded::new(
            ReachabilityTesting::new().with_shard_plan(split, n),
            spec,
            Assignment::Balanced,
        )),
        StrategyName::Optimal => Box::new(Sharded::new(
            OptimalDpor::new().with_shard_plan(split, n),
            spec,
            how,
        )),
        other => bail!(
            "--shard applies to optimal, dpor, dpor-cr, dpor-classic, exhaustive and rt, not {}",
            strategy_word(other)
        ),
    })
}

/// The `--strategy` word of `strategy`.
fn strategy_word(strategy: StrategyName) -> String {
    clap::ValueEnum::to_possible_value(&strategy)
        .map_or_else(|| format!("{strategy:?}"), |v| v.get_name().to_string())
}

/// Iterative preemption bounding of `strategy` (dpor or exhaustive) up to
/// `limit` preemptions.
fn bounded(strategy: StrategyName, limit: u32) -> Box<dyn Strategy> {
    if strategy == StrategyName::Exhaustive {
        Box::new(IterativeBound::new(
            "exhaustive",
            limit,
            true,
            Box::new(|b| Box::new(Exhaustive::bounded(b))),
        ))
    } else {
        Box::new(IterativeBound::new(
            "dpor",
            limit,
            false,
            Box::new(|b| Box::new(Dpor::bounded(b))),
        ))
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
        .map(|limit| std::time::Instant::now() + limit.saturating_sub(summary.elapsed));
    let cancel = reach_native::cancel::Cancel::new(options.interrupt.clone(), deadline);
    let started = std::time::Instant::now();
    let (shorter, stats) = reach_native::shorten::shorten(
        executor,
        first,
        options,
        reach_native::shorten::DEFAULT_BUDGET,
        &cancel,
    );
    summary.findings[0] = shorter;
    summary.shortened = Some(stats);
    summary.elapsed += started.elapsed();
}

/// The data-race detector: `--race-detector`, else (replaying) the one
/// the schedule file names, else `lockset` for `--strategy branches` (the
/// races its search covers) and `hb` for the others.
fn race_detector(cli: &Cli, schedule: Option<&ScheduleFile>) -> Result<RaceDetector> {
    if let Some(name) = cli.race_detector {
        return Ok(name.into());
    }
    match schedule.and_then(|s| s.race_detector.as_deref()) {
        None if cli.strategy == StrategyName::Branches => Ok(RaceDetector::Lockset),
        None => Ok(RaceDetector::Hb),
        Some(word) => RaceDetector::from_word(word).with_context(|| {
            format!("the schedule file names an unknown race detector {word:?} (hb, lockset, both)")
        }),
    }
}

fn seconds(value: f64, flag: &str) -> Result<Duration> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .with_context(|| format!("{flag} must be a positive number of seconds"))
}

/// The program's arguments as text.
fn args(cli: &Cli) -> Vec<String> {
    cli.args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Writes the `--record` file, if asked for and the execution ran;
/// `max_steps` is the step bound it ran under.
fn write_recorded(
    cli: &Cli,
    max_steps: Option<u64>,
    setting: &StartSetting,
    recorder: Option<&Recorder>,
    origin: Option<&Summary>,
) -> Result<()> {
    let (Some(path), Some(recorder)) = (&cli.record, recorder) else {
        return Ok(());
    };
    match recorder.take() {
        Some(mut file) => {
            file.program = cli.program.display().to_string();
            file.args = args(cli);
            file.max_steps = max_steps;
            setting.record(&mut file);
            if let Some(summary) = origin {
                file.strategy = Some(summary.strategy.to_string());
                file.seed = summary.seed;
            }
            file.no_await = cli.no_await || cli.strategy == StrategyName::Unfold;
            file.write(path)
                .with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            eprintln!(
                "reach-native: warning: execution {} did not run; {} not written",
                recorder.execution(),
                path.display()
            );
            Ok(())
        }
    }
}

/// Prints the result, writes the schedule and report files, and picks the
/// exit status; `replayed` is the replayed execution when it found no bug.
fn finish(
    cli: &Cli,
    binary: &Binary,
    summary: &Summary,
    replayed: Option<&reach_native::trace::Trace>,
    setting: &StartSetting,
) -> Result<u8> {
    let program = cli.program.display().to_string();
    let names = report::names::Names::new(binary);
    let replay_command = replay_command(cli, &program);
    if let Some(finding) = summary.findings.first() {
        print!(
            "{}",
            report::text::render(finding, &names, report::style::Style::for_stdout())
        );
        if let Some(by) = &summary.found_by {
            println!("\nFound by: {by}");
        }
        if let Some(short) = &summary.shortened {
            println!(
                "\nShortened: the execution that found the bug had {} context switches ({} steps); this one has {} ({} steps), same bug ({} re-runs)",
                short.original_switches, short.original_steps, short.switches, short.steps, short.executions
            );
        }
        for other in summary.findings.iter().skip(1) {
            println!(
                "\nALSO: {} (execution {}): {}",
                other.bug.kind,
                other.execution,
                report::bug_message(other, &names)
            );
        }
        if cli.replay.is_none() {
            let mut file = report::schedule_of(&program, args(cli), cli.max_steps, finding);
            file.strategy = Some(summary.strategy.to_string());
            file.seed = summary.seed;
            file.no_await = cli.no_await || cli.strategy == StrategyName::Unfold;
            setting.record(&mut file);
            file.write(&cli.schedule_out)
                .with_context(|| format!("cannot write {}", cli.schedule_out.display()))?;
            println!(
                "\nSchedule written to {}; replay with:\n  {}",
                cli.schedule_out.display(),
                replay_command.as_deref().unwrap_or_default()
            );
        }
    }
    let explored = match &summary.stop {
        StopReason::Complete => "search complete".to_string(),
        StopReason::Bug => "stopped at the first bug".to_string(),
        StopReason::ExecutionLimit => "stopped by --max-executions".to_string(),
        StopReason::TimeLimit => "stopped by --max-time".to_string(),
        StopReason::Interrupted => "interrupted".to_string(),
        StopReason::Bounded(why) => format!("search bounded, not complete: {why}"),
        StopReason::Error(m) => format!("stopped: {m}"),
    };
    if !cli.quiet || cli.stats {
        let seed = summary
            .seed
            .map(|s| format!(" (seed {s})"))
            .unwrap_or_default();
        let blocked = match summary.await_blocked {
            0 => String::new(),
            n => format!(" ({n} blocked at an await)"),
        };
        println!(
            "\n{}{seed}: {} executions{blocked}, {explored} ({:.2} s)",
            summary.strategy,
            summary.executions,
            summary.elapsed.as_secs_f64()
        );
        println!("coverage: {}", report::coverage_line(summary));
    }
    if cli.stats {
        println!("  executions:            {}", summary.executions);
        if let Some(orders) = summary.partial_orders {
            println!("  distinct partial orders: {orders}");
        }
        println!("  sleep-set blocked:     {}", summary.sleep_blocked);
        println!("  blocked at an await:   {}", summary.await_blocked);
        println!("  steps executed:        {}", summary.total_steps);
        println!(
            "  time:                  {:.3} s",
            summary.elapsed.as_secs_f64()
        );
        for (name, value) in &summary.strategy_stats {
            println!("  {:<22} {value}", format!("{name}:"));
        }
        let (driver, program) = peak_rss_kib();
        println!("  peak RSS:              driver {driver} KiB, program {program} KiB");
    }
    if cli.audit {
        println!(
            "audit: {} duplicate partial orders",
            summary.duplicate_orders
        );
    }
    if let Some(path) = &cli.json {
        let mut report = report::json::build(&program, summary, &names, binary.instrumented);
        report.program_hash = binary
            .path
            .as_deref()
            .and_then(|p| reach_native::shard::program_hash(p).ok());
        report.search = Some(search_options(cli));
        report.shard = cli
            .shard
            .as_deref()
            .and_then(|text| {
                ShardSpec::parse(text, shard_split(cli), |v| std::env::var(v).ok()).ok()
            })
            .map(|spec| reach_native::shard::ShardInfo {
                ran: Some(summary.executions + summary.uncounted),
                ..spec.into()
            });
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    write_report_files(cli, &program, summary, &names, replayed, replay_command)?;
    Ok(match &summary.stop {
        _ if !summary.findings.is_empty() => EXIT_BUG,
        StopReason::Complete => EXIT_CLEAN,
        StopReason::Error(m) => {
            eprintln!("reach-native: error: {m}");
            EXIT_ERROR
        }
        _ => EXIT_LIMIT,
    })
}

/// The directories `--isolate-files` and `--isolate DIR` ask to isolate,
/// with those of the schedule file replayed.
fn isolation(cli: &Cli, schedule: Option<&ScheduleFile>) -> Result<Option<Arc<Isolation>>> {
    let recorded = schedule.and_then(|s| s.isolate_files.as_ref());
    if !cli.isolate_files && cli.isolate.is_empty() && recorded.is_none() {
        return Ok(None);
    }
    let mut dirs = cli.isolate.clone();
    dirs.extend(recorded.into_iter().flatten().map(PathBuf::from));
    Ok(Some(Arc::new(Isolation::new(&dirs, true)?)))
}

/// What a schedule file records of how the program was started: the
/// environment's room, the isolated directories and the options that
/// change the trace.
#[derive(Clone)]
struct StartSetting {
    env_layout: EnvLayout,
    isolate_files: Option<Vec<String>>,
    spin_threshold: u32,
    exit_cuts_threads: bool,
}

impl StartSetting {
    fn of(config: &ExecConfig) -> StartSetting {
        StartSetting {
            env_layout: config.env_layout,
            isolate_files: config.isolate.as_ref().map(|i| {
                i.extra_dirs()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect()
            }),
            spin_threshold: config.spin_threshold,
            exit_cuts_threads: config.exit_cuts_threads,
        }
    }

    fn record(&self, file: &mut ScheduleFile) {
        file.env_layout = Some(self.env_layout).filter(|l| !l.is_default());
        file.isolate_files = self.isolate_files.clone();
        file.spin_threshold = Some(self.spin_threshold);
        file.exit_cuts_threads |= self.exit_cuts_threads;
    }
}

/// Why the program's inputs kept their defaults in every execution although
/// it reads inputs: it was built without the shadow computations that let
/// the driver choose them (a concolic run varies them). `None` if it reads
/// none, or they were varied.
fn fixed_inputs(cli: &Cli, binary: &Binary) -> Option<String> {
    if binary.traced() {
        return None;
    }
    let asked = cli.symbolic_args || cli.symbolic_stdin > 0;
    let reads = binary
        .path
        .as_deref()
        .is_some_and(reach_native::binary::reads_inputs);
    if !asked && !reads {
        return None;
    }
    Some(format!(
        "inputs fixed at their defaults: {} reads inputs but was built without concolic tracing (rebuild it with reach-cc, without REACH_SYMBOLIC=0)",
        cli.program.display()
    ))
}

/// What a run whose executions changed files in the working directory
/// (`changed`, relative to it) says: a note, a search that completed is
/// bounded by it (later executions may have started from other files than
/// earlier ones), and a nondeterminism report names the files.
fn files_changed(cli: &Cli, summary: &mut Summary, changed: &[PathBuf]) {
    if changed.is_empty() {
        return;
    }
    let mut names: Vec<String> = changed
        .iter()
        .take(5)
        .map(|p| p.display().to_string())
        .collect();
    if changed.len() > 5 {
        names.push(format!("and {} more", changed.len() - 5));
    }
    let names = names.join(", ");
    let why = format!(
        "files in the working directory changed during the run ({names}): later executions may have started from other files than earlier ones (--isolate-files gives each the directory as it was)"
    );
    for finding in &mut summary.findings {
        if finding.bug.kind == reach_native::bug::BugKind::Nondeterminism {
            finding.bug.message = format!("{}; {why}", finding.bug.message);
        }
    }
    if !cli.quiet {
        eprintln!("reach-native: note: {why}");
    }
    bound_by(summary, &why);
}

/// Makes a search that completed say it is bounded by `why`, and adds it
/// to the coverage line.
fn bound_by(summary: &mut Summary, why: &str) {
    match &mut summary.stop {
        StopReason::Complete => summary.stop = StopReason::Bounded(why.to_string()),
        StopReason::Bounded(other) => *other = format!("{other}; {why}"),
        _ => {}
    }
    if let Some(line) = &mut summary.coverage {
        line.push_str("; ");
        line.push_str(why);
    }
}

/// `--shard-split`, or its default.
fn shard_split(cli: &Cli) -> u32 {
    cli.shard_split
        .unwrap_or_else(|| reach_native::shard::default_split(&strategy_word(cli.strategy)))
}

/// The options that decide what the search explores, for the report.
fn search_options(cli: &Cli) -> reach_native::shard::SearchOptions {
    reach_native::shard::SearchOptions {
        strategy: strategy_word(cli.strategy),
        args: args(cli),
        max_steps: cli.max_steps,
        max_recorded_steps: cli.max_recorded_steps,
        exit_cuts_threads: cli.exit_cuts_threads,
        commute_rmws: cli.commute_rmws,
        spin_threshold: cli.spin_threshold,
        keep_going: cli.keep_going,
        ignore_races: cli.ignore_races,
        ignore_exit_code: cli.ignore_exit_code,
        race_detector: cli
            .race_detector
            .map_or(RaceDetector::Hb, RaceDetector::from)
            .word()
            .to_string(),
    }
}

/// The command that replays the first bug (or, with `--replay`, the
/// replayed schedule).
fn replay_command(cli: &Cli, program: &str) -> Option<String> {
    let schedule = match &cli.replay {
        Some(file) => file,
        None => &cli.schedule_out,
    };
    let mut words = vec!["reach-native".to_string()];
    let detector = race_detector(cli, None).unwrap_or(RaceDetector::Hb);
    if detector != RaceDetector::Hb {
        words.extend(["--race-detector".to_string(), detector.word().to_string()]);
    }
    words.extend([
        "--replay".to_string(),
        schedule.display().to_string(),
        program.to_string(),
    ]);
    words.extend(args(cli));
    Some(reach_native::replay::shell_words(&words))
}

/// Writes the `--html` and `--junit` files, if asked for.
fn write_report_files(
    cli: &Cli,
    program: &str,
    summary: &Summary,
    names: &report::names::Names,
    replayed: Option<&reach_native::trace::Trace>,
    replay: Option<String>,
) -> Result<()> {
    let replay = replay.filter(|_| cli.replay.is_some() || !summary.findings.is_empty());
    let command = std::iter::once(program.to_string())
        .chain(args(cli))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(path) = &cli.html {
        let finding = summary.findings.first();
        let page = report::html::Page {
            command,
            summary,
            finding,
            trace: finding.map(|f| &f.trace).or(replayed),
            replay: replay.clone(),
        };
        std::fs::write(path, report::html::render(&page, names))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &cli.junit {
        let details = summary
            .findings
            .first()
            .map(|f| report::text::render(f, names, report::style::Style::plain()))
            .unwrap_or_default();
        let text = report::junit::build(
            program,
            &args(cli),
            summary,
            names,
            replay.as_deref(),
            &details,
        );
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Peak resident set sizes in KiB: of this process, and of the largest
/// program process it (or its fork server) has reaped.
fn peak_rss_kib() -> (i64, i64) {
    let get = |who| {
        // SAFETY: getrusage into a zeroed local struct.
        unsafe {
            let mut u: libc::rusage = std::mem::zeroed();
            libc::getrusage(who, &mut u);
            u.ru_maxrss
        }
    };
    (get(libc::RUSAGE_SELF), get(libc::RUSAGE_CHILDREN))
}

/// The search `cli` asks for, run by one coordinator (`inputs`: the
/// search explores the program's inputs itself).
fn single_search(cli: &Cli, seed: u64, inputs: bool) -> Box<dyn Strategy> {
    match cli.strategy {
        StrategyName::Dpor | StrategyName::Exhaustive if cli.preemption_bound.is_some() => {
            bounded(cli.strategy, cli.preemption_bound.unwrap_or(0))
        }
        StrategyName::Pct => Box::new(Pct::new(cli.depth, seed)),
        StrategyName::Random => Box::new(RandomWalk::new(seed)),
        StrategyName::Portfolio => Box::new(Dpor::new(true)),
        StrategyName::Dpor => Box::new(Dpor::new(true)),
        StrategyName::DporCr => Box::new(Dpor::new(false)),
        StrategyName::DporClassic => Box::new(Dpor::classic()),
        StrategyName::Exhaustive => Box::new(Exhaustive::default()),
        StrategyName::Optimal => Box::new(OptimalDpor::new()),
        StrategyName::Rt => Box::new(ReachabilityTesting::new()),
        StrategyName::Branches => Box::new(BranchDirected::new()),
        StrategyName::Unfold => {
            let order = cli.target_order();
            if inputs {
                let timeout = std::time::Duration::from_millis(cli.solver_timeout);
                Box::new(Unfold::with_inputs(order, timeout))
            } else {
                Box::new(Unfold::new(order))
            }
        }
    }
}
