//! The JUnit XML report written with `--junit FILE`, for CI systems that
//! show test results: one test case per program run; a bug is a failure
//! with its kind, message and the command that replays it, a search that
//! could not run is an error, and a search stopped by a limit without a
//! bug passes with the coverage line as its output.

use super::names::Names;
use crate::explore::{StopReason, Summary};

/// Escapes text for XML attribute values and character data.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot hold at all.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\r' | '\t') => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// The JUnit document of one run: `program` with `args` explored as
/// `summary` says; `replay` is the command that replays its first bug.
pub fn build(
    program: &str,
    args: &[String],
    summary: &Summary,
    names: &Names,
    replay: Option<&str>,
    details: &str,
) -> String {
    let name = std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let seconds = summary.elapsed.as_secs_f64();
    let (failures, errors) = match (&summary.stop, summary.findings.is_empty()) {
        (_, false) => (1, 0),
        (StopReason::Error(_), true) => (0, 1),
        _ => (0, 0),
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"reach-native\" tests=\"1\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"reach-native\" tests=\"1\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\" time=\"{seconds:.3}\">\n"
    ));
    out.push_str(&format!(
        "    <testcase name=\"{}\" classname=\"reach-native.{}\" time=\"{seconds:.3}\">\n",
        escape(&name),
        escape(summary.strategy)
    ));
    if let Some(finding) = summary.findings.first() {
        let message = super::bug_message(finding, names);
        let first_line = message.lines().next().unwrap_or_default();
        let mut body = format!("{}\n", with_kind(finding.bug.kind, message.trim_end()));
        if let Some(command) = replay {
            body.push_str(&format!("\nReplay with:\n  {command}\n"));
        }
        body.push('\n');
        body.push_str(details);
        out.push_str(&format!(
            "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
            escape(&kind_word(finding.bug.kind)),
            escape(&with_kind(finding.bug.kind, first_line)),
            escape(&body)
        ));
    } else if let StopReason::Error(message) = &summary.stop {
        out.push_str(&format!(
            "      <error type=\"error\" message=\"{}\"/>\n",
            escape(message)
        ));
    }
    out.push_str(&format!(
        "      <system-out>{}</system-out>\n",
        escape(&format!(
            "{}: {} executions, stop: {}\ncoverage: {}\n",
            summary.strategy,
            summary.executions,
            super::json::stop_reason(&summary.stop),
            super::coverage_line(summary)
        ))
    ));
    out.push_str("    </testcase>\n  </testsuite>\n</testsuites>\n");
    out
}

/// `kind: message`, unless the message already begins with the kind
/// (`deadlock: ...`, `data race on ...`).
fn with_kind(kind: crate::bug::BugKind, message: &str) -> String {
    let kind = kind.to_string();
    let begins = message
        .get(..kind.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(&kind));
    if begins {
        message.to_string()
    } else {
        format!("{kind}: {message}")
    }
}

/// The bug kind as the JSON report names it (`data_race`).
fn kind_word(kind: crate::bug::BugKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{kind:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_is_said_once() {
        use crate::bug::BugKind;
        assert_eq!(
            with_kind(BugKind::Deadlock, "deadlock: T1 waits for m"),
            "deadlock: T1 waits for m"
        );
        assert_eq!(
            with_kind(BugKind::DataRace, "data race on address 0x10"),
            "data race on address 0x10"
        );
        assert_eq!(
            with_kind(BugKind::Crash, "SIGSEGV in T1"),
            "crash: SIGSEGV in T1"
        );
    }

    #[test]
    fn markup_and_control_characters_are_escaped() {
        assert_eq!(
            escape("a<b & \"c\"\u{1}"),
            "a&lt;b &amp; &quot;c&quot;\\u{1}"
        );
    }
}
