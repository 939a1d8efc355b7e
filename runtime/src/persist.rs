//! Persistent executions: one forked worker runs many executions of `main`,
//! putting the process's memory back as it was at entry to `main` between
//! them instead of forking again.
//!
//! At start the worker records every mapping of the process (`/proc/self/maps`),
//! copies every writable private one (program and library data, heap, stack,
//! TLS, stdio buffers) into its *control region* (one private mapping that is
//! never restored), registers them with `userfaultfd` in asynchronous
//! write-protect mode and saves its registers ([`checkpoint`]). From then on
//! the kernel marks each page an execution writes; at the end of an execution
//! the worker, on a stack of its own in the control region:
//!
//! 1. moves the heap end (`brk`) back and unmaps every range the execution
//!    mapped (thread stacks, arenas, `mmap` blocks);
//! 2. walks the write-tracked memory once with `PAGEMAP_SCAN`, which both
//!    checks that it is exactly the recorded layout and gives the written
//!    (or dropped) pages, restored as they come ([`restore_pages`]: a
//!    written page that differs from its copy is copied back and left
//!    unprotected, so it costs no write fault in the next execution and is
//!    looked at again by the next restore); then write-protects again the
//!    pages it found unchanged or dropped, span by span ([`protect_again`]),
//!    except a few that executions keep writing back to what they held
//!    ([`KeptPages`]);
//! 3. puts back the signal actions the execution set and the main
//!    thread's alternate signal stack, restores the signal mask, reports
//!    the execution's end to the driver like a reaped child, and resumes
//!    at the checkpoint, which returns a second time: the worker then
//!    waits for the next request.
//!
//! The program's threads must be gone first: threads parked by the
//! scheduler are told to exit (a raw `exit` of the kernel thread: their C
//! library state is memory, restored with the rest); a thread that cannot be
//! ended, or a main thread that already exited, makes the worker unusable:
//! it reports the execution and stops persisting ([`Cause::Threads`]), so
//! every later execution is a forked child (a new worker would pay a whole
//! snapshot for each execution).
//!
//! What memory cannot undo is observed at run time: the interposers below
//! (files, descriptors, processes, timers, sockets, shared file
//! mappings, `dlopen`) mark the execution, and the descriptor table is
//! compared with the recorded one: each descriptor open at `main` must
//! still refer to the same file and the lowest free number be the same
//! (a descriptor opened and kept takes it), and every 64th execution the
//! table is listed in full from `/proc/self/fd`. Such an execution's result stands; the
//! worker then says why ([`MSG_PERSIST_OFF`]) and every later execution is a
//! forked child as without persistence.
//!
//! Nothing here runs on the hot path: the only per-access cost is none.

use crate::state::{state, TState};
use crate::sys::{self, raw_syscall};
use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};
use reach_channel::fork::{encode, MSG_DONE, MSG_PERSIST_OFF};

pub use reach_channel::fork::PersistCause as Cause;

const PAGE: usize = 4096;
/// Most mappings the worker records.
const MAX_RANGES: usize = 1024;
/// Room for `/proc/self/maps`.
const MAPS_BYTES: usize = 512 * 1024;
/// Stack the restore runs on.
const ALT_STACK: usize = 256 * 1024;
/// Most bytes of writable memory the worker copies (larger programs run
/// one fork per execution).
const MAX_SNAPSHOT: usize = 1 << 30;
/// Fd numbers the worker's own descriptors are moved to (above the
/// program's usual ones, below the channel's).
const OWN_FD_BASE: i32 = 190;
/// How long the worker waits for the program's threads to be gone.
const THREADS_GONE_NS: u64 = 2_000_000_000;

/// One mapping.
#[derive(Clone, Copy)]
#[repr(C)]
struct Range {
    start: usize,
    end: usize,
    perms: [u8; 4],
    inode: u64,
    /// Offset of its copy in the data area (writable private ones only).
    data: usize,
    /// A piece of the runtime's own tables that start every execution
    /// afresh by themselves ([`own_spans`]): mapped, neither copied nor
    /// write-tracked nor restored.
    own: bool,
}

impl Range {
    const EMPTY: Range = Range {
        start: 0,
        end: 0,
        perms: [0; 4],
        inode: 0,
        data: usize::MAX,
        own: false,
    };

    fn saved(&self) -> bool {
        self.perms[1] == b'w' && self.perms[3] == b'p' && !self.own
    }
}

/// `struct page_region` of `PAGEMAP_SCAN`.
#[derive(Clone, Copy)]
#[repr(C)]
struct PageRegion {
    start: u64,
    end: u64,
    categories: u64,
}

/// `struct pm_scan_arg`.
#[repr(C)]
struct PmScanArg {
    size: u64,
    flags: u64,
    start: u64,
    end: u64,
    walk_end: u64,
    vec: u64,
    vec_len: u64,
    max_pages: u64,
    category_inverted: u64,
    category_mask: u64,
    category_anyof_mask: u64,
    return_mask: u64,
}

const PAGEMAP_SCAN: u64 = 0xC060_6610;
const PM_SCAN_WP_MATCHING: u64 = 1;
const PAGE_IS_WPALLOWED: u64 = 1;
const PAGE_IS_WRITTEN: u64 = 2;
const PAGE_IS_PRESENT: u64 = 8;
const UFFDIO_API: u64 = 0xC018_AA3F;
const UFFDIO_REGISTER: u64 = 0xC020_AA00;
const UFFD_API: u64 = 0xAA;
const UFFD_FEATURE_WP_UNPOPULATED: u64 = 1 << 13;
const UFFD_FEATURE_WP_ASYNC: u64 = 1 << 15;
const UFFDIO_REGISTER_MODE_WP: u64 = 2;
const UFFD_USER_MODE_ONLY: i64 = 1;
const SCAN_VEC: usize = 128;

/// Saved registers of the checkpoint (see the assembly below).
#[repr(C)]
struct Context {
    regs: [u64; 9],
}

/// The worker's own memory: never restored.
#[repr(C)]
struct Control {
    ctx: Context,
    /// Executions started by this worker.
    started: u64,
    /// Wait status of the execution being ended.
    status: i32,
    /// The worker's (main thread's) kernel id.
    tid: i32,
    /// Why the execution cannot be undone (0: it can).
    taint: u32,
    /// The worker cannot go on (threads left); not a reason to stop persisting.
    unusable: bool,
    brk: usize,
    sigmask: u64,
    /// Every signal's action at `main` (index: signal number - 1).
    handlers: [KernelSigaction; 64],
    /// Signals whose action an execution set (bit: signal number - 1).
    handlers_set: u64,
    /// The main thread's alternate signal stack at `main`, and whether an
    /// execution set it.
    altstack: libc::stack_t,
    altstack_set: bool,
    uffd: i32,
    pagemap: i32,
    request_fd: i32,
    response_fd: i32,
    lowest: usize,
    highest: usize,
    n: usize,
    ranges: [Range; MAX_RANGES],
    /// Unmapped at `main` (between the recorded ranges and the control
    /// region): whatever an execution maps there is unmapped after it.
    ngaps: usize,
    gaps: [(usize, usize); MAX_RANGES],
    /// The saved ranges, adjacent ones merged (what write tracking covers).
    ntracked: usize,
    tracked: [(usize, usize); MAX_RANGES],
    /// `/proc/self/fd`, kept open.
    fd_dir: i32,
    fds: [u64; 16],
    /// The open descriptors at `main` with the identity of what each
    /// refers to (device, inode), for the quick check after an execution;
    /// `nfd_ids` is `usize::MAX` when there were too many to keep.
    nfd_ids: usize,
    fd_ids: [(i32, u64, u64); MAX_FD_IDS],
    /// The lowest descriptor number free at `main`.
    lowest_free_fd: i64,
    scan: [PageRegion; SCAN_VEC],
    /// What the last restore found to protect again.
    protect: ProtectSpans,
    /// Pages kept unprotected although found unchanged.
    kept: KeptPages,
    maps: [u8; MAPS_BYTES],
    /// Where the copies start (the area follows this struct).
    data_base: usize,
    data_len: usize,
    stack_top: usize,
    region_len: usize,
    /// The control region and, right after it, the user-level threads'
    /// stack pool if it could be placed there: never recorded, never
    /// restored.
    hole_len: usize,
}

