//! How one test case's search ended, read from the `reach-native` run
//! that explored it, and the line that says so.

use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// The verdict of one test case, worst last.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Marked ignored or disabled in the harness: not explored.
    Skipped,
    /// Every behaviour explored, no bug.
    Pass,
    /// Stopped by a limit (or bounded) without a bug; why.
    Limit(String),
    /// A bug of this kind (`data_race`, `panic`, ...).
    Bug(String),
    /// The search could not run; the error line.
    Error(String),
}

impl Verdict {
    /// The verdict of a `reach-native` run that exited with `code` (none:
    /// killed by a signal) and wrote `report` (its `--json`), with `stderr`
    /// for an error's message.
    pub fn of_run(code: Option<i32>, report: Option<&Value>, stderr: &str) -> Verdict {
        let word = |key: &str| {
            report
                .and_then(|r| r.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match code {
            Some(0) => Verdict::Pass,
            Some(1) => Verdict::Bug(
                report
                    .and_then(|r| r["bug"]["kind"].as_str())
                    .unwrap_or("unknown")
                    .to_string(),
            ),
            Some(3) => Verdict::Limit(word("stop_reason").unwrap_or_else(|| "limit".into())),
            _ => {
                let line = stderr
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("no error message")
                    .to_string();
                let how = code.map_or("killed by a signal".to_string(), |c| format!("exit {c}"));
                Verdict::Error(format!("{line} ({how})"))
            }
        }
    }

    /// The status word of the line: `PASS`, `BUG <kind>`, `LIMIT`,
    /// `ERROR`, `SKIP`.
    pub fn word(&self) -> String {
        match self {
            Verdict::Skipped => "SKIP".into(),
            Verdict::Pass => "PASS".into(),
            Verdict::Limit(_) => "LIMIT".into(),
            Verdict::Bug(kind) => format!("BUG {kind}"),
            Verdict::Error(_) => "ERROR".into(),
        }
    }

    /// The exit status of `reach-native` for a run that ended so (0 for
    /// a skipped test).
    pub fn exit_status(&self) -> u8 {
        match self {
            Verdict::Skipped | Verdict::Pass => 0,
            Verdict::Bug(_) => 1,
            Verdict::Error(_) => 2,
            Verdict::Limit(_) => 3,
        }
    }
}

/// What exploring one test case gave.
#[derive(Clone, Debug)]
pub struct TestOutcome {
    /// The test's full name.
    pub name: String,
    /// How it ended.
    pub verdict: Verdict,
    /// Executions run (0 when skipped or failed to start).
    pub executions: u64,
    /// Wall time of its search.
    pub elapsed: Duration,
    /// The run's `--json` report, when it wrote one.
    pub report: Option<Value>,
    /// What the run printed: the bug report and summary.
    pub stdout: String,
    /// What the run printed on standard error.
    pub stderr: String,
    /// Where the bug's schedule was written.
    pub schedule: Option<PathBuf>,
    /// The command that replays the bug.
    pub replay: Option<String>,
}

impl TestOutcome {
    /// A test not explored (ignored in the harness).
    pub fn skipped(name: &str) -> TestOutcome {
        TestOutcome {
            name: name.to_string(),
            verdict: Verdict::Skipped,
            executions: 0,
            elapsed: Duration::ZERO,
            report: None,
            stdout: String::new(),
            stderr: String::new(),
            schedule: None,
            replay: None,
        }
    }

    /// The test's line, like nextest's: status, time, name, executions.
    pub fn line(&self) -> String {
        let executions = match (&self.verdict, self.executions) {
            (Verdict::Skipped, _) => String::new(),
            (_, 1) => " (1 execution)".to_string(),
            (_, n) => format!(" ({n} executions)"),
        };
        format!(
            "{:>16} [{:>8.3}s] {}{executions}",
            self.verdict.word(),
            self.elapsed.as_secs_f64(),
            self.name
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_status_and_report_give_the_verdict() {
        let report = serde_json::json!({"bug": {"kind": "data_race"}, "stop_reason": "max-time"});
        assert_eq!(Verdict::of_run(Some(0), None, ""), Verdict::Pass);
        assert_eq!(
            Verdict::of_run(Some(1), Some(&report), ""),
            Verdict::Bug("data_race".into())
        );
        assert_eq!(
            Verdict::of_run(Some(3), Some(&report), ""),
            Verdict::Limit("max-time".into())
        );
        assert_eq!(
            Verdict::of_run(Some(2), None, "reach-native: error: no such file\n"),
            Verdict::Error("reach-native: error: no such file (exit 2)".into())
        );
        assert!(matches!(Verdict::of_run(None, None, ""), Verdict::Error(_)));
    }

    #[test]
    fn worst_verdict_orders_error_over_bug_over_limit_over_pass() {
        let mut all = [
            Verdict::Bug("panic".into()),
            Verdict::Pass,
            Verdict::Error("x".into()),
            Verdict::Limit("y".into()),
            Verdict::Skipped,
        ];
        all.sort();
        let codes: Vec<u8> = all.iter().map(Verdict::exit_status).collect();
        assert_eq!(codes, [0, 0, 3, 1, 2]);
    }

    #[test]
    fn the_line_has_status_time_name_and_executions() {
        let mut outcome = TestOutcome::skipped("tests::a");
        outcome.verdict = Verdict::Bug("panic".into());
        outcome.executions = 3;
        outcome.elapsed = Duration::from_millis(1500);
        assert_eq!(
            outcome.line(),
            "       BUG panic [   1.500s] tests::a (3 executions)"
        );
    }
}
