//! Concolic execution, runtime side: the input API (`reach_input_int`,
//! `reach_input_bytes`, `reach_assume`), the expression builders the pass's
//! shadow computations call (`__reach_sym_*`), shadow memory, and the path
//! constraints, all written into the channel's symbolic region
//! ([`reach_channel::symbolic`]).
//!
//! The runtime needs no solver: it appends expression nodes (each one an
//! operation on earlier nodes) and path constraints (site, condition node,
//! outcome, trace position) to the region, and the driver rebuilds solver
//! terms from them (Saarikivi et al., Sec. III: a visible operation's
//! "concolic subtree" is the branches its thread takes until its next
//! visible operation; the record's `step` places each branch there).
//!
//! Costs: instrumented code calls a builder only when an operand's shadow
//! is non-zero, and touches shadow memory only once [`__reach_sym_active`]
//! is set (the first input was created). Shadow memory is a fixed
//! open-addressing table keyed by byte address, mapped once when the first
//! symbolic byte is stored; beyond that nothing here allocates or makes a
//! system call. A full node array, constraint
//! array or shadow table marks the execution as overflowed (reported by the
//! driver) and the rest of it runs concretely.

use crate::state::{me, state};
use core::cell::Cell;
use core::ffi::{c_char, c_void};
use core::sync::atomic::{AtomicU32, Ordering};
use reach_channel::symbolic::{
    sym_branches_offset, sym_nodes_offset, BranchKind, BranchRecord, InputKind, InputSlot,
    SymHeader, SymNode, SymOp, SYM_BRANCH_CAPACITY, SYM_CONCRETISED, SYM_MAX_INPUTS,
    SYM_MAX_INPUT_BYTES, SYM_NODE_CAPACITY, SYM_OVERFLOW_BRANCHES, SYM_OVERFLOW_INPUTS,
    SYM_OVERFLOW_NODES, SYM_REQ_ARGS, SYM_REQ_SHARED, SYM_REQ_STDIN,
};
use reach_channel::OpKind;

/// Non-zero once the execution has symbolic data: instrumented loads and
/// stores consult shadow memory only then. Read by instrumented code
/// (declared `extern_weak` by the pass).
#[no_mangle]
pub static __reach_sym_active: AtomicU32 = AtomicU32::new(0);

/// Set for an execution run with [`SYM_REQ_SHARED`]: shared loads give
/// [`SymOp::SharedRead`] nodes and stores of computed values record
/// [`BranchKind::Definition`]s.
static SHARED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

thread_local! {
    /// Node of the last input the calling thread created.
    static LAST_INPUT: Cell<u32> = const { Cell::new(0) };
}

/// Shadow table size (entries, a power of two): one entry per symbolic byte.
const SHADOW_SLOTS: usize = 1 << 16;
/// Most live entries before the table counts as full.
const SHADOW_LIMIT: usize = SHADOW_SLOTS / 4 * 3;

/// One shadow entry: the byte at `addr` is byte `byte` of node `node`
/// (`node == 0` with a non-zero `addr`: a deleted entry).
#[derive(Clone, Copy)]
struct Shadow {
    addr: u64,
    node: u32,
    byte: u32,
}

struct Sym {
    /// Entries with a node (live).
    live: usize,
    /// Entries with an address (live or deleted).
    used: usize,
    /// `SHADOW_SLOTS` entries, mapped when the first symbolic byte is
    /// stored (null before): a static table would be memory that every
    /// persistent execution of every program walks and restores.
    table: *mut Shadow,
    /// Bytes of stdin handed out so far.
    stdin_pos: usize,
    /// Index of the stdin input, if any.
    stdin_input: Option<usize>,
}

struct Global(core::cell::UnsafeCell<Sym>);
// SAFETY: only the thread holding the right to run touches it.
unsafe impl Sync for Global {}

static SYM: Global = Global(core::cell::UnsafeCell::new(Sym {
    live: 0,
    used: 0,
    table: core::ptr::null_mut(),
    stdin_pos: 0,
    stdin_input: None,
}));

