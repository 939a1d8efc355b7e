//! Inline assembly: what a `call asm` does to memory, and its hooks.
//!
//! The pass cannot see inside an assembly template, but the call's
//! constraint string says which operands are memory and whether the asm
//! clobbers memory. The rule:
//!
//! * each *indirect* operand (`=*m`, `*m`, any `*`-constraint; LLVM gives
//!   these call arguments an `elementtype` attribute) is an access to the
//!   memory it points to, of the element type's store size (8 bytes if the
//!   type has no size): an **output** operand (`"=m"`, `"+m"`, which clang
//!   lowers to an output and an input on the same pointer) is an atomic
//!   read-modify-write of unknown operation, and an **input-only** operand
//!   (`"m"`) an atomic load, since GCC's rules forbid the template to write
//!   an input-only operand;
//! * an asm with no such operand that clobbers memory (`~{memory}`:
//!   `mfence`, or a template writing through a pointer held in a
//!   register) is a sequentially consistent fence, except an empty
//!   template, a compiler barrier, which is skipped like a single-thread
//!   fence (it orders nothing between threads);
//! * anything else (register arithmetic, `pause`, `rdtsc`) touches no memory
//!   the program can name and is not a memory access; an asm without
//!   memory operands whose template reads the cycle counter (`rdtsc`,
//!   `rdtscp`) or a hardware random number (`rdrand`, `rdseed`) gets
//!   `__reach_source(site, source)` instead ([`source`]), so that a
//!   nondeterminism report can name it.
//!
//! Every access is sequentially consistent (x86 `lock`ed instructions and
//! `xchg` are full barriers; a `mov` is treated the same way). The accesses
//! are emitted through the ordinary atomic hooks, so they are scheduling
//! points and synchronise in the data-race detector like C11 atomics.
//!
//! ```text
//! %p = call i32 asm sideeffect "lock; cmpxchgl $2, $1", "={ax},=*m,r,0,*m,~{memory}"(ptr elementtype(i32) @l, i32 1, i32 0, ptr elementtype(i32) @l)
//!   -> call void @__reach_atomic_rmw.guard(i64 SITE, ptr @l, i64 4, i32 7, i32 0, i64 0)
//! call void asm sideeffect "mfence", "~{memory}"()
//!   -> call void @__reach_fence.guard(i64 SITE, i32 7)
//! ```

use crate::hooks::HookSet;
use crate::llvm::{self, Value};
use inkwell::builder::{Builder, BuilderError};
use inkwell::llvm_sys::prelude::LLVMModuleRef;
use inkwell::llvm_sys::LLVMAtomicOrdering;
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, PointerValue};
use reach_channel::hooks::{self, RmwOp};
use reach_channel::sources::Source;

/// LLVM's numeric `seq_cst` ordering, the ordering of every asm access.
pub(crate) const SEQ_CST: u32 = LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent as u32;

/// Size assumed for a memory operand whose element type has no size.
const UNKNOWN_SIZE: u64 = 8;

/// How an inline-asm call uses one of its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A value in a register or an immediate (the asm may do anything with
    /// it, including publishing a pointer).
    Direct,
    /// A memory operand the asm writes (`=*m`).
    MemoryOutput,
    /// A memory operand the asm only reads (`*m`).
    MemoryInput,
}

/// A parsed constraint string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Constraints {
    /// One role per call argument, in order.
    pub args: Vec<Role>,
    /// The asm clobbers memory (`~{memory}`).
    pub clobbers_memory: bool,
}

/// Parses an LLVM inline-asm constraint string: comma-separated entries,
/// `~{..}` clobbers, `!i` labels (`asm goto`), `=` outputs (an argument only
/// if indirect, `=*`), and inputs (one argument each, indirect with `*`).
pub(crate) fn parse_constraints(s: &str) -> Constraints {
    let mut args = Vec::new();
    let mut clobbers_memory = false;
    for entry in s.split(',').filter(|e| !e.is_empty()) {
        if let Some(clobber) = entry.strip_prefix('~') {
            clobbers_memory |= clobber == "{memory}";
            continue;
        }
        if entry.starts_with('!') {
            continue;
        }
        let (output, rest) = match entry.strip_prefix('=') {
            Some(rest) => (true, rest),
            None => (false, entry),
        };
        let indirect = rest
            .chars()
            .take_while(|c| matches!(c, '*' | '&' | '%' | '#'))
            .any(|c| c == '*');
        match (output, indirect) {
            (true, false) => {}
            (true, true) => args.push(Role::MemoryOutput),
            (false, true) => args.push(Role::MemoryInput),
            (false, false) => args.push(Role::Direct),
        }
    }
    Constraints {
        args,
        clobbers_memory,
    }
}

/// One memory access of an inline-asm call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AsmAccess {
    /// The operand's address.
    pub ptr: Value,
    /// Bytes accessed.
    pub size: u64,
    /// Read-modify-write (`true`) or load.
    pub write: bool,
}

