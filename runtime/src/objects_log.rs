//! Records of the heap blocks and escaping stack objects of an execution,
//! so that reports can name memory (`heap#3 (allocated at f.c:12)`,
//! `T1 stack (worker)`) instead of showing addresses.
//!
//! `malloc`, `calloc`, `realloc` and `free` are interposed and forward to
//! the C library's own allocator (`__libc_*`); the allocating ones enter
//! through a small assembly trampoline that passes their return address
//! along. `operator new` (libstdc++'s, which calls `malloc`) enters through
//! a trampoline that remembers the program's return address for the
//! `malloc` it is about to make, then jumps to the real one. Stack objects
//! come from the pass's `__reach_stack_object` hook. A heap block also
//! records the thread's call into the standard library in progress, for a
//! block Rust's allocator asked for (`Box::new`, `Vec::with_capacity`).
//!
//! A record is appended only by the thread that runs under control, with
//! no lock, allocation or system call: one store into the channel. Nothing
//! here is a scheduling point.

use crate::state::{me, state};
use core::cell::Cell;
use core::ffi::c_void;
use core::sync::atomic::{AtomicUsize, Ordering};
use reach_channel::{ObjectKind, ObjectRecord};

extern "C" {
    fn __libc_malloc(size: usize) -> *mut c_void;
    fn __libc_calloc(n: usize, size: usize) -> *mut c_void;
    fn __libc_realloc(p: *mut c_void, size: usize) -> *mut c_void;
    fn __libc_free(p: *mut c_void);
}

thread_local! {
    /// Set while this thread appends a record (a nested allocation, if
    /// any, is not recorded).
    static RECORDING: Cell<bool> = const { Cell::new(false) };
    /// Return address into the program and size of the `operator new` in
    /// progress, for the `malloc` it makes.
    static NEW_CALLER: Cell<(u64, usize)> = const { Cell::new((0, 0)) };
}

/// Appends one record if the calling thread is the one running under control.
fn record(kind: ObjectKind, address: u64, size: u64, origin: u64) {
    let Some(t) = me() else {
        return;
    };
    if RECORDING.with(|r| r.replace(true)) {
        return;
    }
    // SAFETY: only the running controlled thread touches the state.
    let st = unsafe { state() };
    if st.running == t {
        st.chan.record_object(&ObjectRecord {
            address,
            size,
            origin,
            caller: if kind == ObjectKind::Heap {
                crate::current::library_call()
            } else {
                0
            },
            step: st.event_count,
            thread: t,
            kind: kind as u32,
        });
        if kind == ObjectKind::Heap {
            crate::private::fresh_block(st, address, size);
        }
    }
    RECORDING.with(|r| r.set(false));
}

/// True if `ret` is a return address into the main executable.
fn in_program(ret: u64) -> bool {
    let (lo, hi) = crate::caller::program_text();
    ret > lo && ret <= hi
}

/// Records a heap block allocated by a call returning to `ret`.
fn record_heap(p: *mut c_void, size: usize, ret: u64) {
    if p.is_null() || me().is_none() {
        return;
    }
    let origin = if in_program(ret) {
        ret
    } else {
        match NEW_CALLER.with(|c| c.replace((0, 0))) {
            (caller, wanted) if caller != 0 && wanted == size => caller,
            _ => ret,
        }
    };
    record(ObjectKind::Heap, p as u64, size as u64, origin);
}

/// Records that the block at `p` was freed.
fn record_free(p: *mut c_void) {
    if !p.is_null() {
        record(ObjectKind::Free, p as u64, 0, 0);
        // SAFETY: `p` is a live block, about to be freed.
        unsafe { crate::symbolic::forget(p) };
    }
}

/// Declares an interposed allocation function whose trampoline moves the
/// return address into the next free argument register, then jumps to the
/// implementation that takes it as its last parameter.
macro_rules! with_return_address {
    ($name:ident ( $($arg:ident : $ty:ty),* ) => $imp:ident, $x86_reg:literal, $arm_reg:literal) => {
        #[doc = concat!("Interposed `", stringify!($name), "`: records the block and its caller.")]
        ///
        /// # Safety
        /// As for the C library's function of that name.
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> *mut c_void {
            #[cfg(target_arch = "x86_64")]
            core::arch::naked_asm!(
                concat!("mov ", $x86_reg, ", [rsp]"),
                "jmp {imp}",
                imp = sym $imp,
            );
            #[cfg(target_arch = "aarch64")]
            core::arch::naked_asm!(
                concat!("mov ", $arm_reg, ", x30"),
                "b {imp}",
                imp = sym $imp,
            );
        }
    };
}

