//! `--isolate-files`: every execution sees the working directory (and each
//! `--isolate DIR`) as it was when the run started.
//!
//! The program is started in a private mount namespace in which each such
//! directory is an overlay: its lower layer is the real directory (bound
//! under a tmpfs private to the namespace), its upper layer a directory of
//! that tmpfs, so nothing the program writes reaches the real directory.
//! Executions that are processes of their own start (exec per execution)
//! get a fresh namespace each. Executions forked from the fork server share
//! its namespace: before each one the driver puts the overlay back as it was
//! at the start (hiding what static constructors wrote in the server too),
//! through `/proc/<server>/root`: the upper layer lists what
//! changed (new files, changed files, whiteouts of removed ones, opaque
//! directories), and each such entry is removed or copied back from the
//! lower layer through the overlay itself (with the original's size and
//! modification time, so that an entry put back is recognised as unchanged
//! the next time). The cost per execution is proportional to what the
//! program changed, not to the directory's size.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Why isolation cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum IsolateError {
    /// A directory to isolate cannot be used.
    #[error("cannot isolate `{0}`: {1}")]
    Directory(PathBuf, String),
    /// The machine does not allow private mount namespaces or overlays.
    #[error("--isolate-files needs a private mount namespace and overlayfs (root, or CAP_SYS_ADMIN): {0}")]
    Unsupported(io::Error),
}

/// The directories isolated for a run and the private directory their
/// layers live under (an empty directory on the host; a tmpfs in the
/// program's namespace). Removed when dropped.
#[derive(Debug)]
pub struct Isolation {
    /// Where the tmpfs of the namespace is mounted (`/tmp/reach-isolate-*`).
    base: PathBuf,
    /// The isolated directories, absolute and canonical.
    dirs: Vec<PathBuf>,
    /// The directories asked for besides the working directory, canonical.
    extra: Vec<PathBuf>,
    /// The driver's working directory, entered again inside the overlay.
    cwd: PathBuf,
    /// The mount plan as C strings, for the child before exec.
    plan: MountPlan,
}

/// Everything the child needs to set the namespace up, built before fork
/// (the child only makes system calls).
#[derive(Clone, Debug)]
pub(super) struct MountPlan {
    base: CString,
    /// Per directory: the directory, its `lower`, `upper`, `work` and the
    /// directory of the three, and the overlay options (with and without
    /// the feature switches, for kernels that do not know them).
    dirs: Vec<[CString; 7]>,
    cwd: CString,
}

fn cstring(path: &Path) -> Result<CString, IsolateError> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| IsolateError::Directory(path.to_path_buf(), "NUL in the path".into()))
}

impl Isolation {
    /// Isolates `dirs` (the working directory is added if `cwd_too`): checks
    /// them, creates the private directory and checks once that the
    /// namespace and overlays can be set up.
    pub fn new(dirs: &[PathBuf], cwd_too: bool) -> Result<Isolation, IsolateError> {
        let cwd = std::env::current_dir()
            .map_err(|e| IsolateError::Directory(".".into(), e.to_string()))?;
        let mut all: Vec<PathBuf> = Vec::new();
        let mut extra: Vec<PathBuf> = Vec::new();
        for (i, dir) in cwd_too.then(|| cwd.clone()).iter().chain(dirs).enumerate() {
            let canonical = dir
                .canonicalize()
                .map_err(|e| IsolateError::Directory(dir.clone(), e.to_string()))?;
            if !canonical.is_dir() {
                return Err(IsolateError::Directory(
                    dir.clone(),
                    "not a directory".into(),
                ));
            }
            if canonical == Path::new("/") {
                return Err(IsolateError::Directory(
                    dir.clone(),
                    "the root directory cannot be isolated".into(),
                ));
            }
            let text = canonical.as_os_str().as_bytes();
            if text.contains(&b',') || text.contains(&b':') {
                return Err(IsolateError::Directory(
                    dir.clone(),
                    "an overlay cannot take a path with ',' or ':'".into(),
                ));
            }
            if (i > 0 || !cwd_too) && !extra.contains(&canonical) {
                extra.push(canonical.clone());
            }
            if !all.contains(&canonical) {
                all.push(canonical);
            }
        }
        // A directory inside another isolated one is isolated with it.
        let outer: Vec<PathBuf> = all
            .iter()
            .filter(|d| !all.iter().any(|o| o != *d && d.starts_with(o)))
            .cloned()
            .collect();
        let base = private_dir()?;
        let plan = MountPlan::new(&base, &outer, &cwd)?;
        let isolation = Isolation {
            base,
            dirs: outer,
            extra,
            cwd,
            plan,
        };
        isolation.probe()?;
        Ok(isolation)
    }

