//! Which pointers may refer to memory shared between threads.
//!
//! A pointer is traced back through GEPs and casts to its underlying object.
//! Accesses are left uninstrumented when that object is
//!
//! * an `alloca` whose address provably never leaves the function (see
//!   [`EscapeAnalysis::escapes`]),
//! * a thread-local global (directly or through `llvm.threadlocal.address`),
//! * a `constant` global (nobody can write it, so reads never conflict),
//! * in a non-default address space (`fs`/`gs`-relative, thread-private).
//!
//! Everything else (globals, heap, pointer arguments, escaped allocas, loaded
//! pointers) is [`Sharing::Shared`] and gets a hook.
//!
//! ```text
//! %x = alloca i32              ; never stored, passed or returned
//! store i32 1, ptr %x          ; -> Sharing::LocalAlloca, no hook
//! %y = alloca i32
//! call void @publish(ptr %y)   ; %y escapes
//! store i32 1, ptr %y          ; -> Sharing::Shared, hooked
//! ```

use crate::inline_asm;
use crate::llvm::{self, Value};
use inkwell::llvm_sys::LLVMOpcode as Op;
use std::collections::HashMap;

/// Whether the object a pointer refers to may be shared between threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// May be shared: instrument.
    Shared,
    /// A non-escaping stack object.
    LocalAlloca,
    /// A thread-local global.
    ThreadLocal,
    /// A constant global.
    ConstantGlobal,
    /// A pointer in a non-default address space.
    OtherAddressSpace,
}

/// Per-module memo of alloca escape results.
#[derive(Default)]
pub struct EscapeAnalysis {
    escapes: HashMap<Value, bool>,
}

/// Intrinsics whose pointer arguments never capture a stack object's address.
fn is_harmless_intrinsic(name: &str) -> bool {
    [
        "llvm.lifetime.",
        "llvm.dbg.",
        "llvm.memcpy",
        "llvm.memmove",
        "llvm.memset",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// C library functions known not to keep or publish a pointer passed as
/// argument `idx`: the pthread and semaphore API (except the argument
/// `pthread_create` hands to the new thread and the value of
/// `pthread_setspecific`), time functions, and formatted output. A stack
/// object passed to them stays private to its thread (`pthread_t t;
/// pthread_create(&t, ...)` does not make `t` shared).
fn library_does_not_capture(name: &str, idx: u32) -> bool {
    match name {
        "pthread_create" => idx != 3,
        "pthread_setspecific" => idx != 1,
        "clock_gettime" | "gettimeofday" | "time" | "nanosleep" | "clock_nanosleep" | "printf"
        | "fprintf" | "snprintf" | "sprintf" | "puts" | "strlen" | "strcmp" | "strncmp"
        | "memcmp" | "atoi" | "strtol" => true,
        _ => name.starts_with("pthread_") || name.starts_with("sem_"),
    }
}

/// Follows GEPs and pointer casts (instructions and constant expressions) and
/// `llvm.threadlocal.address` back to the object a pointer is derived from.
pub(crate) fn underlying_object(mut v: Value) -> Value {
    for _ in 0..64 {
        let op = llvm::opcode(v).or_else(|| llvm::const_opcode(v));
        match op {
            Some(Op::LLVMGetElementPtr | Op::LLVMBitCast | Op::LLVMAddrSpaceCast) => {
                v = llvm::operand(v, 0);
            }
            Some(Op::LLVMCall) => match llvm::called_function(v) {
                Some(f) if llvm::name(f).starts_with("llvm.threadlocal.address") => {
                    v = llvm::operand(v, 0);
                }
                _ => return v,
            },
            _ => return v,
        }
    }
    v
}

impl EscapeAnalysis {
    /// Classifies the memory `ptr` points to.
    pub(crate) fn classify(&mut self, ptr: Value) -> Sharing {
        if llvm::address_space(llvm::type_of(ptr)) != 0 {
            return Sharing::OtherAddressSpace;
        }
        let base = underlying_object(ptr);
        if llvm::is_global_variable(base) {
            if llvm::is_thread_local(base) {
                return Sharing::ThreadLocal;
            }
            if llvm::is_global_constant(base) {
                return Sharing::ConstantGlobal;
            }
            return Sharing::Shared;
        }
        if llvm::opcode(base) == Some(Op::LLVMAlloca) && !self.escapes(base) {
            return Sharing::LocalAlloca;
        }
        Sharing::Shared
    }

    /// True if the address of `alloca` may leave its function: it (or a
    /// pointer derived from it through GEP/cast/phi/select) is stored as a
    /// value, passed to a call other than lifetime/debug/mem* intrinsics or
    /// the library functions that keep no pointer, given to inline assembly
    /// other than as a memory operand (`"m"(x)` lets the asm access `x`, a
    /// register operand hands it the address), returned, converted to an
    /// integer, or used in any way not known to be harmless.
    pub(crate) fn escapes(&mut self, alloca: Value) -> bool {
        if let Some(&e) = self.escapes.get(&alloca) {
            return e;
        }
        let e = derived_pointer_escapes(alloca);
        self.escapes.insert(alloca, e);
        e
    }
}

fn derived_pointer_escapes(root: Value) -> bool {
    let mut work = vec![root];
    let mut seen = vec![root];
    while let Some(p) = work.pop() {
        for (user, idx) in llvm::uses(p) {
            let derived = match llvm::opcode(user) {
                Some(Op::LLVMLoad) => false,
                // Operand 0 is the stored value, 1 the address.
                Some(Op::LLVMStore) => {
                    if idx == 0 {
                        return true;
                    }
                    false
                }
                Some(Op::LLVMAtomicRMW | Op::LLVMAtomicCmpXchg) => {
                    if idx != 0 {
                        return true;
                    }
                    false
                }
                Some(Op::LLVMICmp) => false,
                Some(
                    Op::LLVMGetElementPtr
                    | Op::LLVMBitCast
                    | Op::LLVMAddrSpaceCast
                    | Op::LLVMPHI
                    | Op::LLVMSelect,
                ) => true,
                Some(Op::LLVMCall | Op::LLVMInvoke | Op::LLVMCallBr)
                    if llvm::called_inline_asm(user).is_some() =>
                {
                    // A memory operand lets the asm access the object, not
                    // learn its address; a register operand may publish it.
                    if !inline_asm::is_memory_operand(user, idx) {
                        return true;
                    }
                    false
                }
                Some(Op::LLVMCall) => {
                    let harmless = llvm::called_function(user)
                        .map(|f| {
                            let name = llvm::name(f);
                            is_harmless_intrinsic(&name) || library_does_not_capture(&name, idx)
                        })
                        .unwrap_or(false);
                    if !harmless || idx >= llvm::num_args(user) {
                        return true;
                    }
                    false
                }
                _ => return true,
            };
            if derived && !seen.contains(&user) {
                seen.push(user);
                work.push(user);
            }
        }
    }
    false
}
