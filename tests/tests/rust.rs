//! Rust programs end to end: `rust-examples/` built with `reach-rustc` as
//! cargo's `RUSTC_WRAPPER`, and one file built with `reach-rustc` directly.
//! Each bug must be found with its kind and replayed from its schedule file;
//! each correct twin explored completely in exactly its number of executions
//! (one per partial order: the same count under `--strategy optimal`, but
//! for the channel example, where `dpor` also runs executions its sleep sets
//! block). The test binary of `cargo test --no-run` is explored too.

use crate::memory_model_examples::RANDOM as RC11_RANDOM;
use reach_tests::{bin, bin_dir, reach, root, schedule_of, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn modified(p: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// Builds the `rust-examples` workspace once per test process into
/// `target/rust-examples` (cleaned first when the wrapper or the pass is
/// newer than the last build: cargo does not track the wrapper).
fn examples_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_examples("rust-examples", &[]).join("debug"))
}

/// The programs the tests explore in an optimised build. Each is a
/// whole-program build of std with the program, optimised: only these
/// are built.
const RELEASE_PROGRAMS: &[&str] = &[
    "crossbeam_array_queue",
    "crossbeam_bounded",
    "parking_lot_three",
    "sync_channel_producers",
];

/// [`RELEASE_PROGRAMS`] in an optimised build (cargo's release profile),
/// built once per test process into `target/rust-examples-release`.
fn release_examples_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let mut options = vec!["--release", "-p", "programs"];
        for program in RELEASE_PROGRAMS {
            options.extend(["--bin", program]);
        }
        build_examples("rust-examples-release", &options).join("release")
    })
}

/// A program of [`RELEASE_PROGRAMS`], built.
fn release_program(name: &str) -> PathBuf {
    assert!(
        RELEASE_PROGRAMS.contains(&name),
        "{name} is not in RELEASE_PROGRAMS"
    );
    release_examples_dir().join(name)
}

