//! The hooks called by instrumented code (see `reach_channel::hooks`). Each
//! one except `__reach_call_site` is a scheduling point before the memory
//! access it announces, except a plain access to memory only its thread has
//! touched ([`crate::private`]).

use crate::api::mk;
use crate::awaits::HeadAction;
use crate::memory_model::read_int;
use crate::sched::{run_access, run_op};
use crate::state::{me, set_call_site, state};
use core::ffi::c_void;
use reach_channel::hooks::{RmwOp, RMW_RESULT_UNUSED};
use reach_channel::{EventFlags, OpKind};

/// The calling thread, if it is controlled and its memory accesses are
/// visible: outside every library region ([`crate::region`]), whose code
/// runs unseen between the region's touches.
#[inline]
pub(crate) fn visible_me(site: u64) -> Option<u32> {
    let me = crate::current::me_at(site)?;
    // SAFETY: a controlled thread calling into the runtime holds the right
    // to run.
    (unsafe { state() }.threads[me as usize].region.depth == 0).then_some(me)
}

#[inline]
fn access(kind: OpKind, site: u64, addr: *const c_void, size: u64) {
    if let Some(me) = visible_me(site) {
        if is_read(kind) && forwarding(me, site, addr as u64) {
            return;
        }
        // SAFETY: a controlled thread calling into the runtime holds the
        // right to run.
        if crate::private::try_private(unsafe { state() }, me, kind, addr as u64, size, site) {
            return;
        }
        run_access(me, kind, addr as u64, size, site);
    }
}

/// [`access`] for an atomic load or store of `ordering`, announced to the
/// memory model ([`crate::memory_model::announce`]) just before its
/// scheduling point.
#[inline]
fn atomic_access(kind: OpKind, site: u64, addr: *const c_void, size: u64, ordering: u32) {
    if let Some(me) = visible_me(site) {
        if is_read(kind) && forwarding(me, site, addr as u64) {
            return;
        }
        crate::memory_model::announce(me, ordering, 0);
        run_access(me, kind, addr as u64, size, site);
    }
}

/// Does `kind` only read?
#[inline]
fn is_read(kind: OpKind) -> bool {
    matches!(kind, OpKind::Load | OpKind::AtomicLoad | OpKind::RangeRead)
}

/// Does thread `me` fast-forward a bounded spin that has an operation at
/// `site` on `object` ([`crate::awaits::fast_forwards`])?
#[inline]
fn forwarding(me: u32, site: u64, object: u64) -> bool {
    crate::memory_model::restore_memory();
    // SAFETY: a controlled thread calling into the runtime holds the right
    // to run.
    crate::awaits::fast_forwards(unsafe { state() }, me, site, object)
}

/// Before a plain load of `size` bytes at `addr`.
#[no_mangle]
pub extern "C" fn __reach_load(site: u64, addr: *const c_void, size: u64) {
    access(OpKind::Load, site, addr, size);
}

/// Before a plain store of `size` bytes at `addr`.
#[no_mangle]
pub extern "C" fn __reach_store(site: u64, addr: *const c_void, size: u64) {
    access(OpKind::Store, site, addr, size);
}

/// Before a volatile (marked) load of `size` bytes at `addr`: a load with
/// [`EventFlags::VOLATILE`], never a private access (a marked access racing
/// with a plain one must be compared with it).
#[no_mangle]
pub extern "C" fn __reach_volatile_load(site: u64, addr: *const c_void, size: u64) {
    marked_access(OpKind::Load, site, addr, size);
}

/// Before a volatile (marked) store of `size` bytes at `addr`.
#[no_mangle]
pub extern "C" fn __reach_volatile_store(site: u64, addr: *const c_void, size: u64) {
    marked_access(OpKind::Store, site, addr, size);
}

/// [`access`] for a volatile access: recorded with [`EventFlags::VOLATILE`].
#[inline]
fn marked_access(kind: OpKind, site: u64, addr: *const c_void, size: u64) {
    if let Some(me) = visible_me(site) {
        if is_read(kind) && forwarding(me, site, addr as u64) {
            return;
        }
        run_op(
            me,
            mk(kind, EventFlags::VOLATILE, addr as u64, size),
            site,
            |_, _, _| (),
        );
    }
}

