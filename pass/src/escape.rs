//! Which pointers may refer to memory shared between threads.
//!
//! A pointer is traced back through GEPs and casts to its underlying object.
//! Accesses are left uninstrumented when that object is
//!
//! * an `alloca` whose address provably never leaves its thread: it is
//!   used in the function or passed to functions of the module that only
//!   access memory through it (see [`EscapeAnalysis::escapes`]),
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
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::{LLVMLinkage, LLVMOpcode as Op};
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
    /// Whether a module function's pointer parameter may escape.
    params: HashMap<(Value, u32), bool>,
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

    /// True if the address of `alloca` may leave its function's thread: it
    /// (or a pointer derived from it through GEP/cast/phi/select, or kept
    /// in a stack slot that only holds it, as unoptimised code spills
    /// every pointer) is stored as a value elsewhere, passed to a call other
    /// than lifetime/debug/mem* intrinsics, the library functions that keep
    /// no pointer and the module's functions that only access memory
    /// through that argument (see [`Self::param_captures`]), given to inline
    /// assembly other than as a memory operand (`"m"(x)` lets the asm access
    /// `x`, a register operand hands it the address), returned, converted to
    /// an integer, or used in any way not known to be harmless.
    pub(crate) fn escapes(&mut self, alloca: Value) -> bool {
        if let Some(&e) = self.escapes.get(&alloca) {
            return e;
        }
        let e = self.derived_pointer_escapes(alloca);
        self.escapes.insert(alloca, e);
        e
    }

    /// True if the function `f` of the module may keep or publish the
    /// pointer passed as its parameter `idx`: by the rules of
    /// [`Self::escapes`] applied to the parameter. A function in the middle
    /// of this question (recursion) is assumed to capture.
    fn param_captures(&mut self, f: Value, idx: u32) -> bool {
        if let Some(&c) = self.params.get(&(f, idx)) {
            return c;
        }
        // SAFETY: `f` is a function of a live module.
        let (count, variadic) = unsafe {
            (
                c::LLVMCountParams(f),
                c::LLVMIsFunctionVarArg(c::LLVMGlobalGetValueType(f)) != 0,
            )
        };
        // SAFETY: as above.
        let linkage = unsafe { c::LLVMGetLinkage(f) };
        // A definition another object file may replace says nothing.
        let replaceable = matches!(
            linkage,
            LLVMLinkage::LLVMWeakAnyLinkage
                | LLVMLinkage::LLVMLinkOnceAnyLinkage
                | LLVMLinkage::LLVMExternalWeakLinkage
                | LLVMLinkage::LLVMCommonLinkage
        );
        if llvm::is_declaration(f) || idx >= count || variadic || replaceable {
            return true;
        }
        self.params.insert((f, idx), true);
        // SAFETY: `idx` is below the function's parameter count.
        let param = unsafe { c::LLVMGetParam(f, idx) };
        let captures = self.derived_pointer_escapes(param);
        self.params.insert((f, idx), captures);
        captures
    }

    fn derived_pointer_escapes(&mut self, root: Value) -> bool {
        let mut work = vec![root];
        let mut seen = vec![root];
        while let Some(p) = work.pop() {
            for (user, idx) in llvm::uses(p) {
                let derived: Vec<Value> = match llvm::opcode(user) {
                    Some(Op::LLVMLoad) => Vec::new(),
                    // Operand 0 is the stored value, 1 the address.
                    Some(Op::LLVMStore) => {
                        if idx == 0 {
                            match holding_slot_loads(llvm::operand(user, 1)) {
                                Some(loads) => loads,
                                None => return true,
                            }
                        } else {
                            Vec::new()
                        }
                    }
                    Some(Op::LLVMAtomicRMW | Op::LLVMAtomicCmpXchg) => {
                        if idx != 0 {
                            return true;
                        }
                        Vec::new()
                    }
                    Some(Op::LLVMICmp) => Vec::new(),
                    Some(
                        Op::LLVMGetElementPtr
                        | Op::LLVMBitCast
                        | Op::LLVMAddrSpaceCast
                        | Op::LLVMPHI
                        | Op::LLVMSelect,
                    ) => vec![user],
                    Some(Op::LLVMCall | Op::LLVMInvoke | Op::LLVMCallBr)
                        if llvm::called_inline_asm(user).is_some() =>
                    {
                        // A memory operand lets the asm access the object, not
                        // learn its address; a register operand may publish it.
                        if !inline_asm::is_memory_operand(user, idx) {
                            return true;
                        }
                        Vec::new()
                    }
                    Some(Op::LLVMCall) => {
                        let Some(f) = llvm::called_function(user) else {
                            return true;
                        };
                        if idx >= llvm::num_args(user) {
                            return true;
                        }
                        let name = llvm::name(f);
                        let harmless = is_harmless_intrinsic(&name)
                            || name.starts_with("__reach_")
                            || library_does_not_capture(&name, idx)
                            || !self.param_captures(f, idx);
                        if !harmless {
                            return true;
                        }
                        Vec::new()
                    }
                    _ => return true,
                };
                for d in derived {
                    if !seen.contains(&d) {
                        seen.push(d);
                        work.push(d);
                    }
                }
            }
        }
        false
    }
}

/// If `slot` is a stack slot used only to hold values (every use a load of
/// it or a store into it, as unoptimised code keeps a pointer variable),
/// the loads of it: a pointer stored there comes back through them.
fn holding_slot_loads(slot: Value) -> Option<Vec<Value>> {
    if llvm::opcode(slot) != Some(Op::LLVMAlloca) {
        return None;
    }
    let mut loads = Vec::new();
    for (user, idx) in llvm::uses(slot) {
        match llvm::opcode(user) {
            Some(Op::LLVMLoad) => loads.push(user),
            Some(Op::LLVMStore) if idx == 1 => {}
            Some(Op::LLVMCall) => {
                let lifetime = llvm::called_function(user)
                    .is_some_and(|f| llvm::name(f).starts_with("llvm.lifetime."));
                if !lifetime {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(loads)
}
