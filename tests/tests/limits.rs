//! Limits hold whatever the program or the analysis does: `--max-time`,
//! SIGTERM and Ctrl-C stop the exploration within a second, kill a running
//! execution, and the report is still written.

use reach_tests::{bin, build_example, reach, scratch};
use std::process::Command;
use std::time::{Duration, Instant};

/// Start-up allowance on top of a time limit: building the channel and
/// starting the fork server before the first execution, on a machine
/// busy with other tests (what these tests catch is a run that goes on for
/// minutes past its limit).
const START_UP: Duration = Duration::from_millis(2500);

/// Runs `reach-native` and returns the run with its wall time.
fn timed(
    program: &std::path::Path,
    options: &[&str],
    args: &[&str],
) -> (reach_tests::Run, Duration) {
    let start = Instant::now();
    let run = reach(program, options, args);
    (run, start.elapsed())
}

/// A poller with long runs of reads since the last write of the flag it
/// polls: the analysis of each execution must stay linear in its length,
/// so `--max-time` holds (it used to run for minutes past it).
#[test]
fn max_time_holds_on_long_runs_of_reads() {
    let program = build_example("long_read_runs.c");
    for jobs in ["1", "2"] {
        let limit = 3.0;
        let (run, wall) = timed(&program, &["--max-time", "3", "--jobs", jobs], &["60000"]);
        assert_eq!(run.code, 3, "--jobs {jobs}: {}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "--jobs {jobs}: {}", run.stdout);
        assert_eq!(run.json["stop_reason"], "time limit");
        assert!(
            run.executions() >= 2,
            "--jobs {jobs}: {} executions",
            run.executions()
        );
        let allowed = Duration::from_secs_f64(limit * 1.1) + START_UP;
        assert!(
            wall < allowed,
            "--jobs {jobs}: {wall:?} for --max-time {limit}"
        );
    }
}

/// Reachability testing on the same program: its race table has a column
/// per read, so the table is built without recursion and in time linear
/// in its heading per row (it used to overflow the stack at 100,000 reads
/// and to run for minutes past the limit at 10,000), and each row looks at
/// the limit.
#[test]
fn max_time_holds_for_reachability_testing_on_long_runs_of_reads() {
    let program = build_example("long_read_runs.c");
    for polls in ["10000", "100000"] {
        let limit = 3.0;
        let (run, wall) = timed(&program, &["--strategy", "rt", "--max-time", "3"], &[polls]);
        assert_eq!(run.code, 3, "{polls}: {}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "{polls}: {}", run.stdout);
        assert_eq!(run.json["stop_reason"], "time limit");
        assert!(run.executions() >= 1, "{polls}: {}", run.stdout);
        let allowed = Duration::from_secs_f64(limit * 1.1) + START_UP;
        assert!(wall < allowed, "{polls}: {wall:?} for --max-time {limit}");
    }
}

/// Unfolding-based testing of bulk memory calls (each an access of
/// thousands of granules, with a copy per thread): the searches of the
/// unfolding stay linear in an access's size and look at the limit (they
/// used to run for minutes past it).
#[test]
fn max_time_holds_for_unfold_on_bulk_accesses() {
    let program = build_example("bulk_buffers.c");
    let limit = 3.0;
    let (run, wall) = timed(
        &program,
        &["--strategy", "unfold", "--max-time", "3"],
        &["256", "40"],
    );
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["stop_reason"], "time limit");
    assert!(run.json["bug"].is_null(), "{}", run.stdout);
    let allowed = Duration::from_secs_f64(limit * 1.1) + START_UP;
    assert!(wall < allowed, "{wall:?} for --max-time {limit}");
}

/// An execution still running when the time limit passes is killed: the
/// limit does not wait for the per-execution timeout.
#[test]
fn max_time_stops_a_running_execution() {
    let program = build_example("runs_forever.c");
    let (run, wall) = timed(&program, &["--timeout", "100", "--max-time", "2"], &[]);
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["stop_reason"], "time limit");
    assert!(run.json["bug"].is_null(), "{}", run.stdout);
    assert!(wall < Duration::from_secs_f64(2.2) + START_UP, "{wall:?}");
}

