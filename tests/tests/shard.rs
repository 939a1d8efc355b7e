//! `--shard I/N` and `reach-native merge`: four shards run one after
//! another and merged explore exactly the partial orders and find exactly
//! the bugs of one unsharded run, each partial order in exactly one shard
//! (the shards' counts add up to the union's); a shard stopped half way
//! makes the merge incomplete; a missing, duplicate or mismatched shard is
//! a one-line error. The example manifests in `docs/sharding/` are parsed
//! and their commands checked against the CLI.

use reach_tests::{bin, build_example, reach, root, scratch, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SHARDS: u32 = 4;

/// Runs shard `index`/`count` of `program` and returns its report's path.
fn run_shard(program: &Path, options: &[&str], args: &[&str], index: u32, count: u32) -> PathBuf {
    let name = program.file_name().and_then(|n| n.to_str()).unwrap_or("p");
    let tag = options.join("").replace(['-', ' ', '/'], "");
    let json = scratch().join(format!("shard-{name}-{tag}-{index}of{count}.json"));
    let _ = std::fs::remove_file(&json);
    let out = Command::new(bin("reach-native"))
        // The same environment as `reach` gives the unsharded run (the
        // environment's size moves the stack, and stack addresses are in
        // the partial orders' fingerprints).
        .env_remove("RUST_BACKTRACE")
        .args(["-q", "--schedule-out"])
        .arg(scratch().join(format!("shard-{name}-{tag}-{index}.schedule")))
        .arg("--json")
        .arg(&json)
        .arg("--shard")
        .arg(format!("{index}/{count}"))
        .args(options)
        .arg(program)
        .args(args)
        .output()
        .expect("run reach-native");
    assert!(
        json.exists(),
        "shard {index}/{count} of {name} wrote no report: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json
}

fn merge(reports: &[PathBuf], out: Option<&Path>) -> Output {
    let mut command = Command::new(bin("reach-native"));
    command.arg("merge");
    if let Some(out) = out {
        command.arg("--json").arg(out);
    }
    command
        .args(reports)
        .output()
        .expect("run reach-native merge")
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("read a report");
    serde_json::from_str(&text).expect("a JSON report")
}

fn strings(report: &Value, field: &str) -> Vec<String> {
    report[field]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn signatures(report: &Value) -> Vec<String> {
    let mut all: Vec<String> = report["bugs"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|b| b["signature"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    all.sort();
    all.dedup();
    all
}

/// Four shards of `file` under `strategy`, merged, against one run.
/// `exact_count`: the strategy's execution count does not depend on the
/// order of the search (exhaustive, rt), so the sums must match too. For
/// dpor and rt (one execution per partial order) each partial order must be
/// in exactly one shard; the exhaustive search runs every interleaving, so
/// there the executions must add up.
fn same_as_unsharded(file: &str, args: &[&str], strategy: &str, exact_count: bool) -> Run {
    let program = build_example(file);
    let options = ["--strategy", strategy, "--keep-going"];
    let one = reach(&program, &[&options[..], &["--stats"]].concat(), args);
    assert!(one.complete(), "{file} {strategy}: {}", one.stderr);
    assert!(!one.fingerprints().is_empty());
    let reports: Vec<PathBuf> = (0..SHARDS)
        .map(|i| run_shard(&program, &options, args, i, SHARDS))
        .collect();
    let out_path = scratch().join(format!("merged-{file}-{strategy}.json"));
    let out = merge(&reports, Some(&out_path));
    let merged = read(&out_path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(merged["complete"], true, "{file} {strategy}: {stdout}");
    assert_eq!(
        strings(&merged, "partial_order_fingerprints"),
        one.fingerprints(),
        "{file} {strategy}: the shards' partial orders differ from one run's"
    );
    let per_shard: usize = reports
        .iter()
        .map(|r| strings(&read(r), "partial_order_fingerprints").len())
        .sum();
    assert!(
        strategy == "exhaustive" || per_shard == one.fingerprints().len(),
        "{file} {strategy}: some partial order was exercised by two shards"
    );
    assert_eq!(
        signatures(&merged),
        {
            let mut s = one.bug_signatures();
            s.dedup();
            s
        },
        "{file} {strategy}: bugs differ"
    );
    if exact_count {
        assert_eq!(
            merged["executions"].as_u64(),
            Some(one.executions()),
            "{file} {strategy}: executions differ"
        );
    }
    let expected_code = if one.bug_signatures().is_empty() {
        0
    } else {
        1
    };
    assert_eq!(out.status.code(), Some(expected_code), "{stdout}");
    one
}

#[test]
fn dpor_dining_deadlock() {
    let one = same_as_unsharded("dining_philosophers.c", &[], "dpor", false);
    assert_eq!(one.bug_kind().as_deref(), Some("deadlock"));
}

#[test]
fn dpor_rare_order_assertion() {
    same_as_unsharded("oracle_rare_order.c", &[], "dpor", false);
}

#[test]
fn dpor_segfault() {
    let one = same_as_unsharded("crash_segfault.c", &[], "dpor", false);
    assert_eq!(one.bug_kind().as_deref(), Some("crash"));
}

#[test]
fn dpor_clean_indexer_and_filesystem() {
    same_as_unsharded("indexer.c", &["13"], "dpor", false);
    same_as_unsharded("filesystem.c", &["18"], "dpor", false);
}

#[test]
fn dpor_lastzero_race() {
    let one = same_as_unsharded("lastzero.c", &[], "dpor", false);
    assert_eq!(one.bug_kind().as_deref(), Some("data_race"));
}

#[test]
fn optimal_examples() {
    let one = same_as_unsharded("dining_philosophers.c", &[], "optimal", false);
    assert_eq!(one.bug_kind().as_deref(), Some("deadlock"));
    let one = same_as_unsharded("lastzero.c", &[], "optimal", false);
    assert_eq!(one.bug_kind().as_deref(), Some("data_race"));
    same_as_unsharded("oracle_rare_order.c", &[], "optimal", false);
    same_as_unsharded("indexer.c", &["13"], "optimal", false);
    same_as_unsharded("filesystem.c", &["18"], "optimal", false);
    same_as_unsharded("bounded_buffer.c", &[], "optimal", false);
    same_as_unsharded("cpp_shared_mutex.cpp", &[], "optimal", false);
}

#[test]
fn rt_examples() {
    same_as_unsharded("indexer.c", &["13"], "rt", true);
    same_as_unsharded("bounded_buffer.c", &[], "rt", true);
    same_as_unsharded("lastzero.c", &[], "rt", true);
    same_as_unsharded("dining_philosophers.c", &[], "rt", true);
}

#[test]
fn exhaustive_examples() {
    same_as_unsharded("oracle_rare_order.c", &[], "exhaustive", true);
    same_as_unsharded("abba_deadlock.c", &[], "exhaustive", true);
    same_as_unsharded("crash_segfault.c", &[], "exhaustive", true);
    same_as_unsharded("oracle_check_then_act.c", &[], "exhaustive", true);
}

/// A shard stopped half way by SIGTERM writes its report (interrupted),
/// and the merge says the search is incomplete (exit status 3).
#[test]
fn a_killed_shard_makes_the_merge_incomplete() {
    let program = build_example("lastzero.c");
    let options = ["--ignore-races", "--keep-going"];
    let reports: Vec<PathBuf> = (1..SHARDS)
        .map(|i| {
            let json = scratch().join(format!("killed-{i}.json"));
            let _ = std::fs::remove_file(&json);
            let status = Command::new(bin("reach-native"))
                .args(["-q", "--json"])
                .arg(&json)
                .args(["--shard", &format!("{i}/{SHARDS}")])
                .args(options)
                .args(["--max-executions", "3"])
                .arg(&program)
                .arg("15")
                .status()
                .expect("run a shard");
            assert!(status.code().is_some());
            json
        })
        .collect();
    // Shard 0 runs until SIGTERM after a second.
    let json = scratch().join("killed-0.json");
    let _ = std::fs::remove_file(&json);
    let mut child = Command::new(bin("reach-native"))
        .args(["-q", "--json"])
        .arg(&json)
        .args(["--shard", &format!("0/{SHARDS}")])
        .args(options)
        .arg(&program)
        .arg("15")
        .spawn()
        .expect("start a shard");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signalling the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().expect("wait for the shard");
    assert_eq!(status.code(), Some(3), "an interrupted shard exits with 3");
    let report = read(&json);
    assert_eq!(report["completion"], "interrupted");
    assert_eq!(report["complete"], false);
    assert!(report["executions"].as_u64().unwrap_or(0) > 0);
    let all: Vec<PathBuf> = std::iter::once(json).chain(reports).collect();
    let out = merge(&all, None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("not complete (shard 0: interrupted)"),
        "{stdout}"
    );
}

/// One-line errors for a missing shard, a duplicate, another program, other
/// options, another N, and a report that is no shard's.
#[test]
fn merge_errors_name_the_shard() {
    let program = build_example("dining_philosophers.c");
    let other = build_example("abba_deadlock.c");
    let opts = ["--keep-going"];
    let r: Vec<PathBuf> = (0..3)
        .map(|i| run_shard(&program, &opts, &[], i, 3))
        .collect();
    let error = |files: &[PathBuf]| {
        let out = merge(files, None);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        stderr
    };
    let missing = error(&[r[0].clone(), r[2].clone()]);
    assert!(missing.contains("shard 1/3 is missing"), "{missing}");
    let twice = error(&[r[0].clone(), r[1].clone(), r[1].clone()]);
    assert!(twice.contains("both shard 1/3"), "{twice}");
    let foreign = run_shard(&other, &opts, &[], 1, 3);
    let build = error(&[r[0].clone(), foreign, r[2].clone()]);
    assert!(build.contains("different program build"), "{build}");
    let strict = run_shard(&program, &["--keep-going", "--ignore-races"], &[], 1, 3);
    let options = error(&[r[0].clone(), strict, r[2].clone()]);
    assert!(
        options.contains("ignore_races true against false"),
        "{options}"
    );
    let four = run_shard(&program, &opts, &[], 1, 4);
    let count = error(&[r[0].clone(), four, r[2].clone()]);
    assert!(count.contains("number of shards"), "{count}");
    let plain = reach(&program, &[], &[]);
    assert_eq!(plain.json["shard"], Value::Null);
    let unsharded = scratch().join("unsharded.json");
    std::fs::write(&unsharded, plain.json.to_string()).expect("write");
    assert!(error(&[unsharded]).contains("without --shard"));
    let garbage = scratch().join("garbage.json");
    std::fs::write(&garbage, b"{\"schema_version\": 2, \"shard\": [\xff").expect("write");
    assert!(error(&[garbage]).contains("not a reach-native JSON report"));
    let complete = merge(&r, None);
    assert_eq!(complete.status.code(), Some(1), "the deadlock is a bug");
}

/// `--shard auto/N` reads the Kubernetes, then the Slurm index; an option
/// the shards cannot use is refused in one line.
#[test]
fn automatic_index_and_refusals() {
    let program = build_example("oracle_lost_signal.c");
    let run = |env: &[(&str, &str)], options: &[&str]| {
        let json = scratch().join("auto.json");
        let _ = std::fs::remove_file(&json);
        let out = Command::new(bin("reach-native"))
            .current_dir(scratch())
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .envs(env.iter().copied())
            .args(["-q", "--json"])
            .arg(&json)
            .args(options)
            .arg(&program)
            .output()
            .expect("run reach-native");
        let report = std::fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        (out, report)
    };
    let (_, k8s) = run(&[("JOB_COMPLETION_INDEX", "2")], &["--shard", "auto/3"]);
    assert_eq!(k8s.map(|r| r["shard"]["index"].clone()), Some(2.into()));
    let (_, slurm) = run(&[("SLURM_ARRAY_TASK_ID", "1")], &["--shard", "auto/3"]);
    assert_eq!(slurm.map(|r| r["shard"]["index"].clone()), Some(1.into()));
    let refused = |env: &[(&str, &str)], options: &[&str], text: &str| {
        let (out, _) = run(env, options);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{options:?}: {stderr}");
        assert!(stderr.contains(text), "{options:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    };
    refused(&[], &["--shard", "auto/3"], "neither JOB_COMPLETION_INDEX");
    refused(
        &[("SLURM_ARRAY_TASK_ID", "3")],
        &["--shard", "auto/3"],
        "--array=0-2",
    );
    refused(&[], &["--shard", "3/3"], "0 <= I < N");
    refused(
        &[],
        &["--shard", "0/2", "--strategy", "pct"],
        "applies to optimal, dpor",
    );
    refused(
        &[],
        &["--shard", "0/2", "--strategy", "unfold"],
        "applies to optimal, dpor",
    );
    refused(&[], &["--shard", "0/2", "--jobs", "2"], "one job per shard");
}

/// A program named `merge` still runs, as `./merge`.
#[test]
fn a_program_named_merge_runs() {
    let program = build_example("oracle_lost_signal.c");
    let dir = scratch().join("named-merge");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::copy(&program, dir.join("merge")).expect("copy");
    let out = Command::new(bin("reach-native"))
        .current_dir(&dir)
        .args(["--jobs", "1", "./merge"])
        .output()
        .expect("run reach-native");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("deadlock"), "{stdout}");
}

/// The files in docs/sharding/ parse, and call `--shard` and `merge` the
/// way the CLI accepts; the shard loop they describe is the one the tests
/// above run.
#[test]
fn sharding_examples_are_valid() {
    let dir = root().join("docs/sharding");
    let text = std::fs::read_to_string(dir.join("github-actions.yml")).expect("read the CI file");
    let ci: serde_yaml::Value = serde_yaml::from_str(&text).expect("the CI example is YAML");
    let shards = &ci["jobs"]["shard"]["strategy"]["matrix"]["shard"];
    assert_eq!(shards.as_sequence().map(Vec::len), Some(4), "{shards:?}");
    assert_eq!(ci["jobs"]["merge"]["needs"].as_str(), Some("shard"));
    assert!(text.contains("--shard ${{ matrix.shard }}/4"), "{text}");
    assert!(text.contains("reach-native merge"), "{text}");

    let k8s_text =
        std::fs::read_to_string(dir.join("kubernetes-job.yaml")).expect("read the manifest");
    let k8s: serde_yaml::Value = serde_yaml::from_str(&k8s_text).expect("the manifest is YAML");
    assert_eq!(k8s["kind"].as_str(), Some("Job"));
    assert_eq!(k8s["spec"]["completionMode"].as_str(), Some("Indexed"));
    assert_eq!(k8s["spec"]["completions"].as_u64(), Some(4));
    assert!(k8s_text.contains("--shard auto/4"), "{k8s_text}");

    let slurm = dir.join("slurm-array.sh");
    let status = Command::new("bash")
        .arg("-n")
        .arg(&slurm)
        .status()
        .expect("run bash -n");
    assert!(status.success(), "the Slurm script is not valid bash");
    let slurm_text = std::fs::read_to_string(&slurm).expect("read the Slurm script");
    assert!(slurm_text.contains("#SBATCH --array=0-3"), "{slurm_text}");
    assert!(slurm_text.contains("--shard auto/4"), "{slurm_text}");
    assert!(slurm_text.contains("reach-native merge"), "{slurm_text}");

    // The commands the examples run are accepted: a shard and the merge.
    let program = build_example("oracle_lost_signal.c");
    let reports: Vec<PathBuf> = (0..4)
        .map(|i| run_shard(&program, &["--keep-going"], &[], i, 4))
        .collect();
    let out = merge(&reports, None);
    assert_eq!(out.status.code(), Some(1), "the lost signal is a deadlock");
}

/// The work of `count` shards of `file` under `strategy`, merged (the
/// merge must be complete): the executions each shard ran (its share and
/// the shared part every shard runs) and the executions the shards
/// counted together.
fn shard_work(file: &str, args: &[&str], strategy: &str, count: u32) -> (Vec<u64>, u64) {
    let program = build_example(file);
    let options = ["--strategy", strategy, "--keep-going", "--ignore-races"];
    let reports: Vec<PathBuf> = (0..count)
        .map(|i| run_shard(&program, &options, args, i, count))
        .collect();
    let out_path = scratch().join(format!("balance-{file}-{strategy}-{count}.json"));
    let out = merge(&reports, Some(&out_path));
    assert_eq!(out.status.code(), Some(0), "{file} {strategy} {count}");
    let merged = read(&out_path);
    let ran: Vec<u64> = merged["shards"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["ran"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(ran.len(), count as usize, "{merged}");
    (ran, merged["executions"].as_u64().unwrap_or(0))
}

/// At 2 and 4 shards the executions each shard runs are within 2x of each
/// other on these examples (BENCHMARKS.md, section Shards, has larger
/// ones).
/// dpor and optimal split only where the choices forcing adds lead to a
/// split (forcing never pays for nothing): where they do not split, one
/// shard ran the whole search and the shards together counted exactly one
/// run's executions.
#[test]
fn shards_are_balanced_within_2x() {
    let cases: [(&str, &[&str], &str); 13] = [
        ("lastzero.c", &[], "optimal"),
        ("filesystem.c", &["18"], "optimal"),
        ("indexer.c", &["13"], "optimal"),
        ("bounded_buffer.c", &[], "optimal"),
        ("lastzero.c", &[], "dpor"),
        ("filesystem.c", &["18"], "dpor"),
        ("indexer.c", &["13"], "dpor"),
        ("bounded_buffer.c", &[], "dpor"),
        ("indexer.c", &["13"], "rt"),
        ("filesystem.c", &["18"], "rt"),
        ("lastzero.c", &["10"], "rt"),
        ("bounded_buffer.c", &[], "rt"),
        ("oracle_fetch_add.c", &[], "exhaustive"),
    ];
    for (file, args, strategy) in cases {
        let program = build_example(file);
        let one = reach(
            &program,
            &["--strategy", strategy, "--keep-going", "--ignore-races"],
            args,
        );
        for count in [2, 4] {
            let (ran, counted) = shard_work(file, args, strategy, count);
            let most = ran.iter().copied().max().unwrap_or(0) as f64;
            let fewest = ran.iter().copied().min().unwrap_or(0).max(1) as f64;
            let unsplit = matches!(strategy, "dpor" | "optimal") && counted == one.executions();
            assert!(
                most / fewest <= 2.0 || unsplit,
                "{file} {strategy} at {count} shards: executions run {ran:?}, {counted} counted"
            );
        }
    }
}
