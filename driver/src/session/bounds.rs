//! What bounds a search although it ran to its end: inputs that never
//! varied, files that changed between executions.

use crate::binary::Binary;
use crate::cli::Cli;
use crate::explore::{StopReason, Summary};
use std::path::PathBuf;

/// Why the program's inputs kept their defaults in every execution although
/// it reads inputs: it was built without the shadow computations that let
/// the driver choose them (a concolic run varies them). `None` if it reads
/// none, or they were varied.
pub fn fixed_inputs(cli: &Cli, binary: &Binary) -> Option<String> {
    if binary.traced() {
        return None;
    }
    let asked = cli.symbolic_args || cli.symbolic_stdin > 0;
    let reads = binary
        .path
        .as_deref()
        .is_some_and(crate::binary::reads_inputs);
    if !asked && !reads {
        return None;
    }
    Some(format!(
        "inputs fixed at their defaults: {} reads inputs but was built without concolic tracing (rebuild it with reach-cc, without REACH_SYMBOLIC=0)",
        cli.program.display()
    ))
}

/// What a run whose executions changed files in the working directory
/// (`changed`, relative to it) says: a note, a search that completed is
/// bounded by it (later executions may have started from other files than
/// earlier ones), and a nondeterminism report names the files.
pub fn files_changed(cli: &Cli, summary: &mut Summary, changed: &[PathBuf]) {
    if changed.is_empty() {
        return;
    }
    let mut names: Vec<String> = changed
        .iter()
        .take(5)
        .map(|p| p.display().to_string())
        .collect();
    if changed.len() > 5 {
        names.push(format!("and {} more", changed.len() - 5));
    }
    let names = names.join(", ");
    let why = format!(
        "files in the working directory changed during the run ({names}): later executions may have started from other files than earlier ones (--isolate-files gives each the directory as it was)"
    );
    for finding in &mut summary.findings {
        if finding.bug.kind == crate::bug::BugKind::Nondeterminism {
            finding.bug.message = format!("{}; {why}", finding.bug.message);
        }
    }
    if !cli.quiet {
        eprintln!("reach-native: note: {why}");
    }
    bound_by(summary, &why);
}

/// Makes a search that completed say it is bounded by `why`, and adds it
/// to the coverage line.
pub fn bound_by(summary: &mut Summary, why: &str) {
    match &mut summary.stop {
        StopReason::Complete => summary.stop = StopReason::Bounded(why.to_string()),
        StopReason::Bounded(other) => *other = format!("{other}; {why}"),
        _ => {}
    }
    if let Some(line) = &mut summary.coverage {
        line.push_str("; ");
        line.push_str(why);
    }
}
