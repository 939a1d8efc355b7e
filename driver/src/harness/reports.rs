//! The report files of `reach-native test`: `--json` with one report per
//! test case, `--junit` with one test case per test case.

use super::outcome::{TestOutcome, Verdict};
use super::suite::SuiteResult;
use super::Harness;
use crate::report::junit::escape;
use serde_json::{json, Value};

/// The `--json` document: the program, its harness, and per test its
/// name, verdict, executions, time, replay command and the report of its
/// search (the layout of `reach-native --json`, `docs/report.schema.json`).
pub fn json(program: &str, harness: Harness, result: &SuiteResult) -> Value {
    let tests: Vec<Value> = result
        .outcomes
        .iter()
        .map(|o| {
            json!({
                "name": o.name,
                "status": status_word(&o.verdict),
                "bug_kind": match &o.verdict { Verdict::Bug(kind) => Some(kind.as_str()), _ => None },
                "message": match &o.verdict {
                    Verdict::Limit(why) | Verdict::Error(why) => Some(why.as_str()),
                    _ => None,
                },
                "executions": o.executions,
                "seconds": o.elapsed.as_secs_f64(),
                "schedule": o.schedule.as_ref().map(|p| p.display().to_string()),
                "replay": o.replay,
                "report": o.report,
            })
        })
        .collect();
    json!({
        "program": program,
        "harness": harness.name(),
        "exit_status": result.exit_status(),
        "seconds": result.elapsed.as_secs_f64(),
        "tests": tests,
    })
}

/// The verdict as the JSON's `status`: `pass`, `bug`, `limit`, `error`,
/// `skipped`.
fn status_word(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Skipped => "skipped",
        Verdict::Pass => "pass",
        Verdict::Limit(_) => "limit",
        Verdict::Bug(_) => "bug",
        Verdict::Error(_) => "error",
    }
}

/// The JUnit document: one test suite for the program, one test case per
/// test; a bug is a failure with its kind, message, replay command and
/// report, an error an error, an ignored test skipped, and a search
/// stopped by a limit passes with why in its output.
pub fn junit(program: &str, result: &SuiteResult) -> String {
    let count = |f: fn(&Verdict) -> bool| result.outcomes.iter().filter(|o| f(&o.verdict)).count();
    let failures = count(|v| matches!(v, Verdict::Bug(_)));
    let errors = count(|v| matches!(v, Verdict::Error(_)));
    let skipped = count(|v| matches!(v, Verdict::Skipped));
    let tests = result.outcomes.len();
    let seconds = result.elapsed.as_secs_f64();
    let program = escape(program);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"reach-native\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"{program}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{seconds:.3}\">\n"
    ));
    for outcome in &result.outcomes {
        out.push_str(&testcase(&program, outcome));
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// One `<testcase>` element.
fn testcase(program: &str, outcome: &TestOutcome) -> String {
    let mut out = format!(
        "    <testcase name=\"{}\" classname=\"{program}\" time=\"{:.3}\">\n",
        escape(&outcome.name),
        outcome.elapsed.as_secs_f64()
    );
    match &outcome.verdict {
        Verdict::Bug(kind) => {
            let message = outcome
                .report
                .as_ref()
                .and_then(|r| r["bug"]["message"].as_str())
                .unwrap_or(kind);
            let replay = outcome.replay.as_deref().unwrap_or_default();
            out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">replay with: {}\n\n{}</failure>\n",
                escape(kind),
                escape(message),
                escape(replay),
                escape(&outcome.stdout)
            ));
        }
        Verdict::Error(message) => out.push_str(&format!(
            "      <error message=\"{}\">{}</error>\n",
            escape(message),
            escape(&outcome.stderr)
        )),
        Verdict::Skipped => out.push_str("      <skipped message=\"ignored by the harness\"/>\n"),
        Verdict::Limit(why) => out.push_str(&format!(
            "      <system-out>not complete: {}</system-out>\n",
            escape(why)
        )),
        Verdict::Pass => {}
    }
    out.push_str("    </testcase>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn result() -> SuiteResult {
        let mut bug = TestOutcome::skipped("Ring.Race<1>");
        bug.verdict = Verdict::Bug("data_race".into());
        bug.executions = 2;
        bug.replay = Some("reach-native --replay s ./t --gtest_filter=Ring.Race".into());
        bug.report = Some(json!({"bug": {"kind": "data_race", "message": "race on x"}}));
        let mut pass = TestOutcome::skipped("Ring.Fine");
        pass.verdict = Verdict::Pass;
        pass.executions = 4;
        SuiteResult {
            outcomes: vec![bug, pass, TestOutcome::skipped("Ring.DISABLED_Slow")],
            elapsed: Duration::from_secs(1),
        }
    }

    #[test]
    fn json_has_one_entry_per_test_with_its_report() {
        let doc = json("./t", Harness::GoogleTest, &result());
        assert_eq!(doc["exit_status"], 1);
        assert_eq!(doc["tests"].as_array().map(Vec::len), Some(3));
        assert_eq!(doc["tests"][0]["status"], "bug");
        assert_eq!(doc["tests"][0]["bug_kind"], "data_race");
        assert_eq!(doc["tests"][0]["report"]["bug"]["message"], "race on x");
        assert_eq!(doc["tests"][1]["executions"], 4);
        assert_eq!(doc["tests"][2]["status"], "skipped");
    }

    #[test]
    fn junit_has_one_testcase_per_test() {
        let xml = junit("./t", &result());
        assert_eq!(xml.matches("<testcase ").count(), 3);
        assert!(xml.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""));
        assert!(xml.contains(
            "<failure type=\"data_race\" message=\"race on x\">replay with: reach-native --replay s ./t --gtest_filter=Ring.Race"
        ));
        assert!(xml.contains("name=\"Ring.Race&lt;1&gt;\""));
    }
}
