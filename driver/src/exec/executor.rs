//! The [`Executor`]: one channel, one program, many executions.

use super::channel::{Channel, StartState};
use super::process::Binding;
use super::server::{ForkServer, Unavailable};
use super::{outcome, process, ExecConfig, ExecError, Outcome, Request};
use crate::cancel::Cancel;
use crate::objects::ObjectLog;
use reach_channel::fork::UserThreadsCause;
use reach_channel::layout::USER_THREADS_ABANDONED;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Runs executions of one program, each under a given [`Request`].
///
/// With `ExecConfig::fork_server` (the default) the program is started once
/// and stops at entry to `main` as the runtime's fork server; every execution
/// is then a forked child of it. Otherwise every execution is a fresh `exec`.
/// Either way the program runs with the runtime preloaded, ASLR disabled, in
/// its own process group, and the execution's processes are killed and
/// reaped before [`Executor::run`] returns.
///
/// Under the fork server, static constructors run once (in the server) and
/// every execution inherits their effects; files the program writes are not
/// reset between executions. If the server cannot be used (the program does
/// not reach `main`, or starts threads before it), the executor falls back to
/// `exec` for good and says why in [`Executor::fork_server_note`].
pub struct Executor {
    config: ExecConfig,
    channel: Channel,
    server: ServerState,
    cancel: Cancel,
    /// Executions still ask for user-level threads.
    user_threads: bool,
    /// Why they stopped, once they did, and whether the machine is why.
    user_threads_off: Option<(String, bool)>,
}

/// Where the fork server stands.
enum ServerState {
    /// Not started yet (or lost; it is restarted on the next execution).
    Idle,
    /// Running and ready at `main`.
    Running(Box<ForkServer>, StartState),
    /// Not used: configuration, or it cannot work for this program.
    Off(Option<String>),
}

fn is_executable(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

/// Finds the program file: a path as given; a name without a slash as
/// test runners do, a file of that name in the current directory (`a.out`
/// runs `./a.out`), else through `PATH`, as a shell would.
pub fn locate_program(program: &Path) -> Result<PathBuf, ExecError> {
    let has_slash = program.as_os_str().as_bytes().contains(&b'/');
    let here = Path::new(".").join(program);
    if has_slash {
        return if program.exists() {
            Ok(program.to_path_buf())
        } else {
            Err(ExecError::ProgramMissing(program.to_path_buf()))
        };
    }
    if here.is_file() {
        return Ok(here);
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| p.is_file() && is_executable(p))
        })
        .ok_or_else(|| ExecError::ProgramNotFound(program.to_path_buf()))
}

/// [`locate_program`], and the file must be executable.
fn resolve_program(program: &Path) -> Result<PathBuf, ExecError> {
    let path = locate_program(program)?;
    if !path.is_file() || !is_executable(&path) {
        return Err(ExecError::NotExecutable(path));
    }
    Ok(path)
}

/// The request static constructors run under in a fork server: no prefix,
/// no sleep set (each child re-reads its own request at `main`).
fn bootstrap_request() -> Request {
    Request::continuing(Vec::new())
}

impl Executor {
    /// Checks the configuration and creates the channel.
    pub fn new(mut config: ExecConfig) -> Result<Executor, ExecError> {
        config.program = resolve_program(&config.program)?;
        config.env_layout = process::fitting_layout(&config);
        if !config.runtime.is_file() {
            return Err(ExecError::RuntimeMissing(config.runtime));
        }
        config.runtime = config
            .runtime
            .canonicalize()
            .map_err(|_| ExecError::RuntimeMissing(config.runtime.clone()))?;
        let channel = Channel::create(config.record_steps)?;
        let server = if config.fork_server {
            ServerState::Idle
        } else {
            ServerState::Off(None)
        };
        let user_threads = config.user_threads;
        Ok(Executor {
            config,
            channel,
            server,
            cancel: Cancel::never(),
            user_threads,
            user_threads_off: None,
        })
    }