/// Before an atomic load.
#[no_mangle]
pub extern "C" fn __reach_atomic_load(site: u64, addr: *const c_void, size: u64, ordering: u32) {
    atomic_access(OpKind::AtomicLoad, site, addr, size, ordering);
}

/// After an atomic load whose `ordering` had
/// [`reach_channel::memory_model::ORDERING_VALUE_FOLLOWS`]: the value the
/// program uses, `native` (what the load read, zero-extended) unless the
/// memory model had the load read an older store. Not a scheduling point.
#[no_mangle]
pub extern "C" fn __reach_atomic_load_value(
    site: u64,
    _addr: *const c_void,
    _size: u64,
    native: u64,
) -> u64 {
    if !crate::memory_model::active() {
        return native;
    }
    match crate::current::me_at(site) {
        Some(me) => crate::memory_model::loaded_value(me, native),
        None => native,
    }
}

/// Before an atomic store.
#[no_mangle]
pub extern "C" fn __reach_atomic_store(site: u64, addr: *const c_void, size: u64, ordering: u32) {
    atomic_access(OpKind::AtomicStore, site, addr, size, ordering);
}

/// Before an atomic read-modify-write: `op` says which ([`RmwOp::code`]),
/// `operand` its operand when known. When the thread runs, an operation
/// that would leave memory unchanged (an exchange of the current value,
/// adding 0, ...) is recorded as one that did not change memory
/// ([`EventFlags::FAILED`]): a read. With `--commute-rmws`, one whose
/// result the program does not use ([`RMW_RESULT_UNUSED`]) and whose
/// operation has a family ([`RmwOp::family`]) is an update of that family
/// ([`EventFlags::UNUSED_RESULT`]) instead.
#[no_mangle]
pub extern "C" fn __reach_atomic_rmw(
    site: u64,
    addr: *const c_void,
    size: u64,
    ordering: u32,
    op: u32,
    operand: u64,
) {
    let Some(me) = visible_me(site) else { return };
    let a = addr as u64;
    let (rmw, known) = RmwOp::decode(op);
    if known && forwarding(me, site, a) && leaves_unchanged(rmw, a, size, operand) {
        return;
    }
    crate::memory_model::announce(me, ordering, 0);
    let flags = match rmw.family() {
        // SAFETY: read of a field set before the execution started.
        Some(family) if op & RMW_RESULT_UNUSED != 0 && unsafe { state() }.commute_rmws => {
            EventFlags::update(family)
        }
        _ => 0,
    };
    run_op(
        me,
        mk(OpKind::AtomicRmw, flags, a, size),
        site,
        |_, _, op| {
            if known && leaves_unchanged(rmw, a, size, operand) {
                op.flags.0 |= EventFlags::FAILED;
            }
        },
    );
}

/// Would `rmw` with `operand` leave the `size` bytes at `addr` as they are?
fn leaves_unchanged(rmw: RmwOp, addr: u64, size: u64, operand: u64) -> bool {
    read_int(addr, size)
        .and_then(|cur| rmw.result(cur, operand, size).map(|new| new == cur))
        .unwrap_or(false)
}

/// Before a compare-and-exchange: compared with `expected` when the thread
/// runs; a mismatch is recorded as a failed exchange (a read).
#[no_mangle]
pub extern "C" fn __reach_cmpxchg(
    site: u64,
    addr: *const c_void,
    size: u64,
    expected: u64,
    ordering: u32,
) {
    let Some(me) = visible_me(site) else { return };
    let a = addr as u64;
    let mask = if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    };
    let fails = || read_int(a, size).is_some_and(|cur| cur != expected & mask);
    if forwarding(me, site, a) && fails() {
        return;
    }
    crate::memory_model::announce(me, ordering, expected);
    run_op(me, mk(OpKind::CmpXchg, 0, a, size), site, |_, _, op| {
        if fails() {
            op.flags.0 |= EventFlags::FAILED;
        }
    });
}

/// Before a fence.
#[no_mangle]
pub extern "C" fn __reach_fence(site: u64, ordering: u32) {
    if let Some(me) = visible_me(site) {
        crate::memory_model::announce(me, ordering, 0);
        let object = crate::memory_model::fence_object(ordering);
        run_access(me, OpKind::Fence, object, u64::from(ordering & 0xff), site);
    }
}

