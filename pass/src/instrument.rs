//! The pass proper: walks a module, classifies each instruction and inserts
//! the hook calls, then embeds the site table.
//!
//! ```text
//! ; before                          ; after
//! %v = load i32, ptr @x, !dbg !7    call void @__reach_load.guard(i64 SITE, ptr @x, i64 4), !dbg !7
//!                                   %v = load i32, ptr @x, !dbg !7
//! %o = atomicrmw add ptr @c, i32 1 seq_cst
//!                                   call void @__reach_atomic_rmw.guard(i64 SITE, ptr @c, i64 4, i32 7, i32 OP, i64 1)
//!                                   %o = atomicrmw add ptr @c, i32 1 seq_cst
//! call i32 @pthread_mutex_lock(ptr @m)
//!                                   call void @__reach_call_site.guard(i64 SITE)
//!                                   call i32 @pthread_mutex_lock(ptr @m)
//! ```

use crate::classify::{Action, Classifier};
use crate::debuginfo::{source_loc, SourceLoc};
use crate::emit::emit_rmw;
use crate::error::PassError;
use crate::escape::EscapeAnalysis;
use crate::exclude::skip_function;
use crate::hooks::HookSet;
use crate::inline_asm;
use crate::library_calls;
use crate::llvm::{self, Value};
use crate::load_value::ValueHook;
use crate::loops::{await_loops, AwaitLoop, Transparency};
use crate::model::model_entry;
use crate::rust_std::{self, ChannelRole};
use crate::site_table::{SiteTable, TABLE_GLOBAL};
use crate::stats::Stats;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::{Builder, BuilderError};
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::module::Module;
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, FloatValue, FunctionValue, InstructionValue, IntValue,
    PointerValue,
};
use reach_channel::hooks;
use reach_channel::memory_model::ORDERING_VALUE_FOLLOWS;
use reach_channel::models::Model;
use std::collections::HashSet;
use std::path::Path;

pub use crate::exclude::{NO_INSTRUMENT_ATTRIBUTE, NO_INSTRUMENT_SECTION};

/// Result of instrumenting a module.
#[derive(Debug)]
pub struct Outcome {
    /// Counts.
    pub stats: Stats,
    /// The module's site records.
    pub table: SiteTable,
}

