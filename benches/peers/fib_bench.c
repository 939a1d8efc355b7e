/* fib_bench(N): two threads grow two shared counters Fibonacci-style, each
 * N times (i += j in one, j += i in the other), without locks, while main,
 * without joining them, reads both counters once and checks them against
 * the largest value any order can produce.  Build with -DN=3, 4 (default)
 * or 5.  No bug; the behaviours are the orders of the unsynchronised reads
 * and writes. */
#include <pthread.h>
#include <stdlib.h>

#ifndef N
#define N 4
#endif

static int i = 1, j = 1;

static void *grow_i(void *arg)
{
    (void)arg;
    for (int k = 0; k < N; k++)
        i = i + j;
    return NULL;
}

static void *grow_j(void *arg)
{
    (void)arg;
    for (int k = 0; k < N; k++)
        j = j + i;
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, grow_i, NULL);
    pthread_create(&b, NULL, grow_j, NULL);
    /* Fibonacci number 2N + 2 bounds both counters. */
    int bound = 1, previous = 1;
    for (int k = 2; k < 2 * N + 2; k++) {
        int next = bound + previous;
        previous = bound;
        bound = next;
    }
    if (i > bound || j > bound)
        abort();
    return 0;
}
