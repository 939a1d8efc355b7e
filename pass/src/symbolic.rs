//! Shadow computations for concolic testing (only with `REACH_SYMBOLIC=1`
//! at compile time).
//!
//! Every integer SSA value of at most 64 bits, and every pointer (as its
//! 64-bit address), gets a *shadow*: an `i32`
//! expression id, 0 when the value is concrete. Arithmetic, comparisons,
//! casts, `select` and phi nodes compute their shadow next to the value;
//! the runtime's expression builders (`__reach_sym_*`, see the runtime's
//! `symbolic` module) are called only when an operand's shadow is non-zero,
//! behind always-inline guards, so concrete code costs a compare and a
//! branch:
//!
//! ```text
//! %x = add i32 %a, %b
//! %x.s = call i32 @__reach_sym_binary.guard(i32 ADD, i32 32, i64 %a64, i64 %b64, i32 %a.s, i32 %b.s)
//! ; guard: if ((a.s | b.s) == 0) return 0; return __reach_sym_binary(...)
//! ```
//!
//! Memory: integer loads take their shadow from the runtime's shadow memory
//! and stores update it, both only once the runtime's `__reach_sym_active`
//! flag is set (the first input exists); a store of anything else clears
//! the shadow of the bytes it writes; `memcpy`/`memmove` copy shadows,
//! `memset` clears them.
//!
//! Calls pass argument shadows (first 8 integer arguments) and the return
//! shadow through thread-local slots defined in every module (merged at link
//! time); the caller also stores the callee's address, and a function takes
//! its argument shadows only if that address is its own, so a call from
//! uninstrumented code (a callback) sees concrete arguments.
//!
//! Path constraints: a conditional branch on a symbolic `i1`, and each case
//! test of a `switch` on a symbolic value, call the runtime with the site
//! (source location in the site table, `what` = `branch`), the condition's
//! shadow and the outcome. A symbolic index of a `getelementptr` is
//! concretised: its current value is recorded as a pinned equality (the
//! address does not become symbolic). Not modelled (their results are
//! concrete): integers wider than 64 bits, vectors, floating point,
//! `ptrtoint`/`inttoptr`, intrinsics other than `memcpy`/`memmove`/`memset`
//! and `smin`/`smax`/`umin`/`umax`, and results of `invoke`.

use crate::debuginfo::source_loc;
use crate::llvm::{self, Value};
use crate::site_table::SiteTable;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{
    LLVMBasicBlockRef, LLVMBuilderRef, LLVMContextRef, LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef,
};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMVisibility};
use reach_channel::symbolic::SymOp;
use std::collections::{HashMap, HashSet};
use std::ffi::CString;

/// Environment variable that turns the shadow computations on (`1`).
pub const SYMBOLIC_ENV: &str = reach_channel::env::SYMBOLIC;

/// Most argument shadows passed to a call.
const ARG_SLOTS: u32 = 8;

/// The functions of `reach.h`: a module that calls one of them reads
/// program inputs.
pub const INPUT_API: [&str; 3] = ["reach_input_int", "reach_input_bytes", "reach_assume"];

/// True if `module` gets the shadow computations: `REACH_SYMBOLIC=1` asks
/// for them, `REACH_SYMBOLIC=0` refuses them, and otherwise a module gets
/// them when it refers to a function of [`INPUT_API`] (reads inputs), so
/// that a program that reads inputs is built for concolic testing without
/// a variable to remember.
pub(crate) fn enabled(module: LLVMModuleRef) -> bool {
    match std::env::var(SYMBOLIC_ENV).ok().as_deref() {
        Some("1") => true,
        Some("0") => false,
        _ => reads_inputs(module),
    }
}

/// True if `module` declares or defines a function of [`INPUT_API`] (a
/// C front end declares only the functions a module refers to).
pub(crate) fn reads_inputs(module: LLVMModuleRef) -> bool {
    INPUT_API.iter().any(|name| {
        let n = cstr(name);
        // SAFETY: looking a name up in the live module.
        !unsafe { c::LLVMGetNamedFunction(module, n.as_ptr()) }.is_null()
    })
}

/// Counts of what was instrumented.
#[derive(Debug, Default, Clone, Copy)]
pub struct SymStats {
    /// Functions given shadow computations.
    pub functions: u64,
    /// Branch and switch sites.
    pub branches: u64,
}

struct Ir {
    module: LLVMModuleRef,
    ctx: LLVMContextRef,
    b: LLVMBuilderRef,
    i1: LLVMTypeRef,
    i32: LLVMTypeRef,
    i64: LLVMTypeRef,
    ptr: LLVMTypeRef,
    void: LLVMTypeRef,
    guards: HashMap<&'static str, (Value, LLVMTypeRef)>,
    tls_args: Value,
    tls_ret: Value,
    tls_callee: Value,
    /// Debug location given to the guard calls being built.
    loc: std::cell::Cell<LLVMMetadataRef>,
}

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap_or_default()
}

impl Ir {
    fn zero32(&self) -> Value {
        // SAFETY: a constant of a live type.
        unsafe { c::LLVMConstInt(self.i32, 0, 0) }
    }
    fn c32(&self, v: u64) -> Value {
        // SAFETY: as above.
        unsafe { c::LLVMConstInt(self.i32, v, 0) }
    }
    fn c64(&self, v: u64) -> Value {
        // SAFETY: as above.
        unsafe { c::LLVMConstInt(self.i64, v, 0) }
    }

    /// `v` (an integer of at most 64 bits) zero-extended to `i64`.
    fn to_i64(&self, v: Value) -> Value {
        if is_pointer(llvm::type_of(v)) {
            // SAFETY: building in the current block.
            return unsafe { c::LLVMBuildPtrToInt(self.b, v, self.i64, c"".as_ptr()) };
        }
        let w = llvm::int_width(llvm::type_of(v));
        if w == 64 {
            return v;
        }
        // SAFETY: building in the current block.
        unsafe { c::LLVMBuildZExt(self.b, v, self.i64, c"".as_ptr()) }
    }

