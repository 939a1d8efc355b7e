//! Atomic loads whose value the runtime chooses: after an instrumented
//! atomic load, the value goes through the runtime's
//! `__reach_atomic_load_value` (see
//! [`reach_channel::hooks::ATOMIC_LOAD_VALUE`]), and the program uses what
//! it returns: the value of the store the memory model had the load read.
//!
//! ```text
//! %v = load atomic i32, ptr %p monotonic
//! %v.native = zext i32 %v to i64
//! %v.chosen = call i64 @__reach_atomic_load_value.guard(i64 SITE, ptr %p, i64 4, i64 %v.native)
//! %v.value = trunc i64 %v.chosen to i32      ; replaces every use of %v
//! ```
//!
//! The guard returns `native` when the runtime is not preloaded. Loads of
//! integers of 1, 2, 4 or 8 bytes, pointers and `half`/`bfloat`/`float`/
//! `double` go through it ([`chooses_value`]); others read memory.

use crate::llvm::{self, Value};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::builder::{Builder, BuilderError};
use inkwell::llvm_sys::prelude::LLVMTypeRef;
use inkwell::llvm_sys::LLVMTypeKind as K;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use reach_channel::hooks::ATOMIC_LOAD_VALUE;

/// Can a loaded value of type `ty` come from the runtime?
pub(crate) fn chooses_value(ty: LLVMTypeRef) -> bool {
    match llvm::type_kind(ty) {
        K::LLVMIntegerTypeKind => matches!(llvm::int_width(ty), 8 | 16 | 32 | 64),
        K::LLVMPointerTypeKind => llvm::address_space(ty) == 0,
        K::LLVMHalfTypeKind
        | K::LLVMBFloatTypeKind
        | K::LLVMFloatTypeKind
        | K::LLVMDoubleTypeKind => true,
        _ => false,
    }
}

/// The value a call of the value hook (or its guard) was given, the load's
/// own: `None` for any other value. Analyses that compare computations see
/// through the hook with it (under `sc` the hook returns that value).
pub(crate) fn native_of(v: Value) -> Option<Value> {
    if llvm::opcode(v) != Some(inkwell::llvm_sys::LLVMOpcode::LLVMCall) {
        return None;
    }
    let callee = llvm::called_function(v)?;
    let name = llvm::name(callee);
    let hook = ATOMIC_LOAD_VALUE.name;
    let is_hook = name == hook
        || name
            .strip_prefix(hook)
            .is_some_and(|rest| rest == crate::hooks::GUARD_SUFFIX);
    is_hook.then(|| llvm::operand(v, 3))
}

/// The guarded value hook of one module.
pub(crate) struct ValueHook<'ctx> {
    guard: FunctionValue<'ctx>,
}

