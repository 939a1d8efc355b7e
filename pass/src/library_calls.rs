//! Calls from the program's own code into Rust's standard library, so that
//! reports place a step of the library's code at the program's line.
//!
//! In a debug build `AtomicUsize::fetch_add`, `Mutex::lock` or `Box::new`
//! are functions of their own, located in the library's sources
//! (`/rustc/<commit>/library/core/src/sync/atomic.rs`); their accesses say
//! nothing about where the program made them. So each call from a function
//! of the program's own code (one whose source is not the library's) into
//! the library stores its site in a thread-local word, and the function
//! saves the word on entry and puts it back before it returns, so that the
//! library code it returns into (`thread::spawn`'s, running the closure)
//! is placed at that code's own caller again (see
//! [`reach_channel::hooks::LIBRARY_CALL_WORD`]):
//!
//! ```text
//! define void @worker(ptr %c) {             define void @worker(ptr %c) {
//!                                             %saved = load i64, ptr @__reach_library_call_site
//!   call i64 @AtomicUsize::fetch_add(..)      store i64 SITE, ptr @__reach_library_call_site
//!                                             call i64 @AtomicUsize::fetch_add(..)
//!   ret void                                  store i64 %saved, ptr @__reach_library_call_site
//!                                             ret void
//! ```
//!
//! (each access to the word through `llvm.threadlocal.address`). A call
//! counts when its callee's source is the library's, or when the call
//! itself comes from library code inlined into the program's (a release
//! build's `Box::new` calling `__rust_alloc`). Library code inlined into
//! the program's needs nothing at run time: its debug location's
//! inlined-at chain reaches the program's line. The word is written
//! without a hook call, and after the await loops are found, which it
//! leaves as they were; a constructor hands the runtime its address
//! ([`reach_channel::hooks::LIBRARY_WORD`]).

use crate::debuginfo::{file_of_scope, source_loc};
use crate::hooks::HookSet;
use crate::llvm::{self, Value};
use crate::site_table::SiteTable;
use inkwell::builder::{Builder, BuilderError};
use inkwell::intrinsics::Intrinsic;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::LLVMContextRef;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::module::{Linkage, Module};
use inkwell::values::{
    AsValueRef, BasicValueEnum, FunctionValue, GlobalValue, InstructionValue, PointerValue,
    StructValue, ValueKind,
};
use inkwell::{AddressSpace, GlobalVisibility, ThreadLocalMode};
use reach_channel::hooks::{self, LIBRARY_CALL_PREFIX, LIBRARY_CALL_WORD};
use reach_channel::sites::is_library_source;

/// The source file of function `f`'s subprogram, if it has one.
fn function_file(f: Value) -> Option<String> {
    // SAFETY: `f` is a function of a live module.
    let sp = unsafe { di::LLVMGetSubprogram(f) };
    (!sp.is_null()).then(|| file_of_scope(sp))
}

/// True if `f`, a definition, is the program's own code: not code whose
/// source is the standard library's (generic or `#[inline]` library code
/// instantiated in the program's crates is the library's).
pub(crate) fn is_program_code(f: Value) -> bool {
    function_file(f).is_none_or(|file| !is_library_source(&file))
}

/// The source file of `inst`'s own debug location (the innermost,
/// inlined function's), if it has one.
fn location_file(inst: Value) -> Option<String> {
    let loc = llvm::debug_loc(inst);
    if loc.is_null() {
        return None;
    }
    // SAFETY: `loc` is a DILocation.
    let scope = unsafe { di::LLVMDILocationGetScope(loc) };
    Some(file_of_scope(scope))
}

/// If `inst`, an instruction of the program's own code, is a call into the
/// standard library: the callee's demangled name (empty for an indirect
/// call).
pub(crate) fn library_callee(inst: Value) -> Option<String> {
    if !matches!(
        llvm::opcode(inst),
        Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
    ) || llvm::called_inline_asm(inst).is_some()
    {
        return None;
    }
    let callee = llvm::called_function(inst);
    let name = callee.map(llvm::name).unwrap_or_default();
    if name.starts_with("llvm.") || name.starts_with("__reach_") {
        return None;
    }
    let into_library = callee
        .and_then(function_file)
        .is_some_and(|file| is_library_source(&file));
    let from_library = location_file(inst).is_some_and(|file| is_library_source(&file));
    (into_library || from_library).then(|| crate::demangle::demangle(&name))
}

