//! Reports a person can act on: objects named by variable, the source
//! line's text, one column per thread, the JSON report valid against its
//! schema, the JUnit file, the HTML diagram as headless Chromium renders it,
//! source lines for uninstrumented binaries, and the command line's errors.

use reach_tests::{bin, build_example, reach, root, schedule_of, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds `c-examples/<file>` with plain clang (not instrumented), `-g`.
fn build_plain(file: &str) -> PathBuf {
    let out = scratch().join(format!("plain-{file}.out"));
    let status = Command::new("clang-22")
        .args(["-g", "-O1", "-pthread"])
        .arg(root().join("c-examples").join(file))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run clang-22");
    assert!(status.success(), "clang-22 failed on {file}");
    out
}

fn steps(run: &reach_tests::Run) -> Vec<Value> {
    run.json["bug"]["trace"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn objects_are_named_by_variable_field_and_element() {
    let program = build_example("report_names.c");
    // Every access a step, so that every named object is a step's (by
    // default the producer's accesses to `ring` before the consumer's are
    // no steps: tests/tests/private.rs).
    let run = reach(&program, &["--no-private-accesses"], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("data_race"));
    let names: Vec<String> = steps(&run)
        .iter()
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    assert!(names.iter().any(|n| n == "ring.tail"), "{names:?}");
    assert!(names.iter().any(|n| n == "print_lock"), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("ring.slots[")),
        "{names:?}"
    );
    // The racing pair is on ring.tail, and the message names it.
    let message = run.json["bug"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("(ring.tail)"), "{message}");
    let racing: Vec<Value> = steps(&run)
        .iter()
        .filter(|s| s["role"] == "race")
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(racing.len(), 2, "{}", run.stdout);
    assert!(racing.iter().all(|n| *n == "ring.tail"), "{racing:?}");
}

#[test]
fn heap_blocks_and_stack_variables_are_named() {
    let program = build_example("report_heap_names.c");
    let source = std::fs::read_to_string(root().join("c-examples/report_heap_names.c"))
        .expect("read the example");
    let line = 1 + source
        .lines()
        .position(|l| l.contains("struct jobs *jobs = malloc"))
        .expect("the allocation line");
    let allocated_at = format!("(allocated at report_heap_names.c:{line})");
    // Every access a step, so that both racing accesses and main's stack
    // variables are steps of the trace (by default the worker's first
    // store to its job is no step of its own).
    let run = reach(&program, &["--no-private-accesses"], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("data_race"));
    let racing: Vec<String> = steps(&run)
        .iter()
        .filter(|s| s["role"] == "race")
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(racing.len(), 2, "{}", run.stdout);
    assert!(
        racing
            .iter()
            .all(|n| n.starts_with("heap#") && n.ends_with(&allocated_at)),
        "{racing:?}"
    );
    // The block freed before it (most likely at the same address) has
    // another number.
    assert!(!racing[0].starts_with("heap#1 "), "{racing:?}");
    let message = run.json["bug"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&allocated_at), "{message}");
    let names: Vec<String> = steps(&run)
        .iter()
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    for variable in ["T0 stack (main: results)", "T0 stack (main: work)"] {
        assert!(names.iter().any(|n| n.starts_with(variable)), "{names:?}");
    }
    // The terminal report's race lines name the block in full.
    assert!(
        run.stdout
            .lines()
            .any(|l| l.contains("access: step") && l.contains(&racing[0])),
        "{}",
        run.stdout
    );
}

#[test]
fn terminal_report_has_a_column_per_thread_and_the_source_text() {
    let program = build_example("oracle_plain_race.c");
    // Both racing accesses steps (by default the first is no step of its own).
    let run = reach(&program, &["--no-private-accesses"], &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("step"))
        .expect("a table header");
    let columns: Vec<usize> = ["T0", "T1", "T2"]
        .iter()
        .map(|t| lines[header].find(t).expect("a column per thread"))
        .collect();
    // Each step sits in its thread's column.
    for step in steps(&run) {
        let n = step["step"].as_u64().unwrap_or(0);
        let thread = step["thread"].as_u64().unwrap_or(0) as usize;
        let op = step["op"].as_str().unwrap_or_default();
        let row = lines[header + 1..]
            .iter()
            .find(|l| {
                l.get(1..)
                    .is_some_and(|r| r.trim_start().starts_with(&format!("{n} ")))
            })
            .unwrap_or_else(|| panic!("no row for step {n}:\n{}", run.stdout));
        assert_eq!(row.find(op), Some(columns[thread]), "step {n}: {row}");
    }
    // The racing accesses are marked, named and shown with their source text.
    let marked: Vec<&&str> = lines.iter().filter(|l| l.starts_with('*')).collect();
    assert_eq!(marked.len(), 2, "{}", run.stdout);
    assert!(marked
        .iter()
        .any(|l| l.contains("STORE shared") && l.contains("shared = 1;")));
    assert!(marked
        .iter()
        .any(|l| l.contains("LOAD shared") && l.contains("seen = shared;")));
    // Not a terminal: no colour.
    assert!(!run.stdout.contains('\x1b'));
}

#[test]
fn json_reports_validate_against_the_schema() {
    let schema_path = root().join("docs/report.schema.json");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(&schema_path).expect("read docs/report.schema.json"),
    )
    .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let race = build_example("oracle_plain_race.c");
    let deadlock = build_example("abba_deadlock.c");
    let clean = build_example("mutex_counter.c");
    let shards = [
        reach(&deadlock, &["--keep-going", "--shard", "0/2"], &[]),
        reach(&deadlock, &["--keep-going", "--shard", "1/2"], &[]),
    ];
    let files: Vec<std::path::PathBuf> = shards
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let path = reach_tests::scratch().join(format!("schema-shard-{i}.json"));
            std::fs::write(&path, run.json.to_string()).expect("write a shard report");
            path
        })
        .collect();
    let merged_path = reach_tests::scratch().join("schema-merged.json");
    let merge = std::process::Command::new(reach_tests::bin("reach-native"))
        .args(["merge", "-q", "--json"])
        .arg(&merged_path)
        .args(&files)
        .status()
        .expect("run reach-native merge");
    assert_eq!(merge.code(), Some(1), "the merged deadlock");
    let merged: Value = std::fs::read_to_string(&merged_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    assert_eq!(merged["shards"].as_array().map(Vec::len), Some(2));
    let runs = [
        reach(&race, &[], &[]),
        reach(&deadlock, &["--keep-going"], &[]),
        reach(&clean, &["--stats"], &[]),
        reach(&build_plain("abba_deadlock.c"), &[], &[]),
        reach(&build_example("concolic_input_deadlock.c"), &[], &[]),
    ];
    let reports = runs
        .iter()
        .chain(&shards)
        .map(|run| {
            assert!(run.json.is_object(), "no report: {}", run.stderr);
            &run.json
        })
        .chain(std::iter::once(&merged));
    for json in reports {
        let errors: Vec<String> = validator
            .iter_errors(json)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{json}");
        assert_eq!(json["schema_version"], 2);
        // The schema documents every field the report has.
        let documented = |defs: &Value, value: &Value| {
            for key in value.as_object().map(|o| o.keys()).into_iter().flatten() {
                assert!(
                    defs["properties"].get(key).is_some(),
                    "field {key} missing from the schema"
                );
            }
        };
        documented(&schema, json);
        if json["bug"].is_object() {
            documented(&schema["$defs"]["bug"], &json["bug"]);
            documented(&schema["$defs"]["step"], &json["bug"]["trace"][0]);
        }
    }
    assert!(runs[2].json["bug"].is_null());
    assert_eq!(runs[1].bug_kind().as_deref(), Some("deadlock"));
    assert_eq!(runs[1].json["bug"]["inputs"], serde_json::json!([]));
    assert_eq!(runs[4].json["bug"]["inputs"][0]["name"], "mode");
    assert_eq!(runs[4].json["bug"]["inputs"][0]["bytes"], "03000000");
}

