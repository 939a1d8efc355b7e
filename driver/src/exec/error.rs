//! Errors of the executor: each one is a single clear line for the user.

use reach_channel::ChannelError;
use std::path::PathBuf;

/// Why an execution could not be run or its result could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The program to test does not exist.
    #[error("program `{0}` does not exist: check the path, or build it first with reach-cc")]
    ProgramMissing(PathBuf),
    /// A program named without a path is neither in the current directory
    /// nor on `PATH`.
    #[error("program `{0}` not found in the current directory or on PATH: check the name, or build it first with reach-cc")]
    ProgramNotFound(PathBuf),
    /// The program exists but is not an executable regular file.
    #[error("program `{0}` is not an executable file: check its permissions (chmod +x)")]
    NotExecutable(PathBuf),
    /// The runtime library to preload does not exist.
    #[error("runtime library `{0}` not found: build it with `cargo build --release -p reach-runtime` or set REACH_RUNTIME")]
    RuntimeMissing(PathBuf),
    /// The schedule prefix of a request exceeds the channel's capacity.
    #[error("schedule prefix of {len} steps exceeds the supported maximum of {max}")]
    PrefixTooLong {
        /// Requested prefix length.
        len: usize,
        /// Largest accepted prefix.
        max: usize,
    },
    /// Creating or mapping the shared-memory channel failed.
    #[error("cannot set up the shared-memory channel: {0}")]
    ChannelSetup(std::io::Error),
    /// Starting the program failed.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The operating-system error.
        source: std::io::Error,
    },
    /// Waiting for or capturing the output of the program failed.
    #[error("lost track of the program under test: {0}")]
    Wait(std::io::Error),
    /// The program (or a bug) left the channel in an invalid state.
    #[error("the program under test corrupted the control channel ({0}); the execution cannot be analysed")]
    CorruptChannel(String),
    /// The fork server died or misbehaved and could not be restarted.
    #[error("the fork server of the program under test failed ({0}); try --no-fork-server")]
    ForkServer(String),
    /// The exploration was stopped (interrupt or time limit) while the
    /// execution ran; it was killed and has no result.
    #[error("the execution was stopped before it ended")]
    Cancelled,
    /// The isolated directories could not be put back after an execution.
    #[error("cannot put the isolated directories back after an execution: {0}")]
    Isolate(std::io::Error),
    /// The channel header is not readable at all.
    #[error("the program under test corrupted the control channel: {0}")]
    Channel(#[from] ChannelError),
}
