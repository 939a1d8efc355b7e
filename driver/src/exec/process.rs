//! Starting the program under test in its own process group, capturing its
//! output (bounded), waiting for it with a wall-clock bound, and always
//! killing and reaping the whole group.

use super::{setting, ExecConfig, ExecError, Termination};
use crate::cancel::Cancel;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Bytes of each output stream kept per execution; the rest is discarded.
pub const OUTPUT_LIMIT: usize = 64 * 1024;

/// How a finished process ended and what it printed.
pub struct Finished {
    /// Exit code, signal, or timeout.
    pub termination: Termination,
    /// First [`OUTPUT_LIMIT`] bytes of standard output.
    pub stdout: Vec<u8>,
    /// First [`OUTPUT_LIMIT`] bytes of standard error.
    pub stderr: Vec<u8>,
    /// Wall time from spawn to exit.
    pub wall: Duration,
}

/// A running child that is the leader of its own process group. Dropping it
/// kills the whole group with `SIGKILL` and reaps the leader.
pub(super) struct Group {
    pub(super) child: Option<Child>,
}

impl Group {
    pub(super) fn pid(&self) -> libc::pid_t {
        self.child.as_ref().map_or(0, |c| c.id() as libc::pid_t)
    }

    /// Kills every process of the group (the leader may already be a zombie,
    /// which keeps the group id from being reused).
    pub(super) fn kill_group(&self) {
        let pid = self.pid();
        if pid > 0 {
            // SAFETY: plain syscall; the group id is our unreaped child's pid.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }

    /// Kills the group and reaps the leader.
    pub(super) fn finish(&mut self) -> io::Result<std::process::ExitStatus> {
        self.kill_group();
        match self.child.take() {
            Some(mut c) => c.wait(),
            None => Err(io::Error::other("child already reaped")),
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.child.is_some() {
            let _ = self.finish();
        }
    }
}

pub(super) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for two fds.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds are fresh and owned by us.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

pub(super) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A captured output stream: the read end of a pipe and the bytes kept.
pub(super) struct Capture {
    pub(super) fd: Option<OwnedFd>,
    pub(super) kept: Vec<u8>,
}

impl Capture {
    /// Reads what is available; closes the pipe at end of file.
    pub(super) fn drain(&mut self) {
        let Some(fd) = &self.fd else { return };
        let mut buf = [0u8; 16 * 1024];
        loop {
            // SAFETY: reading into a local buffer of the given size.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                let room = OUTPUT_LIMIT.saturating_sub(self.kept.len());
                self.kept.extend_from_slice(&buf[..(n as usize).min(room)]);
            } else if n == 0 {
                self.fd = None;
                return;
            } else {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                if e.kind() != io::ErrorKind::WouldBlock {
                    self.fd = None;
                }
                return;
            }
        }
    }
}

pub(super) fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: plain syscall.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh fd owned by us.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Why [`wait_until`] stopped waiting before the child exited.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gave {
    /// The child exited.
    Exited,
    /// The deadline passed first.
    TimedOut,
    /// The cancel condition fired first.
    Cancelled,
}

/// Polls the pidfd and the output pipes until the child exits, `deadline`
/// passes or `cancel` fires.
fn wait_until(
    pidfd: &OwnedFd,
    caps: &mut [Capture; 2],
    deadline: Instant,
    cancel: &Cancel,
) -> io::Result<Gave> {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ok(Gave::TimedOut);
        }
        if cancel.is_set() {
            return Ok(Gave::Cancelled);
        }
        let until = cancel.slice_until(deadline);
        let left = until
            .saturating_duration_since(now)
            .as_millis()
            .clamp(1, i32::MAX as u128) as i32;
        let mut fds = [libc::pollfd {
            fd: pidfd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }; 3];
        for (i, c) in caps.iter().enumerate() {
            fds[i + 1].fd = c.fd.as_ref().map_or(-1, |f| f.as_raw_fd());
        }
        // SAFETY: polling a local array of three pollfds.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 3, left) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        for (i, c) in caps.iter_mut().enumerate() {
            if fds[i + 1].revents != 0 {
                c.drain();
            }
        }
        if fds[0].revents != 0 {
            return Ok(Gave::Exited);
        }
    }
}

