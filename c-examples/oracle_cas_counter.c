/*
 * oracle_cas_counter.c - lock-free increment with compare_exchange_strong.
 *
 * Two threads each add 1 to an atomic counter with a load / CAS retry loop.
 * If both load 0, the second CAS fails (and reloads the current value into
 * `old`), so the loop runs again: a failed CAS is a reachable behaviour.
 *
 * Usage:    ./oracle_cas_counter
 * Expected: no bug; the counter always ends at 2.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int counter;
static int retries[2]; /* per-thread count of failed CAS attempts */

static void *incr(void *arg)
{
    int id = arg != NULL;
    int old = atomic_load(&counter);
    while (!atomic_compare_exchange_strong(&counter, &old, old + 1))
        retries[id]++; /* `old` now holds the value that beat us */
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, incr, NULL);
    pthread_create(&t2, NULL, incr, (void *)1);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(atomic_load(&counter) == 2);
    assert(retries[0] + retries[1] <= 1);
    return 0;
}