    fn call(&self, name: &'static str, args: &mut [Value]) -> Value {
        let (f, ty) = self.guards[name];
        // SAFETY: the guard's type matches the arguments built by the callers.
        let call = unsafe {
            c::LLVMBuildCall2(
                self.b,
                ty,
                f,
                args.as_mut_ptr(),
                args.len() as u32,
                c"".as_ptr(),
            )
        };
        let loc = self.loc.get();
        if !loc.is_null() {
            llvm::set_debug_loc(call, loc);
        }
        call
    }

    fn global(&self, name: &str, ty: LLVMTypeRef, init: Value) -> Value {
        let n = cstr(name);
        // SAFETY: adding a global to the live module.
        unsafe {
            let existing = c::LLVMGetNamedGlobal(self.module, n.as_ptr());
            if !existing.is_null() {
                return existing;
            }
            let g = c::LLVMAddGlobal(self.module, ty, n.as_ptr());
            c::LLVMSetInitializer(g, init);
            c::LLVMSetLinkage(g, LLVMLinkage::LLVMLinkOnceODRLinkage);
            c::LLVMSetVisibility(g, LLVMVisibility::LLVMHiddenVisibility);
            c::LLVMSetThreadLocal(g, 1);
            g
        }
    }
}

/// How a guard decides to call its runtime function.
#[derive(Clone, Copy)]
enum When {
    /// Some of these `i32` parameters is non-zero; otherwise return 0 (or
    /// for `Select`, `select(param 1, param 5, param 6)`).
    AnyNonZero(&'static [u32]),
    /// The runtime's `__reach_sym_active` flag is set.
    Active,
    /// The runtime function exists.
    Present,
}

/// Computes a guard's result when it does not call the runtime.
type Fallback = dyn Fn(&Ir, &[Value]) -> Value;

/// Declares runtime function `name` (extern_weak) and its guard.
#[allow(clippy::too_many_arguments)]
fn declare_guard(
    ir: &mut Ir,
    name: &'static str,
    params: &[LLVMTypeRef],
    guard_params: &[LLVMTypeRef],
    ret_i32: bool,
    when: When,
    forward: &dyn Fn(&[Value]) -> Vec<Value>,
    fallback: Option<&Fallback>,
) {
    let ret = if ret_i32 { ir.i32 } else { ir.void };
    let n = cstr(name);
    let gname = cstr(&format!("{name}.guard"));
    // SAFETY: building declarations and a small function in the live module.
    unsafe {
        let rt_ty = c::LLVMFunctionType(ret, params.as_ptr() as *mut _, params.len() as u32, 0);
        let mut rt = c::LLVMGetNamedFunction(ir.module, n.as_ptr());
        if rt.is_null() {
            rt = c::LLVMAddFunction(ir.module, n.as_ptr(), rt_ty);
            c::LLVMSetLinkage(rt, LLVMLinkage::LLVMExternalWeakLinkage);
        }
        let g_ty = c::LLVMFunctionType(
            ret,
            guard_params.as_ptr() as *mut _,
            guard_params.len() as u32,
            0,
        );
        let existing = c::LLVMGetNamedFunction(ir.module, gname.as_ptr());
        if !existing.is_null() {
            ir.guards.insert(name, (existing, g_ty));
            return;
        }
        let g = c::LLVMAddFunction(ir.module, gname.as_ptr(), g_ty);
        c::LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        for attr in ["alwaysinline", "nounwind"] {
            let kind = c::LLVMGetEnumAttributeKindForName(attr.as_ptr().cast(), attr.len());
            let a = c::LLVMCreateEnumAttribute(ir.ctx, kind, 0);
            c::LLVMAddAttributeAtIndex(g, u32::MAX, a);
        }
        let entry = c::LLVMAppendBasicBlockInContext(ir.ctx, g, c"entry".as_ptr());
        let call_bb = c::LLVMAppendBasicBlockInContext(ir.ctx, g, c"call".as_ptr());
        let done = c::LLVMAppendBasicBlockInContext(ir.ctx, g, c"done".as_ptr());
        let b = ir.b;
        c::LLVMPositionBuilderAtEnd(b, entry);
        let args: Vec<Value> = (0..guard_params.len() as u32)
            .map(|i| c::LLVMGetParam(g, i))
            .collect();
        let cond = match when {
            When::AnyNonZero(idx) => {
                let mut acc = ir.zero32();
                for &i in idx {
                    acc = c::LLVMBuildOr(b, acc, args[i as usize], c"".as_ptr());
                }
                c::LLVMBuildICmp(
                    b,
                    LLVMIntPredicate::LLVMIntNE,
                    acc,
                    ir.zero32(),
                    c"".as_ptr(),
                )
            }
            When::Active => {
                let flag = active_flag(ir);
                let present = c::LLVMBuildIsNotNull(b, flag, c"".as_ptr());
                let check = c::LLVMAppendBasicBlockInContext(ir.ctx, g, c"check".as_ptr());
                c::LLVMBuildCondBr(b, present, check, done);
                c::LLVMPositionBuilderAtEnd(b, check);
                let v = c::LLVMBuildLoad2(b, ir.i32, flag, c"".as_ptr());
                c::LLVMSetOrdering(
                    v,
                    inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                );
                c::LLVMSetAlignment(v, 4);
                c::LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntNE, v, ir.zero32(), c"".as_ptr())
            }
            When::Present => c::LLVMBuildIsNotNull(b, rt, c"".as_ptr()),
        };
        let from = c::LLVMGetInsertBlock(b);
        c::LLVMBuildCondBr(b, cond, call_bb, done);
        c::LLVMPositionBuilderAtEnd(b, call_bb);
        let mut fwd = forward(&args);
        let r = c::LLVMBuildCall2(
            b,
            rt_ty,
            rt,
            fwd.as_mut_ptr(),
            fwd.len() as u32,
            c"".as_ptr(),
        );
        c::LLVMBuildBr(b, done);
        c::LLVMPositionBuilderAtEnd(b, done);
        if ret_i32 {
            let phi = c::LLVMBuildPhi(b, ir.i32, c"".as_ptr());
            let mut vals = vec![r];
            let mut bbs: Vec<LLVMBasicBlockRef> = vec![call_bb];
            // The fallback is computed in `entry` (it only selects).
            let fb = match fallback {
                Some(f) => {
                    let term = c::LLVMGetBasicBlockTerminator(entry);
                    c::LLVMPositionBuilderBefore(b, term);
                    let v = f(ir, &args);
                    c::LLVMPositionBuilderAtEnd(b, done);
                    v
                }
                None => ir.zero32(),
            };
            vals.push(fb);
            bbs.push(from);
            if from != entry {
                // `Active`: the null check branched from `entry` too.
                vals.push(ir.zero32());
                bbs.push(entry);
            }
            c::LLVMAddIncoming(phi, vals.as_mut_ptr(), bbs.as_mut_ptr(), vals.len() as u32);
            c::LLVMBuildRet(b, phi);
        } else {
            c::LLVMBuildRetVoid(b);
        }
        ir.guards.insert(name, (g, g_ty));
    }
}

