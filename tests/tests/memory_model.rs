//! `--memory-model rc11`: atomic loads read what RC11 allows, chosen by
//! the search. The exhaustive strategy's distinct reads-from graphs equal
//! the RC11 oracle's consistent executions (`reach-rc11`) for the litmus
//! tests whose modification order is the order the stores run in; the
//! bugs only weak memory shows are found (and replayed), their correct
//! twins are clean, and `--memory-model sc` keeps today's counts.

use reach_rc11::litmus::{Op, Order, Program};
use reach_rc11::Model;
use reach_tests::{build_example, reach, schedule_of};

const RC11: &[&str] = &["--memory-model", "rc11", "--strategy", "exhaustive"];

/// `--memory-model rc11` under the randomised `strategy` with `seed`, for
/// `executions` executions.
fn randomised<'a>(strategy: &'a str, seed: &'a str, executions: &'a str) -> [&'a str; 8] {
    [
        "--memory-model",
        "rc11",
        "--strategy",
        strategy,
        "--seed",
        seed,
        "--max-executions",
        executions,
    ]
}

/// The store and load orderings of `mm_litmus`'s ORDER argument.
fn orders(order: &str) -> (Order, Order) {
    match order {
        "rlx" => (Order::Relaxed, Order::Relaxed),
        "ra" => (Order::Release, Order::Acquire),
        _ => (Order::SeqCst, Order::SeqCst),
    }
}

/// `mm_litmus`'s test `name` with `order`, for the oracle.
pub(crate) fn litmus(name: &str, order: &str) -> Program {
    let (st, ld) = orders(order);
    let data = if order == "sc" {
        Order::SeqCst
    } else {
        Order::Relaxed
    };
    let p = Program::new();
    match name {
        "sb" => p
            .thread([Op::store("x", 1, st), Op::load("y", ld).to("r0")])
            .thread([Op::store("y", 1, st), Op::load("x", ld).to("r1")]),
        "mp" => p
            .thread([Op::store("data", 1, data), Op::store("flag", 1, st)])
            .thread([
                Op::load("flag", ld).to("r0"),
                Op::load("data", data).to("r1"),
            ]),
        "lb" => p
            .thread([Op::load("x", ld).to("r0"), Op::store("y", 1, st)])
            .thread([Op::load("y", ld).to("r1"), Op::store("x", 1, st)]),
        "iriw" => p
            .thread([Op::store("x", 1, st)])
            .thread([Op::store("y", 1, st)])
            .thread([Op::load("x", ld).to("a"), Op::load("y", ld).to("b")])
            .thread([Op::load("y", ld).to("c"), Op::load("x", ld).to("d")]),
        "wrc" => p
            .thread([Op::store("x", 1, st)])
            .thread([Op::load("x", ld).to("r0"), Op::store("y", 1, st)])
            .thread([Op::load("y", ld).to("r1"), Op::load("x", ld).to("r2")]),
        "2+2w" => p
            .thread([Op::store("x", 1, st), Op::store("y", 2, st)])
            .thread([Op::store("y", 1, st), Op::store("x", 2, st)]),
        "s" => p
            .thread([Op::store("x", 2, st), Op::store("y", 1, st)])
            .thread([Op::load("y", ld).to("r0"), Op::store("x", 1, st)]),
        "cas" => p
            .thread([Op::store("x", 1, st), Op::store("y", 1, st)])
            .thread([
                Op::load("y", ld).to("r0"),
                Op::cas("x", 1, 2, ld, ld).to("r1"),
            ]),
        "fadd" => p
            .thread([Op::store("x", 1, st), Op::store("y", 1, st)])
            .thread([
                Op::load("y", ld).to("r0"),
                Op::fetch_add("x", 1, ld).to("r1"),
            ]),
        "mp2" => p
            .thread([
                Op::store("data", 1, data),
                Op::store("data", 2, data),
                Op::store("flag", 1, st),
            ])
            .thread([
                Op::load("flag", ld).to("r0"),
                Op::load("data", data).to("r1"),
            ]),
        "2fadd" => p
            .thread([Op::fetch_add("x", 1, ld).to("r0")])
            .thread([Op::fetch_add("x", 1, ld).to("r1")]),
        _ => p
            .thread([Op::store("x", 1, st), Op::store("y", 1, st)])
            .thread([Op::store("y", 2, st), Op::load("x", ld).to("r0")]),
    }
}

