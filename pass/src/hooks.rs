//! Declaring the runtime's hooks and calling them behind a null check.
//!
//! Every hook of [`reach_channel::hooks::ALL`] is declared `extern_weak`
//! (its IR signature derived from the hook's parameter list), and wrapped in
//! a private always-inline guard, so a binary without the runtime preloaded
//! skips the call:
//!
//! ```text
//! declare extern_weak void @__reach_load(i64, ptr, i64)
//!
//! define internal void @__reach_load.guard(i64 %0, ptr %1, i64 %2) alwaysinline nounwind {
//!   %present = icmp ne ptr @__reach_load, null
//!   br i1 %present, label %call, label %done
//! call:
//!   call void @__reach_load(i64 %0, ptr %1, i64 %2)
//!   br label %done
//! done:
//!   ret void
//! }
//! ```
//!
//! Instrumented code calls the guard, which `reach-instrument
//! --inline-guards` (as the wrappers run it, [`crate::load::inline_guards`])
//! or the optimiser, even at `-O0`, inlines into a compare and a branch.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::builder::Builder;
use inkwell::context::ContextRef;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, FunctionValue, InstructionValue};
use reach_channel::hooks::{HookSpec, Param, ALL};

/// Suffix of the guard function of a hook.
pub const GUARD_SUFFIX: &str = ".guard";

/// The guarded hooks of one module.
pub struct HookSet<'ctx> {
    guards: Vec<(&'static str, FunctionValue<'ctx>)>,
}

impl<'ctx> HookSet<'ctx> {
    /// Declares every hook of [`ALL`] in `module` with its guard.
    pub fn declare(module: &Module<'ctx>) -> Result<Self, inkwell::builder::BuilderError> {
        let ctx = module.get_context();
        let builder = ctx.create_builder();
        let mut guards = Vec::new();
        for spec in ALL {
            let guard = declare_one(&ctx, module, &builder, spec)?;
            guards.push((spec.name, guard));
        }
        Ok(HookSet { guards })
    }

    /// Emits `call void @<hook>.guard(args)` at the builder's position.
    pub fn call(
        &self,
        builder: &Builder<'ctx>,
        spec: &HookSpec,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<InstructionValue<'ctx>, inkwell::builder::BuilderError> {
        let guard = self
            .guards
            .iter()
            .find(|(n, _)| *n == spec.name)
            .map(|(_, f)| *f)
            .ok_or(inkwell::builder::BuilderError::UnsetPosition)?;
        let call = builder.build_call(guard, args, "")?;
        // SAFETY: a call site is an instruction.
        Ok(unsafe { InstructionValue::new(call.as_value_ref()) })
    }
}

fn param_type<'ctx>(ctx: &ContextRef<'ctx>, p: Param) -> BasicMetadataTypeEnum<'ctx> {
    match p {
        Param::Site | Param::U64 => ctx.i64_type().into(),
        Param::U32 => ctx.i32_type().into(),
        Param::Ptr => ctx.ptr_type(inkwell::AddressSpace::default()).into(),
    }
}

fn declare_one<'ctx>(
    ctx: &ContextRef<'ctx>,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    spec: &HookSpec,
) -> Result<FunctionValue<'ctx>, inkwell::builder::BuilderError> {
    let params: Vec<_> = spec.params.iter().map(|p| param_type(ctx, *p)).collect();
    let fn_type = ctx.void_type().fn_type(&params, false);
    let hook = module
        .get_function(spec.name)
        .unwrap_or_else(|| module.add_function(spec.name, fn_type, Some(Linkage::ExternalWeak)));
    let guard_name = format!("{}{GUARD_SUFFIX}", spec.name);
    if let Some(existing) = module.get_function(&guard_name) {
        return Ok(existing);
    }
    let guard = module.add_function(&guard_name, fn_type, Some(Linkage::Internal));
    for attr in ["alwaysinline", "nounwind"] {
        let kind = Attribute::get_named_enum_kind_id(attr);
        guard.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(kind, 0));
    }
    let entry = ctx.append_basic_block(guard, "entry");
    let call_bb = ctx.append_basic_block(guard, "call");
    let done = ctx.append_basic_block(guard, "done");
    builder.position_at_end(entry);
    let addr = hook.as_global_value().as_pointer_value();
    let present = builder.build_is_not_null(addr, "present")?;
    builder.build_conditional_branch(present, call_bb, done)?;
    builder.position_at_end(call_bb);
    let args: Vec<BasicMetadataValueEnum> = guard.get_param_iter().map(Into::into).collect();
    builder.build_call(hook, &args, "")?;
    builder.build_unconditional_branch(done)?;
    builder.position_at_end(done);
    builder.build_return(None)?;
    Ok(guard)
}
