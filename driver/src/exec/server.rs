//! The driver's side of the runtime's fork server: start the program once,
//! then ask it for one forked child per execution.
//!
//! The server is the program itself, stopped at entry to `main` (see the
//! runtime's `forkserver` module and `reach_channel::fork`). It runs in its
//! own process group with ASLR off and dies with the driver; each child runs
//! in its own process group, which the server kills when the child ends and
//! the driver kills when the execution times out. Standard output and error
//! are two pipes shared by the server and all its children, drained during
//! every execution and emptied after it, so each execution's output is kept
//! separately.

use super::process::{self, Binding, Capture, ControlFds, Finished, Group};
use super::{ExecConfig, ExecError, Termination};
use crate::cancel::Cancel;
use reach_channel::fork::{
    decode, PersistCause, MESSAGE_BYTES, MSG_DONE, MSG_FORK_FAILED, MSG_LONG_START,
    MSG_PERSIST_OFF, MSG_READY, MSG_REFUSED,
};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

/// How long to wait for the server to report a child that was killed.
const REAP_GRACE: Duration = Duration::from_secs(5);

/// Why the fork server cannot be used for this program.
#[derive(Debug)]
pub enum Unavailable {
    /// The server ended or stopped answering before it reached `main`
    /// (crash or exit during start-up, or a runtime that did not attach).
    NoMain,
    /// Static constructors started threads, which a fork would lose.
    ThreadsBeforeMain(i64),
    /// Static constructors ran more steps than the recording bound.
    LongStartUp(i64),
}

/// A running fork server.
pub struct ForkServer {
    group: Group,
    request: OwnedFd,
    response: OwnedFd,
    pending: Vec<u8>,
    caps: [Capture; 2],
    /// An execution was asked for and not yet reported reaped.
    running: bool,
    /// Events recorded before `main` (by static constructors).
    pub pre_main: u64,
    /// Why executions stopped being persistent, once they did, and whether
    /// the cause is the machine (the kernel cannot track writes) rather than
    /// the program.
    pub persist_off: Option<(String, bool)>,
}

impl ForkServer {
    /// The server's process id.
    pub fn pid(&self) -> libc::pid_t {
        self.group.pid()
    }
}

/// What a server reported about one execution.
enum Report {
    Done(i32),
    ForkFailed(i32),
    Ready(i64),
    Refused(i64),
    LongStart(i64),
    PersistOff(i64),
}

/// The server is gone or misbehaved during an execution.
#[derive(Debug)]
pub struct Lost(pub String);

impl ForkServer {
    /// Starts the program as a fork server (the channel must hold a valid
    /// request: static constructors run under it) and waits until it is
    /// ready at `main`, at most `timeout`. With `Binding::Now` the dynamic
    /// linker binds every symbol before `main`, once for all executions.
    /// If `cancel` fires first, the program is killed and the result is
    /// [`ExecError::Cancelled`].
    pub fn start(
        config: &ExecConfig,
        channel_fd: RawFd,
        timeout: Duration,
        binding: Binding,
        cancel: &Cancel,
    ) -> Result<Result<ForkServer, Unavailable>, ExecError> {
        let spawn_err = |source| ExecError::Spawn {
            program: config.program.clone(),
            source,
        };
        let (out_r, out_w) = process::pipe().map_err(spawn_err)?;
        let (err_r, err_w) = process::pipe().map_err(spawn_err)?;
        let (req_r, req_w) = process::pipe().map_err(spawn_err)?;
        let (resp_r, resp_w) = process::pipe().map_err(spawn_err)?;
        let control = ControlFds {
            request: req_r.as_raw_fd(),
            response: resp_w.as_raw_fd(),
        };
        let mut cmd =
            process::program_command(config, channel_fd, Some(control), binding, out_w, err_w);
        let child = cmd.spawn().map_err(spawn_err)?;
        drop(cmd);
        // Only the server may hold these ends, so that its death is seen.
        drop(req_r);
        drop(resp_w);
        for fd in [&out_r, &err_r, &resp_r] {
            process::set_nonblocking(fd.as_raw_fd()).map_err(ExecError::Wait)?;
        }
        let mut server = ForkServer {
            group: Group { child: Some(child) },
            request: req_w,
            response: resp_r,
            pending: Vec::new(),
            caps: [
                Capture {
                    fd: Some(out_r),
                    kept: Vec::new(),
                },
                Capture {
                    fd: Some(err_r),
                    kept: Vec::new(),
                },
            ],
            running: false,
            pre_main: 0,
            persist_off: None,
        };
        let deadline = Instant::now() + timeout;
        let ready = loop {
            match server.next_report(cancel.slice_until(deadline)) {
                Ok(None) if cancel.is_set() => return Err(ExecError::Cancelled),
                Ok(None) if Instant::now() < deadline => {}
                other => break other,
            }
        };
        Ok(match ready {
            Ok(Some(Report::Ready(n))) if n >= 0 => {
                server.pre_main = n as u64;
                Ok(server)
            }
            Ok(Some(Report::Refused(threads))) => Err(Unavailable::ThreadsBeforeMain(threads)),
            Ok(Some(Report::LongStart(steps))) => Err(Unavailable::LongStartUp(steps)),
            _ => Err(Unavailable::NoMain),
        })
    }