/// The calls into the standard library of a module's functions, found
/// while the pass plans, written once every other hook is in place.
#[derive(Default)]
pub(crate) struct LibraryCalls {
    /// Each call: the instruction, its function's name, the callee.
    calls: Vec<(Value, String, String)>,
    /// The functions that make them (each once).
    frames: Vec<Value>,
}

impl LibraryCalls {
    /// Notes the calls into the library of `f` (a function of the
    /// program's own code).
    pub(crate) fn plan(&mut self, f: FunctionValue<'_>, fname: &str) {
        let before = self.calls.len();
        for inst in llvm::instructions(f.as_value_ref()) {
            if let Some(callee) = library_callee(inst) {
                self.calls.push((inst, fname.to_string(), callee));
            }
        }
        if self.calls.len() > before {
            self.frames.push(f.as_value_ref());
        }
    }

    /// Number of calls noted.
    pub(crate) fn len(&self) -> usize {
        self.calls.len()
    }

    /// Writes the word before each call (adding its site to `table`),
    /// saves and restores it in each function that makes one, and
    /// registers it with the runtime from a constructor.
    pub(crate) fn emit<'ctx>(
        &self,
        module: &Module<'ctx>,
        builder: &Builder<'ctx>,
        hooks: &HookSet<'ctx>,
        table: &mut SiteTable,
        source: &str,
        raw_ctx: LLVMContextRef,
    ) -> Result<(), BuilderError> {
        if self.calls.is_empty() {
            return Ok(());
        }
        let ctx = module.get_context();
        let word = define_word(module);
        let i64t = ctx.i64_type();
        for (inst, fname, callee) in &self.calls {
            let loc = source_loc(raw_ctx, *inst, source, fname);
            let site = table.add(&format!("{LIBRARY_CALL_PREFIX}{callee}"), loc);
            // SAFETY: `inst` is an instruction of this module.
            builder.position_before(&unsafe { InstructionValue::new(*inst) });
            let at = word_address(module, builder, word)?;
            builder.build_store(at, i64t.const_int(site, false))?;
        }
        for &f in &self.frames {
            // SAFETY: `f` is a function of this module.
            let f = unsafe { FunctionValue::new(f) }.ok_or(BuilderError::UnsetPosition)?;
            save_and_restore(module, builder, word, f)?;
        }
        register(module, builder, hooks, word)
    }
}

/// Defines the module's word ([`LIBRARY_CALL_WORD`]), or returns it.
fn define_word<'ctx>(module: &Module<'ctx>) -> GlobalValue<'ctx> {
    if let Some(word) = module.get_global(LIBRARY_CALL_WORD) {
        return word;
    }
    let i64t = module.get_context().i64_type();
    let word = module.add_global(i64t, None, LIBRARY_CALL_WORD);
    word.set_initializer(&i64t.const_zero());
    word.set_thread_local_mode(Some(ThreadLocalMode::InitialExecTLSModel));
    word.set_linkage(Linkage::WeakODR);
    word.set_visibility(GlobalVisibility::Hidden);
    word
}

/// The calling thread's address of `word`, at the builder's position.
fn word_address<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    word: GlobalValue<'ctx>,
) -> Result<PointerValue<'ctx>, BuilderError> {
    let ptr = module.get_context().ptr_type(AddressSpace::default());
    let intrinsic = Intrinsic::find("llvm.threadlocal.address")
        .and_then(|i| i.get_declaration(module, &[ptr.into()]))
        .ok_or(BuilderError::UnsetPosition)?;
    let call = builder.build_call(intrinsic, &[word.as_pointer_value().into()], "")?;
    match call.try_as_basic_value() {
        ValueKind::Basic(v) => Ok(v.into_pointer_value()),
        ValueKind::Instruction(_) => Err(BuilderError::UnsetPosition),
    }
}

