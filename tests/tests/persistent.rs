//! Persistent executions and user-level threads against the fork server:
//! every program of the example table (`examples.rs`, read as text so that a
//! new row is covered at once) is explored with `--no-persistent` (one
//! forked child per execution, kernel threads) and with `--persistent`,
//! and again with `--user-threads` (persistent, threads as user-level
//! contexts); each pair of runs must report the same exit status, bug kind,
//! bug trace, number of executions and set of partial orders, and the
//! schedule file each mode records must replay in the other mode to the
//! same interleaving. A search longer than [`COMPARED_EXECUTIONS`] is
//! compared on its first executions. With user-level threads, examples
//! whose events name memory a thread owns ([`THREAD_MEMORY_ROWS`]) are
//! compared by the number of partial orders: the addresses differ.

use reach_tests::{build_example, reach, schedule_of, Run};
use std::path::Path;

/// One row of the example table.
struct Row {
    name: String,
    file: String,
    options: Vec<String>,
    args: Vec<String>,
    expect: String,
}

/// The quoted strings of `s`.
fn quoted(s: &str) -> Vec<String> {
    s.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Parses the rows `name: "file", [options], [args] => Expectation;` of
/// the `examples!` table.
fn table() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/examples.rs");
    let text = std::fs::read_to_string(&path).expect("read examples.rs");
    let start = text.find("examples! {").expect("the examples! table");
    let body = &text[start..];
    let end = body.find("\n}\n").expect("end of the table");
    let mut rows = Vec::new();
    for line in body[..end].lines().skip(1) {
        let line = line.trim();
        let Some((name, rest)) = line.split_once(": ") else {
            continue;
        };
        let Some((lhs, expect)) = rest.split_once("=>") else {
            continue;
        };
        let parts: Vec<&str> = lhs.split('[').collect();
        if parts.len() != 3 {
            continue;
        }
        rows.push(Row {
            name: name.to_string(),
            file: quoted(parts[0]).into_iter().next().unwrap_or_default(),
            options: quoted(parts[1]),
            args: quoted(parts[2]),
            expect: expect.trim().trim_end_matches(';').to_string(),
        });
    }
    rows
}

/// Executions after which the modes' runs of a long search stop: the
/// comparison is of what each mode makes of the same executions, and the
/// search (one worker) asks for the same first executions in every mode.
/// The complete count of such a row is checked in the default mode by the
/// example table's own test (`examples.rs`).
const COMPARED_EXECUTIONS: u64 = 1000;

/// The number of executions a row's search runs, if the table says it.
fn expected_executions(row: &Row) -> Option<u64> {
    ["Clean(", "Limited("].iter().find_map(|prefix| {
        row.expect
            .strip_prefix(prefix)
            .and_then(|n| n.trim_end_matches(')').parse().ok())
    })
}

/// True if the modes run only the first [`COMPARED_EXECUTIONS`] of the
/// row's search.
fn compared_in_part(row: &Row) -> bool {
    expected_executions(row).is_some_and(|n| n > COMPARED_EXECUTIONS)
}

fn run(program: &Path, mode: &[&str], row: &Row, extra: &[&str]) -> Run {
    let mut options: Vec<&str> = mode.to_vec();
    let limit = COMPARED_EXECUTIONS.to_string();
    let in_part = compared_in_part(row);
    let mut given = row.options.iter().map(String::as_str);
    while let Some(option) = given.next() {
        // A long search's own limit gives way to the comparison's.
        if in_part && option == "--max-executions" {
            given.next();
            continue;
        }
        options.push(option);
    }
    if in_part {
        options.extend(["--max-executions", limit.as_str(), "--jobs", "1"]);
    }
    // The modes are compared, not their speed: a long execution with kernel
    // threads on a machine busy with other tests must not time out.
    if !options.contains(&"--timeout") {
        options.extend(["--timeout", "60"]);
    }
    options.extend(extra);
    let args: Vec<&str> = row.args.iter().map(String::as_str).collect();
    reach(program, &options, &args)
}