/// A signal's action as the kernel's `rt_sigaction` takes it.
#[derive(Clone, Copy)]
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: u64,
    restorer: usize,
    mask: u64,
}

/// Shared between the fork server and its worker.
#[repr(C)]
pub struct Shared {
    /// 1 while the worker has taken a request it did not report.
    pub pending: AtomicU32,
    /// Non-zero: stop persisting ([`Cause`] as a number).
    pub fallback: AtomicU32,
}

/// The control region of this worker (0: not a worker).
static CONTROL: AtomicUsize = AtomicUsize::new(0);
/// The page shared with the server.
static SHARED: AtomicUsize = AtomicUsize::new(0);
/// Set in the worker's executions (cleared in fork children).
static WORKER: AtomicI32 = AtomicI32::new(0);

fn ctl() -> Option<&'static mut Control> {
    let p = CONTROL.load(Ordering::Relaxed);
    // SAFETY: set once to a mapping of the right size that lives as long as
    // the process; used only by the thread that ends an execution.
    (p != 0).then(|| unsafe { &mut *(p as *mut Control) })
}

/// The shared page, if the server made one.
pub fn shared() -> Option<&'static Shared> {
    let p = SHARED.load(Ordering::Relaxed);
    // SAFETY: a shared mapping made by [`make_shared`], never unmapped.
    (p != 0).then(|| unsafe { &*(p as *const Shared) })
}

/// True in an execution run by a persistent worker.
#[inline]
pub fn is_worker() -> bool {
    WORKER.load(Ordering::Relaxed) != 0
}

/// The kernel id of the main thread in a persistent worker (the same in
/// each of its executions), without asking the kernel again.
pub fn worker_tid() -> Option<i32> {
    ctl().map(|c| c.tid)
}

/// Marks the current execution as one memory cannot undo.
pub fn taint(cause: Cause) {
    if let Some(c) = ctl() {
        if is_worker() && c.taint == 0 {
            c.taint = cause as u32;
        }
    }
}

/// In a child forked by the program: it is no worker.
pub fn forget_in_child() {
    WORKER.store(0, Ordering::Relaxed);
    CONTROL.store(0, Ordering::Relaxed);
}

fn sc(n: i64, a: [i64; 6]) -> i64 {
    // SAFETY: every caller passes valid arguments for `n`.
    unsafe { raw_syscall(n, a) }
}

/// Where the worker's own mappings go: far below where the kernel places
/// the program's mappings (top down from the stack), so that every address
/// the program gets is the one it gets in a forked child.
const OWN_MAPPINGS: [usize; 4] = [
    0x2000_0000_0000,
    0x3000_0000_0000,
    0x4000_0000_0000,
    0x1000_0000_0000,
];

fn mmap_anon(len: usize, shared: bool) -> Option<usize> {
    OWN_MAPPINGS
        .into_iter()
        .find_map(|at| mmap_at(at, len, shared))
}

/// An anonymous mapping of `len` bytes exactly at `at`, if nothing is there.
fn mmap_at(at: usize, len: usize, shared: bool) -> Option<usize> {
    let flags = libc::MAP_ANONYMOUS
        | if shared {
            libc::MAP_SHARED
        } else {
            libc::MAP_PRIVATE
        };
    let r = sc(
        libc::SYS_mmap,
        [
            at as i64,
            len as i64,
            i64::from(libc::PROT_READ | libc::PROT_WRITE),
            i64::from(flags | libc::MAP_FIXED_NOREPLACE),
            -1,
            0,
        ],
    );
    if r == at as i64 {
        return Some(at);
    }
    if r > 0 {
        // A kernel without MAP_FIXED_NOREPLACE placed it elsewhere.
        sc(libc::SYS_munmap, [r, len as i64, 0, 0, 0, 0]);
    }
    None
}

/// Makes the page shared by the server and its workers (in the server).
pub fn make_shared() -> bool {
    match mmap_anon(PAGE, true) {
        Some(p) => {
            SHARED.store(p, Ordering::Relaxed);
            true
        }
        None => false,
    }
}

fn open_ro(path: &core::ffi::CStr, dir: bool) -> i32 {
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | if dir { libc::O_DIRECTORY } else { 0 };
    sc(
        libc::SYS_openat,
        [
            i64::from(libc::AT_FDCWD),
            path.as_ptr() as i64,
            i64::from(flags),
            0,
            0,
            0,
        ],
    ) as i32
}

fn close_raw(fd: i32) {
    sc(libc::SYS_close, [i64::from(fd), 0, 0, 0, 0, 0]);
}

/// Moves `fd` to the lowest free number at or above `at`.
fn move_fd(fd: i32, at: i32) -> i32 {
    let r = sc(
        libc::SYS_fcntl,
        [
            i64::from(fd),
            i64::from(libc::F_DUPFD_CLOEXEC),
            i64::from(at),
            0,
            0,
            0,
        ],
    ) as i32;
    close_raw(fd);
    r
}

/// Reads the whole of `/proc/self/maps` into `buf`; its length.
fn read_maps(buf: &mut [u8]) -> Option<usize> {
    let fd = open_ro(c"/proc/self/maps", false);
    if fd < 0 {
        return None;
    }
    let mut n = 0;
    loop {
        if n == buf.len() {
            close_raw(fd);
            return None;
        }
        let r = sc(
            libc::SYS_read,
            [
                i64::from(fd),
                buf[n..].as_mut_ptr() as i64,
                (buf.len() - n) as i64,
                0,
                0,
                0,
            ],
        );
        if r == -i64::from(libc::EINTR) {
            continue;
        }
        if r < 0 {
            close_raw(fd);
            return None;
        }
        if r == 0 {
            break;
        }
        n += r as usize;
    }
    close_raw(fd);
    Some(n)
}

fn hex(s: &[u8], i: &mut usize) -> u64 {
    let mut v = 0u64;
    while *i < s.len() {
        let d = match s[*i] {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            _ => break,
        };
        v = (v << 4) | u64::from(d);
        *i += 1;
    }
    v
}

fn skip_field(s: &[u8], i: &mut usize) {
    while *i < s.len() && s[*i] != b' ' {
        *i += 1;
    }
    while *i < s.len() && s[*i] == b' ' {
        *i += 1;
    }
}

/// The runtime's own large tables, page-aligned spans in its static
/// memory: each forgets the last execution by itself when the next starts
/// (a number of the execution in every entry), so the worker leaves them
/// out of its snapshot. Restoring them cost a walk of their 15 MB of page
/// tables after every execution, and their copy at the checkpoint.
fn own_spans() -> [(usize, usize); 2] {
    [crate::private::own_span(), crate::memory_model::own_span()]
}

/// Splits `r` at the spans of [`own_spans`] into `out` from `n` on: the
/// pieces inside a span are marked [`Range::own`]. The new count, or
/// `None` if there is no room.
fn split_own(r: Range, out: &mut [Range; MAX_RANGES], mut n: usize) -> Option<usize> {
    let mut at = r.start;
    let mut spans = own_spans();
    spans.sort_unstable();
    let mut push = |s: usize, e: usize, own: bool, n: &mut usize| -> Option<()> {
        if s < e {
            if *n == MAX_RANGES {
                return None;
            }
            out[*n] = Range {
                start: s,
                end: e,
                own,
                ..r
            };
            *n += 1;
        }
        Some(())
    };
    for (s, e) in spans {
        let (s, e) = (s.max(at), e.min(r.end));
        if s >= e {
            continue;
        }
        push(at, s, false, &mut n)?;
        push(s, e, true, &mut n)?;
        at = e;
    }
    push(at, r.end, false, &mut n)?;
    Some(n)
}

