/*
 * fib_bench.c - the "fib_bench" concurrency benchmark (SV-COMP), bug version.
 *
 * Shared i = j = 1.  Thread 1 does N times  i += j;  thread 2 does N times
 * j += i  (plain, unsynchronised accesses).  main starts both threads and,
 * without joining them, asserts i < BOUND && j < BOUND.  The largest value
 * any interleaving can produce is fib(2N+2) (fib(1) = fib(2) = 1), reached
 * only when the two threads strictly alternate; for N = 5 that is 144, so
 * with the default BOUND = 144 the assertion fails in rare interleavings.
 * For N < 5 the assertion cannot fail (but the data races remain).
 *
 * Because main does not join, its check races with the threads, exactly as
 * in the original; the process ends when main returns.
 *
 * Usage:    ./fib_bench [N [BOUND]]    N default 5 (1..20), BOUND default 144
 * Expected: BUG - data races on i and j; with N = 5, an assertion failure
 *           (i or j reaches 144) in a small fraction of the traces.
 * Published figures: Mazurkiewicz traces (reads commuting, SC), as an
 *   optimal DPOR counts them: N = 4 -> 19,605; N = 5 -> 218,243 (also the
 *   Fib 1 / Fib 2 counts of Kahkonen et al.'s unfolding paper).  These
 *   numbers assume this exact shape: `i += j` loads j then i, `j += i` loads
 *   i then j, and main's check loads i and then (if i < BOUND) j.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int i = 1, j = 1;

static void *t1(void *arg)
{
    int n = (int)(intptr_t)arg;
    for (int k = 0; k < n; k++)
        i += j;
    return NULL;
}

static void *t2(void *arg)
{
    int n = (int)(intptr_t)arg;
    for (int k = 0; k < n; k++)
        j += i;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    int bound = argc > 2 ? atoi(argv[2]) : 144;
    if (n < 1 || n > 20) {
        fprintf(stderr, "usage: %s [N 1..20 [BOUND]]\n", argv[0]);
        return 2;
    }
    pthread_t id1, id2;
    pthread_create(&id1, NULL, t1, (void *)(intptr_t)n);
    pthread_create(&id2, NULL, t2, (void *)(intptr_t)n);
    assert(i < bound && j < bound);
    return 0;
}
