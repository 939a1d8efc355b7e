/*
 * prim_spinlock.c - pthread_spinlock_t protecting a counter.
 *
 * Two threads each add to a counter under a spin lock, one with
 * pthread_spin_lock, the other with pthread_spin_trylock retried until it
 * succeeds.
 *
 * Usage:    ./prim_spinlock
 * Expected: no bug, no data race; must terminate under systematic testing
 *           (the trylock retry loop only spins while the other thread holds
 *           the lock).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sched.h>

static pthread_spinlock_t sl;
static int counter;

static void *locker(void *arg)
{
    (void)arg;
    pthread_spin_lock(&sl);
    counter += 1;
    pthread_spin_unlock(&sl);
    return NULL;
}

static void *trier(void *arg)
{
    (void)arg;
    while (pthread_spin_trylock(&sl) != 0)
        sched_yield();
    counter += 10;
    pthread_spin_unlock(&sl);
    return NULL;
}

int main(void)
{
    pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, locker, NULL);
    pthread_create(&t2, NULL, trier, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(counter == 11);
    pthread_spin_destroy(&sl);
    return 0;
}
