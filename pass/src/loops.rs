//! Await candidates: the loops whose iterations may do nothing visible.
//!
//! A spin loop's failed iteration (`while (xchg(&lock, 1)) ;` on a taken
//! lock, `while (!flag) sched_yield();`, a seqlock reader's retry) changes
//! nothing but what the runtime can see: it reads, it yields, its writes go
//! to instrumented memory or to its own stack slots. The pass finds the
//! natural loops (back edges `latch → header` where the header dominates
//! the latch) whose every instruction is of that kind and puts
//! `__reach_loop_head(site, state, local, back, slot)` at their header: `state` hashes
//! the loop's carried values (the header's phis, and the function's private
//! stack slots the loop writes, loaded at the header: `-O0` keeps a loop's
//! state there), `back` is 1 on a back edge. The runtime decides per
//! iteration whether it did anything (see its `awaits` module); the pass
//! only rules out the loops whose effects the runtime could not see:
//!
//! ```text
//! ; before                          ; after
//! loop:                             loop:
//!   %i = phi i32 [0, %e], [%n, %l]    %i = phi i32 [0, %e], [%n, %l]
//!                                     %back = phi i32 [0, %e], [1, %l]
//!                                     %h = <hash of %i and the written slots>
//!                                     call @__reach_loop_head.guard(SITE, %h, %back)
//! ```
//!
//! A loop is a candidate when every instruction in it (and, transitively,
//! in the functions it calls) is one of: an instrumented access (the plan
//! has it), a plain store to a non-escaping `alloca` of its function, a call
//! to an interposed library function (the runtime sees it), to an LLVM
//! intrinsic other than a memory transfer, to a runtime hook, to a function
//! that never returns (a panic: the iteration does not come back), or to a
//! function of the module that is itself transparent in this sense
//! (the greatest fixed point, so recursion is allowed; the toolchain's
//! functions the module defines but does not instrument count when they
//! read no atomic), inline assembly, or anything that neither writes memory
//! nor calls. A stack slot only the loop reads is the loop's local state,
//! as a phi only the loop uses is; one that functions the loop calls write
//! through its address (an unoptimised back-off) goes to the runtime as
//! the hook's `slot`, whose writes to it are then no progress. The approach follows
//! the static side-effect-freedom check of Lång and Sagonas (FMCAD 2022,
//! Sec. 4) and of Kokologiannakis et al. (FMCAD 2021, Sec. 5), relaxed to
//! what the runtime can then check dynamically.

