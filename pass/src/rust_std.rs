//! Which code of a Rust program's standard library is instrumented.
//!
//! `reach-rustc` links through fat LTO, so the module holds the user's
//! crates and the precompiled standard library (`std`, `core`, `alloc` and
//! their dependencies) together. A function belongs to the crate of its
//! debug-info compile unit: generic and `#[inline]` code instantiated in a
//! user crate is the user's (and fully instrumented); code compiled with the
//! toolchain (compile-unit directory `/rustc/<commit>` or `/rust/deps/...`)
//! is instrumented only where it implements synchronisation, so that every
//! write to a lock, condition variable, once or parker word is a visible
//! operation:
//!
//! ```text
//! library/std/src/sys/sync/...     futex mutex, condvar, rwlock, once, thread parker
//! library/std/src/sync/...         Once, OnceLock, Barrier, mpsc/mpmc channels, poison
//! library/std/src/thread/scoped.rs thread::scope's running-thread count
//! ```
//!
//! Inside those, the bounded read-only spin loops (`spin`, `spin_until`,
//! `spin_read`, `spin_write`) stay invisible: their loads change nothing, and
//! as visible re-reads the runtime would hold the thread back as a spinner
//! (a livelock) where the program goes on to wait on the futex (a deadlock).
//! Formatting, I/O, allocation and panicking in the library stay native.
//! The channels' backoff (`Backoff::spin_light` / `spin_heavy`) stays
//! invisible in every crate: only its step counter would be seen, as
//! progress that keeps a waiting receiver from ever counting as a spinner.

use crate::debuginfo::subprogram_name;
use crate::llvm::{self, Value};
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMContextRef, LLVMMetadataRef};
use reach_channel::models::{Model, MODELS};
use std::collections::HashMap;

/// Where a function's code comes from, for instrumentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The program's own code (or code without debug info): instrumented.
    User,
    /// Toolchain library code that implements synchronisation: instrumented
    /// except its spin loops.
    LibrarySync,
    /// Other toolchain library code: not instrumented.
    Library,
}

/// Source paths of the toolchain library whose functions are instrumented.
pub const SYNC_PATHS: &[&str] = &[
    "/library/std/src/sys/sync/",
    "/library/std/src/sync/",
    "/library/std/src/thread/scoped.rs",
];

/// True for a compile-unit directory of the precompiled toolchain libraries
/// (paths remapped by the toolchain's build).
pub fn is_toolchain_dir(dir: &str) -> bool {
    dir.starts_with("/rustc/") || dir.starts_with("/rust/deps/")
}

fn file_of(scope: LLVMMetadataRef) -> (String, String) {
    // SAFETY: `scope` is a DIScope; its file (if any) is a DIFile.
    unsafe {
        let file = di::LLVMDIScopeGetFile(scope);
        if file.is_null() {
            return (String::new(), String::new());
        }
        let mut n = 0u32;
        let name = llvm::lstr(di::LLVMDIFileGetFilename(file, &mut n), n as usize);
        let mut d = 0u32;
        let dir = llvm::lstr(di::LLVMDIFileGetDirectory(file, &mut d), d as usize);
        (dir, name)
    }
}

/// True if the module of function `f` holds a toolchain compile unit.
fn has_toolchain_unit(f: Value) -> bool {
    // SAFETY: `f` is a function of a live module; `llvm.dbg.cu` holds compile units.
    unsafe {
        let module = c::LLVMGetGlobalParent(f);
        let name = c"llvm.dbg.cu";
        let n = c::LLVMGetNamedMetadataNumOperands(module, name.as_ptr()) as usize;
        if n == 0 {
            return false;
        }
        let mut units: Vec<Value> = vec![std::ptr::null_mut(); n];
        c::LLVMGetNamedMetadataOperands(module, name.as_ptr(), units.as_mut_ptr());
        units
            .iter()
            .filter(|u| !u.is_null())
            .any(|u| is_toolchain_dir(&file_of(c::LLVMValueAsMetadata(*u)).0))
    }
}

