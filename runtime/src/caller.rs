//! Where in the program an interposed call came from when the caller
//! announced no site (code not built with reach-cc): the return address
//! into the main executable, found by unwinding the runtime's own frames
//! (and a library's, for a call such as `std::thread`'s made inside
//! libstdc++). The driver resolves it through the executable's DWARF line
//! table. Interposed calls are scheduling points, never the per-access hot
//! path; unwinding reads the unwind tables and allocates nothing.

use core::ffi::{c_int, c_void};
use core::sync::atomic::{AtomicU64, Ordering};

/// Opaque unwinder context.
#[repr(C)]
struct UnwindContext {
    _opaque: [u8; 0],
}

type TraceFn = extern "C" fn(*mut UnwindContext, *mut c_void) -> c_int;

extern "C" {
    fn _Unwind_Backtrace(trace: TraceFn, arg: *mut c_void) -> c_int;
    fn _Unwind_GetIP(context: *mut UnwindContext) -> usize;
}

/// `_URC_NO_REASON`: go on unwinding.
const CONTINUE: c_int = 0;
/// `_URC_END_OF_STACK`: stop here.
const STOP: c_int = 5;
/// Frames searched at most.
const MAX_FRAMES: u32 = 24;

/// Start and end of the main executable's code (0, 0 until computed;
/// 1, 1 if there is none to find).
static TEXT: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

extern "C" fn first_object(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    _data: *mut c_void,
) -> c_int {
    // SAFETY: the loader passes a valid entry whose program headers it owns.
    let info = unsafe { &*info };
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for k in 0..usize::from(info.dlpi_phnum) {
        // SAFETY: `dlpi_phdr` holds `dlpi_phnum` headers.
        let ph = unsafe { &*info.dlpi_phdr.add(k) };
        if ph.p_type == libc::PT_LOAD && ph.p_flags & libc::PF_X != 0 {
            let start = info.dlpi_addr.wrapping_add(ph.p_vaddr);
            lo = lo.min(start);
            hi = hi.max(start.wrapping_add(ph.p_memsz));
        }
    }
    if lo < hi {
        TEXT[0].store(lo, Ordering::Relaxed);
        TEXT[1].store(hi, Ordering::Relaxed);
    } else {
        TEXT[0].store(1, Ordering::Relaxed);
        TEXT[1].store(1, Ordering::Relaxed);
    }
    // The first object is the main program: stop.
    1
}

/// The main executable's code range.
pub(crate) fn program_text() -> (u64, u64) {
    if TEXT[1].load(Ordering::Relaxed) == 0 {
        // SAFETY: the callback only reads what the loader passes it.
        unsafe { libc::dl_iterate_phdr(Some(first_object), core::ptr::null_mut()) };
    }
    (
        TEXT[0].load(Ordering::Relaxed),
        TEXT[1].load(Ordering::Relaxed),
    )
}

struct Search {
    lo: u64,
    hi: u64,
    frames: u32,
    found: u64,
}

extern "C" fn visit(context: *mut UnwindContext, arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `Search` that `program_return_address` passed.
    let search = unsafe { &mut *(arg as *mut Search) };
    // SAFETY: the unwinder passes a live context.
    let ip = unsafe { _Unwind_GetIP(context) } as u64;
    if ip > search.lo && ip <= search.hi {
        search.found = ip;
        return STOP;
    }
    search.frames += 1;
    if search.frames >= MAX_FRAMES {
        STOP
    } else {
        CONTINUE
    }
}

/// The return address into the main executable of the interposed call in
/// progress, or 0 if none is found within [`MAX_FRAMES`] frames. The
/// unwinder's own pthread calls (its one-time initialisation) go to the C
/// library uncontrolled: the calling thread counts as uncontrolled meanwhile.
pub fn program_return_address() -> u64 {
    let Some(me) = crate::current::me() else {
        return 0;
    };
    let (lo, hi) = program_text();
    if lo >= hi {
        return 0;
    }
    let mut search = Search {
        lo,
        hi,
        frames: 0,
        found: 0,
    };
    crate::current::set_me(crate::current::NONE);
    // SAFETY: `visit` reads only its context and our `Search`.
    unsafe { _Unwind_Backtrace(visit, &mut search as *mut Search as *mut c_void) };
    crate::current::set_me(me);
    search.found
}

/// [`program_return_address`] as seen from the C library's start code
/// (`__libc_start_call_main` and its callers), once found; 0 until then.
/// Stored as the address plus one, so that "none found" is kept too.
static FROM_START: AtomicU64 = AtomicU64::new(0);

/// Finds, from `main`'s caller, the return address into the program that
/// [`program_return_address`] finds from any call made by the C library's
/// start code after `main` returns (it unwinds through the same frames of
/// the start code to the same one in the program's `_start`). Called once,
/// before `main` (in a fork server, before the first fork), so that the
/// process exit after `main` returns does not unwind in every execution.
pub fn note_start_code_return_address() {
    if crate::current::me().is_none() {
        return;
    }
    let found = program_return_address();
    FROM_START.store(found.wrapping_add(1), Ordering::Relaxed);
}

/// What [`note_start_code_return_address`] found, if it ran.
pub fn start_code_return_address() -> Option<u64> {
    match FROM_START.load(Ordering::Relaxed) {
        0 => None,
        v => Some(v.wrapping_sub(1)),
    }
}

/// Takes the site announced for this interposed call; if none was (an
/// uninstrumented caller), the call's return address into the program, 0
/// if not found.
pub fn take_call_site() -> u64 {
    match crate::current::take_announced() {
        0 => program_return_address(),
        site => site,
    }
}
