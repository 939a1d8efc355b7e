//! DPOR and optimal DPOR (the default strategy) under `--memory-model
//! rc11`: each search explores each atomic load's reads-from choices (and
//! each store's place in modification order) at the node of its step, and
//! reverses races as under sequential consistency. Their distinct
//! reads-from graphs must equal the RC11 oracle's consistent executions on
//! the litmus set and the exhaustive search's on the memory-model
//! examples, and they must find every bug the exhaustive search finds
//! there, in far fewer executions.

use crate::memory_model::{
    assert_litmus_graphs_equal_the_oracle, assert_replays, assert_weak_outcome_replays,
};
use reach_tests::{build_example, reach, Run};

const DPOR: &[&str] = &["--memory-model", "rc11", "--strategy", "dpor"];
const OPTIMAL: &[&str] = &["--memory-model", "rc11", "--strategy", "optimal"];
const EXHAUSTIVE: &[&str] = &["--memory-model", "rc11", "--strategy", "exhaustive"];
/// The searches under test.
const SEARCHES: [&[&str]; 2] = [DPOR, OPTIMAL];

/// The run's distinct reads-from graphs.
fn graphs(run: &Run) -> Option<u64> {
    run.json["reads_from_graphs"].as_u64()
}

/// Every litmus test and ordering: each search's distinct reads-from
/// graphs are the oracle's RC11-consistent executions, and it runs far
/// fewer executions than the exhaustive search (IRIW relaxed: 16 graphs
/// in 79 executions against 78,378).
#[test]
fn dpor_reads_from_graphs_equal_the_oracle() {
    let program = build_example("mm_litmus.c");
    for search in SEARCHES {
        assert_litmus_graphs_equal_the_oracle(search);
        let iriw = reach(&program, search, &["iriw", "rlx"]);
        assert!(
            iriw.executions() < 200,
            "IRIW: {} executions under {search:?} (the exhaustive search runs 78,378)",
            iriw.executions()
        );
    }
}

/// The outcomes only weak memory allows are found by DPOR under RC11 and
/// replayed from the schedule file; `seq_cst` fences order each other
/// (Dekker with the fence is clean, below), and under sequential
/// consistency DPOR runs as before.
#[test]
fn dpor_finds_the_weak_outcomes_and_replays_them() {
    let program = build_example("mm_litmus.c");
    for (name, order) in [
        ("sb", "rlx"),
        ("sb", "ra"),
        ("mp", "rlx"),
        ("iriw", "rlx"),
        ("iriw", "ra"),
        ("wrc", "rlx"),
        ("r", "rlx"),
        ("2+2w", "rlx"),
        ("2+2w", "ra"),
        ("s", "rlx"),
        ("cas", "rlx"),
        ("fadd", "rlx"),
        ("mp2", "rlx"),
    ] {
        for search in SEARCHES {
            assert_weak_outcome_replays(&program, search, name, order);
        }
    }
    for (name, order) in [("lb", "rlx"), ("mp", "ra"), ("wrc", "ra"), ("2fadd", "rlx")] {
        for search in SEARCHES {
            let run = reach(&program, search, &[name, order, "check"]);
            assert_eq!(run.code, 0, "{name} {order} {search:?}: {}", run.stdout);
            assert!(run.complete(), "{name} {order} {search:?}");
        }
    }
    for strategy in ["dpor", "optimal"] {
        let sc = reach(
            &program,
            &["--strategy", strategy],
            &["iriw", "rlx", "check"],
        );
        assert_eq!(sc.code, 0, "{}", sc.stdout);
        assert!(sc.json["reads_from_graphs"].is_null());
    }
}

/// The memory-model examples: where the exhaustive search ends (or stops
/// at the bug), DPOR finds the same bug or the same reads-from graphs.
#[test]
fn dpor_explores_the_examples_as_the_exhaustive_search_does() {
    for (file, args) in [
        ("mm_message_passing.c", &[][..]),
        ("mm_message_passing.c", &["release"][..]),
        ("mm_plain_message.c", &[][..]),
        ("mm_plain_message.c", &["fences"][..]),
        ("mm_peterson.c", &["dekker"][..]),
        ("mm_peterson.c", &["peterson"][..]),
        ("mm_peterson.c", &["peterson", "fence"][..]),
        ("mm_refcount.c", &["relaxed"][..]),
        ("mm_refcount.c", &["release"][..]),
        ("mm_dcl.c", &["relaxed"][..]),
        ("mm_dcl.cpp", &["relaxed"][..]),
        ("mm_spsc_ring.c", &["relaxed"][..]),
        ("mm_seqlock.c", &["no-write-fence"][..]),
        ("mm_seqlock.c", &["no-read-fence"][..]),
    ] {
        let program = build_example(file);
        let exhaustive = reach(&program, EXHAUSTIVE, args);
        for search in SEARCHES {
            let run = reach(&program, search, args);
            assert_eq!(
                run.bug_kind(),
                exhaustive.bug_kind(),
                "{file} {args:?} {search:?}: {}",
                run.stdout
            );
            if run.bug_kind().is_some() {
                assert_replays(&program, args, &run);
            } else {
                assert!(run.complete() && exhaustive.complete(), "{file} {args:?}");
                assert_eq!(graphs(&run), graphs(&exhaustive), "{file} {args:?}");
            }
        }
    }
}

