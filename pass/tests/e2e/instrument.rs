//! `reach-instrument` on C bitcode: which hooks appear, and where not.

use super::common::*;
use reach_channel::hooks::{Param, RmwOp, ALL, RMW_RESULT_UNUSED};

const SOURCE: &str = r#"#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
int counter;
_Atomic int flag;
__thread int per_thread;
const int table[4] = {1, 2, 3, 4};
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
char shared_buf[32];

int only_locals(int n) {
  int acc = 0;
  int arr[8];
  for (int i = 0; i < 8; i++) arr[i] = i * n;
  for (int i = 0; i < 8; i++) acc += arr[i] + table[i & 3];
  per_thread += acc;
  return acc;
}

void sink(int *p);
int escaping(void) {
  int x = 1;
  sink(&x);
  return x; /* ESCAPED_LOAD */
}

int *kept;
static void put(int *p, int v) { *p = v; }
static void keep(int *p) { kept = p; }
int through_helper(void) {
  int x;
  put(&x, 3);
  return x;
}
int through_keeper(void) {
  int y = 0;
  keep(&y);
  return y;
}

void *worker(void *arg) {
  pthread_mutex_lock(&m);
  counter++;
  pthread_mutex_unlock(&m);
  atomic_fetch_add_explicit(&flag, 1, memory_order_relaxed);
  int expected = 0;
  atomic_compare_exchange_strong_explicit(&flag, &expected, 2, memory_order_acq_rel, memory_order_acquire);
  atomic_store_explicit(&flag, 3, memory_order_release);
  atomic_thread_fence(memory_order_seq_cst);
  memcpy(shared_buf, arg, 8);
  return 0;
}
"#;

fn instrumented_ir(opt: &str) -> (String, String) {
    let dir = tempdir();
    let src = dir.path().join("unit.c");
    std::fs::write(&src, SOURCE).expect("write source");
    ok_in(
        dir.path(),
        "clang-22",
        &["-emit-llvm", "-c", "-g", opt, "unit.c", "-o", "unit.bc"],
    );
    let stats = ok_in(
        dir.path(),
        bin("reach-instrument"),
        &["--stats", "unit.bc", "-o", "unit.inst.bc"],
    );
    (disassemble(&dir.path().join("unit.inst.bc")), stats)
}

#[test]
fn hooks_are_declared_extern_weak_from_the_abi_table() {
    let (ir, _) = instrumented_ir("-O0");
    for spec in ALL {
        let params: Vec<&str> = spec
            .params
            .iter()
            .map(|p| match p {
                Param::Site | Param::U64 => "i64",
                Param::Ptr => "ptr",
                Param::U32 => "i32",
            })
            .collect();
        let decl = format!(
            "declare extern_weak void @{}({})",
            spec.name,
            params.join(", ")
        );
        assert!(ir.contains(&decl), "missing `{decl}`");
        let guard = format!("icmp ne ptr @{}, null", spec.name);
        assert!(ir.contains(&guard), "missing null guard `{guard}`");
    }
}

#[test]
fn shared_accesses_atomics_ranges_and_calls_are_hooked() {
    let (ir, _) = instrumented_ir("-O0");
    let worker = function_body(&ir, "worker");
    let has = |needle: &str| worker.contains(needle);
    assert!(has("@__reach_load.guard(i64 "), "{worker}");
    assert!(has("ptr @counter, i64 4)"), "{worker}");
    assert!(has("@__reach_store.guard(i64 "), "{worker}");
    // relaxed = 2, acq_rel = 6, release = 5, seq_cst = 7 (LLVM AtomicOrdering).
    // The fetch-add passes its operation and its (known) operand; its
    // result goes only into clang's unread `atomic-temp`: unused.
    let add = RmwOp::Add.code(true) | RMW_RESULT_UNUSED;
    assert!(has("@__reach_atomic_rmw.guard(i64 "), "{worker}");
    assert!(
        has(&format!("ptr @flag, i64 4, i32 2, i32 {add}, i64 ")),
        "{worker}"
    );
    assert!(has("@__reach_cmpxchg.guard(i64 "), "{worker}");
    // The compare-and-swap passes its failure ordering too: acq_rel on
    // success, acquire (4) on failure.
    let cas_orderings = 6 | (4 << reach_channel::memory_model::ORDERING_FAILURE_SHIFT);
    assert!(has(&format!("i32 {cas_orderings})")), "{worker}");
    assert!(has("@__reach_atomic_store.guard(i64 "), "{worker}");
    assert!(has("ptr @flag, i64 4, i32 5)"), "{worker}");
    assert!(has("@__reach_fence.guard(i64 "), "{worker}");
    assert!(has("ptr @shared_buf, i64 8, i32 1)"), "{worker}");
    assert_eq!(
        worker.matches("@__reach_range.guard(").count(),
        2,
        "{worker}"
    );
    assert_eq!(
        worker.matches("@__reach_call_site.guard(").count(),
        2,
        "{worker}"
    );
    // The call-site hook comes right before the interposed call.
    let lock_call = worker.find("@pthread_mutex_lock(").expect("lock call");
    let site_call = worker[..lock_call]
        .rfind("@__reach_call_site.guard(")
        .expect("site hook");
    assert_eq!(
        worker[site_call..lock_call].matches('\n').count(),
        1,
        "{worker}"
    );
}

