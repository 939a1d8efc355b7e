//! Calls of the runtime's read-modify-write hook: the one place that
//! builds its arguments, used for IR atomics and inline assembly alike.

use crate::hooks::HookSet;
use crate::llvm::{self, Value};
use inkwell::builder::{Builder, BuilderError};
use inkwell::values::{
    BasicMetadataValueEnum, FloatValue, InstructionValue, IntValue, PointerValue,
};
use reach_channel::hooks::{self, RmwOp};

/// Emits `__reach_atomic_rmw(site, ptr, size, ordering, op, operand)` at
/// the builder's position, before a read-modify-write of `size` bytes at
/// `ptr`: the one place that builds this hook's arguments. `operand` (the
/// value operand) is passed when [`rmw_operand_as_i64`] can read it, and the
/// code says whether it was; an operation the pass cannot name passes
/// [`RmwOp::Unknown`] and `None` (the runtime then counts it as a write).
/// `result_unused` (nothing uses the old value the operation returns) adds
/// [`hooks::RMW_RESULT_UNUSED`] to the code.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_rmw<'ctx>(
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    site: u64,
    ptr: Value,
    size: u64,
    ordering: u32,
    op: RmwOp,
    operand: Option<Value>,
    result_unused: bool,
) -> Result<InstructionValue<'ctx>, BuilderError> {
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    let i32t = ctx.i32_type();
    let value = match operand {
        Some(v) => rmw_operand_as_i64(builder, op, v, size)?,
        None => None,
    };
    let unused = if result_unused {
        hooks::RMW_RESULT_UNUSED
    } else {
        0
    };
    let code = op.code(value.is_some()) | unused;
    let args: [BasicMetadataValueEnum<'ctx>; 6] = [
        i64t.const_int(site, false).into(),
        // SAFETY: the address operand of a memory instruction is a pointer.
        unsafe { PointerValue::new(ptr) }.into(),
        i64t.const_int(size, false).into(),
        i32t.const_int(u64::from(ordering), false).into(),
        i32t.const_int(u64::from(code), false).into(),
        value.unwrap_or_else(|| i64t.const_zero()).into(),
    ];
    hooks.call(builder, &hooks::ATOMIC_RMW, &args)
}

/// The value operand of a read-modify-write as an `i64`, when the runtime
/// can compute the operation's result from it: integers and pointers of at
/// most 8 bytes (zero-extended), and for an exchange also the bits of a
/// `half`/`bfloat`/`float`/`double`. `None` otherwise (floating-point
/// arithmetic, wider or vector operands).
fn rmw_operand_as_i64<'ctx>(
    builder: &Builder<'ctx>,
    op: RmwOp,
    v: Value,
    size: u64,
) -> Result<Option<IntValue<'ctx>>, BuilderError> {
    use inkwell::llvm_sys::LLVMTypeKind as K;
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    let ty = llvm::type_of(v);
    if size > 8 || op == RmwOp::Unknown {
        return Ok(None);
    }
    let width = llvm::int_width(ty);
    if width > 0 && width <= 64 {
        // SAFETY: `v` is an integer value.
        let iv = unsafe { IntValue::new(v) };
        return builder
            .build_int_z_extend_or_bit_cast(iv, i64t, "")
            .map(Some);
    }
    match llvm::type_kind(ty) {
        K::LLVMPointerTypeKind if llvm::address_space(ty) == 0 => {
            // SAFETY: `v` is a pointer value.
            let pv = unsafe { PointerValue::new(v) };
            builder.build_ptr_to_int(pv, i64t, "").map(Some)
        }
        K::LLVMHalfTypeKind
        | K::LLVMBFloatTypeKind
        | K::LLVMFloatTypeKind
        | K::LLVMDoubleTypeKind
            if op == RmwOp::Xchg =>
        {
            // SAFETY: `v` is a floating-point value.
            let fv = unsafe { FloatValue::new(v) };
            let bits = match size {
                2 => ctx.i16_type(),
                4 => ctx.i32_type(),
                8 => i64t,
                _ => return Ok(None),
            };
            let iv = builder.build_bit_cast(fv, bits, "")?.into_int_value();
            builder
                .build_int_z_extend_or_bit_cast(iv, i64t, "")
                .map(Some)
        }
        _ => Ok(None),
    }
}
