//! User-level threads: with `REQ_USER_THREADS` the program's threads are
//! contexts on the one kernel thread that runs `main` (only one of them runs
//! at a time anyway). Creating a thread allocates no kernel thread; a switch
//! saves the callee-saved registers and the stack pointer of one context,
//! loads another's and sets the thread pointer (`FS` base) with `wrfsbase`,
//! which the kernel lets user code do where `AT_HWCAP2` has `FSGSBASE`.
//!
//! Each context is a complete C library thread as far as the code running
//! in it can tell, built the way the C library builds one (glibc 2.36,
//! x86_64, `nptl/allocatestack.c` and `start_thread`):
//!
//! - a slot of [`SLOT_BYTES`] in a pool reserved once (a guard page at the
//!   bottom, the stack, then the static TLS block and the thread descriptor
//!   `struct pthread` at the top, where the thread pointer points);
//! - the static TLS of every module (`errno`, malloc's thread cache and
//!   arena pointer, stdio, every `__thread` variable of the program and the
//!   runtime) initialised and the dynamic thread vector allocated by the
//!   dynamic linker's own `_dl_allocate_tls`;
//! - the descriptor zeroed, with the header fields every thread's must hold
//!   (`tcb` and `self` pointing at it, `multiple_threads`, and the stack
//!   guard, pointer guard and CET features copied from the main thread); so
//!   `pthread_self`, `pthread_equal`, `pthread_getspecific` and
//!   `pthread_setspecific` (whose first block lives in the descriptor) work
//!   unchanged;
//! - what `start_thread` does first: the resolver state pointer, the
//!   locale's character tables (`__ctype_init`), and an rseq area that says
//!   "not registered" (so `sched_getcpu` asks the kernel).
//!
//! A context that returns from its start routine runs C++ `thread_local`
//! destructors (`__call_tls_dtors`) and the program's key destructors as
//! the C library would, then leaves the schedule. What a context cannot be
//! — a kernel thread of its own — is detected: the calls that need one
//! ([`Cause`]) abandon the execution, which the driver runs again with
//! kernel threads, and every later execution uses kernel threads too.
//!
//! Blocking calls the runtime does not model (`read` on a pipe, `poll`,
//! `accept`, ...) need no kernel thread of their own: the thread that holds
//! the right to run is the only one that runs in either mode, so a call
//! that blocks it blocks the execution the same way with kernel threads.
//!
//! Nothing here is on the hot path: a thread that keeps running never
//! switches.

use crate::state::{state, MODE, MODE_ACTIVE};
use crate::sys::raw_syscall;
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_void};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use reach_channel::layout::USER_THREADS_ABANDONED;
use reach_channel::{RunStatus, MAX_THREADS};

pub use reach_channel::fork::UserThreadsCause as Cause;

const PAGE: usize = 4096;
/// Bytes of one context's slot: guard page, stack, static TLS, descriptor.
/// The C library's default thread stack is 8 MiB.
pub const SLOT_BYTES: usize = 8 << 20;
/// Room kept for the thread descriptor (`struct pthread`, 0x940 bytes in
/// glibc 2.36: `allocate_stack` places it at `top - 0x940`).
const TCB_ROOM: usize = PAGE;
/// Bytes of the pool: a header page, then one slot per thread id.
pub const POOL_BYTES: usize = PAGE + MAX_THREADS * SLOT_BYTES;
/// Where the pool is mapped (by a persistent worker before its snapshot,
/// with its control region right below; elsewhere at the first thread
/// creation), so that contexts have the same addresses either way.
pub const POOL_ADDR: usize = 0x5000_0000_0000;

// Offsets in the x86_64 thread control block header (`tcbhead_t`).
const TCB_SELF_TCB: usize = 0x00;
const TCB_SELF: usize = 0x10;
const TCB_MULTIPLE_THREADS: usize = 0x18;
const TCB_STACK_GUARD: usize = 0x28;
const TCB_POINTER_GUARD: usize = 0x30;
const TCB_FEATURE_1: usize = 0x48;
/// `RSEQ_CPU_ID_REGISTRATION_FAILED`: `sched_getcpu` then asks the kernel.
const RSEQ_UNREGISTERED: i32 = -2;

