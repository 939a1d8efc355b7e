//! A search session: what one `reach-native PROGRAM` run does, built from
//! the options. It owns the choice of strategy ([`registry`]), of how the
//! executions run ([`setup`]), and of the reports ([`output`]); the CLI
//! only parses arguments and turns the [`Outcome`] into an exit status.

pub mod bounds;
pub mod checks;
pub mod output;
pub mod registry;
pub mod search;
pub mod setup;

use crate::binary::Binary;
use crate::bug::BugPolicy;
use crate::cli::Cli;
use crate::exec::{ExecConfig, Executor};
use crate::explore::Summary;
use crate::record::Recorder;
use crate::schedule::ScheduleFile;
use crate::shard::ShardSpec;
use anyhow::{Context, Result};
use setup::StartSetting;

/// Exit status: search complete, no bug.
pub const EXIT_CLEAN: u8 = 0;
/// Exit status: a bug was found.
pub const EXIT_BUG: u8 = 1;
/// Exit status: usage or input error.
pub const EXIT_ERROR: u8 = 2;
/// Exit status: stopped by a limit with no bug found.
pub const EXIT_LIMIT: u8 = 3;

/// How a run ended, worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// No bug, and the search was complete.
    Clean,
    /// Stopped by a limit (or bounded) with no bug found.
    Limit,
    /// A bug was found.
    Bug,
    /// The search stopped on an error.
    Error,
}

impl Status {
    /// The process exit status of a run that ended so.
    pub fn code(self) -> u8 {
        match self {
            Status::Clean => EXIT_CLEAN,
            Status::Bug => EXIT_BUG,
            Status::Error => EXIT_ERROR,
            Status::Limit => EXIT_LIMIT,
        }
    }
}

/// What a session found, once its reports are written.
#[derive(Debug)]
pub struct Outcome {
    /// The search's (or the replay's) summary.
    pub summary: Summary,
    /// How it ended.
    pub status: Status,
}

/// One run of `reach-native` on a program: the options (with the strategy
/// resolved), the program, and the executor that runs it.
pub struct Session {
    cli: Cli,
    binary: Binary,
    schedule: Option<ScheduleFile>,
    shard: Option<ShardSpec>,
    executor: Executor,
    worker_config: ExecConfig,
    setting: StartSetting,
    policy: BugPolicy,
    placement: Vec<usize>,
    concolic: bool,
}

impl Session {
    /// Checks `cli`, inspects the program, reads the schedule to replay (if
    /// any) and prepares the program for testing.
    pub fn open(cli: &Cli) -> Result<Session> {
        setup::warn_unknown_env(cli.quiet);
        let program = crate::exec::locate_program(&cli.program)?;
        let binary = Binary::inspect(&program)?;
        let mut cli = cli.clone();
        let branches = binary.sites.values().any(|s| s.what == "branch");
        cli.resolve_strategy(cli.symbolic_args || cli.symbolic_stdin > 0 || branches);
        let shard = checks::shard_spec(&cli)?;
        let schedule = cli.replay.as_deref().map(ScheduleFile::read).transpose()?;
        if let (Some(file), Some(path)) = (&schedule, &cli.replay) {
            setup::check_schedule_program(path, &file.program, &cli.program)?;
        }
        let branch_directed =
            cli.strategy == crate::cli::StrategyName::Branches && schedule.is_none();
        // Concolic testing when the program records branches on inputs.
        let concolic =
            !branch_directed && (cli.symbolic_args || cli.symbolic_stdin > 0 || branches);
        checks::check(&cli, &binary, shard.is_some(), branch_directed, concolic)?;
        let mut config = setup::exec_config(&cli, program, schedule.as_ref(), branch_directed)?;
        if concolic && schedule.is_none() {
            // Concolic testing keeps every access a step: its input vectors
            // and combined tree are not yet checked with private accesses.
            config.private_accesses = false;
        }
        let worker_config = config.clone();
        let placement = if cli.no_pin {
            Vec::new()
        } else {
            crate::affinity::placement()
        };
        crate::affinity::bind_current_thread(&placement, 0);
        let asked_layout = config.env_layout;
        let executor = Executor::new(config).context("cannot prepare the program for testing")?;
        let env_layout = executor.config().env_layout;
        if schedule.is_some() && env_layout != asked_layout {
            eprintln!(
                "reach-native: warning: the arguments and environment take more room than when the schedule was recorded ({} bytes in {} strings, now {} in {}): stack addresses may differ; replay with a smaller environment (env -u NAME ...)",
                asked_layout.bytes, asked_layout.entries, env_layout.bytes, env_layout.entries
            );
        }
        let policy = BugPolicy {
            data_races: !cli.ignore_races,
            exit_code_is_bug: !cli.ignore_exit_code,
            race_detector: setup::race_detector(&cli, schedule.as_ref())?,
        };
        Ok(Session {
            setting: StartSetting::of(executor.config()),
            cli,
            binary,
            schedule,
            shard,
            executor,
            worker_config,
            policy,
            placement,
            concolic,
        })
    }

    /// The options, with the strategy resolved.
    pub fn cli(&self) -> &Cli {
        &self.cli
    }

    /// Whether the session replays a schedule file.
    pub fn replays(&self) -> bool {
        self.schedule.is_some()
    }

    /// Replays the schedule file (the session must have one), and writes
    /// what the options ask for.
    pub fn replay(mut self) -> Result<Outcome> {
        let schedule = self.schedule.take().context("no schedule file to replay")?;
        let recorder = self.cli.record.as_ref().map(|_| Recorder::new(1));
        let (summary, replayed) = crate::replay::replay(
            &mut self.executor,
            &schedule,
            self.policy,
            recorder.as_ref(),
        );
        let max_steps = self.executor.config().max_steps;
        output::write_recorded(&self.cli, max_steps, &self.setting, recorder.as_ref(), None)?;
        let status = output::finish(
            &self.cli,
            &self.binary,
            &summary,
            replayed.as_ref(),
            &self.setting,
        )?;
        Ok(Outcome { summary, status })
    }

    /// Explores the program, shortens the first bug's schedule, and writes
    /// what the options ask for.
    pub fn explore(self) -> Result<Outcome> {
        search::explore(self)
    }

    /// Replays the schedule file if there is one, else explores.
    pub fn run(self) -> Result<Outcome> {
        if self.replays() {
            self.replay()
        } else {
            self.explore()
        }
    }
}