    /// Output the server printed before `main` (static constructors), taken
    /// out so it is not blamed on the first execution.
    pub fn take_start_output(&mut self) -> (Vec<u8>, Vec<u8>) {
        self.drain_all();
        let [o, e] = &mut self.caps;
        (std::mem::take(&mut o.kept), std::mem::take(&mut e.kept))
    }

    /// Reads everything available from the output pipes.
    fn drain_all(&mut self) {
        for c in &mut self.caps {
            c.drain();
        }
    }

    /// Parses one buffered message, if complete.
    fn parse_pending(&mut self) -> Option<Report> {
        if self.pending.len() < MESSAGE_BYTES {
            return None;
        }
        let mut m = [0u8; MESSAGE_BYTES];
        m.copy_from_slice(&self.pending[..MESSAGE_BYTES]);
        self.pending.drain(..MESSAGE_BYTES);
        let (tag, value) = decode(&m);
        Some(match tag {
            MSG_READY => Report::Ready(value),
            MSG_DONE => Report::Done(value as i32),
            MSG_FORK_FAILED => Report::ForkFailed(value as i32),
            MSG_REFUSED => Report::Refused(value),
            MSG_LONG_START => Report::LongStart(value),
            MSG_PERSIST_OFF => Report::PersistOff(value),
            // Unknown messages: treat as a server malfunction.
            _ => Report::Refused(-1),
        })
    }

    /// Waits for the next report until `deadline`, draining the output pipes
    /// meanwhile. `Ok(None)`: deadline passed. `Err`: the server is gone.
    fn next_report(&mut self, deadline: Instant) -> Result<Option<Report>, Lost> {
        loop {
            if let Some(r) = self.parse_pending() {
                return Ok(Some(r));
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let left = (deadline - now).as_millis().clamp(1, i32::MAX as u128) as i32;
            let mut fds = [libc::pollfd {
                fd: self.response.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            }; 3];
            for (i, c) in self.caps.iter().enumerate() {
                fds[i + 1].fd = c.fd.as_ref().map_or(-1, |f| f.as_raw_fd());
            }
            // SAFETY: polling a local array of three pollfds.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 3, left) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Lost(format!("polling the fork server failed: {e}")));
            }
            for (i, c) in self.caps.iter_mut().enumerate() {
                if fds[i + 1].revents != 0 {
                    c.drain();
                }
            }
            if fds[0].revents != 0 {
                let mut buf = [0u8; 4 * MESSAGE_BYTES];
                // SAFETY: reading into a local buffer of the given size.
                let r = unsafe {
                    libc::read(
                        self.response.as_raw_fd(),
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                    )
                };
                if r > 0 {
                    self.pending.extend_from_slice(&buf[..r as usize]);
                } else if r == 0 {
                    return Err(Lost("the fork server exited".into()));
                } else {
                    let e = io::Error::last_os_error();
                    if !matches!(
                        e.kind(),
                        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                    ) {
                        return Err(Lost(format!("reading from the fork server failed: {e}")));
                    }
                }
            }
        }
    }