/// What the C library offers for building threads, looked up once.
#[derive(Clone, Copy)]
struct Libc {
    /// `_dl_allocate_tls` (ld.so, GLIBC_PRIVATE).
    allocate_tls: usize,
    /// `__ctype_init` (GLIBC_PRIVATE).
    ctype_init: usize,
    /// `__call_tls_dtors` (GLIBC_PRIVATE), 0 if missing.
    call_tls_dtors: usize,
    /// Size and alignment of the static TLS block with the descriptor.
    static_size: usize,
    static_align: usize,
    /// `&__resp - tp` and `__resp - tp` on the main thread (0: unknown).
    resp_slot: isize,
    resp_value: isize,
    /// `__rseq_offset`, or 0 without rseq.
    rseq_offset: isize,
    /// `&__libc_single_threaded`, 0 if missing.
    single_threaded: usize,
}

/// One context: its saved stack pointer (registers are on its stack) and
/// its thread pointer.
#[derive(Clone, Copy)]
struct Ctx {
    rsp: usize,
    fs: usize,
}

/// What a context runs, handed down by the thread API at start-up
/// ([`prepare`]): the start routine's side, then the thread's exit.
#[derive(Clone, Copy)]
pub struct Body {
    /// Runs context `id`'s start routine; its return value.
    pub start: fn(id: u32) -> usize,
    /// Context `id` returned `value` (`call_tls_dtors`: the C library's
    /// destructor runner, 0 if none); returns only if the execution ended.
    pub exit: fn(id: u32, value: usize, call_tls_dtors: usize),
}

/// A body for contexts before start-up handed the real one down.
fn no_body(_id: u32) -> usize {
    0
}

fn no_exit(_id: u32, _value: usize, _call_tls_dtors: usize) {}

struct Contexts {
    libc: Option<Libc>,
    body: Body,
    /// Main thread's thread pointer.
    main_fs: usize,
    ctx: [Ctx; MAX_THREADS],
    /// Where the saved stack pointer of a finished context goes.
    dead: usize,
}

struct Global(UnsafeCell<Contexts>);
// SAFETY: touched only by the thread holding the right to run (in this mode,
// the one kernel thread), or during single-threaded start-up.
unsafe impl Sync for Global {}

static G: Global = Global(UnsafeCell::new(Contexts {
    libc: None,
    body: Body {
        start: no_body,
        exit: no_exit,
    },
    main_fs: 0,
    ctx: [Ctx { rsp: 0, fs: 0 }; MAX_THREADS],
    dead: 0,
}));

/// This execution runs the program's threads as contexts.
static ON: AtomicBool = AtomicBool::new(false);
/// The pool's base address (0: not reserved yet).
static POOL: AtomicUsize = AtomicUsize::new(0);
/// Why contexts are unavailable in this process (0: they are available).
static UNAVAILABLE: AtomicUsize = AtomicUsize::new(0);

fn g() -> &'static mut Contexts {
    // SAFETY: see `Global`.
    unsafe { &mut *G.0.get() }
}

/// True while this execution runs its threads as contexts.
#[inline]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

fn thread_pointer() -> usize {
    let tp: usize;
    // SAFETY: reads the TCB's self pointer at fs:0, present in every thread.
    unsafe { core::arch::asm!("mov {}, fs:0", out(reg) tp, options(nostack, readonly)) };
    tp
}

fn sym(name: &core::ffi::CStr) -> usize {
    // SAFETY: a NUL-terminated name; RTLD_DEFAULT lookup has no other
    // precondition.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) as usize }
}

