//! `--record FILE`: the schedule file of one chosen execution, whether or not
//! it found a bug, so any execution of an exploration (or a replay) can be
//! replayed and compared step by step.

use crate::schedule::StepRecord;
use crate::trace::Trace;
use std::sync::Mutex;

/// The schedule and steps of a recorded execution.
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    /// The thread chosen at each scheduling point.
    pub schedule: Vec<u32>,
    /// The steps the execution performed.
    pub steps: Vec<StepRecord>,
}

/// Keeps the schedule of the execution with a given number. Shared by the
/// parallel workers, whose execution numbers are global.
#[derive(Debug)]
pub struct Recorder {
    execution: u64,
    kept: Mutex<Option<Recorded>>,
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

    /// Called with every execution's trace; keeps the chosen one.
    pub fn offer(&self, number: u64, trace: &Trace) {
        if number == self.execution {
            let recorded = Recorded {
                schedule: trace.schedule(),
                steps: steps(trace),
            };
            *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(recorded);
        }
    }

    /// The recorded execution, if it ran.
    pub fn take(&self) -> Option<Recorded> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The steps of `trace` as the schedule file records them.
pub fn steps(trace: &Trace) -> Vec<StepRecord> {
    trace
        .events
        .iter()
        .map(|e| StepRecord {
            thread: e.thread,
            op: e.op.kind.name().to_string(),
            object: e.op.object,
        })
        .collect()
}