/// `argv` as the C library passed it to the runtime's constructor.
static ARGC: AtomicU32 = AtomicU32::new(0);
static ARGV: core::sync::atomic::AtomicPtr<*mut c_char> =
    core::sync::atomic::AtomicPtr::new(core::ptr::null_mut());

extern "C" fn remember_args(argc: i32, argv: *mut *mut c_char, _env: *mut *mut c_char) {
    ARGC.store(argc.max(0) as u32, Ordering::Relaxed);
    ARGV.store(argv, Ordering::Relaxed);
}

#[used]
#[link_section = ".init_array"]
static REMEMBER_ARGS: extern "C" fn(i32, *mut *mut c_char, *mut *mut c_char) = remember_args;

/// The private state.
///
/// # Safety
/// Only the thread that holds the right to run (or start-up) may call it.
unsafe fn sym() -> &'static mut Sym {
    // SAFETY: see the contract.
    unsafe { &mut *SYM.0.get() }
}

/// The channel's symbolic header, if attached.
fn header() -> Option<*mut SymHeader> {
    // SAFETY: reading the channel pointer; only the running thread calls this.
    let base = unsafe { state() }.chan.sym();
    (!base.is_null()).then_some(base as *mut SymHeader)
}

/// True when the calling thread is controlled and the channel is attached.
fn on() -> Option<*mut SymHeader> {
    me()?;
    header()
}

/// Resets the symbolic state for a new execution and makes `argv` and
/// stdin symbolic if the request asks for it. Called where the request is
/// read, before `main`.
pub fn start_execution() {
    // SAFETY: start-up / a fresh child: single-threaded.
    let s = unsafe { sym() };
    if s.used > 0 {
        if let Some(table) = table_of(s) {
            table.fill(Shadow {
                addr: 0,
                node: 0,
                byte: 0,
            });
        }
    }
    s.live = 0;
    s.used = 0;
    s.stdin_pos = 0;
    s.stdin_input = None;
    __reach_sym_active.store(0, Ordering::Relaxed);
    LAST_INPUT.with(|c| c.set(0));
    SHARED.store(false, Ordering::Relaxed);
    let Some(h) = header() else { return };
    // SAFETY: the header is inside the mapping; the driver wrote the request.
    let (flags, stdin_bytes) = unsafe {
        (*h).input_count = 0;
        (*h).node_count = 0;
        (*h).branch_count = 0;
        (*h).overflow = 0;
        ((*h).flags, (*h).stdin_bytes as usize)
    };
    if flags & SYM_REQ_SHARED != 0 {
        SHARED.store(true, Ordering::Relaxed);
        __reach_sym_active.store(1, Ordering::Relaxed);
    }
    if flags & SYM_REQ_ARGS != 0 {
        let argc = ARGC.load(Ordering::Relaxed) as usize;
        let argv = ARGV.load(Ordering::Relaxed);
        for i in 1..argc {
            if argv.is_null() {
                break;
            }
            // SAFETY: argv has argc valid NUL-terminated strings.
            let arg = unsafe { *argv.add(i) } as *mut u8;
            if arg.is_null() {
                continue;
            }
            // SAFETY: as above.
            let len = unsafe { libc::strlen(arg as *const c_char) }.min(SYM_MAX_INPUT_BYTES);
            let mut name = [0u8; 16];
            let n = fmt_arg_name(&mut name, i);
            // SAFETY: the string has `len` bytes we may overwrite.
            let buf = unsafe { core::slice::from_raw_parts_mut(arg, len) };
            new_bytes_input(&name[..n], buf, 0);
        }
    }
    if flags & SYM_REQ_STDIN != 0 && stdin_bytes > 0 {
        let len = stdin_bytes.min(SYM_MAX_INPUT_BYTES);
        let mut scratch = [0u8; SYM_MAX_INPUT_BYTES];
        if let Some(i) = new_bytes_input(b"stdin", &mut scratch[..len], 0) {
            s.stdin_input = Some(i);
        }
    }
}

