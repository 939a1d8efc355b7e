//! `--jobs 2` explores exactly the partial orders and finds exactly the bugs
//! of `--jobs 1`, on programs with and without bugs.

use reach_tests::{build_example, reach};

fn same_as_one_job(file: &str, args: &[&str]) {
    let program = build_example(file);
    let options = ["--keep-going", "--stats", "--ignore-races"];
    let one = reach(&program, &[&["--jobs", "1"][..], &options].concat(), args);
    let two = reach(&program, &[&["--jobs", "2"][..], &options].concat(), args);
    assert!(one.complete() && two.complete(), "{file}: {}", two.stderr);
    assert!(!one.fingerprints().is_empty());
    assert_eq!(
        one.fingerprints(),
        two.fingerprints(),
        "{file}: partial orders differ"
    );
    assert_eq!(
        one.bug_signatures(),
        two.bug_signatures(),
        "{file}: bugs differ"
    );
}

#[test]
fn indexer() {
    same_as_one_job("indexer.c", &["13"]);
}

#[test]
fn filesystem() {
    same_as_one_job("filesystem.c", &["18"]);
}

#[test]
fn bounded_buffer() {
    same_as_one_job("bounded_buffer.c", &[]);
}

#[test]
fn rare_order_assertion() {
    same_as_one_job("oracle_rare_order.c", &[]);
}

#[test]
fn segfault() {
    same_as_one_job("crash_segfault.c", &[]);
}

#[test]
fn dining_deadlock() {
    same_as_one_job("dining_philosophers.c", &[]);
}

#[test]
fn condvars() {
    same_as_one_job("cpp_condvar.cpp", &[]);
}

/// Without `--keep-going` the first bug stops every worker.
#[test]
fn a_bug_stops_the_workers() {
    let program = build_example("dining_philosophers.c");
    let run = reach(&program, &["--jobs", "2"], &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.bug_kind().as_deref(), Some("deadlock"));
}