/// Moves `fds[i].0` to fd number `fds[i].1` in a child about to exec, with
/// close-on-exec off. Only async-signal-safe system calls.
fn place_fds(fds: &[(RawFd, RawFd)]) -> io::Result<()> {
    const SPARE: RawFd = 256;
    let mut tmp = [-1; 4];
    // First out of the way of every target, then onto the targets.
    for (i, (src, _)) in fds.iter().enumerate() {
        // SAFETY: duplicating an fd we own into a fresh number.
        let t = unsafe { libc::fcntl(*src, libc::F_DUPFD_CLOEXEC, SPARE) };
        if t < 0 {
            return Err(io::Error::last_os_error());
        }
        tmp[i] = t;
    }
    for (i, (_, dst)) in fds.iter().enumerate() {
        // SAFETY: dup2 onto a fixed number; the result has close-on-exec off.
        if unsafe { libc::dup2(tmp[i], *dst) } < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: closing our temporary duplicate.
        unsafe { libc::close(tmp[i]) };
    }
    Ok(())
}

/// The fork server's control fds (request read end, response write end) as
/// the driver holds them.
#[derive(Clone, Copy)]
pub(super) struct ControlFds {
    pub(super) request: RawFd,
    pub(super) response: RawFd,
}

/// Pids of the live (unreaped) children of process `pid`, as the kernel
/// lists them: from `/proc/PID/task/*/children` (children of each of its
/// threads), or by scanning `/proc` for processes whose parent is `pid` where
/// those files do not exist.
pub(super) fn children(pid: libc::pid_t) -> Vec<libc::pid_t> {
    if pid <= 0 {
        return Vec::new();
    }
    let listed = std::fs::read_dir(format!("/proc/{pid}/task")).map(|tasks| {
        tasks
            .filter_map(Result::ok)
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .collect::<Vec<String>>()
    });
    match listed {
        Ok(lists) if !lists.is_empty() => lists
            .iter()
            .flat_map(|l| l.split_whitespace())
            .filter_map(|p| p.parse().ok())
            .collect(),
        Ok(_) => scan_for_children(pid),
        Err(_) => Vec::new(),
    }
}

/// Children of `pid` found by reading every process's parent in `/proc`.
fn scan_for_children(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|p| parent_of(*p) == Some(pid))
        .collect()
}

/// Parent pid of process `pid` from `/proc/PID/stat` (the field after the
/// state, which follows the command name's closing parenthesis).
fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// How the dynamic linker binds the program's symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Binding {
    /// Every symbol at start-up: a fork server binds them once instead of
    /// each child binding the ones it calls, again and again.
    Now,
    /// On first call (the default), with a variable of the same length as
    /// the one that asks for [`Binding::Now`], so that the program's initial
    /// stack is the same either way.
    Lazy,
}

/// The variable that sets the binding mode for `binding`, unless the user
/// set [`reach_channel::env::BIND_NOW`] themselves.
fn binding_variable(binding: Binding) -> Option<(&'static str, String)> {
    use reach_channel::env::{bind_lazy_value, BIND_LAZY, BIND_NOW, BIND_NOW_MARK};
    if std::env::var_os(BIND_NOW).is_some() {
        return None;
    }
    Some(match binding {
        Binding::Now => (BIND_NOW, BIND_NOW_MARK.to_string()),
        Binding::Lazy => (BIND_LAZY, bind_lazy_value()),
    })
}

/// What the program is started with: its absolute path, `argv` and the
/// driver's environment with the runtime's variables, padded to
/// `config.env_layout` (see `setting`). `server`: as a fork server.
fn start_block(config: &ExecConfig, server: bool, binding: Binding) -> setting::StartBlock {
    use reach_channel::fork::{CHANNEL_FD_NUMBER, ENV_OFF, REQUEST_FD_NUMBER, RESPONSE_FD_NUMBER};
    let mut preload = config.runtime.clone().into_os_string();
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(old);
    }
    let server = if server {
        format!("{REQUEST_FD_NUMBER}:{RESPONSE_FD_NUMBER}")
    } else {
        ENV_OFF.to_string()
    };
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    let mut set = |name: &str, value: OsString| {
        env.retain(|(k, _)| k != name);
        env.push((name.into(), value));
    };
    if let Some((name, value)) = binding_variable(binding) {
        set(name, value.into());
    }
    set(
        reach_channel::env::CHANNEL_FD,
        CHANNEL_FD_NUMBER.to_string().into(),
    );
    set(reach_channel::env::FORK_SERVER, server.into());
    set("LD_PRELOAD", preload);
    let path = std::path::absolute(&config.program)
        .unwrap_or_else(|_| config.program.clone())
        .into_os_string();
    let argv = std::iter::once(path.clone())
        .chain(config.args.iter().cloned())
        .collect();
    setting::padded(path, argv, env, config.env_layout)
}

/// `config.env_layout`, grown if the program's arguments and environment
/// do not fit in it whichever way it is started.
pub(super) fn fitting_layout(config: &ExecConfig) -> setting::EnvLayout {
    let mut config = config.clone();
    loop {
        let before = config.env_layout;
        for (server, binding) in [(false, Binding::Lazy), (true, Binding::Now)] {
            config.env_layout = start_block(&config, server, binding).layout;
        }
        if config.env_layout == before {
            return before;
        }
    }
}