fn fmt_arg_name(out: &mut [u8; 16], i: usize) -> usize {
    let prefix = b"argv[";
    out[..5].copy_from_slice(prefix);
    let mut n = 5;
    let mut digits = [0u8; 10];
    let mut d = 0;
    let mut v = i;
    loop {
        digits[d] = b'0' + (v % 10) as u8;
        d += 1;
        v /= 10;
        if v == 0 || d == digits.len() {
            break;
        }
    }
    while d > 0 && n < 15 {
        d -= 1;
        out[n] = digits[d];
        n += 1;
    }
    out[n] = b']';
    n + 1
}

/// Appends a node; 0 (concrete from here on) if the array is full.
fn push_node(h: *mut SymHeader, node: SymNode) -> u32 {
    // SAFETY: the header and node array are inside the mapping.
    unsafe {
        let n = (*h).node_count as usize;
        if n >= SYM_NODE_CAPACITY {
            (*h).overflow |= SYM_OVERFLOW_NODES;
            return 0;
        }
        let nodes = (h as *mut u8).add(sym_nodes_offset()) as *mut SymNode;
        nodes.add(n).write(node);
        (*h).node_count = n as u32 + 1;
        n as u32 + 1
    }
}

/// Width of node `id` (0 for an invalid id).
fn width_of(h: *mut SymHeader, id: u32) -> u32 {
    if id == 0 {
        return 0;
    }
    // SAFETY: as in `push_node`; ids come from `push_node`.
    unsafe {
        if id > (*h).node_count {
            return 0;
        }
        let nodes = (h as *mut u8).add(sym_nodes_offset()) as *const SymNode;
        u32::from((*nodes.add(id as usize - 1)).width)
    }
}

fn node(op: SymOp, width: u32, a: u32, b: u32, c: u32, imm: u64) -> SymNode {
    SymNode {
        op: op as u16,
        width: width as u16,
        a,
        b,
        c,
        imm,
    }
}

fn konst(h: *mut SymHeader, width: u32, value: u64) -> u32 {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    push_node(h, node(SymOp::Const, width, 0, 0, 0, value & mask))
}

/// `s` if symbolic, else a constant node of `value`.
fn operand(h: *mut SymHeader, s: u32, width: u32, value: u64) -> u32 {
    if s != 0 {
        s
    } else {
        konst(h, width, value)
    }
}

/// Appends a path constraint at the current trace position.
fn push_branch(h: *mut SymHeader, kind: BranchKind, site: u64, expr: u32, taken: bool) {
    // SAFETY: the running thread owns the state.
    let step = unsafe { state().event_count.min(state().record_steps) };
    push_record(h, kind, site, expr, taken, step);
}

/// Appends a record of the region's branch array.
fn push_record(h: *mut SymHeader, kind: BranchKind, site: u64, expr: u32, taken: bool, step: u64) {
    if expr == 0 {
        return;
    }
    let Some(thread) = me() else { return };
    // SAFETY: as in `push_node`; the running thread owns the state.
    unsafe {
        let n = (*h).branch_count as usize;
        if n >= SYM_BRANCH_CAPACITY {
            (*h).overflow |= SYM_OVERFLOW_BRANCHES;
            return;
        }
        let recs = (h as *mut u8).add(sym_branches_offset()) as *mut BranchRecord;
        recs.add(n).write(BranchRecord {
            thread,
            kind: kind as u16,
            taken: u16::from(taken),
            site,
            expr,
            _reserved: 0,
            step,
        });
        (*h).branch_count = n as u32 + 1;
    }
}

