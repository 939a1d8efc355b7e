/*
 * mm_litmus.c - the classic memory-model litmus tests, each as threads of
 * C11 atomics with one set of orderings: what RC11 lets the loads read.
 *
 *   sb    x = 1; r0 = y          || y = 1; r1 = x
 *   mp    data = 1; flag = 1     || r0 = flag; r1 = data
 *   lb    r0 = x; y = 1          || r1 = y; x = 1
 *   iriw  x = 1 || y = 1 || r0 = x; r1 = y || r2 = y; r3 = x
 *   wrc   x = 1 || r0 = x; y = 1 || r1 = y; r2 = x
 *   r     x = 1; y = 1           || y = 2; r0 = x
 *   2+2w  x = 1; y = 2           || y = 1; x = 2
 *   s     x = 2; y = 1           || r0 = y; x = 1
 *   cas   x = 1; y = 1           || r0 = y; r1 = cas(x, 1 -> 2)
 *   fadd  x = 1; y = 1           || r0 = y; r1 = fetch_add(x, 1)
 *   2fadd r0 = fetch_add(x, 1)   || r1 = fetch_add(x, 1)
 *   mp2   data = 1; data = 2; flag = 1 || r0 = flag; r1 = data
 *
 * ORDER: rlx (every access relaxed), ra (stores release, loads, CAS and
 * fetch_add acquire; mp's data accesses relaxed), sc (every access seq_cst).  The tester
 * counts the executions by what the loads read (`reads_from_graphs` with
 * --memory-model rc11), which must equal RC11's consistent executions
 * (the reach-rc11 oracle).  With `check`, main asserts that the outcome
 * sequential consistency forbids did not happen (sb: both loads 0; mp:
 * flag 1, data 0; lb: both 1, out of thin air; iriw: the readers disagree;
 * wrc: y = 1 seen, x = 0 read after; r: y ends 2 and x read 0; 2+2w: x and
 * y both end 1; s: y = 1 read and x ends 2; cas and fadd: y = 1 read and
 * x = 0 read by the CAS, which fails, or the fetch_add; 2fadd: x does not
 * end 2, which atomicity forbids; mp2: flag 1, data not 2).  2+2w and s need a
 * modification order other than the order the stores run in.
 *
 * Usage:    ./mm_litmus TEST ORDER [check]
 * Expected: no bug without check, and with check under --memory-model sc;
 *           under rc11 an assertion failure for sb rlx and ra, mp rlx,
 *           iriw rlx and ra, wrc rlx, r rlx and ra, 2+2w rlx and ra, s rlx,
 *           cas rlx, fadd rlx, mp2 rlx; never for lb and 2fadd.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int x, y, data, flag;

/* The orderings, as each thread's argument (so the threads read no memory
 * but the litmus locations): 0 rlx, 1 ra, 2 sc. */
enum { RLX, RA, SC };

static void st(atomic_int *a, int v, intptr_t order)
{
    if (order == RA)
        atomic_store_explicit(a, v, memory_order_release);
    else if (order == SC)
        atomic_store_explicit(a, v, memory_order_seq_cst);
    else
        atomic_store_explicit(a, v, memory_order_relaxed);
}

static int ld(atomic_int *a, intptr_t order)
{
    if (order == RA)
        return atomic_load_explicit(a, memory_order_acquire);
    if (order == SC)
        return atomic_load_explicit(a, memory_order_seq_cst);
    return atomic_load_explicit(a, memory_order_relaxed);
}

/* A strong compare-and-exchange of `expected` for `desired`, with the
 * load's ordering on success and failure: the value it read. */
static int cas(atomic_int *a, int expected, int desired, intptr_t order)
{
    memory_order o = order == RA   ? memory_order_acquire
                     : order == SC ? memory_order_seq_cst
                                   : memory_order_relaxed;
    atomic_compare_exchange_strong_explicit(a, &expected, desired, o, o);
    return expected;
}

/* fetch_add with the load's ordering: the value it read. */
static int fadd(atomic_int *a, int v, intptr_t order)
{
    if (order == RA)
        return atomic_fetch_add_explicit(a, v, memory_order_acquire);
    if (order == SC)
        return atomic_fetch_add_explicit(a, v, memory_order_seq_cst);
    return atomic_fetch_add_explicit(a, v, memory_order_relaxed);
}

/* mp's data accesses: relaxed unless every access is seq_cst. */
static intptr_t data_order(intptr_t order) { return order == SC ? SC : RLX; }

