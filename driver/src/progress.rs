//! Live progress on the terminal while exploring (only when stderr is a terminal).

use crate::explore::Summary;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A spinner line showing executions, rate and bugs.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A progress line, hidden when `quiet` or when stderr is not a terminal.
    pub fn new(quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress { bar }
    }

    /// Shows the state after an execution.
    pub fn update(&self, summary: &Summary) {
        if let Some(bar) = &self.bar {
            let secs = summary.elapsed.as_secs_f64().max(1e-9);
            let share = summary
                .random_share
                .as_ref()
                .map_or(0, |share| share.executions);
            let share = match share {
                0 => String::new(),
                n => format!(" + {n} PCT"),
            };
            bar.set_message(format!(
                "{} executions{share} ({:.0}/s), {} sleep-blocked, {} bugs",
                summary.executions,
                summary.executions as f64 / secs,
                summary.sleep_blocked,
                summary.findings.len()
            ));
        }
    }

    /// Removes the progress line.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