/// Creates an input: finds the driver's value by name and occurrence,
/// writes it to `buf` (the default stays where none was given) and records
/// the input. Returns its index.
fn new_input(
    h: *mut SymHeader,
    name: &[u8],
    kind: InputKind,
    buf: &mut [u8],
    lo: i64,
    hi: i64,
) -> Option<(usize, u32)> {
    // SAFETY: header fields inside the mapping; the running thread owns them.
    unsafe {
        let count = (*h).input_count as usize;
        if count >= SYM_MAX_INPUTS {
            (*h).overflow |= SYM_OVERFLOW_INPUTS;
            return None;
        }
        let name = &name[..name.len().min(reach_channel::symbolic::SYM_NAME_BYTES)];
        let occurrence = (0..count)
            .filter(|&i| (*h).inputs[i].name_bytes() == name)
            .count() as u32;
        let given = ((*h).given_count as usize).min(SYM_MAX_INPUTS);
        for i in 0..given {
            let g = &(*h).given[i];
            if g.name_bytes() == name && g.occurrence == occurrence {
                let n = buf.len().min(SYM_MAX_INPUT_BYTES);
                buf[..n].copy_from_slice(&g.bytes[..n]);
            }
        }
        let mut slot = InputSlot::EMPTY;
        slot.set_name(name);
        slot.len = buf.len() as u32;
        slot.kind = kind as u32;
        slot.occurrence = occurrence;
        slot.lo = lo;
        slot.hi = hi;
        slot.thread = me().unwrap_or(0);
        slot.bytes[..buf.len()].copy_from_slice(buf);
        let id = push_node(
            h,
            node(SymOp::Input, buf.len() as u32 * 8, 0, 0, 0, count as u64),
        );
        slot.node = id;
        (*h).inputs[count] = slot;
        (*h).input_count = count as u32 + 1;
        if id != 0 {
            __reach_sym_active.store(1, Ordering::Relaxed);
        }
        Some((count, id))
    }
}

/// A bytes input over `buf` (`len <= SYM_MAX_INPUT_BYTES`), its bytes
/// marked symbolic in shadow memory.
fn new_bytes_input(name: &[u8], buf: &mut [u8], _site: u64) -> Option<usize> {
    let h = header()?;
    let (index, id) = new_input(h, name, InputKind::Bytes, buf, 0, 0)?;
    if id != 0 {
        for i in 0..buf.len() {
            shadow_set(buf.as_ptr() as u64 + i as u64, id, i as u32);
        }
    }
    Some(index)
}

fn name_of(name: *const c_char) -> &'static [u8] {
    if name.is_null() {
        return b"input";
    }
    // SAFETY: the program passes a NUL-terminated string.
    unsafe { core::ffi::CStr::from_ptr(name) }.to_bytes()
}

/// An integer input in `lo..=hi` (`hi < lo`: the full `int` range). Its
/// value comes from the driver (default: 0 clamped to the range); without
/// the driver it is that default.
///
/// # Safety
/// `name` is NUL-terminated or null.
#[no_mangle]
pub unsafe extern "C" fn __reach_input_int(name: *const c_char, lo: i32, hi: i32) -> i32 {
    let (lo, hi) = if hi < lo {
        (i32::MIN, i32::MAX)
    } else {
        (lo, hi)
    };
    let default = 0i32.clamp(lo, hi);
    let Some(h) = on() else { return default };
    let mut bytes = default.to_le_bytes();
    let Some((_, id)) = new_input(
        h,
        name_of(name),
        InputKind::Int,
        &mut bytes,
        i64::from(lo),
        i64::from(hi),
    ) else {
        return default;
    };
    let value = i32::from_le_bytes(bytes);
    let clamped = value.clamp(lo, hi);
    LAST_INPUT.with(|c| c.set(id));
    if id != 0 {
        if lo != i32::MIN {
            let bound = konst(h, 32, lo as u32 as u64);
            let c = push_node(h, node(SymOp::Sge, 1, id, bound, 0, 0));
            push_branch(h, BranchKind::Pinned, 0, c, true);
        }
        if hi != i32::MAX {
            let bound = konst(h, 32, hi as u32 as u64);
            let c = push_node(h, node(SymOp::Sle, 1, id, bound, 0, 0));
            push_branch(h, BranchKind::Pinned, 0, c, true);
        }
        if clamped != value {
            // The driver's value was out of range (it never asks for one).
            // SAFETY: header field.
            unsafe { (*h).overflow |= SYM_CONCRETISED };
        }
    }
    clamped
}