/// Looks up what contexts need (at initialisation, on the main thread,
/// before `main`). Contexts stay unavailable if anything is missing.
pub fn prepare(body: Body) {
    g().body = body;
    // SAFETY: plain query of the auxiliary vector.
    let hwcap2 = unsafe { libc::getauxval(libc::AT_HWCAP2) };
    const HWCAP2_FSGSBASE: u64 = 2;
    let allocate_tls = sym(c"_dl_allocate_tls");
    let ctype_init = sym(c"__ctype_init");
    let static_info = sym(c"_dl_get_tls_static_info");
    if hwcap2 & HWCAP2_FSGSBASE == 0 || allocate_tls == 0 || ctype_init == 0 || static_info == 0 {
        UNAVAILABLE.store(Cause::Unavailable as usize, Ordering::Relaxed);
        return;
    }
    let (mut size, mut align) = (0usize, 0usize);
    // SAFETY: `_dl_get_tls_static_info(size_t *, size_t *)`.
    unsafe {
        let f: unsafe extern "C" fn(*mut usize, *mut usize) = core::mem::transmute(static_info);
        f(&mut size, &mut align);
    }
    let tp = thread_pointer();
    let (mut resp_slot, mut resp_value) = (0isize, 0isize);
    let resp = sym(c"__resp");
    if resp != 0 {
        // SAFETY: dlsym gave the address of the main thread's `__resp`.
        let v = unsafe { *(resp as *const usize) };
        // Only if it points into the main thread's descriptor, as
        // `start_thread` sets it (`__resp = &pd->res`).
        if v > tp && v < tp + TCB_ROOM {
            resp_slot = resp as isize - tp as isize;
            resp_value = v as isize - tp as isize;
        }
    }
    let rseq_size = sym(c"__rseq_size");
    let rseq_off = sym(c"__rseq_offset");
    let rseq_offset = if rseq_size != 0 && rseq_off != 0 {
        // SAFETY: exported variables of ld.so (`unsigned int`, `ptrdiff_t`).
        unsafe {
            if *(rseq_size as *const u32) > 0 {
                *(rseq_off as *const isize)
            } else {
                0
            }
        }
    } else {
        0
    };
    if size == 0 || align == 0 || !align.is_power_of_two() || size + TCB_ROOM > SLOT_BYTES / 4 {
        UNAVAILABLE.store(Cause::Unavailable as usize, Ordering::Relaxed);
        return;
    }
    let c = g();
    c.main_fs = tp;
    c.libc = Some(Libc {
        allocate_tls,
        ctype_init,
        call_tls_dtors: sym(c"__call_tls_dtors"),
        static_size: size,
        static_align: align,
        resp_slot,
        resp_value,
        rseq_offset,
        single_threaded: sym(c"__libc_single_threaded"),
    });
}

/// Reserves the pool at `at` (fixed, never replacing a mapping); its base.
pub fn reserve_pool(at: usize) -> Option<usize> {
    // SAFETY: an anonymous mapping at a fixed address that fails rather
    // than replace anything.
    let r = unsafe {
        raw_syscall(
            libc::SYS_mmap,
            [
                at as i64,
                POOL_BYTES as i64,
                i64::from(libc::PROT_READ | libc::PROT_WRITE),
                i64::from(
                    libc::MAP_PRIVATE
                        | libc::MAP_ANONYMOUS
                        | libc::MAP_NORESERVE
                        | libc::MAP_FIXED_NOREPLACE,
                ),
                -1,
                0,
            ],
        )
    };
    if r == at as i64 {
        POOL.store(at, Ordering::Relaxed);
        return Some(at);
    }
    if r > 0 {
        // SAFETY: unmapping what a kernel without MAP_FIXED_NOREPLACE
        // placed elsewhere.
        unsafe { raw_syscall(libc::SYS_munmap, [r, POOL_BYTES as i64, 0, 0, 0, 0]) };
    }
    None
}

fn pool() -> Option<usize> {
    match POOL.load(Ordering::Relaxed) {
        0 => reserve_pool(POOL_ADDR),
        p => Some(p),
    }
}

/// At the start of an execution: run this execution's threads as contexts
/// if `requested` and possible. Returns why not if requested but impossible.
pub fn start_execution(requested: bool) -> Option<Cause> {
    ON.store(false, Ordering::Relaxed);
    if !requested {
        return None;
    }
    match UNAVAILABLE.load(Ordering::Relaxed) {
        0 => {}
        _ => return Some(Cause::Unavailable),
    }
    if g().libc.is_none() {
        return Some(Cause::Unavailable);
    }
    g().ctx[0] = Ctx {
        rsp: 0,
        fs: g().main_fs,
    };
    crate::uthread_own::start();
    ON.store(true, Ordering::Relaxed);
    None
}

/// The calling context's thread id, while contexts run this execution.
pub fn current() -> Option<u32> {
    if !on() {
        return None;
    }
    let fs = thread_pointer();
    if fs == g().main_fs {
        return Some(0);
    }
    context_of(fs as libc::pthread_t)
}