/// Loads the word at `f`'s entry and stores it back before each return
/// and resumed unwinding (but one that follows a `musttail` call, where
/// nothing may be inserted).
fn save_and_restore<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    word: GlobalValue<'ctx>,
    f: FunctionValue<'ctx>,
) -> Result<(), BuilderError> {
    let first = f
        .get_first_basic_block()
        .and_then(|bb| bb.get_first_instruction())
        .ok_or(BuilderError::UnsetPosition)?;
    builder.position_before(&first);
    let at = word_address(module, builder, word)?;
    let i64t = module.get_context().i64_type();
    let saved = builder.build_load(i64t, at, "reach.library_call")?;
    let exits: Vec<InstructionValue<'ctx>> = f
        .get_basic_block_iter()
        .filter_map(|bb| bb.get_terminator())
        .filter(|t| {
            matches!(
                llvm::opcode(t.as_value_ref()),
                Some(LLVMOpcode::LLVMRet | LLVMOpcode::LLVMResume)
            ) && !follows_musttail_call(*t)
        })
        .collect();
    for exit in exits {
        builder.position_before(&exit);
        let at = word_address(module, builder, word)?;
        builder.build_store(at, saved)?;
    }
    Ok(())
}

/// True if `ret` directly follows a `musttail` call.
fn follows_musttail_call(ret: InstructionValue<'_>) -> bool {
    ret.get_previous_instruction().is_some_and(|prev| {
        llvm::opcode(prev.as_value_ref()) == Some(LLVMOpcode::LLVMCall)
            // SAFETY: `prev` is a call instruction.
            && unsafe { inkwell::llvm_sys::core::LLVMGetTailCallKind(prev.as_value_ref()) }
                == inkwell::llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail
    })
}

/// Adds a constructor that passes the runtime the main thread's address of
/// `word` ([`hooks::LIBRARY_WORD`]).
fn register<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    word: GlobalValue<'ctx>,
) -> Result<(), BuilderError> {
    let ctx = module.get_context();
    let name = format!("{LIBRARY_CALL_WORD}.register");
    if module.get_function(&name).is_some() {
        return Ok(());
    }
    let ctor = module.add_function(
        &name,
        ctx.void_type().fn_type(&[], false),
        Some(Linkage::Internal),
    );
    builder.position_at_end(ctx.append_basic_block(ctor, "entry"));
    let at = word_address(module, builder, word)?;
    hooks.call(builder, &hooks::LIBRARY_WORD, &[at.into()])?;
    builder.build_return(None)?;
    append_to_ctors(module, ctor);
    Ok(())
}

/// Rebuilds `llvm.global_ctors` with `ctor` appended (default priority).
fn append_to_ctors<'ctx>(module: &Module<'ctx>, ctor: FunctionValue<'ctx>) {
    let ctx = module.get_context();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let entry_type = ctx.struct_type(&[ctx.i32_type().into(), ptr.into(), ptr.into()], false);
    let mut entries: Vec<StructValue<'ctx>> = Vec::new();
    if let Some(old) = module.get_global("llvm.global_ctors") {
        if let Some(BasicValueEnum::ArrayValue(arr)) = old.get_initializer() {
            // SAFETY: the operands of the array initialiser are the
            // constant `{ i32, ptr, ptr }` entries.
            unsafe {
                let raw = arr.as_value_ref();
                for i in 0..c::LLVMGetNumOperands(raw).max(0) as u32 {
                    entries.push(StructValue::new(c::LLVMGetOperand(raw, i)));
                }
            }
        }
        // SAFETY: `old` is a global of this module, replaced just below.
        unsafe { old.delete() };
    }
    entries.push(entry_type.const_named_struct(&[
        ctx.i32_type().const_int(65535, false).into(),
        ctor.as_global_value().as_pointer_value().into(),
        ptr.const_null().into(),
    ]));
    let init = entry_type.const_array(&entries);
    let ctors = module.add_global(init.get_type(), None, "llvm.global_ctors");
    ctors.set_initializer(&init);
    ctors.set_linkage(Linkage::Appending);
}