/// What an inline-asm call does to memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AsmEffect {
    /// Accesses through memory operands (one per distinct address).
    Accesses(Vec<AsmAccess>),
    /// No memory operand, but a memory clobber: a full fence.
    Fence,
    /// Neither: not instrumented.
    Invisible,
}

/// The roles of the arguments of the inline-asm call `call` to `asm`. If the
/// constraint string does not account for exactly the call's arguments, the
/// arguments with an `elementtype` attribute (which LLVM requires exactly on
/// indirect operands) count as written memory operands.
pub(crate) fn roles(call: Value, asm: Value) -> Constraints {
    let mut c = parse_constraints(&llvm::inline_asm_constraints(asm));
    let n = llvm::num_args(call);
    if c.args.len() != n as usize {
        c.args = (0..n)
            .map(|i| match llvm::arg_element_type(call, i) {
                Some(_) => Role::MemoryOutput,
                None => Role::Direct,
            })
            .collect();
    }
    c
}

/// True if argument `idx` of `call` is a memory operand of inline assembly
/// (the asm accesses the memory but is not given the address as a value).
pub(crate) fn is_memory_operand(call: Value, idx: u32) -> bool {
    let Some(asm) = llvm::called_inline_asm(call) else {
        return false;
    };
    roles(call, asm)
        .args
        .get(idx as usize)
        .is_some_and(|r| *r != Role::Direct)
}

/// True if the assembly text `text` is empty (white space only): with a
/// memory clobber, `asm volatile("" ::: "memory")` is a compiler barrier,
/// which orders nothing between threads at run time (C11's
/// `atomic_signal_fence`, a fence of single-thread scope).
pub(crate) fn is_compiler_barrier(text: &str) -> bool {
    text.trim().is_empty()
}

/// True if the assembly text `text` is nothing but spin-wait hints: x86's
/// `pause` (also spelled `rep; nop`) or Arm's `yield`, one or more, split by
/// `;` or new lines (`cpu_relax()`, a hand-written spin lock's wait).
pub(crate) fn is_spin_hint(text: &str) -> bool {
    let words: Vec<String> = text
        .split([';', '\n'])
        .map(|part| part.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|part| !part.is_empty())
        .collect();
    let mut i = 0;
    let mut any = false;
    while i < words.len() {
        match words[i].as_str() {
            "pause" | "yield" | "rep nop" => i += 1,
            "rep" if words.get(i + 1).is_some_and(|w| w == "nop") => i += 2,
            _ => return false,
        }
        any = true;
    }
    any
}

/// The source of nondeterminism among the instructions of the assembly
/// text `text`, if any: the cycle counter (`rdtsc`, `rdtscp`) or a
/// hardware random number (`rdrand`, `rdseed`, with any size suffix).
pub(crate) fn source(text: &str) -> Option<(Source, &'static str)> {
    text.split([';', '\n'])
        .filter_map(|part| part.split_whitespace().next())
        .find_map(|word| {
            let word = word.to_ascii_lowercase();
            if word == "rdtsc" || word == "rdtscp" {
                Some((Source::CycleCounter, "asm rdtsc"))
            } else if word.starts_with("rdrand") || word.starts_with("rdseed") {
                Some((Source::RandomInstruction, "asm rdrand"))
            } else {
                None
            }
        })
}

/// What the inline-asm call `call` to `asm` does to memory, before any
/// filtering of thread-private addresses.
pub(crate) fn effect(module: LLVMModuleRef, call: Value, asm: Value) -> AsmEffect {
    let c = roles(call, asm);
    let mut accesses: Vec<AsmAccess> = Vec::new();
    for (i, role) in c.args.iter().enumerate() {
        let write = match role {
            Role::Direct => continue,
            Role::MemoryOutput => true,
            Role::MemoryInput => false,
        };
        let i = i as u32;
        let ptr = llvm::operand(call, i);
        let size = llvm::arg_element_type(call, i)
            .filter(|t| llvm::is_sized(*t))
            .map_or(UNKNOWN_SIZE, |t| llvm::store_size(module, t));
        match accesses.iter_mut().find(|a| a.ptr == ptr) {
            Some(a) => {
                a.write |= write;
                a.size = a.size.max(size);
            }
            None => accesses.push(AsmAccess { ptr, size, write }),
        }
    }
    if !accesses.is_empty() {
        AsmEffect::Accesses(accesses)
    } else if c.clobbers_memory {
        AsmEffect::Fence
    } else {
        AsmEffect::Invisible
    }
}

/// The `what` of an asm access site: `asm rmw`, `asm load`, `asm rmw+load`.
pub(crate) fn describe(accesses: &[AsmAccess]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for a in accesses {
        let k = if a.write { "rmw" } else { "load" };
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    format!("asm {}", kinds.join("+"))
}

/// Inserts the hooks of an asm call's accesses at the builder's position.
pub(crate) fn emit<'ctx>(
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    site: u64,
    accesses: &[AsmAccess],
) -> Result<Vec<Value>, BuilderError> {
    let mut calls = Vec::new();
    for a in accesses {
        let call = if a.write {
            emit_atomic_rmw(builder, hooks, site, a.ptr, a.size)?
        } else {
            emit_atomic_load(builder, hooks, site, a.ptr, a.size)?
        };
        calls.push(call);
    }
    Ok(calls)
}

