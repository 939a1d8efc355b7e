//! The lockset (Eraser) race detector end to end: `--race-detector
//! lockset|both` on the `c-examples/lockset_*.c` programs, against the
//! happens-before detector on the same executions.

use reach_tests::{bin, build_example, reach, root, schedule_of, scratch, Run};
use serde_json::Value;
use std::collections::BTreeSet;

fn bugs(run: &Run) -> Vec<Value> {
    run.json["bugs"].as_array().cloned().unwrap_or_default()
}

fn message(bug: &Value) -> String {
    bug["message"].as_str().unwrap_or_default().to_string()
}

/// The lock names held at each access of a lockset race, earlier first.
fn locks_held(bug: &Value) -> Vec<Vec<String>> {
    bug["race"]["accesses"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            a["locks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l["name"].as_str().map(str::to_string))
                .collect()
        })
        .collect()
}

#[test]
fn check_then_act_is_a_lockset_race_in_the_first_execution_where_hb_sees_none() {
    let program = build_example("lockset_check_then_act.c");
    // The first execution runs the careful worker first: its unlock orders
    // every access of the hasty one.
    let hb = reach(&program, &["--max-executions", "1"], &[]);
    assert_eq!(hb.code, 3, "{}", hb.stdout);
    assert!(hb.json["bug"].is_null(), "{}", hb.stdout);
    let lockset = reach(
        &program,
        &["--race-detector", "lockset", "--max-executions", "1"],
        &[],
    );
    assert_eq!(lockset.code, 1, "{}\n{}", lockset.stdout, lockset.stderr);
    let bug = &lockset.json["bug"];
    assert_eq!(bug["kind"], "data_race");
    assert_eq!(bug["execution"], 1);
    let text = message(bug);
    assert!(text.starts_with("lockset race on address"), "{text}");
    assert!(text.contains("(counter)"), "{text}");
    assert!(text.contains("(hasty) holding {}"), "{text}");
    assert!(text.contains("(careful) holding {0x"), "{text}");
    assert!(text.contains(" (m)}"), "{text}");
    assert_eq!(bug["race"]["detector"], "lockset");
    assert_eq!(bug["race"]["name"], "counter");
    assert_eq!(
        locks_held(bug),
        vec![vec!["m".to_string()], Vec::new()],
        "careful holds m, hasty nothing"
    );
    assert!(bug["signature"]
        .as_str()
        .is_some_and(|s| s.starts_with("data_race lockset ")));
    // The two racing steps are marked in the trace.
    let marked: Vec<&Value> = bug["trace"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["role"] == "race")
        .collect();
    assert_eq!(marked.len(), 2, "{}", lockset.stdout);
    assert!(lockset
        .stdout
        .contains("reach-native --race-detector lockset --replay"));
    // The schedule replays to the same lockset race.
    let schedule = schedule_of(&program).to_string_lossy().into_owned();
    let replay = reach(
        &program,
        &["--race-detector", "lockset", "--replay", schedule.as_str()],
        &[],
    );
    assert_eq!(replay.code, 1, "{}", replay.stdout);
    assert_eq!(replay.json["bug"]["message"], bug["message"]);
    assert_eq!(replay.json["bug"]["trace"], bug["trace"]);
    // The schedule file names the detector: a replay without the option
    // uses it, one with another detector does not see the race.
    let text = std::fs::read_to_string(&schedule).expect("read the schedule");
    assert!(text.contains("\"race_detector\": \"lockset\""), "{text}");
    let implied = reach(&program, &["--replay", schedule.as_str()], &[]);
    assert_eq!(implied.json["bug"]["message"], bug["message"]);
    let other = reach(
        &program,
        &["--race-detector", "hb", "--replay", schedule.as_str()],
        &[],
    );
    assert_eq!(other.code, 0, "{}", other.stdout);
    let bad = scratch().join("lockset-bad-detector.schedule");
    std::fs::write(&bad, text.replace("\"lockset\"", "\"eraser\"")).expect("write");
    let out = std::process::Command::new(bin("reach-native"))
        .arg("--replay")
        .arg(&bad)
        .arg(&program)
        .output()
        .expect("run reach-native");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("unknown race detector \"eraser\""),
        "{stderr}"
    );
    // Happens-before finds the race only in an execution with the other order.
    let hb = reach(&program, &[], &[]);
    assert_eq!(hb.code, 1, "{}", hb.stdout);
    assert_eq!(hb.json["bug"]["execution"], 2);
    assert_eq!(hb.json["bug"]["race"]["detector"], "happens-before");
}

