//! The schedule file: one versioned, serialisable artefact for the
//! interleaving of a bug, written when it is found and read by `--replay`.
//!
//! It stays small however long the execution: the thread chosen at each
//! recorded step is run-length encoded (`[thread, count]` per run of steps
//! of one thread), and what replay checks is a list of *check blocks*
//! (`[thread, count, hash]`): consecutive steps of one thread with a hash of
//! their operations and objects. A block never spans two runs, and a block
//! starting at step `s` has at most `max(1, s / 16)` steps, so the first
//! steps are checked one by one (a divergence there is named exactly), later
//! ones in blocks that grow with the position (a divergence is named to
//! within about 6 % of its step number), and an execution of `n` steps in
//! `r` runs needs about `r + 16 ln(n / 16)` blocks. Version 1 files (one
//! entry per step) are still read.

use crate::exec::{EnvLayout, InputValue};
use crate::trace::{Trace, TraceEvent};
use reach_channel::memory_model::MemoryModel;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// Format tag of schedule files.
pub const FORMAT: &str = "reach-schedule";
/// Current schedule file version.
pub const VERSION: u32 = 2;
/// A check block starting at step `s` holds at most `max(1, s / BLOCK_DIVISOR)` steps.
const BLOCK_DIVISOR: u64 = 16;

/// `count` consecutive steps of `thread` (serialised as `[thread, count]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run(pub u32, pub u64);

/// Consecutive steps of one thread with the hash of their operations
/// (serialised as `[thread, count, "hash"]`, the hash as 16 hex digits).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check(pub u32, pub u64, pub String);

/// The value of one program input in a schedule file (concolic testing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedInput {
    /// The input's name (`reach_input_int("x", ...)`, `argv[1]`, `stdin`).
    pub name: String,
    /// Which creation of an input of that name (0: the first).
    #[serde(default)]
    pub occurrence: u32,
    /// The value for people (an integer in decimal, bytes as a string);
    /// informative only.
    #[serde(default)]
    pub value: String,
    /// The value's bytes in hex (little-endian for an integer): what
    /// `--replay` passes to the program.
    pub bytes: String,
}

impl RecordedInput {
    /// The value as an execution request carries it; `None` if `bytes` is
    /// not hex.
    pub fn to_value(&self) -> Option<InputValue> {
        let hex = self.bytes.as_bytes();
        if !hex.len().is_multiple_of(2) {
            return None;
        }
        let bytes = hex
            .chunks(2)
            .map(|pair| {
                let text = std::str::from_utf8(pair).ok()?;
                u8::from_str_radix(text, 16).ok()
            })
            .collect::<Option<Vec<u8>>>()?;
        Some(InputValue {
            name: self.name.clone(),
            occurrence: self.occurrence,
            bytes,
        })
    }
}

/// The inputs an execution's trace records, as schedule file entries.
pub fn recorded_inputs(trace: &Trace) -> Vec<RecordedInput> {
    let Some(sym) = &trace.symbolic else {
        return Vec::new();
    };
    sym.inputs
        .iter()
        .map(|i| RecordedInput {
            name: i.name.clone(),
            occurrence: i.occurrence,
            value: i.display(),
            bytes: i.bytes.iter().map(|b| format!("{b:02x}")).collect(),
        })
        .collect()
}