/// `__reach_atomic_rmw(site, addr, size, seq_cst, unknown operation)` for a
/// read-modify-write whose operation is unknown (always counted as a write).
pub(crate) fn emit_atomic_rmw<'ctx>(
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    site: u64,
    addr: Value,
    size: u64,
) -> Result<Value, BuilderError> {
    Ok(crate::emit::emit_rmw(
        builder,
        hooks,
        site,
        addr,
        size,
        SEQ_CST,
        RmwOp::Unknown,
        None,
        false,
    )?
    .as_value_ref())
}

/// `__reach_atomic_load(site, addr, size, seq_cst)`.
fn emit_atomic_load<'ctx>(
    builder: &Builder<'ctx>,
    hooks: &HookSet<'ctx>,
    site: u64,
    addr: Value,
    size: u64,
) -> Result<Value, BuilderError> {
    let args = access_args(builder, site, addr, size)?;
    Ok(hooks
        .call(builder, &hooks::ATOMIC_LOAD, &args)?
        .as_value_ref())
}

/// `(site, addr, size, seq_cst)`.
fn access_args<'ctx>(
    builder: &Builder<'ctx>,
    site: u64,
    addr: Value,
    size: u64,
) -> Result<[BasicMetadataValueEnum<'ctx>; 4], BuilderError> {
    let ctx = builder
        .get_insert_block()
        .ok_or(BuilderError::UnsetPosition)?
        .get_context();
    let i64t = ctx.i64_type();
    // SAFETY: `addr` is a pointer operand of an instruction of this module.
    let ptr = unsafe { PointerValue::new(addr) };
    Ok([
        i64t.const_int(site, false).into(),
        ptr.into(),
        i64t.const_int(size, false).into(),
        ctx.i32_type().const_int(u64::from(SEQ_CST), false).into(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_the_cycle_counter_and_random_instructions() {
        assert_eq!(source("rdtsc"), Some((Source::CycleCounter, "asm rdtsc")));
        assert_eq!(
            source("lfence; RDTSCP\n\tshl $$32, %rdx"),
            Some((Source::CycleCounter, "asm rdtsc"))
        );
        assert_eq!(
            source("rdrandq $0; setc $1"),
            Some((Source::RandomInstruction, "asm rdrand"))
        );
        assert_eq!(
            source("rdseed $0"),
            Some((Source::RandomInstruction, "asm rdrand"))
        );
        assert_eq!(source("pause"), None);
        assert_eq!(source("movl $$1, $0 # rdtsc"), None);
    }

    #[test]
    fn spin_hints_are_pause_yield_or_rep_nop_only() {
        assert!(is_spin_hint("pause"));
        assert!(is_spin_hint("rep; nop"));
        assert!(is_spin_hint(" pause\n\tpause "));
        assert!(is_spin_hint("yield"));
        assert!(!is_spin_hint(""));
        assert!(!is_spin_hint("nop"));
        assert!(!is_spin_hint("pause; lock xchg $0, $1"));
        assert!(!is_spin_hint("movl $1, $0"));
    }

    #[test]
    fn memory_operands_outputs_inputs_and_clobbers() {
        let c = parse_constraints("={ax},=*m,r,0,*m,~{memory},~{dirflag},~{fpsr},~{flags}");
        assert_eq!(
            c.args,
            [
                Role::MemoryOutput,
                Role::Direct,
                Role::Direct,
                Role::MemoryInput
            ]
        );
        assert!(c.clobbers_memory);
        let c = parse_constraints("=r,*m,~{dirflag},~{fpsr},~{flags}");
        assert_eq!(c.args, [Role::MemoryInput]);
        assert!(!c.clobbers_memory);
    }

    #[test]
    fn clobber_only_and_register_only_asm_have_no_arguments() {
        let c = parse_constraints("~{memory},~{dirflag},~{fpsr},~{flags}");
        assert!(c.args.is_empty());
        assert!(c.clobbers_memory);
        let c = parse_constraints("={ax},={dx},~{dirflag},~{fpsr},~{flags}");
        assert!(c.args.is_empty());
        assert!(!c.clobbers_memory);
        assert!(parse_constraints("").args.is_empty());
    }

    #[test]
    fn labels_early_clobbers_and_other_indirect_letters() {
        let c = parse_constraints("=*m,*m,!i,~{memory}");
        assert_eq!(c.args, [Role::MemoryOutput, Role::MemoryInput]);
        let c = parse_constraints("=&r,=*&Q,*X,i");
        assert_eq!(
            c.args,
            [Role::MemoryOutput, Role::MemoryInput, Role::Direct]
        );
    }
}
