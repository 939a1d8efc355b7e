//! Thin wrappers over the LLVM C API for what inkwell does not expose
//! (use lists, atomic orderings, intrinsic ids, store sizes, metadata operands).
//!
//! Every function takes raw references obtained from a live module owned by
//! the caller; they are only used inside this crate while that module lives.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// A raw LLVM value reference.
pub(crate) type Value = LLVMValueRef;

/// Opcode of an instruction, or `None` for a non-instruction value.
pub(crate) fn opcode(v: Value) -> Option<LLVMOpcode> {
    // SAFETY: `v` is a live value of the module being processed.
    unsafe {
        if c::LLVMIsAInstruction(v).is_null() {
            None
        } else {
            Some(c::LLVMGetInstructionOpcode(v))
        }
    }
}

/// Opcode of a constant expression, or `None` for anything else.
pub(crate) fn const_opcode(v: Value) -> Option<LLVMOpcode> {
    // SAFETY: as above.
    unsafe {
        if c::LLVMIsAConstantExpr(v).is_null() {
            None
        } else {
            Some(c::LLVMGetConstOpcode(v))
        }
    }
}

/// The `i`-th operand of a user.
pub(crate) fn operand(v: Value, i: u32) -> Value {
    // SAFETY: callers only ask for operands that exist for the opcode.
    unsafe { c::LLVMGetOperand(v, i) }
}

/// True if anything uses `v` (debug records are not uses).
pub(crate) fn has_uses(v: Value) -> bool {
    // SAFETY: reading the head of a live value's use list.
    unsafe { !c::LLVMGetFirstUse(v).is_null() }
}

/// Every user of `v` paired with the operand index where `v` is used (one
/// entry per use).
pub(crate) fn uses(v: Value) -> Vec<(Value, u32)> {
    let mut out = Vec::new();
    // SAFETY: walking the use list of a live value.
    unsafe {
        let mut u = c::LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = c::LLVMGetUser(u);
            let n = c::LLVMGetNumOperands(user).max(0) as u32;
            for i in 0..n {
                if c::LLVMGetOperand(user, i) == v && !out.contains(&(user, i)) {
                    out.push((user, i));
                    break;
                }
            }
            u = c::LLVMGetNextUse(u);
        }
    }
    out
}

/// Type of a value.
pub(crate) fn type_of(v: Value) -> LLVMTypeRef {
    // SAFETY: live value.
    unsafe { c::LLVMTypeOf(v) }
}

/// Kind of a type.
pub(crate) fn type_kind(t: LLVMTypeRef) -> LLVMTypeKind {
    // SAFETY: live type.
    unsafe { c::LLVMGetTypeKind(t) }
}

/// Address space of a pointer type (0 for non-pointers).
pub(crate) fn address_space(t: LLVMTypeRef) -> u32 {
    if type_kind(t) == LLVMTypeKind::LLVMPointerTypeKind {
        // SAFETY: `t` is a pointer type.
        unsafe { c::LLVMGetPointerAddressSpace(t) }
    } else {
        0
    }
}

/// Integer bit width of an integer type (0 otherwise).
pub(crate) fn int_width(t: LLVMTypeRef) -> u32 {
    if type_kind(t) == LLVMTypeKind::LLVMIntegerTypeKind {
        // SAFETY: `t` is an integer type.
        unsafe { c::LLVMGetIntTypeWidth(t) }
    } else {
        0
    }
}

/// Store size in bytes of `t` under the module's data layout.
pub(crate) fn store_size(module: LLVMModuleRef, t: LLVMTypeRef) -> u64 {
    // SAFETY: the data layout is owned by the live module.
    unsafe {
        let dl = inkwell::llvm_sys::target::LLVMGetModuleDataLayout(module);
        inkwell::llvm_sys::target::LLVMStoreSizeOfType(dl, t)
    }
}

/// Allocation size in bytes of `t` (with its padding) under the module's data layout.
pub(crate) fn alloc_size(module: LLVMModuleRef, t: LLVMTypeRef) -> u64 {
    // SAFETY: the data layout is owned by the live module.
    unsafe {
        let dl = inkwell::llvm_sys::target::LLVMGetModuleDataLayout(module);
        inkwell::llvm_sys::target::LLVMABISizeOfType(dl, t)
    }
}

