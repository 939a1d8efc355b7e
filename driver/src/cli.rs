//! Command-line interface of `reach-native`.

use clap::{Parser, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// Default of `--max-recorded-steps`: the steps of one execution the trace
/// holds (64 bytes each in the channel; analysing a recorded step costs the
/// driver about 1 KB and 3–4 µs, see BENCHMARKS.md).
pub const DEFAULT_RECORDED_STEPS: u64 = 1_000_000;

/// The usage lines of `--help`: one search, a test suite, merging shards.
const USAGE: &str = "\
reach-native [OPTIONS] PROGRAM [ARGS]...
       reach-native test [OPTIONS] PROGRAM [FILTER]...   every test case of a libtest, GoogleTest or Catch2 binary
       reach-native merge [OPTIONS] REPORT...            the union of the shards' --json reports";

/// `--version`: the release, the hook ABI version the runtime speaks (a
/// program instrumented for another is refused) and the LLVM the
/// compiler wrappers instrument with.
pub fn version_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        format!(
            "{} (hook ABI version {}, instrumenting with LLVM {})",
            env!("CARGO_PKG_VERSION"),
            reach_channel::hooks::ABI_VERSION,
            env!("BUILT_WITH_LLVM_VERSION")
        )
    })
}

/// Examples shown after the options in `--help`.
const EXAMPLES: &str = "\
Examples:
  Build a program for testing, then test it:
    reach-cc -g -O1 prog.c -o prog && reach-native ./prog
  Pass arguments to the program:
    reach-native ./prog --threads 4
  Explore every test case of a test binary, two at once:
    reach-native test --jobs 2 ./unit_tests
  Every #[test] of a cargo package or workspace:
    cargo reach test
  Replay the bug's schedule (written to reach-native.schedule):
    reach-native --replay reach-native.schedule ./prog
  Give every execution the working directory as it was (a program that logs):
    reach-native --isolate-files ./prog
  Draw the bug's execution as an HTML page:
    reach-native --html bug.html ./prog
  Reports for CI (JUnit XML and JSON):
    reach-native --junit junit.xml --json report.json ./prog
  Check the locking discipline too (Eraser's lockset races), every race:
    reach-native --race-detector both --keep-going ./prog
  Search for a while with a randomised strategy:
    reach-native --strategy pct --max-time 60 ./prog
  Count behaviours, counters updated with unused fetch_add commuting:
    reach-native --strategy optimal --commute-rmws --stats ./prog
  Split the search over 4 machines, then merge their reports:
    reach-native --shard 0/4 --json shard-0.json ./prog   (and 1/4, 2/4, 3/4)
    reach-native merge shard-*.json

Exit status: 0 no bug and search complete, 1 bug found, 2 error, 3 stopped
by a limit without a bug (or the search was bounded: inputs fixed at their
defaults, files changed between executions).";

/// `--help` headings: what the search explores.
const EXPLORE: &str = "What to explore";
/// `--help` headings: what counts as a bug.
const BUGS: &str = "What counts as a bug";
/// `--help` headings: bounds of the search and of one execution.
const LIMITS: &str = "Limits";
/// `--help` headings: concolic testing of the program's inputs.
const INPUTS: &str = "Inputs (concolic testing)";
/// `--help` headings: what is printed and written, and replaying.
const REPORTS: &str = "Reports and replay";
/// `--help` headings: how the executions are run.
const RUN: &str = "How executions run";
/// `--help` headings: splitting one search over machines.
const SHARDS: &str = "Sharding";

/// Memory models selectable with `--memory-model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MemoryModelName {
    /// Every atomic is sequentially consistent: a load reads the latest
    /// store.
    Sc,
    /// RC11, the C11 model: relaxed, release/acquire and seq_cst orderings;
    /// an atomic load may read an older store the model allows.
    Rc11,
}

impl MemoryModelName {
    /// The model.
    pub fn model(self) -> reach_channel::memory_model::MemoryModel {
        match self {
            MemoryModelName::Sc => reach_channel::memory_model::MemoryModel::Sc,
            MemoryModelName::Rc11 => reach_channel::memory_model::MemoryModel::Rc11,
        }
    }
}

/// Data-race detectors selectable with `--race-detector`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RaceDetectorName {
    /// Happens-before (default): two conflicting plain accesses of
    /// different threads not ordered by synchronisation.
    Hb,
    /// Lockset (Eraser): a location shared by threads, written by one, with
    /// no lock held at every access of it (whatever the order of the
    /// accesses); an unlock of a lock the thread does not hold.
    Lockset,
    /// Both detectors: each execution is checked by both.
    Both,
}