/// Instruments every function of `module`; `path` names the input in errors.
pub fn instrument_module(module: &Module<'_>, path: &Path) -> Result<Outcome, PassError> {
    if module.get_global(TABLE_GLOBAL).is_some() {
        return Err(PassError::AlreadyInstrumented {
            path: path.to_path_buf(),
        });
    }
    let internal = |e: BuilderError| PassError::Internal {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let source = crate::debuginfo::module_source_path(module);
    let symbolic = crate::symbolic::enabled(module.as_mut_ptr());
    crate::symbolic::define_input_api(module.as_mut_ptr());
    let mut stats = Stats::default();
    let mut classifier = Classifier {
        module: module.as_mut_ptr(),
        escape: EscapeAnalysis::default(),
        local_names: Default::default(),
    };
    let mut plan: Vec<(Value, String, Action)> = Vec::new();
    let mut instrumented: Vec<(Value, String)> = Vec::new();
    // The toolchain's functions the module defines but does not instrument.
    let mut library_functions: Vec<Value> = Vec::new();
    let mut modelled: Vec<(FunctionValue<'_>, String, &Model)> = Vec::new();
    let mut library = library_calls::LibraryCalls::default();
    // SAFETY: the module is live.
    let ctx_raw = unsafe { inkwell::llvm_sys::core::LLVMGetModuleContext(module.as_mut_ptr()) };
    let channel_regions = rust_std::channel_regions(
        ctx_raw,
        module
            .get_functions()
            .filter(|f| {
                f.get_first_basic_block().is_some()
                    && !skip_function(*f)
                    && rust_std::function_scope(ctx_raw, f.as_value_ref())
                        != rust_std::Scope::Library
            })
            .map(|f| f.as_value_ref()),
    );
    for f in module.get_functions() {
        if f.get_first_basic_block().is_none() {
            continue;
        }
        let scope = rust_std::function_scope(ctx_raw, f.as_value_ref());
        // Library code that inlines synchronisation code (std's
        // `Thread::park` holds the parker's) is instrumented there only.
        let only_sync =
            scope == rust_std::Scope::Library && rust_std::holds_sync_code(f.as_value_ref());
        if skip_function(f) || (scope == rust_std::Scope::Library && !only_sync) {
            if scope == rust_std::Scope::Library && !skip_function(f) {
                library_functions.push(f.as_value_ref());
            }
            stats.functions_skipped += 1;
            continue;
        }
        stats.functions += 1;
        let fname = f.get_name().to_string_lossy().into_owned();
        if let Some(model) = rust_std::model_of(ctx_raw, f.as_value_ref()) {
            modelled.push((f, fname, model));
            continue;
        }
        let role = rust_std::channel_role(ctx_raw, f.as_value_ref(), channel_regions);
        if role != ChannelRole::Outside {
            plan_channel_code(f, &fname, role, &mut classifier, &mut stats, &mut plan);
            continue;
        }
        instrumented.push((f.as_value_ref(), fname.clone()));
        if scope == rust_std::Scope::User && library_calls::is_program_code(f.as_value_ref()) {
            library.plan(f, &fname);
        }
        for bb in f.get_basic_block_iter() {
            let mut inst = bb.get_first_instruction();
            while let Some(i) = inst {
                if (scope != rust_std::Scope::User
                    && rust_std::in_spin_loop(ctx_raw, i.as_value_ref()))
                    || (only_sync && !rust_std::in_sync_code(i.as_value_ref()))
                {
                    inst = i.get_next_instruction();
                    continue;
                }
                if let Some(action) = classifier.classify(i.as_value_ref(), &mut stats) {
                    // The backoff's counting stays invisible, its hint not.
                    if !matches!(action, Action::SpinHint { .. })
                        && rust_std::in_channel_backoff(ctx_raw, i.as_value_ref())
                    {
                        inst = i.get_next_instruction();
                        continue;
                    }
                    plan.push((i.as_value_ref(), fname.clone(), action));
                }
                inst = i.get_next_instruction();
            }
        }
    }

    let hooks = HookSet::declare(module).map_err(internal)?;
    let ctx = module.get_context();
    let builder = ctx.create_builder();
    let mut table = SiteTable::new(&source);
    if symbolic {
        // SAFETY: the callback only gets functions of this module.
        let skip = |f: Value| unsafe { FunctionValue::new(f) }.is_none_or(skip_function);
        let sym = crate::symbolic::instrument(module.as_mut_ptr(), &mut table, &source, &skip);
        // Marks the module as traced for data flow, even with no branch.
        table.add(reach_channel::sites::SHADOW_MARKER, SourceLoc::default());
        stats.symbolic_functions = sym.functions;
        stats.symbolic_branches = sym.branches;
    }
    for (f, fname, model) in &modelled {
        let Some(anchor) = llvm::instructions(f.as_value_ref()).next() else {
            continue;
        };
        let loc = source_loc(ctx_raw, anchor, &source, fname);
        let site = table.add(model.what, loc);
        if model_entry(&ctx, module, &builder, *f, &model.hook, site)
            .map_err(internal)?
            .is_some()
        {
            stats.modelled_functions += 1;
        }
    }
    let mut value_loads = Vec::new();
    for (inst, fname, action) in &plan {
        let loc = source_loc(ctx_raw, *inst, &source, fname);
        let site = table.add(&action.what(), loc);
        if let Action::Atomic {
            ptr,
            size,
            ordering,
            ..
        } = action
        {
            if ordering & ORDERING_VALUE_FOLLOWS != 0 {
                value_loads.push((*inst, site, *ptr, *size));
            }
        }
        // SAFETY: `inst` is an instruction of this module.
        let iv = unsafe { InstructionValue::new(*inst) };
        match (action, iv.get_next_instruction()) {
            // An alloca's record follows it (it needs the address); an
            // alloca is never a block's last instruction.
            (Action::StackObject { .. }, Some(next)) => builder.position_before(&next),
            (Action::StackObject { .. }, None) => continue,
            _ => builder.position_before(&iv),
        }
        let emitted = emit(&builder, &hooks, site, action).map_err(internal)?;
        for call in emitted {
            llvm::set_debug_loc(call, llvm::debug_loc(*inst));
        }
    }
    // After every hook call is in place: the loads' new values replace
    // their uses, hook arguments included.
    let value_hook = ValueHook::declare(module).map_err(internal)?;
    for (inst, site, ptr, size) in value_loads {
        let call = value_hook
            .emit_after(&builder, inst, site, ptr, size)
            .map_err(internal)?;
        llvm::set_debug_loc(call, llvm::debug_loc(inst));
    }
    let visible: HashSet<Value> = plan.iter().map(|(i, _, _)| *i).collect();
    let functions: Vec<Value> = instrumented.iter().map(|(f, _)| *f).collect();
    let transparency = Transparency::compute(&functions, &library_functions, &visible);
    for (f, fname) in &instrumented {
        for l in await_loops(*f, &visible, &transparency, &mut classifier.escape) {
            let loc = source_loc(ctx_raw, l.anchor, &source, fname);
            let site = table.add(hooks::LOOP_SITE_WHAT, loc);
            let call = emit_loop_head(&builder, &hooks, site, &l).map_err(internal)?;
            llvm::set_debug_loc(call, llvm::debug_loc(l.anchor));
            if let Some(guard) = l.guard {
                let call = emit_guard_head(&builder, &hooks, site, guard).map_err(internal)?;
                llvm::set_debug_loc(call, llvm::debug_loc(l.anchor));
            }
            stats.await_loops += 1;
        }
    }
    stats.call_sites = plan
        .iter()
        .filter(|(_, _, a)| matches!(a, Action::CallSite { .. }))
        .count() as u64;
    // Last: the await loops above are found without the word's accesses.
    library
        .emit(module, &builder, &hooks, &mut table, &source, ctx_raw)
        .map_err(internal)?;
    stats.library_calls = library.len() as u64;
    stats.sites = table.sites().len() as u64;
    table.emit(module);
    Ok(Outcome { stats, table })
}

/// Plans the hooks of a function of std's channels (see
/// [`rust_std::channel_role`]): no memory access, only spin hints and
/// interposed calls; a channel method also gets the region hooks around
/// its body, on its `self` (the first pointer parameter that is not a
/// return slot; a method without one, a constructor, is only hidden).
fn plan_channel_code(
    f: FunctionValue<'_>,
    fname: &str,
    role: ChannelRole,
    classifier: &mut Classifier,
    stats: &mut Stats,
    plan: &mut Vec<(Value, String, Action)>,
) {
    let object = (role == ChannelRole::Method)
        .then(|| self_parameter(f))
        .flatten();
    let mut first = true;
    for bb in f.get_basic_block_iter() {
        let mut inst = bb.get_first_instruction();
        while let Some(i) = inst {
            let raw = i.as_value_ref();
            let opcode = llvm::opcode(raw);
            if let (Some(object), true) = (object, first) {
                if !matches!(opcode, Some(LLVMOpcode::LLVMAlloca | LLVMOpcode::LLVMPHI)) {
                    plan.push((raw, fname.to_string(), Action::RegionEnter { object }));
                    first = false;
                }
            }
            if object.is_some()
                && matches!(opcode, Some(LLVMOpcode::LLVMRet | LLVMOpcode::LLVMResume))
            {
                plan.push((raw, fname.to_string(), Action::RegionExit));
            }
            if matches!(
                opcode,
                Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr)
            ) {
                let mut scratch = Stats::default();
                if let Some(action) = classifier.classify(raw, &mut scratch) {
                    if matches!(action, Action::SpinHint { .. } | Action::CallSite { .. }) {
                        stats.spin_hints += scratch.spin_hints;
                        plan.push((raw, fname.to_string(), action));
                    }
                }
            }
            inst = i.get_next_instruction();
        }
    }
    stats.channel_functions += 1;
}

/// The first pointer parameter of `f` that is not a return slot (`sret`).
fn self_parameter(f: FunctionValue<'_>) -> Option<Value> {
    let sret = Attribute::get_named_enum_kind_id("sret");
    (0..f.count_params()).find_map(|i| {
        let p = f.get_nth_param(i)?;
        let is_return_slot =
            sret != 0 && f.get_enum_attribute(AttributeLoc::Param(i), sret).is_some();
        (p.is_pointer_value() && !is_return_slot).then(|| p.as_value_ref())
    })
}

/// Inserts the hook call(s) for one action at the builder's position and
/// returns the calls.
fn emit<'ctx>(
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    site: u64,
    action: &Action,
) -> Result<Vec<Value>, BuilderError> {
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    let i32t = ctx.i32_type();
    let site_v: BasicMetadataValueEnum = i64t.const_int(site, false).into();
    // SAFETY: the operands come from instructions of the same module and have the stated types.
    let ptr = |v: Value| -> BasicMetadataValueEnum<'ctx> { unsafe { PointerValue::new(v) }.into() };
    let mut calls = Vec::new();
    match action {
        Action::Plain {
            spec, ptr: p, size, ..
        } => {
            let args = [site_v, ptr(*p), i64t.const_int(*size, false).into()];
            calls.push(hooks.call(builder, spec, &args)?);
        }
        Action::Atomic {
            spec,
            ptr: p,
            size,
            ordering,
            expected,
            ..
        } => {
            let mut args = vec![site_v, ptr(*p), i64t.const_int(*size, false).into()];
            if let Some(e) = expected {
                args.push(expected_as_i64(builder, *e, *size)?.into());
            }
            args.push(i32t.const_int(u64::from(*ordering), false).into());
            calls.push(hooks.call(builder, spec, &args)?);
        }
        Action::Rmw {
            ptr: p,
            size,
            ordering,
            op,
            operand,
            result_unused,
            ..
        } => {
            calls.push(emit_rmw(
                builder,
                hooks,
                site,
                *p,
                *size,
                *ordering,
                *op,
                Some(*operand),
                *result_unused,
            )?);
        }
        Action::Fence { ordering, .. } => {
            let args = [site_v, i32t.const_int(u64::from(*ordering), false).into()];
            calls.push(hooks.call(builder, &hooks::FENCE, &args)?);
        }
        Action::Range { parts, .. } => {
            for part in parts {
                // SAFETY: the length operand of a mem* call is an integer.
                let len = unsafe { IntValue::new(part.len) };
                let len = builder.build_int_z_extend_or_bit_cast(len, i64t, "")?;
                let len = if len.get_type().get_bit_width() > 64 {
                    builder.build_int_truncate(len, i64t, "")?
                } else {
                    len
                };
                let args = [
                    site_v,
                    ptr(part.ptr),
                    len.into(),
                    i32t.const_int(u64::from(part.is_write), false).into(),
                ];
                calls.push(hooks.call(builder, &hooks::RANGE, &args)?);
            }
        }
        Action::CallSite { .. } => {
            calls.push(hooks.call(builder, &hooks::CALL_SITE, &[site_v])?);
        }
        Action::SpinHint { .. } => {
            calls.push(hooks.call(builder, &hooks::SPIN_HINT, &[site_v])?);
        }
        Action::Source { source, .. } => {
            let code = i32t.const_int(u64::from(*source as u32), false).into();
            calls.push(hooks.call(builder, &hooks::SOURCE, &[site_v, code])?);
        }
        Action::RegionEnter { object } => {
            calls.push(hooks.call(builder, &hooks::REGION_ENTER, &[site_v, ptr(*object)])?);
        }
        Action::RegionExit => {
            calls.push(hooks.call(builder, &hooks::REGION_EXIT, &[site_v])?);
        }
        Action::InlineAsm { accesses, .. } => {
            return inline_asm::emit(builder, hooks, site, accesses);
        }
        Action::StackObject {
            alloca,
            element_size,
            count,
            ..
        } => {
            // SAFETY: an alloca's operand is its integer element count.
            let count = unsafe { IntValue::new(*count) };
            let count = if count.get_type().get_bit_width() > 64 {
                builder.build_int_truncate(count, i64t, "")?
            } else {
                builder.build_int_z_extend_or_bit_cast(count, i64t, "")?
            };
            let size = builder.build_int_mul(count, i64t.const_int(*element_size, false), "")?;
            let args = [site_v, ptr(*alloca), size.into()];
            calls.push(hooks.call(builder, &hooks::STACK_OBJECT, &args)?);
        }
    }
    Ok(calls.into_iter().map(|c| c.as_value_ref()).collect())
}

