//! Memory only one thread touches (or that threads only read) is no
//! scheduling point by default: a worker's own heap state costs no steps,
//! the behaviours explored are the same as with every access a step
//! (`--no-private-accesses`), and a race whose first access was such a
//! private access is still found, reported at its source line and
//! replayed.

use reach_tests::{build_example, reach, schedule_of, scratch};

/// The steps an exploration executed, from `--stats`.
fn steps_executed(stdout: &str) -> u64 {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("steps executed:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no steps in:\n{stdout}"))
}

/// Two workers fill, sort (qsort calls the program's comparator) and scan
/// arrays of their own on the heap, then add a median under a lock: tens
/// of thousands of steps with every access a step, a few dozen without
/// their private accesses (the fill and the scan are loops whose
/// iterations may write nothing: their accesses are private too), and the
/// same two behaviours (the orders of the lock sections) either way.
#[test]
fn a_workers_own_heap_state_costs_no_steps() {
    let program = build_example("private_worker_state.c");
    let private = reach(&program, &["--stats"], &[]);
    let every = reach(&program, &["--stats", "--no-private-accesses"], &[]);
    // Under kernel threads too: with every access a step there, a worker
    // that starts after the other ended gets its freed array back from the
    // C library (the thread's exit returned its cache), and the search
    // reverses the two workers' accesses to it in vain (103 executions,
    // the same 2 partial orders); private, a new block is nobody's.
    let kernel = reach(&program, &["--stats", "--no-user-threads"], &[]);
    for run in [&private, &every, &kernel] {
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert!(run.complete(), "{}", run.stdout);
        assert_eq!(run.executions(), 2, "{}", run.stdout);
    }
    assert_eq!(private.fingerprints().len(), every.fingerprints().len());
    let (few, many) = (
        steps_executed(&private.stdout),
        steps_executed(&every.stdout),
    );
    assert!(many > 10_000, "every access a step: {many} steps");
    assert!(
        few < 100,
        "private accesses: {few} steps (every access: {many})"
    );
}

/// Both threads of `mm_peterson.c` read the options `peterson`, `fence`
/// and `xchg` that main set: memory several threads only read is private
/// to each of them, whichever reads first, so reordering the threads'
/// atomics never changes which of their reads are steps. Each variant runs
/// the partial orders it runs with every access a step, with no internal
/// error and fewer steps.
#[test]
fn memory_threads_only_read_is_private_to_every_reader() {
    let program = build_example("mm_peterson.c");
    for (args, orders) in [
        (&["dekker"][..], 3),
        (&["dekker", "fence"][..], 3),
        (&["peterson"][..], 6),
        (&["peterson", "xchg"][..], 6),
    ] {
        let private = reach(&program, &["--stats"], args);
        let every = reach(&program, &["--stats", "--no-private-accesses"], args);
        for run in [&private, &every] {
            assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
            assert_eq!(run.json["internal_errors"], 0, "{args:?}: {}", run.stderr);
            assert!(run.complete(), "{args:?}: {}", run.stdout);
            assert_eq!(run.partial_orders(), orders, "{args:?}: {}", run.stdout);
        }
        let (few, many) = (
            steps_executed(&private.stdout),
            steps_executed(&every.stdout),
        );
        assert!(few < many, "{args:?}: {few} steps against {many}");
    }
}

