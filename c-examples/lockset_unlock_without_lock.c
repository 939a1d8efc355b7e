/*
 * lockset_unlock_without_lock.c - an error path that releases a lock it
 * never took.
 *
 * Two workers try the mutex once.  The one that gets it adds to the
 * counter; the other one's give-up path "cleans up" by unlocking the
 * mutex anyway, releasing the lock the first worker holds.
 *
 * The runtime stops at that unlock (a pthread misuse); with
 * --race-detector lockset or both the report adds the lockset detector's
 * view: an unlock without lock, with the locks the thread held (none).
 * The bug needs contention: in the first execution each worker finds the
 * mutex free.
 *
 * Usage:    ./lockset_unlock_without_lock
 * Expected: BUG - pthread misuse (unlock of a mutex the thread does not
 *           hold), not in the first execution.  Natively it usually
 *           prints counter = 2.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg)
{
    (void)arg;
    if (pthread_mutex_trylock(&m) != 0) {
        pthread_mutex_unlock(&m); /* BUG: the other worker holds it */
        return NULL;
    }
    counter++;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_mutex_lock(&m);
    printf("counter = %d\n", counter);
    pthread_mutex_unlock(&m);
    return 0;
}
