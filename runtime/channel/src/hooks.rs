//! The hook ABI between instrumented code and the runtime.
//!
//! The pass declares each hook as an `extern_weak` function and calls it just
//! *before* the instrumented instruction; the runtime exports each one with
//! `#[no_mangle] extern "C"`. Without the runtime preloaded the weak symbol is
//! null and the pass's guard skips the call, so instrumented binaries run
//! normally on their own (PIE executables only, as the wrappers link).
//!
//! Parameter types: [`Param::Site`] is a `u64` site id (see [`crate::sites`]),
//! [`Param::Ptr`] an address, [`Param::U64`] a size/value, [`Param::U32`] an
//! LLVM atomic ordering, an [`RmwOp`] code or a flag.
//!
//! The hook ABI has a version, [`ABI_VERSION`]: the pass writes it into every
//! module's site table ([`crate::sites::abi_record`]) and the driver refuses
//! a program built for another one, whose hooks would pass other arguments.

use crate::ops::RmwFamily;

/// Version of the hook ABI (the hooks, their parameters and the encodings
/// they carry). Version 2 added the operation and operand of
/// `__reach_atomic_rmw`; tables without a version record are version 1.
/// (A hook that older modules do not call, such as `__reach_stack_object`
/// or `__reach_source`, needs no new version.)
pub const ABI_VERSION: u32 = 2;

/// One parameter type of a hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// `u64` site id.
    Site,
    /// Pointer-sized address (`ptr` in IR, `*const c_void` in Rust).
    Ptr,
    /// `u64` (size, length, expected value).
    U64,
    /// `u32` (ordering, flag).
    U32,
}

/// A hook: its symbol name and parameter list (all return `void`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookSpec {
    /// Exported symbol name.
    pub name: &'static str,
    /// Parameters in order.
    pub params: &'static [Param],
}

/// `__reach_load(site, addr, size)`: before a plain load.
pub const LOAD: HookSpec = HookSpec {
    name: "__reach_load",
    params: &[Param::Site, Param::Ptr, Param::U64],
};
/// `__reach_store(site, addr, size)`: before a plain store.
pub const STORE: HookSpec = HookSpec {
    name: "__reach_store",
    params: &[Param::Site, Param::Ptr, Param::U64],
};
/// `__reach_volatile_load(site, addr, size)`: before a volatile load (C's
/// `volatile`, the kernel's `READ_ONCE`): a marked access, recorded as a
/// load with [`crate::EventFlags::VOLATILE`]. Marked accesses do not race
/// with each other; one racing with a plain access is a data race.
pub const VOLATILE_LOAD: HookSpec = HookSpec {
    name: "__reach_volatile_load",
    params: &[Param::Site, Param::Ptr, Param::U64],
};
/// `__reach_volatile_store(site, addr, size)`: before a volatile store (the
/// kernel's `WRITE_ONCE`), recorded as a store with
/// [`crate::EventFlags::VOLATILE`] (see [`VOLATILE_LOAD`]).
pub const VOLATILE_STORE: HookSpec = HookSpec {
    name: "__reach_volatile_store",
    params: &[Param::Site, Param::Ptr, Param::U64],
};
/// `__reach_atomic_load(site, addr, size, ordering)`.
pub const ATOMIC_LOAD: HookSpec = HookSpec {
    name: "__reach_atomic_load",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U32],
};
/// `__reach_atomic_store(site, addr, size, ordering)`.
pub const ATOMIC_STORE: HookSpec = HookSpec {
    name: "__reach_atomic_store",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U32],
};
/// `__reach_atomic_rmw(site, addr, size, ordering, op, operand)`: before an
/// `atomicrmw` (or another read-modify-write of `size` bytes at `addr`).
/// `op` is an [`RmwOp`] code ([`RmwOp::code`], with [`RMW_RESULT_UNUSED`]
/// when the program never uses the value the operation returns) and
/// `operand` the value operand as a `u64` when the code says it is known. When the thread runs,
/// the runtime computes whether the operation would leave memory unchanged
/// (an exchange of the current value, adding 0, ...) and records such an
/// operation as a read.
pub const ATOMIC_RMW: HookSpec = HookSpec {
    name: "__reach_atomic_rmw",
    params: &[
        Param::Site,
        Param::Ptr,
        Param::U64,
        Param::U32,
        Param::U32,
        Param::U64,
    ],
};