fn active_flag(ir: &Ir) -> Value {
    let n = c"__reach_sym_active";
    // SAFETY: declaring an external global in the live module.
    unsafe {
        let g = c::LLVMGetNamedGlobal(ir.module, n.as_ptr());
        if !g.is_null() {
            return g;
        }
        let g = c::LLVMAddGlobal(ir.module, ir.i32, n.as_ptr());
        c::LLVMSetLinkage(g, LLVMLinkage::LLVMExternalWeakLinkage);
        g
    }
}

fn declare_all(ir: &mut Ir) {
    let (i1, i32t, i64t, ptr) = (ir.i1, ir.i32, ir.i64, ir.ptr);
    let same = |a: &[Value]| a.to_vec();
    // A guard with the runtime function's parameters, passed on unchanged.
    let plain = |ir: &mut Ir, name, params: &[LLVMTypeRef], ret_i32, when| {
        declare_guard(ir, name, params, params, ret_i32, when, &same, None)
    };
    plain(
        ir,
        "__reach_sym_binary",
        &[i32t, i32t, i64t, i64t, i32t, i32t],
        true,
        When::AnyNonZero(&[4, 5]),
    );
    plain(
        ir,
        "__reach_sym_cast",
        &[i32t, i32t, i32t, i32t],
        true,
        When::AnyNonZero(&[3]),
    );
    // Guard: (sc, c, width, a, b, sa, sb); runtime: (sc, width, a, b, sa, sb).
    let drop_c = |a: &[Value]| vec![a[0], a[2], a[3], a[4], a[5], a[6]];
    let select_arms = |ir: &Ir, a: &[Value]| -> Value {
        // SAFETY: building in the guard's entry block.
        unsafe { c::LLVMBuildSelect(ir.b, a[1], a[5], a[6], c"".as_ptr()) }
    };
    declare_guard(
        ir,
        "__reach_sym_ite",
        &[i32t, i32t, i64t, i64t, i32t, i32t],
        &[i32t, i1, i32t, i64t, i64t, i32t, i32t],
        true,
        When::AnyNonZero(&[0]),
        &drop_c,
        Some(&select_arms),
    );
    plain(ir, "__reach_sym_load", &[ptr, i64t], true, When::Active);
    plain(
        ir,
        "__reach_sym_store",
        &[ptr, i64t, i32t],
        false,
        When::Active,
    );
    plain(
        ir,
        "__reach_sym_memcpy",
        &[ptr, ptr, i64t],
        false,
        When::Active,
    );
    plain(ir, "__reach_sym_memset", &[ptr, i64t], false, When::Active);
    // Guard: (site, s, c: i1); runtime: (site, s, taken: i32).
    let builder = ir.b;
    let widen_c = move |a: &[Value]| {
        // SAFETY: the builder is positioned in the guard's call block.
        let taken = unsafe { c::LLVMBuildZExt(builder, a[2], i32t, c"".as_ptr()) };
        vec![a[0], a[1], taken]
    };
    declare_guard(
        ir,
        "__reach_sym_branch",
        &[i64t, i32t, i32t],
        &[i64t, i32t, i1],
        false,
        When::AnyNonZero(&[1]),
        &widen_c,
        None,
    );
    plain(
        ir,
        "__reach_sym_switch",
        &[i64t, i32t, i32t, i64t, ptr, i64t],
        false,
        When::AnyNonZero(&[1]),
    );
    plain(
        ir,
        "__reach_sym_concretize",
        &[i64t, i32t, i32t, i64t],
        false,
        When::AnyNonZero(&[1]),
    );
    plain(
        ir,
        "__reach_sym_assume",
        &[i64t, i32t, i64t],
        false,
        When::AnyNonZero(&[1]),
    );
    plain(ir, "__reach_sym_input_shadow", &[], true, When::Present);
}

/// Blocks of `f` in reverse post-order from the entry (definitions before
/// uses, except through phi nodes); unreachable blocks are left out.
fn rpo(f: Value) -> Vec<LLVMBasicBlockRef> {
    // SAFETY: walking the CFG of a live function.
    unsafe {
        let entry = c::LLVMGetEntryBasicBlock(f);
        let mut seen = HashSet::new();
        let mut post = Vec::new();
        let mut stack: Vec<(LLVMBasicBlockRef, u32)> = vec![(entry, 0)];
        seen.insert(entry);
        while let Some((bb, i)) = stack.pop() {
            let term = c::LLVMGetBasicBlockTerminator(bb);
            let n = if term.is_null() {
                0
            } else {
                c::LLVMGetNumSuccessors(term)
            };
            if i < n {
                stack.push((bb, i + 1));
                let s = c::LLVMGetSuccessor(term, i);
                if seen.insert(s) {
                    stack.push((s, 0));
                }
            } else {
                post.push(bb);
            }
        }
        post.reverse();
        post
    }
}