/// Copies the schedule the last run on `program` wrote, under `tag`.
fn keep_schedule(program: &Path, tag: &str) -> Option<String> {
    let from = schedule_of(program);
    let to = from.with_extension(format!("{tag}.schedule"));
    std::fs::copy(&from, &to).ok()?;
    Some(to.to_string_lossy().into_owned())
}

/// The fork server with kernel threads, the mode others are compared with.
const FORK: &[&str] = &["--no-persistent", "--no-user-threads"];

/// Examples whose events name memory a thread owns (its stack, its TLS, the
/// malloc arena its allocations come from): user-level threads place it
/// elsewhere than kernel threads, so their partial orders are compared by
/// number, not by hashes (which include addresses).
const THREAD_MEMORY_ROWS: &[&str] = &[
    "cpp_call_once",
    "cpp_condvar",
    // The second std::thread's state block: under kernel threads the
    // first thread's exit gave its freed block back to the C library,
    // which hands it to main's next allocation; a user-level thread's
    // cache keeps it. The bug's trace names it (its other steps do not).
    "cpp_racy",
    "persist_pages",
    "thread_exit_heap",
    "thread_own_state",
];

/// The modes compared with the fork server, with their names in messages.
const MODES: &[(&[&str], &str)] = &[
    (&["--persistent", "--no-user-threads"], "persistent"),
    (&["--user-threads"], "user threads"),
];

/// Explores one row with the fork server once and with each of [`MODES`],
/// and compares each mode with the fork server; the differences found.
fn compare_modes(row: &Row) -> Vec<String> {
    let program = build_example(&row.file);
    let fork = run(&program, FORK, row, &[]);
    let fork_schedule = keep_schedule(&program, "fork");
    MODES
        .iter()
        .flat_map(|(mode, label)| compare(row, &program, (&fork, &fork_schedule), mode, label))
        .collect()
}

/// Compares the fork server's run of one row (its result and schedule)
/// with `mode` (named `label`); the differences found, if any.
fn compare(
    row: &Row,
    program: &Path,
    (fork, fork_schedule): (&Run, &Option<String>),
    mode: &[&str],
    label: &str,
) -> Vec<String> {
    let pers = run(program, mode, row, &[]);
    let pers_schedule = keep_schedule(program, label);
    let mut diffs = Vec::new();
    let mut same = |what: &str, a: String, b: String| {
        if a != b {
            diffs.push(format!(
                "{}: {what}: fork server {a}, {label} {b}",
                row.name
            ));
        }
    };
    same("exit status", fork.code.to_string(), pers.code.to_string());
    same(
        "bug kind",
        format!("{:?}", fork.bug_kind()),
        format!("{:?}", pers.bug_kind()),
    );
    same(
        "executions",
        fork.executions().to_string(),
        pers.executions().to_string(),
    );
    if mode.contains(&"--user-threads") && THREAD_MEMORY_ROWS.contains(&row.name.as_str()) {
        same(
            "partial orders",
            fork.partial_orders().to_string(),
            pers.partial_orders().to_string(),
        );
    } else {
        same(
            "partial orders",
            format!("{} {:?}", fork.partial_orders(), fork.fingerprints()),
            format!("{} {:?}", pers.partial_orders(), pers.fingerprints()),
        );
    }
    let thread_memory =
        mode.contains(&"--user-threads") && THREAD_MEMORY_ROWS.contains(&row.name.as_str());
    same(
        "bug trace",
        trace_text(&fork.json["bug"]["trace"], thread_memory),
        trace_text(&pers.json["bug"]["trace"], thread_memory),
    );
    // The table's expectation names the bug kind, if any.
    if let Some(kind) = row.expect.strip_prefix("Bug(") {
        let kind = kind.trim_end_matches(')').trim_matches('"');
        same(
            "expected bug kind",
            kind.to_string(),
            pers.bug_kind().unwrap_or_default(),
        );
        // Each mode's schedule replays in the other.
        for (schedule, mode, recorded) in
            [(fork_schedule, mode, fork), (&pers_schedule, FORK, &pers)]
        {
            let Some(schedule) = schedule else {
                diffs.push(format!("{}: no schedule file written", row.name));
                continue;
            };
            let replay = run(program, mode, row, &["--replay", schedule.as_str()]);
            if replay.json["bug"]["trace"] != recorded.json["bug"]["trace"]
                || replay.bug_kind() != recorded.bug_kind()
            {
                diffs.push(format!(
                    "{}: a schedule recorded without {mode:?} does not replay with it: {}",
                    row.name, replay.stdout
                ));
            }
        }
    } else if compared_in_part(row) {
        same(
            "executions compared",
            COMPARED_EXECUTIONS.to_string(),
            pers.executions().to_string(),
        );
    } else if let Some(n) = row.expect.strip_prefix("Clean(") {
        // The table counts executions not blocked at an await.
        same(
            "expected executions",
            n.trim_end_matches(')').to_string(),
            pers.complete_executions().to_string(),
        );
    } else if let Some(n) = row.expect.strip_prefix("Limited(") {
        // A limit counts every execution, blocked ones too.
        same(
            "expected executions",
            n.trim_end_matches(')').to_string(),
            pers.executions().to_string(),
        );
    }
    diffs
}