/// Bit of an [`RmwOp`] code: the `operand` argument holds the operand's
/// value (an integer, a pointer, or the bits of an exchanged float, zero
/// extended from the access size). Without it the operand is unknown and
/// the operation counts as a write.
pub const RMW_OPERAND_KNOWN: u32 = 0x100;

/// Bit of an [`RmwOp`] code: the instruction's result (the old value) has
/// no use in the program. With `--commute-rmws` the runtime then records an
/// operation of a commuting family ([`RmwOp::family`]) as an update
/// ([`crate::EventFlags::UNUSED_RESULT`]). Runtimes that do not know the bit
/// ignore it, and modules that do not set it count as using every result,
/// so it needs no new [`ABI_VERSION`].
pub const RMW_RESULT_UNUSED: u32 = 0x200;

/// The operation of a read-modify-write, as the low 8 bits of the `op`
/// argument of [`ATOMIC_RMW`] carry it. The values are part of the hook ABI.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// Unknown operation (inline assembly, a kind the pass does not name):
    /// always a write.
    Unknown = 0,
    /// `xchg`: stores the operand.
    Xchg = 1,
    /// `add` (wrapping).
    Add = 2,
    /// `sub` (wrapping).
    Sub = 3,
    /// `and`.
    And = 4,
    /// `nand`: `!(old & operand)`.
    Nand = 5,
    /// `or`.
    Or = 6,
    /// `xor`.
    Xor = 7,
    /// `max`, signed.
    Max = 8,
    /// `min`, signed.
    Min = 9,
    /// `umax`, unsigned.
    UMax = 10,
    /// `umin`, unsigned.
    UMin = 11,
    /// `fadd` (the operand is never passed: always a write).
    FAdd = 12,
    /// `fsub` (always a write).
    FSub = 13,
    /// `fmax` (always a write).
    FMax = 14,
    /// `fmin` (always a write).
    FMin = 15,
    /// `uinc_wrap`: `old >= operand ? 0 : old + 1`.
    UIncWrap = 16,
    /// `udec_wrap`: `old == 0 || old > operand ? operand : old - 1`.
    UDecWrap = 17,
    /// `usub_cond`: `old >= operand ? old - operand : old`.
    USubCond = 18,
    /// `usub_sat`: `old >= operand ? old - operand : 0`.
    USubSat = 19,
    /// `fmaximum` (always a write).
    FMaximum = 20,
    /// `fminimum` (always a write).
    FMinimum = 21,
}