    /// Runs one execution: the channel must already hold its request.
    /// `Ok(None)`: `cancel` fired first; the execution was killed and reaped.
    pub fn run(&mut self, timeout: Duration, cancel: &Cancel) -> Result<Option<Finished>, Lost> {
        for c in &mut self.caps {
            c.kept.clear();
        }
        let start = Instant::now();
        let byte = [1u8];
        // SAFETY: writing one byte from a local buffer.
        let w = unsafe { libc::write(self.request.as_raw_fd(), byte.as_ptr().cast(), 1) };
        if w != 1 {
            return Err(Lost(format!(
                "cannot reach the fork server: {}",
                io::Error::last_os_error()
            )));
        }
        let deadline = start + timeout;
        self.running = true;
        // Set once the child was killed: by the timeout, or cancelled.
        let mut killed: Option<(Instant, bool)> = None;
        let status = loop {
            let limit = match killed {
                Some((at, _)) => at + REAP_GRACE,
                None => cancel.slice_until(deadline),
            };
            match self.next_report(limit)? {
                Some(Report::Done(status)) => {
                    self.running = false;
                    break status;
                }
                Some(Report::PersistOff(cause)) => {
                    let cause = PersistCause::from_value(cause);
                    let why =
                        cause.map_or("the worker stopped for an unknown reason", |c| c.describe());
                    let machine = matches!(
                        cause,
                        Some(PersistCause::NoUserfaultfd | PersistCause::Setup)
                    );
                    self.persist_off
                        .get_or_insert_with(|| (why.to_string(), machine));
                }
                Some(Report::ForkFailed(errno)) => {
                    return Err(Lost(format!(
                        "the fork server cannot fork: {}",
                        io::Error::from_raw_os_error(errno)
                    )))
                }
                Some(_) => return Err(Lost("the fork server sent an unexpected message".into())),
                None => match killed {
                    Some((at, _)) if Instant::now() >= at + REAP_GRACE => {
                        return Err(Lost("the fork server does not reap a killed child".into()))
                    }
                    Some(_) => {}
                    None if cancel.is_set() => {
                        killed = Some((Instant::now(), true));
                        self.kill_child();
                    }
                    None if Instant::now() >= deadline => {
                        killed = Some((Instant::now(), false));
                        self.kill_child();
                    }
                    None => {}
                },
            }
        };
        if killed.is_some_and(|(_, cancelled)| cancelled) {
            self.drain_all();
            return Ok(None);
        }
        let timed_out = killed.is_some();
        let wall = start.elapsed();
        // The child has exited: what it wrote is in the pipes.
        self.drain_all();
        let termination = if timed_out {
            Termination::TimedOut
        } else if libc::WIFSIGNALED(status) {
            Termination::Signaled(libc::WTERMSIG(status))
        } else {
            Termination::Exited(libc::WEXITSTATUS(status))
        };
        let [o, e] = &mut self.caps;
        Ok(Some(Finished {
            termination,
            stdout: std::mem::take(&mut o.kept),
            stderr: std::mem::take(&mut e.kept),
            wall,
        }))
    }
}

impl ForkServer {
    /// Kills the current execution's process group, if one is running: the
    /// group of each child the kernel lists for the server (the program never
    /// tells which process to kill).
    fn kill_child(&self) {
        if !self.running {
            return;
        }
        for pid in process::children(self.group.pid()) {
            // SAFETY: plain syscalls. `pid` is the server's unreaped child,
            // which leads its own process group (made so by the server and by
            // the child itself); the server reaps it only after killing that
            // group, so neither id is reused meanwhile.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::NoMain => {
                write!(f, "the program did not reach main under the fork server")
            }
            Unavailable::ThreadsBeforeMain(n) => {
                write!(
                    f,
                    "static constructors started threads ({n} threads at main)"
                )
            }
            Unavailable::LongStartUp(n) => {
                write!(
                    f,
                    "static constructors ran {n} steps, more than the recording bound"
                )
            }
        }
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        // A persistent worker waits for its next request between
        // executions: kill it too, and let the server reap it before the
        // server goes (an orphan would wait for init to reap it).
        self.running = true;
        self.kill_child();
        let deadline = Instant::now() + Duration::from_millis(200);
        while !process::children(self.group.pid()).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        // The server exits at end of file on its request pipe; its group is
        // killed anyway, and its children die with it.
        let _ = self.group.finish();
    }
}
