//! Rotated spin loops: the optimiser turns `while (test) hint();` into
//! `if (test) do hint(); while (test);`, so the loop's first test runs
//! before the loop, as a *guard*. Its read, failed, would be an event of its
//! own outside every iteration, and whether it saw the old or the new value
//! a behaviour of its own (a lock's waiter that checked once before the
//! release and once after). When the guard's test is the loop's own test
//! and the loop does nothing else (its instructions are the test, spin
//! hints, fences and the runtime's hooks), the guard is the loop's first
//! iteration: the pass opens the iteration with a loop-head hook right
//! before the guard's test, and entering the loop counts as coming back to
//! its head, so a guard that failed and changed nothing awaits as a failed
//! iteration does.
//!
//! ```text
//! guard:                                  guard:
//!   ...                                     ...
//!   %v = load @l                            call @__reach_loop_head.guard(SITE, H, H, 0)
//!   %c = icmp eq %v, 1                      %v = load @l
//!   br %c, %loop, %exit                     ...
//! loop:                                   loop:      ; entered from guard: back = 1
//!   pause; %w = load @l; %d = icmp eq %w, 1; br %d, %loop, %exit
//! ```

use crate::llvm::{self, Value};
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMBasicBlockRef;
use inkwell::llvm_sys::LLVMOpcode as Op;
use std::collections::HashSet;

/// How deep [`same_value`] compares two computations.
const DEPTH: u32 = 12;

/// The guard of the loop with `header` and blocks `body` entered from
/// `entry` (its one predecessor outside the loop), if the loop is a rotated
/// spin loop (see the module doc): the instruction before which the
/// guard's test begins. The guard's test must be the test of a block of
/// the loop that goes back to the header on the same arm (directly or
/// through an empty block) and leaves to the same exit, and the loop may
/// do nothing else: its other instructions compute its branches' tests
/// (reads only), wait (spin hints, fences) or are the runtime's hooks.
pub(crate) fn guard(
    header: LLVMBasicBlockRef,
    entry: LLVMBasicBlockRef,
    body: &[LLVMBasicBlockRef],
) -> Option<Value> {
    let (guard_test, guard_arm, guard_exit) = test_of(entry, header, false)?;
    let same_test = body.iter().find_map(|&b| {
        let (test, arm, exit) = test_of(b, header, true)?;
        let same =
            arm == guard_arm && same_exit(exit, guard_exit) && same_value(guard_test, test, DEPTH);
        same.then_some(test)
    })?;
    let own = slice(same_test, body);
    let mut tests: HashSet<Value> = HashSet::new();
    for &b in body {
        if let Some(cond) = condition(b) {
            tests.extend(slice(cond, body));
        }
    }
    let only_waits = body.iter().all(|&b| {
        instructions(b).all(|i| {
            if may_write(i) {
                own.contains(&i)
            } else {
                tests.contains(&i) || waits_only(i) || is_terminator(i)
            }
        })
    });
    if !only_waits {
        return None;
    }
    // The guard's test with the hooks and address computations before it.
    let guard_slice = slice(guard_test, &[entry]);
    let mut start = None;
    let mut i = previous(terminator(entry));
    while let Some(inst) = i {
        if !(guard_slice.contains(&inst) || waits_only(inst)) {
            break;
        }
        start = Some(inst);
        i = previous(inst);
    }
    start
}

/// The condition of `block`'s conditional branch, if it ends in one.
fn condition(block: LLVMBasicBlockRef) -> Option<Value> {
    let t = terminator(block);
    if t.is_null() || llvm::opcode(t) != Some(Op::LLVMBr) {
        return None;
    }
    // SAFETY: `t` is a branch of a live function.
    unsafe { (c::LLVMIsConditional(t) != 0).then(|| c::LLVMGetCondition(t)) }
}

/// May `i` write memory or call code that does?
fn may_write(i: Value) -> bool {
    match llvm::opcode(i) {
        Some(Op::LLVMStore | Op::LLVMAtomicRMW | Op::LLVMAtomicCmpXchg) => true,
        Some(Op::LLVMCall | Op::LLVMInvoke | Op::LLVMCallBr) => {
            !(waits_or_reads(i) || is_hook_call(i))
        }
        _ => false,
    }
}