/// A bug's trace as text; without the addresses of the memory its steps
/// name if `thread_memory` (they differ between thread modes).
fn trace_text(trace: &serde_json::Value, thread_memory: bool) -> String {
    let mut trace = trace.clone();
    if thread_memory {
        for step in trace.as_array_mut().into_iter().flatten() {
            if let Some(step) = step.as_object_mut() {
                step.remove("object");
            }
        }
    }
    trace.to_string()
}

/// Every row, compared by one of a few threads (the runs mostly wait on the
/// programs they explore); the differences found, in the table's order.
/// The rows of one program run one after another on one thread: their runs
/// write the same schedule file.
fn compare_every_row(rows: &[Row]) -> Vec<String> {
    let mut programs: Vec<&str> = rows.iter().map(|r| r.file.as_str()).collect();
    programs.dedup();
    programs.sort_unstable();
    programs.dedup();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut found: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let p = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(file) = programs.get(p) else { break };
                        for (i, row) in rows.iter().enumerate().filter(|(_, r)| r.file == *file) {
                            mine.push((i, compare_modes(row)));
                        }
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a comparison thread panicked"))
            .collect()
    });
    found.sort_by_key(|(i, _)| *i);
    found.into_iter().flat_map(|(_, diffs)| diffs).collect()
}

