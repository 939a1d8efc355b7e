//! Source names of stack variables, from the debug records that describe
//! their `alloca`:
//!
//! ```text
//! %1 = alloca [2 x i32], align 8, !DIAssignID !56
//!   #dbg_assign(i1 poison, !37, !DIExpression(), !56, ptr %1, !DIExpression(), !57)
//! !37 = !DILocalVariable(name: "results", scope: !30, file: !1, line: 34, ...)
//! ```
//!
//! `#dbg_declare(ptr %x, ...)` names its address directly; `#dbg_assign`
//! (assignment tracking, the default when optimising) carries it as its
//! fifth operand, which the C API does not expose, so it is read from the
//! record's text.

use crate::llvm::Value;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMDbgRecordRef, LLVMMetadataRef};
use inkwell::llvm_sys::LLVMDbgRecordKind as Kind;

/// The source name of the variable that `alloca` holds, if a debug record
/// of its function describes it.
pub(crate) fn variable_name(alloca: Value) -> Option<String> {
    let own = value_token(alloca)?;
    // SAFETY: walking the live function that contains `alloca`.
    unsafe {
        let function = c::LLVMGetBasicBlockParent(c::LLVMGetInstructionParent(alloca));
        let mut block = c::LLVMGetFirstBasicBlock(function);
        while !block.is_null() {
            let mut inst = c::LLVMGetFirstInstruction(block);
            while !inst.is_null() {
                let mut rec = c::LLVMGetFirstDbgRecord(inst);
                while !rec.is_null() {
                    if describes(rec, alloca, &own) {
                        return metadata_name(c::LLVMDbgVariableRecordGetVariable(rec), alloca);
                    }
                    rec = c::LLVMGetNextDbgRecord(rec);
                }
                inst = c::LLVMGetNextInstruction(inst);
            }
            block = c::LLVMGetNextBasicBlock(block);
        }
    }
    None
}

/// True if the variable record `rec` gives the address of `alloca`
/// (printed as `own`, e.g. `%1`).
///
/// # Safety
/// `rec` must be a live debug record.
unsafe fn describes(rec: LLVMDbgRecordRef, alloca: Value, own: &str) -> bool {
    // SAFETY: `rec` is live (caller).
    match unsafe { c::LLVMDbgRecordGetKind(rec) } {
        // SAFETY: a declare record has one location operand.
        Kind::LLVMDbgRecordDeclare => unsafe { c::LLVMDbgVariableRecordGetValue(rec, 0) == alloca },
        Kind::LLVMDbgRecordAssign => {
            // SAFETY: printing a live record.
            let text = unsafe { owned_string(c::LLVMPrintDbgRecordToString(rec)) };
            assign_address(&text).is_some_and(|address| address == format!("ptr {own}"))
        }
        _ => false,
    }
}

/// The address operand (the fifth) of a printed `#dbg_assign(...)`.
fn assign_address(text: &str) -> Option<String> {
    let body = text.trim().strip_prefix("#dbg_assign(")?;
    let mut depth = 0usize;
    let mut field = 0usize;
    let mut start = 0usize;
    for (i, ch) in body.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                if field == 4 {
                    return Some(body[start..i].trim().to_string());
                }
                field += 1;
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// How `v` is written as an operand (`%1`, `%buf`).
fn value_token(v: Value) -> Option<String> {
    // SAFETY: printing a live value.
    let text = unsafe { owned_string(c::LLVMPrintValueToString(v)) };
    let (name, _) = text.trim().split_once(" = ")?;
    name.starts_with('%').then(|| name.to_string())
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

/// Copies and frees a string LLVM allocated.
///
/// # Safety
/// `p` must be null or a string from an LLVM `Print*ToString`.
unsafe fn owned_string(p: *mut core::ffi::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string from LLVM, freed once here.
    unsafe {
        let s = core::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
        c::LLVMDisposeMessage(p);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::assign_address;

    #[test]
    fn the_fifth_operand_of_an_assign_record_is_its_address() {
        let text = "    #dbg_assign(ptr %4, !41, !DIExpression(DW_OP_LLVM_fragment, 0, 64), !77, ptr %2, !DIExpression(), !57)";
        assert_eq!(assign_address(text).as_deref(), Some("ptr %2"));
        assert_eq!(
            assign_address("#dbg_value(i32 0, !1, !DIExpression(), !2)"),
            None
        );
    }
}