fn instructions(bb: LLVMBasicBlockRef) -> Vec<Value> {
    let mut out = Vec::new();
    // SAFETY: walking a live block.
    unsafe {
        let mut i = c::LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            out.push(i);
            i = c::LLVMGetNextInstruction(i);
        }
    }
    out
}

fn binary_op(op: LLVMOpcode) -> Option<SymOp> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMAdd => SymOp::Add,
        LLVMSub => SymOp::Sub,
        LLVMMul => SymOp::Mul,
        LLVMUDiv => SymOp::UDiv,
        LLVMSDiv => SymOp::SDiv,
        LLVMURem => SymOp::URem,
        LLVMSRem => SymOp::SRem,
        LLVMShl => SymOp::Shl,
        LLVMLShr => SymOp::LShr,
        LLVMAShr => SymOp::AShr,
        LLVMAnd => SymOp::And,
        LLVMOr => SymOp::Or,
        LLVMXor => SymOp::Xor,
        _ => return None,
    })
}

fn compare_op(p: LLVMIntPredicate) -> SymOp {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => SymOp::Eq,
        LLVMIntNE => SymOp::Ne,
        LLVMIntUGT => SymOp::Ugt,
        LLVMIntUGE => SymOp::Uge,
        LLVMIntULT => SymOp::Ult,
        LLVMIntULE => SymOp::Ule,
        LLVMIntSGT => SymOp::Sgt,
        LLVMIntSGE => SymOp::Sge,
        LLVMIntSLT => SymOp::Slt,
        LLVMIntSLE => SymOp::Sle,
    }
}

/// Integer width of `v` if it gets a shadow (1..=64 bits), else 0.
fn tracked(v: Value) -> u32 {
    let t = llvm::type_of(v);
    if is_pointer(t) {
        return 64;
    }
    let w = llvm::int_width(t);
    if w <= 64 {
        w
    } else {
        0
    }
}

/// True for a pointer of the default address space: its shadow is that of
/// its 64-bit address (loaded from shared memory, compared, selected), so a
/// branch on `p != NULL` or `head == tail` is traced like one on an integer.
fn is_pointer(t: LLVMTypeRef) -> bool {
    llvm::type_kind(t) == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
        // SAFETY: `t` is a pointer type.
        && unsafe { c::LLVMGetPointerAddressSpace(t) } == 0
}

fn callee_name(call: Value) -> String {
    llvm::called_function(call)
        .map(llvm::name)
        .unwrap_or_default()
}

/// Adds the shadow computations to every function of `module` that
/// `skip` does not exclude; branch sites go into `table`.
pub(crate) fn instrument(
    module: LLVMModuleRef,
    table: &mut SiteTable,
    source: &str,
    skip: &dyn Fn(Value) -> bool,
) -> SymStats {
    let mut stats = SymStats::default();
    // SAFETY: the module is live for the whole call; every value and type
    // used below comes from it.
    unsafe {
        let ctx = c::LLVMGetModuleContext(module);
        let b = c::LLVMCreateBuilderInContext(ctx);
        let i32t = c::LLVMInt32TypeInContext(ctx);
        let ptr = c::LLVMPointerTypeInContext(ctx, 0);
        let args_ty = c::LLVMArrayType2(i32t, u64::from(ARG_SLOTS));
        let mut ir = Ir {
            module,
            ctx,
            b,
            i1: c::LLVMInt1TypeInContext(ctx),
            i32: i32t,
            i64: c::LLVMInt64TypeInContext(ctx),
            ptr,
            void: c::LLVMVoidTypeInContext(ctx),
            guards: HashMap::new(),
            tls_args: std::ptr::null_mut(),
            tls_ret: std::ptr::null_mut(),
            tls_callee: std::ptr::null_mut(),
            loc: std::cell::Cell::new(std::ptr::null_mut()),
        };
        let functions: Vec<Value> = {
            let mut out = Vec::new();
            let mut f = c::LLVMGetFirstFunction(module);
            while !f.is_null() {
                if c::LLVMCountBasicBlocks(f) > 0 && !skip(f) {
                    out.push(f);
                }
                f = c::LLVMGetNextFunction(f);
            }
            out
        };
        if functions.is_empty() {
            c::LLVMDisposeBuilder(b);
            return stats;
        }
        declare_all(&mut ir);
        ir.tls_args = ir.global("__reach_sym_tls_args", args_ty, c::LLVMConstNull(args_ty));
        ir.tls_ret = ir.global("__reach_sym_tls_ret", i32t, ir.zero32());
        ir.tls_callee = ir.global("__reach_sym_tls_callee", ptr, c::LLVMConstNull(ptr));
        for f in functions {
            stats.functions += 1;
            let fname = llvm::name(f);
            function(&ir, f, table, source, &fname, &mut stats);
        }
        c::LLVMDisposeBuilder(b);
    }
    stats
}

