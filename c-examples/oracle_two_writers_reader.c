/*
 * oracle_two_writers_reader.c - two atomic stores and one atomic load of x.
 *
 * Thread 1 stores 1, thread 2 stores 2, thread 3 loads x.
 *
 * Usage:    ./oracle_two_writers_reader
 * Expected: no bug.  6 Mazurkiewicz traces: 2 orders of the stores times 3
 *           positions of the load relative to them.  The final value is
 *           whichever store came last.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;
static int observed = -1;

static void *store1(void *arg) { (void)arg; atomic_store(&x, 1); return NULL; }
static void *store2(void *arg) { (void)arg; atomic_store(&x, 2); return NULL; }
static void *load(void *arg) { (void)arg; observed = atomic_load(&x); return NULL; }

int main(void)
{
    pthread_t t1, t2, t3;
    pthread_create(&t1, NULL, store1, NULL);
    pthread_create(&t2, NULL, store2, NULL);
    pthread_create(&t3, NULL, load, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_join(t3, NULL);
    int final = atomic_load(&x);
    assert(final == 1 || final == 2);
    assert(observed >= 0 && observed <= 2);
    return 0;
}
