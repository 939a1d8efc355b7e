//! What a run prints and writes: the bug's report, the summary and
//! statistics, the schedule file, and the `--record`, `--json`, `--html`
//! and `--junit` files.

use super::checks::parse_shard;
use super::registry::strategy_word;
use super::setup::{awaits_off, race_detector, StartSetting};
use super::Status;
use crate::binary::Binary;
use crate::bug::RaceDetector;
use crate::cli::Cli;
use crate::explore::{StopReason, Summary};
use crate::record::Recorder;
use crate::report;
use anyhow::{Context, Result};

/// The program's arguments as text.
fn args(cli: &Cli) -> Vec<String> {
    cli.args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Writes the `--record` file, if asked for and the execution ran;
/// `max_steps` is the step bound it ran under.
pub fn write_recorded(
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
            file.no_await = awaits_off(cli);
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
pub fn finish(
    cli: &Cli,
    binary: &Binary,
    summary: &Summary,
    replayed: Option<&crate::trace::Trace>,
    setting: &StartSetting,
) -> Result<Status> {
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
            if let Some(share) = summary.random_share.as_ref().filter(|_| finding.by_share) {
                file.strategy = Some("pct".to_string());
                file.seed = Some(share.seed);
            }
            file.no_await = awaits_off(cli);
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
        let share = match summary.random_share.as_ref().map_or(0, |s| s.executions) {
            0 => String::new(),
            n => format!(" and {n} of the PCT share"),
        };
        println!(
            "\n{}{seed}: {} executions{blocked}{share}, {explored} ({:.2} s)",
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
        if !summary.reads_from_graphs.is_empty() {
            println!(
                "  reads-from graphs:     {}",
                summary.reads_from_graphs.len()
            );
        }
        println!("  sleep-set blocked:     {}", summary.sleep_blocked);
        println!("  blocked at an await:   {}", summary.await_blocked);
        println!("  internal errors:       {}", summary.internal_errors);
        println!("  hidden dependencies:   {}", summary.hidden_dependencies);
        println!("  dropped spin steps:    {}", summary.respin_dropped);
        println!("  steps executed:        {}", summary.total_steps);
        println!(
            "  time:                  {:.3} s",
            summary.elapsed.as_secs_f64()
        );
        for (name, value) in &summary.strategy_stats {
            println!("  {:<22} {value}", format!("{name}:"));
        }
        if let Some(share) = &summary.random_share {
            println!("  PCT share:             {}", share.describe());
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
            .and_then(|p| crate::shard::program_hash(p).ok());
        report.search = Some(search_options(cli));
        report.shard = parse_shard(cli)
            .and_then(Result::ok)
            .map(|spec| crate::shard::ShardInfo {
                ran: Some(summary.executions + summary.uncounted),
                ..spec.into()
            });
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    write_report_files(cli, &program, summary, &names, replayed, replay_command)?;
    Ok(match &summary.stop {
        _ if !summary.findings.is_empty() => Status::Bug,
        StopReason::Complete => Status::Clean,
        StopReason::Error(m) => {
            eprintln!("reach-native: error: {m}");
            Status::Error
        }
        _ => Status::Limit,
    })
}

/// The options that decide what the search explores, for the report.
fn search_options(cli: &Cli) -> crate::shard::SearchOptions {
    crate::shard::SearchOptions {
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
    Some(crate::replay::shell_words(&words))
}

/// Writes the `--html` and `--junit` files, if asked for.
fn write_report_files(
    cli: &Cli,
    program: &str,
    summary: &Summary,
    names: &report::names::Names,
    replayed: Option<&crate::trace::Trace>,
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
