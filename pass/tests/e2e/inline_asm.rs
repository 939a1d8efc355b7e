//! Inline assembly: memory operands become atomic hooks, a memory clobber a
//! fence, register-only asm nothing (but a note of the source when it reads
//! the cycle counter or a hardware random number, as the intrinsics do);
//! memory operands do not make a local escape.

use super::common::*;
use reach_channel::sources::Source;

const SOURCE: &str = r#"
int g;
long wide;
struct pair { long a, b; } two;

__attribute__((noinline)) int asm_xadd(int *p) {
  int v = 1;
  __asm__ __volatile__("lock; xaddl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
  return v;
}
__attribute__((noinline)) void asm_store(void) {
  __asm__ __volatile__("movl $0, %0" : "=m"(g) : : "memory");
}
__attribute__((noinline)) int asm_load(void) {
  int v;
  __asm__ __volatile__("movl %1, %0" : "=r"(v) : "m"(g));
  return v;
}
__attribute__((noinline)) void asm_sizes(void) {
  __asm__ __volatile__("lock; incq %0" : "+m"(wide));
  __asm__ __volatile__("" : "=m"(two));
}
__attribute__((noinline)) void asm_barrier(void) {
  __asm__ __volatile__("" : : : "memory");
}
__attribute__((noinline)) void asm_mfence(void) {
  __asm__ __volatile__("mfence" : : : "memory");
}
__attribute__((noinline)) unsigned asm_registers_only(unsigned x) {
  unsigned lo, hi;
  __asm__ __volatile__("pause");
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  __asm__("addl %1, %0" : "+r"(x) : "r"(lo));
  return x + hi;
}
__attribute__((noinline)) unsigned long long intrinsic_counters(void) {
  unsigned aux;
  return __builtin_ia32_rdtsc() + __builtin_ia32_rdtscp(&aux) + __builtin_readcyclecounter();
}
__attribute__((noinline)) unsigned asm_random(void) {
  unsigned v;
  __asm__ __volatile__("rdrand %0" : "=r"(v) : : "memory");
  return v;
}
__attribute__((noinline)) int asm_local_operand(void) {
  int local = 0;
  __asm__ __volatile__("lock; incl %0" : "+m"(local));
  return local;
}
__attribute__((noinline)) int asm_local_operand_clobber(void) {
  int local = 0;
  __asm__ __volatile__("lock; incl %0" : "+m"(local) : : "memory");
  return local;
}
__attribute__((noinline)) int asm_local_address_in_register(void) {
  int local = 0;
  __asm__ __volatile__("" : : "r"(&local));
  return local; /* the asm had the address: may be shared */
}
__attribute__((noinline)) int asm_goto_bts(int *p) {
  __asm__ goto("lock; btsl $0, %0; jc %l1" : "+m"(*p) : : "memory" : taken);
  return 0;
taken:
  return 1;
}
"#;

fn instrumented(opt: &str) -> (String, String) {
    let dir = tempdir();
    std::fs::write(dir.path().join("asm.c"), SOURCE).expect("write source");
    ok_in(
        dir.path(),
        "clang-22",
        &["-emit-llvm", "-c", "-g", opt, "asm.c", "-o", "asm.bc"],
    );
    let stats = ok_in(
        dir.path(),
        bin("reach-instrument"),
        &["--stats", "asm.bc", "-o", "asm.inst.bc"],
    );
    (disassemble(&dir.path().join("asm.inst.bc")), stats)
}

/// The number of `@hook.guard(` calls in a function body.
fn hooks(body: &str, hook: &str) -> usize {
    body.matches(&format!("@{hook}.guard(")).count()
}

fn every_hook(body: &str) -> usize {
    body.matches("@__reach_").count()
}

fn check(opt: &str) {
    // The last two arguments of an asm read-modify-write hook: unknown
    // operation, no operand.
    let unknown = reach_channel::hooks::RmwOp::Unknown.code(false);
    let unknown_rmw = format!("i32 {unknown}, i64 0");
    let (ir, stats) = instrumented(opt);

    // "+m" with `lock; xadd` (an output and an input on one pointer): one
    // seq_cst fetch-add of its register operand (the constant 1 once
    // optimised, a loaded value at -O0), before the asm.
    let xadd = function_body(&ir, "asm_xadd");
    assert_eq!(hooks(xadd, "__reach_atomic_rmw"), 1, "{opt}: {xadd}");
    let add = reach_channel::hooks::RmwOp::Add.code(true);
    assert!(
        xadd.contains(&format!(", i64 4, i32 7, i32 {add}, i64 ")),
        "{opt}: {xadd}"
    );
    let hook_at = xadd.find("@__reach_atomic_rmw.guard(").expect("rmw hook");
    let asm_at = xadd.find("asm sideeffect \"lock; xaddl").expect("asm");
    assert!(hook_at < asm_at, "{opt}: hook after the asm\n{xadd}");
    assert_eq!(every_hook(xadd), 1, "{opt}: {xadd}");

    // "=m": an RMW of unknown operation; "m" alone: an atomic load.
    let store = function_body(&ir, "asm_store");
    assert_eq!(hooks(store, "__reach_atomic_rmw"), 1, "{opt}: {store}");
    assert!(
        store.contains(&format!("ptr @g, i64 4, i32 7, {unknown_rmw})")),
        "{opt}: {store}"
    );
    assert_eq!(every_hook(store), 1, "{opt}: {store}");
    let load = function_body(&ir, "asm_load");
    assert_eq!(hooks(load, "__reach_atomic_load"), 1, "{opt}: {load}");
    assert!(load.contains("ptr @g, i64 4, i32 7)"), "{opt}: {load}");
    assert_eq!(every_hook(load), 1, "{opt}: {load}");

    // Sizes come from the operand's element type; `lock; incq` is an add of 1.
    let sizes = function_body(&ir, "asm_sizes");
    assert!(
        sizes.contains(&format!("ptr @wide, i64 8, i32 7, i32 {add}, i64 1)")),
        "{opt}: {sizes}"
    );
    assert!(
        sizes.contains(&format!("ptr @two, i64 16, i32 7, {unknown_rmw})")),
        "{opt}: {sizes}"
    );

    // A memory clobber without memory operands: a seq_cst fence.
    let body = function_body(&ir, "asm_mfence");
    assert_eq!(hooks(body, "__reach_fence"), 1, "{opt}: {body}");
    assert!(body.contains(", i32 7)"), "{opt}: {body}");
    assert_eq!(every_hook(body), 1, "{opt}: {body}");
    // A compiler barrier (an empty template) orders nothing between
    // threads: no hook, as for a single-thread fence.
    let barrier = function_body(&ir, "asm_barrier");
    assert_eq!(every_hook(barrier), 0, "{opt}: {barrier}");

    // Register-only asm (arithmetic): nothing; `pause` is a spin hint,
    // announced before it; `rdtsc` reads the cycle counter, a source of
    // nondeterminism noted before it.
    let regs = function_body(&ir, "asm_registers_only");
    assert_eq!(hooks(regs, "__reach_spin_hint"), 1, "{opt}: {regs}");
    let hint_at = regs.find("@__reach_spin_hint.guard(").expect("hint hook");
    let pause_at = regs.find("asm sideeffect \"pause\"").expect("pause");
    assert!(hint_at < pause_at, "{opt}: hint after the pause\n{regs}");
    let counter = format!(", i32 {})", Source::CycleCounter as u32);
    assert_eq!(hooks(regs, "__reach_source"), 1, "{opt}: {regs}");
    let source_at = regs.find("@__reach_source.guard(").expect("source hook");
    let rdtsc_at = regs.find("asm sideeffect \"rdtsc\"").expect("rdtsc");
    assert!(source_at < rdtsc_at, "{opt}: note after the rdtsc\n{regs}");
    assert!(regs[source_at..].contains(&counter), "{opt}: {regs}");
    assert_eq!(every_hook(regs), 2, "{opt}: {regs}");

    // The counter intrinsics are noted too, and `rdrand` (with a memory
    // clobber: the note, not a fence) as a random number.
    let intrinsics = function_body(&ir, "intrinsic_counters");
    assert_eq!(
        hooks(intrinsics, "__reach_source"),
        3,
        "{opt}: {intrinsics}"
    );
    assert_eq!(
        intrinsics.matches(&counter).count(),
        3,
        "{opt}: {intrinsics}"
    );
    let random = function_body(&ir, "asm_random");
    assert_eq!(hooks(random, "__reach_source"), 1, "{opt}: {random}");
    assert!(
        random.contains(&format!(", i32 {})", Source::RandomInstruction as u32)),
        "{opt}: {random}"
    );
    assert_eq!(every_hook(random), 1, "{opt}: {random}");

    // A local given to asm only as a memory operand stays private: no hook
    // for the operand nor for the local's loads and stores; with a memory
    // clobber, the asm is still a fence.
    let local = function_body(&ir, "asm_local_operand");
    assert_eq!(every_hook(local), 0, "{opt}: {local}");
    let clobber = function_body(&ir, "asm_local_operand_clobber");
    assert_eq!(hooks(clobber, "__reach_fence"), 1, "{opt}: {clobber}");
    assert_eq!(every_hook(clobber), 1, "{opt}: {clobber}");

    // asm goto: the hook precedes the callbr.
    let goto = function_body(&ir, "asm_goto_bts");
    assert_eq!(hooks(goto, "__reach_atomic_rmw"), 1, "{opt}: {goto}");
    let hook_at = goto.find("@__reach_atomic_rmw.guard(").expect("rmw hook");
    let asm_at = goto.find("callbr").expect("callbr");
    assert!(hook_at < asm_at, "{opt}: {goto}");

    assert!(ir.contains("asm rmw"), "site records name asm accesses");
    assert!(ir.contains("asm load"));
    assert!(ir.contains("asm fence"));
    let count = |label: &str| -> u64 {
        stats
            .lines()
            .find(|l| l.contains(label))
            .and_then(|l| l.split_whitespace().last())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no `{label}` in {stats}"))
    };
    // xadd, store, load, wide, two, goto.
    assert_eq!(
        count("inline asm operands instrumented"),
        6,
        "{opt}: {stats}"
    );
    // mfence, the local operand with a clobber (not the barrier).
    assert_eq!(count("inline asm fences"), 2, "{opt}: {stats}");
    // rdtsc, the three intrinsics, rdrand.
    assert_eq!(count("cycle counter and random reads"), 5, "{opt}: {stats}");
}

#[test]
fn asm_memory_operands_clobbers_and_registers_at_o0() {
    check("-O0");
    // At -O0 the local whose address the asm receives in a register is
    // loaded from memory afterwards, and that load is hooked.
    let (ir, _) = instrumented("-O0");
    let escaped = function_body(&ir, "asm_local_address_in_register");
    assert_eq!(
        hooks(escaped, "__reach_load"),
        1,
        "the local escaped through a register operand: {escaped}"
    );
}

#[test]
fn asm_memory_operands_clobbers_and_registers_at_o2() {
    check("-O2");
}