/// # Safety
/// `f` is a defined function of `ir.module`.
#[allow(clippy::collapsible_match)]
unsafe fn function(
    ir: &Ir,
    f: Value,
    table: &mut SiteTable,
    source: &str,
    fname: &str,
    stats: &mut SymStats,
) {
    let b = ir.b;
    let mut shadow: HashMap<Value, Value> = HashMap::new();
    let blocks = rpo(f);
    let reachable: HashSet<LLVMBasicBlockRef> = blocks.iter().copied().collect();
    // SAFETY: (for the whole body) building in blocks of `f`.
    unsafe {
        // Argument shadows, taken only if the caller named this function.
        let entry = c::LLVMGetEntryBasicBlock(f);
        let first = c::LLVMGetFirstInstruction(entry);
        c::LLVMPositionBuilderBefore(b, first);
        let nparams = c::LLVMCountParams(f);
        let int_params: Vec<(u32, Value)> = (0..nparams)
            .map(|i| (i, c::LLVMGetParam(f, i)))
            .filter(|(_, p)| tracked(*p) > 0)
            .collect();
        if !int_params.is_empty() {
            let callee = c::LLVMBuildLoad2(b, ir.ptr, ir.tls_callee, c"".as_ptr());
            let mine = c::LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, callee, f, c"".as_ptr());
            c::LLVMBuildStore(b, c::LLVMConstNull(ir.ptr), ir.tls_callee);
            for (slot, (_, p)) in int_params.iter().enumerate().take(ARG_SLOTS as usize) {
                let at = arg_slot(ir, slot as u32);
                let raw = c::LLVMBuildLoad2(b, ir.i32, at, c"".as_ptr());
                let s = c::LLVMBuildSelect(b, mine, raw, ir.zero32(), c"".as_ptr());
                shadow.insert(*p, s);
            }
        }
        let sh = |shadow: &HashMap<Value, Value>, v: Value| -> Value {
            shadow.get(&v).copied().unwrap_or_else(|| ir.zero32())
        };
        let mut phis: Vec<(Value, Value)> = Vec::new();
        // Guard calls need a location in a function with debug information.
        let sp = inkwell::llvm_sys::debuginfo::LLVMGetSubprogram(f);
        let fallback = if sp.is_null() {
            std::ptr::null_mut()
        } else {
            inkwell::llvm_sys::debuginfo::LLVMDIBuilderCreateDebugLocation(
                ir.ctx,
                0,
                0,
                sp,
                std::ptr::null_mut(),
            )
        };
        for bb in &blocks {
            for inst in instructions(*bb) {
                let Some(op) = llvm::opcode(inst) else {
                    continue;
                };
                let loc = llvm::debug_loc(inst);
                ir.loc.set(if loc.is_null() { fallback } else { loc });
                let next = c::LLVMGetNextInstruction(inst);
                let after = |ir: &Ir| {
                    if next.is_null() {
                        false
                    } else {
                        c::LLVMPositionBuilderBefore(ir.b, next);
                        true
                    }
                };
                use LLVMOpcode::*;
                match op {
                    LLVMPHI if tracked(inst) > 0 => {
                        // At the top of the block, before the debug records
                        // that follow the phi nodes.
                        let top = c::LLVMGetFirstInstruction(*bb);
                        c::LLVMPositionBuilderBeforeInstrAndDbgRecords(b, top);
                        let p = c::LLVMBuildPhi(b, ir.i32, c"".as_ptr());
                        shadow.insert(inst, p);
                        phis.push((inst, p));
                    }
                    LLVMFreeze if tracked(inst) > 0 => {
                        let s = sh(&shadow, llvm::operand(inst, 0));
                        shadow.insert(inst, s);
                    }
                    _ if binary_op(op).is_some() && tracked(inst) > 0 => {
                        let (a, bv) = (llvm::operand(inst, 0), llvm::operand(inst, 1));
                        let (sa, sb) = (sh(&shadow, a), sh(&shadow, bv));
                        if is_zero(sa) && is_zero(sb) {
                            continue;
                        }
                        if after(ir) {
                            let sym = binary_op(op).map_or(0, |o| o as u64);
                            let s = binary(ir, sym, tracked(inst), a, bv, sa, sb);
                            shadow.insert(inst, s);
                        }
                    }
                    LLVMICmp if tracked(llvm::operand(inst, 0)) > 0 && tracked(inst) == 1 => {
                        let (a, bv) = (llvm::operand(inst, 0), llvm::operand(inst, 1));
                        let (sa, sb) = (sh(&shadow, a), sh(&shadow, bv));
                        if is_zero(sa) && is_zero(sb) {
                            continue;
                        }
                        if after(ir) {
                            let sym = compare_op(c::LLVMGetICmpPredicate(inst)) as u64;
                            let s = binary(ir, sym, tracked(a), a, bv, sa, sb);
                            shadow.insert(inst, s);
                        }
                    }
                    LLVMZExt | LLVMSExt | LLVMTrunc
                        if tracked(inst) > 0 && tracked(llvm::operand(inst, 0)) > 0 =>
                    {
                        let a = llvm::operand(inst, 0);
                        let sa = sh(&shadow, a);
                        if is_zero(sa) {
                            continue;
                        }
                        if after(ir) {
                            let sym = match op {
                                LLVMZExt => SymOp::ZExt,
                                LLVMSExt => SymOp::SExt,
                                _ => SymOp::Extract,
                            };
                            let mut args = [
                                ir.c32(sym as u64),
                                ir.c32(u64::from(tracked(a))),
                                ir.c32(u64::from(tracked(inst))),
                                sa,
                            ];
                            shadow.insert(inst, ir.call("__reach_sym_cast", &mut args));
                        }
                    }
                    LLVMSelect if tracked(llvm::operand(inst, 0)) == 1 => {
                        let cnd = llvm::operand(inst, 0);
                        let sc = sh(&shadow, cnd);
                        let value = tracked(inst) > 0 && !is_pointer(llvm::type_of(inst));
                        if !value && !is_zero(sc) {
                            // A select of pointers (or floats) on a symbolic
                            // condition is a branch (a `switch` or `if`
                            // choosing a string, an object): its condition
                            // is a path constraint.
                            let loc = source_loc(ir.ctx, inst, source, fname);
                            let site = table.add("branch", loc);
                            stats.branches += 1;
                            c::LLVMPositionBuilderBefore(b, inst);
                            let mut args = [ir.c64(site), sc, cnd];
                            ir.call("__reach_sym_branch", &mut args);
                        }
                        if tracked(inst) == 0 {
                            continue;
                        }
                        let (a, bv) = (llvm::operand(inst, 1), llvm::operand(inst, 2));
                        let (sa, sb) = (sh(&shadow, a), sh(&shadow, bv));
                        if is_zero(sc) && is_zero(sa) && is_zero(sb) {
                            continue;
                        }
                        if after(ir) {
                            let s = ite(ir, sc, cnd, tracked(inst), a, bv, sa, sb);
                            shadow.insert(inst, s);
                        }
                    }
                    LLVMLoad if tracked(inst) > 0 => {
                        if after(ir) {
                            let size = llvm::store_size(ir.module, llvm::type_of(inst));
                            let mut args = [llvm::operand(inst, 0), ir.c64(size)];
                            shadow.insert(inst, ir.call("__reach_sym_load", &mut args));
                        }
                    }
                    LLVMStore => {
                        let v = llvm::operand(inst, 0);
                        let p = llvm::operand(inst, 1);
                        let size = llvm::store_size(ir.module, llvm::type_of(v));
                        let s = if tracked(v) > 0 {
                            sh(&shadow, v)
                        } else {
                            ir.zero32()
                        };
                        // After the store: a traced store is then the last
                        // event when its shadow is recorded.
                        if after(ir) {
                            let mut args = [p, ir.c64(size), s];
                            ir.call("__reach_sym_store", &mut args);
                        }
                    }
                    LLVMAtomicRMW | LLVMAtomicCmpXchg => {
                        let p = llvm::operand(inst, 0);
                        let v = llvm::operand(inst, if op == LLVMAtomicRMW { 1 } else { 2 });
                        let size = llvm::store_size(ir.module, llvm::type_of(v));
                        c::LLVMPositionBuilderBefore(b, inst);
                        let mut args = [p, ir.c64(size), ir.zero32()];
                        ir.call("__reach_sym_store", &mut args);
                    }
                    LLVMGetElementPtr => {
                        let n = c::LLVMGetNumOperands(inst).max(0) as u32;
                        for i in 1..n {
                            let idx = llvm::operand(inst, i);
                            let s = sh(&shadow, idx);
                            if is_zero(s) || tracked(idx) == 0 {
                                continue;
                            }
                            c::LLVMPositionBuilderBefore(b, inst);
                            let mut args = [
                                ir.c64(0),
                                s,
                                ir.c32(u64::from(tracked(idx))),
                                ir.to_i64(idx),
                            ];
                            ir.call("__reach_sym_concretize", &mut args);
                        }
                    }
                    LLVMBr if c::LLVMIsConditional(inst) != 0 => {
                        let cnd = c::LLVMGetCondition(inst);
                        let s = sh(&shadow, cnd);
                        if is_zero(s) {
                            continue;
                        }
                        let loc = source_loc(ir.ctx, inst, source, fname);
                        let site = table.add("branch", loc);
                        stats.branches += 1;
                        c::LLVMPositionBuilderBefore(b, inst);
                        let mut args = [ir.c64(site), s, cnd];
                        let call = ir.call("__reach_sym_branch", &mut args);
                        llvm::set_debug_loc(call, llvm::debug_loc(inst));
                    }
                    LLVMSwitch => {
                        let cnd = llvm::operand(inst, 0);
                        let s = sh(&shadow, cnd);
                        if is_zero(s) || tracked(cnd) == 0 {
                            continue;
                        }
                        // Successor 0 is the default; case i has successor i.
                        let n = c::LLVMGetNumSuccessors(inst);
                        let mut cases: Vec<Value> = (1..n)
                            .map(|i| {
                                let v = c::LLVMGetSwitchCaseValue(inst, i);
                                ir.c64(c::LLVMConstIntGetZExtValue(v))
                            })
                            .collect();
                        let arr_ty = c::LLVMArrayType2(ir.i64, cases.len() as u64);
                        let arr =
                            c::LLVMConstArray2(ir.i64, cases.as_mut_ptr(), cases.len() as u64);
                        let g = c::LLVMAddGlobal(ir.module, arr_ty, c"__reach_sym.cases".as_ptr());
                        c::LLVMSetInitializer(g, arr);
                        c::LLVMSetGlobalConstant(g, 1);
                        c::LLVMSetLinkage(g, LLVMLinkage::LLVMPrivateLinkage);
                        let loc = source_loc(ir.ctx, inst, source, fname);
                        let site = table.add("branch", loc);
                        stats.branches += 1;
                        c::LLVMPositionBuilderBefore(b, inst);
                        let mut args = [
                            ir.c64(site),
                            s,
                            ir.c32(u64::from(tracked(cnd))),
                            ir.to_i64(cnd),
                            g,
                            ir.c64(cases.len() as u64),
                        ];
                        let call = ir.call("__reach_sym_switch", &mut args);
                        llvm::set_debug_loc(call, llvm::debug_loc(inst));
                    }
                    LLVMRet if c::LLVMGetNumOperands(inst) == 1 => {
                        let v = llvm::operand(inst, 0);
                        if tracked(v) > 0 {
                            c::LLVMPositionBuilderBefore(b, inst);
                            c::LLVMBuildStore(b, sh(&shadow, v), ir.tls_ret);
                        }
                    }
                    LLVMCall | LLVMInvoke => {
                        call_site(ir, inst, op, &mut shadow, table, source, fname);
                    }
                    _ => {}
                }
            }
        }
        for (orig, p) in phis {
            let n = c::LLVMCountIncoming(orig);
            let mut vals = Vec::new();
            let mut bbs = Vec::new();
            for i in 0..n {
                let v = c::LLVMGetIncomingValue(orig, i);
                let bb = c::LLVMGetIncomingBlock(orig, i);
                let s = if reachable.contains(&bb) {
                    sh(&shadow, v)
                } else {
                    ir.zero32()
                };
                vals.push(s);
                bbs.push(bb);
            }
            c::LLVMAddIncoming(p, vals.as_mut_ptr(), bbs.as_mut_ptr(), n);
        }
    }
}

