//! Deciding what, if anything, to do with one instruction.
//!
//! [`classify`] maps an instruction to an [`Action`] (which hook, with which
//! operands) and counts what it saw in [`Stats`]. It does not change the IR.

use crate::asm_atomics::{self, AsmAtomic};
use crate::escape::{EscapeAnalysis, Sharing};
use crate::inline_asm::{self, AsmAccess, AsmEffect};
use crate::llvm::{self, Value};
use crate::stats::Stats;
use inkwell::llvm_sys::prelude::LLVMModuleRef;
use inkwell::llvm_sys::{LLVMAtomicRMWBinOp as Rmw, LLVMOpcode as Op, LLVMTypeKind};
use reach_channel::hooks::{self, HookSpec, RmwOp};
use reach_channel::memory_model::{ORDERING_FAILURE_SHIFT, ORDERING_VALUE_FOLLOWS};
use reach_channel::sources::Source;

/// Library functions the runtime interposes (besides every `pthread_*` and
/// `sem_*`): calls to them get a call-site hook.
pub const INTERPOSED: &[&str] = &[
    "sched_yield",
    "sleep",
    "usleep",
    "nanosleep",
    "clock_nanosleep",
    "exit",
    "syscall",
    "fork",
    // Noted as sources of nondeterminism, with this site.
    "open",
    "open64",
    "openat",
    "openat64",
    "fopen",
    "fopen64",
    "getrandom",
    "getentropy",
    "arc4random",
    "arc4random_buf",
    "arc4random_uniform",
    "_ZNSt13random_device9_M_getvalEv",
    "clock",
    "times",
    "getrusage",
    "timespec_get",
    "clone",
];

/// Prefixes of interposed library function families.
pub const INTERPOSED_PREFIXES: &[&str] = &["pthread_", "sem_"];

/// True if a call to the external function `name` gets a call-site hook.
pub fn is_interposed(name: &str) -> bool {
    INTERPOSED.contains(&name) || INTERPOSED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// One side of a ranged operation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RangePart {
    /// Start address.
    pub ptr: Value,
    /// Length (an integer value of any width).
    pub len: Value,
    /// Destination (written) or source (read).
    pub is_write: bool,
}

