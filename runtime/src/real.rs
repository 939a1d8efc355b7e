//! The real (next) definitions of the functions the runtime interposes,
//! looked up once with `dlsym(RTLD_NEXT, name)` and cached.
//!
//! Every lookup site registers its cache when the runtime is loaded (an
//! `.init_array` entry), so that the fork server can resolve them all
//! before its first fork ([`resolve_all`]): a lookup done in an execution
//! would be lost with it and repeated by every execution.

use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Most lookup sites the registry holds (more are resolved lazily).
const MAX_SITES: usize = 256;

static SITES: [AtomicPtr<RealFn>; MAX_SITES] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; MAX_SITES];
static SITE_COUNT: AtomicUsize = AtomicUsize::new(0);

/// Registers a lookup site (called from its load-time constructor).
pub fn register(f: &'static RealFn) {
    let i = SITE_COUNT.fetch_add(1, Ordering::Relaxed);
    if let Some(slot) = SITES.get(i) {
        slot.store(f as *const RealFn as *mut RealFn, Ordering::Relaxed);
    }
}

/// Resolves every registered lookup site now (a symbol no library
/// defines, such as C++'s `std::random_device` in a C program, is left to
/// be looked up if it is ever called).
pub fn resolve_all() {
    let n = SITE_COUNT.load(Ordering::Relaxed).min(MAX_SITES);
    for slot in &SITES[..n] {
        let p = slot.load(Ordering::Relaxed);
        if !p.is_null() {
            // SAFETY: registered pointers are to statics.
            unsafe { (*p).lookup() };
        }
    }
}

/// A lazily resolved pointer to the next definition of a symbol.
pub struct RealFn {
    name: &'static core::ffi::CStr,
    addr: AtomicUsize,
}

impl RealFn {
    /// A not yet resolved symbol `name`.
    pub const fn new(name: &'static core::ffi::CStr) -> RealFn {
        RealFn {
            name,
            addr: AtomicUsize::new(0),
        }
    }

    /// The address of the next definition, if there is one (looked up
    /// once; a missing symbol is looked up again on every call).
    pub fn lookup(&self) -> Option<usize> {
        let a = self.addr.load(Ordering::Relaxed);
        if a != 0 {
            return Some(a);
        }
        // SAFETY: `name` is NUL-terminated; RTLD_NEXT lookup has no other
        // preconditions.
        let p = unsafe { libc::dlsym(libc::RTLD_NEXT, self.name.as_ptr()) } as usize;
        if p == 0 {
            return None;
        }
        self.addr.store(p, Ordering::Relaxed);
        Some(p)
    }

    /// The address of the next definition; ends the process with a clear
    /// message if there is none (the C library always defines these).
    pub fn addr(&self) -> usize {
        if let Some(p) = self.lookup() {
            return p;
        }
        crate::sys::write_stderr(b"reach-runtime: [reach internal bug] missing libc symbol ");
        crate::sys::write_stderr(self.name.to_bytes());
        crate::sys::write_stderr(b"\n");
        crate::sys::exit_group(70)
    }
}

/// The next definition of C symbol `$sym` as a function pointer of type
/// `$ty`: `real!(c"pthread_join", unsafe extern "C" fn(...) -> c_int)`.
#[macro_export]
macro_rules! real {
    ($sym:literal, $ty:ty) => {{
        static F: $crate::real::RealFn = $crate::real::RealFn::new($sym);
        extern "C" fn register() {
            $crate::real::register(&F);
        }
        // Runs when the runtime is loaded (see the module documentation).
        #[used]
        #[link_section = ".init_array"]
        static REGISTER: extern "C" fn() = register;
        // SAFETY: every use site spells the C prototype of `$sym`.
        #[allow(unused_unsafe)]
        let f = unsafe { $crate::real::get::<$ty>(&F) };
        f
    }};
}

/// Defines interposed C function `$name` that calls `$before($cause)` and
/// then the C library's own `$sym` with the same arguments: the shape of
/// every interposer that only notes a call it does not model.
#[macro_export]
macro_rules! note_then_forward {
    ($before:path; $(#[$doc:meta])* $name:ident $sym:literal ($($a:ident: $t:ty),*) -> $r:ty, $cause:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> $r {
            $before($cause);
            // SAFETY: forwarding the caller's arguments.
            unsafe {
                $crate::real!($sym, unsafe extern "C" fn($($t),*) -> $r)($($a),*)
            }
        }
    };
}

/// Resolves `f` as a function pointer of type `T`.
///
/// # Safety
/// `T` must be the `extern "C" fn` type of the symbol.
pub unsafe fn get<T: Copy>(f: &RealFn) -> T {
    let a = f.addr();
    // SAFETY: the caller guarantees `T` is a function pointer type of the
    // symbol; function pointers are pointer-sized.
    unsafe { core::mem::transmute_copy::<usize, T>(&a) }
}

/// The calling thread's id if it is controlled; otherwise returns from the
/// enclosing interposed function by calling the C library's own `$sym` with
/// the same arguments (passive mode, ended execution, fork child,
/// uncontrolled thread): the prologue every interposed function shares.
#[macro_export]
macro_rules! controlled_or_forward {
    ($sym:literal, fn($($ty:ty),* $(,)?) $(-> $ret:ty)?, ($($arg:expr),* $(,)?)) => {
        match $crate::state::me() {
            Some(me) => me,
            // The arguments are the interposed function's own parameters.
            #[allow(clippy::macro_metavars_in_unsafe)]
            None => {
                // SAFETY: forwarding the caller's arguments to the real
                // function of the same C prototype.
                return unsafe {
                    $crate::real!($sym, unsafe extern "C" fn($($ty),*) $(-> $ret)?)($($arg),*)
                };
            }
        }
    };
}
