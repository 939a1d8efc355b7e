//! Real third-party C code under reach-native: SQLite, zstd and liblzma (sources from
//! the crates pinned in `tests/corpus/Cargo.toml`, built once with the
//! wrappers, see `reach_tests::corpus`) driven by the threaded programs in
//! `tests/corpus/programs/`. Each program is correct, so each time-bounded
//! exploration must end without a bug (exit 3: stopped by `--max-time`, or 0:
//! complete), stop on time, write its JSON report, run the expected number
//! of visible steps per execution, and replay one of its executions exactly.
//!
//! Data races: every program runs with races reported (no `--ignore-races`):
//! SQLite in serialized mode guards its shared state (statistics included)
//! with its mutexes, and zstd's pool and multithreaded compressor hand every
//! job over under a mutex, so a race report would be a bug of the tool's
//! synchronisation model, with one exception SQLite documents: in WAL mode
//! a reader copies the wal-index header's two copies without a lock while a
//! writer may be writing them, and compares them to detect the torn read
//! (`tag-20200519-1` in sqlite3.c). That race is real under happens-before;
//! the default search's PCT share reaches it within the time limit, so
//! `sqlite_wal` may report it, and only it.

use reach_tests::{bin, corpus, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// `--max-time` of each exploration, in seconds.
const MAX_TIME: f64 = 6.0;

/// Step bound of one execution (a hang bound): the programs run a few
/// hundred thousand visible operations, well below it and below the default
/// recording bound, so every step is explored.
const MAX_STEPS: &str = "2000000";

/// One corpus program and what a run of it must show.
struct Case {
    /// File stem in `tests/corpus/programs/`.
    name: &'static str,
    /// Program arguments (empty: the program's defaults).
    args: &'static [&'static str],
    /// Visible steps per execution, averaged over the exploration: at least
    /// half and at most twice what the first execution runs today.
    steps: (u64, u64),
    /// A data race the library documents as intended, by the functions of
    /// its two accesses: the one bug the exploration may report.
    intended_race: Option<(&'static str, &'static str)>,
    /// Options of every run besides the test's own.
    options: &'static [&'static str],
}

/// The result of one `reach-native` command.
struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
    json: Value,
    wall: Duration,
}

fn reach_native(program: &Path, options: &[&str], args: &[&str], tag: &str) -> Outcome {
    let name = program
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("prog");
    let json_path = scratch().join(format!("corpus-{name}-{tag}-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&json_path);
    let start = Instant::now();
    let output = Command::new(bin("reach-native"))
        .args(["--jobs", "1", "--max-steps", MAX_STEPS, "--json"])
        .arg(&json_path)
        .args(options)
        .arg(program)
        .args(args)
        .output()
        .expect("run reach-native");
    let wall = start.elapsed();
    let text = std::fs::read_to_string(&json_path).unwrap_or_default();
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        json,
        wall,
    }
}

/// A `NAME: N` line of the `--stats` output.
fn stat(stdout: &str, name: &str) -> Option<u64> {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix(name))
        .and_then(|rest| rest.trim_start_matches(':').trim().parse().ok())
}

fn no_bug(case: &Case, what: &str, run: &Outcome) {
    if let (Some((first, second)), 1) = (case.intended_race, run.code) {
        let bug = &run.json["bug"];
        let places: Vec<&str> = bug["race"]["accesses"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x["location"].as_str()).collect())
            .unwrap_or_default();
        let at = |f: &str| places.iter().any(|p| p.contains(&format!("({f})")));
        if bug["kind"] == "data_race" && places.len() == 2 && at(first) && at(second) {
            eprintln!(
                "{} ({what}): the intended race between {first} and {second}",
                case.name
            );
            return;
        }
    }
    assert!(
        matches!(run.code, 0 | 3),
        "{} ({what}): exit status {} (0 or 3 expected: no bug)\n{}\n{}",
        case.name,
        run.code,
        run.stdout,
        run.stderr
    );
    assert!(
        run.json.is_object(),
        "{} ({what}): no JSON report\n{}",
        case.name,
        run.stderr
    );
    assert!(
        run.json["bug"].is_null(),
        "{} ({what}): unexpected bug\n{}",
        case.name,
        run.stdout
    );
}

fn read_schedule(path: &PathBuf) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("recorded schedule {}: {e}", path.display()));
    serde_json::from_str(&text).expect("schedule file is JSON")
}