/// Thread 1 reads and writes `ring.tail` before its first step (memory no
/// other thread had touched: no step); thread 2's load of it races. The
/// report names the private store at its line, says it was no step, and
/// the schedule file replays the race.
#[test]
fn a_race_with_a_private_access_is_found_and_replayed() {
    let program = build_example("report_names.c");
    let page = scratch().join("report_names_private.html");
    let page_arg = page.to_str().expect("a UTF-8 path");
    let run = reach(&program, &["--html", page_arg], &[]);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("first  access: thread 1 STORE ring.tail at ")
            && run
                .stdout
                .contains("report_names.c:19:15 (producer) (no step of its own"),
        "{}",
        run.stdout
    );
    // The JSON report gives the private access's own operation and line,
    // and where it ran relative to the step it names.
    let first = &run.json["bug"]["race"]["accesses"][0];
    assert_eq!(first["private"], "before", "{first}");
    assert_eq!(first["op"], "STORE", "{first}");
    assert_eq!(first["thread"], 1, "{first}");
    assert!(
        first["location"]
            .as_str()
            .is_some_and(|l| l.contains("report_names.c:19:15")),
        "{first}"
    );
    let second = &run.json["bug"]["race"]["accesses"][1];
    assert!(second.get("private").is_none(), "{second}");
    // The HTML page says it at the step it names (the thread's first).
    let html = std::fs::read_to_string(&page).expect("the HTML page");
    assert!(
        html.contains(
            "the race&apos;s first access ran before this step, no step of its own: T1 STORE ring.tail"
        ),
        "{html}"
    );
    let schedule = schedule_of(&program);
    let text = std::fs::read_to_string(&schedule).expect("the schedule file");
    assert!(text.contains("\"private_accesses\": true"), "{text}");
    // The recorded mode wins over the options.
    let replay = reach(
        &program,
        &[
            "--replay",
            schedule.to_str().expect("a UTF-8 path"),
            "--no-private-accesses",
        ],
        &[],
    );
    assert_eq!(
        replay.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        replay.stdout
    );
    assert!(
        replay.stdout.contains("no step of its own"),
        "{}",
        replay.stdout
    );
    // With every access a step the same race is found between two steps,
    // and the schedule replays it so whatever the options say.
    let every = reach(&program, &["--no-private-accesses"], &[]);
    assert_eq!(
        every.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        every.stdout
    );
    assert!(
        !every.stdout.contains("no step of its own"),
        "{}",
        every.stdout
    );
    let schedule = schedule_of(&program);
    let text = std::fs::read_to_string(&schedule).expect("the schedule file");
    assert!(!text.contains("private_accesses"), "{text}");
    let replay = reach(
        &program,
        &["--replay", schedule.to_str().expect("a UTF-8 path")],
        &[],
    );
    assert_eq!(
        replay.json["bug"]["trace"], every.json["bug"]["trace"],
        "{}",
        replay.stdout
    );
    assert!(
        !replay.stdout.contains("no step of its own"),
        "{}",
        replay.stdout
    );
}

/// A node its owner wrote and another thread then read (a Treiber stack's
/// `next` field, read by a pop that lost its compare-and-swap) stays its
/// owner's for reads: whether the owner's later read of it is a step no
/// longer depends on which of the two commuting reads ran first. Before,
/// optimal DPOR's predicted reorderings of such reads asked for steps the
/// owner then took privately: on 2 threads x 2 operations 576 of 6,492
/// executions did not take a predicted step and the search was not
/// complete. Now optimal, DPOR and the run with every access a step agree.
#[test]
fn an_owners_reads_after_another_threads_read_predict_the_same_steps() {
    let program = build_example("treiber_stack.c");
    let mut counts = Vec::new();
    for options in [
        &["--stats"][..],
        &["--stats", "--strategy", "dpor"][..],
        &["--stats", "--no-private-accesses"][..],
    ] {
        let run = reach(&program, options, &["2", "2"]);
        assert_eq!(run.code, 0, "{options:?}: {}", run.stdout);
        assert!(run.complete(), "{options:?}: {}", run.stdout);
        assert_eq!(
            run.json["hidden_dependencies"], 0,
            "{options:?}: {}",
            run.stdout
        );
        counts.push(run.json["partial_orders"].clone());
    }
    assert_eq!(counts[0], 6492, "{counts:?}");
    assert!(counts.iter().all(|c| *c == counts[0]), "{counts:?}");
}
