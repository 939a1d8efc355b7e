//! Per-module instrumentation counts (`reach-instrument --stats`).

use std::fmt;

/// Counts of what the pass saw and did in one module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Functions with a body that were instrumented.
    pub functions: u64,
    /// Functions with a body that were skipped (runtime, hooks, no-instrument marker).
    pub functions_skipped: u64,
    /// Plain loads and stores seen.
    pub memory_ops: u64,
    /// Plain loads and stores given a hook.
    pub memory_instrumented: u64,
    /// Skipped: the address is a non-escaping `alloca`.
    pub skipped_local: u64,
    /// Skipped: the address is a thread-local global.
    pub skipped_thread_local: u64,
    /// Skipped: the address is a constant global.
    pub skipped_constant: u64,
    /// Skipped: the address is in a non-default address space.
    pub skipped_address_space: u64,
    /// Skipped: the accessed type has no fixed size (scalable vector).
    pub skipped_unsized: u64,
    /// Atomic loads/stores/RMWs/cmpxchgs/fences given a hook.
    pub atomics: u64,
    /// Atomics skipped (single-thread scope, compiler barriers, or on a
    /// non-shared object).
    pub atomics_skipped: u64,
    /// Inline-asm memory operands given an atomic hook.
    pub asm_accesses: u64,
    /// Inline-asm calls with a memory clobber and no shared memory operand,
    /// given a fence hook.
    pub asm_fences: u64,
    /// Ranged operations (`memcpy`/`memmove`/`memset` and libc equivalents) given a hook.
    pub ranged: u64,
    /// Calls to interposed library functions given a call-site hook.
    pub call_sites: u64,
    /// Calls from the program's own code into Rust's standard library,
    /// noted in the thread-local word (`hooks::LIBRARY_CALL_WORD`).
    pub library_calls: u64,
    /// Spin-wait hints (`pause` intrinsics and assembly) given a hook.
    pub spin_hints: u64,
    /// Reads of the cycle counter or of hardware random numbers
    /// (intrinsics and assembly) given a source hook.
    pub sources: u64,
    /// Loops given an await hook (`__reach_loop_head`): their iterations
    /// may do nothing visible.
    pub await_loops: u64,
    /// Functions of std's channels left uninstrumented (a library region).
    pub channel_functions: u64,
    /// Library functions replaced by the runtime's model when it is
    /// preloaded (the slow paths of std's futex `Mutex` and `RwLock`).
    pub modelled_functions: u64,
    /// Site records emitted.
    pub sites: u64,
    /// Functions given shadow computations (`REACH_SYMBOLIC=1`).
    pub symbolic_functions: u64,
    /// Symbolic branch and switch sites (`REACH_SYMBOLIC=1`).
    pub symbolic_branches: u64,
}

impl Stats {
    /// Adds another module's counts to these.
    pub fn add(&mut self, o: &Stats) {
        for (a, b) in self.fields_mut().into_iter().zip(o.fields()) {
            *a += b;
        }
    }

    fn fields(&self) -> [u64; 24] {
        [
            self.functions,
            self.functions_skipped,
            self.memory_ops,
            self.memory_instrumented,
            self.skipped_local,
            self.skipped_thread_local,
            self.skipped_constant,
            self.skipped_address_space,
            self.skipped_unsized,
            self.atomics,
            self.atomics_skipped,
            self.asm_accesses,
            self.asm_fences,
            self.ranged,
            self.call_sites,
            self.library_calls,
            self.spin_hints,
            self.sources,
            self.await_loops,
            self.channel_functions,
            self.modelled_functions,
            self.sites,
            self.symbolic_functions,
            self.symbolic_branches,
        ]
    }

    fn fields_mut(&mut self) -> [&mut u64; 24] {
        [
            &mut self.functions,
            &mut self.functions_skipped,
            &mut self.memory_ops,
            &mut self.memory_instrumented,
            &mut self.skipped_local,
            &mut self.skipped_thread_local,
            &mut self.skipped_constant,
            &mut self.skipped_address_space,
            &mut self.skipped_unsized,
            &mut self.atomics,
            &mut self.atomics_skipped,
            &mut self.asm_accesses,
            &mut self.asm_fences,
            &mut self.ranged,
            &mut self.call_sites,
            &mut self.library_calls,
            &mut self.spin_hints,
            &mut self.sources,
            &mut self.await_loops,
            &mut self.channel_functions,
            &mut self.modelled_functions,
            &mut self.sites,
            &mut self.symbolic_functions,
            &mut self.symbolic_branches,
        ]
    }
}

const LABELS: [&str; 24] = [
    "functions instrumented",
    "functions skipped",
    "loads/stores seen",
    "loads/stores instrumented",
    "  skipped: non-escaping alloca",
    "  skipped: thread-local global",
    "  skipped: constant global",
    "  skipped: other address space",
    "  skipped: unsized type",
    "atomics instrumented",
    "atomics skipped",
    "inline asm operands instrumented",
    "inline asm fences",
    "ranged ops instrumented",
    "call sites",
    "calls into the standard library",
    "spin hints",
    "cycle counter and random reads",
    "await loops",
    "channel functions (region)",
    "modelled library functions",
    "site records",
    "symbolic: functions",
    "symbolic: branch sites",
];

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (label, value) in LABELS.iter().zip(self.fields()) {
            writeln!(f, "{label:<34}{value:>10}")?;
        }
        Ok(())
    }
}
