//! Whose nondeterminism: an execution that did not follow its schedule is
//! run again twice in a fresh executor before anything is reported. A
//! program that does not repeat itself (its path depends on
//! `/dev/urandom`, `getrandom`, an address the kernel randomises) is
//! reported as nondeterministic, with the likely cause the runtime saw
//! and its source line, and where the runs parted; a schedule the program
//! repeats exactly but did not follow is the search's internal error, said
//! on standard error and counted, and the search goes on.

use reach_tests::{build_example, reach, Run};
use serde_json::Value;
use std::process::Command;

/// The bug message of `run` if it reported the program's nondeterminism
/// (and no internal error).
fn nondeterminism(run: &Run) -> Option<String> {
    (run.bug_kind().as_deref() == Some("nondeterminism") && run.json["internal_errors"] == 0)
        .then(|| run.json["bug"]["message"].as_str().map(str::to_string))
        .flatten()
}

/// The run of `program` (built from a random-byte example) that reported
/// its nondeterminism, of at most three: its steps depend on one random
/// byte, and a run whose two executions drew the same byte (1 in 256)
/// finds nothing to report.
fn random_byte_run(program: &std::path::Path) -> (Run, String) {
    let mut last = String::new();
    for _ in 0..3 {
        let run = reach(program, &[], &[]);
        if let Some(message) = nondeterminism(&run) {
            return (run, message);
        }
        last = run.stdout;
    }
    panic!("three runs without nondeterminism: {last}")
}

/// A program whose steps depend on a byte of `/dev/urandom`: its own
/// nondeterminism, with the likely cause the runtime saw, at its line, in
/// the text and as a record of the JSON report.
#[test]
fn a_program_reading_urandom_is_reported_with_the_cause() {
    let program = build_example("nondet_urandom.c");
    let (run, message) = random_byte_run(&program);
    assert!(
        message.contains("likely cause: the program read /dev/urandom at ")
            && message.contains("nondet_urandom.c:31:20 (main)"),
        "{message}"
    );
    // The JSON report gives the causes as records: kind, site and step.
    let cause = &run.json["bug"]["causes"][0];
    assert_eq!(cause["kind"], "dev_urandom", "{}", run.json["bug"]);
    assert!(
        cause["site"]
            .as_str()
            .is_some_and(|s| s.contains("nondet_urandom.c:31:20")),
        "{cause}"
    );
    assert!(cause["step"].as_u64().is_some(), "{cause}");
}

/// `getrandom(2)` is named the same way.
#[test]
fn a_program_calling_getrandom_is_reported_with_the_cause() {
    let program = build_example("nondet_getrandom.c");
    let (_, message) = random_byte_run(&program);
    assert!(
        message.contains("likely cause: the program called getrandom at ")
            && message.contains("nondet_getrandom.c:29:9 (main)"),
        "{message}"
    );
}