impl RmwOp {
    /// Every operation, in code order.
    pub const ALL: &'static [RmwOp] = &[
        RmwOp::Unknown,
        RmwOp::Xchg,
        RmwOp::Add,
        RmwOp::Sub,
        RmwOp::And,
        RmwOp::Nand,
        RmwOp::Or,
        RmwOp::Xor,
        RmwOp::Max,
        RmwOp::Min,
        RmwOp::UMax,
        RmwOp::UMin,
        RmwOp::FAdd,
        RmwOp::FSub,
        RmwOp::FMax,
        RmwOp::FMin,
        RmwOp::UIncWrap,
        RmwOp::UDecWrap,
        RmwOp::USubCond,
        RmwOp::USubSat,
        RmwOp::FMaximum,
        RmwOp::FMinimum,
    ];

    /// The `op` argument of [`ATOMIC_RMW`]: the operation, and
    /// [`RMW_OPERAND_KNOWN`] if `operand` carries the operand.
    pub const fn code(self, operand_known: bool) -> u32 {
        self as u32 | if operand_known { RMW_OPERAND_KNOWN } else { 0 }
    }

    /// The family of operations this one commutes with on the same bytes
    /// ([`RmwFamily`]), `None` for one that commutes with nothing
    /// (exchange, `nand`, the conditional ones, floating point).
    pub fn family(self) -> Option<RmwFamily> {
        Some(match self {
            RmwOp::Add | RmwOp::Sub => RmwFamily::Additive,
            RmwOp::Or => RmwFamily::Or,
            RmwOp::And => RmwFamily::And,
            RmwOp::Xor => RmwFamily::Xor,
            RmwOp::Max => RmwFamily::Max,
            RmwOp::Min => RmwFamily::Min,
            RmwOp::UMax => RmwFamily::UMax,
            RmwOp::UMin => RmwFamily::UMin,
            RmwOp::Unknown
            | RmwOp::Xchg
            | RmwOp::Nand
            | RmwOp::FAdd
            | RmwOp::FSub
            | RmwOp::FMax
            | RmwOp::FMin
            | RmwOp::UIncWrap
            | RmwOp::UDecWrap
            | RmwOp::USubCond
            | RmwOp::USubSat
            | RmwOp::FMaximum
            | RmwOp::FMinimum => return None,
        })
    }

    /// Decodes an `op` argument: the operation ([`RmwOp::Unknown`] for an
    /// unknown code) and whether the operand is known.
    pub fn decode(code: u32) -> (RmwOp, bool) {
        let op = RmwOp::ALL
            .get((code & 0xff) as usize)
            .copied()
            .unwrap_or(RmwOp::Unknown);
        (op, code & RMW_OPERAND_KNOWN != 0)
    }

    /// The value an integer read-modify-write of `size` bytes (1, 2, 4 or 8)
    /// leaves in memory that held `old`, or `None` if it cannot be computed
    /// (unknown or floating-point operation, other sizes). `old` and
    /// `operand` are zero-extended; so is the result.
    pub fn result(self, old: u64, operand: u64, size: u64) -> Option<u64> {
        let bits = match size {
            1 | 2 | 4 | 8 => size * 8,
            _ => return None,
        };
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let (old, v) = (old & mask, operand & mask);
        // Sign-extended values for the signed comparisons.
        let signed = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
        let new = match self {
            RmwOp::Xchg => v,
            RmwOp::Add => old.wrapping_add(v),
            RmwOp::Sub => old.wrapping_sub(v),
            RmwOp::And => old & v,
            RmwOp::Nand => !(old & v),
            RmwOp::Or => old | v,
            RmwOp::Xor => old ^ v,
            RmwOp::Max => {
                if signed(v) > signed(old) {
                    v
                } else {
                    old
                }
            }
            RmwOp::Min => {
                if signed(v) < signed(old) {
                    v
                } else {
                    old
                }
            }
            RmwOp::UMax => old.max(v),
            RmwOp::UMin => old.min(v),
            RmwOp::UIncWrap => {
                if old >= v {
                    0
                } else {
                    old + 1
                }
            }
            RmwOp::UDecWrap => {
                if old == 0 || old > v {
                    v
                } else {
                    old - 1
                }
            }
            RmwOp::USubCond => {
                if old >= v {
                    old - v
                } else {
                    old
                }
            }
            RmwOp::USubSat => old.saturating_sub(v),
            RmwOp::Unknown
            | RmwOp::FAdd
            | RmwOp::FSub
            | RmwOp::FMax
            | RmwOp::FMin
            | RmwOp::FMaximum
            | RmwOp::FMinimum => return None,
        };
        Some(new & mask)
    }
}
/// `__reach_cmpxchg(site, addr, size, expected, ordering)`: before a
/// `cmpxchg`. The runtime compares the current value at `addr` (sizes 1, 2, 4,
/// 8) with `expected` when the thread runs, to record a failed exchange as a
/// read. Sizes above 8 pass `expected = 0` and are recorded as writes.
pub const CMPXCHG: HookSpec = HookSpec {
    name: "__reach_cmpxchg",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U64, Param::U32],
};
/// `__reach_fence(site, ordering)`.
pub const FENCE: HookSpec = HookSpec {
    name: "__reach_fence",
    params: &[Param::Site, Param::U32],
};
/// `__reach_range(site, addr, len, is_write)`: `memcpy`/`memmove`/`memset`
/// (called once for the source as a read and once for the destination as a write).
pub const RANGE: HookSpec = HookSpec {
    name: "__reach_range",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U32],
};
/// `__reach_call_site(site)`: just before a call to an interposed library
/// function (pthread, semaphores, sleep...), so the runtime can attribute the
/// call to a source location. Not a scheduling point; costs a thread-local store.
pub const CALL_SITE: HookSpec = HookSpec {
    name: "__reach_call_site",
    params: &[Param::Site],
};