    /// The isolated directories.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The directories asked for besides the working directory.
    pub fn extra_dirs(&self) -> &[PathBuf] {
        &self.extra
    }

    /// The plan the child carries out before exec.
    pub(super) fn plan(&self) -> MountPlan {
        self.plan.clone()
    }

    /// Sets the namespace up once in a throwaway process.
    fn probe(&self) -> Result<(), IsolateError> {
        use std::os::unix::process::CommandExt;
        let plan = self.plan();
        let mut cmd = std::process::Command::new("/bin/sh");
        cmd.args(["-c", "exit 0"]).current_dir(&self.cwd);
        // SAFETY: the closure only makes system calls.
        unsafe {
            cmd.pre_exec(move || plan.enter());
        }
        match cmd.status() {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(IsolateError::Unsupported(io::Error::other(format!(
                "a test process ended with {status}"
            )))),
            Err(e) => Err(IsolateError::Unsupported(e)),
        }
    }

    /// Puts every isolated directory back as it was, in the namespace of
    /// process `pid` (the fork server); returns the paths put back, relative
    /// to their directory.
    pub fn restore(&self, pid: libc::pid_t) -> io::Result<Vec<PathBuf>> {
        let root = PathBuf::from(format!("/proc/{pid}/root"));
        let inside = |p: &Path| root.join(p.strip_prefix("/").unwrap_or(p));
        let mut changed = Vec::new();
        for (i, dir) in self.dirs.iter().enumerate() {
            let layers = inside(&self.base.join(i.to_string()));
            let layers = Layers {
                upper: layers.join("upper"),
                lower: layers.join("lower"),
                merged: inside(dir),
            };
            layers.walk(Path::new(""), &mut changed)?;
        }
        Ok(changed)
    }
}