/// A program whose path depends on a file it appends to outside the
/// working directory (which the run does not watch): the runtime noted
/// the file, and the report names it, changed during the run, with the
/// line that opened it.
#[test]
fn a_program_keeping_state_in_a_file_elsewhere_is_reported_with_the_file() {
    let program = build_example("nondet_state_file.c");
    let state = reach_tests::scratch().join(format!("state-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&state);
    let path = state.to_string_lossy().into_owned();
    let run = reach(&program, &[], &[&path]);
    let message = nondeterminism(&run).unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        message.contains(&format!(
            "likely cause: the file {path}, opened by the program at "
        )) && message
            .contains("nondet_state_file.c:37:19 (main), also for writing, changed during the run"),
        "{message}"
    );
    let _ = std::fs::remove_file(&state);
}

/// A program that branches on a heap address: reach-native turns address
/// randomisation off for the programs it runs, so the address is the same
/// in every execution (and in the fresh processes of a re-run), and the
/// search completes with its 2 executions.
#[test]
fn an_address_dependent_branch_is_deterministic_without_address_randomisation() {
    let program = build_example("nondet_address.c");
    for options in [&[][..], &["--no-fork-server"][..]] {
        let run = reach(&program, options, &[]);
        assert_eq!(run.bug_kind(), None, "{options:?}: {}", run.stdout);
        assert_eq!(run.json["internal_errors"], 0);
        assert!(run.complete(), "{options:?}: {}", run.stdout);
        assert_eq!(run.executions(), 2, "{options:?}");
    }
}

/// Where the system forbids turning address randomisation off (a
/// container's seccomp profile, here a filter that fails
/// `personality(ADDR_NO_RANDOMIZE)` as Docker's does), every process has
/// other addresses: with a process per execution the branch on an address
/// takes another path, reported as the program's nondeterminism with
/// address randomisation as the likely cause.
#[test]
fn an_address_dependent_branch_under_address_randomisation_names_it() {
    let program = build_example("nondet_address.c");
    let json = reach_tests::scratch().join(format!("aslr-{}.json", std::process::id()));
    // A working directory of its own: other tests write into the scratch
    // directory, and a file changed during the run would be named first.
    let workdir = reach_tests::scratch().join(format!("cwd-aslr-{}", std::process::id()));
    std::fs::create_dir_all(&workdir).expect("create a working directory");
    let mut command = Command::new(reach_tests::bin("reach-native"));
    command
        .current_dir(&workdir)
        .args(["--jobs", "1", "--no-fork-server", "--json"])
        .arg(&json)
        .arg(&program);
    forbid_turning_off_address_randomisation(&mut command);
    let output = command.output().expect("run reach-native");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report written"))
            .expect("report is JSON");
    assert_eq!(report["bug"]["kind"], "nondeterminism", "{stdout}");
    let message = report["bug"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("likely cause: address randomisation is on")
            && message.contains("an address that differed"),
        "{message}"
    );
}

/// Makes `command` run under a seccomp filter that fails
/// `personality(2)` with `EPERM` unless it only asks for the current
/// personality (`0xffffffff`), as container runtimes' default profiles do.
fn forbid_turning_off_address_randomisation(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    let filter = [
        op(LD_W_ABS, 0, 0, 4), // the architecture
        op(JEQ_K, 0, 5, AUDIT_ARCH_X86_64),
        op(LD_W_ABS, 0, 0, 0), // the system call
        op(JEQ_K, 0, 3, libc::SYS_personality as u32),
        op(LD_W_ABS, 0, 0, 16), // its first argument's low half
        op(JEQ_K, 1, 0, 0xffff_ffff),
        op(RET_K, 0, 0, RET_ERRNO | libc::EPERM as u32),
        op(RET_K, 0, 0, RET_ALLOW),
    ];
    // SAFETY: between fork and exec, only prctl system calls on a filter
    // that lives in the closure.
    unsafe {
        command.pre_exec(move || {
            let program = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &program as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
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
    // The search went on: the unperturbed one runs 60 executions; the
    // perturbed branch and the 2 its subtree would have added are lost.
    assert_eq!(report["executions"], 57, "{stdout}");
    let clean = reach(&program, &["--no-await"], &["2", "1", "2"]);
    assert_eq!(clean.json["internal_errors"], 0);
    assert!(clean.complete());
    assert_eq!(clean.executions(), 60);
}

/// A deterministic program whose thread depends on memory that code built
/// without instrumentation changes (a parker as Rust's precompiled std
/// has), after reading random bytes it never branches on: the searches
/// that predict steps from other executions' events (optimal, rt) find a
/// predicted step not taken, and say it is a hidden dependency, not the
/// program's nondeterminism and not an internal error; the search goes on
/// and is bounded. dpor predicts no step and completes.
#[test]
fn a_dependency_in_uninstrumented_code_is_not_the_programs_nondeterminism() {
    let program = build_example("hidden_parker.c");
    for strategy in ["optimal", "rt"] {
        let run = reach(&program, &["--strategy", strategy, "--stats"], &[]);
        assert_eq!(run.bug_kind(), None, "{strategy}: {}", run.stdout);
        assert_eq!(run.json["internal_errors"], 0, "{strategy}: {}", run.stderr);
        let hidden = run.json["hidden_dependencies"].as_u64().unwrap_or(0);
        assert!(hidden > 0, "{strategy}: {}", run.stdout);
        assert!(!run.complete(), "{strategy}: {}", run.stdout);
        assert!(
            run.stdout
                .contains("through dependencies in code built without reach-cc")
                || run
                    .stdout
                    .contains("through a dependency in code built without reach-cc"),
            "{strategy}: {}",
            run.stdout
        );
        assert!(
            run.stderr
                .contains("a thread depends on memory that no instrumented access shows"),
            "{strategy}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("please report"),
            "{strategy}: {}",
            run.stderr
        );
    }
    let dpor = reach(&program, &["--strategy", "dpor"], &[]);
    assert_eq!(dpor.bug_kind(), None, "{}", dpor.stdout);
    assert!(dpor.complete(), "{}", dpor.stdout);
    assert_eq!(dpor.executions(), 96);
}