/// Before a ranged access (`memcpy` source/destination, `memset`...).
#[no_mangle]
pub extern "C" fn __reach_range(site: u64, addr: *const c_void, len: u64, is_write: u32) {
    if len == 0 {
        return;
    }
    let kind = if is_write != 0 {
        OpKind::RangeWrite
    } else {
        OpKind::RangeRead
    };
    access(kind, site, addr, len);
}

/// A spin-wait hint (`pause`): the thread busy-waits. Not a scheduling
/// point and no event; see [`crate::spin::hint`].
#[no_mangle]
pub extern "C" fn __reach_spin_hint(_site: u64) {
    if let Some(me) = me() {
        // SAFETY: a controlled thread calling into the runtime holds the
        // right to run.
        let st = unsafe { state() };
        crate::spin::hint(st, me);
    }
}

/// At the head of an await-candidate loop (see [`crate::awaits`]): if the
/// iteration that just ended did nothing, the thread awaits a change
/// (parked at [`OpKind::Await`]) and, once released, runs the iteration
/// again. Not a scheduling point otherwise.
///
/// A trampoline that adds the caller's stack pointer (its frame's lower
/// end: what lies below belongs to the frames of the functions it calls)
/// as the last argument of [`loop_head_in`]. `back` is 1 over a back edge;
/// its higher bits give the size of `slot` (see the pass's `LOOP_HEAD`).
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn __reach_loop_head(site: u64, state_hash: u64, local: u64, back: u32, slot: u64) {
    // On entry the return address is at the stack pointer: the caller's
    // stack pointer before the call is 8 above it.
    #[cfg(target_arch = "x86_64")]
    core::arch::naked_asm!("lea r9, [rsp + 8]", "jmp {inner}", inner = sym loop_head_in);
    // A branch-and-link leaves the stack pointer as the caller had it.
    #[cfg(target_arch = "aarch64")]
    core::arch::naked_asm!("mov x5, sp", "b {inner}", inner = sym loop_head_in);
}

/// [`__reach_loop_head`] of a loop whose function's stack pointer is
/// `frame`.
extern "C" fn loop_head_in(
    site: u64,
    state_hash: u64,
    local: u64,
    back: u32,
    slot: u64,
    frame: u64,
) {
    let Some(me) = visible_me(site) else { return };
    // SAFETY: a controlled thread calling into the runtime holds the
    // right to run.
    let st = unsafe { state() };
    let head = crate::awaits::Head {
        site,
        frame,
        state: state_hash,
        local,
        back: back & 1 != 0,
        slot,
        slot_len: if slot == 0 { 0 } else { u64::from(back >> 1) },
    };
    match crate::awaits::loop_head(st, me, head) {
        None => {}
        Some(HeadAction::Await(op)) => {
            crate::awaits::start_waiting(st, me);
            run_op(me, op, site, |_, _, _| ());
            // SAFETY: released and chosen to run again.
            crate::awaits::resumed(unsafe { state() }, me);
        }
        Some(HeadAction::FastForward(read)) => {
            run_op(me, read, site, |_, _, _| ());
            // SAFETY: chosen to run; the read was recorded.
            crate::awaits::start_forwarding(unsafe { state() }, me, read.object);
        }
    }
}

/// Before an instruction whose result differs from run to run (`rdtsc`,
/// `rdrand`...): notes the source (a `reach_channel::sources::Source`
/// number) with its site. Not a scheduling point.
#[no_mangle]
pub extern "C" fn __reach_source(site: u64, source: u32) {
    if crate::current::MODE.load(core::sync::atomic::Ordering::Relaxed)
        == crate::current::MODE_ACTIVE
    {
        if let Some(source) = reach_channel::sources::Source::from_u32(source) {
            crate::seen::note(source, site);
        }
    }
}

/// Announces the site of the next interposed library call.
#[no_mangle]
pub extern "C" fn __reach_call_site(site: u64) {
    set_call_site(site);
}

/// Registers the program's word of its calls into the standard library
/// (the calling, main thread's address of it).
#[no_mangle]
pub extern "C" fn __reach_library_word(word: *mut u64) {
    crate::current::register_library_word(word);
}
