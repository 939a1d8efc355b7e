//! The fork server's control protocol between driver and runtime.
//!
//! With the fork server, the program is started once; at entry to `main` the
//! runtime waits for requests and forks one child per execution. Requests and
//! answers travel over two pipes, not the shared channel, because every child
//! maps the channel and may scribble over it: the driver must never act (for
//! example kill a process group) on a value the program could have written.
//!
//! * request pipe (driver → server): one byte per execution;
//! * response pipe (server → driver): [`MESSAGE_BYTES`]-byte messages, each
//!   written with one `write` (atomic on a pipe); one message per execution,
//!   when it is over, so the driver sleeps while it runs.
//!
//! To end an execution early (time-out), the driver kills the process group
//! of each child the kernel lists for the server (each child leads its own
//! group); it never learns that pid from the program.
//!
//! The environment variable [`crate::env::FORK_SERVER`] carries the two fd
//! numbers as `"<request>:<response>"`. The driver always sets the channel fd
//! and this variable to values of the same length ([`ENV_OFF`] when the fork
//! server is off), so the program's initial stack, and with it the address of
//! every stack object, is the same with and without the fork server.

/// Fd number of the channel in the program under test (fixed, so that the
/// environment and fd numbers are the same for every executor).
pub const CHANNEL_FD_NUMBER: i32 = 200;
/// Fd number of the request pipe's read end in the fork server.
pub const REQUEST_FD_NUMBER: i32 = 201;
/// Fd number of the response pipe's write end in the fork server.
pub const RESPONSE_FD_NUMBER: i32 = 202;
/// Value of [`crate::env::FORK_SERVER`] when the fork server is off (same
/// length as an "on" value with the fixed fd numbers).
pub const ENV_OFF: &str = "off:off";

/// Server → driver: the server reached `main`; value: events recorded before
/// `main` (by static constructors), which every child inherits.
pub const MSG_READY: u32 = 1;
/// Server → driver: the child ended and was reaped; value: its wait status.
pub const MSG_DONE: u32 = 3;
/// Server → driver: the server cannot serve (threads exist before `main`);
/// value: the number of threads. The server exits after sending it.
pub const MSG_REFUSED: u32 = 4;
/// Server → driver: `fork` failed; value: `errno`.
pub const MSG_FORK_FAILED: u32 = 5;
/// Server → driver: the server cannot serve (static constructors ran past
/// the recording bound, so every execution would start unrecorded); value:
/// the number of steps before `main`. The server exits after sending it.
pub const MSG_LONG_START: u32 = 6;

/// Worker → driver, before the [`MSG_DONE`] of an execution (or instead
/// of nothing, when a worker cannot start): executions stop being persistent
/// and are forked children from now on; value: a [`PersistCause`].
pub const MSG_PERSIST_OFF: u32 = 7;

/// Why executions stopped being persistent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum PersistCause {
    /// The worker could not record its memory.
    Setup = 1,
    /// Write tracking (`userfaultfd` with asynchronous write protection,
    /// `PAGEMAP_SCAN`) is not available.
    NoUserfaultfd = 2,
    /// The writable memory at `main` is too large to copy.
    TooLarge = 3,
    /// The program opened files or changed the working directory.
    Files = 4,
    /// The program opened, closed or duplicated file descriptors.
    Descriptors = 5,
    /// The program created processes.
    Processes = 6,
    /// The program changed signal handlers.
    Signals = 7,
    /// The program created sockets.
    Sockets = 8,
    /// The program mapped a file shared.
    FileMappings = 9,
    /// The program loaded a library.
    Libraries = 10,
    /// The program changed or unmapped memory that existed at `main`.
    MemoryLayout = 11,
    /// The program set an alarm or a timer.
    Timers = 12,
    /// The main thread ended (`pthread_exit`) before the others, or a
    /// thread could not be ended at the end of an execution: the worker
    /// cannot resume `main`, so each execution would pay a new snapshot.
    Threads = 13,
}

impl PersistCause {
    /// The cause numbered `v`, if any.
    pub fn from_value(v: i64) -> Option<PersistCause> {
        use PersistCause::*;
        [
            Setup,
            NoUserfaultfd,
            TooLarge,
            Files,
            Descriptors,
            Processes,
            Signals,
            Sockets,
            FileMappings,
            Libraries,
            MemoryLayout,
            Timers,
            Threads,
        ]
        .into_iter()
        .find(|c| *c as i64 == v)
    }