#[test]
fn persistent_and_user_threads_match_fork_server_on_every_example() {
    let rows = table();
    assert!(rows.len() >= 80, "parsed only {} rows", rows.len());
    let diffs = compare_every_row(&rows);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// True if this machine runs persistent executions at all (the kernel
/// tracks written pages for user space): asked explicitly, a clean program
/// says so in a note if it cannot.
fn machine_persists() -> bool {
    let run = reach(&build_example("mutex_counter.c"), &["--persistent"], &[]);
    !run.stderr
        .contains("the kernel does not track written pages")
        && !run.stderr.contains("could not record the memory")
}

/// Runs `file` persistent and not: the same clean result with `executions`
/// executions, and exactly one note naming `cause` in persistent mode only.
fn falls_back_with_a_note(file: &str, executions: u64, cause: &str) {
    if !machine_persists() {
        eprintln!("skipped: this machine's kernel cannot track written pages");
        return;
    }
    let program = build_example(file);
    let run = reach(&program, &["--persistent"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.executions(), executions);
    let note = format!("note: {cause}; every execution is a forked child instead");
    let notes = run.stderr.lines().filter(|l| l.contains(&note)).count();
    assert_eq!(notes, 1, "{}", run.stderr);
    let forced = reach(&program, &["--no-persistent"], &[]);
    assert_eq!(forced.executions(), executions);
    assert!(!forced.stderr.contains("note:"), "{}", forced.stderr);
}

/// A main thread that leaves by `pthread_exit` before its threads end
/// cannot be resumed at the checkpoint: the run says so once and goes on
/// with one fork per execution, instead of paying a new worker's snapshot
/// for every execution.
#[test]
fn main_ending_first_falls_back_with_a_note() {
    if !machine_persists() {
        eprintln!("skipped: this machine's kernel cannot track written pages");
        return;
    }
    let program = build_example("prim_pthread_exit.c");
    let run = reach(&program, &["--persistent", "--no-user-threads"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let note = "note: the main thread ends before the others, or a thread cannot be ended at an execution's end; every execution is a forked child instead";
    let notes = run.stderr.lines().filter(|l| l.contains(note)).count();
    assert_eq!(notes, 1, "{}", run.stderr);
    let forced = reach(&program, &["--no-persistent", "--no-user-threads"], &[]);
    assert_eq!(forced.executions(), run.executions());
    assert_eq!(forced.fingerprints(), run.fingerprints());
    assert!(!forced.stderr.contains("note:"), "{}", forced.stderr);
}

/// A program that creates processes (memory cannot undo that): the first
/// execution's result stands, the run goes on with one fork per execution
/// and says why in one note.
#[test]
fn creating_processes_falls_back_with_a_note() {
    falls_back_with_a_note("forks_child.c", 1, "the program creates processes");
}

/// An alarm is process state: the same.
#[test]
fn setting_an_alarm_falls_back_with_a_note() {
    falls_back_with_a_note("alarm_set.c", 2, "the program sets alarms or timers");
}

/// A persistent worker waits for its next request between executions: at
/// the end of the run it is killed and reaped by the fork server, so no
/// process of the program is left behind, not even a zombie.
#[test]
fn no_worker_is_left_behind() {
    let built = build_example("mutex_counter.c");
    let program = reach_tests::scratch().join("leftover_probe");
    std::fs::copy(&built, &program).expect("copy the example");
    for jobs in ["1", "2"] {
        let run = reach(&program, &["--jobs", jobs], &[]);
        assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
        let left: Vec<String> = std::fs::read_dir("/proc")
            .expect("read /proc")
            .flatten()
            .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
            .filter(|stat| stat.contains("(leftover_probe)"))
            .collect();
        assert!(left.is_empty(), "--jobs {jobs}: left behind: {left:?}");
    }
}

/// True if this machine lets user code set the thread pointer: asked for
/// user-level threads, a clean program says so in a note if it cannot.
fn machine_has_user_threads() -> bool {
    let run = reach(&build_example("mutex_counter.c"), &["--user-threads"], &[]);
    !run.stderr.contains("FSGSBASE") && !run.stderr.contains("cannot be reserved")
}

/// A thread that calls `pthread_exit` needs a kernel thread of its own:
/// with `--user-threads` the execution runs again with kernel threads, the
/// result is the same as without, and one note says why.
#[test]
fn pthread_exit_falls_back_to_kernel_threads_with_a_note() {
    if !machine_has_user_threads() {
        eprintln!("skipped: this machine does not let user code set the thread pointer");
        return;
    }
    let program = build_example("prim_pthread_exit.c");
    let run = reach(&program, &["--user-threads"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.executions(), 1);
    let note = "note: a thread calls pthread_exit or is cancelled; every execution runs the program's threads as kernel threads instead";
    let notes = run.stderr.lines().filter(|l| l.contains(note)).count();
    assert_eq!(notes, 1, "{}", run.stderr);
    let kernel = reach(&program, &["--no-user-threads"], &[]);
    assert_eq!(kernel.executions(), 1);
    assert_eq!(kernel.fingerprints(), run.fingerprints());
    // With kernel threads asked for, the only note is that main's early
    // end makes each execution a forked child (a worker cannot resume it).
    let notes: Vec<&str> = kernel
        .stderr
        .lines()
        .filter(|l| l.contains("note:"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", kernel.stderr);
    assert!(
        notes[0].contains("the main thread ends before the others"),
        "{}",
        kernel.stderr
    );
}

/// Threads that need nothing of a kernel thread run as contexts to the
/// end of the exploration: no note, the same executions.
#[test]
fn plain_threads_run_as_contexts_without_a_note() {
    if !machine_has_user_threads() {
        eprintln!("skipped: this machine does not let user code set the thread pointer");
        return;
    }
    let program = build_example("mutex_counter.c");
    let run = reach(&program, &["--user-threads"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    let kernel = reach(&program, &["--no-user-threads"], &[]);
    assert_eq!(run.executions(), kernel.executions());
    assert_eq!(run.fingerprints(), kernel.fingerprints());
}

/// A schedule file records the thread mode its execution ran in, and
/// `--replay` uses that mode whatever the options say: a race on a
/// thread's stack, recorded in each mode and replayed with the opposite
/// option, is the same race at the same address (an address the other mode
/// does not have).
#[test]
fn a_schedule_replays_in_the_thread_mode_it_was_recorded_in() {
    if !machine_has_user_threads() {
        eprintln!("skipped: this machine does not let user code set the thread pointer");
        return;
    }
    let program = build_example("thread_stack_race.c");
    let mut races = Vec::new();
    for (record, replay, mode) in [
        (&[][..], "--no-user-threads", "user"),
        (&["--no-user-threads"][..], "--user-threads", "kernel"),
    ] {
        let run = reach(&program, record, &[]);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("data_race"),
            "{}",
            run.stdout
        );
        let schedule = keep_schedule(&program, mode).expect("a schedule file");
        let text = std::fs::read_to_string(&schedule).expect("read the schedule");
        assert!(
            text.contains(&format!("\"threads\": \"{mode}\"")),
            "{mode}: {text}"
        );
        let again = reach(&program, &[replay, "--replay", schedule.as_str()], &[]);
        assert_eq!(again.bug_kind(), run.bug_kind(), "{mode}: {}", again.stdout);
        assert_eq!(
            again.json["bug"]["trace"], run.json["bug"]["trace"],
            "{mode}"
        );
        races.push(run.json["bug"]["message"].to_string());
    }
    // The stack is elsewhere in the other mode: replayed there, the
    // schedule would not name the same operations.
    assert_ne!(races[0], races[1]);
}

/// What a thread keeps for itself (signal mask, alternate signal stack, id,
/// name, stack attributes) is kept per user-level thread: the program's
/// checks hold in every execution, and none falls back to kernel threads.
#[test]
fn per_thread_state_needs_no_kernel_threads() {
    if !machine_has_user_threads() {
        eprintln!("skipped: this machine does not let user code set the thread pointer");
        return;
    }
    let program = build_example("thread_own_state.c");
    let run = reach(&program, &["--user-threads"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    assert_eq!(run.executions(), 2);
}

/// Signal actions and the alternate signal stack set by an execution are
/// put back before the next: the program, which checks they are the
/// defaults and then sets them, passes in every persistent execution, and
/// the executions stay persistent.
#[test]
fn signal_actions_are_put_back_between_persistent_executions() {
    let program = build_example("signal_setup.c");
    for mode in [
        &["--persistent", "--no-user-threads"][..],
        &["--persistent"][..],
    ] {
        let run = reach(&program, mode, &[]);
        assert_eq!(run.code, 0, "{mode:?}: {}\n{}", run.stdout, run.stderr);
        assert!(!run.stderr.contains("note:"), "{mode:?}: {}", run.stderr);
        assert_eq!(run.executions(), 2, "{mode:?}");
    }
}
