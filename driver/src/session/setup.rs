//! How the program is started: the execution configuration built from the
//! options and, when replaying, from what the schedule file recorded.

use crate::bug::RaceDetector;
use crate::cli::{Cli, StrategyName};
use crate::exec::{EnvLayout, ExecConfig, Isolation};
use crate::schedule::ScheduleFile;
use anyhow::{bail, Context, Result};
use reach_channel::memory_model::MemoryModel;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The runtime library to preload: `REACH_RUNTIME`, else the one beside
/// the `reach-native` executable (a build's `target/release/`), else the
/// one in `../lib` from it (an install's `PREFIX/bin`, `PREFIX/lib`).
pub fn runtime_library() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(reach_channel::env::RUNTIME) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().context("cannot locate the reach-native executable")?;
    let dir = exe
        .parent()
        .context("reach-native executable has no parent directory")?;
    let candidates = [
        dir.join(RUNTIME_FILE),
        dir.join("../lib").join(RUNTIME_FILE),
    ];
    match candidates.iter().find(|p| p.exists()) {
        Some(path) => Ok(path.clone()),
        None => bail!(
            "runtime library {RUNTIME_FILE} not found in {} or {}; build the workspace, install the tools together (make install), or set {}",
            dir.display(),
            dir.join("../lib").display(),
            reach_channel::env::RUNTIME
        ),
    }
}

/// The runtime library's file name.
const RUNTIME_FILE: &str = "libreach_runtime.so";

/// Warns of `REACH_*` variables that look like misspelt known ones.
pub fn warn_unknown_env(quiet: bool) {
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

/// `value` seconds of option `flag`, which must be positive.
pub fn seconds(value: f64, flag: &str) -> Result<Duration> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .with_context(|| format!("{flag} must be a positive number of seconds"))
}

/// Refuses a schedule recorded for a program of another name: its steps
/// would not match this program's.
pub fn check_schedule_program(path: &Path, recorded: &str, program: &Path) -> Result<()> {
    let name = |p: &Path| p.file_name().map(|n| n.to_os_string());
    if !recorded.is_empty() && name(Path::new(recorded)) != name(program) {
        bail!(
            "{} was recorded for program {recorded}, not {}: replay it with that program, or find a new schedule for this one",
            path.display(),
            program.display()
        );
    }
    Ok(())
}

/// The step bounds of a run: `max_steps` bounds an execution (a replay
/// keeps the recorded one unless given another), `record_steps` are the
/// steps recorded (at least those the schedule file checks).
pub fn step_bounds(cli: &Cli, schedule: Option<&ScheduleFile>) -> (Option<u64>, u64) {
    let max_steps = cli.max_steps.or_else(|| schedule.and_then(|s| s.max_steps));
    let record_steps = schedule
        .map_or(0, |s| s.recorded_steps)
        .max(cli.max_recorded_steps)
        .min(max_steps.unwrap_or(u64::MAX))
        .min(crate::exec::MAX_EVENTS);
    (max_steps, record_steps)
}

/// The execution configuration of `program` for `cli`, with what
/// `schedule` recorded; `trace_shared` asks for the shared-data trace of
/// the branch-directed search.
pub fn exec_config(
    cli: &Cli,
    program: PathBuf,
    schedule: Option<&ScheduleFile>,
    trace_shared: bool,
) -> Result<ExecConfig> {
    let recorded = |has: fn(&ScheduleFile) -> bool| schedule.is_some_and(has);
    let (max_steps, record_steps) = step_bounds(cli, schedule);
    Ok(ExecConfig {
        program,
        args: cli.args.clone(),
        runtime: runtime_library()?,
        timeout: seconds(cli.timeout, "--timeout")?,
        max_steps,
        record_steps,
        spin_threshold: schedule
            .and_then(|s| s.spin_threshold)
            .unwrap_or(cli.spin_threshold),
        fork_server: !cli.no_fork_server,
        persistent: !cli.no_persistent,
        exit_cuts_threads: cli.exit_cuts_threads || recorded(|s| s.exit_cuts_threads),
        commute_rmws: cli.commute_rmws || recorded(|s| s.commute_rmws),
        memory_model: memory_model(cli, schedule),
        await_retries: recorded(|s| s.await_retries),
        awaits_off: awaits_off(cli) || recorded(|s| s.no_await),
        drop_held: super::registry::registration(cli.strategy).drops_held,
        // Exploration only: a replay runs its schedule whatever it does.
        drop_respin: schedule.is_none() && super::registry::registration(cli.strategy).drops_respin,
        user_threads: schedule.map_or(!cli.no_user_threads, |s| s.user_threads(cli.user_threads)),
        symbolic_args: cli.symbolic_args || recorded(|s| s.symbolic_args),
        symbolic_stdin: cli
            .symbolic_stdin
            .max(schedule.map_or(0, |s| s.symbolic_stdin)),
        trace_shared,
        private_accesses: private_accesses(cli, schedule, trace_shared),
        env_layout: schedule.and_then(|s| s.env_layout).unwrap_or_default(),
        isolate: isolation(cli, schedule)?,
    })
}