/// Name of the thread-local word in which code instrumented for Rust's
/// standard library announces the call from the program's own code into
/// the library in progress: an `i64` site id, 0 for none. The pass defines
/// it (`initialexec`, so every thread's word lies at one offset from its
/// thread pointer) in a module with such calls and writes it without a
/// hook call:
///
/// ```text
/// define void @worker(ptr %c) {
///   %saved = load i64, ptr @__reach_library_call_site     ; on entry
///   store i64 SITE, ptr @__reach_library_call_site        ; before each call into the library
///   call i64 @AtomicUsize::fetch_add(...)
///   store i64 %saved, ptr @__reach_library_call_site      ; before each return and resume
///   ret void
/// }
/// ```
///
/// A call counts when its callee's source is the library's
/// ([`crate::sites::is_library_source`]) or when it comes from library
/// code inlined into the program's; a function of the program's own code
/// that makes one saves the word on entry and puts it back on return, so
/// that the library code it returns into (`thread::spawn`'s, running the
/// closure) is placed at that code's own caller again. The runtime records
/// the word with every operation ([`crate::Event::caller`]) and heap block,
/// so that reports place a step of the library's code (an atomic in
/// `AtomicUsize::fetch_add`, a lock in `Mutex::lock`, an allocation in
/// `Box::new`) at the program's line.
pub const LIBRARY_CALL_WORD: &str = "__reach_library_call_site";

/// How the site record of a call into the standard library describes it
/// (see [`LIBRARY_CALL_WORD`]): this prefix, then the demangled name of the
/// function called (empty for an indirect call).
pub const LIBRARY_CALL_PREFIX: &str = "library call ";

/// `__reach_library_word(word)`: once, from a constructor of a module that
/// defines [`LIBRARY_CALL_WORD`], with the calling (main) thread's address
/// of the word: the runtime reads and writes every thread's word at the
/// same offset from its thread pointer. Not a scheduling point.
pub const LIBRARY_WORD: HookSpec = HookSpec {
    name: "__reach_library_word",
    params: &[Param::Ptr],
};

/// `__reach_spin_hint(site)`: just before a spin-wait hint (x86 `pause`,
/// Arm `yield`: `core::hint::spin_loop`, `_mm_pause`, `cpu_relax`). Not a
/// scheduling point: it tells the runtime that the thread busy-waits, so
/// that a re-read of what it already read since its last progress holds
/// it back at once instead of after `--spin-threshold` re-reads.
pub const SPIN_HINT: HookSpec = HookSpec {
    name: "__reach_spin_hint",
    params: &[Param::Site],
};

/// `__reach_loop_head(site, state, local, back, slot)`: at the head of a loop
/// whose iterations may do nothing visible (an await candidate: every
/// write in it is instrumented or goes to the function's own stack slots,
/// every call is to a function whose effects the runtime sees). `state`
/// hashes the loop's carried values that the code after the loop may use
/// (header phis whose values leave the loop, the stack slots the loop
/// writes and reads), `local` the carried values only the loop itself uses
/// (a retry counter that bounds the spin), `back` is 1 when the head is
/// reached over a back edge (an iteration ended) and 0 on entry; its bits
/// above the first give the size of `slot`, the address of a stack slot of
/// the loop's function that only the loop uses and that functions it calls
/// write (an unoptimised back-off; 0: none): those writes are the loop's
/// local state, hashed in `local`, not progress. Not a
/// scheduling point: the runtime compares the iteration that just ended
/// with the one before, makes the thread await a change when nothing
/// happened in it, and runs the rest of a bounded spin without scheduling
/// points (see the runtime's `awaits` module).
pub const LOOP_HEAD: HookSpec = HookSpec {
    name: "__reach_loop_head",
    params: &[Param::Site, Param::U64, Param::U64, Param::U32, Param::U64],
};