fn check(case: Case) {
    let program = corpus::build_program(case.name)
        .unwrap_or_else(|e| panic!("building corpus program {}: {e}", case.name));

    // The fixed cost of a run: starting the program up to `main` (the fork
    // server), one execution, and writing the report. `--max-time` bounds
    // the exploration, not this, so it is allowed on top of the 10%.
    let one = reach_native(
        &program,
        &[&["--max-executions", "1"][..], case.options].concat(),
        case.args,
        "one",
    );
    no_bug(&case, "one execution", &one);
    let start_up = one.wall;

    let recorded = scratch().join(format!(
        "corpus-{}-{}.schedule",
        case.name,
        std::process::id()
    ));
    let replayed = recorded.with_extension("replayed");
    let _ = std::fs::remove_file(&recorded);
    let _ = std::fs::remove_file(&replayed);
    let max_time = MAX_TIME.to_string();
    let run = reach_native(
        &program,
        &[
            "--max-time",
            &max_time,
            "--stats",
            "--record",
            recorded.to_str().expect("utf-8 path"),
            "--record-execution",
            "2",
        ]
        .iter()
        .chain(case.options)
        .copied()
        .collect::<Vec<_>>(),
        case.args,
        "explore",
    );
    no_bug(&case, "exploration", &run);
    // The stop is checked between steps; on a busy machine the last
    // execution and the reports take a moment more.
    let slack = (MAX_TIME * 0.1).max(2.0);
    let limit = Duration::from_secs_f64(MAX_TIME + slack) + start_up;
    assert!(
        run.wall <= limit,
        "{}: --max-time {MAX_TIME} took {:.1} s (limit: {slack} s more, plus the {:.1} s of a one-execution run)",
        case.name,
        run.wall.as_secs_f64(),
        start_up.as_secs_f64()
    );
    let executions = run.json["executions"].as_u64().unwrap_or(0);
    assert_eq!(stat(&run.stdout, "executions"), Some(executions));
    assert!(executions >= 2, "{}: {executions} executions", case.name);
    let steps = stat(&run.stdout, "steps executed").expect("--stats prints the steps");
    let per_execution = steps / executions;
    assert!(
        (case.steps.0..=case.steps.1).contains(&per_execution),
        "{}: {per_execution} steps per execution, expected {:?}",
        case.name,
        case.steps
    );
    eprintln!(
        "{}: {executions} executions, {per_execution} steps each, {:.1} s (start-up {:.1} s)",
        case.name,
        run.wall.as_secs_f64(),
        start_up.as_secs_f64()
    );

    // Replay the recorded (second, bug-free) execution and record the replay:
    // the same schedule and the same operations on the same objects, step
    // for step, to the end.
    let replay = reach_native(
        &program,
        &[
            "--replay",
            recorded.to_str().expect("utf-8 path"),
            "--record",
            replayed.to_str().expect("utf-8 path"),
        ],
        case.args,
        "replay",
    );
    no_bug(&case, "replay", &replay);
    assert_eq!(replay.code, 0, "{}: replay\n{}", case.name, replay.stdout);
    let (first, again) = (read_schedule(&recorded), read_schedule(&replayed));
    let steps = first["recorded_steps"].as_u64().unwrap_or(0);
    assert!(steps > 0, "{}: empty recorded execution", case.name);
    for field in ["schedule", "check", "recorded_steps", "total_steps"] {
        assert!(
            first[field] == again[field],
            "{}: the replay did not repeat the recorded execution's {steps} steps ({field} differs)",
            case.name
        );
    }
}

#[test]
fn sqlite_shared_connection_serialized() {
    check(Case {
        name: "sqlite_shared",
        args: &[],
        // About 110,000 with every access a step (--no-private-accesses).
        steps: (18_000, 75_000),
        intended_race: None,
        options: &[],
    });
}

#[test]
fn sqlite_wal_two_connections() {
    check(Case {
        name: "sqlite_wal",
        args: &[],
        // About 130,000 with every access a step.
        steps: (1_900, 7_800),
        intended_race: Some(("walIndexWriteHdr", "walIndexTryHdr")),
        options: &[],
    });
}

#[test]
fn zstd_multithreaded_compression() {
    check(Case {
        name: "zstd_mt",
        args: &[],
        // About 250,000 with every access a step.
        steps: (25_000, 100_000),
        intended_race: None,
        options: &[],
    });
}

#[test]
fn zstd_thread_pool() {
    check(Case {
        name: "zstd_pool",
        args: &[],
        // About 160,000 with every access a step.
        steps: (1_000, 4_300),
        intended_race: None,
        options: &[],
    });
}

#[test]
fn xz_multithreaded_encoder() {
    check(Case {
        name: "xz_mt",
        args: &[],
        // 748,000 with every access a step (about 20 s per execution on a
        // loaded machine); the workers' own encoder state is no step.
        steps: (1_100, 4_700),
        intended_race: None,
        options: &[],
    });
}