/// A new empty directory `reach-isolate-<pid>-<n>` in the temporary
/// directory.
fn private_dir() -> Result<PathBuf, IsolateError> {
    let tmp = std::env::temp_dir();
    let mut n = 0u32;
    loop {
        let dir = tmp.join(format!("reach-isolate-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(IsolateError::Directory(tmp, e.to_string())),
        }
    }
}

impl Drop for Isolation {
    fn drop(&mut self) {
        // Empty on the host: the tmpfs exists only in the namespaces.
        let _ = std::fs::remove_dir(&self.base);
    }
}

impl MountPlan {
    fn new(base: &Path, dirs: &[PathBuf], cwd: &Path) -> Result<MountPlan, IsolateError> {
        let mut plan = MountPlan {
            base: cstring(base)?,
            dirs: Vec::new(),
            cwd: cstring(cwd)?,
        };
        for (i, dir) in dirs.iter().enumerate() {
            let own = base.join(i.to_string());
            let (lower, upper, work) = (own.join("lower"), own.join("upper"), own.join("work"));
            let options = format!(
                "lowerdir={},upperdir={},workdir={}",
                lower.display(),
                upper.display(),
                work.display()
            );
            let plain = CString::new(options.clone())
                .map_err(|_| IsolateError::Directory(dir.clone(), "NUL in the path".into()))?;
            let strict = CString::new(options + ",index=off,metacopy=off,redirect_dir=off")
                .map_err(|_| IsolateError::Directory(dir.clone(), "NUL in the path".into()))?;
            plan.dirs.push([
                cstring(dir)?,
                cstring(&lower)?,
                cstring(&upper)?,
                cstring(&work)?,
                cstring(&own)?,
                strict,
                plain,
            ]);
        }
        Ok(plan)
    }

    /// In a child before exec: a private mount namespace with each
    /// directory overlaid, then the working directory entered again (inside
    /// the overlay). Only system calls.
    pub(super) fn enter(&self) -> io::Result<()> {
        let check = |r: libc::c_int| {
            if r == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        };
        let null = std::ptr::null::<libc::c_char>();
        // SAFETY: system calls with NUL-terminated strings that outlive them.
        unsafe {
            check(libc::unshare(libc::CLONE_NEWNS))?;
            check(libc::mount(
                null,
                c"/".as_ptr(),
                null,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            check(libc::mount(
                c"tmpfs".as_ptr(),
                self.base.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=0700".as_ptr().cast(),
            ))?;
            for [dir, lower, upper, work, own, strict, plain] in &self.dirs {
                for d in [own, lower, upper, work] {
                    check(libc::mkdir(d.as_ptr(), 0o700))?;
                }
                check(libc::mount(
                    dir.as_ptr(),
                    lower.as_ptr(),
                    null,
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ))?;
                let overlay = |options: &CString| {
                    libc::mount(
                        c"overlay".as_ptr(),
                        dir.as_ptr(),
                        c"overlay".as_ptr(),
                        0,
                        options.as_ptr().cast(),
                    )
                };
                if overlay(strict) != 0 {
                    check(overlay(plain))?;
                }
            }
            check(libc::chdir(self.cwd.as_ptr()))?;
        }
        Ok(())
    }
}

/// One overlay's layers as the driver reaches them.
struct Layers {
    upper: PathBuf,
    lower: PathBuf,
    merged: PathBuf,
}

impl Layers {
    /// Puts back every entry of the upper layer under `rel`.
    fn walk(&self, rel: &Path, changed: &mut Vec<PathBuf>) -> io::Result<()> {
        let entries = match std::fs::read_dir(self.upper.join(rel)) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let p = rel.join(entry?.file_name());
            let upper = std::fs::symlink_metadata(self.upper.join(&p))?;
            let lower = std::fs::symlink_metadata(self.lower.join(&p)).ok();
            let merged = self.merged.join(&p);
            let whiteout = upper.file_type().is_char_device() && upper.rdev() == 0;
            if whiteout {
                // Removed by the program.
                if let Some(lower) = &lower {
                    self.copy_back(&p, lower)?;
                    changed.push(p);
                }
            } else if upper.is_dir() {
                let opaque = is_opaque(&self.upper.join(&p));
                match &lower {
                    Some(l) if l.is_dir() && !opaque => self.walk(&p, changed)?,
                    _ => {
                        remove(&merged)?;
                        if let Some(lower) = &lower {
                            self.copy_back(&p, lower)?;
                        }
                        changed.push(p);
                    }
                }
            } else {
                let same = lower.as_ref().is_some_and(|l| {
                    l.is_file()
                        && upper.is_file()
                        && l.len() == upper.len()
                        && l.mtime() == upper.mtime()
                        && l.mtime_nsec() == upper.mtime_nsec()
                        && l.mode() == upper.mode()
                });
                if !same {
                    remove(&merged)?;
                    if let Some(lower) = &lower {
                        self.copy_back(&p, lower)?;
                    }
                    changed.push(p);
                }
            }
        }
        Ok(())
    }

    /// Copies `rel` from the lower layer into the overlay (recursively),
    /// with its permissions and modification time.
    fn copy_back(&self, rel: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
        let (from, to) = (self.lower.join(rel), self.merged.join(rel));
        if meta.is_dir() {
            std::fs::create_dir(&to)?;
            for entry in std::fs::read_dir(&from)? {
                let entry = entry?;
                let sub = rel.join(entry.file_name());
                let m = std::fs::symlink_metadata(self.lower.join(&sub))?;
                self.copy_back(&sub, &m)?;
            }
            std::fs::set_permissions(&to, meta.permissions())?;
        } else if meta.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from)?, &to)?;
        } else if meta.is_file() {
            std::fs::copy(&from, &to)?;
            let file = std::fs::File::options().write(true).open(&to)?;
            file.set_modified(meta.modified()?)?;
        }
        Ok(())
    }
}

/// Removes a file, link or directory tree (nothing if it is not there).
fn remove(path: &Path) -> io::Result<()> {
    let result = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    };
    match result {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// True if the overlay marked the upper directory opaque (the program
/// removed the directory and made a new one of that name).
fn is_opaque(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    let mut value = [0u8; 4];
    // SAFETY: reading an attribute into a local buffer of its size.
    let n = unsafe {
        libc::lgetxattr(
            c.as_ptr(),
            c"trusted.overlay.opaque".as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    n > 0 && value[0] == b'y'
}