/// The memory model the run's executions use: a replay's recorded one;
/// else `--memory-model`, when the strategy explores reads-from choices
/// (otherwise sequential consistency, with a note).
pub fn memory_model(cli: &Cli, schedule: Option<&ScheduleFile>) -> MemoryModel {
    if let Some(file) = schedule {
        return file.memory_model();
    }
    let asked = cli.memory_model.model();
    if asked == MemoryModel::Sc {
        return asked;
    }
    if super::registry::registration(cli.strategy).reads_from {
        return asked;
    }
    if !cli.quiet {
        eprintln!(
            "reach-native: note: --strategy {} does not explore reads-from choices yet (--memory-model rc11 applies to {}): running --memory-model sc",
            super::registry::strategy_word(cli.strategy),
            super::registry::words_where(|r| r.reads_from)
        );
    }
    MemoryModel::Sc
}

/// Whether the run explores without await semantics: `--no-await`, or a
/// strategy that does not use them.
pub fn awaits_off(cli: &Cli) -> bool {
    cli.no_await || cli.strategy == StrategyName::Unfold
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

/// Whether a plain access to memory only its thread has touched is no
/// scheduling point ([`reach_channel::private`]): a replay as recorded;
/// else unless `--no-private-accesses`, when races stop the search at the
/// first one and the happens-before detector alone judges them (not
/// `--ignore-races`, `--keep-going`, a lockset detector; under either
/// memory model, as the detector follows RC11's release/acquire
/// synchronisation under `rc11`), and not for the branch-directed search
/// (`trace_shared`), which reads shared loads from the trace.
pub fn private_accesses(cli: &Cli, schedule: Option<&ScheduleFile>, trace_shared: bool) -> bool {
    if let Some(file) = schedule {
        return file.private_accesses;
    }
    !cli.no_private_accesses
        && !cli.ignore_races
        && !cli.keep_going
        && !trace_shared
        && cli.strategy != StrategyName::Branches
        && race_detector(cli, None).is_ok_and(|d| d == RaceDetector::Hb)
}

/// The data-race detector: `--race-detector`, else (replaying) the one
/// the schedule file names, else `lockset` for `--strategy branches` (the
/// races its search covers) and `hb` for the others.
pub fn race_detector(cli: &Cli, schedule: Option<&ScheduleFile>) -> Result<RaceDetector> {
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

/// A seed from the clock, for runs without `--seed`.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// What a schedule file records of how the program was started: the
/// environment's room, the isolated directories and the options that
/// change the trace.
#[derive(Clone, Debug)]
pub struct StartSetting {
    env_layout: EnvLayout,
    isolate_files: Option<Vec<String>>,
    spin_threshold: u32,
    exit_cuts_threads: bool,
    memory_model: MemoryModel,
}

impl StartSetting {
    /// The setting `config` starts the program with.
    pub fn of(config: &ExecConfig) -> StartSetting {
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
            memory_model: config.memory_model,
        }
    }

    /// Writes the setting into `file`.
    pub fn record(&self, file: &mut ScheduleFile) {
        file.env_layout = Some(self.env_layout).filter(|l| !l.is_default());
        file.isolate_files = self.isolate_files.clone();
        file.spin_threshold = Some(self.spin_threshold);
        file.exit_cuts_threads |= self.exit_cuts_threads;
        file.set_memory_model(self.memory_model);
    }
}
