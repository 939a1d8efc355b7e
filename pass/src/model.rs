//! Library functions the runtime models (`reach_channel::models`): a call
//! of the runtime's model is put in front of the function's body; the
//! model returns nonzero when it did the function's work, else (or without
//! the runtime preloaded) the library's own code runs.
//!
//! ```text
//! declare extern_weak i32 @__reach_futex_mutex_lock_contended(i64, ptr)
//!
//! define void @"Mutex::lock_contended"(ptr %self) {
//! reach.model:
//!   %present = icmp ne ptr @__reach_futex_mutex_lock_contended, null
//!   br i1 %present, label %reach.model.call, label %start
//! reach.model.call:
//!   %done = call i32 @__reach_futex_mutex_lock_contended(i64 <site>, ptr %self)
//!   %modelled = icmp ne i32 %done, 0
//!   br i1 %modelled, label %reach.model.done, label %start
//! reach.model.done:
//!   ret void
//! start:                                   ; the library's body, unchanged
//!   ...
//! ```

use crate::llvm::{self, Value};
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::ContextRef;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, FunctionValue};
use reach_channel::hooks::HookSpec;

/// Puts a call of `spec(site, self) -> i32` in front of `f`'s body, where
/// `self` is `f`'s first parameter, and returns the call. `None` if `f`
/// does not have the shape the model needs (a pointer first; returns
/// nothing, or a `bool`, which is true when the model did the work).
pub(crate) fn model_entry<'ctx>(
    ctx: &ContextRef<'ctx>,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    f: FunctionValue<'ctx>,
    spec: &HookSpec,
    site: u64,
) -> Result<Option<Value>, BuilderError> {
    let Some(body) = f.get_first_basic_block() else {
        return Ok(None);
    };
    let this = match f.get_nth_param(0) {
        Some(p) if p.is_pointer_value() => p,
        _ => return Ok(None),
    };
    let returns = f.get_type().get_return_type();
    let done_value = match returns {
        None => None,
        Some(inkwell::types::BasicTypeEnum::IntType(t)) if t.get_bit_width() == 1 => {
            Some(t.const_int(1, false))
        }
        Some(_) => return Ok(None),
    };
    let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
    let hook_type = ctx
        .i32_type()
        .fn_type(&[ctx.i64_type().into(), ptr.into()], false);
    let hook = module
        .get_function(spec.name)
        .unwrap_or_else(|| module.add_function(spec.name, hook_type, Some(Linkage::ExternalWeak)));
    let located = llvm::instructions(f.as_value_ref()).find(|i| !llvm::debug_loc(*i).is_null());
    let check = ctx.prepend_basic_block(body, "reach.model");
    let call_block = ctx.insert_basic_block_after(check, "reach.model.call");
    let done = ctx.insert_basic_block_after(call_block, "reach.model.done");
    builder.position_at_end(check);
    let present =
        builder.build_is_not_null(hook.as_global_value().as_pointer_value(), "present")?;
    builder.build_conditional_branch(present, call_block, body)?;
    builder.position_at_end(call_block);
    let site = ctx.i64_type().const_int(site, false);
    let call = builder.build_call(hook, &[site.into(), this.into()], "done")?;
    let result = call
        .try_as_basic_value()
        .basic()
        .ok_or(BuilderError::UnsetPosition)?
        .into_int_value();
    let modelled = builder.build_int_compare(
        inkwell::IntPredicate::NE,
        result,
        ctx.i32_type().const_zero(),
        "modelled",
    )?;
    builder.build_conditional_branch(modelled, done, body)?;
    builder.position_at_end(done);
    match done_value {
        Some(v) => builder.build_return(Some(&v))?,
        None => builder.build_return(None)?,
    };
    let call = call.as_value_ref();
    if let Some(located) = located {
        llvm::set_debug_loc(call, llvm::debug_loc(located));
    }
    Ok(Some(call))
}