/// The scope of function `f` (a definition).
pub(crate) fn function_scope(ctx: LLVMContextRef, f: Value) -> Scope {
    // SAFETY: `f` is a function of the module.
    let sp = unsafe { di::LLVMGetSubprogram(f) };
    if sp.is_null() {
        // `reach-rustc` compiles the user's crates with debug info, so code
        // without it in a module that holds the library came with the library.
        return if has_toolchain_unit(f) {
            Scope::Library
        } else {
            Scope::User
        };
    }
    // DISubprogram operands: file, scope, name, linkageName, type, unit, ...
    // SAFETY: `sp` is a DISubprogram node.
    let unit = unsafe {
        let v = c::LLVMMetadataAsValue(ctx, sp);
        let n = c::LLVMGetMDNodeNumOperands(v) as usize;
        if n <= 5 {
            return Scope::User;
        }
        let mut ops: Vec<Value> = vec![std::ptr::null_mut(); n];
        c::LLVMGetMDNodeOperands(v, ops.as_mut_ptr());
        if ops[5].is_null() {
            return Scope::User;
        }
        c::LLVMValueAsMetadata(ops[5])
    };
    // SAFETY: the unit operand is metadata.
    let kind = unsafe { di::LLVMGetMetadataKind(unit) };
    if !matches!(kind, di::LLVMMetadataKind::LLVMDICompileUnitMetadataKind) {
        return Scope::User;
    }
    let (unit_dir, _) = file_of(unit);
    if !is_toolchain_dir(&unit_dir) {
        return Scope::User;
    }
    let (dir, name) = file_of(sp);
    let path = crate::debuginfo::join(&dir, &name);
    if SYNC_PATHS.iter().any(|p| path.contains(p)) {
        Scope::LibrarySync
    } else {
        Scope::Library
    }
}

/// Source directory of std's channels (`std::sync::mpmc`).
pub const CHANNEL_PATH: &str = "/library/std/src/sync/mpmc/";

/// The part a function plays in std's channels, a library region (see the
/// runtime's `region` module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelRole {
    /// Not channel code (or channel code inlined where no region method
    /// brackets it): instrumented as its scope says.
    Outside,
    /// Channel code: no memory access is instrumented.
    Hidden,
    /// A method of a channel flavour (`list`, `array`, `zero`): hidden, and
    /// bracketed by region entry and exit hooks on its `self`.
    Method,
}