/// The context whose `pthread_t` is `th`, other than the main thread,
/// while contexts run this execution.
pub fn context_of(th: libc::pthread_t) -> Option<u32> {
    let pool = POOL.load(Ordering::Relaxed);
    let at = th as usize;
    if !on() || pool == 0 || at < pool + PAGE || at >= pool + POOL_BYTES {
        return None;
    }
    let id = (at - pool - PAGE) / SLOT_BYTES;
    (id != 0 && g().ctx[id].fs == at).then_some(id as u32)
}

/// Context `id`'s stack as `pthread_getattr_np` describes a thread's: its
/// lowest address and size above the guard page, and the guard's size.
pub fn stack_of(id: u32) -> (usize, usize, usize) {
    let slot = POOL.load(Ordering::Relaxed) + PAGE + id as usize * SLOT_BYTES;
    (slot + PAGE, SLOT_BYTES - PAGE, PAGE)
}

/// The main thread's `pthread_t`.
pub fn main_handle() -> libc::pthread_t {
    g().main_fs as libc::pthread_t
}

/// The execution ends: the caller (any context) continues on the main
/// thread's thread pointer, so what runs next (the persistent worker's
/// restore, the C library's exit) sees the main thread.
pub fn leave() {
    if on() {
        ON.store(false, Ordering::Relaxed);
        // SAFETY: the main thread's descriptor lives as long as the process.
        unsafe { wrfsbase(g().main_fs) };
    }
}

/// The calling thread needs a kernel thread of its own: while contexts run
/// this execution, abandons it (the driver runs it again with kernel
/// threads and keeps them). Returns at once otherwise.
pub fn needs_kernel_thread(cause: Cause) {
    if on() && MODE.load(Ordering::Relaxed) == MODE_ACTIVE && crate::state::me().is_some() {
        abandon(cause)
    }
}

/// Abandons the execution (see [`needs_kernel_thread`]).
pub fn abandon(cause: Cause) -> ! {
    // SAFETY: the calling thread holds the right to run.
    let st = unsafe { state() };
    st.chan
        .header()
        .user_threads_off
        .store(cause as u32 | USER_THREADS_ABANDONED, Ordering::Relaxed);
    crate::fail!(
        st,
        RunStatus::Unsupported,
        0,
        "user-level threads cannot run this execution: {}",
        cause.describe()
    );
}

/// Reports that contexts were asked for but this execution runs kernel
/// threads (its result stands).
pub fn report_unavailable(cause: Cause) {
    // SAFETY: during the start of an execution, single-threaded.
    let st = unsafe { state() };
    st.chan
        .header()
        .user_threads_off
        .store(cause as u32, Ordering::Relaxed);
}

#[inline]
unsafe fn wrfsbase(v: usize) {
    // SAFETY: the caller passes a valid thread pointer; FSGSBASE was checked.
    unsafe { core::arch::asm!("wrfsbase {}", in(reg) v, options(nostack)) };
}