/// Parses `maps[..len]` into `out`, leaving out `[hole_start, hole_end)`
/// (the control region) and splitting off the runtime's own tables
/// ([`split_own`]). Number of ranges, or `None` if too many.
fn parse_maps(maps: &[u8], out: &mut [Range; MAX_RANGES], hole: (usize, usize)) -> Option<usize> {
    let mut n = 0;
    let mut i = 0;
    while i < maps.len() {
        let mut r = Range::EMPTY;
        r.start = hex(maps, &mut i) as usize;
        i += 1; // '-'
        r.end = hex(maps, &mut i) as usize;
        i += 1; // ' '
        for k in 0..4 {
            r.perms[k] = *maps.get(i + k)?;
        }
        skip_field(maps, &mut i); // perms
        skip_field(maps, &mut i); // offset
        skip_field(maps, &mut i); // device
        let mut inode = 0u64;
        while i < maps.len() && maps[i].is_ascii_digit() {
            inode = inode * 10 + u64::from(maps[i] - b'0');
            i += 1;
        }
        r.inode = inode;
        while i < maps.len() && maps[i] != b'\n' {
            i += 1;
        }
        i += 1;
        // Leave out the hole (it may have merged with a neighbour).
        let pieces = [(r.start, r.end.min(hole.0)), (r.start.max(hole.1), r.end)];
        for (s, e) in pieces {
            if s < e {
                n = split_own(
                    Range {
                        start: s,
                        end: e,
                        ..r
                    },
                    out,
                    n,
                )?;
            }
        }
    }
    Some(n)
}

/// Most descriptors open at `main` that the quick check follows.
const MAX_FD_IDS: usize = 32;
/// Every this many executions, the descriptor table is also listed in full.
const FULL_FD_CHECK_EVERY: u64 = 64;

/// What descriptor `fd` refers to: (device, inode), `None` if it is closed.
fn fd_identity(fd: i32) -> Option<(u64, u64)> {
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { core::mem::zeroed() };
    (sc(
        libc::SYS_fstat,
        [i64::from(fd), &mut st as *mut libc::stat as i64, 0, 0, 0, 0],
    ) == 0)
        .then_some((st.st_dev, st.st_ino))
}

/// The lowest free descriptor number (found by duplicating `fd` onto it).
fn lowest_free_fd(fd: i32) -> i64 {
    let n = sc(
        libc::SYS_fcntl,
        [i64::from(fd), i64::from(libc::F_DUPFD), 0, 0, 0, 0],
    );
    if n >= 0 {
        sc(libc::SYS_close, [n, 0, 0, 0, 0, 0]);
    }
    n
}

/// Records the identity of each of the program's descriptors in `c.fds`
/// (those below the worker's and the driver's own, which the periodic full
/// listing covers) and the lowest free number, for [`fds_unchanged`].
fn record_fd_ids(c: &mut Control) {
    c.nfd_ids = 0;
    for fd in 0..OWN_FD_BASE {
        if c.fds[fd as usize / 64] & (1 << (fd % 64)) == 0 {
            continue;
        }
        match fd_identity(fd) {
            Some((dev, ino)) if c.nfd_ids < MAX_FD_IDS => {
                c.fd_ids[c.nfd_ids] = (fd, dev, ino);
                c.nfd_ids += 1;
            }
            _ => {
                c.nfd_ids = usize::MAX;
                return;
            }
        }
    }
    c.lowest_free_fd = lowest_free_fd(c.fd_dir);
}

/// True if the descriptor table is as at `main`. Quick check: each
/// descriptor open then still refers to the same file and the lowest free
/// number is the same (a descriptor opened and kept would take it; the
/// calls that choose a number, `dup2`/`dup3`, mark the execution
/// themselves). Every [`FULL_FD_CHECK_EVERY`] executions, and when there
/// were too many descriptors to follow, the table is also listed in full.
fn fds_unchanged(c: &Control) -> bool {
    let full = || {
        let mut fds = [0u64; 16];
        fd_table(c.fd_dir, &mut fds).is_some() && fds == c.fds
    };
    if c.nfd_ids == usize::MAX {
        return full();
    }
    let quick = c.fd_ids[..c.nfd_ids]
        .iter()
        .all(|&(fd, dev, ino)| fd_identity(fd) == Some((dev, ino)))
        && lowest_free_fd(c.fd_dir) == c.lowest_free_fd;
    quick && (!c.started.is_multiple_of(FULL_FD_CHECK_EVERY) || full())
}