/// True for the demangled name of a method of one of std's channel
/// flavours (`std::sync::mpmc::list::Channel<T>::send`), not a closure in
/// one and not a trait method (`Drop`).
pub fn is_channel_method(name: &str) -> bool {
    let Some(at) = [
        "mpmc::list::Channel<",
        "mpmc::array::Channel<",
        "mpmc::zero::Channel<",
    ]
    .iter()
    .find_map(|flavour| name.find(flavour)) else {
        return false;
    };
    let rest = &name[at..];
    let Some((_, method)) = rest.rsplit_once("::") else {
        return false;
    };
    !rest.contains(" as ")
        && !method.is_empty()
        && method
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Environment variable that, set to `0`, instruments std's channels
/// access by access instead of as a library region (for comparison:
/// `scripts/bench-rust.sh`).
pub const CHANNEL_REGIONS_ENV: &str = "REACH_CHANNEL_REGIONS";

/// Are std's channels a library region (the default)?
fn channel_regions_enabled() -> bool {
    std::env::var_os(CHANNEL_REGIONS_ENV).is_none_or(|v| v != "0")
}

/// Are std's channels a library region in a module whose `instrumented`
/// functions are these? Not when the code of a channel method was inlined
/// into one of them that is not channel code (an
/// optimised build inlines `array::Channel::recv` into the program's
/// code): that code is instrumented, since no region brackets it, and a
/// region elsewhere would hide accesses to the same channel that it makes
/// visible (a waker's mutex taken unseen and then waited for seen: a false
/// deadlock, and orders the search asks for that the program cannot take).
/// Every channel function of such a module is then instrumented access by
/// access, the backoff's counting aside.
pub(crate) fn channel_regions(
    ctx: LLVMContextRef,
    instrumented: impl IntoIterator<Item = Value>,
) -> bool {
    if !channel_regions_enabled() {
        return false;
    }
    let mut method_scope: HashMap<LLVMMetadataRef, bool> = HashMap::new();
    let mut is_method = |scope: LLVMMetadataRef| {
        *method_scope
            .entry(scope)
            .or_insert_with(|| is_channel_method(&subprogram_name(ctx, scope)))
    };
    for f in instrumented {
        // SAFETY: `f` is a function of the module.
        let sp = unsafe { di::LLVMGetSubprogram(f) };
        if !sp.is_null() && !in_channel_path(sp) {
            for inst in llvm::instructions(f) {
                if inline_scopes(inst).any(&mut is_method) {
                    return false;
                }
            }
        }
    }
    true
}

/// Is subprogram `sp` defined in the source of std's channels?
fn in_channel_path(sp: LLVMMetadataRef) -> bool {
    let (dir, name) = file_of(sp);
    let path = crate::debuginfo::join(&dir, &name);
    is_toolchain_dir(&path) && path.contains(CHANNEL_PATH)
}

/// The role of function `f` (a definition) in std's channels; `regions`
/// says whether the channels are a library region in its module
/// ([`channel_regions`]). Channel code that holds an inlined channel
/// method stays [`ChannelRole::Outside`]: hidden without its region hooks,
/// the method's accesses would be ordered by nothing.
pub(crate) fn channel_role(ctx: LLVMContextRef, f: Value, regions: bool) -> ChannelRole {
    if !regions {
        return ChannelRole::Outside;
    }
    // SAFETY: `f` is a function of the module.
    let sp = unsafe { di::LLVMGetSubprogram(f) };
    if sp.is_null() {
        return ChannelRole::Outside;
    }
    if !in_channel_path(sp) {
        return ChannelRole::Outside;
    }
    if is_channel_method(&subprogram_name(ctx, sp)) {
        return ChannelRole::Method;
    }
    if llvm::instructions(f).any(|inst| inlined_from(ctx, inst, is_channel_method)) {
        ChannelRole::Outside
    } else {
        ChannelRole::Hidden
    }
}

/// The runtime's model of function `f` (a definition), if `f` is one of
/// the library functions the runtime models
/// ([`reach_channel::models::MODELS`]: the slow paths of std's futex
/// locks and of `parking_lot`'s mutex).
pub(crate) fn model_of(ctx: LLVMContextRef, f: Value) -> Option<&'static Model> {
    // SAFETY: `f` is a function of the module.
    let sp = unsafe { di::LLVMGetSubprogram(f) };
    if sp.is_null() {
        return None;
    }
    let (dir, name) = file_of(sp);
    let path = crate::debuginfo::join(&dir, &name);
    let toolchain = is_toolchain_dir(&path);
    let mut models = MODELS
        .iter()
        .filter(|m| m.toolchain == toolchain && path.ends_with(m.file))
        .peekable();
    models.peek()?;
    let name = subprogram_name(ctx, sp);
    models.find(|m| name.contains(m.owner) && name.ends_with(m.method))
}

/// True if `inst` comes from one of the library's spin loops: a function
/// of its debug location (the innermost one or one it was inlined into,
/// within the function being instrumented) is a spin function.
pub(crate) fn in_spin_loop(ctx: LLVMContextRef, inst: Value) -> bool {
    inlined_from(ctx, inst, |name| {
        let last = name.rsplit("::").next().unwrap_or("");
        matches!(last, "spin" | "spin_until" | "spin_read" | "spin_write")
    })
}