/// The instruction before `i` in its block.
fn previous(i: Value) -> Option<Value> {
    // SAFETY: `i` is an instruction of a live function.
    let p = unsafe { c::LLVMGetPreviousInstruction(i) };
    (!p.is_null()).then_some(p)
}

/// The condition of `block`'s conditional branch, which successor index
/// goes to `header` (`via_forward`: or to an empty block that branches
/// there), and the other successor.
fn test_of(
    block: LLVMBasicBlockRef,
    header: LLVMBasicBlockRef,
    via_forward: bool,
) -> Option<(Value, u32, LLVMBasicBlockRef)> {
    let cond = condition(block)?;
    let t = terminator(block);
    let to_header =
        |s: LLVMBasicBlockRef| s == header || (via_forward && forwards_to(s) == Some(header));
    // SAFETY: `t` is a conditional branch of a live function.
    let (a, b) = unsafe { (c::LLVMGetSuccessor(t, 0), c::LLVMGetSuccessor(t, 1)) };
    match (to_header(a), to_header(b)) {
        (true, false) => Some((cond, 0, b)),
        (false, true) => Some((cond, 1, a)),
        _ => None,
    }
}

/// Do the two exits lead to the same place (the same block, or one an
/// empty block that only branches to the other)?
fn same_exit(a: LLVMBasicBlockRef, b: LLVMBasicBlockRef) -> bool {
    a == b || forwards_to(a) == Some(b) || forwards_to(b) == Some(a)
}

/// The target of a block that is nothing but an unconditional branch.
fn forwards_to(b: LLVMBasicBlockRef) -> Option<LLVMBasicBlockRef> {
    let t = terminator(b);
    // SAFETY: `b` is a block of a live function.
    unsafe {
        if t.is_null() || c::LLVMGetFirstInstruction(b) != t || llvm::opcode(t) != Some(Op::LLVMBr)
        {
            return None;
        }
        (c::LLVMIsConditional(t) == 0).then(|| c::LLVMGetSuccessor(t, 0))
    }
}

/// Do `a` and `b` compute the same thing: the same value, or instructions
/// of the same kind (and comparison) over operands that do?
fn same_value(a: Value, b: Value, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth == 0 {
        return false;
    }
    // The value an atomic load's hook returns: the load's own value, with
    // the hook's site the only difference.
    if let (Some(na), Some(nb)) = (
        crate::load_value::native_of(a),
        crate::load_value::native_of(b),
    ) {
        return same_value(na, nb, depth - 1);
    }
    let (Some(oa), Some(ob)) = (llvm::opcode(a), llvm::opcode(b)) else {
        return false;
    };
    if oa != ob || matches!(oa, Op::LLVMPHI | Op::LLVMAlloca | Op::LLVMStore) {
        return false;
    }
    // SAFETY: `a` and `b` are instructions of a live function.
    unsafe {
        if llvm::type_of(a) != llvm::type_of(b) {
            return false;
        }
        if oa == Op::LLVMICmp && c::LLVMGetICmpPredicate(a) != c::LLVMGetICmpPredicate(b) {
            return false;
        }
        if matches!(oa, Op::LLVMExtractValue | Op::LLVMInsertValue) {
            let n = c::LLVMGetNumIndices(a);
            if n != c::LLVMGetNumIndices(b)
                || std::slice::from_raw_parts(c::LLVMGetIndices(a), n as usize)
                    != std::slice::from_raw_parts(c::LLVMGetIndices(b), n as usize)
            {
                return false;
            }
        }
        if oa == Op::LLVMGetElementPtr || oa == Op::LLVMLoad {
            // Same operands, and for a load the same width: compared below.
        } else if !is_pure(a) && oa != Op::LLVMCall {
            return false;
        }
        // The same inline assembly on the same operands does the same;
        // a function call may not.
        if oa == Op::LLVMCall && llvm::called_inline_asm(a).is_none() {
            return false;
        }
        let n = c::LLVMGetNumOperands(a);
        if n != c::LLVMGetNumOperands(b) {
            return false;
        }
        (0..n as u32).all(|k| same_value(llvm::operand(a, k), llvm::operand(b, k), depth - 1))
    }
}