/// Every litmus test and ordering: the exhaustive search under RC11 ends
/// without a bug, and its distinct reads-from graphs are exactly the
/// oracle's RC11-consistent executions (SB 4/4/3, MP 4/3/3, LB 3, IRIW
/// 16/16/15, WRC 8/7/7, R 4/4/3, 2+2W 4/4/3, S 4/3/3 for rlx/ra/sc; 2+2W
/// and S need stores placed before the latest in modification order; a
/// compare-and-exchange or fetch_add may read an older store, two
/// fetch_adds never read the same one; MP with two data stores 6/4/4).
#[test]
fn exhaustive_reads_from_graphs_equal_the_oracle() {
    assert_litmus_graphs_equal_the_oracle(RC11);
}

/// Runs every litmus test with every ordering under `options` (a strategy
/// under `--memory-model rc11`): each search completes without a bug and
/// its distinct reads-from graphs are the oracle's RC11-consistent
/// executions.
pub(crate) fn assert_litmus_graphs_equal_the_oracle(options: &[&str]) {
    let program = build_example("mm_litmus.c");
    for name in [
        "sb", "mp", "lb", "iriw", "wrc", "r", "2+2w", "s", "cas", "fadd", "2fadd", "mp2",
    ] {
        for order in ["rlx", "ra", "sc"] {
            let expected = reach_rc11::enumerate(&litmus(name, order), Model::Rc11)
                .expect("a valid litmus program")
                .len() as u64;
            let run = reach(&program, options, &[name, order]);
            assert_eq!(
                run.code, 0,
                "{name} {order}: {}\n{}",
                run.stdout, run.stderr
            );
            assert!(run.complete(), "{name} {order}: not complete");
            assert_eq!(
                run.json["reads_from_graphs"].as_u64(),
                Some(expected),
                "{name} {order}: reads-from graphs ({} executions)",
                run.executions()
            );
        }
    }
}

/// The outcomes only weak memory allows are found under RC11 and replayed
/// from the schedule file; under `--memory-model sc` (the default) and
/// with `seq_cst` they never happen, and the all-`seq_cst` programs run
/// as many executions under both models. LB never reads out of thin air,
/// an acquire compare-and-exchange or fetch_add that follows an acquire
/// read of the flag never reads the older store, and two fetch_adds
/// always add up (atomicity).
#[test]
fn weak_outcomes_are_found_and_replayed_and_seq_cst_forbids_them() {
    let program = build_example("mm_litmus.c");
    for (name, order) in [
        ("sb", "rlx"),
        ("mp", "rlx"),
        ("iriw", "rlx"),
        ("r", "rlx"),
        ("2+2w", "rlx"),
        ("2+2w", "ra"),
        ("s", "rlx"),
        ("cas", "rlx"),
        ("fadd", "rlx"),
    ] {
        assert_weak_outcome_replays(&program, RC11, name, order);
        let sc = reach(
            &program,
            &["--strategy", "exhaustive"],
            &[name, order, "check"],
        );
        assert_eq!(sc.code, 0, "{name} {order} under sc: {}", sc.stdout);
    }
    for name in ["sb", "mp", "iriw", "lb", "2+2w", "s", "cas", "fadd"] {
        let args = [name, "sc", "check"];
        let rc11 = reach(&program, RC11, &args);
        let sc = reach(&program, &["--strategy", "exhaustive"], &args);
        assert_eq!(rc11.code, 0, "{name} sc under rc11: {}", rc11.stdout);
        assert!(rc11.complete() && sc.complete(), "{name}");
        assert_eq!(
            rc11.executions(),
            sc.executions(),
            "{name}: seq_cst executions"
        );
    }
    for (name, order) in [
        ("lb", "rlx"),
        ("cas", "ra"),
        ("fadd", "ra"),
        ("2fadd", "rlx"),
    ] {
        let run = reach(&program, RC11, &[name, order, "check"]);
        assert_eq!(run.code, 0, "{name} {order}: {}", run.stdout);
        assert!(run.complete(), "{name} {order}");
    }
}

/// Message passing with a relaxed flag: the reader sees the flag and the
/// initial value, and the report says which store it did not see. The
/// release/acquire twin is clean; so is the relaxed one under SC, with
/// today's 2 executions.
#[test]
fn relaxed_message_passing_is_found_and_its_release_twin_is_clean() {
    let program = build_example("mm_message_passing.c");
    let run = reach(&program, RC11, &[]);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("assertion"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("read value = 0, the initial value, although T1 stored 42 at step"),
        "{}",
        run.stdout
    );
    let stale = run.json["bug"]["stale_reads"][0]
        .as_str()
        .unwrap_or_default();
    assert!(
        stale.contains("read value = 0, the initial value"),
        "{stale}"
    );
    assert_replays(&program, &[], &run);
    let twin = reach(&program, RC11, &["release"]);
    assert_eq!(twin.code, 0, "{}", twin.stdout);
    assert!(twin.complete());
    let sc = reach(&program, &[], &[]);
    assert_eq!(sc.code, 0, "{}", sc.stdout);
    assert_eq!(sc.executions(), 2);
    for strategy in ["random", "pct"] {
        let run = reach(&program, &randomised(strategy, "1", "2000"), &[]);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("assertion"),
            "{strategy}: {}",
            run.stdout
        );
        assert_replays(&program, &[], &run);
    }
}