/// The twins the exhaustive search takes long over (the `Arc`-shaped
/// count: 531 executions; the C singleton: 3,705; Dekker with a `seq_cst`
/// fence: 72,233; Peterson with an exchange: 319,926; the fenced seqlock:
/// 37,651) both searches complete clean with the same reads-from graphs: 2, 4, 3,
/// 6 and 18. The ring with release/acquire indices
/// and the C++ singleton, which the exhaustive search does not finish in
/// minutes, are clean too.
#[test]
fn dpor_completes_the_twins_the_exhaustive_search_takes_minutes_over() {
    for (file, args, expected) in [
        ("mm_refcount.c", &["arc"][..], Some(2)),
        ("mm_dcl.c", &["acquire"][..], Some(4)),
        ("mm_peterson.c", &["dekker", "fence"][..], Some(3)),
        ("mm_peterson.c", &["peterson", "xchg"][..], Some(6)),
        ("mm_seqlock.c", &["fenced"][..], Some(18)),
        ("mm_spsc_ring.c", &["release"][..], None),
        ("mm_dcl.cpp", &["acquire"][..], None),
    ] {
        let program = build_example(file);
        for search in SEARCHES {
            let run = reach(&program, search, args);
            assert_eq!(run.code, 0, "{file} {args:?} {search:?}: {}", run.stdout);
            assert!(run.complete(), "{file} {args:?} {search:?}: not complete");
            if expected.is_some() {
                assert_eq!(graphs(&run), expected, "{file} {args:?} {search:?}");
            }
        }
    }
}

/// Litmus tests whose reads-from choices lie at several nodes of the
/// search, and their RC11-consistent executions (the oracle's counts).
const SPLIT_LITMUS: [(&str, &str, u64); 8] = [
    ("mp", "rlx", 4),
    ("sb", "rlx", 4),
    ("iriw", "rlx", 16),
    ("wrc", "rlx", 8),
    ("wrc", "ra", 7),
    ("2+2w", "rlx", 4),
    ("r", "rlx", 4),
    ("mp2", "rlx", 6),
];

/// The keys of the run's distinct reads-from graphs.
fn graph_keys(run: &Run) -> Vec<String> {
    run.json["reads_from_graph_keys"]
        .as_array()
        .map(|keys| {
            keys.iter()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// With `--jobs 2` and `--jobs 3`, DPOR and optimal DPOR hand a node's
/// remaining reads-from choices to a worker as they hand threads and
/// wakeup branches: the split search explores exactly the reads-from
/// graphs of one job, complete, and finds the bug. (Before, a split
/// search lost them — relaxed message passing gave 3 graphs of 4 and never
/// ran the stale read — and optimal DPOR ran one job under `rc11`.)
#[test]
fn jobs_under_rc11_keep_every_reads_from_graph() {
    let program = build_example("mm_litmus.c");
    for search in SEARCHES {
        for (name, order, expected) in SPLIT_LITMUS {
            let jobs = |n: &str| {
                let options: Vec<&str> = search.iter().copied().chain(["--jobs", n]).collect();
                reach(&program, &options, &[name, order])
            };
            let one = jobs("1");
            // Three workers: busy ones share parts of their subtrees too.
            for many in [jobs("2"), jobs("3")] {
                for run in [&one, &many] {
                    assert!(run.complete(), "{name} {order} {search:?}: {}", run.stdout);
                    assert_eq!(graphs(run), Some(expected), "{name} {order} {search:?}");
                    assert!(
                        !run.stderr.contains("exploring with one job"),
                        "{search:?}: {}",
                        run.stderr
                    );
                }
                let keys = graph_keys(&many);
                assert_eq!(keys, graph_keys(&one), "{name} {order} {search:?}");
            }
        }
        let options: Vec<&str> = search.iter().copied().chain(["--jobs", "2"]).collect();
        let check = reach(&program, &options, &["mp", "rlx", "check"]);
        assert_eq!(check.bug_kind().as_deref(), Some("assertion"), "{search:?}");
    }
}

/// `--shard K/N` under `rc11`: the shards' reads-from graphs together
/// are one job's, for 2 and 3 shards, and each shard ends complete (its
/// part of the tree explored).
#[test]
fn shards_under_rc11_keep_every_reads_from_graph() {
    let program = build_example("mm_litmus.c");
    for search in SEARCHES {
        for (name, order, expected) in SPLIT_LITMUS {
            let one = reach(&program, search, &[name, order]);
            assert_eq!(graphs(&one), Some(expected), "{name} {order} {search:?}");
            let mut whole = graph_keys(&one);
            whole.sort();
            for n in [2, 3] {
                let mut union: Vec<String> = Vec::new();
                for k in 0..n {
                    let shard = format!("{k}/{n}");
                    let options: Vec<&str> = search
                        .iter()
                        .copied()
                        .chain(["--shard", shard.as_str()])
                        .collect();
                    let run = reach(&program, &options, &[name, order]);
                    assert_eq!(
                        run.code, 0,
                        "{name} {order} {shard} {search:?}: {}",
                        run.stderr
                    );
                    assert!(
                        !run.stderr.contains("running --memory-model sc"),
                        "{}",
                        run.stderr
                    );
                    union.extend(graph_keys(&run));
                }
                union.sort();
                union.dedup();
                assert_eq!(union, whole, "{name} {order} {n} shards {search:?}");
            }
        }
    }
}