/// The descriptors open now (0..1024) as a bitmap; `None` if one is above.
fn fd_table(fd: i32, out: &mut [u64; 16]) -> Option<()> {
    *out = [0; 16];
    if sc(
        libc::SYS_lseek,
        [i64::from(fd), 0, i64::from(libc::SEEK_SET), 0, 0, 0],
    ) != 0
    {
        return None;
    }
    let mut buf = [0u8; 4096];
    let mut ok = true;
    loop {
        let r = sc(
            libc::SYS_getdents64,
            [
                i64::from(fd),
                buf.as_mut_ptr() as i64,
                buf.len() as i64,
                0,
                0,
                0,
            ],
        );
        if r <= 0 {
            ok &= r == 0;
            break;
        }
        let mut off = 0usize;
        while off + 19 < r as usize {
            let reclen = u16::from_ne_bytes([buf[off + 16], buf[off + 17]]) as usize;
            let name = &buf[off + 19..off + reclen];
            let mut v: u64 = 0;
            let mut digits = false;
            for c in name {
                if c.is_ascii_digit() {
                    v = v * 10 + u64::from(c - b'0');
                    digits = true;
                } else {
                    break;
                }
            }
            if digits {
                if v >= 1024 {
                    ok = false;
                } else {
                    out[(v / 64) as usize] |= 1 << (v % 64);
                }
            }
            if reclen == 0 {
                break;
            }
            off += reclen;
        }
        // procfs fills the buffer until it runs out of descriptors: room
        // left for another record (at most 19 + 11 bytes, 8-aligned) means
        // the listing is complete, without a call that returns 0.
        if r as usize + 32 <= buf.len() {
            break;
        }
    }
    ok.then_some(())
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    sc(
        libc::SYS_clock_gettime,
        [
            i64::from(libc::CLOCK_MONOTONIC),
            &mut ts as *mut libc::timespec as i64,
            0,
            0,
            0,
            0,
        ],
    );
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn current_brk() -> usize {
    sc(libc::SYS_brk, [0; 6]) as usize
}

fn sigmask_get() -> u64 {
    let mut m: u64 = 0;
    sc(
        libc::SYS_rt_sigprocmask,
        [
            i64::from(libc::SIG_BLOCK),
            0,
            &mut m as *mut u64 as i64,
            8,
            0,
            0,
        ],
    );
    m
}

fn sigmask_set(m: u64) {
    sc(
        libc::SYS_rt_sigprocmask,
        [
            i64::from(libc::SIG_SETMASK),
            &m as *const u64 as i64,
            0,
            8,
            0,
            0,
        ],
    );
}

fn rt_sigaction(sig: usize, new: *const KernelSigaction, old: *mut KernelSigaction) -> i64 {
    sc(
        libc::SYS_rt_sigaction,
        [sig as i64, new as i64, old as i64, 8, 0, 0],
    )
}

/// Records every signal's action and the alternate signal stack at `main`.
fn save_handlers(c: &mut Control) {
    for (i, h) in c.handlers.iter_mut().enumerate() {
        rt_sigaction(i + 1, core::ptr::null(), h);
    }
    c.handlers_set = 0;
    sc(
        libc::SYS_sigaltstack,
        [0, &mut c.altstack as *mut libc::stack_t as i64, 0, 0, 0, 0],
    );
    c.altstack_set = false;
}

/// Puts back the actions and the alternate stack the execution set.
fn restore_handlers(c: &mut Control) {
    let mut set = core::mem::take(&mut c.handlers_set);
    while set != 0 {
        let i = set.trailing_zeros() as usize;
        set &= set - 1;
        rt_sigaction(i + 1, &c.handlers[i], core::ptr::null_mut());
    }
    if core::mem::take(&mut c.altstack_set) {
        let mut old = c.altstack;
        if old.ss_flags & libc::SS_DISABLE != 0 {
            old.ss_sp = core::ptr::null_mut();
            old.ss_size = 0;
        }
        sc(
            libc::SYS_sigaltstack,
            [&old as *const libc::stack_t as i64, 0, 0, 0, 0, 0],
        );
    }
}

/// The execution sets the action of `sig`: put back after it.
fn handler_set(sig: c_int) {
    if let (true, Some(c)) = (is_worker(), ctl()) {
        if (1..=64).contains(&sig) {
            c.handlers_set |= 1 << (sig - 1);
        }
    }
}

/// The main thread sets its alternate signal stack (`set`): put back after
/// the execution.
pub fn altstack_changed(set: bool) {
    if let (true, true, Some(c)) = (set, is_worker(), ctl()) {
        c.altstack_set = true;
    }
}

fn ioctl(fd: i32, req: u64, arg: *mut c_void) -> i64 {
    sc(
        libc::SYS_ioctl,
        [i64::from(fd), req as i64, arg as i64, 0, 0, 0],
    )
}

/// Sends one message to the driver (best effort: the driver may be gone).
fn send(fd: i32, tag: u32, value: i64) {
    let m = encode(tag, value);
    loop {
        let n = sc(
            libc::SYS_write,
            [i64::from(fd), m.as_ptr() as i64, m.len() as i64, 0, 0, 0],
        );
        if n == -i64::from(libc::EINTR) {
            continue;
        }
        if n != m.len() as i64 {
            sys::exit_group(0);
        }
        return;
    }
}

/// Blocks for the next request byte; exits at end of file.
fn next_request(fd: i32) {
    let mut b = 0u8;
    loop {
        let n = sc(
            libc::SYS_read,
            [i64::from(fd), &mut b as *mut u8 as i64, 1, 0, 0, 0],
        );
        if n == 1 {
            return;
        }
        if n == -i64::from(libc::EINTR) {
            continue;
        }
        sys::exit_group(0);
    }
}

core::arch::global_asm!(
    ".globl reach_persist_checkpoint",
    ".type reach_persist_checkpoint,@function",
    "reach_persist_checkpoint:",
    "mov [rdi], rbx",
    "mov [rdi + 8], rbp",
    "mov [rdi + 16], r12",
    "mov [rdi + 24], r13",
    "mov [rdi + 32], r14",
    "mov [rdi + 40], r15",
    "lea rax, [rsp + 8]",
    "mov [rdi + 48], rax",
    "mov rax, [rsp]",
    "mov [rdi + 56], rax",
    "stmxcsr [rdi + 64]",
    "fnstcw [rdi + 68]",
    "sub rsp, 8",
    "call rsi",
    "add rsp, 8",
    "xor eax, eax",
    "ret",
    ".size reach_persist_checkpoint, . - reach_persist_checkpoint",
    ".globl reach_persist_resume",
    ".type reach_persist_resume,@function",
    "reach_persist_resume:",
    "ldmxcsr [rdi + 64]",
    "fldcw [rdi + 68]",
    "mov rbx, [rdi]",
    "mov rbp, [rdi + 8]",
    "mov r12, [rdi + 16]",
    "mov r13, [rdi + 24]",
    "mov r14, [rdi + 32]",
    "mov r15, [rdi + 40]",
    "mov rsp, [rdi + 48]",
    "mov eax, 1",
    "jmp qword ptr [rdi + 56]",
    ".size reach_persist_resume, . - reach_persist_resume",
    ".globl reach_persist_on_stack",
    ".type reach_persist_on_stack,@function",
    "reach_persist_on_stack:",
    "mov rsp, rdi",
    "call rsi",
    "ud2",
    ".size reach_persist_on_stack, . - reach_persist_on_stack",
);

extern "C" {
    /// Saves the callee-saved registers, stack pointer and return address in
    /// `ctx`, calls `f` (on the caller's stack), returns 0; returns again
    /// with 1 after [`reach_persist_resume`].
    fn reach_persist_checkpoint(ctx: *mut Context, f: extern "C" fn()) -> u64;
    /// Returns a second time from the checkpoint saved in `ctx`.
    fn reach_persist_resume(ctx: *const Context) -> !;
    /// Calls `f` on the stack whose top is `top`; `f` must not return.
    fn reach_persist_on_stack(top: usize, f: extern "C" fn() -> !) -> !;
}

/// Why a worker cannot start (it then runs its one execution as a plain
/// forked child).
fn setup(request_fd: i32, response_fd: i32) -> Result<(), Cause> {
    // Sizes first, from the layout without the control region.
    let total = {
        // A temporary buffer on the stack would be too large: map one.
        let buf = mmap_anon(MAPS_BYTES, false).ok_or(Cause::Setup)?;
        // SAFETY: a fresh private mapping of MAPS_BYTES bytes.
        let s = unsafe { core::slice::from_raw_parts_mut(buf as *mut u8, MAPS_BYTES) };
        let len = read_maps(s);
        let mut total = 0usize;
        if let Some(len) = len {
            let mut i = 0;
            while i < len {
                let mut j = i;
                let start = hex(s, &mut j) as usize;
                j += 1;
                let end = hex(s, &mut j) as usize;
                j += 1;
                if s.get(j + 1) == Some(&b'w') && s.get(j + 3) == Some(&b'p') {
                    total += end - start;
                }
                while i < len && s[i] != b'\n' {
                    i += 1;
                }
                i += 1;
            }
        }
        sc(
            libc::SYS_munmap,
            [buf as i64, MAPS_BYTES as i64, 0, 0, 0, 0],
        );
        len.ok_or(Cause::Setup)?;
        total
    };
    if total > MAX_SNAPSHOT {
        return Err(Cause::TooLarge);
    }
    let header = core::mem::size_of::<Control>().next_multiple_of(PAGE);
    // Writable memory grows by at most what the header and a few pages take
    // between the probe and the copy.
    let data_len = total + 64 * PAGE;
    let region_len = header + data_len + ALT_STACK;
    // The user-level threads' pool goes where a process that is no worker
    // puts it (their stacks and TLS then have the same addresses whether
    // executions are persistent or not), the control region right below
    // it: one hole. Elsewhere if that place is taken (the pool is then
    // mapped by each execution that needs it).
    let pool = crate::uthread::POOL_ADDR;
    let (base, pool_len) = match mmap_at(pool - region_len, region_len, false) {
        Some(base) => (
            base,
            crate::uthread::reserve_pool(pool).map_or(0, |_| crate::uthread::POOL_BYTES),
        ),
        None => (mmap_anon(region_len, false).ok_or(Cause::Setup)?, 0),
    };
    CONTROL.store(base, Ordering::Relaxed);
    let c = ctl().ok_or(Cause::Setup)?;
    c.data_base = base + header;
    c.data_len = data_len;
    c.stack_top = base + region_len - 64;
    c.region_len = region_len;
    c.request_fd = request_fd;
    c.response_fd = response_fd;
    c.tid = sys::gettid();
    // The stacks of user-level threads outlive executions: their pages
    // stay mapped and are reused rather than faulted in again.
    c.hole_len = region_len + pool_len;
    let fail = |why| {
        CONTROL.store(0, Ordering::Relaxed);
        sc(
            libc::SYS_munmap,
            [base as i64, region_len as i64, 0, 0, 0, 0],
        );
        Err(why)
    };
    // userfaultfd in asynchronous write-protect mode (the kernel resolves
    // the faults itself and keeps the written bit for PAGEMAP_SCAN).
    let uffd = sc(
        libc::SYS_userfaultfd,
        [
            i64::from(libc::O_CLOEXEC | libc::O_NONBLOCK) | UFFD_USER_MODE_ONLY,
            0,
            0,
            0,
            0,
            0,
        ],
    ) as i32;
    if uffd < 0 {
        return fail(Cause::NoUserfaultfd);
    }
    let mut api = [
        UFFD_API,
        UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED,
        0,
    ];
    if ioctl(uffd, UFFDIO_API, api.as_mut_ptr().cast()) != 0 {
        close_raw(uffd);
        return fail(Cause::NoUserfaultfd);
    }
    let pagemap = open_ro(c"/proc/self/pagemap", false);
    if pagemap < 0 {
        close_raw(uffd);
        return fail(Cause::NoUserfaultfd);
    }
    c.uffd = move_fd(uffd, OWN_FD_BASE);
    c.pagemap = move_fd(pagemap, OWN_FD_BASE);
    if c.uffd < 0 || c.pagemap < 0 {
        return fail(Cause::Setup);
    }
    if snapshot_layout(c).is_none() {
        return fail(Cause::Setup);
    }
    // Register every saved range; the first scan write-protects them all.
    for r in &c.ranges[..c.n] {
        if !r.saved() {
            continue;
        }
        let mut reg = [
            r.start as u64,
            (r.end - r.start) as u64,
            UFFDIO_REGISTER_MODE_WP,
            0,
        ];
        if ioctl(c.uffd, UFFDIO_REGISTER, reg.as_mut_ptr().cast()) != 0 {
            return fail(Cause::NoUserfaultfd);
        }
    }
    let dir = open_ro(c"/proc/self/fd", true);
    c.fd_dir = if dir < 0 {
        -1
    } else {
        move_fd(dir, OWN_FD_BASE)
    };
    if c.fd_dir < 0 || fd_table(c.fd_dir, &mut c.fds).is_none() {
        return fail(Cause::Descriptors);
    }
    record_fd_ids(c);
    c.sigmask = sigmask_get();
    save_handlers(c);
    Ok(())
}

/// Records the layout and the saved ranges' bounds and data offsets.
fn snapshot_layout(c: &mut Control) -> Option<()> {
    let hole = (
        CONTROL.load(Ordering::Relaxed),
        CONTROL.load(Ordering::Relaxed) + c.hole_len,
    );
    let len = read_maps(&mut c.maps)?;
    c.n = parse_maps(&c.maps[..len], &mut c.ranges, hole)?;
    let mut off = 0;
    c.lowest = usize::MAX;
    c.highest = 0;
    for r in &mut c.ranges[..c.n] {
        if r.saved() {
            r.data = off;
            off += r.end - r.start;
            c.lowest = c.lowest.min(r.start);
            c.highest = c.highest.max(r.end);
        }
    }
    if off > c.data_len {
        return None;
    }
    // Gaps: everything user space may map but nothing maps now.
    const LOW: usize = 0x1_0000;
    const HIGH: usize = 0x7fff_ffff_f000;
    let mut at = LOW;
    c.ngaps = 0;
    let add_gap = |c: &mut Control, s: usize, e: usize| {
        if s < e && c.ngaps < MAX_RANGES {
            c.gaps[c.ngaps] = (s, e);
            c.ngaps += 1;
        }
    };
    let mut hole_done = false;
    for i in 0..c.n {
        let r = c.ranges[i];
        if !hole_done && hole.0 < r.start {
            add_gap(c, at.min(hole.0), hole.0.max(at));
            at = at.max(hole.1);
            hole_done = true;
        }
        add_gap(c, at, r.start.min(HIGH));
        at = at.max(r.end);
    }
    if !hole_done {
        add_gap(c, at, hole.0);
        at = at.max(hole.1);
    }
    add_gap(c, at, HIGH);
    if c.ngaps == MAX_RANGES {
        return None;
    }
    c.ntracked = 0;
    for i in 0..c.n {
        let r = c.ranges[i];
        if !r.saved() {
            continue;
        }
        if c.ntracked > 0 && c.tracked[c.ntracked - 1].1 == r.start {
            c.tracked[c.ntracked - 1].1 = r.end;
        } else {
            c.tracked[c.ntracked] = (r.start, r.end);
            c.ntracked += 1;
        }
    }
    Some(())
}

/// Called inside the checkpoint: copies every saved range (reading each
/// page also maps it, so a page the kernel later drops shows as not present)
/// and write-protects them all.
extern "C" fn take_copy() {
    let Some(c) = ctl() else { return };
    c.brk = current_brk();
    for r in &c.ranges[..c.n] {
        if r.saved() {
            // SAFETY: the range is mapped readable and writable (it was just
            // listed) and the copy area was sized for all of them.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    r.start as *const u8,
                    (c.data_base + r.data) as *mut u8,
                    r.end - r.start,
                );
            }
        }
    }
    protect_written(c);
}