/// Plain data handed over through an atomic flag: with a relaxed flag
/// nothing orders the writer's plain stores before the reader's accesses,
/// a data race under RC11 (reported, and replayed, whether or not the
/// reader happened to see the data); a release store read by an acquire
/// load, or relaxed accesses between a release and an acquire fence,
/// synchronise. Under SC every atomic synchronises. Memory only one thread
/// has touched stays no scheduling point under either model.
#[test]
fn plain_data_behind_a_relaxed_flag_races_under_rc11_only() {
    let program = build_example("mm_plain_message.c");
    for search in [RC11, &["--memory-model", "rc11"][..]] {
        let run = reach(&program, search, &[]);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("data_race"),
            "{search:?}: {}",
            run.stdout
        );
        assert!(run.stdout.contains("(buffer."), "{}", run.stdout);
        assert_replays(&program, &[], &run);
        for twin in ["release", "fences"] {
            let run = reach(&program, search, &[twin]);
            assert_eq!(run.code, 0, "{twin} {search:?}: {}", run.stdout);
            assert!(run.complete(), "{twin}: {}", run.stdout);
            assert_eq!(run.json["reads_from_graphs"], 2, "{twin}: {}", run.stdout);
        }
    }
    for order in ["relaxed", "release", "fences"] {
        let sc = reach(&program, &[], &[order]);
        assert_eq!(sc.code, 0, "{order}: {}", sc.stdout);
        assert_eq!(sc.executions(), 2, "{order}: {}", sc.stdout);
    }
    // The writer's stores to the buffer come before any other thread
    // touched it: under rc11 too they are no steps of their own.
    let run = reach(&program, &["--memory-model", "rc11"], &[]);
    assert!(run.stdout.contains("no step of its own"), "{}", run.stdout);
}

/// A spin loop whose iteration read an older store than the latest (a
/// relaxed load of the lock word that sees it still taken) awaits no
/// change: run again it may read the latest, so the execution is blocked,
/// not a livelock (before, `cas_spinlock` under rc11 was a false hang at
/// its second execution). The searches complete clean; the randomised
/// ones find nothing either.
#[test]
fn a_spin_loop_that_read_an_older_store_is_blocked_not_livelocked() {
    let program = build_example("cas_spinlock.c");
    for threads in ["2", "3"] {
        for strategy in ["optimal", "dpor", "exhaustive"] {
            let run = reach(
                &program,
                &["--memory-model", "rc11", "--strategy", strategy],
                &[threads],
            );
            assert_eq!(run.code, 0, "{strategy} {threads}: {}", run.stdout);
            assert!(run.complete(), "{strategy} {threads}: {}", run.stdout);
        }
    }
    for strategy in ["random", "pct"] {
        let run = reach(&program, &randomised(strategy, "3", "500"), &["3"]);
        assert_eq!(run.bug_kind(), None, "{strategy}: {}", run.stdout);
        assert_eq!(run.executions(), 500, "{strategy}: {}", run.stdout);
    }
}

/// A strategy that does not explore reads-from choices says so and runs
/// sequentially consistent; the default strategy explores them (the
/// relaxed flag's stale data is found).
#[test]
fn other_strategies_say_they_run_sc() {
    let program = build_example("mm_message_passing.c");
    let run = reach(
        &program,
        &["--memory-model", "rc11", "--strategy", "rt"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("--strategy rt does not explore reads-from choices yet"),
        "{}",
        run.stderr
    );
    assert_eq!(run.executions(), 2);
    let default = reach(&program, &["--memory-model", "rc11"], &[]);
    assert_eq!(
        default.bug_kind().as_deref(),
        Some("assertion"),
        "{}",
        default.stdout
    );
    assert!(
        !default.stderr.contains("reads-from choices"),
        "{}",
        default.stderr
    );
}

/// Litmus test `name` with orderings `order` (and its `check`), run with
/// `options`, fails its assertion, and that bug replays.
pub(crate) fn assert_weak_outcome_replays(
    program: &std::path::Path,
    options: &[&str],
    name: &str,
    order: &str,
) {
    let args = [name, order, "check"];
    let run = reach(program, options, &args);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("assertion"),
        "{name} {order}: {}",
        run.stdout
    );
    assert_replays(program, &args, &run);
}