/// Name of a value (empty if unnamed).
pub(crate) fn name(v: Value) -> String {
    // SAFETY: LLVM returns a pointer/length pair into the value's name.
    unsafe {
        let mut len = 0usize;
        let p = c::LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// The function a call/invoke calls directly (through no cast), if any.
pub(crate) fn called_function(call: Value) -> Option<Value> {
    // SAFETY: `call` is a call or invoke instruction.
    unsafe {
        let callee = c::LLVMGetCalledValue(call);
        if callee.is_null() || c::LLVMIsAFunction(callee).is_null() {
            None
        } else {
            Some(callee)
        }
    }
}

/// Number of arguments of a call/invoke.
pub(crate) fn num_args(call: Value) -> u32 {
    // SAFETY: `call` is a call or invoke instruction.
    unsafe { c::LLVMGetNumArgOperands(call) }
}

/// Atomic ordering of a load/store/atomicrmw/fence, or the success ordering
/// of a cmpxchg, as LLVM's numeric `AtomicOrdering`.
pub(crate) fn ordering(inst: Value) -> u32 {
    // SAFETY: `inst` is an atomic instruction.
    unsafe {
        if opcode(inst) == Some(LLVMOpcode::LLVMAtomicCmpXchg) {
            c::LLVMGetCmpXchgSuccessOrdering(inst) as u32
        } else {
            c::LLVMGetOrdering(inst) as u32
        }
    }
}

/// Failure ordering of a cmpxchg, as LLVM's numeric `AtomicOrdering`.
pub(crate) fn failure_ordering(inst: Value) -> u32 {
    // SAFETY: `inst` is a cmpxchg.
    unsafe { c::LLVMGetCmpXchgFailureOrdering(inst) as u32 }
}

/// True if an atomic instruction is `syncscope("singlethread")` (a signal
/// fence or access only ordered against signal handlers of the same thread).
pub(crate) fn is_single_thread(inst: Value) -> bool {
    // SAFETY: `inst` is an atomic instruction.
    unsafe { c::LLVMIsAtomicSingleThread(inst) != 0 }
}

/// True if a load/store/atomicrmw/cmpxchg is volatile.
pub(crate) fn is_volatile(inst: Value) -> bool {
    // SAFETY: `inst` is a memory instruction.
    unsafe { c::LLVMGetVolatile(inst) != 0 }
}

/// True for a `cmpxchg weak`.
pub(crate) fn is_weak(inst: Value) -> bool {
    // SAFETY: `inst` is a cmpxchg.
    unsafe { c::LLVMGetWeak(inst) != 0 }
}

/// True for a global variable.
pub(crate) fn is_global_variable(v: Value) -> bool {
    // SAFETY: live value.
    unsafe { !c::LLVMIsAGlobalVariable(v).is_null() }
}

/// True for a thread-local global variable.
pub(crate) fn is_thread_local(global: Value) -> bool {
    // SAFETY: `global` is a global variable.
    unsafe { c::LLVMIsThreadLocal(global) != 0 }
}

/// True for a `constant` global variable.
pub(crate) fn is_global_constant(global: Value) -> bool {
    // SAFETY: `global` is a global variable.
    unsafe { c::LLVMIsGlobalConstant(global) != 0 }
}

/// A (pointer, length) string from LLVM as an owned `String`.
pub(crate) fn lstr(p: *const std::os::raw::c_char, len: usize) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: LLVM hands out `len` valid bytes.
        let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// The debug location attached to an instruction (null if none).
pub(crate) fn debug_loc(inst: Value) -> LLVMMetadataRef {
    // SAFETY: `inst` is an instruction.
    unsafe { inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(inst) }
}

/// Attaches a debug location (possibly null) to an instruction.
pub(crate) fn set_debug_loc(inst: Value, loc: LLVMMetadataRef) {
    // SAFETY: `inst` is an instruction, `loc` a DILocation or null.
    unsafe { inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(inst, loc) }
}

/// True for a function without a body.
pub(crate) fn is_declaration(f: Value) -> bool {
    // SAFETY: `f` is a global value.
    unsafe { c::LLVMIsDeclaration(f) != 0 }
}

/// True for a call or invoke that never returns normally: its call site or
/// its callee has the `noreturn` attribute (Rust's panics, `abort`, C's
/// `exit`).
pub(crate) fn never_returns(call: Value) -> bool {
    let name = "noreturn";
    // SAFETY: `call` is a call-like instruction; attribute lookups only
    // read it and its callee.
    unsafe {
        let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
        if kind == 0 {
            return false;
        }
        let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
        if !c::LLVMGetCallSiteEnumAttribute(call, index, kind).is_null() {
            return true;
        }
        called_function(call)
            .is_some_and(|f| !c::LLVMGetEnumAttributeAtIndex(f, index, kind).is_null())
    }
}

/// True for a landing pad that catches or filters exceptions (it has
/// clauses), as opposed to one that only runs cleanups and resumes.
pub(crate) fn landing_pad_catches(pad: Value) -> bool {
    // SAFETY: `pad` is a landingpad instruction.
    unsafe { c::LLVMGetNumClauses(pad) > 0 }
}

/// The inline-assembly value a call/invoke/callbr calls, if it calls one.
pub(crate) fn called_inline_asm(call: Value) -> Option<Value> {
    // SAFETY: `call` is a call-like instruction.
    unsafe {
        let callee = c::LLVMGetCalledValue(call);
        (!callee.is_null() && !c::LLVMIsAInlineAsm(callee).is_null()).then_some(callee)
    }
}

/// The instructions of function definition `f`, block by block.
pub(crate) fn instructions(f: Value) -> impl Iterator<Item = Value> {
    // SAFETY (every block below): `f` is a function of a live module; its
    // blocks and instructions are walked through LLVM's own links, null at
    // the ends.
    let first_block = unsafe { c::LLVMGetFirstBasicBlock(f) };
    std::iter::successors((!first_block.is_null()).then_some(first_block), |&bb| {
        // SAFETY: as above.
        let next = unsafe { c::LLVMGetNextBasicBlock(bb) };
        (!next.is_null()).then_some(next)
    })
    .flat_map(|bb| {
        // SAFETY: as above.
        let first = unsafe { c::LLVMGetFirstInstruction(bb) };
        std::iter::successors((!first.is_null()).then_some(first), |&inst| {
            // SAFETY: as above.
            let next = unsafe { c::LLVMGetNextInstruction(inst) };
            (!next.is_null()).then_some(next)
        })
    })
}

/// The assembly text of an inline-assembly value.
pub(crate) fn inline_asm_text(asm: Value) -> String {
    let mut len = 0usize;
    // SAFETY: `asm` is an InlineAsm value; LLVM returns a pointer/length pair.
    let p = unsafe { c::LLVMGetInlineAsmAsmString(asm, &mut len) };
    lstr(p, len)
}

/// The constraint string of an inline-assembly value.
pub(crate) fn inline_asm_constraints(asm: Value) -> String {
    let mut len = 0usize;
    // SAFETY: `asm` is an InlineAsm value; LLVM returns a pointer/length pair.
    let p = unsafe { c::LLVMGetInlineAsmConstraintString(asm, &mut len) };
    lstr(p, len)
}

/// The type of the `elementtype` attribute of argument `i` of a call, if any.
pub(crate) fn arg_element_type(call: Value, i: u32) -> Option<LLVMTypeRef> {
    let kind = inkwell::attributes::Attribute::get_named_enum_kind_id("elementtype");
    if kind == 0 {
        return None;
    }
    // SAFETY: `call` is a call-like instruction; attribute index 1 is its first argument.
    unsafe {
        let a = c::LLVMGetCallSiteEnumAttribute(call, i + 1, kind);
        if a.is_null() || c::LLVMIsTypeAttribute(a) == 0 {
            return None;
        }
        let t = c::LLVMGetTypeAttributeValue(a);
        (!t.is_null()).then_some(t)
    }
}

/// True if `t` has a fixed size (not a function, label, opaque struct or
/// scalable vector type).
pub(crate) fn is_sized(t: LLVMTypeRef) -> bool {
    // SAFETY: live type.
    let sized = unsafe { c::LLVMTypeIsSized(t) != 0 };
    sized && type_kind(t) != LLVMTypeKind::LLVMScalableVectorTypeKind
}