/* Each thread returns what its loads read, two bits per load. */
#define O ((intptr_t)arg)
#define RET(v) return (void *)(intptr_t)(v)
static void *sb0(void *arg) { st(&x, 1, O); RET(ld(&y, O)); }
static void *sb1(void *arg) { st(&y, 1, O); RET(ld(&x, O)); }
static void *mp0(void *arg) { st(&data, 1, data_order(O)); st(&flag, 1, O); RET(0); }
static void *mp1(void *arg) { int f = ld(&flag, O); RET(f | ld(&data, data_order(O)) << 2); }
static void *lb0(void *arg) { int r = ld(&x, O); st(&y, 1, O); RET(r); }
static void *lb1(void *arg) { int r = ld(&y, O); st(&x, 1, O); RET(r); }
static void *wx(void *arg) { st(&x, 1, O); RET(0); }
static void *wy(void *arg) { st(&y, 1, O); RET(0); }
static void *iriw2(void *arg) { int a = ld(&x, O); RET(a | ld(&y, O) << 2); }
static void *iriw3(void *arg) { int c = ld(&y, O); RET(c | ld(&x, O) << 2); }
static void *wrc1(void *arg) { int r = ld(&x, O); st(&y, 1, O); RET(r); }
static void *wrc2(void *arg) { int r = ld(&y, O); RET(r | ld(&x, O) << 2); }
static void *r0(void *arg) { st(&x, 1, O); st(&y, 1, O); RET(0); }
static void *r1(void *arg) { st(&y, 2, O); RET(ld(&x, O)); }
static void *w22a(void *arg) { st(&x, 1, O); st(&y, 2, O); RET(0); }
static void *w22b(void *arg) { st(&y, 1, O); st(&x, 2, O); RET(0); }
static void *s0(void *arg) { st(&x, 2, O); st(&y, 1, O); RET(0); }
static void *s1(void *arg) { int r = ld(&y, O); st(&x, 1, O); RET(r); }
static void *cas1(void *arg) { int r = ld(&y, O); RET(r | cas(&x, 1, 2, O) << 2); }
static void *fadd1(void *arg) { int r = ld(&y, O); RET(r | fadd(&x, 1, O) << 2); }
static void *fadd0(void *arg) { RET(fadd(&x, 1, O)); }
static void *mp20(void *arg) { st(&data, 1, data_order(O)); st(&data, 2, data_order(O)); st(&flag, 1, O); RET(0); }
static void *mp21(void *arg) { int f = ld(&flag, O); RET(f | ld(&data, data_order(O)) << 2); }

_Noreturn static void usage(void)
{
    fprintf(stderr, "usage: mm_litmus sb|mp|lb|iriw|wrc|r|2+2w|s|cas|fadd|2fadd|mp2 rlx|ra|sc [check]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "check") == 0))
        usage();
    int check = argc == 4;
    intptr_t order;
    if (strcmp(argv[2], "rlx") == 0)
        order = RLX;
    else if (strcmp(argv[2], "ra") == 0)
        order = RA;
    else if (strcmp(argv[2], "sc") == 0)
        order = SC;
    else
        usage();
    void *(*threads[4])(void *) = {0};
    const char *t = argv[1];
    if (strcmp(t, "sb") == 0) {
        threads[0] = sb0, threads[1] = sb1;
    } else if (strcmp(t, "mp") == 0) {
        threads[0] = mp0, threads[1] = mp1;
    } else if (strcmp(t, "lb") == 0) {
        threads[0] = lb0, threads[1] = lb1;
    } else if (strcmp(t, "iriw") == 0) {
        threads[0] = wx, threads[1] = wy, threads[2] = iriw2, threads[3] = iriw3;
    } else if (strcmp(t, "wrc") == 0) {
        threads[0] = wx, threads[1] = wrc1, threads[2] = wrc2;
    } else if (strcmp(t, "r") == 0) {
        threads[0] = r0, threads[1] = r1;
    } else if (strcmp(t, "2+2w") == 0) {
        threads[0] = w22a, threads[1] = w22b;
    } else if (strcmp(t, "s") == 0) {
        threads[0] = s0, threads[1] = s1;
    } else if (strcmp(t, "cas") == 0) {
        threads[0] = r0, threads[1] = cas1;
    } else if (strcmp(t, "fadd") == 0) {
        threads[0] = r0, threads[1] = fadd1;
    } else if (strcmp(t, "2fadd") == 0) {
        threads[0] = fadd0, threads[1] = fadd0;
    } else if (strcmp(t, "mp2") == 0) {
        threads[0] = mp20, threads[1] = mp21;
    } else {
        usage();
    }
    pthread_t tid[4];
    int n = 0;
    for (; n < 4 && threads[n]; n++)
        pthread_create(&tid[n], NULL, threads[n], (void *)order);
    int r[4] = {0};
    for (int i = 0; i < n; i++) {
        void *read;
        pthread_join(tid[i], &read);
        r[i] = (int)(intptr_t)read;
    }
    if (check) {
        /* The outcome sequential consistency forbids (two bits per load). */
        if (strcmp(t, "sb") == 0)
            assert(!(r[0] == 0 && r[1] == 0));
        else if (strcmp(t, "mp") == 0)
            assert(r[1] != 1);
        else if (strcmp(t, "lb") == 0)
            assert(!(r[0] == 1 && r[1] == 1));
        else if (strcmp(t, "iriw") == 0)
            assert(!(r[2] == 1 && r[3] == 1));
        else if (strcmp(t, "wrc") == 0)
            assert(!(r[1] == 1 && r[2] == 1));
        else if (strcmp(t, "2+2w") == 0)
            assert(!(atomic_load(&x) == 1 && atomic_load(&y) == 1));
        else if (strcmp(t, "s") == 0)
            assert(!(r[1] == 1 && atomic_load(&x) == 2));
        else if (strcmp(t, "cas") == 0 || strcmp(t, "fadd") == 0)
            assert(r[1] != 1);
        else if (strcmp(t, "2fadd") == 0)
            assert(atomic_load(&x) == 2);
        else if (strcmp(t, "mp2") == 0)
            assert(!((r[1] & 3) == 1 && r[1] >> 2 != 2));
        else
            assert(!(atomic_load(&y) == 2 && r[1] == 0));
    }
    printf("%d %d %d %d\n", r[0], r[1], r[2], r[3]);
    return 0;
}