/// Fills `buf` with `len` input bytes named `name` (default: zero bytes;
/// at most 64 bytes are symbolic, the rest are zero).
///
/// # Safety
/// `buf` is valid for `len` bytes; `name` is NUL-terminated or null.
#[no_mangle]
pub unsafe extern "C" fn __reach_input_bytes(buf: *mut c_void, len: usize, name: *const c_char) {
    if buf.is_null() || len == 0 {
        return;
    }
    // SAFETY: the caller's buffer.
    let all = unsafe { core::slice::from_raw_parts_mut(buf as *mut u8, len) };
    all.fill(0);
    if on().is_none() {
        return;
    }
    let n = len.min(SYM_MAX_INPUT_BYTES);
    new_bytes_input(name_of(name), &mut all[..n], 0);
}

/// Narrows the inputs to those for which `cond` holds: an execution whose
/// `cond` is false ends at once (exit status 0) and shows no bug.
#[no_mangle]
pub extern "C" fn __reach_assume(cond: i32) {
    if cond == 0 && on().is_some() {
        // SAFETY: ends the process through the interposed exit path.
        unsafe { libc::exit(0) };
    }
}

/// The node of the last input the calling thread created (instrumented
/// code reads it after a call to `reach_input_int`).
#[no_mangle]
pub extern "C" fn __reach_sym_input_shadow() -> u32 {
    LAST_INPUT.with(|c| c.replace(0))
}

/// Before `reach_assume(cond)` with a symbolic `cond` (node `s`).
#[no_mangle]
pub extern "C" fn __reach_sym_assume(site: u64, s: u32, cond: u64) {
    if let Some(h) = on() {
        push_branch(h, BranchKind::Assume, site, s, cond != 0);
    }
}

/// `a op b` of `width` bits where `sa`/`sb` are the operands' shadows (at
/// least one non-zero); comparisons give 1-bit results.
#[no_mangle]
pub extern "C" fn __reach_sym_binary(op: u32, width: u32, a: u64, b: u64, sa: u32, sb: u32) -> u32 {
    let Some(h) = on() else { return 0 };
    let Some(op) = SymOp::from_u16(op as u16).filter(|o| o.is_binary() || o.is_comparison()) else {
        return 0;
    };
    let x = operand(h, sa, width, a);
    let y = operand(h, sb, width, b);
    if x == 0 || y == 0 {
        return 0;
    }
    let w = if op.is_comparison() { 1 } else { width };
    push_node(h, node(op, w, x, y, 0, 0))
}

/// A cast of `sa` from `from` to `to` bits: `op` is [`SymOp::ZExt`],
/// [`SymOp::SExt`] or [`SymOp::Extract`] (truncation).
#[no_mangle]
pub extern "C" fn __reach_sym_cast(op: u32, from: u32, to: u32, sa: u32) -> u32 {
    let Some(h) = on() else { return 0 };
    if sa == 0 || from == to {
        return sa;
    }
    match SymOp::from_u16(op as u16) {
        Some(o @ (SymOp::ZExt | SymOp::SExt)) if to > from => {
            push_node(h, node(o, to, sa, 0, 0, 0))
        }
        Some(SymOp::Extract) if to < from => push_node(h, node(SymOp::Extract, to, sa, 0, 0, 0)),
        _ => 0,
    }
}

/// `select c, a, b` of `width` bits with a symbolic condition `sc`.
#[no_mangle]
pub extern "C" fn __reach_sym_ite(sc: u32, width: u32, a: u64, b: u64, sa: u32, sb: u32) -> u32 {
    let Some(h) = on() else { return 0 };
    if width_of(h, sc) != 1 {
        return 0;
    }
    let x = operand(h, sa, width, a);
    let y = operand(h, sb, width, b);
    if x == 0 || y == 0 {
        return 0;
    }
    push_node(h, node(SymOp::Ite, width, sc, x, y, 0))
}

/// Before a conditional branch on a symbolic condition `s`.
#[no_mangle]
pub extern "C" fn __reach_sym_branch(site: u64, s: u32, taken: u32) {
    if let Some(h) = on() {
        push_branch(h, BranchKind::Branch, site, s, taken != 0);
    }
}

