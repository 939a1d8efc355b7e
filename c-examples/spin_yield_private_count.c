/*
 * spin_yield_private_count.c - two waiters poll a flag, count each failed
 * poll in a heap block only they touch, and yield; a third thread sets
 * the flag.
 *
 * Each failed poll writes memory (the count), so the loop is an ordinary
 * one, not an await, and the write is progress: the spin threshold never
 * holds a waiter back. Under PCT a waiter of higher priority than the
 * setter would poll until the step bound; a thread that yields 8 times in
 * a row with no other thread running drops below the others instead, so
 * every execution is short.
 *
 * Usage:    ./spin_yield_private_count
 * Expected: no bug; the search completes.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int flag;

static void *setter(void *arg)
{
    (void)arg;
    atomic_store(&flag, 1);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    long *tries = malloc(sizeof *tries);
    if (!tries)
        abort();
    *tries = 0;
    while (!atomic_load(&flag)) {
        ++*tries;
        sched_yield();
    }
    free(tries);
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    pthread_create(&t[0], NULL, waiter, NULL);
    pthread_create(&t[1], NULL, waiter, NULL);
    pthread_create(&t[2], NULL, setter, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    return 0;
}
