//! The [`Executor`]: one channel, one program, many executions.

use super::channel::Channel;
use super::{outcome, process, ExecConfig, ExecError, Outcome, Request};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Runs executions of one program, each under a given [`Request`].
///
/// Every execution is a fresh `exec` of the program with the runtime
/// preloaded, ASLR disabled, in its own process group; the group is killed
/// and reaped before [`Executor::run`] returns. `ExecConfig::fork_server` is
/// accepted but executions are currently always started with `exec`.
pub struct Executor {
    config: ExecConfig,
    channel: Channel,
}

fn is_executable(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

/// Resolves a program name without a slash through `PATH`, as a shell would.
fn resolve_program(program: &Path) -> Result<PathBuf, ExecError> {
    let has_slash = program.as_os_str().as_bytes().contains(&b'/');
    let found = if has_slash {
        program.exists().then(|| program.to_path_buf())
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| p.is_file() && is_executable(p))
        })
    };
    let path = found.ok_or_else(|| ExecError::ProgramMissing(program.to_path_buf()))?;
    if !path.is_file() || !is_executable(&path) {
        return Err(ExecError::NotExecutable(path));
    }
    Ok(path)
}

impl Executor {
    /// Checks the configuration and creates the channel.
    pub fn new(mut config: ExecConfig) -> Result<Executor, ExecError> {
        config.program = resolve_program(&config.program)?;
        if !config.runtime.is_file() {
            return Err(ExecError::RuntimeMissing(config.runtime));
        }
        config.runtime = config
            .runtime
            .canonicalize()
            .map_err(|_| ExecError::RuntimeMissing(config.runtime.clone()))?;
        let channel = Channel::create(config.max_steps)?;
        Ok(Executor { config, channel })
    }

    /// The configuration in use (program path resolved).
    pub fn config(&self) -> &ExecConfig {
        &self.config
    }

    /// Runs the program once under `request` and returns the validated result.
    pub fn run(&mut self, request: &Request) -> Result<Outcome, ExecError> {
        self.channel
            .prepare(request, self.config.max_steps, self.config.spin_threshold)?;
        let finished = process::run(&self.config, self.channel.raw_fd())?;
        let view = self.channel.view()?;
        outcome::read(&view, finished)
    }
}