use crate::classify::is_interposed;
use crate::escape::{underlying_object, EscapeAnalysis};
use crate::llvm::{self, Value};
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMTypeRef};
use inkwell::llvm_sys::{LLVMOpcode as Op, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

/// One await-candidate loop of a function.
#[derive(Debug)]
pub(crate) struct AwaitLoop {
    /// The loop's header block.
    pub header: LLVMBasicBlockRef,
    /// The header's phi nodes (the loop's carried SSA values) whose values
    /// the code after the loop may use.
    pub phis: Vec<Value>,
    /// The header's phi nodes used only inside the loop (a retry count):
    /// they decide when the loop ends, not what follows it.
    pub local_phis: Vec<Value>,
    /// Private stack slots the loop writes, with the type written: their
    /// values are loop state too.
    pub slots: Vec<(Value, LLVMTypeRef)>,
    /// Private stack slots the loop writes that only the loop uses (an
    /// unoptimised retry count): their values decide when the loop ends,
    /// not what follows it, as [`Self::local_phis`] do.
    pub local_slots: Vec<(Value, LLVMTypeRef)>,
    /// A stack slot of the loop's function, of 1, 2, 4, 8 or 16 bytes,
    /// that only the loop uses and that functions it calls write through
    /// its address (an unoptimised back-off: `backoff.snooze()` with the
    /// back-off in the loop's frame), with its size. The runtime counts
    /// the callees' writes to it as the loop's own state, not progress.
    pub callee_slot: Option<(Value, u64)>,
    /// An instruction whose debug location names the loop.
    pub anchor: Value,
    /// Every edge into the header (a block once per edge), and whether it
    /// is a back edge (or the entry of a rotated loop, see `guard`).
    pub incoming: Vec<(LLVMBasicBlockRef, bool)>,
    /// A rotated spin loop's guard ([`crate::rotated`]): the instruction
    /// before which its test begins, where the loop's first iteration
    /// opens; the edge from the guard into the header counts as a back
    /// edge.
    pub guard: Option<Value>,
}

/// The module's functions whose calls a candidate loop may make.
pub(crate) struct Transparency {
    transparent: HashSet<Value>,
}

impl Transparency {
    /// Computes the greatest set of `instrumented` and `library` functions
    /// each of whose instructions is transparent given the set (see the
    /// module doc); `visible` holds the instructions the pass instruments.
    /// A `library` function (defined in the module but not instrumented:
    /// the toolchain's code, such as `std::thread::yield_now` in an
    /// unoptimised Rust build) is transparent only if it also reads no
    /// atomic: its accesses are unseen, so one that another thread's
    /// write could change would make the runtime await a change it cannot
    /// see.
    pub(crate) fn compute(
        instrumented: &[Value],
        library: &[Value],
        visible: &HashSet<Value>,
    ) -> Transparency {
        let mut transparent: HashSet<Value> = instrumented.iter().copied().collect();
        transparent.extend(
            library
                .iter()
                .copied()
                .filter(|&f| llvm::instructions(f).all(|i| !unseen_atomic_read(i))),
        );
        loop {
            let before = transparent.len();
            let snapshot = transparent.clone();
            transparent.retain(|&f| {
                llvm::instructions(f).all(|i| instruction_ok(i, visible, &snapshot, f))
            });
            if transparent.len() == before {
                return Transparency { transparent };
            }
        }
    }
}

/// Finds the await-candidate loops of function `f`.
pub(crate) fn await_loops(
    f: Value,
    visible: &HashSet<Value>,
    transparency: &Transparency,
    escape: &mut EscapeAnalysis,
) -> Vec<AwaitLoop> {
    let cfg = Cfg::of(f);
    if cfg.blocks.len() < 2 {
        return Vec::new();
    }
    let idom = cfg.dominators();
    let dominates = |a: usize, mut b: usize| loop {
        if a == b {
            return true;
        }
        if b == 0 || idom[b] == usize::MAX || idom[b] == b {
            return false;
        }
        b = idom[b];
    };
    // Back edges grouped by header.
    let mut by_header: Vec<(usize, Vec<usize>)> = Vec::new();
    for (u, succs) in cfg.succs.iter().enumerate() {
        if idom[u] == usize::MAX {
            continue; // unreachable
        }
        for &h in succs {
            if dominates(h, u) {
                match by_header.iter_mut().find(|(x, _)| *x == h) {
                    Some((_, latches)) => latches.push(u),
                    None => by_header.push((h, vec![u])),
                }
            }
        }
    }
    let mut out = Vec::new();
    for (h, latches) in by_header {
        let body = cfg.natural_loop(h, &latches);
        let found = candidate(&cfg, h, &latches, &body, visible, transparency, &dominates);
        if let Some(mut l) = found {
            if l.guard.is_none() {
                l.callee_slot = callee_slot(&cfg, &body, &l, escape);
            }
            out.push(l);
        }
    }
    out
}

/// The loop with header `h` and `body` as an await candidate, if it is one.
fn candidate(
    cfg: &Cfg,
    h: usize,
    latches: &[usize],
    body: &[bool],
    visible: &HashSet<Value>,
    transparency: &Transparency,
    dominates: &dyn Fn(usize, usize) -> bool,
) -> Option<AwaitLoop> {
    let header = cfg.blocks[h];
    let mut phis = Vec::new();
    let mut anchor = None;
    for i in block_instructions(header) {
        match llvm::opcode(i) {
            Some(Op::LLVMPHI) => {
                if !hashable(llvm::type_of(i)) {
                    return None;
                }
                phis.push(i);
            }
            Some(
                Op::LLVMLandingPad | Op::LLVMCatchSwitch | Op::LLVMCleanupPad | Op::LLVMCatchPad,
            ) => return None,
            _ => {}
        }
        if anchor.is_none() && !llvm::debug_loc(i).is_null() {
            anchor = Some(i);
        }
    }
    let (phis, local_phis): (Vec<Value>, Vec<Value>) =
        phis.into_iter().partition(|&p| leaves_loop(cfg, p, body));
    let f = cfg.function;
    let mut slots: Vec<(Value, LLVMTypeRef)> = Vec::new();
    // A loop that sees nothing another thread does can never await: it
    // gets no hook (a computation over locals pays nothing).
    let mut sees_others = false;
    for (b, _) in body.iter().enumerate().filter(|(_, in_loop)| **in_loop) {
        for i in block_instructions(cfg.blocks[b]) {
            if !instruction_ok(i, visible, &transparency.transparent, f) {
                return None;
            }
            sees_others |= visible.contains(&i) || calls_visible_code(i, transparency);
            if llvm::opcode(i) == Some(Op::LLVMStore) && !visible.contains(&i) {
                let ptr = llvm::operand(i, 1);
                let ty = llvm::type_of(llvm::operand(i, 0));
                // A slot every iteration writes before it reads (`-O0`
                // temporaries) is no state of the loop, wherever its
                // address is computed.
                if !cfg.live_at_head(h, ptr) || slots.iter().any(|&(p, t)| p == ptr && t == ty) {
                    continue;
                }
                if !hashable(ty) || !defined_before(cfg, ptr, h, body, dominates) {
                    return None;
                }
                slots.push((ptr, ty));
            }
        }
    }
    if !sees_others {
        return None;
    }
    let anchor = anchor.or_else(|| {
        latches
            .iter()
            .map(|&l| terminator(cfg.blocks[l]))
            .find(|&t| !t.is_null() && !llvm::debug_loc(t).is_null())
    })?;
    let latch_blocks: Vec<LLVMBasicBlockRef> = latches.iter().map(|&l| cfg.blocks[l]).collect();
    let mut incoming = Vec::new();
    for &b in &cfg.blocks {
        let t = terminator(b);
        if t.is_null() {
            continue;
        }
        // SAFETY: `t` is a terminator of the function.
        let n = unsafe { c::LLVMGetNumSuccessors(t) };
        for k in 0..n {
            // SAFETY: as above.
            if unsafe { c::LLVMGetSuccessor(t, k) } == header {
                incoming.push((b, latch_blocks.contains(&b)));
            }
        }
    }
    let mut guard = None;
    let entries: Vec<usize> = (0..incoming.len()).filter(|&k| !incoming[k].1).collect();
    if let ([entry], true) = (entries.as_slice(), phis.is_empty()) {
        if local_phis.is_empty() && slots.is_empty() {
            let blocks: Vec<LLVMBasicBlockRef> = body
                .iter()
                .enumerate()
                .filter(|(_, in_loop)| **in_loop)
                .map(|(b, _)| cfg.blocks[b])
                .collect();
            guard = crate::rotated::guard(header, incoming[*entry].0, &blocks);
            if guard.is_some() {
                incoming[*entry].1 = true;
            }
        }
    }
    let (local_slots, slots): (Vec<_>, Vec<_>) = slots
        .into_iter()
        .partition(|&(ptr, _)| only_the_loop_reads(cfg, underlying_object(ptr), body));
    Some(AwaitLoop {
        header,
        phis,
        local_phis,
        slots,
        local_slots,
        callee_slot: None,
        anchor,
        incoming,
        guard,
    })
}

/// Is `alloca`'s memory read only inside the loop `body`: every use of it
/// (or of a pointer derived from it) outside the body only overwrites it
/// or marks its lifetime? Then its value decides nothing after the loop.
fn only_the_loop_reads(cfg: &Cfg, alloca: Value, body: &[bool]) -> bool {
    llvm::opcode(alloca) == Some(Op::LLVMAlloca)
        && pointer_uses(alloca).into_iter().all(|(user, idx)| {
            cfg.in_loop(user, body)
                || match llvm::opcode(user) {
                    Some(Op::LLVMStore) => idx == 1,
                    Some(Op::LLVMCall) => overwrites_or_marks(user, idx),
                    _ => false,
                }
        })
}

/// The uses of `root` and of the pointers derived from it (GEPs, casts),
/// other than those derivations, with the operand index of each.
fn pointer_uses(root: Value) -> Vec<(Value, u32)> {
    let mut out = Vec::new();
    let mut work = vec![root];
    let mut seen: HashSet<Value> = HashSet::from([root]);
    while let Some(p) = work.pop() {
        for (user, idx) in llvm::uses(p) {
            match llvm::opcode(user) {
                Some(Op::LLVMGetElementPtr | Op::LLVMBitCast | Op::LLVMAddrSpaceCast) => {
                    if seen.insert(user) {
                        work.push(user);
                    }
                }
                _ => out.push((user, idx)),
            }
        }
    }
    out
}

/// Is call `call`, given a pointer as its argument `idx`, a lifetime marker
/// or a memory transfer into it (`memset`, the destination of `memcpy`):
/// no read of what the pointer points to?
fn overwrites_or_marks(call: Value, idx: u32) -> bool {
    let Some(f) = llvm::called_function(call) else {
        return false;
    };
    let name = llvm::name(f);
    name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.memset.")
        || (idx == 0 && (name.starts_with("llvm.memcpy.") || name.starts_with("llvm.memmove.")))
}

/// The loop's [`AwaitLoop::callee_slot`], if it has one: the first
/// `alloca` of the function whose address no function keeps
/// ([`EscapeAnalysis::escapes`]), that only the loop reads, that a call in
/// the loop gets, and that is not one of the loop's private slots already.
fn callee_slot(
    cfg: &Cfg,
    body: &[bool],
    l: &AwaitLoop,
    escape: &mut EscapeAnalysis,
) -> Option<(Value, u64)> {
    let entry = *cfg.blocks.first()?;
    let module = {
        // SAFETY: `cfg.function` is a function of a live module.
        unsafe { c::LLVMGetGlobalParent(cfg.function) }
    };
    let known: Vec<Value> = l
        .slots
        .iter()
        .chain(&l.local_slots)
        .map(|&(p, _)| underlying_object(p))
        .collect();
    for a in block_instructions(entry) {
        if llvm::opcode(a) != Some(Op::LLVMAlloca) || known.contains(&a) {
            continue;
        }
        // SAFETY: `a` is an alloca.
        let ty = unsafe { c::LLVMGetAllocatedType(a) };
        if !llvm::is_sized(ty) {
            continue;
        }
        let size = llvm::alloc_size(module, ty);
        if !matches!(size, 1 | 2 | 4 | 8 | 16) || !called_with(cfg, a, body) {
            continue;
        }
        if only_the_loop_reads(cfg, a, body) && !escape.escapes(a) {
            return Some((a, size));
        }
    }
    None
}

/// Does a call in the loop `body` get `alloca` (or a pointer into it) as
/// an argument?
fn called_with(cfg: &Cfg, alloca: Value, body: &[bool]) -> bool {
    pointer_uses(alloca).into_iter().any(|(user, _)| {
        matches!(llvm::opcode(user), Some(Op::LLVMCall | Op::LLVMInvoke))
            && !llvm::called_function(user).is_some_and(|f| llvm::name(f).starts_with("llvm."))
            && cfg.in_loop(user, body)
    })
}

/// Does a value computed from `phi` (through instructions of the loop)
/// reach an instruction outside the loop `body`?
fn leaves_loop(cfg: &Cfg, phi: Value, body: &[bool]) -> bool {
    let mut seen: HashSet<Value> = HashSet::new();
    let mut work = vec![phi];
    seen.insert(phi);
    while let Some(v) = work.pop() {
        for (user, _) in llvm::uses(v) {
            if llvm::opcode(user).is_none() {
                return true; // a constant expression or metadata: be safe
            }
            // SAFETY: `user` is an instruction of the function.
            let bb = unsafe { c::LLVMGetInstructionParent(user) };
            match cfg.index.get(&bb) {
                Some(&b) if body[b] => {
                    if seen.insert(user) {
                        work.push(user);
                    }
                }
                _ => return true,
            }
        }
    }
    false
}

/// Is `i` a call to code whose operations the runtime sees: an
/// interposed library function or a transparent function of the module?
fn calls_visible_code(i: Value, transparency: &Transparency) -> bool {
    if !matches!(
        llvm::opcode(i),
        Some(Op::LLVMCall | Op::LLVMInvoke | Op::LLVMCallBr)
    ) || llvm::called_inline_asm(i).is_some()
    {
        return false;
    }
    let Some(callee) = llvm::called_function(i) else {
        return false;
    };
    if transparency.transparent.contains(&callee) {
        return true;
    }
    let name = llvm::name(callee);
    !name.starts_with("llvm.") && !name.starts_with("__reach_") && is_interposed(&name)
}

/// Is `ptr` available at the head of the loop: an argument or constant,
/// or an instruction outside the loop whose block dominates the header?
fn defined_before(
    cfg: &Cfg,
    ptr: Value,
    h: usize,
    body: &[bool],
    dominates: &dyn Fn(usize, usize) -> bool,
) -> bool {
    if llvm::opcode(ptr).is_none() {
        return true;
    }
    // SAFETY: `ptr` is an instruction of the function.
    let bb = unsafe { c::LLVMGetInstructionParent(ptr) };
    match cfg.index.get(&bb) {
        Some(&b) => !body[b] && dominates(b, h),
        None => false,
    }
}

/// Can a value of type `t` be folded into the state hash?
fn hashable(t: LLVMTypeRef) -> bool {
    match llvm::type_kind(t) {
        LLVMTypeKind::LLVMIntegerTypeKind => llvm::int_width(t) <= 64,
        LLVMTypeKind::LLVMPointerTypeKind => llvm::address_space(t) == 0,
        LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind => true,
        _ => false,
    }
}

/// Is instruction `i` of function `f` transparent (see the module doc),
/// given the set of transparent functions?
fn instruction_ok(
    i: Value,
    visible: &HashSet<Value>,
    transparent: &HashSet<Value>,
    f: Value,
) -> bool {
    let Some(op) = llvm::opcode(i) else {
        return true;
    };
    match op {
        Op::LLVMStore | Op::LLVMAtomicRMW | Op::LLVMAtomicCmpXchg => {
            visible.contains(&i)
                || private_slot(llvm::operand(i, if op == Op::LLVMStore { 1 } else { 0 }), f)
        }
        Op::LLVMCall | Op::LLVMInvoke | Op::LLVMCallBr => {
            if llvm::called_inline_asm(i).is_some() {
                return true;
            }
            let Some(callee) = llvm::called_function(i) else {
                return false; // indirect call
            };
            let name = llvm::name(callee);
            if name.starts_with("__reach_") {
                return true;
            }
            if let Some(rest) = name.strip_prefix("llvm.") {
                // Memory transfers write through a pointer: instrumented
                // ones are visible, into private slots they are state the
                // hash does not see.
                let transfer = rest.starts_with("memcpy")
                    || rest.starts_with("memmove")
                    || rest.starts_with("memset");
                return !transfer || visible.contains(&i);
            }
            if transparent.contains(&callee) {
                return true;
            }
            (llvm::is_declaration(callee) && is_interposed(&name)) || llvm::never_returns(i)
        }
        // A caught exception resumes the code after a call that never
        // returned normally (a panic's unseen side effects included).
        Op::LLVMLandingPad => !llvm::landing_pad_catches(i),
        Op::LLVMCatchPad | Op::LLVMCatchSwitch => false,
        _ => true,
    }
}

/// Is `i` an atomic read (or a volatile one), which code the pass does not
/// instrument would make unseen?
fn unseen_atomic_read(i: Value) -> bool {
    llvm::opcode(i) == Some(Op::LLVMLoad) && (llvm::ordering(i) != 0 || llvm::is_volatile(i))
}

/// Does `ptr` point into a non-escaping `alloca` of `f` (memory no other
/// thread and no other function sees)?
fn private_slot(ptr: Value, f: Value) -> bool {
    let base = underlying_object(ptr);
    if llvm::opcode(base) != Some(Op::LLVMAlloca) {
        return false;
    }
    // SAFETY: `base` is an instruction of a live function.
    let parent = unsafe { c::LLVMGetBasicBlockParent(c::LLVMGetInstructionParent(base)) };
    parent == f
}

/// The instructions of a block, in order.
fn block_instructions(bb: LLVMBasicBlockRef) -> impl Iterator<Item = Value> {
    // SAFETY: `bb` is a block of a live function; instructions are walked
    // through LLVM's own links, null at the end.
    let first = unsafe { c::LLVMGetFirstInstruction(bb) };
    std::iter::successors((!first.is_null()).then_some(first), |&i| {
        // SAFETY: as above.
        let next = unsafe { c::LLVMGetNextInstruction(i) };
        (!next.is_null()).then_some(next)
    })
}

/// A block's terminator (null if it has none).
fn terminator(bb: LLVMBasicBlockRef) -> Value {
    // SAFETY: `bb` is a block of a live function.
    unsafe { c::LLVMGetBasicBlockTerminator(bb) }
}

/// A function's control-flow graph: blocks (entry first) and successors.
struct Cfg {
    function: Value,
    blocks: Vec<LLVMBasicBlockRef>,
    index: HashMap<LLVMBasicBlockRef, usize>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
}

impl Cfg {
    fn of(f: Value) -> Cfg {
        let mut blocks = Vec::new();
        // SAFETY: `f` is a function definition of a live module.
        let mut bb = unsafe { c::LLVMGetFirstBasicBlock(f) };
        while !bb.is_null() {
            blocks.push(bb);
            // SAFETY: as above.
            bb = unsafe { c::LLVMGetNextBasicBlock(bb) };
        }
        let index: HashMap<_, _> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut succs = vec![Vec::new(); blocks.len()];
        let mut preds = vec![Vec::new(); blocks.len()];
        for (i, &b) in blocks.iter().enumerate() {
            let t = terminator(b);
            if t.is_null() {
                continue;
            }
            // SAFETY: `t` is a terminator; its successors are blocks of `f`.
            let n = unsafe { c::LLVMGetNumSuccessors(t) };
            for k in 0..n {
                // SAFETY: as above.
                let s = unsafe { c::LLVMGetSuccessor(t, k) };
                if let Some(&j) = index.get(&s) {
                    if !succs[i].contains(&j) {
                        succs[i].push(j);
                        preds[j].push(i);
                    }
                }
            }
        }
        Cfg {
            function: f,
            blocks,
            index,
            succs,
            preds,
        }
    }

    /// Immediate dominators (Cooper, Harvey and Kennedy's iterative
    /// algorithm over reverse postorder); `usize::MAX` for unreachable
    /// blocks, the entry its own.
    fn dominators(&self) -> Vec<usize> {
        let n = self.blocks.len();
        let mut postorder = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some((b, k)) = stack.pop() {
            if k < self.succs[b].len() {
                stack.push((b, k + 1));
                let s = self.succs[b][k];
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                postorder.push(b);
            }
        }
        let mut order = vec![usize::MAX; n];
        for (i, &b) in postorder.iter().enumerate() {
            order[b] = i;
        }
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in postorder.iter().rev().skip(1) {
                let mut new = usize::MAX;
                for &p in &self.preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, &order, p, new)
                    };
                }
                if new != usize::MAX && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        idom
    }

    /// Is instruction `i` (or a constant expression: no) in the loop `body`?
    fn in_loop(&self, i: Value, body: &[bool]) -> bool {
        if llvm::opcode(i).is_none() {
            return false;
        }
        // SAFETY: `i` is an instruction of the function.
        let bb = unsafe { c::LLVMGetInstructionParent(i) };
        self.index.get(&bb).is_some_and(|&b| body[b])
    }

    /// Is the private slot `ptr` live at the head of block `h`: does some
    /// path from there load from its `alloca` before a store to `ptr`
    /// overwrites it? A slot every iteration writes before it reads (`-O0`
    /// temporaries of an atomic exchange) is no state of the loop.
    fn live_at_head(&self, h: usize, ptr: Value) -> bool {
        let base = underlying_object(ptr);
        let mut seen = vec![false; self.blocks.len()];
        let mut work = vec![h];
        seen[h] = true;
        while let Some(b) = work.pop() {
            let mut killed = false;
            for i in block_instructions(self.blocks[b]) {
                match llvm::opcode(i) {
                    Some(Op::LLVMLoad) if underlying_object(llvm::operand(i, 0)) == base => {
                        return true;
                    }
                    Some(Op::LLVMStore) if llvm::operand(i, 1) == ptr => {
                        killed = true;
                        break;
                    }
                    // Any other use of the slot's memory (a transfer, a
                    // call) may read it.
                    Some(Op::LLVMCall | Op::LLVMInvoke)
                        if (0..llvm::num_args(i))
                            .any(|k| underlying_object(llvm::operand(i, k)) == base) =>
                    {
                        return true;
                    }
                    _ => {}
                }
            }
            if killed {
                continue;
            }
            for &s in &self.succs[b] {
                if !seen[s] {
                    seen[s] = true;
                    work.push(s);
                }
            }
        }
        false
    }

    /// The blocks of the natural loop of header `h` with `latches`.
    fn natural_loop(&self, h: usize, latches: &[usize]) -> Vec<bool> {
        let mut body = vec![false; self.blocks.len()];
        body[h] = true;
        let mut work: Vec<usize> = latches.to_vec();
        while let Some(b) = work.pop() {
            if body[b] {
                continue;
            }
            body[b] = true;
            work.extend(self.preds[b].iter().copied());
        }
        body
    }
}

/// The nearest common dominator of `a` and `b` (postorder numbers in `order`).
fn intersect(idom: &[usize], order: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while order[a] < order[b] {
            a = idom[a];
        }
        while order[b] < order[a] {
            b = idom[b];
        }
    }
    a
}