/// SIGTERM (and SIGINT, Ctrl-C) in the middle of an execution: the driver
/// kills it, writes its report and exits within a second, leaving no
/// process of the program behind.
#[test]
fn a_signal_stops_the_exploration_within_a_second() {
    let program = build_example("runs_forever.c");
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let json = scratch().join(format!("signal-{signal}-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&json);
        let mut child = Command::new(bin("reach-native"))
            .args(["--quiet", "--jobs", "1", "--timeout", "100", "--json"])
            .arg(&json)
            .arg(&program)
            .spawn()
            .expect("start reach-native");
        std::thread::sleep(Duration::from_millis(1500));
        let sent = Instant::now();
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = child.wait().expect("wait for reach-native");
        let took = sent.elapsed();
        assert!(
            took < Duration::from_secs(1),
            "signal {signal}: exited after {took:?}"
        );
        assert_eq!(status.code(), Some(3), "signal {signal}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("report written"))
                .expect("report is JSON");
        assert_eq!(report["stop_reason"], "interrupted");
        let left = Command::new("pgrep")
            .arg("-f")
            .arg(&program)
            .output()
            .expect("run pgrep");
        assert!(
            left.stdout.is_empty(),
            "processes of the program left behind: {}",
            String::from_utf8_lossy(&left.stdout)
        );
    }
}

/// A bug found before a signal or the time limit stops the run is not lost:
/// SIGTERM or SIGINT while its schedule is being shortened (and
/// `--max-time` ending there) still writes the report, the JSON with the
/// bug and the schedule file, which replays the bug.
#[test]
fn a_bug_found_before_a_stop_is_written() {
    let program = build_example("shorten_long.c");
    for stop in ["SIGTERM", "SIGINT", "--max-time"] {
        let tag = format!("stop-{stop}-{}", std::process::id());
        let json = scratch().join(format!("{tag}.json"));
        let schedule = scratch().join(format!("{tag}.schedule"));
        let _ = std::fs::remove_file(&json);
        let _ = std::fs::remove_file(&schedule);
        let mut command = Command::new(bin("reach-native"));
        command
            .args(["--jobs", "1", "--json"])
            .arg(&json)
            .arg("--schedule-out")
            .arg(&schedule);
        if stop == "--max-time" {
            command.args(["--max-time", "1"]);
        }
        let child = command
            .arg(&program)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start reach-native");
        if stop != "--max-time" {
            // The bug is found in the first execution; shortening its
            // 60,000 steps takes seconds.
            std::thread::sleep(Duration::from_millis(1200));
            let signal = if stop == "SIGTERM" {
                libc::SIGTERM
            } else {
                libc::SIGINT
            };
            // SAFETY: signalling our own child process.
            unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        }
        let output = child.wait_with_output().expect("wait for reach-native");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{stop}: {stdout}");
        assert!(
            stdout.contains("BUG: assertion failure"),
            "{stop}: {stdout}"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("report written"))
                .expect("report is JSON");
        assert_eq!(report["bug"]["kind"], "assertion", "{stop}");
        let schedule = schedule.to_string_lossy().into_owned();
        let replay = reach(&program, &["--replay", schedule.as_str()], &[]);
        assert_eq!(
            replay.bug_kind().as_deref(),
            Some("assertion"),
            "{stop}: {}",
            replay.stdout
        );
    }
}

/// The time limit also holds while the program starts: static constructors
/// that run for minutes (no scheduling point in them) are killed at the
/// limit.
#[test]
fn max_time_holds_while_the_program_starts() {
    let source = scratch().join("slow_constructor.c");
    std::fs::write(
        &source,
        "__attribute__((constructor)) static void slow(void) {\n\
         \x20   for (unsigned long i = 0; i < 100000000000UL; i++) __asm__ volatile(\"\" : \"+r\"(i));\n\
         }\n\
         int main(void) { return 0; }\n",
    )
    .expect("write the source");
    let program = scratch().join("slow_constructor");
    let built = Command::new(bin("reach-cc"))
        .args(["-O1"])
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .status()
        .expect("run reach-cc");
    assert!(built.success());
    let (run, wall) = timed(&program, &["--max-time", "2"], &[]);
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["stop_reason"], "time limit");
    assert!(wall < Duration::from_secs_f64(2.2) + START_UP, "{wall:?}");
}

/// Shortening a bug found at the end of a 60,000-step execution: its
/// candidates are built one at a time (all of them at once took 700 MB on
/// this program), and it gives up after
/// 100 re-runs that shorten nothing instead of spending its whole budget.
#[test]
fn shortening_a_long_schedule_is_bounded_in_memory_and_gives_up_early() {
    let program = build_example("shorten_long.c");
    let run = reach(&program, &["--stats"], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("assertion"));
    let shortened = &run.json["shortened"];
    let steps = shortened["original_steps"].as_u64().unwrap_or(0);
    assert!(steps > 30_000, "{shortened}");
    let switches = shortened["switches"].as_u64().unwrap_or(u64::MAX);
    assert!(switches < 3, "{shortened}");
    let reruns = shortened["executions"].as_u64().unwrap_or(u64::MAX);
    assert!(reruns < 200, "{reruns} re-runs: {shortened}");
    // `peak RSS: driver N KiB, program M KiB`.
    let driver_kib: u64 = run
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("peak RSS:"))
        .and_then(|l| l.trim().strip_prefix("driver "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    assert!(driver_kib < 200 * 1024, "driver peak {driver_kib} KiB");
}