/// What to insert before an instruction.
#[derive(Clone, Debug)]
pub(crate) enum Action {
    /// `__reach_load`/`__reach_store(site, ptr, size)`, or their volatile
    /// (marked) twins.
    Plain {
        spec: HookSpec,
        what: &'static str,
        ptr: Value,
        size: u64,
    },
    /// `__reach_atomic_rmw(site, ptr, size, ordering, op, operand)`.
    Rmw {
        what: String,
        ptr: Value,
        size: u64,
        ordering: u32,
        /// The operation.
        op: RmwOp,
        /// The value operand (passed when its value can be read as a `u64`).
        operand: Value,
        /// Nothing uses the instruction's result (the old value).
        result_unused: bool,
    },
    /// Atomic load/store/cmpxchg hook.
    Atomic {
        spec: HookSpec,
        what: String,
        ptr: Value,
        size: u64,
        ordering: u32,
        /// The compare operand of a cmpxchg.
        expected: Option<Value>,
    },
    /// `__reach_fence(site, ordering)`: a `fence` instruction, or inline
    /// assembly that clobbers memory and has no memory operand.
    Fence { what: &'static str, ordering: u32 },
    /// The atomic hooks of an inline-asm call's memory operands
    /// ([`inline_asm::emit`]).
    InlineAsm {
        what: String,
        accesses: Vec<AsmAccess>,
    },
    /// `__reach_range` once per shared side.
    Range { what: String, parts: Vec<RangePart> },
    /// `__reach_call_site(site)`.
    CallSite { callee: String },
    /// `__reach_spin_hint(site)`: a spin-wait hint (an intrinsic such as
    /// `llvm.x86.sse2.pause`, or inline assembly that is only `pause`).
    SpinHint { what: &'static str },
    /// `__reach_source(site, source)`: an instruction whose result differs
    /// from run to run (the cycle counter, a hardware random number).
    Source {
        what: &'static str,
        source: reach_channel::sources::Source,
    },
    /// `__reach_region_enter(site, object)` at the entry of a channel
    /// method (`object`: its `self`).
    RegionEnter { object: Value },
    /// `__reach_region_exit(site)` before a return or `resume` of one.
    RegionExit,
    /// `__reach_stack_object(site, ptr, size)` just *after* an `alloca`
    /// whose address escapes: `count` elements of `element_size` bytes.
    StackObject {
        alloca: Value,
        element_size: u64,
        count: Value,
        /// The variable's source name, if debug records give it.
        name: Option<String>,
    },
}

impl Action {
    /// The `what` field of the site record.
    pub(crate) fn what(&self) -> String {
        match self {
            Action::Plain { what, .. } => (*what).to_string(),
            Action::Atomic { what, .. }
            | Action::Rmw { what, .. }
            | Action::Range { what, .. }
            | Action::InlineAsm { what, .. } => what.clone(),
            Action::Fence { what, .. } => (*what).to_string(),
            Action::CallSite { callee } => format!("call {callee}"),
            Action::SpinHint { what } | Action::Source { what, .. } => (*what).to_string(),
            Action::RegionEnter { .. } => "channel operation".to_string(),
            Action::RegionExit => "channel operation end".to_string(),
            Action::StackObject { name: None, .. } => "stack object".to_string(),
            Action::StackObject {
                name: Some(name), ..
            } => format!("{}{name}", hooks::STACK_VARIABLE_PREFIX),
        }
    }
}

/// Per-module classification context.
pub(crate) struct Classifier {
    pub module: LLVMModuleRef,
    pub escape: EscapeAnalysis,
    pub local_names: crate::local_names::LocalNames,
}

fn count_skip(stats: &mut Stats, sharing: Sharing) {
    match sharing {
        Sharing::Shared => {}
        Sharing::LocalAlloca => stats.skipped_local += 1,
        Sharing::ThreadLocal => stats.skipped_thread_local += 1,
        Sharing::ConstantGlobal => stats.skipped_constant += 1,
        Sharing::OtherAddressSpace => stats.skipped_address_space += 1,
    }
}

fn sized(t: inkwell::llvm_sys::prelude::LLVMTypeRef) -> bool {
    llvm::type_kind(t) != LLVMTypeKind::LLVMScalableVectorTypeKind
}

/// True if the program never uses the value `inst` produces: it has no
/// uses, or it is only stored into a local variable (an `alloca`) that
/// nothing reads but loads whose values are unused in turn (the
/// `atomic-temp` clang keeps the old value of a discarded
/// `atomic_fetch_add` in without optimisation).
fn result_unused(inst: Value) -> bool {
    let unread_temporary = |ptr: Value| {
        llvm::opcode(ptr) == Some(Op::LLVMAlloca)
            && llvm::uses(ptr)
                .into_iter()
                .all(|(user, index)| match llvm::opcode(user) {
                    Some(Op::LLVMStore) => index == 1,
                    Some(Op::LLVMLoad) => !llvm::has_uses(user),
                    _ => false,
                })
    };
    llvm::uses(inst).into_iter().all(|(user, index)| {
        llvm::opcode(user) == Some(Op::LLVMStore)
            && index == 0
            && unread_temporary(llvm::operand(user, 1))
    })
}

/// The hook ABI's name for an `atomicrmw` operation, and its IR name.
fn rmw_op(op: Rmw) -> (RmwOp, &'static str) {
    match op {
        Rmw::LLVMAtomicRMWBinOpXchg => (RmwOp::Xchg, "xchg"),
        Rmw::LLVMAtomicRMWBinOpAdd => (RmwOp::Add, "add"),
        Rmw::LLVMAtomicRMWBinOpSub => (RmwOp::Sub, "sub"),
        Rmw::LLVMAtomicRMWBinOpAnd => (RmwOp::And, "and"),
        Rmw::LLVMAtomicRMWBinOpNand => (RmwOp::Nand, "nand"),
        Rmw::LLVMAtomicRMWBinOpOr => (RmwOp::Or, "or"),
        Rmw::LLVMAtomicRMWBinOpXor => (RmwOp::Xor, "xor"),
        Rmw::LLVMAtomicRMWBinOpMax => (RmwOp::Max, "max"),
        Rmw::LLVMAtomicRMWBinOpMin => (RmwOp::Min, "min"),
        Rmw::LLVMAtomicRMWBinOpUMax => (RmwOp::UMax, "umax"),
        Rmw::LLVMAtomicRMWBinOpUMin => (RmwOp::UMin, "umin"),
        Rmw::LLVMAtomicRMWBinOpFAdd => (RmwOp::FAdd, "fadd"),
        Rmw::LLVMAtomicRMWBinOpFSub => (RmwOp::FSub, "fsub"),
        Rmw::LLVMAtomicRMWBinOpFMax => (RmwOp::FMax, "fmax"),
        Rmw::LLVMAtomicRMWBinOpFMin => (RmwOp::FMin, "fmin"),
        Rmw::LLVMAtomicRMWBinOpUIncWrap => (RmwOp::UIncWrap, "uinc_wrap"),
        Rmw::LLVMAtomicRMWBinOpUDecWrap => (RmwOp::UDecWrap, "udec_wrap"),
        Rmw::LLVMAtomicRMWBinOpUSubCond => (RmwOp::USubCond, "usub_cond"),
        Rmw::LLVMAtomicRMWBinOpUSubSat => (RmwOp::USubSat, "usub_sat"),
        Rmw::LLVMAtomicRMWBinOpFMaximum => (RmwOp::FMaximum, "fmaximum"),
        Rmw::LLVMAtomicRMWBinOpFMinimum => (RmwOp::FMinimum, "fminimum"),
    }
}

impl Classifier {
    /// The action for `inst`, counting what was seen or skipped.
    pub(crate) fn classify(&mut self, inst: Value, stats: &mut Stats) -> Option<Action> {
        match llvm::opcode(inst)? {
            Op::LLVMLoad => self.load_store(
                inst,
                llvm::operand(inst, 0),
                llvm::type_of(inst),
                false,
                stats,
            ),
            Op::LLVMStore => {
                let value_type = llvm::type_of(llvm::operand(inst, 0));
                self.load_store(inst, llvm::operand(inst, 1), value_type, true, stats)
            }
            Op::LLVMAtomicRMW => {
                // SAFETY: `inst` is an atomicrmw.
                let (op, name) =
                    rmw_op(unsafe { inkwell::llvm_sys::core::LLVMGetAtomicRMWBinOp(inst) });
                let operand = llvm::operand(inst, 1);
                let (ptr, size, ordering) =
                    self.atomic_target(inst, llvm::type_of(operand), stats)?;
                Some(Action::Rmw {
                    what: format!("atomic rmw {name}"),
                    ptr,
                    size,
                    ordering,
                    op,
                    operand,
                    result_unused: result_unused(inst),
                })
            }
            Op::LLVMAtomicCmpXchg => {
                let what = if llvm::is_weak(inst) {
                    "cmpxchg weak"
                } else {
                    "cmpxchg"
                };
                let expected = llvm::operand(inst, 1);
                let ty = llvm::type_of(expected);
                let mut action = self.atomic(
                    inst,
                    hooks::CMPXCHG,
                    what.to_string(),
                    ty,
                    Some(expected),
                    stats,
                )?;
                if let Action::Atomic { ordering, .. } = &mut action {
                    *ordering |= llvm::failure_ordering(inst) << ORDERING_FAILURE_SHIFT;
                }
                Some(action)
            }
            Op::LLVMFence => {
                if llvm::is_single_thread(inst) {
                    stats.atomics_skipped += 1;
                    return None;
                }
                stats.atomics += 1;
                Some(Action::Fence {
                    what: "fence",
                    ordering: llvm::ordering(inst),
                })
            }
            Op::LLVMAlloca => self.stack_object(inst),
            Op::LLVMCall | Op::LLVMInvoke | Op::LLVMCallBr => match llvm::called_inline_asm(inst) {
                Some(asm) => self.inline_asm(inst, asm, stats),
                None => self.call(inst, stats),
            },
            _ => None,
        }
    }

    /// An `alloca` in the default address space whose address escapes
    /// gets a record so reports can name it.
    fn stack_object(&mut self, inst: Value) -> Option<Action> {
        if llvm::address_space(llvm::type_of(inst)) != 0 || !self.escape.escapes(inst) {
            return None;
        }
        // SAFETY: `inst` is an alloca.
        let ty = unsafe { inkwell::llvm_sys::core::LLVMGetAllocatedType(inst) };
        if !llvm::is_sized(ty) || !sized(ty) {
            return None;
        }
        Some(Action::StackObject {
            alloca: inst,
            element_size: llvm::alloc_size(self.module, ty),
            count: llvm::operand(inst, 0),
            name: self.local_names.variable_name(inst),
        })
    }

    fn load_store(
        &mut self,
        inst: Value,
        ptr: Value,
        ty: inkwell::llvm_sys::prelude::LLVMTypeRef,
        store: bool,
        stats: &mut Stats,
    ) -> Option<Action> {
        let atomic = llvm::ordering(inst) != 0;
        if atomic {
            let (spec, what) = if store {
                (hooks::ATOMIC_STORE, "atomic store")
            } else {
                (hooks::ATOMIC_LOAD, "atomic load")
            };
            let mut action = self.atomic(inst, spec, what.to_string(), ty, None, stats)?;
            if let Action::Atomic { ordering, .. } = &mut action {
                if !store && crate::load_value::chooses_value(ty) {
                    *ordering |= ORDERING_VALUE_FOLLOWS;
                }
            }
            return Some(action);
        }
        stats.memory_ops += 1;
        let sharing = self.escape.classify(ptr);
        if sharing != Sharing::Shared {
            count_skip(stats, sharing);
            return None;
        }
        if !sized(ty) {
            stats.skipped_unsized += 1;
            return None;
        }
        stats.memory_instrumented += 1;
        let volatile = llvm::is_volatile(inst);
        let (spec, what) = match (store, volatile) {
            (false, false) => (hooks::LOAD, "load"),
            (false, true) => (hooks::VOLATILE_LOAD, "volatile load"),
            (true, false) => (hooks::STORE, "store"),
            (true, true) => (hooks::VOLATILE_STORE, "volatile store"),
        };
        Some(Action::Plain {
            spec,
            what,
            ptr,
            size: llvm::store_size(self.module, ty),
        })
    }

    fn atomic(
        &mut self,
        inst: Value,
        spec: HookSpec,
        what: String,
        ty: inkwell::llvm_sys::prelude::LLVMTypeRef,
        expected: Option<Value>,
        stats: &mut Stats,
    ) -> Option<Action> {
        let (ptr, size, ordering) = self.atomic_target(inst, ty, stats)?;
        Some(Action::Atomic {
            spec,
            what,
            ptr,
            size,
            ordering,
            expected,
        })
    }

    /// The address, size and ordering of an atomic instruction accessing a
    /// value of type `ty`, if it is to be instrumented (counted in `stats`).
    fn atomic_target(
        &mut self,
        inst: Value,
        ty: inkwell::llvm_sys::prelude::LLVMTypeRef,
        stats: &mut Stats,
    ) -> Option<(Value, u64, u32)> {
        let ptr = llvm::operand(
            inst,
            if llvm::opcode(inst) == Some(Op::LLVMStore) {
                1
            } else {
                0
            },
        );
        if llvm::is_single_thread(inst)
            || self.escape.classify(ptr) != Sharing::Shared
            || !sized(ty)
        {
            stats.atomics_skipped += 1;
            return None;
        }
        stats.atomics += 1;
        Some((ptr, llvm::store_size(self.module, ty), llvm::ordering(inst)))
    }

    /// An inline-asm call: atomic hooks for its memory operands on shared
    /// memory, else a fence if it clobbers memory (see [`inline_asm`]).
    fn inline_asm(&mut self, inst: Value, asm: Value, stats: &mut Stats) -> Option<Action> {
        if inline_asm::is_spin_hint(&llvm::inline_asm_text(asm)) {
            stats.spin_hints += 1;
            return Some(Action::SpinHint {
                what: "asm spin hint",
            });
        }
        let source = inline_asm::source(&llvm::inline_asm_text(asm));
        let (accesses, clobbers_memory) = match inline_asm::effect(self.module, inst, asm) {
            AsmEffect::Invisible | AsmEffect::Fence if source.is_some() => {
                let (source, what) = source?;
                stats.sources += 1;
                return Some(Action::Source { what, source });
            }
            AsmEffect::Invisible => return None,
            AsmEffect::Fence => (Vec::new(), true),
            AsmEffect::Accesses(all) => {
                let clobbers = inline_asm::roles(inst, asm).clobbers_memory;
                let mut shared = Vec::new();
                for a in all {
                    match self.escape.classify(a.ptr) {
                        Sharing::Shared => shared.push(a),
                        other => count_skip(stats, other),
                    }
                }
                (shared, clobbers)
            }
        };
        if accesses.is_empty() {
            if !clobbers_memory {
                return None;
            }
            if inline_asm::is_compiler_barrier(&llvm::inline_asm_text(asm)) {
                stats.atomics_skipped += 1;
                return None;
            }
            stats.asm_fences += 1;
            return Some(Action::Fence {
                what: "asm fence",
                ordering: inline_asm::SEQ_CST,
            });
        }
        stats.asm_accesses += accesses.len() as u64;
        if let [only] = accesses.as_slice() {
            if let Some(action) = self.asm_atomic(inst, asm, only) {
                return Some(action);
            }
        }
        Some(Action::InlineAsm {
            what: inline_asm::describe(&accesses),
            accesses,
        })
    }

    /// The hook of an inline-asm call whose template is one x86 atomic
    /// instruction on `access` ([`asm_atomics`]): an exchange, an
    /// arithmetic update or a compare-and-exchange the runtime can judge,
    /// rather than a read-modify-write of unknown operation.
    fn asm_atomic(&self, inst: Value, asm: Value, access: &AsmAccess) -> Option<Action> {
        let found = asm_atomics::recognise(inst, asm)?;
        if found.ptr != access.ptr || !access.write {
            return None;
        }
        let size = found.size.unwrap_or(access.size);
        Some(match found.atomic {
            AsmAtomic::CmpXchg { expected } => Action::Atomic {
                spec: hooks::CMPXCHG,
                what: format!("asm {}", found.mnemonic),
                ptr: access.ptr,
                size,
                ordering: inline_asm::SEQ_CST,
                expected: Some(expected),
            },
            AsmAtomic::Rmw { op, operand } => Action::Rmw {
                what: format!("asm {}", found.mnemonic),
                ptr: access.ptr,
                size,
                ordering: inline_asm::SEQ_CST,
                op,
                operand: match operand {
                    asm_atomics::Operand::Value(v) => v,
                    asm_atomics::Operand::Constant(c) => self.constant(c),
                },
                result_unused: false,
            },
        })
    }

    /// The `i64` constant `value` of the module's context.
    fn constant(&self, value: u64) -> Value {
        use inkwell::llvm_sys::core as c;
        // SAFETY: the module is live; constants belong to its context.
        unsafe {
            let ctx = c::LLVMGetModuleContext(self.module);
            c::LLVMConstInt(c::LLVMInt64TypeInContext(ctx), value, 0)
        }
    }

    fn call(&mut self, inst: Value, stats: &mut Stats) -> Option<Action> {
        let callee = llvm::called_function(inst)?;
        let name = llvm::name(callee);
        if is_spin_hint_intrinsic(&name) {
            stats.spin_hints += 1;
            return Some(Action::SpinHint { what: "spin hint" });
        }
        if let Some((source, what)) = source_intrinsic(&name) {
            stats.sources += 1;
            return Some(Action::Source { what, source });
        }
        let arg = |i: u32| (i < llvm::num_args(inst)).then(|| llvm::operand(inst, i));
        let parts: Vec<RangePart> = match ranged_shape(&name)? {
            RangedShape::CallSite => {
                return llvm::is_declaration(callee).then_some(Action::CallSite { callee: name });
            }
            RangedShape::Copy { len } => vec![
                RangePart {
                    ptr: arg(1)?,
                    len: arg(len)?,
                    is_write: false,
                },
                RangePart {
                    ptr: arg(0)?,
                    len: arg(len)?,
                    is_write: true,
                },
            ],
            RangedShape::Set { len } => {
                vec![RangePart {
                    ptr: arg(0)?,
                    len: arg(len)?,
                    is_write: true,
                }]
            }
            RangedShape::Compare => vec![
                RangePart {
                    ptr: arg(0)?,
                    len: arg(2)?,
                    is_write: false,
                },
                RangePart {
                    ptr: arg(1)?,
                    len: arg(2)?,
                    is_write: false,
                },
            ],
        };
        let mut shared = Vec::new();
        for part in parts {
            match self.escape.classify(part.ptr) {
                Sharing::Shared => shared.push(part),
                other => count_skip(stats, other),
            }
        }
        if shared.is_empty() {
            return None;
        }
        stats.ranged += 1;
        let what = name
            .strip_prefix("llvm.")
            .map(|s| s.split('.').next().unwrap_or(s))
            .unwrap_or(&name)
            .to_string();
        Some(Action::Range {
            what,
            parts: shared,
        })
    }
}

/// True for the intrinsics a spin-wait hint compiles to: x86's `pause`
/// (`_mm_pause`, Rust's `core::hint::spin_loop`) and Arm's `hint`/`yield`.
pub fn is_spin_hint_intrinsic(name: &str) -> bool {
    matches!(
        name,
        "llvm.x86.sse2.pause" | "llvm.aarch64.hint" | "llvm.arm.hint"
    )
}

/// The source of nondeterminism an intrinsic reads, if any: the cycle
/// counter (`__rdtsc()`, `__builtin_readcyclecounter()`) or a hardware
/// random number (`_rdrand32_step`, `_rdseed64_step`...).
pub fn source_intrinsic(name: &str) -> Option<(Source, &'static str)> {
    match name {
        "llvm.x86.rdtsc" | "llvm.x86.rdtscp" | "llvm.readcyclecounter" => {
            Some((Source::CycleCounter, "rdtsc"))
        }
        _ if name.starts_with("llvm.x86.rdrand.") || name.starts_with("llvm.x86.rdseed.") => {
            Some((Source::RandomInstruction, "rdrand"))
        }
        _ => None,
    }
}

/// The operand shape of a call the pass hooks.
enum RangedShape {
    /// An interposed library call: call-site hook only.
    CallSite,
    /// `(dst, src, .., len at index len)`: source read, destination written.
    Copy { len: u32 },
    /// `(dst, .., len at index len)`: destination written.
    Set { len: u32 },
    /// `(a, b, len)`: both read.
    Compare,
}

fn ranged_shape(name: &str) -> Option<RangedShape> {
    if let Some(rest) = name.strip_prefix("llvm.") {
        return if rest.starts_with("memcpy") || rest.starts_with("memmove") {
            Some(RangedShape::Copy { len: 2 })
        } else if rest.starts_with("memset") {
            Some(RangedShape::Set { len: 2 })
        } else {
            None
        };
    }
    match name {
        "memcpy" | "memmove" | "__memcpy_chk" | "__memmove_chk" | "mempcpy" => {
            Some(RangedShape::Copy { len: 2 })
        }
        "memset" | "__memset_chk" => Some(RangedShape::Set { len: 2 }),
        "bzero" | "explicit_bzero" => Some(RangedShape::Set { len: 1 }),
        "memcmp" | "bcmp" => Some(RangedShape::Compare),
        _ if is_interposed(name) => Some(RangedShape::CallSite),
        _ => None,
    }
}