/// Builds the `rust-examples` workspace with `options` into the target
/// directory `name` beside the tools' (cleaned first when the wrapper or
/// the pass is newer than its last build) and returns that directory.
fn build_examples(name: &str, options: &[&str]) -> PathBuf {
    let target = bin_dir()
        .parent()
        .map(|t| t.join(name))
        .unwrap_or_else(|| scratch().join(name));
    let stamp = target.join("reach-rustc.stamp");
    let tools = [bin("reach-rustc"), bin("reach-instrument")];
    let stale = match modified(&stamp) {
        Some(built) => tools.iter().any(|t| modified(t).is_none_or(|m| m > built)),
        None => true,
    };
    if stale && target.exists() {
        std::fs::remove_dir_all(&target).expect("clean the rust-examples target");
    }
    let status = Command::new("cargo")
        .env("RUSTC_WRAPPER", bin("reach-rustc"))
        .args(["build", "--offline"])
        .args(options)
        .arg("--manifest-path")
        .arg(root().join("rust-examples/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("run cargo");
    assert!(status.success(), "cargo build of rust-examples failed");
    std::fs::write(&stamp, b"").expect("write the build stamp");
    target
}

fn assert_bug(program: &Path, kind: &str, message_part: &str) {
    assert_bug_with(program, &[], kind, message_part);
}

/// Explores `program` with `options`: a bug of `kind` whose message holds
/// `message_part`, which its schedule file replays (the schedule records
/// the options that change the trace).
fn assert_bug_with(program: &Path, options: &[&str], kind: &str, message_part: &str) {
    let run = reach(program, options, &[]);
    let name = program.display();
    assert_eq!(
        run.code, 1,
        "{name}: exit status\n{}\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(
        run.bug_kind().as_deref(),
        Some(kind),
        "{name}: {}",
        run.stdout
    );
    let message = run.json["bug"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(message_part), "{name}: {message}");
    let schedule = schedule_of(program).to_string_lossy().into_owned();
    let replay = reach(program, &["--replay", schedule.as_str()], &[]);
    assert_eq!(replay.code, 1, "{name}: replay\n{}", replay.stdout);
    assert_eq!(replay.bug_kind().as_deref(), Some(kind), "{name}: replay");
    assert_eq!(
        replay.json["bug"]["trace"], run.json["bug"]["trace"],
        "{name}: the replay did not reproduce the interleaving"
    );
}

fn assert_clean(program: &Path, executions: u64) {
    assert_clean_counts(program, executions, executions);
}

/// Like [`assert_clean`], with `dpor`'s count (which includes executions
/// blocked by sleep sets) apart from `optimal`'s (one per partial order).
fn assert_clean_counts(program: &Path, dpor: u64, optimal: u64) {
    for (strategy, executions) in [("dpor", dpor), ("optimal", optimal)] {
        let run = reach(program, &["--strategy", strategy], &[]);
        let name = program.display();
        assert_eq!(
            run.code, 0,
            "{name} ({strategy}): {}\n{}",
            run.stdout, run.stderr
        );
        assert!(run.complete(), "{name} ({strategy}): search not complete");
        assert!(run.json["bug"].is_null(), "{name}: {}", run.stdout);
        // What std sets up in every execution (signal actions, alternate
        // signal stacks, thread ids) keeps executions persistent and
        // threads user-level, where the machine allows them.
        assert!(
            !run.stderr.contains("note:"),
            "{name} ({strategy}): {}",
            run.stderr
        );
        assert_eq!(
            run.executions(),
            executions,
            "{name} ({strategy}): executions"
        );
    }
}

#[test]
fn lost_update_behind_a_lock_taken_twice_panics() {
    assert_bug(
        &examples_dir().join("lost_update"),
        "panic",
        "panicked at programs/src/bin/lost_update.rs:9:5: assertion `left == right` failed: an increment was lost",
    );
}

/// Two threads on std's `Mutex`: its slow path is the runtime's model (a
/// compare-and-swap retried as an await loop), so spinning, marking the
/// lock contended and sleeping are no behaviours of their own (33
/// executions with the library's code instrumented).
#[test]
fn lost_update_fixed_is_clean() {
    assert_clean(&examples_dir().join("lost_update_fixed"), 11);
}

/// Three threads on std's `Mutex` complete in about a second (not in
/// minutes with the library's slow path instrumented): optimal, dpor and
/// rt explore the same 345 partial orders.
#[test]
fn std_mutex_with_three_threads_completes() {
    let program = examples_dir().join("mutex_three");
    let runs: Vec<_> = ["optimal", "dpor", "rt"]
        .iter()
        .map(|strategy| reach(&program, &["--strategy", strategy, "--stats"], &[]))
        .collect();
    for run in &runs {
        assert!(run.complete(), "{}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "{}", run.stdout);
        assert_eq!(run.fingerprints(), runs[0].fingerprints());
    }
    assert_eq!(runs[0].partial_orders(), 345);
    assert_eq!(runs[0].executions(), 438);
}

/// Two readers and a writer on std's `RwLock`: its slow paths
/// (`read_contended`, `write_contended`) are the runtime's model, one try
/// retried as an await loop, so the search completes in about a second
/// and no reader sees half an update. Optimal and dpor explore the same
/// 240 partial orders; rt completes without a bug and exercises no order
/// they do not, but misses 7 of them (as it misses 16 of 1,512 on three
/// threads retrying a compare-and-swap in C: a gap of rt's own).
#[test]
fn std_rwlock_with_two_readers_and_a_writer_completes() {
    let program = examples_dir().join("rwlock_three");
    let run = |strategy| reach(&program, &["--strategy", strategy, "--stats"], &[]);
    let (optimal, dpor, rt) = (run("optimal"), run("dpor"), run("rt"));
    for run in [&optimal, &dpor, &rt] {
        assert!(run.complete(), "{}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "{}", run.stdout);
    }
    assert_eq!(optimal.fingerprints(), dpor.fingerprints());
    assert_eq!(optimal.partial_orders(), 240);
    assert_eq!(optimal.executions(), 363);
    assert_eq!(dpor.executions(), 424);
    let orders = optimal.fingerprints();
    assert!(rt.fingerprints().iter().all(|f| orders.contains(f)));
}

/// A thread that holds a read lock of a `RwLock` and asks for its write
/// lock waits for itself: a deadlock that names the lock.
#[test]
fn rwlock_upgrade_deadlocks() {
    assert_bug(
        &examples_dir().join("rwlock_upgrade"),
        "deadlock",
        "waits to write-lock the RwLock at",
    );
}

/// ABBA over two `RwLock`s (each thread write-locks one, then read-locks
/// the other): a deadlock naming both.
#[test]
fn abba_with_std_rwlocks_deadlocks() {
    assert_bug(
        &examples_dir().join("rwlock_abba"),
        "deadlock",
        "waits to read-lock the RwLock at",
    );
}

#[test]
fn rwlock_ordered_is_clean() {
    assert_clean(&examples_dir().join("rwlock_ordered"), 9);
}

#[test]
fn abba_with_std_mutex_deadlocks() {
    assert_bug(
        &examples_dir().join("abba_deadlock"),
        "deadlock",
        "waits for the mutex at",
    );
}

/// `parking_lot`'s lock slow path is the runtime's model (one try on the
/// mutex byte, awaited): an ABBA is a deadlock naming both mutexes.
#[test]
fn abba_with_parking_lot_mutexes_deadlocks() {
    assert_bug(
        &examples_dir().join("parking_lot_abba"),
        "deadlock",
        "waits for the parking_lot mutex at",
    );
}

#[test]
fn abba_ordered_is_clean() {
    assert_clean(&examples_dir().join("abba_ordered"), 6);
}

#[test]
fn publish_before_init_reads_uninitialised_data() {
    assert_bug(
        &examples_dir().join("publish_before_init"),
        "panic",
        "thread '<unnamed>' (T1) panicked at programs/src/bin/publish_before_init.rs:13:13",
    );
}

#[test]
fn publish_after_init_is_clean() {
    assert_clean(&examples_dir().join("publish_after_init"), 2);
}

#[test]
fn condvar_lost_wakeup_deadlocks() {
    assert_bug(
        &examples_dir().join("condvar_lost_wakeup"),
        "deadlock",
        "waits to join thread 1",
    );
}

#[test]
fn condvar_handshake_is_clean() {
    assert_clean(&examples_dir().join("condvar_handshake"), 12);
}

#[test]
fn a_swallowed_thread_panic_is_a_panic_not_a_crash() {
    assert_bug(
        &examples_dir().join("thread_panic"),
        "panic",
        "index out of bounds",
    );
}

#[test]
fn channel_message_order_assumed_panics() {
    assert_bug(
        &examples_dir().join("channel_order"),
        "panic",
        "panicked at programs/src/bin/channel_order.rs:11:5: assertion `left == right` failed: the second sender's message came first",
    );
}

/// std's channels are a library region: each channel operation is one
/// step, split only where it blocks (1,903 executions with the channel's
/// code instrumented, `scripts/bench-rust.sh`).
#[test]
fn channel_handoff_is_clean() {
    assert_clean(&examples_dir().join("channel_handoff"), 8);
}

/// Two messages from one sender, received in order: every order of the
/// five channel operations (and the receiver's waits) against each other.
#[test]
fn channel_in_order_is_clean() {
    assert_clean(&examples_dir().join("channel_in_order"), 149);
}

/// A worker pool (five threads, two channels, a `Mutex`): too many
/// behaviours to explore here, but a random walk and the first executions
/// of optimal find no bug, in particular no data race where the C library
/// hands one thread a heap block another thread freed.
#[test]
fn worker_pool_shows_no_false_race() {
    let program = examples_dir().join("worker_pool");
    let walk = [
        "--strategy",
        "random",
        "--seed",
        "7",
        "--max-executions",
        "200",
    ];
    let optimal = ["--strategy", "optimal", "--max-executions", "300"];
    for options in [&walk[..], &optimal[..]] {
        let run = reach(&program, options, &[]);
        assert!(run.json["bug"].is_null(), "{options:?}: {}", run.stdout);
        assert_eq!(run.code, 3, "{options:?}: {}", run.stdout);
    }
}

/// A rendezvous channel (`sync_channel(0)`): 234 executions with the
/// channel's code instrumented.
#[test]
fn channel_rendezvous_is_clean() {
    assert_clean(&examples_dir().join("channel_rendezvous"), 17);
}

/// Reachability testing exercises the same partial orders of the channel
/// programs as optimal DPOR, none twice, without a false nondeterminism
/// where a variant asks for a step of a waiter the runtime holds back.
#[test]
fn channel_programs_under_rt_match_optimal() {
    for name in ["channel_handoff", "channel_rendezvous"] {
        let program = examples_dir().join(name);
        let options = |strategy| ["--strategy", strategy, "--stats", "--audit", "--keep-going"];
        let rt = reach(&program, &options("rt"), &[]);
        let optimal = reach(&program, &options("optimal"), &[]);
        assert_eq!(rt.code, 0, "{name}: {}", rt.stdout);
        assert_eq!(rt.fingerprints(), optimal.fingerprints(), "{name}");
        assert_eq!(rt.json["duplicate_partial_orders"].as_u64(), Some(0));
    }
}

/// The default search, optimal, dpor and rt complete on `program` with
/// `args` without a bug or an internal error and explore the same `orders`
/// partial orders.
fn strategies_agree(program: &Path, args: &[&str], orders: u64) {
    let name = program.display();
    let run = |strategy: Option<&str>| {
        let mut options = vec!["--stats", "--max-executions", "100000"];
        if let Some(strategy) = strategy {
            options.extend(["--strategy", strategy]);
        }
        reach(program, &options, args)
    };
    let runs = [
        ("default", run(None)),
        ("optimal", run(Some("optimal"))),
        ("dpor", run(Some("dpor"))),
        ("rt", run(Some("rt"))),
    ];
    reach_tests::assert_runs_agree(&name.to_string(), &runs, orders);
}

/// crossbeam's `ArrayQueue` in an optimised build: a producer retrying a
/// full queue and a consumer retrying an empty one with a spin hint. No
/// false verdict; every strategy explores the same partial orders.
#[test]
fn crossbeam_array_queue_release_strategies_agree() {
    let program = release_program("crossbeam_array_queue");
    strategies_agree(&program, &["1"], 8);
}

/// The same queue in a debug build: its retry loops' back-off lives in
/// their frames and `crossbeam_utils`' methods count it, std's `yield_now`
/// and overflow checks run in them; the loops await as in the optimised
/// build, and every strategy explores its 8 partial orders (the search
/// did not finish before: every `snooze()` was progress).
#[test]
fn crossbeam_array_queue_debug_strategies_agree() {
    let program = examples_dir().join("crossbeam_array_queue");
    strategies_agree(&program, &["1"], 8);
}

/// crossbeam's `bounded` channel in an optimised build (its senders and
/// receivers spin with a backoff, then park): every strategy explores the
/// same partial orders, with no false verdict.
#[test]
fn crossbeam_bounded_channel_release_strategies_agree() {
    let program = release_program("crossbeam_bounded");
    strategies_agree(&program, &["1"], 689);
}

/// `parking_lot::Mutex` with three threads in an optimised build: its
/// lock slow path (spin with a spin hint, yield, park in
/// `parking_lot_core`'s queues) is the runtime's model, one try on the
/// mutex byte awaited, so every strategy completes with the same partial
/// orders (without the model the search did not finish).
#[test]
fn parking_lot_mutex_release_strategies_agree() {
    let program = release_program("parking_lot_three");
    strategies_agree(&program, &[], 269);
}

/// std's `sync_channel` in an optimised build, where the channel's methods
/// are inlined into the program's code: the channel is instrumented access
/// by access in such a build (a region around the rest hid the waker's
/// mutex from the inlined code, which then waited for it: a false
/// deadlock, and schedules the program cannot take). No bug and no
/// internal error within the bound.
#[test]
fn sync_channel_release_has_no_false_verdict() {
    let program = release_program("sync_channel_producers");
    for producers in ["1", "2"] {
        let options = ["--stats", "--max-executions", "400", "--timeout", "100"];
        let run = reach(&program, &options, &[producers]);
        assert_eq!(run.code, 3, "{producers}: {}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "{producers}: {}", run.stdout);
        assert_eq!(
            run.json["internal_errors"], 0,
            "{producers}: {}",
            run.stderr
        );
    }
}

/// What the JSON report says of the steps of `ticket_slots` and where the
/// text report places them: the atomic operations, the racing writes and
/// the block `Arc::new` allocated at the program's own lines, with std's
/// function (whose code ran them in a debug build, or was inlined in a
/// release build) as detail.
fn assert_placed_at_the_programs_lines(program: &Path) {
    // Every access a step: both threads' `ptr::write`s are steps of the
    // trace (by default the first is no step of its own, its slot being
    // memory only its thread had touched).
    let run = reach(program, &["--no-private-accesses"], &[]);
    let name = program.display();
    assert_eq!(run.code, 1, "{name}: {}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("data_race"), "{name}");
    let source = "src/bin/ticket_slots.rs";
    let block = "(allocated at ticket_slots.rs:21)";
    let message = run.json["bug"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(block), "{name}: {message}");
    let steps = run.json["bug"]["trace"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // std's function by its type and method (its name is spelt as the
    // crate that compiled it mangles: `core::sync::atomic::AtomicUsize::load`
    // or `<core::sync::atomic::AtomicUsize>::load`).
    let std_function = |f: &str, (ty, method): (&str, &str)| f.contains(ty) && f.ends_with(method);
    let at = |op: &str, line: u64, function: (&str, &str)| {
        steps
            .iter()
            .filter(|s| {
                s["op"] == op
                    && s["line"] == line
                    && s["file"].as_str().is_some_and(|f| f.ends_with(source))
                    && s["name"].as_str().is_some_and(|n| n.contains(block))
                    && s["library"]["function"]
                        .as_str()
                        .is_some_and(|f| std_function(f, function))
                    && s["location"].as_str().is_some_and(|l| l.contains(" in "))
            })
            .count()
    };
    let write = ("*mut", "::write");
    for (op, line, function) in [
        ("A_RMW", 29, ("AtomicUsize", "::fetch_add")),
        ("A_LOAD", 30, ("AtomicUsize", "::load")),
        ("STORE", 32, write),
    ] {
        assert_eq!(
            at(op, line, function),
            2,
            "{name}: one {op} at line {line} in {function:?} per worker: {steps:#?}"
        );
    }
    for step in &steps {
        let named = step["name"].as_str().unwrap_or_default();
        assert!(!named.contains("unix.rs"), "{name}: {step}");
        if let Some(location) = step["library"]["location"].as_str() {
            // Empty where the library's code has no line of its own.
            assert!(
                location.is_empty() || location.contains("/library/"),
                "{name}: {step}"
            );
        }
    }
    let race = |which: &str| {
        run.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{which} access:")))
            .unwrap_or_default()
            .to_string()
    };
    for which in ["first ", "second"] {
        let line = race(which);
        assert!(
            line.contains("STORE heap#")
                && line.contains(block)
                && line.contains(&format!("{source}:32:"))
                && line
                    .split_once(", in ")
                    .and_then(|(_, rest)| rest.rsplit_once(')'))
                    .is_some_and(|(f, _)| std_function(f, write)),
            "{name}: {which} access: {line}\n{}",
            run.stdout
        );
    }
    let row = run
        .stdout
        .lines()
        .find(|l| l.contains("A_RMW heap#") && l.contains("ticket_slots.rs:29"))
        .unwrap_or_default();
    assert!(
        row.ends_with("shared.next.fetch_add(1, SeqCst);"),
        "{name}: the fetch_add's row shows its source line\n{}",
        run.stdout
    );
}

/// A debug build (cargo's dev profile) runs `fetch_add`, `load`,
/// `ptr::write` and the allocator in std's code.
#[test]
fn a_debug_build_places_std_steps_at_the_programs_lines() {
    assert_placed_at_the_programs_lines(&examples_dir().join("ticket_slots"));
}

/// A release build inlines std's functions into the program's.
#[test]
fn a_release_build_places_std_steps_at_the_programs_lines() {
    let out = scratch().join("ticket_slots_release");
    let status = Command::new(bin("reach-rustc"))
        .args(["-C", "opt-level=3", "-g", "--edition", "2021"])
        .arg(root().join("rust-examples/programs/src/bin/ticket_slots.rs"))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run reach-rustc");
    assert!(status.success(), "reach-rustc failed");
    assert_placed_at_the_programs_lines(&out);
}

/// `cargo test --no-run` through the wrapper: the test harness binary of
/// `sync-kit` runs under `reach-native` with libtest's arguments (one test,
/// on the main thread, with its output not captured so that the panic
/// reaches standard error).
#[test]
fn a_test_binary_built_by_cargo_test_no_run() {
    examples_dir();
    let target = bin_dir()
        .parent()
        .map(|t| t.join("rust-examples"))
        .unwrap_or_else(|| scratch().join("rust-examples"));
    let output = Command::new("cargo")
        .env("RUSTC_WRAPPER", bin("reach-rustc"))
        .args([
            "test",
            "--offline",
            "--no-run",
            "-p",
            "sync-kit",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(root().join("rust-examples/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "cargo test --no-run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let binary = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["target"]["name"] == "sync_kit" && m["profile"]["test"] == true)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("the test binary of sync-kit");
    let test_args = |name| ["--test-threads=1", "--nocapture", "--exact", name];
    let run = reach(
        &binary,
        &[],
        &test_args("tests::two_step_increments_lose_an_update"),
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("panic"), "{}", run.stdout);
    let message = run.json["bug"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(
            "sync-kit/src/lib.rs:63:9: assertion `left == right` failed: an update was lost"
        ),
        "{message}"
    );
    // The harness's own channel steps are one step per channel operation
    // (12,738 executions with the channel instrumented access by access).
    let clean = reach(&binary, &[], &test_args("tests::increments_are_not_lost"));
    assert!(clean.json["bug"].is_null(), "{}", clean.stdout);
    assert!(clean.complete(), "{}", clean.stdout);
    assert_eq!(clean.executions(), 20);
    // libtest reads the terminal's description and names its threads: the
    // executions stay persistent, the threads user-level.
    assert!(!clean.stderr.contains("note:"), "{}", clean.stderr);
}

#[test]
fn a_single_file_built_by_reach_rustc_directly() {
    let out = scratch().join("std_tour");
    let status = Command::new(bin("reach-rustc"))
        .args(["-g", "--edition", "2021"])
        .arg(root().join("rust-examples/single/std_tour.rs"))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run reach-rustc");
    assert!(status.success(), "reach-rustc failed");
    // 270: the parker's `fetch_sub` in `thread::park` is seen, so the
    // main thread's park races with the waker's unpark.
    assert_clean(&out, 270);
}

/// A flag stored and loaded `Relaxed` (`publish_relaxed`): under
/// `--memory-model rc11` the reader sees the flag and reads the data's
/// initial 0 (the random walk picks among the stores each load may read;
/// the exhaustive search would first try every store std's own atomics
/// may read after the reader's loads), and the replay of the schedule
/// file shows it again; under sequential consistency it is clean.
#[test]
fn relaxed_publish_is_found_under_rc11() {
    let program = examples_dir().join("publish_relaxed");
    for options in [RC11_RANDOM, &["--memory-model", "rc11"][..]] {
        assert_bug_with(&program, options, "panic", "the flag came before the data");
    }
    let sc = reach(&program, &[], &[]);
    assert_eq!(sc.code, 0, "{}", sc.stdout);
    assert!(sc.complete() && sc.json["bug"].is_null());
}

/// A reference count shaped like `Arc`'s drop (`refcount_drop`): freeing
/// after a `Release` decrement without `fence(Acquire)` reads the other
/// thread's last use as its initial 0 under `--memory-model rc11` (2,000
/// random executions, seed 1: std's own atomics make the exhaustive
/// search too large), and the replay shows it again; with `arc` (the
/// fence) the same 2,000 executions are clean, and under sequential
/// consistency both are.
#[test]
fn arc_drop_needs_an_acquire_fence_under_rc11() {
    let program = examples_dir().join("refcount_drop");
    assert_bug_with(
        &program,
        RC11_RANDOM,
        "panic",
        "freed before the other thread's last use was visible",
    );
    let twin = reach(&program, RC11_RANDOM, &["arc"]);
    assert!(twin.json["bug"].is_null(), "{}", twin.stdout);
    assert_eq!(twin.executions(), 2000);
    // The default search explores every reads-from choice: the bug at
    // once, the twin complete and clean in its two reads-from graphs.
    let rc11: &[&str] = &["--memory-model", "rc11"];
    assert_bug_with(
        &program,
        rc11,
        "panic",
        "freed before the other thread's last use was visible",
    );
    let twin = reach(&program, rc11, &["arc"]);
    assert_eq!(twin.code, 0, "{}", twin.stdout);
    assert!(twin.complete(), "{}", twin.stdout);
    assert_eq!(twin.json["reads_from_graphs"], 2, "{}", twin.stdout);
    for args in [&[][..], &["arc"][..]] {
        let sc = reach(&program, &[], args);
        assert_eq!(sc.code, 0, "{args:?}: {}", sc.stdout);
        assert!(sc.complete() && sc.json["bug"].is_null());
    }
}