    /// From now on, an execution still running when `cancel` fires is
    /// killed and [`Executor::run`] returns [`ExecError::Cancelled`].
    pub fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel;
    }

    /// The configuration in use (program path resolved).
    pub fn config(&self) -> &ExecConfig {
        &self.config
    }

    /// Why the fork server was requested but is not used (it fell back to
    /// `exec`), if so.
    pub fn fork_server_note(&self) -> Option<&str> {
        match &self.server {
            ServerState::Off(Some(note)) => Some(note),
            _ => None,
        }
    }

    /// Why executions were asked to be persistent but are forked children
    /// (for good), if so: a one-line note naming the cause.
    pub fn persistent_note(&self) -> Option<String> {
        self.persist_off()
            .map(|(why, _)| format!("{why}; every execution is a forked child instead"))
    }

    /// Why the program's threads were asked to be user-level contexts but
    /// run as kernel threads (for good), if so: a one-line note naming the
    /// cause.
    pub fn user_threads_note(&self) -> Option<String> {
        self.user_threads_off.as_ref().map(|(why, _)| {
            format!("{why}; every execution runs the program's threads as kernel threads instead")
        })
    }

    /// True if user-level threads were unavailable because of the machine
    /// (no `FSGSBASE`), not because of the program.
    pub fn user_threads_unsupported(&self) -> bool {
        self.user_threads_off
            .as_ref()
            .is_some_and(|(_, machine)| *machine)
    }

    /// True if executions could not be persistent because of the machine
    /// (the kernel cannot track written pages), not because of the program.
    pub fn persistence_unsupported(&self) -> bool {
        self.persist_off().is_some_and(|(_, machine)| *machine)
    }

    fn persist_off(&self) -> Option<&(String, bool)> {
        match &self.server {
            ServerState::Running(server, _) => server.persist_off.as_ref(),
            _ => None,
        }
    }

    /// True while executions are served by a running fork server.
    pub fn fork_server_running(&self) -> bool {
        matches!(self.server, ServerState::Running(..))
    }

    /// Starts the fork server if it should run and does not yet.
    fn ensure_server(&mut self) -> Result<(), ExecError> {
        if !matches!(self.server, ServerState::Idle) {
            return Ok(());
        }
        let mut started = self.start_server(Binding::Now)?;
        if matches!(started, Err(Unavailable::NoMain)) {
            // Perhaps it cannot start with every symbol bound (a function
            // it never calls is defined nowhere): bind lazily, as usual.
            started = self.start_server(Binding::Lazy)?;
        }
        self.server = match started {
            Ok(mut server) => {
                let start = self.channel.capture_start(server.pre_main)?;
                // What constructors printed before main belongs to no
                // execution (each child inherits unflushed stdio buffers).
                let _ = server.take_start_output();
                ServerState::Running(Box::new(server), start)
            }
            Err(why) => ServerState::Off(Some(why_note(&why))),
        };
        Ok(())
    }

    /// Starts a fork server with the channel holding the bootstrap request.
    fn start_server(
        &mut self,
        binding: Binding,
    ) -> Result<Result<ForkServer, Unavailable>, ExecError> {
        prepare(&mut self.channel, &self.config, &bootstrap_request(), false)?;
        if self.config.persistent {
            self.channel.request_persistent();
        }
        ForkServer::start(
            &self.config,
            self.channel.raw_fd(),
            self.config.timeout,
            binding,
            &self.cancel,
        )
    }

    /// Runs the program once under `request` and returns the validated result.
    ///
    /// With user-level threads, an execution the runtime abandoned (a
    /// thread needed a kernel thread of its own) runs again with kernel
    /// threads, and so does every later one.
    pub fn run(&mut self, request: &Request) -> Result<Outcome, ExecError> {
        let mut outcome = self.run_once(request)?;
        if !self.user_threads {
            return Ok(outcome);
        }
        let off = self.channel.view()?.user_threads_off()?;
        if off == 0 {
            outcome.user_threads = true;
            return Ok(outcome);
        }
        let cause = UserThreadsCause::from_value(off & !USER_THREADS_ABANDONED);
        let why = cause.map_or(
            "the runtime stopped user-level threads for an unknown reason",
            |c| c.describe(),
        );
        let machine = matches!(
            cause,
            Some(UserThreadsCause::Unavailable | UserThreadsCause::NoStacks)
        );
        self.user_threads = false;
        self.user_threads_off
            .get_or_insert_with(|| (why.to_string(), machine));
        if off & USER_THREADS_ABANDONED != 0 {
            return self.run_once(request);
        }
        Ok(outcome)
    }

    /// With `--isolate-files`, under the fork server: puts the isolated
    /// directories back as they were (an execution started with exec has a
    /// namespace of its own).
    fn restore_files(&mut self) -> Result<(), ExecError> {
        let (Some(isolation), ServerState::Running(server, _)) =
            (&self.config.isolate, &self.server)
        else {
            return Ok(());
        };
        isolation
            .restore(server.pid())
            .map(|_| ())
            .map_err(ExecError::Isolate)
    }

    /// The object records of the execution that just ran with `outcome`
    /// (for naming memory in its report); none if they cannot be read
    /// (memory is then shown by address).
    pub fn objects(&self, outcome: &Outcome) -> ObjectLog {
        self.channel
            .view()
            .ok()
            .and_then(|view| ObjectLog::read(&view, outcome.threads.len()).ok())
            .unwrap_or_default()
    }

    /// [`Executor::run`] in the current thread mode, once the isolated
    /// directories are as they were when the run started (which also hides
    /// from every execution what static constructors wrote in the server).
    fn run_once(&mut self, request: &Request) -> Result<Outcome, ExecError> {
        self.ensure_server()?;
        self.restore_files()?;
        self.run_in_mode(request)
    }

    /// [`Executor::run_once`] without putting files back.
    fn run_in_mode(&mut self, request: &Request) -> Result<Outcome, ExecError> {
        self.ensure_server()?;
        let mut lost = None;
        if let ServerState::Running(server, start) = &mut self.server {
            prepare(&mut self.channel, &self.config, request, self.user_threads)?;
            self.channel.restore_start(start);
            match server.run(self.config.timeout, &self.cancel) {
                Ok(Some(finished)) => {
                    let view = self.channel.view()?;
                    return outcome::read(&view, finished, self.config.timeout);
                }
                Ok(None) => return Err(ExecError::Cancelled),
                Err(why) => lost = Some(why),
            }
        }
        if let Some(why) = lost {
            // The server died or misbehaved (killed from outside): start a
            // new one and run the request again, once.
            self.server = ServerState::Idle;
            self.ensure_server()?;
            if let ServerState::Running(server, start) = &mut self.server {
                prepare(&mut self.channel, &self.config, request, self.user_threads)?;
                self.channel.restore_start(start);
                let finished = server
                    .run(self.config.timeout, &self.cancel)
                    .map_err(|again| {
                        ExecError::ForkServer(format!("{}; after a restart: {}", why.0, again.0))
                    })?
                    .ok_or(ExecError::Cancelled)?;
                let view = self.channel.view()?;
                return outcome::read(&view, finished, self.config.timeout);
            }
        }
        prepare(&mut self.channel, &self.config, request, self.user_threads)?;
        let finished = process::run(&self.config, self.channel.raw_fd(), &self.cancel)?
            .ok_or(ExecError::Cancelled)?;
        let view = self.channel.view()?;
        outcome::read(&view, finished, self.config.timeout)
    }
}

/// Writes `request`, the bounds of `config` and whether threads are to be
/// user-level contexts into `channel`.
fn prepare(
    channel: &mut Channel,
    config: &ExecConfig,
    request: &Request,
    user_threads: bool,
) -> Result<(), ExecError> {
    channel.prepare(request, config)?;
    channel.prepare_symbolic(
        &request.inputs,
        config.symbolic_args,
        config.symbolic_stdin,
        config.trace_shared,
    );
    if user_threads {
        channel.request_user_threads();
    }
    Ok(())
}

fn why_note(why: &Unavailable) -> String {
    format!("{why}; every execution starts the program with exec instead")
}
