/*
 * oracle_rare_order.c - a bug in exactly one interleaving class.
 *
 * The writer stores 1, 2, 3 into an atomic x; the observer loads x three
 * times.  The assertion fails only if the observer sees exactly 1, 2, 3,
 * i.e. only in the strict alternation  w1 r1 w2 r2 w3 r3.
 *
 * Usage:    ./oracle_rare_order
 * Expected: BUG - assertion failure in 1 of the 20 Mazurkiewicz traces
 *           (C(6,3) placements of the 3 loads among the 3 stores).
 *           Natively it almost never fails.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;

static void *writer(void *arg)
{
    (void)arg;
    atomic_store(&x, 1);
    atomic_store(&x, 2);
    atomic_store(&x, 3);
    return NULL;
}

static void *observer(void *arg)
{
    (void)arg;
    int a = atomic_load(&x);
    int b = atomic_load(&x);
    int c = atomic_load(&x);
    assert(!(a == 1 && b == 2 && c == 3));
    return NULL;
}

int main(void)
{
    pthread_t w, o;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&o, NULL, observer, NULL);
    pthread_join(w, NULL);
    pthread_join(o, NULL);
    return 0;
}