#[test]
fn keep_going_collects_each_racing_location_once_and_both_is_the_union() {
    let program = build_example("lockset_check_then_act.c");
    let signatures = |detector: &str| -> BTreeSet<String> {
        let run = reach(
            &program,
            &["--race-detector", detector, "--keep-going"],
            &[],
        );
        assert_eq!(run.code, 1, "{detector}: {}", run.stdout);
        assert!(run.complete(), "{detector}");
        // The detector does not change what is explored.
        assert_eq!(run.executions(), 5, "{detector}");
        assert!(bugs(&run).iter().all(|b| b["kind"] == "data_race"));
        run.bug_signatures().into_iter().collect()
    };
    let hb = signatures("hb");
    let lockset = signatures("lockset");
    let both = signatures("both");
    assert!(hb.iter().all(|s| !s.contains("lockset")), "{hb:?}");
    assert!(lockset.iter().all(|s| s.starts_with("data_race lockset ")));
    // One location, `counter`, is inconsistently locked: one bug, whatever
    // the order of the accesses of each execution.
    assert_eq!(lockset.len(), 1, "{lockset:?}");
    assert_eq!(both, hb.union(&lockset).cloned().collect());
    // Parallel workers collect the same lockset races.
    let parallel = reach(
        &program,
        &["--race-detector", "lockset", "--keep-going", "--jobs", "2"],
        &[],
    );
    assert!(parallel.complete());
    let parallel: BTreeSet<String> = parallel.bug_signatures().into_iter().collect();
    assert_eq!(parallel, lockset);
}

#[test]
fn a_correctly_locked_program_with_initialisation_has_no_race() {
    let program = build_example("lockset_locked_counter.c");
    for detector in ["hb", "lockset", "both"] {
        let run = reach(&program, &["--race-detector", detector], &[]);
        assert_eq!(run.code, 0, "{detector}: {}\n{}", run.stdout, run.stderr);
        assert!(run.complete(), "{detector}");
        assert!(run.json["bug"].is_null(), "{detector}: {}", run.stdout);
        assert_eq!(run.executions(), 36, "{detector}");
    }
}

#[test]
fn an_unlock_without_lock_is_a_misuse_with_the_lockset_view() {
    let program = build_example("lockset_unlock_without_lock.c");
    let hb = reach(&program, &[], &[]);
    assert_eq!(hb.code, 1, "{}", hb.stdout);
    assert_eq!(hb.bug_kind().as_deref(), Some("misuse"));
    assert!(!message(&hb.json["bug"]).contains("lockset"));
    let lockset = reach(&program, &["--race-detector", "lockset"], &[]);
    assert_eq!(lockset.code, 1, "{}", lockset.stdout);
    let bug = &lockset.json["bug"];
    assert_eq!(bug["kind"], "misuse");
    // It needs contention: each worker finds the mutex free at first.
    assert_eq!(bug["execution"], 2);
    let text = message(bug);
    assert!(text.contains("unlocks mutex"), "{text}");
    assert!(
        text.ends_with("lockset: unlock without lock, thread 2 holding {}"),
        "{text}"
    );
    assert_eq!(
        bug["message"].as_str().map(|m| m
            .split("; lockset")
            .next()
            .unwrap_or_default()
            .to_string()),
        hb.json["bug"]["message"].as_str().map(str::to_string),
        "the runtime's message, then the detector's view"
    );
    // With --keep-going every distinct misuse is collected, and no race:
    // main reads the counter with the mutex held.
    let all = reach(
        &program,
        &["--race-detector", "lockset", "--keep-going"],
        &[],
    );
    assert!(all.complete());
    assert!(bugs(&all).len() >= 2, "{}", all.stdout);
    assert!(bugs(&all)
        .iter()
        .all(|b| b["kind"] == "misuse" && message(b).contains("lockset: unlock without lock")));
}

#[test]
fn ignore_races_silences_lockset_races_and_bad_values_are_refused() {
    let program = build_example("lockset_check_then_act.c");
    let run = reach(
        &program,
        &["--race-detector", "lockset", "--ignore-races"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.json["bug"].is_null());
    let out = std::process::Command::new(bin("reach-native"))
        .args(["--race-detector", "eraser"])
        .arg(&program)
        .output()
        .expect("run reach-native");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("'eraser'"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn lockset_reports_validate_against_the_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/report.schema.json")).expect("read the schema"),
    )
    .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let runs = [
        reach(
            &build_example("lockset_check_then_act.c"),
            &["--race-detector", "both", "--keep-going"],
            &[],
        ),
        reach(
            &build_example("lockset_unlock_without_lock.c"),
            &["--race-detector", "lockset"],
            &[],
        ),
    ];
    for run in &runs {
        let errors: Vec<String> = validator
            .iter_errors(&run.json)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{}", run.json);
        for bug in bugs(run) {
            for key in bug["race"]
                .as_object()
                .map(|o| o.keys())
                .into_iter()
                .flatten()
            {
                assert!(
                    schema["$defs"]["bug"]["properties"]["race"]["properties"]
                        .get(key)
                        .is_some(),
                    "race field {key} missing from the schema"
                );
            }
        }
    }
}