/// A schedule file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScheduleFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Program it was recorded on (for the user's information).
    pub program: String,
    /// Program arguments it was recorded with.
    pub args: Vec<String>,
    /// Bug kind found by the recorded execution, if any.
    pub bug: Option<String>,
    /// The step bound (`--max-steps`) the execution ran under, which
    /// `--replay` applies too unless given another.
    pub max_steps: Option<u64>,
    /// Steps the execution recorded (the length of the schedule).
    pub recorded_steps: u64,
    /// Steps the execution ran, recorded or not, when the runtime counted
    /// them to the end (not for an execution killed from outside).
    pub total_steps: Option<u64>,
    /// The thread chosen at each recorded scheduling point, run-length encoded.
    pub schedule: Vec<Run>,
    /// What each block of the recorded steps did, for `--replay` to check.
    pub check: Vec<Check>,
    /// The strategy that found the execution (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// The `--seed` of that exploration, for a randomised strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The execution ran with `--exit-cuts-threads` (its process exit cut
    /// other threads short), which `--replay` then applies too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exit_cuts_threads: bool,
    /// The execution ran with `--commute-rmws` and has commuting updates
    /// (whose races the race detector judges differently), which
    /// `--replay` then applies too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub commute_rmws: bool,
    /// A thread of the execution awaited a change and ran its spin loop
    /// again (an executed `AWAIT`: a randomised strategy, or unfold), which
    /// `--replay` then lets happen too (see `REQ_AWAIT_RETRIES`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub await_retries: bool,
    /// The execution ran without await semantics (`--no-await`, or
    /// unfold), which `--replay` then applies too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_await: bool,
    /// The `--race-detector` whose race the execution shows (`lockset`;
    /// absent for the default), which `--replay` applies unless given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race_detector: Option<String>,
    /// The program's inputs in the recorded execution (concolic testing),
    /// which `--replay` passes again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<RecordedInput>,
    /// The execution ran with `--symbolic-args`, which `--replay` applies too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub symbolic_args: bool,
    /// The execution ran with `--symbolic-stdin N` (0: without), which
    /// `--replay` applies too.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub symbolic_stdin: u32,
    /// The room the program's arguments and environment took on its initial
    /// stack, when more than the default (`--replay` pads to it, so that
    /// stack addresses are those of the recording; absent: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_layout: Option<EnvLayout>,
    /// The run isolated the working directory and these other directories
    /// (`--isolate-files`, `--isolate DIR`), which `--replay` does too, so
    /// that every replay starts from the directories as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolate_files: Option<Vec<String>>,
    /// How the execution ran the program's threads, which `--replay` uses
    /// whatever the options say (their stacks and TLS are elsewhere in the
    /// other mode). Absent in older files: kernel threads unless
    /// `--user-threads` is given, as then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<ThreadMode>,
    /// The execution ran with private accesses (a plain access to memory
    /// only its thread had touched was no step), which `--replay` then
    /// does too whatever the options say. Absent in older files: every
    /// access a step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private_accesses: bool,
    /// The `--spin-threshold` the execution ran under, which `--replay`
    /// uses whatever the options say (absent in older files: the option's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spin_threshold: Option<u32>,
    /// The memory model the execution ran under (`rc11`; absent: `sc`),
    /// which `--replay` uses whatever the options say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_model: Option<String>,
    /// Under `rc11`, the atomic loads that did not read the latest store:
    /// `[step, choice]` pairs (the reads-from choice at that recorded step).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads_from: Vec<[u64; 2]>,
}

/// How an execution ran the program's threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThreadMode {
    /// As user-level contexts on one kernel thread.
    User,
    /// As kernel threads.
    Kernel,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The version 1 layout: one entry per step.
#[derive(Deserialize)]
struct FileV1 {
    program: String,
    args: Vec<String>,
    schedule: Vec<u32>,
    steps: Vec<StepV1>,
    bug: Option<String>,
}

/// One step of a version 1 file.
#[derive(Deserialize)]
struct StepV1 {
    thread: u32,
    op: String,
    object: u64,
}

/// Just the tags, to pick the layout.
#[derive(Deserialize)]
struct Tags {
    format: String,
    version: u32,
}

/// Errors reading a schedule file.
#[derive(Debug, Error)]
pub enum ScheduleError {
    /// I/O error.
    #[error("cannot read schedule file {0}: {1}")]
    Io(String, std::io::Error),
    /// Not valid JSON of the expected shape.
    #[error("{0} is not a reach-native schedule file: {1}")]
    Parse(String, serde_json::Error),
    /// Another format or version.
    #[error(
        "{0} has format {1} version {2}; this reach-native reads {FORMAT} versions 1 and {VERSION}: record the schedule again with this reach-native"
    )]
    Version(String, String, u32),
    /// The schedule and the check blocks disagree.
    #[error("{0} is inconsistent: {1}")]
    Inconsistent(String, String),
}

/// Run-length encodes a sequence of thread choices.
pub fn encode_runs(threads: impl IntoIterator<Item = u32>) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for t in threads {
        match runs.last_mut() {
            Some(Run(thread, count)) if *thread == t => *count += 1,
            _ => runs.push(Run(t, 1)),
        }
    }
    runs
}

