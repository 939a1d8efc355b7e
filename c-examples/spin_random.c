/*
 * spin_random.c - a random small program of busy-waiting shapes, chosen by
 * a seed: the model programs the tests run under the default strategy
 * against the exhaustive oracle.
 *
 * THREADS threads (2 or 3, from the seed) each run up to three operations
 * on two shared atomics: loads, stores, compare-and-swaps that may fail,
 * exchanges that may write the value already there, sched_yield, a spin
 * hint, and retry loops (a compare-and-swap retried after sched_yield or a
 * spin hint, at most twice; an exchange lock taken with sched_yield
 * between tries, at most twice, and released; a compare-and-swap of one
 * atomic guarded by a load of the other, retried after sched_yield at most
 * three times, a retry loop that reads two locations). Every operation is
 * a straight-line call, so the only loops are the retry loops.
 *
 * Usage:    ./spin_random SEED
 * Expected: no bug (the program prints its operations with -v).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind {
    LOAD,
    STORE,
    CAS,
    XCHG,
    YIELD,
    PAUSE,
    CAS_RETRY_YIELD,
    CAS_RETRY_PAUSE,
    XCHG_LOCK,
    GUARDED_CAS_RETRY,
    KINDS
};

static const char *const names[KINDS] = {
    "load", "store", "cas", "xchg", "yield", "pause", "cas-retry-yield", "cas-retry-pause", "xchg-lock",
    "guarded-cas-retry",
};

struct op {
    enum kind kind;
    int var;
    int from, to;
};

#define MAX_THREADS 3
#define MAX_OPS 3

static atomic_int vars[2];

static uint64_t below(uint64_t *rng, uint64_t n)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng % n;
}

/* The program for `seed`, computed again by each thread from the seed
 * alone in registers (no memory another thread could see): the number of
 * threads if `t` < 0, else operation `k` of thread `t` (0-based) packed as
 * kind * 8 + var * 4 + from * 2 + to, or -1 past its end. With `verbose`,
 * prints the whole program. */
static int generate(uint64_t seed, int t, int k, int verbose)
{
    uint64_t rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    int threads = 2 + (int)below(&rng, 2);
    int found = -1;
    for (int u = 0; u < threads; u++) {
        int length = 1 + (int)below(&rng, threads == 2 ? MAX_OPS : MAX_OPS - 1);
        for (int j = 0; j < length; j++) {
            int kind = (int)below(&rng, KINDS);
            int var = (int)below(&rng, 2), from = (int)below(&rng, 2), to = (int)below(&rng, 2);
            if (verbose)
                printf("T%d: %s v%d %d->%d\n", u + 1, names[kind], var, from, to);
            if (u == t && j == k)
                found = kind * 8 + var * 4 + from * 2 + to;
        }
    }
    return t < 0 ? threads : found;
}

static void pause_hint(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    sched_yield();
#endif
}

/* Runs one operation; its result is kept, so every read's value matters. */
static int run(int packed)
{
    const struct op op = {(enum kind)(packed / 8), packed / 4 % 2, packed / 2 % 2, packed % 2};
    const struct op *o = &op;
    atomic_int *v = &vars[o->var];
    int expected;
    switch (o->kind) {
    case LOAD:
        return atomic_load(v);
    case STORE:
        atomic_store(v, o->to);
        return 0;
    case CAS:
        expected = o->from;
        return atomic_compare_exchange_strong(v, &expected, o->to);
    case XCHG:
        return atomic_exchange(v, o->to);
    case YIELD:
        sched_yield();
        return 0;
    case PAUSE:
        pause_hint();
        return 0;
    case CAS_RETRY_YIELD:
    case CAS_RETRY_PAUSE:
        for (int tries = 0; tries < 2; tries++) {
            expected = o->from;
            if (atomic_compare_exchange_strong(v, &expected, o->to))
                return 1;
            if (o->kind == CAS_RETRY_YIELD)
                sched_yield();
            else
                pause_hint();
        }
        return 0;
    case XCHG_LOCK:
        for (int tries = 0; tries < 2; tries++) {
            if (atomic_exchange(v, 1) == 0) {
                atomic_store(v, 0);
                return 1;
            }
            sched_yield();
        }
        return 0;
    case GUARDED_CAS_RETRY:
        for (int tries = 0; tries < 3; tries++) {
            expected = o->from;
            if (atomic_load(&vars[1 - o->var]) == o->to && atomic_compare_exchange_strong(v, &expected, o->to))
                return 1;
            sched_yield();
        }
        return 0;
    case KINDS:
        break;
    }
    return -1;
}

static void *thread(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg / MAX_THREADS;
    int t = (int)((uintptr_t)arg % MAX_THREADS);
    intptr_t seen = 0;
    for (int k = 0; k < MAX_OPS; k++) {
        int packed = generate(seed, t, k, 0);
        if (packed < 0)
            break;
        seen = seen * 4 + run(packed);
    }
    return (void *)seen;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    uint64_t seed = strtoull(argv[1], NULL, 10) % 1000000;
    int threads = generate(seed, -1, 0, argc > 2 && strcmp(argv[2], "-v") == 0);
    pthread_t handles[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        pthread_create(&handles[t], NULL, thread, (void *)(uintptr_t)(seed * MAX_THREADS + t));
    for (int t = 0; t < threads; t++)
        pthread_join(handles[t], NULL);
    return 0;
}