/// Emits `__reach_loop_head(site, state, back)` at the head of await
/// candidate `l` (see [`crate::loops`]): a phi that is 1 over back edges,
/// the hash of the loop's carried values, and the guarded call. Returns
/// the call.
fn emit_loop_head<'ctx>(
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    site: u64,
    l: &AwaitLoop,
) -> Result<Value, BuilderError> {
    // SAFETY: the header is a block of this module.
    let header = unsafe { BasicBlock::new(l.header) }.ok_or(BuilderError::UnsetPosition)?;
    let ctx = header.get_context();
    let i64t = ctx.i64_type();
    let i32t = ctx.i32_type();
    let first = header
        .get_first_instruction()
        .ok_or(BuilderError::UnsetPosition)?;
    // Before the first instruction and its debug records: a phi carries
    // none. (Positioned through inkwell first, which tracks that the
    // builder has a position.)
    builder.position_before(&first);
    // SAFETY: `first` is an instruction of the header.
    unsafe {
        inkwell::llvm_sys::core::LLVMPositionBuilderBeforeInstrAndDbgRecords(
            builder.as_mut_ptr(),
            first.as_value_ref(),
        );
    }
    builder.unset_current_debug_location();
    let back = builder.build_phi(i32t, "reach.back")?;
    for &(pred, is_back) in &l.incoming {
        // SAFETY: `pred` is a block of this module.
        let pred = unsafe { BasicBlock::new(pred) }.ok_or(BuilderError::UnsetPosition)?;
        let v = i32t.const_int(u64::from(is_back), false);
        back.add_incoming(&[(&v, pred)]);
    }
    let mut after_phis = header.get_first_instruction();
    while let Some(i) = after_phis {
        if i.get_opcode() != inkwell::values::InstructionOpcode::Phi {
            break;
        }
        after_phis = i.get_next_instruction();
    }
    let at = after_phis.ok_or(BuilderError::UnsetPosition)?;
    builder.position_before(&at);
    let mut values: Vec<Value> = l.phis.clone();
    for &(ptr, ty) in &l.slots {
        values.push(load_slot(builder, ptr, ty)?);
    }
    let mut local_values: Vec<Value> = l.local_phis.clone();
    for &(ptr, ty) in &l.local_slots {
        local_values.push(load_slot(builder, ptr, ty)?);
    }
    // The callee-written slot: its address and size go to the runtime
    // (the size above the `back` bit), its bytes into the local hash.
    let mut slot_address = i64t.const_zero();
    let mut back_and_size = back.as_basic_value().into_int_value();
    if let Some((alloca, size)) = l.callee_slot {
        // SAFETY: `alloca` is an alloca of the function, in its entry block.
        let base = unsafe { PointerValue::new(alloca) };
        // One word of the slot's size, or two of 8 bytes for 16.
        let word = size.min(8);
        let bits =
            std::num::NonZeroU32::new((word * 8) as u32).ok_or(BuilderError::UnsetPosition)?;
        let ty = ctx
            .custom_width_int_type(bits)
            .map_err(|_| BuilderError::UnsetPosition)?;
        for offset in (0..size).step_by(word as usize) {
            // SAFETY: `offset` is within the slot's `size` bytes.
            let at = unsafe {
                builder.build_in_bounds_gep(
                    ctx.i8_type(),
                    base,
                    &[i64t.const_int(offset, false)],
                    "reach.slot.at",
                )?
            };
            local_values.push(load_slot(
                builder,
                at.as_value_ref(),
                inkwell::types::AsTypeRef::as_type_ref(&ty),
            )?);
        }
        slot_address = builder.build_ptr_to_int(base, i64t, "reach.slot.addr")?;
        back_and_size = builder.build_or(
            back_and_size,
            i32t.const_int(size << 1, false),
            "reach.back.size",
        )?;
    }
    let state = hash_values(builder, &values)?;
    let local = hash_values(builder, &local_values)?;
    let args: [BasicMetadataValueEnum<'ctx>; 5] = [
        i64t.const_int(site, false).into(),
        state.into(),
        local.into(),
        back_and_size.into(),
        slot_address.into(),
    ];
    Ok(hooks
        .call(builder, &hooks::LOOP_HEAD, &args)?
        .as_value_ref())
}