/// Expands run-length encoded thread choices.
pub fn decode_runs(runs: &[Run]) -> Vec<u32> {
    let total = runs.iter().map(|r| r.1 as usize).sum();
    let mut out = Vec::with_capacity(total);
    for &Run(thread, count) in runs {
        out.extend(std::iter::repeat_n(thread, count as usize));
    }
    out
}

/// 64-bit FNV-1a, fixed here so that files stay comparable across builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StepHash(u64);

impl StepHash {
    const fn new() -> StepHash {
        StepHash(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Adds one step: its operation's name and its object.
    fn step(&mut self, op: &str, object: u64) {
        self.bytes(op.as_bytes());
        self.bytes(&[0]);
        self.bytes(&object.to_le_bytes());
    }

    fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// Splits steps (thread, operation name, object) into check blocks.
fn check_blocks<'a>(steps: impl Iterator<Item = (u32, &'a str, u64)>) -> Vec<Check> {
    let mut out = Vec::new();
    let mut current: Option<(u32, u64, StepHash)> = None;
    let mut block_start = 0u64;
    for (step, (thread, op, object)) in (0u64..).zip(steps) {
        let full = current.as_ref().is_some_and(|&(t, count, _)| {
            t != thread || count >= (block_start / BLOCK_DIVISOR).max(1)
        });
        if full {
            if let Some((t, count, hash)) = current.take() {
                out.push(Check(t, count, hash.hex()));
            }
        }
        let (_, count, hash) = current.get_or_insert_with(|| {
            block_start = step;
            (thread, 0, StepHash::new())
        });
        *count += 1;
        hash.step(op, object);
    }
    if let Some((t, count, hash)) = current {
        out.push(Check(t, count, hash.hex()));
    }
    out
}

/// Check blocks of the steps of `trace`.
pub fn trace_checks(trace: &Trace) -> Vec<Check> {
    check_blocks(
        trace
            .events
            .iter()
            .map(|e| (e.thread, e.op.kind.name(), e.op.object)),
    )
}

fn describe(e: &TraceEvent) -> String {
    format!("T{} {} {:#x}", e.thread, e.op.kind.name(), e.op.object)
}

impl ScheduleFile {
    /// The schedule file of an execution of `program args` with trace
    /// `trace`, run under step bound `max_steps`; `total_steps` if the
    /// runtime counted its steps to the end.
    pub fn of_trace(
        program: String,
        args: Vec<String>,
        bug: Option<String>,
        trace: &Trace,
        max_steps: Option<u64>,
        total_steps: Option<u64>,
    ) -> ScheduleFile {
        ScheduleFile {
            format: FORMAT.into(),
            version: VERSION,
            program,
            args,
            bug,
            max_steps,
            recorded_steps: trace.len() as u64,
            total_steps,
            schedule: encode_runs(trace.events.iter().map(|e| e.thread)),
            check: trace_checks(trace),
            strategy: None,
            seed: None,
            exit_cuts_threads: trace.events.iter().any(|e| e.op.cuts_threads()),
            commute_rmws: trace.events.iter().any(|e| e.op.flags.family().is_some()),
            await_retries: trace
                .events
                .iter()
                .any(|e| e.op.kind == reach_channel::OpKind::Await),
            no_await: false,
            race_detector: None,
            inputs: recorded_inputs(trace),
            symbolic_args: trace.symbolic.as_ref().is_some_and(|s| s.args),
            symbolic_stdin: trace.symbolic.as_ref().map_or(0, |s| s.stdin_bytes),
            env_layout: None,
            isolate_files: None,
            threads: Some(if trace.user_threads {
                ThreadMode::User
            } else {
                ThreadMode::Kernel
            }),
            private_accesses: trace.private_mode,
            spin_threshold: None,
            memory_model: None,
            reads_from: trace
                .reads
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    r.filter(|r| r.choice > 0)
                        .map(|r| [i as u64, u64::from(r.choice)])
                })
                .collect(),
        }
    }

    /// Whether `--replay` runs the program's threads as user-level
    /// contexts: as recorded, or for a file that does not say, as
    /// `--user-threads` asks.
    pub fn user_threads(&self, asked: bool) -> bool {
        self.threads.map_or(asked, |mode| mode == ThreadMode::User)
    }

    /// The thread chosen at each recorded step.
    pub fn choices(&self) -> Vec<u32> {
        decode_runs(&self.schedule)
    }

    /// The schedule prefix that replays the recorded steps: each step's
    /// thread with its reads-from choice ([`reach_channel::memory_model::prefix_entry`]).
    pub fn prefix(&self) -> Vec<u32> {
        let mut prefix = self.choices();
        for [step, choice] in &self.reads_from {
            if let Some(entry) = prefix.get_mut(*step as usize) {
                *entry = reach_channel::memory_model::prefix_entry(
                    *entry,
                    u16::try_from(*choice).unwrap_or(u16::MAX),
                );
            }
        }
        prefix
    }

    /// The memory model the execution ran under (`sc` unless recorded).
    pub fn memory_model(&self) -> MemoryModel {
        self.memory_model
            .as_deref()
            .and_then(MemoryModel::from_name)
            .unwrap_or_default()
    }

    /// Records the memory model `model` (nothing for `sc`, the default).
    pub fn set_memory_model(&mut self, model: MemoryModel) {
        self.memory_model = (model != MemoryModel::Sc).then(|| model.name().to_string());
    }

    /// The input values `--replay` passes (entries whose bytes are not hex
    /// are left out: those inputs get their defaults).
    pub fn input_values(&self) -> Vec<InputValue> {
        self.inputs
            .iter()
            .filter_map(RecordedInput::to_value)
            .collect()
    }

    /// Reads and validates a schedule file (version 1 or 2).
    pub fn read(path: &Path) -> Result<ScheduleFile, ScheduleError> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| ScheduleError::Io(shown.clone(), e))?;
        ScheduleFile::parse(&text, &shown)
    }

    /// Parses the text of a schedule file; `shown` names it in errors.
    pub fn parse(text: &str, shown: &str) -> Result<ScheduleFile, ScheduleError> {
        let parse_err = |e| ScheduleError::Parse(shown.to_string(), e);
        let tags: Tags = serde_json::from_str(text).map_err(parse_err)?;
        let file = match (tags.format.as_str(), tags.version) {
            (FORMAT, VERSION) => serde_json::from_str(text).map_err(parse_err)?,
            (FORMAT, 1) => {
                let old: FileV1 = serde_json::from_str(text).map_err(parse_err)?;
                ScheduleFile {
                    format: FORMAT.into(),
                    version: VERSION,
                    program: old.program,
                    args: old.args,
                    bug: old.bug,
                    max_steps: None,
                    recorded_steps: old.schedule.len() as u64,
                    total_steps: None,
                    schedule: encode_runs(old.schedule),
                    check: check_blocks(
                        old.steps
                            .iter()
                            .map(|s| (s.thread, s.op.as_str(), s.object)),
                    ),
                    strategy: None,
                    seed: None,
                    exit_cuts_threads: false,
                    commute_rmws: false,
                    await_retries: false,
                    no_await: false,
                    race_detector: None,
                    inputs: Vec::new(),
                    symbolic_args: false,
                    symbolic_stdin: 0,
                    env_layout: None,
                    isolate_files: None,
                    threads: None,
                    private_accesses: false,
                    spin_threshold: None,
                    memory_model: None,
                    reads_from: Vec::new(),
                }
            }
            _ => {
                return Err(ScheduleError::Version(
                    shown.into(),
                    tags.format,
                    tags.version,
                ))
            }
        };
        file.validate()
            .map_err(|why| ScheduleError::Inconsistent(shown.into(), why))?;
        Ok(file)
    }

    /// Checks that the schedule and the check blocks describe the same steps.
    fn validate(&self) -> Result<(), String> {
        let in_runs: u64 = self.schedule.iter().map(|r| r.1).sum();
        if in_runs != self.recorded_steps {
            return Err(format!(
                "its schedule has {in_runs} steps, {} recorded",
                self.recorded_steps
            ));
        }
        let in_checks: u64 = self.check.iter().map(|c| c.1).sum();
        if in_checks > self.recorded_steps {
            return Err(format!(
                "its check blocks cover {in_checks} steps, {} recorded",
                self.recorded_steps
            ));
        }
        if self.check.iter().any(|c| c.1 == 0) || self.schedule.iter().any(|r| r.1 == 0) {
            return Err("it has an empty run or check block".into());
        }
        Ok(())
    }

    /// The first place where `trace` (a replay of this schedule) does not
    /// do what the recorded execution did: `expected X at step N, got Y`,
    /// or the block of steps whose operations differ; `None` if it agrees.
    pub fn first_difference(&self, trace: &Trace) -> Option<String> {
        let mut step = 0usize;
        for Check(thread, count, hash) in &self.check {
            let end = step + *count as usize;
            let mut replayed = StepHash::new();
            for k in step..end {
                match trace.events.get(k) {
                    Some(e) if e.thread == *thread => {
                        replayed.step(e.op.kind.name(), e.op.object);
                    }
                    got => {
                        let got = got.map_or("the end of the recorded steps".to_string(), describe);
                        return Some(format!(
                            "replay diverged: expected thread {thread} at step {k}, got {got}"
                        ));
                    }
                }
            }
            if replayed.hex() != *hash {
                let first = describe(&trace.events[step]);
                return Some(if *count == 1 {
                    format!(
                        "replay diverged: at step {step} the replay ran {first}, not the operation recorded there"
                    )
                } else {
                    format!(
                        "replay diverged in steps {step}..{}: thread {thread} did not perform the operations recorded there (the replay ran {first} first)",
                        end - 1
                    )
                });
            }
            step = end;
        }
        None
    }

    /// The file as JSON text: one line per field, per run and per check
    /// block.
    pub fn to_text(&self) -> Result<String, serde_json::Error> {
        let mut out = String::from("{\n");
        let scalar = |out: &mut String, key: &str, value: String| {
            let _ = writeln!(out, "  \"{key}\": {value},");
        };
        scalar(&mut out, "format", serde_json::to_string(&self.format)?);
        scalar(&mut out, "version", self.version.to_string());
        scalar(&mut out, "program", serde_json::to_string(&self.program)?);
        scalar(&mut out, "args", serde_json::to_string(&self.args)?);
        scalar(&mut out, "bug", serde_json::to_string(&self.bug)?);
        if let Some(strategy) = &self.strategy {
            scalar(&mut out, "strategy", serde_json::to_string(strategy)?);
        }
        if let Some(seed) = self.seed {
            scalar(&mut out, "seed", seed.to_string());
        }
        if self.exit_cuts_threads {
            scalar(&mut out, "exit_cuts_threads", "true".into());
        }
        if self.commute_rmws {
            scalar(&mut out, "commute_rmws", "true".into());
        }
        if self.await_retries {
            scalar(&mut out, "await_retries", "true".into());
        }
        if self.no_await {
            scalar(&mut out, "no_await", "true".into());
        }
        if let Some(detector) = &self.race_detector {
            scalar(&mut out, "race_detector", serde_json::to_string(detector)?);
        }
        if self.symbolic_args {
            scalar(&mut out, "symbolic_args", "true".into());
        }
        if self.symbolic_stdin > 0 {
            scalar(&mut out, "symbolic_stdin", self.symbolic_stdin.to_string());
        }
        if let Some(layout) = &self.env_layout {
            scalar(&mut out, "env_layout", serde_json::to_string(layout)?);
        }
        if let Some(dirs) = &self.isolate_files {
            scalar(&mut out, "isolate_files", serde_json::to_string(dirs)?);
        }
        if let Some(mode) = &self.threads {
            scalar(&mut out, "threads", serde_json::to_string(mode)?);
        }
        if self.private_accesses {
            scalar(&mut out, "private_accesses", "true".into());
        }
        if let Some(threshold) = self.spin_threshold {
            scalar(&mut out, "spin_threshold", threshold.to_string());
        }
        if let Some(model) = &self.memory_model {
            scalar(&mut out, "memory_model", serde_json::to_string(model)?);
        }
        if !self.reads_from.is_empty() {
            scalar(
                &mut out,
                "reads_from",
                serde_json::to_string(&self.reads_from)?,
            );
        }
        if !self.inputs.is_empty() {
            let items = self
                .inputs
                .iter()
                .map(serde_json::to_string)
                .collect::<Result<Vec<_>, _>>()?;
            let _ = writeln!(out, "  \"inputs\": [\n    {}\n  ],", items.join(",\n    "));
        }
        scalar(
            &mut out,
            "max_steps",
            serde_json::to_string(&self.max_steps)?,
        );
        scalar(&mut out, "recorded_steps", self.recorded_steps.to_string());
        scalar(
            &mut out,
            "total_steps",
            serde_json::to_string(&self.total_steps)?,
        );
        let lines = |items: Vec<String>| -> String {
            if items.is_empty() {
                "[]".into()
            } else {
                format!("[\n    {}\n  ]", items.join(",\n    "))
            }
        };
        let runs = self
            .schedule
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<Vec<_>, _>>()?;
        let _ = writeln!(out, "  \"schedule\": {},", lines(runs));
        let checks = self
            .check
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<Vec<_>, _>>()?;
        let _ = writeln!(out, "  \"check\": {}\n}}", lines(checks));
        Ok(out)
    }

    /// Writes the file.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_text().map_err(std::io::Error::other)?)
    }
}

