/*
 * oracle_write_read.c - one atomic store racing with one atomic load.
 *
 * Thread 1 stores 1 into x; thread 2 loads x.  The load sees either 0 or 1.
 *
 * Usage:    ./oracle_write_read
 * Expected: no bug (accesses are atomic, so no data race).
 *           2 Mazurkiewicz traces: load before store, load after store.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;
static int observed = -1; /* written by thread 2 only, read by main after join */

static void *writer(void *arg) { (void)arg; atomic_store(&x, 1); return NULL; }
static void *reader(void *arg) { (void)arg; observed = atomic_load(&x); return NULL; }

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, writer, NULL);
    pthread_create(&t2, NULL, reader, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(observed == 0 || observed == 1);
    return 0;
}
