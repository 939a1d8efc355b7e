//! Whose nondeterminism: an execution that did not follow its schedule is
//! run again twice in a fresh executor before anything is reported. A
//! program that does not repeat itself (its path depends on
//! `/dev/urandom`) is reported as nondeterministic, with where the runs
//! parted; a schedule the program repeats exactly but did not follow is
//! the search's internal error, said on standard error and counted, and
//! the search goes on.

use reach_tests::{build_example, reach};
use std::process::Command;

/// A program whose steps depend on a byte of `/dev/urandom`: its own
/// nondeterminism, with the likely cause (where a re-run of the schedule
/// parted: another path, or an address that differed).
#[test]
fn a_program_reading_urandom_is_reported_with_the_cause() {
    let program = build_example("nondet_urandom.c");
    // One byte in 256 repeats the first run's; three tries make a false
    // failure one in 16 million.
    let found = (0..3).any(|_| {
        let run = reach(&program, &[], &[]);
        run.bug_kind().as_deref() == Some("nondeterminism")
            && run.json["bug"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("likely cause: "))
            && run.json["internal_errors"] == 0
    });
    assert!(found, "not reported as the program's nondeterminism");
}

/// The test-only switch `REACH_TEST_PERTURB_EXECUTION=N` makes execution
/// N ask for a thread that does not exist, as a search that asked for the
/// impossible would. The program repeats that run exactly, so it is an
/// internal error: no bug, the request to report it with the schedule on
/// standard error, the count in `--stats` and the JSON, and the search
/// goes on to every other execution (one branch short: bounded).
#[test]
fn a_schedule_the_program_cannot_take_is_an_internal_error() {
    let program = build_example("lockfree_stack_giveup.c");
    let json = reach_tests::scratch().join(format!("perturbed-{}.json", std::process::id()));
    let output = Command::new(reach_tests::bin("reach-native"))
        .env("REACH_TEST_PERTURB_EXECUTION", "3")
        .args(["--jobs", "1", "--stats", "--no-await", "--json"])
        .arg(&json)
        .arg(&program)
        .args(["2", "1", "2"])
        .output()
        .expect("run reach-native");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("internal error: execution 3 did not follow its schedule")
            && stderr.contains("Schedule: [[0,")
            && stderr.contains("please report this"),
        "{stderr}"
    );
    assert!(!stderr.contains("unknown variable"), "{stderr}");
    assert!(stdout.contains("internal errors:       1"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report written"))
            .expect("report is JSON");
    assert_eq!(report["internal_errors"], 1);
    assert!(report["bug"].is_null(), "{stdout}");
    assert_eq!(report["complete"], false);
    // The search went on: the unperturbed one runs 57 executions; the
    // perturbed branch and the 2 its subtree would have added are lost.
    assert_eq!(report["executions"], 54, "{stdout}");
    let clean = reach(&program, &["--no-await"], &["2", "1", "2"]);
    assert_eq!(clean.json["internal_errors"], 0);
    assert!(clean.complete());
    assert_eq!(clean.executions(), 57);
}
