/*
 * lockset_check_then_act.c - a bounded counter locked on one path only.
 *
 * Two workers add one to a counter while it is below LIMIT and the
 * counter is not closed.  The careful worker checks and increments with
 * the mutex held.  The hasty worker takes the mutex only to read the
 * `closed` flag and does its check-then-act after releasing it.
 *
 * Happens-before sees no race in the executions where the careful worker
 * runs first: its unlock happens before the hasty worker's lock, which
 * orders every access.  The race needs the other order.  The lockset
 * detector (--race-detector lockset) finds it in every execution: the
 * counter is written by both workers with no lock held at every access.
 *
 * Usage:    ./lockset_check_then_act
 * Expected: BUG - data race on `counter` (hb: not in the first execution;
 *           lockset: a lockset race in the first execution).
 *           Natively it prints counter = 2.
 */
#include <pthread.h>
#include <stdio.h>

#define LIMIT 10

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter; /* shared: to be accessed with m held */
static int closed;  /* shared: to be accessed with m held */

static void *careful(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    int seen = counter;
    if (!closed && seen < LIMIT)
        counter = seen + 1;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *hasty(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    int open = !closed;
    pthread_mutex_unlock(&m);
    if (open) {
        int seen = counter; /* BUG: m is not held any more */
        if (seen < LIMIT)
            counter = seen + 1;
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    counter = 0; /* initialisation before the threads: no lock needed */
    closed = 0;
    pthread_create(&a, NULL, careful, NULL);
    pthread_create(&b, NULL, hasty, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_mutex_lock(&m);
    printf("counter = %d\n", counter);
    pthread_mutex_unlock(&m);
    return 0;
}