/// Emits `__reach_loop_head(site, state, local, 0)` before `guard`, the
/// test of a rotated spin loop's guard ([`crate::rotated`]): the loop's
/// first iteration opens there. The loop carries no values, so `state`
/// and `local` are the hashes of nothing, as at its head.
fn emit_guard_head<'ctx>(
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    site: u64,
    guard: Value,
) -> Result<Value, BuilderError> {
    // SAFETY: `guard` is an instruction of this module.
    let at = unsafe { InstructionValue::new(guard) };
    builder.position_before(&at);
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    let nothing = hash_values(builder, &[])?;
    let args: [BasicMetadataValueEnum<'ctx>; 5] = [
        i64t.const_int(site, false).into(),
        nothing.into(),
        nothing.into(),
        ctx.i32_type().const_zero().into(),
        i64t.const_zero().into(),
    ];
    Ok(hooks
        .call(builder, &hooks::LOOP_HEAD, &args)?
        .as_value_ref())
}

/// Loads a value of type `ty` from the stack slot `ptr` (available where
/// the builder is) for a loop's state hash, frozen (an unset slot is
/// undefined until the loop writes it).
fn load_slot(
    builder: &Builder<'_>,
    ptr: Value,
    ty: inkwell::llvm_sys::prelude::LLVMTypeRef,
) -> Result<Value, BuilderError> {
    // SAFETY: `ptr` is a pointer available at the builder's position, `ty`
    // a type stored through it.
    let ptr = unsafe { PointerValue::new(ptr) };
    let ty = unsafe { inkwell::types::BasicTypeEnum::new(ty) };
    let loaded = builder.build_load(ty, ptr, "reach.slot")?;
    // SAFETY: the builder is positioned in this module.
    Ok(unsafe {
        inkwell::llvm_sys::core::LLVMBuildFreeze(
            builder.as_mut_ptr(),
            loaded.as_value_ref(),
            c"reach.frozen".as_ptr(),
        )
    })
}