    /// What it means, for a one-line note.
    pub fn describe(self) -> &'static str {
        match self {
            PersistCause::Setup => "the worker could not record the memory at main",
            PersistCause::NoUserfaultfd => {
                "the kernel does not track written pages (userfaultfd write protection, PAGEMAP_SCAN)"
            }
            PersistCause::TooLarge => "the writable memory at main is larger than 1 GiB",
            PersistCause::Files => "the program opens files or changes directory",
            PersistCause::Descriptors => "the program opens, closes or duplicates file descriptors",
            PersistCause::Processes => "the program creates processes",
            PersistCause::Signals => "the program changes signal handlers",
            PersistCause::Sockets => "the program creates sockets",
            PersistCause::FileMappings => "the program maps a file shared",
            PersistCause::Libraries => "the program loads libraries",
            PersistCause::MemoryLayout => {
                "the program changes the protection of memory or unmaps memory that existed at main"
            }
            PersistCause::Timers => "the program sets alarms or timers",
            PersistCause::Threads => {
                "the main thread ends before the others, or a thread cannot be ended at an execution's end"
            }
        }
    }
}

/// Why executions stopped running the program's threads as user-level
/// contexts (they then run as kernel threads, one per program thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum UserThreadsCause {
    /// The processor or kernel does not let user code set the thread
    /// pointer (`FSGSBASE`), or the C library lacks what contexts need.
    Unavailable = 1,
    /// The stacks of the contexts could not be reserved.
    NoStacks = 2,
    /// A thread called `pthread_exit` or was cancelled.
    ThreadExit = 3,
    /// The program changed or read a signal mask, sent a signal to a
    /// thread or set an alternate signal stack.
    Signals = 4,
    /// The program asked for a kernel thread id (`gettid`).
    ThreadIds = 5,
    /// A thread was created with attributes contexts do not honour (its own
    /// stack, a larger stack, detached) or its attributes were read.
    Attributes = 6,
    /// The program changed a thread's name, CPU affinity or scheduling.
    KernelThreadState = 7,
}

impl UserThreadsCause {
    /// The cause numbered `v` (without flag bits), if any.
    pub fn from_value(v: u32) -> Option<UserThreadsCause> {
        use UserThreadsCause::*;
        [
            Unavailable,
            NoStacks,
            ThreadExit,
            Signals,
            ThreadIds,
            Attributes,
            KernelThreadState,
        ]
        .into_iter()
        .find(|c| *c as u32 == v)
    }

    /// What it means, for a one-line note.
    pub fn describe(self) -> &'static str {
        match self {
            UserThreadsCause::Unavailable => {
                "this machine does not let user code set the thread pointer (FSGSBASE)"
            }
            UserThreadsCause::NoStacks => "the stacks of user-level threads cannot be reserved",
            UserThreadsCause::ThreadExit => "a thread calls pthread_exit or is cancelled",
            UserThreadsCause::Signals => {
                "the program uses per-thread signal state (masks, pthread_kill, sigaltstack)"
            }
            UserThreadsCause::ThreadIds => "the program asks for kernel thread ids",
            UserThreadsCause::Attributes => {
                "a thread is created with its own or a larger stack, detached, or its attributes are read"
            }
            UserThreadsCause::KernelThreadState => {
                "the program sets thread names, CPU affinity or scheduling parameters"
            }
        }
    }
}

/// Size of one response message.
pub const MESSAGE_BYTES: usize = 16;

/// Encodes a response message.
pub fn encode(tag: u32, value: i64) -> [u8; MESSAGE_BYTES] {
    let mut m = [0u8; MESSAGE_BYTES];
    m[..4].copy_from_slice(&tag.to_le_bytes());
    m[8..].copy_from_slice(&value.to_le_bytes());
    m
}

/// Decodes a response message into `(tag, value)`.
pub fn decode(m: &[u8; MESSAGE_BYTES]) -> (u32, i64) {
    let mut tag = [0u8; 4];
    tag.copy_from_slice(&m[..4]);
    let mut value = [0u8; 8];
    value.copy_from_slice(&m[8..]);
    (u32::from_le_bytes(tag), i64::from_le_bytes(value))
}

/// Parses the value of [`crate::env::FORK_SERVER`] into the request and
/// response fd numbers (`None` when off or malformed).
pub fn parse_env(value: &[u8]) -> Option<(i32, i32)> {
    let colon = value.iter().position(|b| *b == b':')?;
    let num = |s: &[u8]| -> Option<i32> {
        if s.is_empty() || s.len() > 9 || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(s.iter().fold(0i32, |v, c| v * 10 + i32::from(c - b'0')))
    };
    Some((num(&value[..colon])?, num(&value[colon + 1..])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        assert_eq!(decode(&encode(MSG_DONE, -9)), (MSG_DONE, -9));
        assert_eq!(decode(&encode(MSG_READY, 123_456)), (MSG_READY, 123_456));
    }

    #[test]
    fn env_values_parse() {
        let on = format!("{REQUEST_FD_NUMBER}:{RESPONSE_FD_NUMBER}");
        assert_eq!(on.len(), ENV_OFF.len());
        assert_eq!(
            parse_env(on.as_bytes()),
            Some((REQUEST_FD_NUMBER, RESPONSE_FD_NUMBER))
        );
        assert_eq!(parse_env(ENV_OFF.as_bytes()), None);
        assert_eq!(parse_env(b"12"), None);
    }
}