/// True if `inst` belongs to the backoff of std's channels
/// (`std::sync::mpmc::utils::Backoff::spin_light` / `spin_heavy`), in any
/// crate (the channels are generic, so their code is usually the user's).
/// The backoff's step counter is a write to the thread's own stack on every
/// round: visible, it would count as progress, and a receiver waiting for a
/// sender's slot write would never be held back as a spinner. Without it the
/// waiting loop's visible operations are its re-read of the slot (or packet)
/// state and the backoff's `sched_yield`.
pub(crate) fn in_channel_backoff(ctx: LLVMContextRef, inst: Value) -> bool {
    inlined_from(ctx, inst, |name| {
        name.contains("mpmc::utils::Backoff::spin")
    })
}

/// Source paths of the toolchain's synchronisation code that is
/// instrumented even where it is inlined into other library code: the
/// thread parker. `Thread::unpark` is inlined into the program's code and
/// seen there, so `Thread::park` (in `std::thread`, which holds the
/// parker's `fetch_sub` inlined) must be seen too, or the two race
/// unseen. The library's other locks (stdout's, the thread-info lock of
/// the stack-overflow handler) are taken and released within library code
/// and stay unseen on both sides.
pub const INLINED_SYNC_PATHS: &[&str] = &["/library/std/src/sys/sync/thread_parking/"];

/// Is debug scope `scope` (a subprogram or a block in one) in
/// [`INLINED_SYNC_PATHS`]?
fn in_inlined_sync_path(scope: LLVMMetadataRef) -> bool {
    let (dir, name) = file_of(scope);
    let path = crate::debuginfo::join(&dir, &name);
    is_toolchain_dir(&path) && INLINED_SYNC_PATHS.iter().any(|p| path.contains(p))
}

/// True if a frame of `inst`'s debug location (the innermost one or one it
/// was inlined into) lies in [`INLINED_SYNC_PATHS`].
pub(crate) fn in_sync_code(inst: Value) -> bool {
    inline_scopes(inst).any(in_inlined_sync_path)
}

/// True if library function `f` ([`Scope::Library`]) holds code of
/// [`INLINED_SYNC_PATHS`] inlined, which is then instrumented there
/// ([`in_sync_code`]).
pub(crate) fn holds_sync_code(f: Value) -> bool {
    llvm::instructions(f).any(in_sync_code)
}

/// True if a function of `inst`'s debug location (the innermost one or one
/// it was inlined into, within the function being instrumented) satisfies
/// `pred` by its demangled name.
fn inlined_from(ctx: LLVMContextRef, inst: Value, pred: impl Fn(&str) -> bool) -> bool {
    inline_scopes(inst).any(|scope| pred(&subprogram_name(ctx, scope)))
}

/// The debug scopes of `inst`'s location, innermost first, then each one it
/// was inlined into (at most 64).
fn inline_scopes(inst: Value) -> impl Iterator<Item = LLVMMetadataRef> {
    let first = llvm::debug_loc(inst);
    std::iter::successors((!first.is_null()).then_some(first), |&loc| {
        // SAFETY: `loc` is a DILocation; inlinedAt is a DILocation or null.
        let at = unsafe { di::LLVMDILocationGetInlinedAt(loc) };
        (!at.is_null()).then_some(at)
    })
    .take(64)
    // SAFETY: each item is a DILocation.
    .map(|loc| unsafe { di::LLVMDILocationGetScope(loc) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_methods_are_named_methods_of_a_flavour() {
        assert!(is_channel_method("std::sync::mpmc::list::Channel<T>::send"));
        assert!(is_channel_method(
            "<std::sync::mpmc::zero::Channel<u32>>::recv"
        ));
        assert!(is_channel_method(
            "std::sync::mpmc::array::Channel<T>::try_recv"
        ));
        assert!(!is_channel_method(
            "std::sync::mpmc::list::Channel<T>::recv::{{closure}}"
        ));
        assert!(!is_channel_method(
            "<std::sync::mpmc::list::Channel<T> as core::ops::drop::Drop>::drop"
        ));
        assert!(!is_channel_method("std::sync::mpmc::Sender<T>::send"));
        assert!(!is_channel_method(
            "std::sync::mpmc::context::Context::with"
        ));
    }
}