/// Builds context `id` that will run `start(arg)`: its thread pointer (the
/// `pthread_t` it will see), or why it cannot.
pub fn spawn(id: u32) -> Result<usize, Cause> {
    let lc = g().libc.ok_or(Cause::Unavailable)?;
    let pool = pool().ok_or(Cause::NoStacks)?;
    let slot = pool + PAGE + id as usize * SLOT_BYTES;
    guard(pool, slot, id);
    let top = slot + SLOT_BYTES;
    let pd = (top - TCB_ROOM) & !(lc.static_align - 1);
    // SAFETY: `[pd, top)` lies in this context's slot, mapped read-write.
    unsafe { core::ptr::write_bytes(pd as *mut u8, 0, top - pd) };
    // SAFETY: `_dl_allocate_tls(mem)` with the descriptor address, as
    // `allocate_stack` calls it: initialises the static TLS below `pd`
    // (inside the slot) and installs a new dynamic thread vector.
    let got = unsafe {
        let f: unsafe extern "C" fn(*mut c_void) -> *mut c_void =
            core::mem::transmute(lc.allocate_tls);
        f(pd as *mut c_void)
    };
    if got.is_null() {
        return Err(Cause::NoStacks);
    }
    let main = g().main_fs;
    // SAFETY: header fields of the new descriptor (zeroed above) and of the
    // main thread's, at the x86_64 `tcbhead_t` offsets.
    unsafe {
        let w = |off: usize, v: usize| ((pd + off) as *mut usize).write(v);
        let r = |off: usize| ((main + off) as *const usize).read();
        w(TCB_SELF_TCB, pd);
        w(TCB_SELF, pd);
        ((pd + TCB_MULTIPLE_THREADS) as *mut i32).write(1);
        w(TCB_STACK_GUARD, r(TCB_STACK_GUARD));
        w(TCB_POINTER_GUARD, r(TCB_POINTER_GUARD));
        ((pd + TCB_FEATURE_1) as *mut u32).write(((main + TCB_FEATURE_1) as *const u32).read());
        if lc.rseq_offset != 0 {
            // struct rseq: cpu_id_start, then cpu_id.
            ((pd as isize + lc.rseq_offset + 4) as *mut i32).write(RSEQ_UNREGISTERED);
        }
        // What `pthread_create` does to the creating process: it is no
        // longer single-threaded.
        ((main + TCB_MULTIPLE_THREADS) as *mut i32).write(1);
        if lc.single_threaded != 0 {
            (lc.single_threaded as *mut c_char).write(0);
        }
    }
    // The initial stack: what `reach_uthread_switch` pops, returning into
    // `reach_uthread_entry` with the id in r12 and rsp 16-byte aligned.
    let base = (pd - lc.static_size) & !63;
    let (mxcsr, fpucw) = fp_control();
    // SAFETY: the top of this context's stack, in its slot.
    unsafe {
        let s = |off: usize, v: u64| ((base - off) as *mut u64).write(v);
        s(8, 0);
        s(16, 0);
        s(24, reach_uthread_entry as *const () as usize as u64); // return address
        s(32, 0); // rbp
        s(40, 0); // rbx
        s(48, u64::from(id)); // r12
        s(56, 0); // r13
        s(64, 0); // r14
        s(72, 0); // r15
        s(80, u64::from(mxcsr) | u64::from(fpucw) << 32);
    }
    g().ctx[id as usize] = Ctx {
        rsp: base - 80,
        fs: pd,
    };
    crate::uthread_own::spawned(id);
    Ok(pd)
}

/// The creator's floating-point control state (a new kernel thread
/// inherits it).
fn fp_control() -> (u32, u16) {
    let mut mxcsr: u32 = 0;
    let mut cw: u16 = 0;
    // SAFETY: stores the control words into locals.
    unsafe {
        core::arch::asm!(
            "stmxcsr [{m}]",
            "fnstcw [{c}]",
            m = in(reg) &mut mxcsr,
            c = in(reg) &mut cw,
            options(nostack),
        );
    }
    (mxcsr, cw)
}

/// Makes the bottom page of a slot a guard page, once per pool (the pool's
/// header page remembers which are; it outlives a worker's executions).
fn guard(pool: usize, slot: usize, id: u32) {
    let word = (pool as *mut u64).wrapping_add(id as usize / 64);
    let bit = 1u64 << (id % 64);
    // SAFETY: the header page of the pool, mapped read-write.
    unsafe {
        if *word & bit == 0 {
            raw_syscall(
                libc::SYS_mprotect,
                [
                    slot as i64,
                    PAGE as i64,
                    i64::from(libc::PROT_NONE),
                    0,
                    0,
                    0,
                ],
            );
            *word |= bit;
        }
    }
}

/// Switches from context `me` to context `next`; returns when a context
/// switches back to `me`.
#[inline]
pub fn switch(me: u32, next: u32) {
    let c = g();
    let to = c.ctx[next as usize % MAX_THREADS];
    let save = &mut c.ctx[me as usize % MAX_THREADS].rsp as *mut usize;
    // SAFETY: `next` is a context built by `spawn` (or the main thread)
    // that is suspended in `reach_uthread_switch` or not started yet.
    unsafe { reach_uthread_switch(save, to.rsp, to.fs) };
    crate::uthread_own::resume(me);
}

/// The calling context finished: switches to `next` for good.
pub fn finish(next: u32) -> ! {
    let c = g();
    let to = c.ctx[next as usize % MAX_THREADS];
    // SAFETY: as `switch`; nobody switches back to the dead context.
    unsafe { reach_uthread_switch(&mut c.dead, to.rsp, to.fs) };
    crate::sys::exit_group(70)
}