/// An FNV-1a style hash of hashable `values` (see [`value_as_i64`]).
fn hash_values<'ctx>(
    builder: &Builder<'ctx>,
    values: &[Value],
) -> Result<IntValue<'ctx>, BuilderError> {
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    let mut hash = i64t.const_int(0xcbf2_9ce4_8422_2325, false);
    let prime = i64t.const_int(0x0000_0100_0000_01b3, false);
    for &v in values {
        let x = value_as_i64(builder, v)?;
        hash = builder.build_xor(hash, x, "")?;
        hash = builder.build_int_mul(hash, prime, "")?;
    }
    Ok(hash)
}

/// A hashable value (integer of at most 64 bits, pointer, `float`,
/// `double`) as an `i64`.
fn value_as_i64<'ctx>(builder: &Builder<'ctx>, v: Value) -> Result<IntValue<'ctx>, BuilderError> {
    use inkwell::llvm_sys::LLVMTypeKind as K;
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    let ty = llvm::type_of(v);
    match llvm::type_kind(ty) {
        K::LLVMIntegerTypeKind => {
            // SAFETY: `v` is an integer of at most 64 bits.
            let iv = unsafe { IntValue::new(v) };
            builder.build_int_z_extend_or_bit_cast(iv, i64t, "")
        }
        K::LLVMPointerTypeKind => {
            // SAFETY: `v` is a pointer.
            let pv = unsafe { PointerValue::new(v) };
            builder.build_ptr_to_int(pv, i64t, "")
        }
        K::LLVMFloatTypeKind => {
            // SAFETY: `v` is a float.
            let fv = unsafe { FloatValue::new(v) };
            let bits = builder
                .build_bit_cast(fv, ctx.i32_type(), "")?
                .into_int_value();
            builder.build_int_z_extend(bits, i64t, "")
        }
        _ => {
            // SAFETY: `v` is a double ([`crate::loops`] admits nothing else).
            let fv = unsafe { FloatValue::new(v) };
            Ok(builder.build_bit_cast(fv, i64t, "")?.into_int_value())
        }
    }
}

/// The cmpxchg compare operand as an `i64`: zero-extended integers, pointers
/// through `ptrtoint`, and `0` for anything wider than 8 bytes.
fn expected_as_i64<'ctx>(
    builder: &Builder<'ctx>,
    v: Value,
    size: u64,
) -> Result<IntValue<'ctx>, BuilderError> {
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    let ty = llvm::type_of(v);
    if size > 8 {
        return Ok(i64t.const_zero());
    }
    if llvm::int_width(ty) > 0 {
        // SAFETY: `v` is an integer value.
        let iv = unsafe { IntValue::new(v) };
        return builder.build_int_z_extend_or_bit_cast(iv, i64t, "");
    }
    if llvm::address_space(ty) == 0
        && llvm::type_kind(ty) == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
    {
        // SAFETY: `v` is a pointer value.
        let pv = unsafe { PointerValue::new(v) };
        return builder.build_ptr_to_int(pv, i64t, "");
    }
    Ok(i64t.const_zero())
}