/// The dining philosophers' deadlock report: each elided stretch is said
/// once, and the steps it leaves out add up with the steps shown to the
/// trace; the folded run of `main` keeps its three `SPAWN` steps; the
/// location column keeps each file name whole; the JUnit message says the
/// kind once; the HTML page's info panel is not empty.
#[test]
fn folded_reports_keep_spawns_file_names_and_say_each_thing_once() {
    let program = build_example("dining_philosophers.c");
    let junit = scratch().join("dining.junit.xml");
    let page = scratch().join("dining.html");
    let run = reach(
        &program,
        &[
            "--junit",
            junit.to_str().unwrap_or_default(),
            "--html",
            page.to_str().unwrap_or_default(),
        ],
        &[],
    );
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("deadlock"),
        "{}",
        run.stdout
    );
    let table: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Interleaving"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    let mut accounted = 0;
    let mut last_elided = false;
    for line in &table {
        if let Some(n) = line
            .trim()
            .strip_prefix("... ")
            .and_then(|l| l.split(' ').next())
        {
            assert!(
                !last_elided,
                "an elided stretch said twice:\n{}",
                run.stdout
            );
            accounted += n.parse::<u64>().unwrap_or(0);
            last_elided = true;
        } else {
            accounted += 1;
            last_elided = false;
        }
    }
    assert_eq!(
        accounted,
        run.json["bug"]["steps_recorded"].as_u64().unwrap_or(0),
        "{}",
        run.stdout
    );
    assert_eq!(
        table.iter().filter(|l| l.contains("SPAWN thread")).count(),
        3,
        "{}",
        run.stdout
    );
    assert!(
        table
            .iter()
            .filter(|l| !l.trim().starts_with("..."))
            .all(|l| l.contains("dining_philosophers.c:") && !l.contains('~')),
        "{}",
        run.stdout
    );
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    assert!(
        xml.contains("message=\"deadlock: every live thread"),
        "{xml}"
    );
    assert!(!xml.contains("deadlock: deadlock"), "{xml}");
    let html = std::fs::read_to_string(&page).expect("the HTML file");
    let info = html
        .split("<div id=\"info\">")
        .nth(1)
        .and_then(|rest| rest.split("</div>").next())
        .unwrap_or_default();
    assert!(
        info.starts_with("step ") && info.contains("M_LOCK"),
        "{info}"
    );
}