#[cfg(test)]
mod setting_tests {
    use super::*;

    #[test]
    fn environment_layout_and_isolation_survive_the_text() {
        let mut file = ScheduleFile::of_trace(
            "p".into(),
            Vec::new(),
            None,
            &Trace::new(Vec::new(), Vec::new()),
            None,
            None,
        );
        file.env_layout = Some(EnvLayout {
            bytes: 128 * 1024,
            entries: 512,
        });
        file.isolate_files = Some(vec!["/data".into()]);
        let text = file.to_text().expect("text");
        let back = ScheduleFile::parse(&text, "test").expect("parse");
        assert_eq!(back.env_layout, file.env_layout);
        assert_eq!(back.isolate_files, file.isolate_files);
    }

    /// The thread mode comes from the trace and the spin threshold from
    /// the run; both survive the text and decide the replay.
    #[test]
    fn thread_mode_and_spin_threshold_survive_the_text() {
        let mut trace = Trace::new(Vec::new(), Vec::new());
        trace.user_threads = true;
        let mut file = ScheduleFile::of_trace("p".into(), Vec::new(), None, &trace, None, None);
        file.spin_threshold = Some(3);
        file.private_accesses = true;
        let text = file.to_text().expect("text");
        assert!(text.contains("\"threads\": \"user\""), "{text}");
        let back = ScheduleFile::parse(&text, "test").expect("parse");
        assert_eq!(back.threads, Some(ThreadMode::User));
        assert_eq!(back.spin_threshold, Some(3));
        assert!(back.private_accesses);
        assert!(back.user_threads(false));
        trace.user_threads = false;
        let kernel = ScheduleFile::of_trace("p".into(), Vec::new(), None, &trace, None, None);
        let back = ScheduleFile::parse(&kernel.to_text().expect("text"), "test").expect("parse");
        assert_eq!(back.threads, Some(ThreadMode::Kernel));
        assert!(!back.user_threads(true));
    }

