//! Running one execution of the program under test.
//!
//! The [`Executor`] owns the shared-memory channel and the way the program is
//! started (exec per execution, or the runtime's fork server). A strategy
//! hands it a [`Request`] (schedule prefix, policy, sleep set) and gets back an
//! [`Outcome`]: how the process ended and the validated trace.

mod channel;
mod error;
mod executor;
mod isolate;
mod outcome;
mod process;
mod server;
mod setting;
pub mod symbolic;
mod watch;

pub use channel::{MAX_EVENTS, MAX_PREFIX};

pub use error::ExecError;
pub use executor::{locate_program, Executor};
pub use isolate::{IsolateError, Isolation};
pub use process::OUTPUT_LIMIT;
pub use setting::{EnvLayout, PAD_PREFIX};
pub use watch::DirSnapshot;

use reach_channel::{Event, Policy, RunStatus, ThreadSet, ThreadSlot};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Everything fixed for a whole exploration.
#[derive(Clone, Debug)]
pub struct ExecConfig {
    /// Program to run.
    pub program: PathBuf,
    /// Its arguments (not including `argv[0]`).
    pub args: Vec<OsString>,
    /// The runtime library to preload.
    pub runtime: PathBuf,
    /// Wall-clock bound of one execution.
    pub timeout: Duration,
    /// Step bound of one execution (visible operations, recorded or not):
    /// exceeding it ends the execution as a hang. `None`: no bound.
    pub max_steps: Option<u64>,
    /// Recording bound: the trace holds the first this many events of an
    /// execution; a longer execution runs to its end unrecorded and its
    /// outcome is marked truncated (capped at [`MAX_EVENTS`]).
    pub record_steps: u64,
    /// Re-reads of unchanged locations after which a thread counts as spinning.
    pub spin_threshold: u32,
    /// Serve executions from a fork server in the runtime instead of exec.
    pub fork_server: bool,
    /// Under the fork server: run many executions in one persistent worker
    /// that restores its memory between them (it falls back to one fork per
    /// execution where memory cannot undo what the program did).
    pub persistent: bool,
    /// Take the process exit where a thread reaches it, cutting other
    /// threads short, instead of once no other thread can run.
    pub exit_cuts_threads: bool,
    /// Record unused-result read-modify-writes of a commuting family as
    /// updates that commute with each other (`--commute-rmws`).
    pub commute_rmws: bool,
    /// The memory model atomics run under (`--memory-model`): under RC11
    /// the prefix entries' reads-from choices pick what loads read.
    pub memory_model: reach_channel::memory_model::MemoryModel,
    /// A thread whose spin-loop iteration did nothing awaits a change and
    /// retries even under the systematic policy, instead of staying
    /// blocked for the rest of the execution (`REQ_AWAIT_RETRIES`: for a
    /// strategy that cannot use blocked executions, and the replay of an
    /// execution that retried).
    pub await_retries: bool,
    /// No await semantics: spin loops are cut by the spin threshold only
    /// (`REQ_AWAITS_OFF`: unfolding, which keeps no blocked executions).
    pub awaits_off: bool,
    /// A prefix step that asks for a thread held back as a spinner ends
    /// the execution, for the strategy to drop ([`crate::strategy::Strategy::abandon`]:
    /// reachability testing and unfolding); otherwise the step is taken
    /// (`REQ_DROP_HELD`).
    pub drop_held: bool,
    /// A thread that a prefix step ran while it was held back as a
    /// spinner, held back again at the same operation before it made
    /// progress, ends the execution as sleep-blocked: one spin iteration
    /// more and nothing else (`REQ_DROP_RESPIN`: optimal DPOR, which
    /// reverses the races of held-back steps).
    pub drop_respin: bool,
    /// Run the program's threads as user-level contexts on one kernel
    /// thread (it falls back to kernel threads, with a note, where a
    /// thread needs one of its own).
    pub user_threads: bool,
    /// Make the bytes of the program's arguments symbolic inputs.
    pub symbolic_args: bool,
    /// Make this many first bytes of standard input symbolic (0: none).
    pub symbolic_stdin: u32,
    /// Trace where branch conditions come from (`--strategy branches`):
    /// shared loads become expression leaves, stores of computed values
    /// record their definitions (a program built with `REACH_SYMBOLIC=1`).
    pub trace_shared: bool,
    /// A plain access to memory only its thread has touched is no
    /// scheduling point (`REQ_PRIVATE`, [`reach_channel::private`]).
    pub private_accesses: bool,
    /// The room the program's arguments and environment take on its
    /// initial stack: padded to it, so that stack addresses do not depend on
    /// the environment the driver runs in (grown if they do not fit).
    pub env_layout: EnvLayout,
    /// Directories every execution sees as they were when the run started
    /// (`--isolate-files`): the program runs in a private mount namespace
    /// with an overlay on each, put back after every execution.
    pub isolate: Option<std::sync::Arc<Isolation>>,
}

