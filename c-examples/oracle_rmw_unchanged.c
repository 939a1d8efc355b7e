/*
 * oracle_rmw_unchanged.c - read-modify-writes that may leave memory as it is.
 *
 * Three threads on one atomic int x (initially 0): T1 exchanges 1 into it,
 * T2 ors 1 into it, T3 loads it.  Whichever of T1 and T2 comes first sets
 * x to 1; the other then changes nothing.  Under sequential consistency an
 * operation that leaves memory unchanged is observationally a read, so only
 * two things matter: which of T1, T2 writes, and whether T3 loads before or
 * after that write.
 *
 * Usage:    ./oracle_rmw_unchanged
 * Expected: no bug.  4 Mazurkiewicz traces (6 if every read-modify-write
 *           counted as a write).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;
static int seen[3];

static void *exchanger(void *arg)
{
    (void)arg;
    seen[0] = atomic_exchange(&x, 1);
    return NULL;
}

static void *orer(void *arg)
{
    (void)arg;
    seen[1] = atomic_fetch_or(&x, 1);
    return NULL;
}

static void *loader(void *arg)
{
    (void)arg;
    seen[2] = atomic_load(&x);
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    pthread_create(&t[0], NULL, exchanger, NULL);
    pthread_create(&t[1], NULL, orer, NULL);
    pthread_create(&t[2], NULL, loader, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    /* Exactly one of the exchange and the or found 0. */
    assert(seen[0] + seen[1] == 1);
    assert(seen[2] == 0 || seen[2] == 1);
    assert(atomic_load(&x) == 1);
    return 0;
}