/// What the site record of a [`LOOP_HEAD`] hook says.
pub const LOOP_SITE_WHAT: &str = "loop";

/// `__reach_region_enter(site, object)`: at the entry of an API method of a
/// library region (a method of one of std's channels, `object` its
/// `self`), whose code is not instrumented. The outermost entry is a
/// scheduling point and records a write of `object`; see the runtime's
/// `region` module.
pub const REGION_ENTER: HookSpec = HookSpec {
    name: "__reach_region_enter",
    params: &[Param::Site, Param::Ptr],
};
/// `__reach_region_exit(site)`: before each return (or resumed unwinding)
/// of a region API method.
pub const REGION_EXIT: HookSpec = HookSpec {
    name: "__reach_region_exit",
    params: &[Param::Site],
};

/// `__reach_stack_object(site, addr, size)`: just after an `alloca` whose
/// address escapes its function, so reports can name the object
/// (`T1 stack (worker)`). Not a scheduling point; appends one record.
pub const STACK_OBJECT: HookSpec = HookSpec {
    name: "__reach_stack_object",
    params: &[Param::Site, Param::Ptr, Param::U64],
};

/// How the site record of a [`STACK_OBJECT`] hook whose variable has a
/// source name describes it: this prefix, then the name (`stack variable
/// results`); `stack object` when it has none.
pub const STACK_VARIABLE_PREFIX: &str = "stack variable ";

/// `__reach_atomic_load_value(site, addr, size, native) -> u64`: just
/// *after* an atomic load of `size` bytes (1, 2, 4 or 8) at `addr` whose
/// hook call had [`crate::memory_model::ORDERING_VALUE_FOLLOWS`] in its
/// ordering, with the value the load read (`native`, zero-extended); the
/// program uses the value it returns instead (the store the memory model
/// had the load read). Not in [`ALL`]: it returns a value, so the pass
/// declares it itself (with a guard that returns `native` without the
/// runtime). Older modules never call it, so it needs no new
/// [`ABI_VERSION`].
pub const ATOMIC_LOAD_VALUE: HookSpec = HookSpec {
    name: "__reach_atomic_load_value",
    params: &[Param::Site, Param::Ptr, Param::U64, Param::U64],
};

/// `__reach_source(site, source)`: just before an instruction whose result
/// differs from run to run (`rdtsc`, `rdrand`...: a
/// [`crate::sources::Source`] number), so that a nondeterminism report can
/// name it. Not a scheduling point; notes the source once per execution.
pub const SOURCE: HookSpec = HookSpec {
    name: "__reach_source",
    params: &[Param::Site, Param::U32],
};

/// Every hook, for declaration by the pass and export checks in the runtime.
pub const ALL: &[HookSpec] = &[
    LOAD,
    STORE,
    VOLATILE_LOAD,
    VOLATILE_STORE,
    ATOMIC_LOAD,
    ATOMIC_STORE,
    ATOMIC_RMW,
    CMPXCHG,
    FENCE,
    RANGE,
    CALL_SITE,
    LIBRARY_WORD,
    STACK_OBJECT,
    SPIN_HINT,
    REGION_ENTER,
    REGION_EXIT,
    LOOP_HEAD,
    SOURCE,
];