/// Before a `switch` on symbolic `s` (concrete `value`, `width` bits) with
/// `n` case values at `cases`: one branch per case tested, in order, up to
/// the one taken.
///
/// # Safety
/// `cases` points to `n` values.
#[no_mangle]
pub unsafe extern "C" fn __reach_sym_switch(
    site: u64,
    s: u32,
    width: u32,
    value: u64,
    cases: *const u64,
    n: u64,
) {
    let Some(h) = on() else { return };
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    for i in 0..n as usize {
        // SAFETY: the pass passes a constant array of `n` values.
        let case = unsafe { *cases.add(i) } & mask;
        let k = konst(h, width, case);
        let eq = push_node(h, node(SymOp::Eq, 1, s, k, 0, 0));
        let hit = value & mask == case;
        push_branch(h, BranchKind::Branch, site, eq, hit);
        if hit {
            return;
        }
    }
}

/// A pointer computed from symbolic `s` (concrete `value`): the value is
/// fixed for the rest of the execution (a pinned equality).
#[no_mangle]
pub extern "C" fn __reach_sym_concretize(site: u64, s: u32, width: u32, value: u64) {
    let Some(h) = on() else { return };
    let k = konst(h, width, value);
    let eq = push_node(h, node(SymOp::Eq, 1, s, k, 0, 0));
    push_branch(h, BranchKind::Pinned, site, eq, true);
    // SAFETY: header field.
    unsafe { (*h).overflow |= SYM_CONCRETISED };
}

/// The shadow table, if it is mapped.
fn table_of(s: &Sym) -> Option<&'static mut [Shadow]> {
    // SAFETY: a mapping of `SHADOW_SLOTS` entries owned by the running thread.
    (!s.table.is_null()).then(|| unsafe { core::slice::from_raw_parts_mut(s.table, SHADOW_SLOTS) })
}

/// The shadow table, mapped (zeroed: every entry free) on first use; `None`
/// if it cannot be.
fn table_or_map(s: &mut Sym) -> Option<&'static mut [Shadow]> {
    if s.table.is_null() {
        // SAFETY: a fresh private anonymous mapping.
        let p = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                SHADOW_SLOTS * core::mem::size_of::<Shadow>(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        s.table = p as *mut Shadow;
    }
    table_of(s)
}