/// First code of a new context (on its own stack and thread pointer).
extern "C" fn context_main(id: u64) -> ! {
    let id = id as u32;
    crate::uthread_own::resume(id);
    if let Some(lc) = g().libc {
        let tp = thread_pointer();
        // SAFETY: what `start_thread` does first, in the new thread: the
        // resolver state pointer into its own descriptor and the locale's
        // character tables in its TLS.
        unsafe {
            if lc.resp_slot != 0 {
                ((tp as isize + lc.resp_slot) as *mut isize).write(tp as isize + lc.resp_value);
            }
            let f: unsafe extern "C" fn() = core::mem::transmute(lc.ctype_init);
            f();
        }
    }
    let body = g().body;
    let value = (body.start)(id);
    (body.exit)(id, value, g().libc.map_or(0, |l| l.call_tls_dtors));
    // A context whose execution ended cannot go on.
    crate::sys::exit_group(70)
}

core::arch::global_asm!(
    ".globl reach_uthread_switch",
    ".type reach_uthread_switch,@function",
    "reach_uthread_switch:",
    "push rbp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "sub rsp, 8",
    "stmxcsr [rsp]",
    "fnstcw [rsp + 4]",
    "mov [rdi], rsp",
    "mov rsp, rsi",
    "wrfsbase rdx",
    "ldmxcsr [rsp]",
    "fldcw [rsp + 4]",
    "add rsp, 8",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    ".size reach_uthread_switch, . - reach_uthread_switch",
    ".globl reach_uthread_entry",
    ".type reach_uthread_entry,@function",
    "reach_uthread_entry:",
    "mov rdi, r12",
    "call {main}",
    "ud2",
    ".size reach_uthread_entry, . - reach_uthread_entry",
    main = sym context_main,
);

extern "C" {
    /// Saves the callee-saved registers and floating-point control words on
    /// the stack and the stack pointer in `*save`, then loads the stack
    /// pointer `rsp` and thread pointer `fs` of another context and returns
    /// into it.
    fn reach_uthread_switch(save: *mut usize, rsp: usize, fs: usize);
    /// Where a new context starts (see [`spawn`]).
    fn reach_uthread_entry();
}

// ---------------------------------------------------------------------
// Calls that need a kernel thread of the calling (or named) thread. While
// contexts run the execution they abandon it; otherwise they forward.

macro_rules! kernel_thread {
    ($($body:tt)*) => {
        crate::note_then_forward!(needs_kernel_thread; $($body)*);
    };
}

kernel_thread!(
    /// Interposed `pthread_exit`: unwinds the thread's stack to the C
    /// library's start frame, which a context does not have.
    pthread_exit c"pthread_exit"(v: *mut c_void) -> !, Cause::ThreadExit);
kernel_thread!(
    /// Interposed `pthread_cancel`.
    pthread_cancel c"pthread_cancel"(t: libc::pthread_t) -> libc::c_int, Cause::ThreadExit);
kernel_thread!(
    /// Interposed `pthread_kill`: a signal for one thread.
    pthread_kill c"pthread_kill"(t: libc::pthread_t, s: libc::c_int) -> libc::c_int, Cause::Signals);
kernel_thread!(
    /// Interposed `pthread_setaffinity_np`.
    pthread_setaffinity_np c"pthread_setaffinity_np"(t: libc::pthread_t, l: usize, s: *const libc::cpu_set_t) -> libc::c_int, Cause::KernelThreadState);
kernel_thread!(
    /// Interposed `pthread_getaffinity_np`.
    pthread_getaffinity_np c"pthread_getaffinity_np"(t: libc::pthread_t, l: usize, s: *mut libc::cpu_set_t) -> libc::c_int, Cause::KernelThreadState);
kernel_thread!(
    /// Interposed `sched_setaffinity`.
    sched_setaffinity c"sched_setaffinity"(p: libc::pid_t, l: usize, s: *const libc::cpu_set_t) -> libc::c_int, Cause::KernelThreadState);
kernel_thread!(
    /// Interposed `pthread_setschedparam`.
    pthread_setschedparam c"pthread_setschedparam"(t: libc::pthread_t, p: libc::c_int, s: *const libc::sched_param) -> libc::c_int, Cause::KernelThreadState);
kernel_thread!(
    /// Interposed `pthread_setschedprio`.
    pthread_setschedprio c"pthread_setschedprio"(t: libc::pthread_t, p: libc::c_int) -> libc::c_int, Cause::KernelThreadState);