#[test]
fn non_escaping_locals_thread_locals_and_constants_are_not_hooked() {
    let (ir, stats) = instrumented_ir("-O0");
    let body = function_body(&ir, "only_locals");
    assert!(
        !body.contains("@__reach_"),
        "only_locals was instrumented:\n{body}"
    );
    let escaping = function_body(&ir, "escaping");
    assert!(escaping.contains("@__reach_load.guard("), "{escaping}");
    // A local whose address only goes to a function of the module that
    // writes through it (unoptimised: via the parameter's own stack slot)
    // stays private; one that function stores away is shared.
    let helper = function_body(&ir, "through_helper");
    assert!(!helper.contains("@__reach_"), "{helper}");
    assert!(function_body(&ir, "put").contains("@__reach_store"), "{ir}");
    let keeper = function_body(&ir, "through_keeper");
    assert!(keeper.contains("@__reach_load.guard("), "{keeper}");
    assert!(stats.contains("skipped: non-escaping alloca"), "{stats}");
    let count = |label: &str| -> u64 {
        stats
            .lines()
            .find(|l| l.contains(label))
            .and_then(|l| l.split_whitespace().last())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no `{label}` in {stats}"))
    };
    assert!(count("non-escaping alloca") > 10, "{stats}");
    assert!(count("thread-local global") >= 2, "{stats}");
    assert!(count("constant global") >= 1, "{stats}");
    assert!(count("atomics instrumented") >= 4, "{stats}");
    assert_eq!(count("call sites"), 2, "{stats}");
}

#[test]
fn optimised_bitcode_is_instrumented_and_verifies() {
    let (ir, _) = instrumented_ir("-O2");
    let worker = function_body(&ir, "worker");
    assert!(worker.contains("ptr @counter, i64 4)"), "{worker}");
    assert!(ir.contains("section \"reach_sites\""));
    assert!(ir.contains("@llvm.used"));
}

#[test]
fn inline_guards_leaves_compares_and_no_guard_calls() {
    for opt in ["-O0", "-O1"] {
        let dir = tempdir();
        std::fs::write(dir.path().join("unit.c"), SOURCE).expect("write source");
        ok_in(
            dir.path(),
            "clang-22",
            &["-emit-llvm", "-c", "-g", opt, "unit.c", "-o", "unit.bc"],
        );
        ok_in(
            dir.path(),
            bin("reach-instrument"),
            &["--inline-guards", "unit.bc", "-o", "unit.inst.bc"],
        );
        let ir = disassemble(&dir.path().join("unit.inst.bc"));
        let worker = function_body(&ir, "worker");
        assert!(!worker.contains(".guard("), "{opt}: {worker}");
        assert!(
            worker.contains("icmp ne ptr @__reach_load, null"),
            "{opt}: {worker}"
        );
        assert!(
            worker.contains("call void @__reach_load(i64 "),
            "{opt}: {worker}"
        );
    }
}

/// Every `atomicrmw` passes its operation; the operand when the runtime can
/// compute the result from it (integers and pointers up to 8 bytes, the
/// bits of an exchanged float), else the code says it is unknown; and
/// whether its result is unused (all but `%a` here).
#[test]
fn read_modify_writes_pass_operation_and_operand() {
    let ir = r#"
@i = global i32 0
@p = global ptr null
@f = global float 0.0
@w = global i128 0
define void @rmw(ptr %q) {
  %a = atomicrmw xchg ptr @i, i32 1 seq_cst
  %b = atomicrmw or ptr @i, i32 %a monotonic
  %c = atomicrmw xchg ptr @p, ptr %q acquire
  %d = atomicrmw xchg ptr @f, float 1.0 seq_cst
  %e = atomicrmw fadd ptr @f, float 1.0 seq_cst
  %g = atomicrmw add ptr @w, i128 1 seq_cst
  %h = atomicrmw umax ptr @i, i32 7 seq_cst
  ret void
}
"#;
    let dir = tempdir();
    std::fs::write(dir.path().join("r.ll"), ir).expect("write");
    ok_in(dir.path(), bin("reach-instrument"), &["r.ll", "-o", "r.bc"]);
    let out = disassemble(&dir.path().join("r.bc"));
    let body = function_body(&out, "rmw");
    let calls: Vec<&str> = body
        .lines()
        .filter(|l| l.contains("@__reach_atomic_rmw.guard("))
        .collect();
    assert_eq!(calls.len(), 7, "{body}");
    let known = |op: RmwOp| op.code(true) | RMW_RESULT_UNUSED;
    let unknown = |op: RmwOp| op.code(false) | RMW_RESULT_UNUSED;
    let expect = [
        format!(
            "ptr @i, i64 4, i32 7, i32 {}, i64 1)",
            RmwOp::Xchg.code(true)
        ),
        format!("ptr @i, i64 4, i32 2, i32 {}, i64 %", known(RmwOp::Or)),
        format!("ptr @p, i64 8, i32 4, i32 {}, i64 %", known(RmwOp::Xchg)),
        // float 1.0 = 0x3f800000
        format!(
            "ptr @f, i64 4, i32 7, i32 {}, i64 1065353216)",
            known(RmwOp::Xchg)
        ),
        format!("ptr @f, i64 4, i32 7, i32 {}, i64 0)", unknown(RmwOp::FAdd)),
        format!("ptr @w, i64 16, i32 7, i32 {}, i64 0)", unknown(RmwOp::Add)),
        format!("ptr @i, i64 4, i32 7, i32 {}, i64 7)", known(RmwOp::UMax)),
    ];
    for (call, want) in calls.iter().zip(&expect) {
        assert!(call.contains(want.as_str()), "`{call}` lacks `{want}`");
    }
}