fn hash(addr: u64) -> usize {
    (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & (SHADOW_SLOTS - 1)
}

fn shadow_get(addr: u64) -> (u32, u32) {
    // SAFETY: the running thread owns the table.
    let s = unsafe { sym() };
    if s.live == 0 {
        return (0, 0);
    }
    let Some(table) = table_of(s) else {
        return (0, 0);
    };
    let mut i = hash(addr);
    for _ in 0..SHADOW_SLOTS {
        let e = table[i];
        if e.addr == addr {
            return (e.node, e.byte);
        }
        if e.addr == 0 {
            return (0, 0);
        }
        i = (i + 1) & (SHADOW_SLOTS - 1);
    }
    (0, 0)
}

fn shadow_set(addr: u64, node: u32, byte: u32) {
    // SAFETY: the running thread owns the table.
    let s = unsafe { sym() };
    if node == 0 && s.live == 0 {
        return;
    }
    let Some(table) = table_or_map(s) else {
        if let Some(h) = header() {
            // SAFETY: header field.
            unsafe { (*h).overflow |= SYM_OVERFLOW_NODES };
        }
        return;
    };
    let mut i = hash(addr);
    let mut free: Option<usize> = None;
    for _ in 0..SHADOW_SLOTS {
        let e = table[i];
        if e.addr == addr {
            if e.node != 0 && node == 0 {
                s.live -= 1;
            } else if e.node == 0 && node != 0 {
                s.live += 1;
            }
            table[i] = Shadow { addr, node, byte };
            return;
        }
        if e.addr != 0 && e.node == 0 && free.is_none() {
            free = Some(i);
        }
        if e.addr == 0 {
            break;
        }
        i = (i + 1) & (SHADOW_SLOTS - 1);
    }
    if node == 0 {
        return;
    }
    let slot = match free {
        Some(f) => f,
        None => {
            if s.used >= SHADOW_LIMIT {
                if let Some(h) = header() {
                    // SAFETY: header field.
                    unsafe { (*h).overflow |= SYM_OVERFLOW_NODES };
                }
                return;
            }
            s.used += 1;
            i
        }
    };
    table[slot] = Shadow { addr, node, byte };
    s.live += 1;
}

/// The heap block at `p` is about to be freed: its bytes' shadows end
/// with it, so a later allocation at the same address (a new generation
/// of the address) does not inherit them. Costs nothing while no byte has
/// a shadow.
///
/// # Safety
/// `p` is a live block of the C library's allocator.
pub unsafe fn forget(p: *mut c_void) {
    if me().is_none() {
        return;
    }
    // SAFETY: the calling thread is the running one.
    let s = unsafe { sym() };
    if s.live == 0 {
        return;
    }
    let addr = p as u64;
    // SAFETY: the caller's contract.
    let len = unsafe { libc::malloc_usable_size(p) } as u64;
    if len <= SHADOW_SLOTS as u64 {
        for i in 0..len {
            shadow_set(addr + i, 0, 0);
        }
        return;
    }
    let Some(table) = table_of(s) else { return };
    let end = addr.saturating_add(len);
    for e in table.iter_mut() {
        if e.node != 0 && e.addr >= addr && e.addr < end {
            e.node = 0;
            s.live -= 1;
        }
    }
}

/// Before an integer load of `size` bytes at `addr` (only while
/// [`__reach_sym_active`]): the loaded value's shadow.
#[no_mangle]
pub extern "C" fn __reach_sym_load(addr: *const c_void, size: u64) -> u32 {
    let Some(h) = on() else { return 0 };
    if size == 0 || size > 8 {
        return 0;
    }
    let a = addr as u64;
    if SHARED.load(Ordering::Relaxed) {
        if let Some(event) = traced_access(a, &[OpKind::Load, OpKind::AtomicLoad]) {
            return push_node(h, node(SymOp::SharedRead, size as u32 * 8, 0, 0, 0, event));
        }
    }
    let mut parts = [(0u32, 0u32); 8];
    let mut any = false;
    for (i, p) in parts.iter_mut().enumerate().take(size as usize) {
        *p = shadow_get(a + i as u64);
        any |= p.0 != 0;
    }
    if !any {
        return 0;
    }
    let first = parts[0].0;
    let whole = (0..size as usize).all(|i| parts[i] == (first, i as u32))
        && width_of(h, first) == size as u32 * 8;
    if whole {
        return first;
    }
    // Little-endian: byte 0 is the lowest; concatenate from the top.
    let mut acc = 0u32;
    for i in (0..size as usize).rev() {
        let (n, byte) = parts[i];
        let piece = if n != 0 {
            push_node(h, node(SymOp::Extract, 8, n, 0, 0, u64::from(byte) * 8))
        } else {
            // SAFETY: the instrumented load is about to read these bytes.
            let v = unsafe { ((a + i as u64) as *const u8).read_volatile() };
            konst(h, 8, u64::from(v))
        };
        if piece == 0 {
            return 0;
        }
        acc = if acc == 0 {
            piece
        } else {
            let w = width_of(h, acc) + 8;
            push_node(h, node(SymOp::Concat, w, acc, piece, 0, 0))
        };
        if acc == 0 {
            return 0;
        }
    }
    acc
}

/// The trace index of the access of one of `kinds` the calling thread has
/// just executed at `addr`, if it was traced (shared) after the first
/// thread was created. Nothing runs
/// between an access's scheduling point and its shadow computation, so
/// that access is the last event recorded.
fn traced_access(addr: u64, kinds: &[OpKind]) -> Option<u64> {
    let me = me()?;
    // SAFETY: the running thread owns the state.
    let st = unsafe { state() };
    if st.thread_count <= 1 {
        // Before the first thread is created no interleaving can change
        // what is read: start-up code (often most of a program's work)
        // takes no room in the region.
        return None;
    }
    let last = st.event_count.checked_sub(1)?;
    if last >= st.record_steps {
        return None;
    }
    let ev = st.chan.event_mut(last)?;
    let kind = kinds.iter().any(|k| ev.kind == *k as u16);
    let covers = ev.object <= addr && addr < ev.object.saturating_add(ev.aux.max(1));
    (kind && covers && ev.thread == me).then_some(last)
}

/// Before a store of `size` bytes at `addr` whose value has shadow `s`
/// (0: concrete, clearing the bytes' shadows).
#[no_mangle]
pub extern "C" fn __reach_sym_store(addr: *mut c_void, size: u64, s: u32) {
    let Some(h) = on() else { return };
    let a = addr as u64;
    if s != 0 && SHARED.load(Ordering::Relaxed) {
        if let Some(event) = traced_access(a, &[OpKind::Store, OpKind::AtomicStore]) {
            push_record(h, BranchKind::Definition, a, s, false, event);
        }
    }
    let size = size.min(64);
    let mut s = s;
    if s != 0 {
        let w = width_of(h, s);
        if w < size as u32 * 8 {
            s = push_node(h, node(SymOp::ZExt, size as u32 * 8, s, 0, 0, 0));
        }
    }
    for i in 0..size {
        shadow_set(a + i, s, i as u32);
    }
}

/// Before `memcpy`/`memmove(dst, src, len)`: copies the shadows.
#[no_mangle]
pub extern "C" fn __reach_sym_memcpy(dst: *mut c_void, src: *const c_void, len: u64) {
    if on().is_none() {
        return;
    }
    let (d, s) = (dst as u64, src as u64);
    if d == s {
        return;
    }
    let copy = |i: u64| {
        let (n, b) = shadow_get(s + i);
        shadow_set(d + i, n, b);
    };
    if d < s {
        (0..len).for_each(copy);
    } else {
        (0..len).rev().for_each(copy);
    }
}

/// Before `memset(dst, _, len)`: the bytes become concrete.
#[no_mangle]
pub extern "C" fn __reach_sym_memset(dst: *mut c_void, len: u64) {
    // SAFETY: the running thread owns the table.
    if on().is_none() || unsafe { sym() }.live == 0 {
        return;
    }
    for i in 0..len {
        shadow_set(dst as u64 + i, 0, 0);
    }
}

/// Serves `read(0, ...)` from the symbolic stdin input while it lasts:
/// `Some(bytes copied)`, or `None` to read the real standard input.
pub fn read_stdin(buf: *mut c_void, count: usize) -> Option<isize> {
    let h = on()?;
    // SAFETY: the running thread owns the state.
    let s = unsafe { sym() };
    let index = s.stdin_input?;
    // SAFETY: the input slot is inside the header.
    let input = unsafe { (*h).inputs[index] };
    let len = input.len as usize;
    if s.stdin_pos >= len {
        return None;
    }
    let n = count.min(len - s.stdin_pos);
    for i in 0..n {
        // SAFETY: the caller's buffer holds `count >= n` bytes.
        unsafe { (buf as *mut u8).add(i).write(input.bytes[s.stdin_pos + i]) };
        shadow_set(buf as u64 + i as u64, input.node, (s.stdin_pos + i) as u32);
    }
    s.stdin_pos += n;
    Some(n as isize)
}

/// Interposed `read`: the symbolic stdin bytes first (with
/// `--symbolic-stdin N`), then the real call.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn read(fd: i32, buf: *mut c_void, count: usize) -> isize {
    if fd == 0 && count > 0 {
        if let Some(n) = read_stdin(buf, count) {
            return n;
        }
    }
    // SAFETY: forwarding the caller's arguments.
    unsafe {
        crate::real!(
            c"read",
            unsafe extern "C" fn(i32, *mut c_void, usize) -> isize
        )(fd, buf, count)
    }
}