impl<'ctx> ValueHook<'ctx> {
    /// Declares the hook (`extern_weak`) and its always-inline guard in
    /// `module`.
    pub(crate) fn declare(module: &Module<'ctx>) -> Result<Self, BuilderError> {
        let ctx = module.get_context();
        let i64t = ctx.i64_type();
        let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
        let fn_type = i64t.fn_type(&[i64t.into(), ptr.into(), i64t.into(), i64t.into()], false);
        let hook = module
            .get_function(ATOMIC_LOAD_VALUE.name)
            .unwrap_or_else(|| {
                module.add_function(ATOMIC_LOAD_VALUE.name, fn_type, Some(Linkage::ExternalWeak))
            });
        let guard_name = format!("{}{}", ATOMIC_LOAD_VALUE.name, crate::hooks::GUARD_SUFFIX);
        if let Some(guard) = module.get_function(&guard_name) {
            return Ok(ValueHook { guard });
        }
        let guard = module.add_function(&guard_name, fn_type, Some(Linkage::Internal));
        for attr in ["alwaysinline", "nounwind"] {
            let kind = Attribute::get_named_enum_kind_id(attr);
            guard.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(kind, 0));
        }
        let builder = ctx.create_builder();
        let entry = ctx.append_basic_block(guard, "entry");
        let call_bb = ctx.append_basic_block(guard, "call");
        let done = ctx.append_basic_block(guard, "done");
        builder.position_at_end(entry);
        let present =
            builder.build_is_not_null(hook.as_global_value().as_pointer_value(), "present")?;
        builder.build_conditional_branch(present, call_bb, done)?;
        builder.position_at_end(call_bb);
        let args: Vec<_> = guard.get_param_iter().map(Into::into).collect();
        let chosen = builder
            .build_call(hook, &args, "chosen")?
            .try_as_basic_value()
            .basic()
            .ok_or(BuilderError::UnsetPosition)?;
        builder.build_unconditional_branch(done)?;
        builder.position_at_end(done);
        let native = guard.get_nth_param(3).ok_or(BuilderError::UnsetPosition)?;
        let phi = builder.build_phi(i64t, "value")?;
        phi.add_incoming(&[(&native, entry), (&chosen, call_bb)]);
        builder.build_return(Some(&phi.as_basic_value()))?;
        Ok(ValueHook { guard })
    }

    /// After atomic load `load` of `size` bytes at `ptr` (site `site`):
    /// passes its value through the hook and makes every use of the load
    /// use the hook's answer. Returns the call.
    pub(crate) fn emit_after(
        &self,
        builder: &Builder<'ctx>,
        load: Value,
        site: u64,
        ptr: Value,
        size: u64,
    ) -> Result<Value, BuilderError> {
        // SAFETY: `load` is a load instruction of this module; a load is
        // never a block's last instruction.
        let next = unsafe { inkwell::llvm_sys::core::LLVMGetNextInstruction(load) };
        if next.is_null() {
            return Err(BuilderError::UnsetPosition);
        }
        // SAFETY: `next` is an instruction of the same block.
        builder.position_before(&unsafe { inkwell::values::InstructionValue::new(next) });
        let ctx = self.guard.get_type().get_context();
        let i64t = ctx.i64_type();
        let ty = llvm::type_of(load);
        // SAFETY: `load` has type `ty`, which `chooses_value` accepted.
        let loaded = unsafe { BasicValueEnum::new(load) };
        let bits = match size {
            2 => ctx.i16_type(),
            4 => ctx.i32_type(),
            _ => i64t,
        };
        // The value as an i64, and the first instruction that reads the
        // load (with the operand index), to restore after the replacement.
        let (native, first): (IntValue<'ctx>, Option<(Value, u32)>) = match llvm::type_kind(ty) {
            K::LLVMIntegerTypeKind if llvm::int_width(ty) == 64 => (loaded.into_int_value(), None),
            K::LLVMIntegerTypeKind => {
                let v = builder.build_int_z_extend(loaded.into_int_value(), i64t, "native")?;
                (v, Some((v.as_value_ref(), 0)))
            }
            K::LLVMPointerTypeKind => {
                let v = builder.build_ptr_to_int(loaded.into_pointer_value(), i64t, "native")?;
                (v, Some((v.as_value_ref(), 0)))
            }
            _ => {
                let raw = builder
                    .build_bit_cast(loaded, bits, "native.bits")?
                    .into_int_value();
                let v = builder.build_int_z_extend_or_bit_cast(raw, i64t, "native")?;
                (v, Some((raw.as_value_ref(), 0)))
            }
        };
        let args = [
            i64t.const_int(site, false).into(),
            // SAFETY: the address operand of a load is a pointer.
            unsafe { PointerValue::new(ptr) }.into(),
            i64t.const_int(size, false).into(),
            native.into(),
        ];
        let call = builder.build_call(self.guard, &args, "chosen")?;
        let chosen = call
            .try_as_basic_value()
            .basic()
            .ok_or(BuilderError::UnsetPosition)?
            .into_int_value();
        let value: Value = match llvm::type_kind(ty) {
            K::LLVMIntegerTypeKind if llvm::int_width(ty) == 64 => chosen.as_value_ref(),
            K::LLVMIntegerTypeKind => {
                // SAFETY: `ty` is an integer type.
                let it = unsafe { inkwell::types::IntType::new(ty) };
                builder
                    .build_int_truncate(chosen, it, "value")?
                    .as_value_ref()
            }
            K::LLVMPointerTypeKind => {
                let pt = ctx.ptr_type(inkwell::AddressSpace::default());
                builder
                    .build_int_to_ptr(chosen, pt, "value")?
                    .as_value_ref()
            }
            _ => {
                let raw = builder.build_int_truncate_or_bit_cast(chosen, bits, "value.bits")?;
                // SAFETY: `ty` is a floating-point type.
                let target = unsafe { BasicTypeEnum::new(ty) };
                builder.build_bit_cast(raw, target, "value")?.as_value_ref()
            }
        };
        let call = call.as_value_ref();
        let (reader, index) = first.unwrap_or((call, 3));
        // SAFETY: `value` has the load's type and is defined right after
        // it, before every use; the one instruction that must keep
        // reading the load gets it back.
        unsafe {
            inkwell::llvm_sys::core::LLVMReplaceAllUsesWith(load, value);
            inkwell::llvm_sys::core::LLVMSetOperand(reader, index, load);
        }
        Ok(call)
    }
}