/// Runs one `PAGEMAP_SCAN` over the saved ranges (pages matching
/// `inverted`/`anyof` among the write-tracked ones, categories `returned`),
/// calling `each` with every region found.
fn scan(
    c: &mut Control,
    flags: u64,
    inverted: u64,
    anyof: u64,
    returned: u64,
    mut each: impl FnMut(&Control, PageRegion),
) -> bool {
    let mut start = c.lowest as u64;
    let end = c.highest as u64;
    while start < end {
        let mut arg = PmScanArg {
            size: core::mem::size_of::<PmScanArg>() as u64,
            flags,
            start,
            end,
            walk_end: 0,
            vec: c.scan.as_mut_ptr() as u64,
            vec_len: SCAN_VEC as u64,
            max_pages: 0,
            category_inverted: inverted,
            category_mask: PAGE_IS_WPALLOWED,
            category_anyof_mask: anyof,
            return_mask: returned,
        };
        let n = ioctl(c.pagemap, PAGEMAP_SCAN, (&mut arg as *mut PmScanArg).cast());
        if n < 0 {
            return false;
        }
        for i in 0..n as usize {
            let r = c.scan[i];
            each(c, r);
        }
        if arg.walk_end <= start {
            break;
        }
        start = arg.walk_end;
    }
    true
}

fn protect_written(c: &mut Control) -> bool {
    scan(
        c,
        PM_SCAN_WP_MATCHING,
        0,
        PAGE_IS_WRITTEN,
        PAGE_IS_WRITTEN | PAGE_IS_PRESENT,
        |_, _| {},
    )
}

/// Most separate spans re-protected one by one after a restore (more: one
/// walk over everything tracked).
const MAX_PROTECT_SPANS: usize = 64;

/// The pages to write-protect again after a restore, as spans (adjacent
/// pages merged).
#[derive(Clone, Copy)]
struct ProtectSpans {
    n: usize,
    spans: [(usize, usize); MAX_PROTECT_SPANS],
    /// More spans than room: protect with one walk instead.
    overflow: bool,
}

impl ProtectSpans {
    const EMPTY: ProtectSpans = ProtectSpans {
        n: 0,
        spans: [(0, 0); MAX_PROTECT_SPANS],
        overflow: false,
    };

    fn add(&mut self, s: usize, e: usize) {
        if self.n > 0 && self.spans[self.n - 1].1 == s {
            self.spans[self.n - 1].1 = e;
        } else if self.n < MAX_PROTECT_SPANS {
            self.spans[self.n] = (s, e);
            self.n += 1;
        } else {
            self.overflow = true;
        }
    }

    fn contains(&self, p: usize) -> bool {
        self.spans[..self.n].iter().any(|&(s, e)| s <= p && p < e)
    }
}

/// Most pages kept unprotected although a restore found them unchanged.
const MAX_KEPT: usize = 16;
/// How many restores in a row may find a kept page unchanged before it is
/// protected again.
const KEPT_FOR: u32 = 64;

/// Pages that executions write back to what they held (a lock taken and
/// released, a thread-local value set and cleared): found unchanged but
/// written again right after their re-protection, they are kept
/// unprotected for a while instead of costing a write fault and a
/// re-protection in every execution. Unprotected, they are compared by
/// every restore like any written page.
#[derive(Clone, Copy)]
struct KeptPages {
    n: usize,
    /// Page address and how many more restores may find it unchanged.
    pages: [(usize, u32); MAX_KEPT],
}