/// Name of the ELF section holding the site table (see [`crate::sites`]).
/// Its presence marks an instrumented binary.
pub const SITES_SECTION: &str = "reach_sites";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for (i, op) in RmwOp::ALL.iter().enumerate() {
            assert_eq!(*op as usize, i);
            assert_eq!(RmwOp::decode(op.code(true)), (*op, true));
            assert_eq!(RmwOp::decode(op.code(false)), (*op, false));
        }
        assert_eq!(RmwOp::decode(0xfe), (RmwOp::Unknown, false));
        assert_eq!(RmwOp::decode(0), (RmwOp::Unknown, false));
        let unused = RmwOp::Add.code(true) | RMW_RESULT_UNUSED;
        assert_eq!(RmwOp::decode(unused), (RmwOp::Add, true));
    }

    /// Every operation of a family gives the same value in either order,
    /// from any start value and operands; the ones outside a family do not.
    #[test]
    fn families_commute() {
        let values = [
            0u64,
            1,
            2,
            3,
            0x7f,
            0x80,
            0xff,
            0x8000_0000,
            0xffff_ffff,
            u64::MAX,
        ];
        for &a in RmwOp::ALL {
            for &b in RmwOp::ALL {
                let same = a.family().is_some() && a.family() == b.family();
                if !same {
                    continue;
                }
                for size in [1, 2, 4, 8] {
                    for &x in &values {
                        for &u in &values {
                            for &v in &values {
                                let ab = a.result(x, u, size).and_then(|y| b.result(y, v, size));
                                let ba = b.result(x, v, size).and_then(|y| a.result(y, u, size));
                                assert!(ab.is_some() && ab == ba, "{a:?} {b:?} {size}");
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(RmwOp::Sub.family(), RmwOp::Add.family());
        assert_ne!(RmwOp::Max.family(), RmwOp::UMax.family());
        // An exchange does not commute with itself, nor does nand.
        assert_ne!(RmwOp::Xchg.result(0, 1, 4), Some(2));
        assert!(RmwOp::Xchg.family().is_none() && RmwOp::Nand.family().is_none());
        assert_ne!(
            RmwOp::Nand
                .result(0, 1, 4)
                .and_then(|y| RmwOp::Nand.result(y, 3, 4)),
            RmwOp::Nand
                .result(0, 3, 4)
                .and_then(|y| RmwOp::Nand.result(y, 1, 4))
        );
        assert!(RmwOp::FAdd.family().is_none() && RmwOp::FMax.family().is_none());
    }

    #[test]
    fn results_that_leave_memory_unchanged() {
        let same = |op: RmwOp, old: u64, v: u64, size: u64| op.result(old, v, size) == Some(old);
        assert!(same(RmwOp::Xchg, 1, 1, 4));
        assert!(!same(RmwOp::Xchg, 0, 1, 4));
        // Only the low `size` bytes of the operand count.
        assert!(same(RmwOp::Xchg, 0xff, 0x1ff, 1));
        assert!(same(RmwOp::Add, 7, 0, 4));
        assert!(!same(RmwOp::Add, 7, 1, 4));
        assert!(same(RmwOp::Sub, 7, 0, 8));
        assert!(same(RmwOp::Or, 0b110, 0b100, 4));
        assert!(!same(RmwOp::Or, 0b010, 0b100, 4));
        assert!(same(RmwOp::And, 0b110, 0xffff_ffff, 4));
        assert!(!same(RmwOp::And, 0b110, 0b010, 4));
        assert!(same(RmwOp::Xor, 5, 0, 2));
        assert_eq!(RmwOp::Nand.result(0xf0, 0xff, 1), Some(0x0f));
        // -1 (as 4 bytes) is below 3 signed, above it unsigned.
        assert!(same(RmwOp::Max, 3, 0xffff_ffff, 4));
        assert!(!same(RmwOp::UMax, 3, 0xffff_ffff, 4));
        assert!(same(RmwOp::Min, 0xffff_ffff, 3, 4));
        assert!(same(RmwOp::UMin, 3, 0xffff_ffff, 4));
        assert!(same(RmwOp::Max, i64::MAX as u64, 1, 8));
        assert_eq!(RmwOp::Add.result(0xff, 1, 1), Some(0));
        assert_eq!(RmwOp::UIncWrap.result(5, 5, 4), Some(0));
        assert_eq!(RmwOp::UIncWrap.result(4, 5, 4), Some(5));
        assert_eq!(RmwOp::UDecWrap.result(0, 5, 4), Some(5));
        assert!(!same(RmwOp::UDecWrap, 5, 5, 4));
        assert!(same(RmwOp::USubCond, 2, 3, 4));
        assert!(same(RmwOp::USubSat, 0, 3, 4));
        assert!(same(RmwOp::USubSat, 9, 0, 4));
        assert_eq!(RmwOp::FAdd.result(0, 0, 4), None);
        assert_eq!(RmwOp::Unknown.result(0, 0, 4), None);
        assert_eq!(RmwOp::Xchg.result(0, 0, 16), None);
    }
}