/// `run`'s bug replays from its schedule file (which records the memory
/// model and the reads-from choices) with the same trace.
pub(crate) fn assert_replays(program: &std::path::Path, args: &[&str], run: &reach_tests::Run) {
    let schedule = schedule_of(program).to_string_lossy().into_owned();
    let text = std::fs::read_to_string(&schedule).expect("the schedule file");
    assert!(text.contains("\"memory_model\": \"rc11\""), "{text}");
    let replay = reach(program, &["--replay", schedule.as_str()], args);
    assert_eq!(replay.code, 1, "replay: {}", replay.stdout);
    assert_eq!(replay.bug_kind(), run.bug_kind(), "replay");
    assert_eq!(
        replay.json["bug"]["trace"], run.json["bug"]["trace"],
        "the replay did not reproduce the interleaving"
    );
}

/// The steps a stale-access line names: its own and the other store's
/// ("step 9, T2 read data = 1, T1's store at step 5, ..." gives (9, 5);
/// "step 9, T2's store to x is before T1's store of 1 at step 5 ..."
/// gives (9, 5)).
fn stale_steps(line: &str) -> Option<(u64, u64)> {
    let own = line
        .strip_prefix("step ")?
        .split(',')
        .next()?
        .parse()
        .ok()?;
    let other = line
        .split(" at step ")
        .nth(1)?
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    Some((own, other))
}

/// The HTML picture of a bug found through stale accesses draws them: a
/// dashed reads-from arrow from the older store a load read to the load
/// (mp2: the writer's first store of `data`), a modification-order arrow
/// from a store to the earlier-run store it precedes (2+2W), and the
/// report's line in the step's tooltip.
#[test]
fn html_draws_stale_reads_from_and_modification_order() {
    let program = build_example("mm_litmus.c");
    for (test, class) in [("mp2", "rf"), ("2+2w", "mo")] {
        let page = reach_tests::scratch().join(format!("mm_litmus_{class}.html"));
        let page_arg = page.to_string_lossy().into_owned();
        let mut options = RC11.to_vec();
        options.extend(["--html", page_arg.as_str()]);
        let run = reach(&program, &options, &[test, "rlx", "check"]);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("assertion"),
            "{test}: {}",
            run.stdout
        );
        let line = run.json["bug"]["stale_reads"][0]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let (own, other) = stale_steps(&line).unwrap_or_else(|| panic!("{test}: {line}"));
        let (from, to) = if class == "rf" {
            (other, own)
        } else {
            (own, other)
        };
        let html = std::fs::read_to_string(&page).expect("the HTML file");
        assert!(
            html.contains(&format!(
                "class=\"edge {class}\" data-from=\"{from}\" data-to=\"{to}\""
            )),
            "{test}: no {class} arrow {from} -> {to} for {line}:\n{html}"
        );
        assert_eq!(
            html.matches("class=\"edge rf\"").count() + html.matches("class=\"edge mo\"").count(),
            1,
            "{test}: one stale arrow"
        );
        let tip = line.replace('\'', "&apos;");
        assert!(html.contains(&tip), "{test}: tooltip {line}");
    }
}

/// A load that read the initial value although a store had run (message
/// passing with a relaxed flag: `data` = 0 after `flag` = 1) gets its
/// dashed arrow from the picture's "init" point.
#[test]
fn html_draws_loads_of_the_initial_value_from_init() {
    let program = build_example("mm_litmus.c");
    let page = reach_tests::scratch().join("mm_litmus_init.html");
    let page_arg = page.to_string_lossy().into_owned();
    let mut options = RC11.to_vec();
    options.extend(["--html", page_arg.as_str()]);
    let run = reach(&program, &options, &["mp", "rlx", "check"]);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("assertion"),
        "{}",
        run.stdout
    );
    let line = run.json["bug"]["stale_reads"][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(line.contains("the initial value"), "{line}");
    let step: u64 = line
        .strip_prefix("step ")
        .and_then(|l| l.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    let html = std::fs::read_to_string(&page).expect("the HTML file");
    assert!(
        html.contains(&format!(
            "class=\"edge rf-init\" data-from=\"init\" data-to=\"{step}\""
        )),
        "no arrow from init to step {step} for {line}:\n{html}"
    );
    assert_eq!(html.matches("class=\"edge rf-init\"").count(), 1, "{html}");
    assert_eq!(html.matches("class=\"edge rf\"").count(), 0, "{html}");
}