fn is_zero(v: Value) -> bool {
    // SAFETY: inspecting a live value.
    unsafe { !c::LLVMIsAConstantInt(v).is_null() && c::LLVMConstIntGetZExtValue(v) == 0 }
}

fn arg_slot(ir: &Ir, i: u32) -> Value {
    // SAFETY: a constant GEP into the module's own array global.
    unsafe {
        let ty = c::LLVMArrayType2(ir.i32, u64::from(ARG_SLOTS));
        let mut idx = [ir.c32(0), ir.c32(u64::from(i))];
        c::LLVMBuildInBoundsGEP2(ir.b, ty, ir.tls_args, idx.as_mut_ptr(), 2, c"".as_ptr())
    }
}

fn binary(ir: &Ir, sym: u64, width: u32, a: Value, b: Value, sa: Value, sb: Value) -> Value {
    let mut args = [
        ir.c32(sym),
        ir.c32(u64::from(width)),
        ir.to_i64(a),
        ir.to_i64(b),
        sa,
        sb,
    ];
    ir.call("__reach_sym_binary", &mut args)
}

#[allow(clippy::too_many_arguments)]
fn ite(
    ir: &Ir,
    sc: Value,
    c: Value,
    width: u32,
    a: Value,
    b: Value,
    sa: Value,
    sb: Value,
) -> Value {
    let mut args = [
        sc,
        c,
        ir.c32(u64::from(width)),
        ir.to_i64(a),
        ir.to_i64(b),
        sa,
        sb,
    ];
    ir.call("__reach_sym_ite", &mut args)
}

