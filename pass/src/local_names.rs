//! Source names of stack variables, from the debug records that describe
//! their `alloca`:
//!
//! ```text
//! %1 = alloca [2 x i32], align 8, !DIAssignID !56
//!   #dbg_assign(i1 poison, !37, !DIExpression(), !56, ptr %1, !DIExpression(), !57)
//! !37 = !DILocalVariable(name: "results", scope: !30, file: !1, line: 34, ...)
//! ```
//!
//! `#dbg_declare(ptr %x, ...)` names its address directly. `#dbg_assign`
//! (assignment tracking, the default when optimising) carries the address
//! as an operand the C API does not expose; the record that introduces a
//! variable follows its `alloca` immediately, with a `poison` value, and is
//! taken as naming it. One walk per function finds every name.

use crate::llvm::Value;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMMetadataRef;
use inkwell::llvm_sys::LLVMDbgRecordKind as Kind;
use inkwell::llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// Variable names of the `alloca`s of each function seen so far.
#[derive(Default)]
pub(crate) struct LocalNames {
    by_function: HashMap<Value, HashMap<Value, String>>,
}

impl LocalNames {
    /// The source name of the variable that `alloca` holds, if a debug
    /// record of its function describes it.
    pub(crate) fn variable_name(&mut self, alloca: Value) -> Option<String> {
        // SAFETY: `alloca` is a live instruction in a function.
        let function = unsafe { c::LLVMGetBasicBlockParent(c::LLVMGetInstructionParent(alloca)) };
        self.by_function
            .entry(function)
            .or_insert_with(|| names_in(function))
            .get(&alloca)
            .cloned()
    }
}

/// Walks the debug records of `function` once: every `alloca` a record
/// names, with the name.
fn names_in(function: Value) -> HashMap<Value, String> {
    let mut names = HashMap::new();
    // SAFETY: walking a live function's blocks, instructions and records.
    unsafe {
        let mut block = c::LLVMGetFirstBasicBlock(function);
        while !block.is_null() {
            let mut inst = c::LLVMGetFirstInstruction(block);
            while !inst.is_null() {
                let previous = c::LLVMGetPreviousInstruction(inst);
                let after_alloca = !previous.is_null()
                    && c::LLVMGetInstructionOpcode(previous) == LLVMOpcode::LLVMAlloca;
                let mut assign_seen = false;
                let mut rec = c::LLVMGetFirstDbgRecord(inst);
                while !rec.is_null() {
                    let named = match c::LLVMDbgRecordGetKind(rec) {
                        Kind::LLVMDbgRecordDeclare => {
                            Some(c::LLVMDbgVariableRecordGetValue(rec, 0))
                        }
                        Kind::LLVMDbgRecordAssign if after_alloca && !assign_seen => {
                            assign_seen = true;
                            let value = c::LLVMDbgVariableRecordGetValue(rec, 0);
                            (!value.is_null() && c::LLVMIsPoison(value) != 0).then_some(previous)
                        }
                        _ => None,
                    };
                    if let Some(target) = named.filter(|v| !v.is_null()) {
                        if let Some(name) =
                            metadata_name(c::LLVMDbgVariableRecordGetVariable(rec), target)
                        {
                            names.entry(target).or_insert(name);
                        }
                    }
                    rec = c::LLVMGetNextDbgRecord(rec);
                }
                inst = c::LLVMGetNextInstruction(inst);
            }
            block = c::LLVMGetNextBasicBlock(block);
        }
    }
    names
}

/// The `name:` of a `DILocalVariable` (its second operand) of the
/// function of `alloca`.
///
/// # Safety
/// `var` must be null or live metadata of the module of `alloca`.
unsafe fn metadata_name(var: LLVMMetadataRef, alloca: Value) -> Option<String> {
    if var.is_null() {
        return None;
    }
    // SAFETY: wrapping live metadata in its context and reading its operands.
    unsafe {
        let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(alloca));
        let node = c::LLVMMetadataAsValue(ctx, var);
        let n = c::LLVMGetMDNodeNumOperands(node) as usize;
        if n < 2 {
            return None;
        }
        let mut ops = vec![core::ptr::null_mut(); n];
        c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
        if ops[1].is_null() {
            return None;
        }
        let mut len = 0;
        let p = c::LLVMGetMDString(ops[1], &mut len);
        (!p.is_null() && len > 0).then(|| crate::llvm::lstr(p, len as usize))
    }
}
