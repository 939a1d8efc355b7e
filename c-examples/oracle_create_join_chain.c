/*
 * oracle_create_join_chain.c - threads creating and joining threads.
 *
 * main creates A; A creates B; B writes `x`; A joins B and reads `x`, then
 * writes `y`; main joins A and reads `y`.  Meanwhile main also writes `z`,
 * which nobody else touches.  Every cross-thread access is ordered by
 * create/join, so there is nothing to interleave.
 *
 * Usage:    ./oracle_create_join_chain
 * Expected: no bug, no data race.  Exactly 1 Mazurkiewicz trace.
 */
#include <assert.h>
#include <pthread.h>

static int x, y, z;

static void *thread_b(void *arg)
{
    (void)arg;
    x = 5;
    return NULL;
}

static void *thread_a(void *arg)
{
    (void)arg;
    pthread_t b;
    pthread_create(&b, NULL, thread_b, NULL);
    pthread_join(b, NULL);
    y = x + 1; /* ordered after B's write by the join */
    return NULL;
}

int main(void)
{
    pthread_t a;
    pthread_create(&a, NULL, thread_a, NULL);
    z = 1; /* independent of A and B */
    pthread_join(a, NULL);
    assert(x == 5 && y == 6 && z == 1);
    return 0;
}