/// The instructions of `blocks` that `v` is computed from (`v` included).
fn slice(v: Value, blocks: &[LLVMBasicBlockRef]) -> HashSet<Value> {
    let mut seen = HashSet::new();
    let mut work = vec![v];
    while let Some(x) = work.pop() {
        let Some(op) = llvm::opcode(x) else { continue };
        // SAFETY: `x` is an instruction of a live function.
        let block = unsafe { c::LLVMGetInstructionParent(x) };
        if op == Op::LLVMPHI || !blocks.contains(&block) || !seen.insert(x) {
            continue;
        }
        // SAFETY: as above.
        let n = unsafe { c::LLVMGetNumOperands(x) };
        work.extend((0..n as u32).map(|k| llvm::operand(x, k)));
    }
    seen
}

/// Is `i` a call of inline assembly or an intrinsic that writes no memory
/// the program names (a spin hint, a fence, an asm load)?
fn waits_or_reads(i: Value) -> bool {
    if let Some(asm) = llvm::called_inline_asm(i) {
        let constraints = llvm::inline_asm_constraints(asm);
        return !constraints
            .split(',')
            .any(|e| e.starts_with("=*") || e.starts_with("=&*"));
    }
    llvm::called_function(i).is_some_and(|f| {
        let name = llvm::name(f);
        name == "llvm.x86.sse2.pause"
            || name == "llvm.assume"
            || name.starts_with("llvm.dbg.")
            || name.starts_with("llvm.lifetime.")
    })
}

/// May `i` stand in a rotated spin loop beside its test: a spin hint, a
/// fence, a runtime hook, or an instruction without memory effects?
fn waits_only(i: Value) -> bool {
    match llvm::opcode(i) {
        Some(Op::LLVMCall) => waits_or_reads(i) || is_hook_call(i),
        Some(Op::LLVMFence) => true,
        _ => is_pure(i),
    }
}

/// Is `i` a call of one of the runtime's hooks (or their guards)?
fn is_hook_call(i: Value) -> bool {
    llvm::opcode(i) == Some(Op::LLVMCall)
        && llvm::called_function(i).is_some_and(|f| llvm::name(f).starts_with("__reach_"))
}

/// Does `i` compute a value without touching memory or calling?
fn is_pure(i: Value) -> bool {
    matches!(
        llvm::opcode(i),
        Some(
            Op::LLVMGetElementPtr
                | Op::LLVMBitCast
                | Op::LLVMPtrToInt
                | Op::LLVMIntToPtr
                | Op::LLVMZExt
                | Op::LLVMSExt
                | Op::LLVMTrunc
                | Op::LLVMICmp
                | Op::LLVMAnd
                | Op::LLVMOr
                | Op::LLVMXor
                | Op::LLVMAdd
                | Op::LLVMSub
                | Op::LLVMShl
                | Op::LLVMLShr
                | Op::LLVMAShr
                | Op::LLVMSelect
                | Op::LLVMExtractValue
                | Op::LLVMFreeze
        )
    )
}

fn is_terminator(i: Value) -> bool {
    // SAFETY: `i` is an instruction of a live function.
    unsafe { !c::LLVMIsATerminatorInst(i).is_null() }
}

fn terminator(bb: LLVMBasicBlockRef) -> Value {
    // SAFETY: `bb` is a block of a live function.
    unsafe { c::LLVMGetBasicBlockTerminator(bb) }
}

fn instructions(bb: LLVMBasicBlockRef) -> impl Iterator<Item = Value> {
    // SAFETY: `bb` is a block of a live function.
    let first = unsafe { c::LLVMGetFirstInstruction(bb) };
    std::iter::successors((!first.is_null()).then_some(first), |&i| {
        // SAFETY: as above.
        let next = unsafe { c::LLVMGetNextInstruction(i) };
        (!next.is_null()).then_some(next)
    })
}