/// Shadows across a call: arguments and callee before it, the result after.
///
/// # Safety
/// `inst` is a call or invoke in a block of the function being processed.
unsafe fn call_site(
    ir: &Ir,
    inst: Value,
    op: LLVMOpcode,
    shadow: &mut HashMap<Value, Value>,
    table: &mut SiteTable,
    source: &str,
    fname: &str,
) {
    let b = ir.b;
    let sh = |shadow: &HashMap<Value, Value>, v: Value| -> Value {
        shadow.get(&v).copied().unwrap_or_else(|| ir.zero32())
    };
    // SAFETY: building around a live call.
    unsafe {
        if llvm::called_inline_asm(inst).is_some() {
            return;
        }
        let name = callee_name(inst);
        let nargs = llvm::num_args(inst);
        if name.starts_with("llvm.") {
            if op != LLVMOpcode::LLVMCall {
                return;
            }
            let is = |p: &str| name.starts_with(p);
            if is("llvm.memcpy") || is("llvm.memmove") {
                c::LLVMPositionBuilderBefore(b, inst);
                let len = llvm::operand(inst, 2);
                let mut args = [
                    llvm::operand(inst, 0),
                    llvm::operand(inst, 1),
                    ir.to_i64(len),
                ];
                ir.call("__reach_sym_memcpy", &mut args);
            } else if is("llvm.memset") {
                c::LLVMPositionBuilderBefore(b, inst);
                let len = llvm::operand(inst, 2);
                let mut args = [llvm::operand(inst, 0), ir.to_i64(len)];
                ir.call("__reach_sym_memset", &mut args);
            } else if (is("llvm.smax.") || is("llvm.smin.") || is("llvm.umax.") || is("llvm.umin."))
                && tracked(inst) > 0
            {
                let (a, bv) = (llvm::operand(inst, 0), llvm::operand(inst, 1));
                let (sa, sb) = (sh(shadow, a), sh(shadow, bv));
                if is_zero(sa) && is_zero(sb) {
                    return;
                }
                let next = c::LLVMGetNextInstruction(inst);
                if next.is_null() {
                    return;
                }
                c::LLVMPositionBuilderBefore(b, next);
                use LLVMIntPredicate::*;
                let (pred, sym) = match &name[..9] {
                    "llvm.smax" => (LLVMIntSGT, SymOp::Sgt),
                    "llvm.smin" => (LLVMIntSLT, SymOp::Slt),
                    "llvm.umax" => (LLVMIntUGT, SymOp::Ugt),
                    _ => (LLVMIntULT, SymOp::Ult),
                };
                let w = tracked(inst);
                let cnd = c::LLVMBuildICmp(b, pred, a, bv, c"".as_ptr());
                let sc = binary(ir, sym as u64, w, a, bv, sa, sb);
                let s = ite(ir, sc, cnd, w, a, bv, sa, sb);
                shadow.insert(inst, s);
            }
            return;
        }
        if name == "reach_assume" && nargs == 1 {
            let v = llvm::operand(inst, 0);
            let s = sh(shadow, v);
            if is_zero(s) || tracked(v) == 0 {
                return;
            }
            let loc = source_loc(ir.ctx, inst, source, fname);
            let site = table.add("assume", loc);
            c::LLVMPositionBuilderBefore(b, inst);
            let mut args = [ir.c64(site), s, ir.to_i64(v)];
            ir.call("__reach_sym_assume", &mut args);
            return;
        }
        if name == "reach_input_int" {
            if op == LLVMOpcode::LLVMCall && tracked(inst) > 0 {
                let next = c::LLVMGetNextInstruction(inst);
                if !next.is_null() {
                    c::LLVMPositionBuilderBefore(b, next);
                    let s = ir.call("__reach_sym_input_shadow", &mut []);
                    shadow.insert(inst, s);
                }
            }
            return;
        }
        if name.starts_with("__reach_") || name.starts_with("reach_") {
            return;
        }
        c::LLVMPositionBuilderBefore(b, inst);
        let mut slot = 0;
        for i in 0..nargs {
            let v = llvm::operand(inst, i);
            if tracked(v) == 0 || slot >= ARG_SLOTS {
                continue;
            }
            c::LLVMBuildStore(b, sh(shadow, v), arg_slot(ir, slot));
            slot += 1;
        }
        // The called operand is the last operand of a call.
        let n = c::LLVMGetNumOperands(inst).max(1) as u32;
        let callee = llvm::operand(inst, n - 1);
        if llvm::type_kind(llvm::type_of(callee))
            == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
        {
            c::LLVMBuildStore(b, callee, ir.tls_callee);
        }
        c::LLVMBuildStore(b, ir.zero32(), ir.tls_ret);
        if op == LLVMOpcode::LLVMCall && tracked(inst) > 0 {
            let next = c::LLVMGetNextInstruction(inst);
            if !next.is_null() {
                c::LLVMPositionBuilderBefore(b, next);
                let s = c::LLVMBuildLoad2(b, ir.i32, ir.tls_ret, c"".as_ptr());
                shadow.insert(inst, s);
            }
        }
    }
}

