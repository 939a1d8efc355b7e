//! `--record FILE`: the schedule file of one chosen execution, whether or not
//! it found a bug, so any execution of an exploration (or a replay) can be
//! replayed and compared step by step.

use crate::schedule::ScheduleFile;
use crate::trace::Trace;
use std::sync::Mutex;

/// Keeps the schedule file of the execution with a given number. Shared by
/// the parallel workers, whose execution numbers are global.
#[derive(Debug)]
pub struct Recorder {
    execution: u64,
    kept: Mutex<Option<ScheduleFile>>,
}

impl Recorder {
    /// Records execution `execution` (1-based).
    pub fn new(execution: u64) -> Recorder {
        Recorder {
            execution,
            kept: Mutex::new(None),
        }
    }

    /// The number of the execution to record.
    pub fn execution(&self) -> u64 {
        self.execution
    }

    /// Called with every execution's trace; keeps the chosen one. `counted`:
    /// the runtime counted the execution's steps to its end (it was not
    /// killed from outside).
    pub fn offer(&self, number: u64, trace: &Trace, counted: bool) {
        if number == self.execution {
            let file = ScheduleFile::of_trace(
                String::new(),
                Vec::new(),
                None,
                trace,
                None,
                counted.then_some(trace.total_steps),
            );
            *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(file);
        }
    }

    /// The recorded execution's schedule file (program, arguments and step
    /// bound left for the caller to fill in), if it ran.
    pub fn take(&self) -> Option<ScheduleFile> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}