impl KeptPages {
    /// Whether the page at `p`, written and found unchanged, stays
    /// unprotected; `reprotected`: the last restore protected it again (so
    /// this execution wrote it again).
    fn keep(&mut self, p: usize, reprotected: bool) -> bool {
        if let Some(i) = (0..self.n).find(|&i| self.pages[i].0 == p) {
            self.pages[i].1 -= 1;
            if self.pages[i].1 > 0 {
                return true;
            }
            self.n -= 1;
            self.pages[i] = self.pages[self.n];
            return false;
        }
        if reprotected && self.n < MAX_KEPT {
            self.pages[self.n] = (p, KEPT_FOR);
            self.n += 1;
            return true;
        }
        false
    }
}

/// What one restore walk carries from region to region (the control
/// region starts zeroed: no page kept, none protected last).
struct RestoreWalk {
    /// The first recorded range that may still hold a region (regions come
    /// in address order, as the recorded ranges are).
    next: usize,
    /// The pages to protect again.
    protect: ProtectSpans,
    /// The pages the previous restore protected again.
    last: ProtectSpans,
    kept: KeptPages,
}

/// Puts the saved contents of `[s, e)` back (the parts of it in saved
/// ranges) and notes in `protect` the pages to write-protect again. Only
/// for memory that is still mapped writable as at the checkpoint: a
/// write-tracked page is.
///
/// A page that was dropped (`present` false) is copied back and protected
/// again. A present page the execution wrote is compared with its saved
/// copy first: if it differs it is copied back and left unprotected, so
/// the next scan reports it written again and the next restore looks at it
/// again (a page written in every execution then costs neither a
/// write-protection fault nor a re-protection, each dearer than a compare
/// and a copy); if it is equal, restoring it would change nothing and it
/// is protected again, as an unwritten page is. Either way the page ends
/// as saved, and every page left unprotected is looked at by the next
/// restore: the restore stays exact.
///
/// A page found unchanged that was protected again by the last restore
/// and written again since is kept unprotected for a while instead
/// ([`KeptPages`]).
fn restore_pages(c: &Control, s: usize, e: usize, present: bool, w: &mut RestoreWalk) {
    while w.next < c.n && c.ranges[w.next].end <= s {
        w.next += 1;
    }
    for r in &c.ranges[w.next..c.n] {
        if r.start >= e {
            break;
        }
        if !r.saved() {
            continue;
        }
        let a = s.max(r.start);
        let b = e.min(r.end);
        let saved = c.data_base + r.data + (a - r.start);
        if !present {
            // SAFETY: `[a, b)` lies in a saved range, mapped writable (it
            // is write-tracked), and its copy is in the data area.
            unsafe {
                core::ptr::copy_nonoverlapping(saved as *const u8, a as *mut u8, b - a);
            }
            w.protect.add(a, b);
            continue;
        }
        let mut p = a;
        while p < b {
            let q = (p + PAGE).min(b);
            // SAFETY: as above, page by page; a live page and its copy do
            // not overlap (the data area is in the control region).
            let (live, copy) = unsafe {
                (
                    core::slice::from_raw_parts_mut(p as *mut u8, q - p),
                    core::slice::from_raw_parts((saved + (p - a)) as *const u8, q - p),
                )
            };
            if live == copy {
                if !w.kept.keep(p, w.last.contains(p)) {
                    w.protect.add(p, q);
                }
            } else {
                live.copy_from_slice(copy);
            }
            p = q;
        }
    }
}

/// Checks that the write-tracked memory is exactly the saved ranges (none
/// of them unmapped, moved or replaced) and restores every page written
/// or dropped since it was last protected ([`restore_pages`]), in one walk
/// of the page tables: every write-tracked region comes back with its
/// categories; the written or dropped ones are restored as they come (a
/// tracked page is mapped writable as at the checkpoint, so this is safe
/// even when the tracking turns out not to be intact). The pages to
/// protect again are left in `c.protect`. True if the tracking was intact,
/// in which case the restore is complete.
fn intact_and_copied(c: &mut Control) -> bool {
    let mut k = 0usize;
    let mut open: Option<(usize, usize)> = None;
    let mut ok = true;
    let mut w = RestoreWalk {
        next: 0,
        protect: ProtectSpans::EMPTY,
        last: c.protect,
        kept: c.kept,
    };
    let scanned = scan(
        c,
        0,
        0,
        0,
        PAGE_IS_WPALLOWED | PAGE_IS_WRITTEN | PAGE_IS_PRESENT,
        |c, r| {
            let (s, e) = (r.start as usize, r.end as usize);
            let present = r.categories & PAGE_IS_PRESENT != 0;
            if r.categories & PAGE_IS_WRITTEN != 0 || !present {
                restore_pages(c, s, e, present, &mut w);
            }
            match open {
                Some((a, b)) if b == s => open = Some((a, e)),
                Some(prev) => {
                    ok &= c.tracked.get(k) == Some(&prev) && k < c.ntracked;
                    k += 1;
                    open = Some((s, e));
                }
                None => open = Some((s, e)),
            }
        },
    );
    if let Some(prev) = open {
        ok &= k < c.ntracked && c.tracked[k] == prev;
        k += 1;
    }
    c.protect = w.protect;
    c.kept = w.kept;
    scanned && ok && k == c.ntracked
}

/// Write-protects again the pages the restore noted ([`restore_pages`]):
/// span by span, each with a `PAGEMAP_SCAN` that returns nothing (the
/// kernel's quickest walk, whose TLB flush covers only the span), or, if
/// there were too many spans, with one walk over everything tracked.
fn protect_again(c: &mut Control) -> bool {
    if c.protect.overflow {
        // Every page is protected again, kept ones too.
        c.kept.n = 0;
        return protect_written(c);
    }
    for i in 0..c.protect.n {
        let (s, e) = c.protect.spans[i];
        let mut arg = PmScanArg {
            size: core::mem::size_of::<PmScanArg>() as u64,
            flags: PM_SCAN_WP_MATCHING,
            start: s as u64,
            end: e as u64,
            walk_end: 0,
            vec: 0,
            vec_len: 0,
            max_pages: 0,
            category_inverted: 0,
            category_mask: PAGE_IS_WPALLOWED,
            category_anyof_mask: PAGE_IS_WRITTEN,
            return_mask: 0,
        };
        if ioctl(c.pagemap, PAGEMAP_SCAN, (&mut arg as *mut PmScanArg).cast()) < 0 {
            return false;
        }
    }
    true
}

/// Unmaps what the execution mapped (everything in the gaps of the
/// recorded layout), moves the heap end back, checks that write tracking
/// still covers exactly the saved ranges (registering them again if the
/// heap shrank and grew back) and copies back what the execution wrote.
fn restore_memory(c: &mut Control) -> bool {
    if current_brk() != c.brk {
        sc(libc::SYS_brk, [c.brk as i64, 0, 0, 0, 0, 0]);
    }
    for &(s, e) in &c.gaps[..c.ngaps] {
        sc(libc::SYS_munmap, [s as i64, (e - s) as i64, 0, 0, 0, 0]);
    }
    if intact_and_copied(c) {
        return true;
    }
    for i in 0..c.ntracked {
        let (s, e) = c.tracked[i];
        let mut reg = [s as u64, (e - s) as u64, UFFDIO_REGISTER_MODE_WP, 0];
        if ioctl(c.uffd, UFFDIO_REGISTER, reg.as_mut_ptr().cast()) != 0 {
            return false;
        }
    }
    intact_and_copied(c)
}

/// Runs on the control region's stack: restores the memory, reports the
/// execution and resumes at the checkpoint (or ends the worker).
extern "C" fn restore_and_resume() -> ! {
    let Some(c) = ctl() else { sys::exit_group(0) };
    let ok = restore_memory(c) && protect_again(c);
    let fallback = if ok { 0 } else { Cause::MemoryLayout as u32 };
    report(c, fallback);
    if !ok {
        sys::exit_group(0);
    }
    restore_handlers(c);
    sigmask_set(c.sigmask);
    // SAFETY: the memory is as at the checkpoint, whose frame is live again.
    unsafe { reach_persist_resume(&c.ctx) }
}