with_return_address!(malloc(size: usize) => malloc_from, "rsi", "x1");
with_return_address!(calloc(n: usize, size: usize) => calloc_from, "rdx", "x2");
with_return_address!(realloc(p: *mut c_void, size: usize) => realloc_from, "rdx", "x2");

extern "C" fn malloc_from(size: usize, ret: u64) -> *mut c_void {
    // SAFETY: the C library's allocator, with the caller's arguments.
    let p = unsafe { __libc_malloc(size) };
    record_heap(p, size, ret);
    p
}

extern "C" fn calloc_from(n: usize, size: usize, ret: u64) -> *mut c_void {
    // SAFETY: as in `malloc_from`.
    let p = unsafe { __libc_calloc(n, size) };
    record_heap(p, n.saturating_mul(size), ret);
    p
}

extern "C" fn realloc_from(old: *mut c_void, size: usize, ret: u64) -> *mut c_void {
    // SAFETY: as in `malloc_from`.
    let p = unsafe { __libc_realloc(old, size) };
    if !p.is_null() || size == 0 {
        record_free(old);
    }
    record_heap(p, size, ret);
    p
}

/// Interposed `free`: records the end of the block.
///
/// # Safety
/// As for the C library's `free`.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    record_free(p);
    // SAFETY: the caller's pointer, for the allocator that made it.
    unsafe { __libc_free(p) };
}

/// The `operator new` variants interposed, by mangled name.
const NEW_NAMES: [&core::ffi::CStr; 2] = [c"_Znwm", c"_Znam"];
/// The real functions, resolved on first use (0: not yet).
static REAL_NEW: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

/// Stands in for a real `operator new` that cannot be found: allocates or
/// aborts.
extern "C" fn new_without_library(size: usize) -> *mut c_void {
    // SAFETY: the C library's allocator.
    let p = unsafe { __libc_malloc(size.max(1)) };
    if p.is_null() {
        // SAFETY: no way to throw from here.
        unsafe { libc::abort() };
    }
    p
}

/// Remembers the program's return address of an `operator new` for the
/// `malloc` it makes and returns the real function to jump to.
extern "C" fn prepare_new(size: usize, ret: u64, which: usize) -> usize {
    let which = which.min(NEW_NAMES.len() - 1);
    let mut real = REAL_NEW[which].load(Ordering::Relaxed);
    if real == 0 {
        // SAFETY: looking up a symbol by a NUL-terminated name.
        real = unsafe { libc::dlsym(libc::RTLD_NEXT, NEW_NAMES[which].as_ptr()) } as usize;
        if real == 0 {
            real = new_without_library as *const () as usize;
        }
        REAL_NEW[which].store(real, Ordering::Relaxed);
    }
    if me().is_some() && in_program(ret) {
        NEW_CALLER.with(|c| c.set((ret, size)));
    }
    real
}

/// Declares an interposed `operator new(size_t)` that calls
/// [`prepare_new`] (keeping its argument) and jumps to the real one, so
/// that exceptions it throws pass no frame of ours.
macro_rules! operator_new {
    ($name:ident, $which:literal) => {
        #[doc = concat!("Interposed `", stringify!($name), "` (`operator new`): remembers its caller.")]
        ///
        /// # Safety
        /// As for the C++ library's function of that name.
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name(size: usize) -> *mut c_void {
            #[cfg(target_arch = "x86_64")]
            core::arch::naked_asm!(
                "push rdi",
                "mov rsi, [rsp + 8]",
                concat!("mov edx, ", $which),
                "call {prepare}",
                "pop rdi",
                "jmp rax",
                prepare = sym prepare_new,
            );
            #[cfg(target_arch = "aarch64")]
            core::arch::naked_asm!(
                "stp x0, x30, [sp, #-16]!",
                "mov x1, x30",
                concat!("mov x2, #", $which),
                "bl {prepare}",
                "mov x16, x0",
                "ldp x0, x30, [sp], #16",
                "br x16",
                prepare = sym prepare_new,
            );
        }
    };
}

operator_new!(_Znwm, 0);
operator_new!(_Znam, 1);

/// `__reach_stack_object(site, addr, size)`: an escaping stack object of
/// the calling thread came into being.
#[no_mangle]
pub extern "C" fn __reach_stack_object(site: u64, addr: *const c_void, size: u64) {
    record(ObjectKind::Stack, addr as u64, size, site);
}