impl From<RaceDetectorName> for crate::bug::RaceDetector {
    fn from(name: RaceDetectorName) -> Self {
        match name {
            RaceDetectorName::Hb => crate::bug::RaceDetector::Hb,
            RaceDetectorName::Lockset => crate::bug::RaceDetector::Lockset,
            RaceDetectorName::Both => crate::bug::RaceDetector::Both,
        }
    }
}

/// Which possible extension `--strategy unfold` targets next
/// (`--unfold-order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UnfoldOrderName {
    /// The one found first (default).
    Oldest,
    /// The one found last.
    Newest,
}

impl From<UnfoldOrderName> for crate::strategy::unfold::Order {
    fn from(name: UnfoldOrderName) -> Self {
        match name {
            UnfoldOrderName::Oldest => crate::strategy::unfold::Order::Oldest,
            UnfoldOrderName::Newest => crate::strategy::unfold::Order::Newest,
        }
    }
}

/// Exploration strategies selectable with `--strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StrategyName {
    /// Optimal DPOR (source sets and wakeup trees): one execution per
    /// partial order, never blocked by sleep sets (default).
    Optimal,
    /// DPOR with commutative reads and sleep sets (the default with
    /// --preemption-bound and concolic testing).
    Dpor,
    /// DPOR with commutative reads, without sleep sets (paper's DPOR-CR column).
    DporCr,
    /// Classic DPOR: reads conflict, no sleep sets (paper's DPOR column).
    DporClassic,
    /// Every interleaving (brute-force oracle).
    Exhaustive,
    /// Unfolding-based testing: every local state of every thread, one
    /// execution per event of the unfolding not yet covered, plus a
    /// deadlock search on the unfolding; with concolic testing, the
    /// branches on inputs are events of the same unfolding.
    Unfold,
    /// Reachability testing (Lei & Carver): race variants, no stored history.
    Rt,
    /// Branch-directed, race-equivalent exploration (Setiadi et al.): only
    /// interleavings that can change a branch on shared data, for lockset
    /// races under a fixed input (a program built with REACH_SYMBOLIC=1).
    Branches,
    /// Probabilistic concurrency testing (random priorities, --depth - 1
    /// change points): a bug of depth d with probability >= 1/(n*k^(d-1))
    /// per execution.
    Pct,
    /// Random walk: a uniform choice among the enabled threads at each step.
    Random,
    /// DPOR, PCT with depths 1 to 3 and a random walk side by side, stopping
    /// at the first bug.
    Portfolio,
}