/// Reports the execution's end; `fallback`: also stop persisting.
fn report(c: &Control, fallback: u32) {
    if let Some(sh) = shared() {
        if fallback != 0 {
            sh.fallback.store(fallback, Ordering::SeqCst);
            send(c.response_fd, MSG_PERSIST_OFF, i64::from(fallback));
        }
        sh.pending.store(0, Ordering::SeqCst);
    }
    send(c.response_fd, MSG_DONE, i64::from(c.status));
}

/// Ends the worker after its execution was reported.
fn give_up(c: &Control, fallback: u32) -> ! {
    report(c, fallback);
    sys::exit_group(0)
}

/// Handoff word value telling a parked thread to exit.
pub const GO_EXIT: u32 = 3;
/// Handoff word value telling the parked main thread to end the execution.
pub const GO_FINISH: u32 = 4;

/// Called by a parked thread whose handoff word says [`GO_EXIT`] or
/// [`GO_FINISH`].
pub fn on_handoff(value: u32) -> ! {
    if value == GO_FINISH {
        finish_on_main()
    }
    // Ends this kernel thread only: its C library state is memory.
    loop {
        sc(libc::SYS_exit, [0; 6]);
    }
}

fn hand(t: u32, value: u32) {
    let w = crate::state::go_word(t);
    if w.swap(value, Ordering::Release) == 2 {
        sys::futex_wake(w);
    }
}

/// The execution ended with wait status `status` (its output flushed as
/// the process would): in a worker, ends every other thread, restores the
/// memory and runs the next execution, never returning. Returns at once
/// elsewhere.
pub fn end_execution(status: i32) {
    if !is_worker() {
        return;
    }
    let Some(c) = ctl() else { return };
    WORKER.store(0, Ordering::Relaxed);
    c.status = status;
    // User-level threads: the others are contexts that simply never run
    // again; the restore runs on the main thread's thread pointer.
    if crate::uthread::on() {
        crate::uthread::leave();
        finish_on_main()
    }
    // SAFETY: the execution is over; the caller is the thread that ended it.
    let st = unsafe { state() };
    let me = st.running;
    for t in 1..st.thread_count {
        if t == me {
            continue;
        }
        match st.threads[t as usize].state {
            TState::Parked => hand(t, GO_EXIT),
            TState::Starting | TState::Running => c.unusable = true,
            TState::Unused | TState::Finished => {}
        }
    }
    if sys::gettid() == sys::getpid() {
        finish_on_main()
    }
    if st.threads[0].state == TState::Parked && !c.unusable {
        hand(0, GO_FINISH);
        loop {
            sc(libc::SYS_exit, [0; 6]);
        }
    }
    give_up(c, Cause::Threads as u32)
}

/// On the main thread: waits for the other threads to be gone, checks what
/// memory cannot undo, then restores on the control region's stack.
fn finish_on_main() -> ! {
    let Some(c) = ctl() else { sys::exit_group(0) };
    // SAFETY: the execution is over; only this thread runs.
    let st = unsafe { state() };
    // Kernel threads only (user-level threads have no kernel id).
    let mut deadline = 0;
    let mut pid = 0;
    for t in 1..st.thread_count {
        let tid = st.threads[t as usize].tid;
        if tid == 0 {
            continue;
        }
        if deadline == 0 {
            deadline = now_ns() + THREADS_GONE_NS;
            pid = i64::from(sys::getpid());
        }
        while sc(libc::SYS_tgkill, [pid, i64::from(tid), 0, 0, 0, 0]) == 0 {
            if now_ns() > deadline {
                give_up(c, Cause::Threads as u32)
            }
            sc(libc::SYS_sched_yield, [0; 6]);
        }
    }
    if c.unusable {
        give_up(c, Cause::Threads as u32)
    }
    if c.taint != 0 {
        give_up(c, c.taint)
    }
    if !fds_unchanged(c) {
        give_up(c, Cause::Descriptors as u32)
    }
    // SAFETY: the top of the control region's own stack.
    unsafe { reach_persist_on_stack(c.stack_top & !15, restore_and_resume) }
}

/// In a freshly forked worker, at entry to `main`: records the snapshot and
/// returns, once per execution, ready to run it (the request read). `false`:
/// persistence is unavailable here (the reason was sent to the driver) and
/// this child runs its one execution as usual.
pub fn run_worker(request_fd: i32, response_fd: i32) -> bool {
    if let Err(why) = setup(request_fd, response_fd) {
        if let Some(sh) = shared() {
            sh.fallback.store(why as u32, Ordering::SeqCst);
        }
        send(response_fd, MSG_PERSIST_OFF, why as i64);
        return false;
    }
    let Some(c) = ctl() else { return false };
    // SAFETY: `take_copy` runs inside the checkpoint on this stack.
    let again = unsafe { reach_persist_checkpoint(&mut c.ctx, take_copy) };
    let Some(c) = ctl() else { return false };
    if again != 0 {
        next_request(c.request_fd);
    }
    c.started += 1;
    c.taint = 0;
    c.unusable = false;
    if let Some(sh) = shared() {
        sh.pending.store(1, Ordering::SeqCst);
    }
    WORKER.store(1, Ordering::Relaxed);
    true
}

// ---------------------------------------------------------------------
// Interposers of what memory cannot undo. Each forwards to the C library.

macro_rules! tainting {
    ($($body:tt)*) => {
        crate::note_then_forward!(taint; $($body)*);
    };
}

/// An `open` that can change a file: for writing, creating or truncating
/// it (one opened read-only and closed again leaves nothing behind; one
/// left open changes the descriptor table, which is checked).
fn open_writes(flags: c_int) -> bool {
    flags & libc::O_ACCMODE != libc::O_RDONLY || flags & (libc::O_CREAT | libc::O_TRUNC) != 0
}

macro_rules! opening {
    ($(#[$doc:meta])* $name:ident $sym:literal ($($a:ident: $t:ty),*), $path:ident, $flags:ident, $elsewhere:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> c_int {
            let writes = open_writes($flags);
            if writes {
                taint(Cause::Files);
            }
            // SAFETY: the caller's path, NUL-terminated or null.
            unsafe { crate::sources::opened($path, writes, $elsewhere) };
            // SAFETY: forwarding the caller's arguments.
            unsafe { crate::real!($sym, unsafe extern "C" fn($($t),*) -> c_int)($($a),*) }
        }
    };
}

opening!(
    /// Interposed `open`: files may be written, and the file opened is a
    /// source of nondeterminism ([`crate::sources::opened`]).
    open c"open"(p: *const c_char, f: c_int, m: libc::mode_t), p, f, false);
opening!(
    /// Interposed `open64`.
    open64 c"open64"(p: *const c_char, f: c_int, m: libc::mode_t), p, f, false);
opening!(
    /// Interposed `openat`.
    openat c"openat"(d: c_int, p: *const c_char, f: c_int, m: libc::mode_t), p, f, d != libc::AT_FDCWD);
opening!(
    /// Interposed `openat64`.
    openat64 c"openat64"(d: c_int, p: *const c_char, f: c_int, m: libc::mode_t), p, f, d != libc::AT_FDCWD);
tainting!(
    /// Interposed `creat`.
    creat c"creat"(p: *const c_char, m: libc::mode_t) -> c_int, Cause::Files);
tainting!(
    /// Interposed `creat64`.
    creat64 c"creat64"(p: *const c_char, m: libc::mode_t) -> c_int, Cause::Files);
/// An `fopen` mode that can change a file (anything but `r` without `+`).
fn fopen_writes(mode: *const c_char) -> bool {
    if mode.is_null() {
        return true;
    }
    // SAFETY: the caller's NUL-terminated mode string.
    let m = unsafe { core::ffi::CStr::from_ptr(mode) }.to_bytes();
    m.first() != Some(&b'r') || m.contains(&b'+')
}