/// The result of an `atomicrmw` counts as unused when nothing uses it, or
/// when it only goes into a local temporary that nothing reads but loads
/// whose values are unused (what clang emits for a discarded
/// `atomic_fetch_add` at `-O0`); a comparison, a store to memory the
/// program can read, or a temporary that is read make it used.
#[test]
fn read_modify_writes_say_whether_their_result_is_used() {
    let ir = r#"
@c = global i32 0
@out = global i32 0
define i32 @results() {
  %temp = alloca i32
  %read = alloca i32
  %a = atomicrmw add ptr @c, i32 1 seq_cst
  store i32 %a, ptr %temp
  %dead = load i32, ptr %temp
  %b = atomicrmw add ptr @c, i32 2 seq_cst
  %first = icmp eq i32 %b, 0
  %x = zext i1 %first to i32
  %d = atomicrmw sub ptr @c, i32 3 seq_cst
  store i32 %d, ptr @out
  %e = atomicrmw xor ptr @c, i32 4 seq_cst
  store i32 %e, ptr %read
  %live = load i32, ptr %read
  %sum = add i32 %x, %live
  %f = atomicrmw or ptr @c, i32 5 seq_cst
  ret i32 %sum
}
"#;
    let dir = tempdir();
    std::fs::write(dir.path().join("u.ll"), ir).expect("write");
    ok_in(dir.path(), bin("reach-instrument"), &["u.ll", "-o", "u.bc"]);
    let out = disassemble(&dir.path().join("u.bc"));
    let body = function_body(&out, "results");
    let codes: Vec<&str> = body
        .lines()
        .filter(|l| l.contains("@__reach_atomic_rmw.guard("))
        .collect();
    let expect = [
        (RmwOp::Add, 1, true),
        (RmwOp::Add, 2, false),
        (RmwOp::Sub, 3, false),
        (RmwOp::Xor, 4, false),
        (RmwOp::Or, 5, true),
    ];
    assert_eq!(codes.len(), expect.len(), "{body}");
    for (call, (op, operand, unused)) in codes.iter().zip(expect) {
        let code = op.code(true) | if unused { RMW_RESULT_UNUSED } else { 0 };
        let want = format!("i32 7, i32 {code}, i64 {operand})");
        assert!(call.contains(&want), "`{call}` lacks `{want}`");
    }
}

/// `--drop-dead-code` deletes the internal functions nothing kept refers
/// to (and so never instruments them) and keeps what `main` reaches;
/// without it the module keeps them.
#[test]
fn drop_dead_code_deletes_only_the_unreachable_functions() {
    let ir = r#"
@g = internal global i32 0
define internal void @reached() {
  store i32 1, ptr @g
  ret void
}
define internal void @never_called() {
  store i32 2, ptr @g
  ret void
}
define i32 @main() {
  call void @reached()
  ret i32 0
}
"#;
    let dir = tempdir();
    std::fs::write(dir.path().join("d.ll"), ir).expect("write");
    ok_in(
        dir.path(),
        bin("reach-instrument"),
        &["--drop-dead-code", "d.ll", "-o", "dropped.bc"],
    );
    ok_in(
        dir.path(),
        bin("reach-instrument"),
        &["d.ll", "-o", "kept.bc"],
    );
    let dropped = disassemble(&dir.path().join("dropped.bc"));
    assert!(
        dropped.contains("define internal void @reached"),
        "{dropped}"
    );
    assert!(!dropped.contains("@never_called"), "{dropped}");
    let kept = disassemble(&dir.path().join("kept.bc"));
    assert!(
        kept.contains("define internal void @never_called"),
        "{kept}"
    );
}