    /// A file written before the fields existed loads, and leaves the
    /// thread mode to `--user-threads` and the threshold to the option.
    #[test]
    fn an_older_file_without_the_fields_loads() {
        let text = r#"{
  "format": "reach-schedule",
  "version": 2,
  "program": "p",
  "args": [],
  "bug": null,
  "max_steps": null,
  "recorded_steps": 1,
  "total_steps": 1,
  "schedule": [[0, 1]],
  "check": [[0, 1, "0000000000000000"]]
}"#;
        let file = ScheduleFile::parse(text, "old").expect("parse");
        assert_eq!(file.threads, None);
        assert_eq!(file.spin_threshold, None);
        assert!(!file.user_threads(false));
        assert!(file.user_threads(true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reach_channel::{EventFlags, Op, OpKind, ThreadSet};

    fn event(thread: u32, kind: OpKind, object: u64) -> TraceEvent {
        TraceEvent {
            thread,
            op: Op {
                kind,
                flags: EventFlags(0),
                object,
                aux: 4,
            },
            site: 0,
            enabled: ThreadSet::EMPTY,
        }
    }

    /// A trace of `n` steps: thread 0 alone for `n / 2` steps, then threads
    /// 1 and 2 alternating in runs of 3.
    fn long_trace(n: usize) -> Trace {
        let events = (0..n)
            .map(|i| {
                let thread = if i < n / 2 {
                    0
                } else {
                    1 + ((i / 3) % 2) as u32
                };
                let kind = if i % 2 == 0 {
                    OpKind::Load
                } else {
                    OpKind::Store
                };
                event(thread, kind, 0x1000 + 4 * (i as u64 % 977))
            })
            .collect();
        Trace::new(events, Vec::new())
    }

    fn file_of(trace: &Trace) -> ScheduleFile {
        ScheduleFile::of_trace(
            "prog".into(),
            vec![],
            Some("Hang".into()),
            trace,
            None,
            None,
        )
    }

    /// A schedule recorded with exits cutting threads short says so (from
    /// the trace's exit event), and the text keeps it; others omit it.
    #[test]
    fn recorded_inputs_round_trip_through_the_file_text() {
        let mut file = ScheduleFile::of_trace(
            "p".into(),
            Vec::new(),
            None,
            &Trace::new(vec![event(0, OpKind::Load, 8)], vec![None]),
            None,
            Some(1),
        );
        file.inputs = vec![RecordedInput {
            name: "mode".into(),
            occurrence: 1,
            value: "3".into(),
            bytes: "03000000".into(),
        }];
        file.symbolic_stdin = 4;
        let text = file.to_text().expect("serialise");
        let back = ScheduleFile::parse(&text, "test").expect("parse");
        assert_eq!(back.inputs, file.inputs);
        assert_eq!(back.symbolic_stdin, 4);
        assert_eq!(
            back.input_values(),
            vec![InputValue {
                name: "mode".into(),
                occurrence: 1,
                bytes: vec![3, 0, 0, 0],
            }]
        );
        // Bytes that are not hex give no value (the input keeps its default).
        let bad = RecordedInput {
            bytes: "0g".into(),
            ..file.inputs[0].clone()
        };
        assert_eq!(bad.to_value(), None);
    }

    #[test]
    fn exit_mode_follows_the_trace() {
        let mut events = vec![event(0, OpKind::Store, 0x10), event(1, OpKind::Load, 0x10)];
        let plain = file_of(&Trace::new(events.clone(), Vec::new()));
        assert!(!plain.exit_cuts_threads);
        assert!(!plain.to_text().unwrap().contains("exit_cuts_threads"));
        let mut exit = event(0, OpKind::ProcessExit, 0);
        exit.op.flags = EventFlags(EventFlags::CUTS_THREADS);
        events.push(exit);
        let cutting = file_of(&Trace::new(events, Vec::new()));
        assert!(cutting.exit_cuts_threads);
        let back = ScheduleFile::parse(&cutting.to_text().unwrap(), "test").unwrap();
        assert!(back.exit_cuts_threads);
    }

    #[test]
    fn commuting_updates_follow_the_trace() {
        let mut events = vec![event(0, OpKind::AtomicRmw, 0x10)];
        let plain = file_of(&Trace::new(events.clone(), Vec::new()));
        assert!(!plain.commute_rmws);
        assert!(!plain.to_text().unwrap().contains("commute_rmws"));
        events[0].op.flags = EventFlags(EventFlags::update(reach_channel::RmwFamily::Or));
        let commuting = file_of(&Trace::new(events, Vec::new()));
        assert!(commuting.commute_rmws);
        let back = ScheduleFile::parse(&commuting.to_text().unwrap(), "test").unwrap();
        assert!(back.commute_rmws);
    }

    #[test]
    fn runs_round_trip() {
        let choices = vec![0, 0, 0, 1, 1, 0, 2, 2, 2, 2, 1];
        let runs = encode_runs(choices.iter().copied());
        assert_eq!(
            runs,
            vec![Run(0, 3), Run(1, 2), Run(0, 1), Run(2, 4), Run(1, 1)]
        );
        assert_eq!(decode_runs(&runs), choices);
        assert!(encode_runs(Vec::new()).is_empty());
    }

    #[test]
    fn check_blocks_follow_runs_and_grow_with_the_position() {
        let trace = long_trace(200_000);
        let checks = trace_checks(&trace);
        let mut start = 0u64;
        for Check(thread, count, _) in &checks {
            assert!(*count >= 1 && *count <= (start / BLOCK_DIVISOR).max(1));
            let run: Vec<u32> = trace.events[start as usize..(start + count) as usize]
                .iter()
                .map(|e| e.thread)
                .collect();
            assert!(run.iter().all(|t| t == thread));
            start += count;
        }
        assert_eq!(start, 200_000);
        // The first 16 steps one by one; thread 0's 100,000 steps in about
        // 16 ln(100000 / 16) + 16 blocks; then one block per run of 3.
        assert!(checks[..16].iter().all(|c| c.1 == 1));
        let first_run = checks.iter().take_while(|c| c.0 == 0).count();
        assert!((100..=200).contains(&first_run), "{first_run} blocks");
        assert_eq!(checks.len() - first_run, 100_000 / 3 + 1);
    }

    #[test]
    fn long_single_thread_schedule_is_a_few_kilobytes() {
        let events = (0..300_000u64)
            .map(|i| event(0, OpKind::Store, 0x1000 + 4 * (i % 5000)))
            .collect();
        let trace = Trace::new(events, Vec::new());
        let text = file_of(&trace).to_text().expect("text");
        assert!(text.len() < 8 * 1024, "{} bytes", text.len());
    }

    #[test]
    fn text_round_trips() {
        let trace = long_trace(1000);
        let file = file_of(&trace);
        let back = ScheduleFile::parse(&file.to_text().expect("text"), "f").expect("parse");
        assert_eq!(back.schedule, file.schedule);
        assert_eq!(back.check, file.check);
        assert_eq!(back.recorded_steps, 1000);
        assert_eq!(back.choices(), trace.schedule());
        assert!(back.first_difference(&trace).is_none());
    }

    #[test]
    fn divergence_is_named_exactly_early_and_by_block_later() {
        let trace = long_trace(100_000);
        let file = file_of(&trace);
        let changed = |at: usize, thread: Option<u32>| {
            let mut events = trace.events.clone();
            events[at].op.object += 8;
            if let Some(t) = thread {
                events[at].thread = t;
            }
            file.first_difference(&Trace::new(events, Vec::new()))
                .expect("a difference")
        };
        let early = changed(5, None);
        assert!(early.contains("at step 5"), "{early}");
        let late = changed(30_000, None);
        let (from, to) = block_around(&file, 30_000);
        assert!(late.contains(&format!("in steps {from}..{to}")), "{late}");
        assert!(to - from < 30_000 / 16 + 1);
        let other_thread = changed(70_000, Some(7));
        assert!(
            other_thread.contains("expected thread") && other_thread.contains("at step 70000"),
            "{other_thread}"
        );
        let shorter = Trace::new(trace.events[..500].to_vec(), Vec::new());
        let ended = file.first_difference(&shorter).expect("shorter");
        assert!(
            ended.contains("at step 500") && ended.contains("end"),
            "{ended}"
        );
    }

    /// First and last step of the check block holding `step`.
    fn block_around(file: &ScheduleFile, step: u64) -> (u64, u64) {
        let mut start = 0;
        for c in &file.check {
            if step < start + c.1 {
                return (start, start + c.1 - 1);
            }
            start += c.1;
        }
        panic!("step {step} is past the file");
    }

    #[test]
    fn version_1_files_are_read() {
        let text = r#"{"format":"reach-schedule","version":1,"program":"p","args":["a"],
            "schedule":[0,0,1],
            "steps":[{"thread":0,"op":"SPAWN","object":1},{"thread":0,"op":"LOAD","object":16},
                     {"thread":1,"op":"STORE","object":16}],
            "bug":"Deadlock"}"#;
        let file = ScheduleFile::parse(text, "old").expect("v1");
        assert_eq!(file.schedule, vec![Run(0, 2), Run(1, 1)]);
        assert_eq!(file.check.len(), 3);
        let trace = Trace::new(
            vec![
                event(0, OpKind::ThreadCreate, 1),
                event(0, OpKind::Load, 16),
                event(1, OpKind::Store, 16),
            ],
            Vec::new(),
        );
        assert!(file.first_difference(&trace).is_none());
        let other = Trace::new(
            vec![
                event(0, OpKind::ThreadCreate, 1),
                event(0, OpKind::Load, 20),
                event(1, OpKind::Store, 16),
            ],
            Vec::new(),
        );
        let diff = file.first_difference(&other).expect("differs");
        assert!(diff.contains("at step 1"), "{diff}");
    }

    #[test]
    fn bad_files_are_errors() {
        let unknown = r#"{"format":"reach-schedule","version":9}"#;
        assert!(matches!(
            ScheduleFile::parse(unknown, "f"),
            Err(ScheduleError::Version(..))
        ));
        let inconsistent = r#"{"format":"reach-schedule","version":2,"program":"p","args":[],
            "bug":null,"max_steps":null,"recorded_steps":5,"total_steps":null,"schedule":[[0,2]],"check":[]}"#;
        assert!(matches!(
            ScheduleFile::parse(inconsistent, "f"),
            Err(ScheduleError::Inconsistent(..))
        ));
    }
}
