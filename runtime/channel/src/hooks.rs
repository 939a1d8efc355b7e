//! The hook ABI between instrumented code and the runtime.
//!
//! The pass declares each hook as an `extern_weak` function and calls it just
//! *before* the instrumented instruction; the runtime exports each one with
//! `#[no_mangle] extern "C"`. Without the runtime preloaded the weak symbol is
//! null and the pass's guard skips the call, so instrumented binaries run
//! normally on their own (PIE executables only, as the wrappers link).
//!
//! Parameter types: [`Param::Site`] is a `u64` site id (see [`crate::sites`]),
//! [`Param::Ptr`] an address, [`Param::U64`] a size/value, [`Param::U32`] an
//! LLVM atomic ordering or a flag.

/// One parameter type of a hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// `u64` site id.
    Site,
    /// Pointer-sized address (`ptr` in IR, `*const c_void` in Rust).
    Ptr,
    /// `u64` (size, length, expected value).
    U64,
    /// `u32` (ordering, flag).
    U32,
}

/// A hook: its symbol name and parameter list (all return `void`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookSpec {
    /// Exported symbol name.
    pub name: &'static str,
    /// Parameters in order.
    pub params: &'static [Param],
}

/// `__reach_load(site, addr, size)`: before a plain load.
pub const LOAD: HookSpec = HookSpec {
    name: "__reach_load",
    params: &[Param::Site, Param::Ptr, Param::U64],
};
/// `__reach_store(site, addr, size)`: before a plain store.
pub const STORE: HookSpec = HookSpec {
    name: "__reach_store",
    params: &[Param::Site, Param::Ptr, Param::U64],
};
/// `__reach_atomic_load(site, addr, size, ordering)`.
pub const ATOMIC_LOAD: HookSpec = HookSpec {
    name: "__reach_atomic_load",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U32],
};
/// `__reach_atomic_store(site, addr, size, ordering)`.
pub const ATOMIC_STORE: HookSpec = HookSpec {
    name: "__reach_atomic_store",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U32],
};
/// `__reach_atomic_rmw(site, addr, size, ordering)`: any `atomicrmw`.
pub const ATOMIC_RMW: HookSpec = HookSpec {
    name: "__reach_atomic_rmw",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U32],
};
/// `__reach_cmpxchg(site, addr, size, expected, ordering)`: before a
/// `cmpxchg`. The runtime compares the current value at `addr` (sizes 1, 2, 4,
/// 8) with `expected` when the thread runs, to record a failed exchange as a
/// read. Sizes above 8 pass `expected = 0` and are recorded as writes.
pub const CMPXCHG: HookSpec = HookSpec {
    name: "__reach_cmpxchg",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U64, Param::U32],
};
/// `__reach_fence(site, ordering)`.
pub const FENCE: HookSpec = HookSpec {
    name: "__reach_fence",
    params: &[Param::Site, Param::U32],
};
/// `__reach_range(site, addr, len, is_write)`: `memcpy`/`memmove`/`memset`
/// (called once for the source as a read and once for the destination as a write).
pub const RANGE: HookSpec = HookSpec {
    name: "__reach_range",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U32],
};
/// `__reach_call_site(site)`: just before a call to an interposed library
/// function (pthread, semaphores, sleep...), so the runtime can attribute the
/// call to a source location. Not a scheduling point; costs a thread-local store.
pub const CALL_SITE: HookSpec = HookSpec {
    name: "__reach_call_site",
    params: &[Param::Site],
};

/// Every hook, for declaration by the pass and export checks in the runtime.
pub const ALL: &[HookSpec] = &[
    LOAD,
    STORE,
    ATOMIC_LOAD,
    ATOMIC_STORE,
    ATOMIC_RMW,
    CMPXCHG,
    FENCE,
    RANGE,
    CALL_SITE,
];

/// Name of the ELF section holding the site table (see [`crate::sites`]).
/// Its presence marks an instrumented binary.
pub const SITES_SECTION: &str = "reach_sites";