/// What one execution must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Thread to run at each of the first scheduling points.
    pub prefix: Vec<u32>,
    /// What to do after the prefix.
    pub policy: Policy,
    /// Seed for [`Policy::Random`].
    pub seed: u64,
    /// Sleep set at the end of the prefix (only used when `sleep_sets`).
    pub sleep_set: ThreadSet,
    /// Apply sleep sets after the prefix (paper Fig. 7).
    pub sleep_sets: bool,
    /// Priority change points for [`Policy::Pct`], ascending (at most
    /// [`reach_channel::MAX_CHANGE_POINTS`]; empty for other policies).
    pub change_points: Vec<reach_channel::ChangePoint>,
    /// Values for the program's inputs (concolic testing), by name and
    /// occurrence; inputs not listed get their defaults.
    pub inputs: Vec<InputValue>,
}

/// The value of one program input for an execution.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputValue {
    /// The input's name (`reach_input_int("x", ...)`, `argv[1]`, `stdin`).
    pub name: String,
    /// Which creation of an input of that name (0: the first).
    pub occurrence: u32,
    /// The value's bytes (little-endian for an integer).
    pub bytes: Vec<u8>,
}

impl Request {
    /// Follow `prefix`, then keep the running thread, else the lowest
    /// enabled one; no sleep set, no change points.
    pub fn continuing(prefix: Vec<u32>) -> Request {
        Request {
            prefix,
            policy: Policy::ContinueThenLowest,
            seed: 0,
            sleep_set: ThreadSet::EMPTY,
            sleep_sets: false,
            change_points: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

/// How the process ended, as the operating system reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal.
    Signaled(i32),
    /// Killed by the driver after the per-execution timeout.
    TimedOut,
}

/// The result of one execution.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How the runtime says the execution ended.
    pub status: RunStatus,
    /// How the process ended.
    pub termination: Termination,
    /// The trace: every event has a valid [`reach_channel::OpKind`] and a
    /// thread id below `threads.len()`. Only the first events when
    /// recording stopped (`cut` is set).
    pub events: Vec<Event>,
    /// Under RC11, for each atomic access (and plain store to an atomic
    /// location), what it read and where its store went (parallel to
    /// `events`; `None` elsewhere and under SC).
    pub reads: Vec<Option<reach_channel::memory_model::ReadRecord>>,
    /// The execution ran with private accesses (`REQ_PRIVATE`): a plain
    /// access to memory only its thread had touched was no event.
    pub private_mode: bool,
    /// Those accesses that another thread's later access made matter, in
    /// trace order ([`reach_channel::private`]).
    pub private: Vec<reach_channel::private::PrivateRecord>,
    /// Steps executed, recorded or not (at least `events.len()`; for an
    /// execution killed after recording stopped, as far as the runtime
    /// published it).
    pub steps: u64,
    /// If recording stopped before the execution ended: every thread
    /// created by then, with its state and pending operation at that point.
    pub cut: Option<Vec<ThreadSlot>>,
    /// Final state of every thread the execution created.
    pub threads: Vec<ThreadSlot>,
    /// Runtime message (misuse, unsupported, internal error...).
    pub message: String,
    /// For [`RunStatus::Diverged`]: the step and the thread the prefix
    /// asked for. For [`RunStatus::SleepBlocked`] under
    /// [`ExecConfig::drop_respin`]: the step at which a thread that the
    /// prefix ran while it was held back as a spinner was held back again,
    /// and that thread.
    pub divergence: Option<(u64, u32)>,
    /// Thread and site blamed by the runtime for an abnormal end.
    pub culprit: Option<(u32, u64)>,
    /// Program's standard output (bounded).
    pub stdout: Vec<u8>,
    /// Program's standard error (bounded).
    pub stderr: Vec<u8>,
    /// Wall time of the execution.
    pub wall: Duration,
    /// The wall-clock bound it ran under.
    pub timeout: Duration,
    /// The inputs, expressions and path constraints the execution
    /// recorded (`None` if it created no input).
    pub symbolic: Option<std::sync::Arc<crate::exec::symbolic::SymTrace>>,
    /// The program's threads ran as user-level contexts (else as kernel
    /// threads): set by the [`Executor`] that ran it.
    pub user_threads: bool,
    /// The sources of nondeterminism the runtime saw
    /// ([`reach_channel::sources`]).
    pub sources: reach_channel::sources::Seen,
}