/// Systematic concurrency testing of native pthread programs: runs PROGRAM
/// over and over, one forced thread interleaving per execution, and reports
/// the first bug with a replayable schedule.
#[derive(Parser, Clone, Debug)]
#[command(
    name = "reach-native",
    version = version_text(),
    about,
    long_about = None,
    override_usage = USAGE,
    after_help = EXAMPLES
)]
pub struct Cli {
    /// Exploration strategy [default: optimal, with one PCT execution after
    /// every 4 systematic ones beside it (--no-random-share); dpor with
    /// --preemption-bound and concolic testing].
    #[arg(help_heading = EXPLORE, long = "strategy", value_enum, value_name = "STRATEGY")]
    pub strategy_choice: Option<StrategyName>,
    /// The strategy that runs: the one chosen, else the default for the
    /// other options ([`Cli::resolve_strategy`]).
    #[arg(skip = StrategyName::Optimal)]
    pub strategy: StrategyName,
    /// Stop after this many executions (exit status 3 if no bug was found).
    #[arg(help_heading = LIMITS, long, value_name = "N")]
    pub max_executions: Option<u64>,
    /// Stop after this many seconds in total (exit status 3 if no bug was found).
    #[arg(help_heading = LIMITS, long, value_name = "SECS")]
    pub max_time: Option<f64>,
    /// Make the bytes of the program's arguments (argv[1..], each up to 64
    /// bytes, their lengths fixed) symbolic inputs for concolic testing.
    #[arg(help_heading = INPUTS, long)]
    pub symbolic_args: bool,
    /// Make the first N bytes (at most 64) of standard input, as `read(0,
    /// ...)` returns them, a symbolic input for concolic testing.
    #[arg(help_heading = INPUTS, long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub symbolic_stdin: u32,
    /// Bound of one solver query in concolic testing, in milliseconds (a
    /// query that hits it is counted, and its target dropped).
    #[arg(help_heading = INPUTS, long, value_name = "MS", default_value_t = 5000)]
    pub solver_timeout: u64,
    /// Concolic testing: run a whole scheduling search from scratch for
    /// each input vector, as exhaustive and --preemption-bound always do,
    /// instead of sharing one combined execution tree (dpor, dpor-cr,
    /// dpor-classic, optimal) or one unfolding (unfold) across input
    /// vectors (for comparison).
    #[arg(help_heading = INPUTS, long)]
    pub concolic_restart: bool,
    /// With `--strategy unfold`: which possible extension becomes the next
    /// target, the one found first (oldest, default) or last (newest). The
    /// final unfolding is the same either way (its events in `--stats`).
    #[arg(help_heading = EXPLORE, long, value_enum, value_name = "ORDER")]
    pub unfold_order: Option<UnfoldOrderName>,
    /// Wall-clock bound of one execution, in seconds; exceeding it is a hang.
    #[arg(help_heading = LIMITS, long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Step bound of one execution (visible operations, recorded or not);
    /// exceeding it is a hang. Default: none (a long execution is a hang
    /// only past --timeout, or when it spins).
    #[arg(help_heading = LIMITS, long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: Option<u64>,
    /// Steps of one execution recorded for analysis. A longer execution
    /// runs to its end (its bugs are still caught), but only its first N
    /// steps are explored, and the search is then reported as bounded.
    #[arg(help_heading = LIMITS,
        long,
        value_name = "N",
        default_value_t = DEFAULT_RECORDED_STEPS,
        value_parser = clap::value_parser!(u64).range(1..=crate::exec::MAX_EVENTS)
    )]
    pub max_recorded_steps: u64,
    /// Let the process exit cut other threads short: explore every place of
    /// the exit among their steps (by default the exit, after the exit
    /// handlers and static destructors, waits until no other thread can run,
    /// so no thread is cut short and the exit's place is never explored).
    #[arg(help_heading = EXPLORE, long)]
    pub exit_cuts_threads: bool,
    /// Let atomic read-modify-writes whose result the program never uses
    /// commute when they are of one family (add/sub, or, and, xor, min,
    /// max) on the same bytes: N such increments are one behaviour, not N!
    /// orders. Sound for the program's states; uninstrumented code reading
    /// such a counter between two updates is not seen
    /// (docs/commuting-updates.md). Not with rt, unfold or branches.
    #[arg(help_heading = EXPLORE, long)]
    pub commute_rmws: bool,
    /// The memory model of the program's atomics: sc (every atomic
    /// sequentially consistent) or rc11 (C11's orderings: a relaxed or
    /// acquire load may read an older store, each choice explored). rc11
    /// applies to --strategy optimal, dpor (and its variants), exhaustive,
    /// random and pct; another strategy says so and runs sc. --jobs and
    /// --shard split it too.
    #[arg(help_heading = EXPLORE, long, value_enum, value_name = "MODEL", default_value = "sc")]
    pub memory_model: MemoryModelName,
    /// Without await semantics: a spin-loop iteration in which nothing
    /// happened counts as a behaviour, and spin loops are cut by
    /// --spin-threshold only (as for loops reach-cc could not see).
    #[arg(help_heading = EXPLORE, long)]
    pub no_await: bool,
    /// Unchanged re-reads after which a busy-waiting thread counts as blocked,
    /// for spin loops without await semantics (uninstrumented code, or
    /// --no-await); a loop that says it waits, with `pause`/`spin_loop` or a
    /// yield, is held back at its first re-read while another thread can run.
    #[arg(help_heading = EXPLORE, long, value_name = "N", default_value_t = 64)]
    pub spin_threshold: u32,
    /// Write a machine-readable report to FILE.
    #[arg(help_heading = REPORTS, long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Re-run exactly the interleaving recorded in FILE.
    #[arg(help_heading = REPORTS, long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// Where to write the schedule of a bug.
    #[arg(help_heading = REPORTS, long, value_name = "FILE", default_value = "reach-native.schedule")]
    pub schedule_out: PathBuf,
    /// Write the schedule file of one execution to FILE, whether or not it
    /// found a bug (the execution `--record-execution` names; with `--replay`,
    /// the replayed one), so that `--replay FILE` can re-run it.
    #[arg(help_heading = REPORTS, long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Which execution `--record` writes (1-based).
    #[arg(help_heading = REPORTS, long, value_name = "N", default_value_t = 1, requires = "record")]
    pub record_execution: u64,
    /// Print exploration statistics (executions, distinct partial orders, ...).
    #[arg(help_heading = REPORTS, long)]
    pub stats: bool,
    /// Keep a hash of every partial order exercised and report how many
    /// executions repeated one (checks reachability testing's exactly-once
    /// property; costs memory proportional to the number of orders).
    #[arg(help_heading = REPORTS, long)]
    pub audit: bool,
    /// Keep exploring after a bug and report every distinct bug.
    #[arg(help_heading = BUGS, long)]
    pub keep_going: bool,
    /// Do not report data races.
    #[arg(help_heading = BUGS, long)]
    pub ignore_races: bool,
    /// A plain memory access to memory no other thread has touched yet in
    /// the execution, or that threads have only read, is no scheduling
    /// point (the default; docs/executions.md). Not with --ignore-races,
    /// --keep-going, a lockset race detector and --strategy branches, which
    /// keep every access a step.
    #[arg(help_heading = EXPLORE, long, conflicts_with = "no_private_accesses")]
    pub private_accesses: bool,
    /// Every plain memory access of instrumented code is a scheduling
    /// point, also to memory only its thread has touched.
    #[arg(help_heading = EXPLORE, long)]
    pub no_private_accesses: bool,
    /// Which detector decides what a data race is: `hb` (happens-before,
    /// the default), `lockset` (Eraser's locking discipline: a location
    /// shared by threads and written by one must have a lock held at every
    /// access; also finds an unlock of a lock not held; the default of
    /// --strategy branches) or `both`. With --replay, default: the one the
    /// schedule file names.
    #[arg(help_heading = BUGS, long, value_enum, value_name = "DETECTOR")]
    pub race_detector: Option<RaceDetectorName>,
    /// Do not treat a non-zero exit code as a bug.
    #[arg(help_heading = BUGS, long)]
    pub ignore_exit_code: bool,
    /// Parallel workers for the DPOR strategies (default 0: one per core).
    /// Other strategies run with one.
    #[arg(help_heading = RUN, long, value_name = "N", default_value_t = 0)]
    pub jobs: usize,
    /// Run each execution by exec instead of the runtime's fork server.
    #[arg(help_heading = RUN, long)]
    pub no_fork_server: bool,
    /// Run many executions in one forked worker that restores its memory
    /// between them (falls back to one fork per execution, with a note,
    /// where memory cannot undo what the program did).
    #[arg(help_heading = RUN, long, conflicts_with = "no_persistent")]
    pub persistent: bool,
    /// One forked child per execution, never a persistent worker.
    #[arg(help_heading = RUN, long)]
    pub no_persistent: bool,
    /// Run the program's threads as user-level contexts on one kernel
    /// thread (the default): creating a thread and switching between
    /// threads cost no system call (falls back to kernel threads, with a
    /// note, where a thread needs one of its own).
    #[arg(help_heading = RUN, long, conflicts_with = "no_user_threads")]
    pub user_threads: bool,
    /// Run the program's threads as kernel threads.
    #[arg(help_heading = RUN, long)]
    pub no_user_threads: bool,
    /// Every execution sees the working directory as it was when the run
    /// started: the program runs in a private mount namespace with an
    /// overlay on it, put back after each execution (needs root or
    /// CAP_SYS_ADMIN).
    #[arg(help_heading = RUN, long)]
    pub isolate_files: bool,
    /// Like --isolate-files for DIR too (repeatable; implies --isolate-files).
    #[arg(help_heading = RUN, long, value_name = "DIR")]
    pub isolate: Vec<PathBuf>,
    /// Do not bind each worker, its fork server and its executions to one
    /// CPU (by default they share one, and parallel workers get different
    /// ones).
    #[arg(help_heading = RUN, long)]
    pub no_pin: bool,
    /// Seed of the randomised strategies (pct, random, portfolio); default:
    /// drawn from the clock (shown in the report). The default search's
    /// PCT share uses it too, 0 when not given.
    #[arg(help_heading = EXPLORE, long, value_name = "S")]
    pub seed: Option<u64>,
    /// The default search (no --strategy) only: run optimal DPOR alone,
    /// without the PCT executions it runs beside itself by default (for
    /// exactly reproducible execution counts and timings).
    #[arg(help_heading = EXPLORE, long)]
    pub no_random_share: bool,
    /// The default search (no --strategy) only: one PCT execution (depth 2
    /// and 3 in turn, counted apart) after every N systematic ones, in each
    /// worker [default: 4].
    #[arg(help_heading = EXPLORE, long, value_name = "N", conflicts_with = "no_random_share", value_parser = clap::value_parser!(u64).range(1..))]
    pub random_share_every: Option<u64>,
    /// Bug depth PCT targets (its change points are depth - 1).
    #[arg(help_heading = EXPLORE,
        long,
        value_name = "D",
        default_value_t = 3,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::strategy::pct::MAX_DEPTH))
    )]
    pub depth: u32,
    /// With dpor or exhaustive: explore schedules with at most 0
    /// preemptions, then 1, 2, ... up to K (a preemption switches away from
    /// a thread that is still enabled).
    #[arg(help_heading = EXPLORE, long, value_name = "K")]
    pub preemption_bound: Option<u32>,
    /// Explore only shard I of N of the search (optimal, dpor, exhaustive, rt), for
    /// N copies of this command (a CI matrix, a Kubernetes Indexed Job, a
    /// Slurm array); `auto/N` takes I from JOB_COMPLETION_INDEX or
    /// SLURM_ARRAY_TASK_ID. Combine the shards' --json reports with
    /// `reach-native merge`.
    #[arg(help_heading = SHARDS, long, value_name = "I/N")]
    pub shard: Option<String>,
    /// With --shard: frontier subtrees per shard that the shared part
    /// (run by every shard) aims for, by estimated size. More: better
    /// balance, a longer shared part and (optimal, dpor) more forced choices.
    /// Default: 4 for optimal and dpor, 8 for exhaustive and rt. Every shard of one search needs the same value.
    #[arg(help_heading = SHARDS, long, value_name = "K", requires = "shard", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub shard_split: Option<u32>,
    /// Report a bug's schedule as found, without shortening it.
    #[arg(help_heading = REPORTS, long)]
    pub no_shorten: bool,
    /// Print nothing but the result.
    #[arg(help_heading = REPORTS, long, short)]
    pub quiet: bool,
    // Report files (see `report::html`, `report::junit`).
    /// Write a self-contained HTML page with a space-time diagram of the
    /// bug's execution (or, with --replay, of the replayed one) to FILE.
    #[arg(help_heading = REPORTS, long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write a JUnit XML report (one test case for this run) to FILE.
    #[arg(help_heading = REPORTS, long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// The program to test (built with reach-cc for full coverage).
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Arguments passed to the program.
    #[arg(
        value_name = "ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<OsString>,
}