/// Gives the input API (`reach_input_int`, `reach_input_bytes`,
/// `reach_assume`) a weak definition in a module that declares it: each
/// calls the runtime's `__reach_input_int`/... when it is loaded and
/// otherwise returns the default (0 clamped to the range, zero bytes,
/// nothing), so a program built with `reach-cc` links and runs without the
/// runtime. The definitions are not instrumented.
pub(crate) fn define_input_api(module: LLVMModuleRef) {
    // SAFETY: building small functions in the live module.
    unsafe {
        let ctx = c::LLVMGetModuleContext(module);
        let b = c::LLVMCreateBuilderInContext(ctx);
        let i32t = c::LLVMInt32TypeInContext(ctx);
        let i64t = c::LLVMInt64TypeInContext(ctx);
        let ptr = c::LLVMPointerTypeInContext(ctx, 0);
        let void = c::LLVMVoidTypeInContext(ctx);
        let apis: [(&str, LLVMTypeRef, Vec<LLVMTypeRef>); 3] = [
            ("reach_input_int", i32t, vec![ptr, i32t, i32t]),
            ("reach_input_bytes", void, vec![ptr, i64t, ptr]),
            ("reach_assume", void, vec![i32t]),
        ];
        for (name, ret, mut params) in apis {
            let n = cstr(name);
            let f = c::LLVMGetNamedFunction(module, n.as_ptr());
            if f.is_null() || c::LLVMCountBasicBlocks(f) > 0 {
                continue;
            }
            let ty = c::LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
            if c::LLVMGlobalGetValueType(f) != ty {
                continue;
            }
            let rn = cstr(&format!("__{name}"));
            let mut rt = c::LLVMGetNamedFunction(module, rn.as_ptr());
            if rt.is_null() {
                rt = c::LLVMAddFunction(module, rn.as_ptr(), ty);
                c::LLVMSetLinkage(rt, LLVMLinkage::LLVMExternalWeakLinkage);
            }
            c::LLVMSetLinkage(f, LLVMLinkage::LLVMWeakAnyLinkage);
            // A declaration's subprogram may not describe a definition.
            let dbg = c::LLVMGetMDKindIDInContext(ctx, c"dbg".as_ptr(), 3);
            c::LLVMGlobalEraseMetadata(f, dbg);
            let key = crate::exclude::NO_INSTRUMENT_ATTRIBUTE;
            let attr = c::LLVMCreateStringAttribute(
                ctx,
                key.as_ptr().cast(),
                key.len() as u32,
                c"".as_ptr(),
                0,
            );
            c::LLVMAddAttributeAtIndex(f, u32::MAX, attr);
            let entry = c::LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
            let call_bb = c::LLVMAppendBasicBlockInContext(ctx, f, c"call".as_ptr());
            let fallback = c::LLVMAppendBasicBlockInContext(ctx, f, c"default".as_ptr());
            c::LLVMPositionBuilderAtEnd(b, entry);
            let present = c::LLVMBuildIsNotNull(b, rt, c"".as_ptr());
            c::LLVMBuildCondBr(b, present, call_bb, fallback);
            c::LLVMPositionBuilderAtEnd(b, call_bb);
            let mut args: Vec<Value> = (0..params.len() as u32)
                .map(|i| c::LLVMGetParam(f, i))
                .collect();
            let r = c::LLVMBuildCall2(
                b,
                ty,
                rt,
                args.as_mut_ptr(),
                args.len() as u32,
                c"".as_ptr(),
            );
            if ret == void {
                c::LLVMBuildRetVoid(b);
            } else {
                c::LLVMBuildRet(b, r);
            }
            c::LLVMPositionBuilderAtEnd(b, fallback);
            match name {
                "reach_input_int" => {
                    // hi < lo ? 0 : max(lo, min(0, hi))
                    let (lo, hi) = (args[1], args[2]);
                    let zero = c::LLVMConstInt(i32t, 0, 0);
                    let hi_neg =
                        c::LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntSLT, hi, zero, c"".as_ptr());
                    let m = c::LLVMBuildSelect(b, hi_neg, hi, zero, c"".as_ptr());
                    let lo_big =
                        c::LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntSGT, lo, m, c"".as_ptr());
                    let v = c::LLVMBuildSelect(b, lo_big, lo, m, c"".as_ptr());
                    let empty =
                        c::LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntSLT, hi, lo, c"".as_ptr());
                    let v = c::LLVMBuildSelect(b, empty, zero, v, c"".as_ptr());
                    c::LLVMBuildRet(b, v);
                }
                "reach_input_bytes" => {
                    let i8t = c::LLVMInt8TypeInContext(ctx);
                    let zero = c::LLVMConstInt(i8t, 0, 0);
                    c::LLVMBuildMemSet(b, args[0], zero, args[1], 1);
                    c::LLVMBuildRetVoid(b);
                }
                _ => {
                    c::LLVMBuildRetVoid(b);
                }
            }
        }
        c::LLVMDisposeBuilder(b);
    }
}