/// The command that starts the program under the runtime: environment
/// (padded, see `setting`), fixed fd numbers, ASLR off, own process group,
/// killed with its parent.
pub(super) fn program_command(
    config: &ExecConfig,
    channel_fd: RawFd,
    control: Option<ControlFds>,
    binding: Binding,
    stdout: OwnedFd,
    stderr: OwnedFd,
) -> Command {
    use reach_channel::fork::{CHANNEL_FD_NUMBER, REQUEST_FD_NUMBER, RESPONSE_FD_NUMBER};
    let block = start_block(config, control.is_some(), binding);
    let isolation = config.isolate.as_ref().map(|i| i.plan());
    let mut cmd = Command::new(&block.path);
    cmd.arg0(&block.argv[0])
        .args(&block.argv[1..])
        .env_clear()
        .envs(block.env)
        .stdin(Stdio::null())
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr));
    // SAFETY: the closure only makes async-signal-safe syscalls.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(plan) = &isolation {
                plan.enter()?;
            }
            let current = libc::personality(0xffff_ffff);
            if current != -1 {
                libc::personality(
                    (current as libc::c_ulong) | libc::ADDR_NO_RANDOMIZE as libc::c_ulong,
                );
            }
            if libc::setpgid(0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            match control {
                Some(c) => place_fds(&[
                    (channel_fd, CHANNEL_FD_NUMBER),
                    (c.request, REQUEST_FD_NUMBER),
                    (c.response, RESPONSE_FD_NUMBER),
                ]),
                None => place_fds(&[(channel_fd, CHANNEL_FD_NUMBER)]),
            }
        });
    }
    cmd
}

/// Runs the program of `config` once with the channel fd `channel_fd`.
/// `Ok(None)`: `cancel` fired first; the execution was killed.
pub fn run(
    config: &ExecConfig,
    channel_fd: RawFd,
    cancel: &Cancel,
) -> Result<Option<Finished>, ExecError> {
    let spawn_err = |source| ExecError::Spawn {
        program: config.program.clone(),
        source,
    };
    let (out_r, out_w) = pipe().map_err(spawn_err)?;
    let (err_r, err_w) = pipe().map_err(spawn_err)?;
    let mut cmd = program_command(config, channel_fd, None, Binding::Lazy, out_w, err_w);
    let start = Instant::now();
    let child = cmd.spawn().map_err(spawn_err)?;
    // The parent's copies of the write ends are closed (moved into `cmd`).
    drop(cmd);
    let mut group = Group { child: Some(child) };
    let mut caps = [
        Capture {
            fd: Some(out_r),
            kept: Vec::new(),
        },
        Capture {
            fd: Some(err_r),
            kept: Vec::new(),
        },
    ];
    for c in &caps {
        if let Some(fd) = &c.fd {
            set_nonblocking(fd.as_raw_fd()).map_err(ExecError::Wait)?;
        }
    }
    let pidfd = pidfd_open(group.pid()).map_err(ExecError::Wait)?;
    let gave =
        wait_until(&pidfd, &mut caps, start + config.timeout, cancel).map_err(ExecError::Wait)?;
    let timed_out = gave == Gave::TimedOut;
    let wall = start.elapsed();
    let status = group.finish().map_err(ExecError::Wait)?;
    // Everything in the group is dead now; collect what is left in the pipes
    // (a process that left the group could keep them open: bounded wait).
    let drain_deadline = Instant::now() + Duration::from_millis(200);
    while caps.iter().any(|c| c.fd.is_some()) && Instant::now() < drain_deadline {
        for c in &mut caps {
            c.drain();
        }
        if caps.iter().any(|c| c.fd.is_some()) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let termination = if timed_out {
        Termination::TimedOut
    } else if let Some(sig) = status.signal() {
        Termination::Signaled(sig)
    } else {
        Termination::Exited(status.code().unwrap_or(-1))
    };
    if gave == Gave::Cancelled {
        return Ok(None);
    }
    let [out, err] = caps;
    Ok(Some(Finished {
        termination,
        stdout: out.kept,
        stderr: err.kept,
        wall,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_lists_a_spawned_child_with_its_parent() {
        let mut child = Command::new("sleep").arg("5").spawn().expect("spawn sleep");
        let pid = child.id() as libc::pid_t;
        let me = std::process::id() as libc::pid_t;
        assert_eq!(parent_of(pid), Some(me));
        assert!(children(me).contains(&pid));
        assert!(scan_for_children(me).contains(&pid));
        assert!(children(pid).is_empty());
        assert!(children(0).is_empty());
        let _ = child.kill();
        let _ = child.wait();
    }
}