/// Interposed `fopen`: as `open`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn fopen(p: *const c_char, m: *const c_char) -> *mut libc::FILE {
    let writes = fopen_writes(m);
    if writes {
        taint(Cause::Files);
    }
    // SAFETY: the caller's path, NUL-terminated or null.
    unsafe { crate::sources::opened(p, writes, false) };
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"fopen",
            unsafe extern "C" fn(*const c_char, *const c_char) -> *mut libc::FILE
        )(p, m)
    }
}

/// Interposed `fopen64`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn fopen64(p: *const c_char, m: *const c_char) -> *mut libc::FILE {
    let writes = fopen_writes(m);
    if writes {
        taint(Cause::Files);
    }
    // SAFETY: the caller's path, NUL-terminated or null.
    unsafe { crate::sources::opened(p, writes, false) };
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"fopen64",
            unsafe extern "C" fn(*const c_char, *const c_char) -> *mut libc::FILE
        )(p, m)
    }
}
tainting!(
    /// Interposed `freopen`.
    freopen c"freopen"(p: *const c_char, m: *const c_char, s: *mut libc::FILE) -> *mut libc::FILE, Cause::Files);
/// Interposed `close`: closing a descriptor open at `main` changes the
/// descriptor table for good; one the execution opened is gone anyway.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    if open_at_main(fd) {
        taint(Cause::Descriptors);
    }
    // SAFETY: forwarding.
    unsafe { crate::real!(c"close", unsafe extern "C" fn(c_int) -> c_int)(fd) }
}

/// True in a worker if `fd` was open at `main` (or is beyond the table kept).
fn open_at_main(fd: c_int) -> bool {
    match (is_worker(), ctl()) {
        (true, Some(c)) => {
            let Ok(fd) = usize::try_from(fd) else {
                return false;
            };
            c.fds
                .get(fd / 64)
                .is_none_or(|word| word & (1 << (fd % 64)) != 0)
        }
        _ => false,
    }
}
tainting!(
    /// Interposed `dup`.
    dup c"dup"(fd: c_int) -> c_int, Cause::Descriptors);
tainting!(
    /// Interposed `dup2`.
    dup2 c"dup2"(a: c_int, b: c_int) -> c_int, Cause::Descriptors);
tainting!(
    /// Interposed `dup3`.
    dup3 c"dup3"(a: c_int, b: c_int, f: c_int) -> c_int, Cause::Descriptors);
tainting!(
    /// Interposed `pipe`.
    pipe c"pipe"(fds: *mut c_int) -> c_int, Cause::Descriptors);
tainting!(
    /// Interposed `pipe2`.
    pipe2 c"pipe2"(fds: *mut c_int, f: c_int) -> c_int, Cause::Descriptors);
tainting!(
    /// Interposed `socket`.
    socket c"socket"(d: c_int, t: c_int, p: c_int) -> c_int, Cause::Sockets);
tainting!(
    /// Interposed `socketpair`.
    socketpair c"socketpair"(d: c_int, t: c_int, p: c_int, sv: *mut c_int) -> c_int, Cause::Sockets);
tainting!(
    /// Interposed `system`.
    system c"system"(cmd: *const c_char) -> c_int, Cause::Processes);
tainting!(
    /// Interposed `popen`.
    popen c"popen"(cmd: *const c_char, m: *const c_char) -> *mut libc::FILE, Cause::Processes);
tainting!(
    /// Interposed `posix_spawn`.
    posix_spawn c"posix_spawn"(pid: *mut libc::pid_t, p: *const c_char, fa: *const c_void, at: *const c_void, argv: *const *mut c_char, envp: *const *mut c_char) -> c_int, Cause::Processes);
tainting!(
    /// Interposed `posix_spawnp`.
    posix_spawnp c"posix_spawnp"(pid: *mut libc::pid_t, p: *const c_char, fa: *const c_void, at: *const c_void, argv: *const *mut c_char, envp: *const *mut c_char) -> c_int, Cause::Processes);
tainting!(
    /// Interposed `execve`.
    execve c"execve"(p: *const c_char, argv: *const *const c_char, envp: *const *const c_char) -> c_int, Cause::Processes);
tainting!(
    /// Interposed `execv`.
    execv c"execv"(p: *const c_char, argv: *const *const c_char) -> c_int, Cause::Processes);
tainting!(
    /// Interposed `execvp`.
    execvp c"execvp"(p: *const c_char, argv: *const *const c_char) -> c_int, Cause::Processes);
/// Interposed `sigaction`: an action the execution sets is put back as it
/// was at `main` after it.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sigaction(
    s: c_int,
    a: *const libc::sigaction,
    o: *mut libc::sigaction,
) -> c_int {
    if !a.is_null() {
        handler_set(s);
    }
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"sigaction",
            unsafe extern "C" fn(c_int, *const libc::sigaction, *mut libc::sigaction) -> c_int
        )(s, a, o)
    }
}

/// Interposed `signal`: as `sigaction`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn signal(s: c_int, h: libc::sighandler_t) -> libc::sighandler_t {
    handler_set(s);
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"signal",
            unsafe extern "C" fn(c_int, libc::sighandler_t) -> libc::sighandler_t
        )(s, h)
    }
}
tainting!(
    /// Interposed `dlopen`.
    dlopen c"dlopen"(f: *const c_char, m: c_int) -> *mut c_void, Cause::Libraries);
/// Interposed `mprotect`: the restore writes saved memory back, so memory
/// that existed at `main` must keep its protection; memory the execution
/// mapped (a Rust thread's guarded alternate signal stack) goes with it.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn mprotect(a: *mut c_void, len: usize, prot: c_int) -> c_int {
    if existed_at_main(a as usize, len) {
        taint(Cause::MemoryLayout);
    }
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"mprotect",
            unsafe extern "C" fn(*mut c_void, usize, c_int) -> c_int
        )(a, len, prot)
    }
}

/// True in a worker if `[at, at + len)` meets memory mapped at `main`.
fn existed_at_main(at: usize, len: usize) -> bool {
    match (is_worker(), ctl()) {
        (true, Some(c)) => c.ranges[..c.n]
            .iter()
            .any(|r| at < r.end && at.saturating_add(len) > r.start),
        _ => false,
    }
}
tainting!(
    /// Interposed `alarm`: a pending alarm would fire in a later execution.
    alarm c"alarm"(s: core::ffi::c_uint) -> core::ffi::c_uint, Cause::Timers);
tainting!(
    /// Interposed `ualarm`.
    ualarm c"ualarm"(v: libc::useconds_t, i: libc::useconds_t) -> libc::useconds_t, Cause::Timers);
tainting!(
    /// Interposed `setitimer`.
    setitimer c"setitimer"(w: c_int, n: *const libc::itimerval, o: *mut libc::itimerval) -> c_int, Cause::Timers);
tainting!(
    /// Interposed `timer_create`.
    timer_create c"timer_create"(c: libc::clockid_t, e: *mut libc::sigevent, t: *mut libc::timer_t) -> c_int, Cause::Timers);
tainting!(
    /// Interposed `chdir`: the working directory changes.
    chdir c"chdir"(p: *const c_char) -> c_int, Cause::Files);

/// Interposed `mmap`: a shared mapping of a file writes the file.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn mmap(
    a: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: libc::off_t,
) -> *mut c_void {
    if flags & libc::MAP_ANONYMOUS == 0 && flags & libc::MAP_SHARED != 0 {
        taint(Cause::FileMappings);
    }
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"mmap",
            unsafe extern "C" fn(
                *mut c_void,
                usize,
                c_int,
                c_int,
                c_int,
                libc::off_t,
            ) -> *mut c_void
        )(a, len, prot, flags, fd, off)
    }
}

/// Interposed `mmap64`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn mmap64(
    a: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: libc::off_t,
) -> *mut c_void {
    // SAFETY: as `mmap`.
    unsafe { mmap(a, len, prot, flags, fd, off) }
}