/// A race on one byte of a granule whose other bytes two threads write
/// race-free: the report names the byte's variable and field, by both
/// detectors (the address used to be the granule's first byte, named
/// after whatever variable lay there: `completed.0`).
#[test]
fn a_race_names_the_byte_accessed_not_a_neighbour_in_its_granule() {
    let program = build_example("bytes_one_byte_race.c");
    for detector in ["happens-before", "lockset"] {
        let option = if detector == "lockset" {
            "lockset"
        } else {
            "hb"
        };
        let run = reach(&program, &["--race-detector", option], &[]);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("data_race"),
            "{}",
            run.stdout
        );
        let race = &run.json["bug"]["race"];
        assert_eq!(race["detector"], detector, "{race}");
        assert_eq!(race["name"], "state.owner", "{detector}: {race}");
        assert!(run.stdout.contains("(state.owner)"), "{}", run.stdout);
    }
    // Two bit-fields of one byte are one location, named by both.
    let run = reach(&build_example("bytes_bitfield_race.c"), &[], &[]);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.json["bug"]["race"]["name"], "bits.{low,high}",
        "{}",
        run.stdout
    );
}

#[test]
fn junit_reports_a_bug_as_a_failure_with_its_replay_command() {
    let program = build_example("abba_deadlock.c");
    let junit = scratch().join("abba.junit.xml");
    let run = reach(
        &program,
        &["--junit", junit.to_str().unwrap_or_default()],
        &[],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(
        xml.contains("tests=\"1\" failures=\"1\" errors=\"0\""),
        "{xml}"
    );
    assert!(xml.contains("<failure type=\"deadlock\""), "{xml}");
    let schedule = schedule_of(&program);
    assert!(
        xml.contains(&format!("reach-native --replay {}", schedule.display())),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 1);

    let clean = build_example("mutex_counter.c");
    let junit = scratch().join("mutex_counter.junit.xml");
    let run = reach(
        &clean,
        &["--junit", junit.to_str().unwrap_or_default()],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    assert!(
        xml.contains("tests=\"1\" failures=\"0\" errors=\"0\""),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");
    assert!(xml.contains("executions, stop: complete"), "{xml}");
}

#[test]
fn uninstrumented_binaries_get_source_locations_from_dwarf() {
    let program = build_plain("abba_deadlock.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("deadlock"));
    assert_eq!(run.json["instrumented"], false);
    let steps = steps(&run);
    assert!(!steps.is_empty());
    for step in &steps {
        let location = step["location"].as_str().unwrap_or_default();
        assert!(
            location.contains("abba_deadlock.c:"),
            "step without a source location: {step}"
        );
    }
    let locks: Vec<(String, String)> = steps
        .iter()
        .filter(|s| s["op"] == "M_LOCK")
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["source"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(!locks.is_empty(), "{}", run.stdout);
    for (name, source) in &locks {
        assert!(name == "a" || name == "b", "{locks:?}");
        assert_eq!(
            source,
            &format!("pthread_mutex_lock(&{name});"),
            "{locks:?}"
        );
    }
    let message = run.json["bug"]["message"].as_str().unwrap_or_default();
    assert!(!message.contains("(site 0x"), "{message}");
}

#[test]
fn program_in_the_current_directory_runs_without_a_path() {
    let program = build_example("oracle_plain_race.c");
    let dir = scratch().join("bare-name");
    std::fs::create_dir_all(&dir).expect("make a directory");
    std::fs::copy(&program, dir.join("a.out")).expect("copy the program");
    let output = Command::new(bin("reach-native"))
        .args(["--jobs", "1", "--quiet", "a.out"])
        .current_dir(&dir)
        .output()
        .expect("run reach-native");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("BUG: data race"), "{stdout}");
}

#[test]
fn errors_are_one_line_naming_the_fix() {
    let run = |args: &[&str]| {
        let output = Command::new(bin("reach-native"))
            .args(args)
            .current_dir(scratch())
            .output()
            .expect("run reach-native");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&["no-such-program"]);
    assert_eq!(code, Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("not found") && stderr.contains("reach-cc"),
        "{stderr}"
    );

    // A schedule from another program.
    let race = build_example("oracle_plain_race.c");
    let other = build_example("mutex_counter.c");
    let first = reach(&race, &[], &[]);
    assert_eq!(first.code, 1);
    let schedule = schedule_of(&race);
    let (code, stderr) = run(&[
        "--quiet",
        "--replay",
        schedule.to_str().unwrap_or_default(),
        other.to_str().unwrap_or_default(),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("was recorded for program"), "{stderr}");

    // --help shows examples.
    let output = Command::new(bin("reach-native"))
        .arg("--help")
        .output()
        .expect("run reach-native --help");
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(
        help.contains("Examples:") && help.contains("--html bug.html"),
        "{help}"
    );
}

/// Chromium, if installed.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .filter_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
        .next()
}

fn headless(chromium: &Path, args: &[&str], page: &Path) -> String {
    let output = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--allow-file-access-from-files",
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The HTML diagram as a browser renders it: a lane per thread, the racing
/// steps marked, the source line in each step's tooltip data; a screenshot
/// is saved next to the page. Without Chromium the test is skipped with a
/// message, unless `CI_REQUIRE_CHROMIUM` is set (CI sets it).
#[test]
fn html_diagram_renders_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        assert!(
            std::env::var_os("CI_REQUIRE_CHROMIUM").is_none(),
            "chromium is not installed, and CI_REQUIRE_CHROMIUM is set"
        );
        eprintln!("SKIPPED html_diagram_renders_in_headless_chromium: chromium is not installed (apt-get install chromium)");
        return;
    };
    let program = build_example("oracle_plain_race.c");
    let page = scratch().join("oracle_plain_race.html");
    // Both racing accesses steps (by default the first is no step of its own).
    let run = reach(
        &program,
        &[
            "--html",
            page.to_str().unwrap_or_default(),
            "--no-private-accesses",
        ],
        &[],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let html = std::fs::read_to_string(&page).expect("the HTML file");
    assert!(
        !html.contains("http://") || !html.contains("<link"),
        "no external resources"
    );
    assert!(!html.contains("src=\"http"), "no external resources");

    let dom = headless(&chromium, &["--dump-dom"], &page);
    let threads = run.json["bug"]["thread_steps"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(threads, 3);
    assert_eq!(dom.matches("<g class=\"lane\"").count(), threads, "{dom}");
    let racing: Vec<u64> = steps(&run)
        .iter()
        .filter(|s| s["role"] == "race")
        .filter_map(|s| s["step"].as_u64())
        .collect();
    assert_eq!(racing.len(), 2);
    for step in &racing {
        assert!(
            dom.contains(&format!("<g class=\"step bug\" data-step=\"{step}\"")),
            "racing step {step} not marked: {dom}"
        );
    }
    assert_eq!(dom.matches("class=\"race-link\"").count(), 1);
    assert_eq!(
        dom.matches("<g class=\"step").count(),
        steps(&run).len(),
        "a point per step"
    );
    assert!(dom.contains("data-source=\"static void *writer"), "{dom}");
    assert!(
        dom.contains("class=\"edge create\""),
        "creation arrows: {dom}"
    );

    let shot = scratch().join("oracle_plain_race.png");
    let _ = std::fs::remove_file(&shot);
    headless(
        &chromium,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,900",
        ],
        &page,
    );
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}

/// `--replay FILE --html` draws any saved schedule, also one without a bug.
#[test]
fn html_draws_a_replayed_schedule_without_a_bug() {
    let program = build_example("mutex_counter.c");
    let record = scratch().join("mutex_counter.record");
    let first = reach(
        &program,
        &["--record", record.to_str().unwrap_or_default()],
        &[],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let page = scratch().join("mutex_counter.html");
    let replay = reach(
        &program,
        &[
            "--replay",
            record.to_str().unwrap_or_default(),
            "--html",
            page.to_str().unwrap_or_default(),
        ],
        &[],
    );
    assert_eq!(replay.code, 0, "{}", replay.stderr);
    let html = std::fs::read_to_string(&page).expect("the HTML file");
    assert_eq!(html.matches("<g class=\"lane\"").count(), 3, "{html}");
    assert!(
        html.contains("class=\"edge lock\""),
        "unlock -> lock arrows: {html}"
    );
    assert!(!html.contains("step bug"));
    assert!(
        html.contains("<div id=\"info\">Hover a step to see"),
        "an empty info panel: {html}"
    );
}