impl Cli {
    /// The order in which `--strategy unfold` takes its targets
    /// (`--unfold-order`, oldest by default).
    pub fn target_order(&self) -> crate::strategy::unfold::Order {
        self.unfold_order
            .map_or(crate::strategy::unfold::Order::Oldest, Into::into)
    }

    /// Fills in [`Cli::strategy`]: the one chosen with `--strategy`, else
    /// optimal DPOR, or DPOR where optimal does not apply: a preemption
    /// bound, or concolic testing (`concolic`: inputs made symbolic, or a
    /// program that records its branches).
    pub fn resolve_strategy(&mut self, concolic: bool) {
        let needs_dpor = self.preemption_bound.is_some() || concolic;
        self.strategy = match self.strategy_choice {
            Some(chosen) => chosen,
            None if needs_dpor => StrategyName::Dpor,
            None => StrategyName::Optimal,
        };
    }
}

/// `reach-native merge`: combines the `--json` reports of the shards of one
/// search (`--shard I/N`) into the result of one run: bugs (one per kind and
/// location), executions, partial orders and completion. Exit status as for
/// one run: 0 complete without a bug, 1 bug, 2 error (a missing, duplicate
/// or mismatched shard), 3 some shard stopped early without a bug.
#[derive(Parser, Debug)]
#[command(name = "reach-native merge", version)]
pub struct MergeCli {
    /// Write the merged report (same layout as --json) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// The shards' reports (one per index 0..N).
    #[arg(value_name = "REPORT", required = true)]
    pub reports: Vec<PathBuf>,
}
