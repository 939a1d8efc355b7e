/*
 * misuse_relock_normal.c - relocking a normal (non-recursive) mutex.
 *
 * The worker locks a PTHREAD_MUTEX_NORMAL mutex and then, through a helper
 * that "forgot" the caller already holds it, locks it again.  A normal mutex
 * does not detect this: the thread waits for itself forever.
 *
 * Usage:    ./misuse_relock_normal
 * Expected: BUG - self-deadlock: pthread misuse (relock of a held normal
 *           mutex by its owner), equivalently a deadlock of the worker
 *           with itself.  Natively it hangs forever: run it under `timeout`.
 *           (prim_errorcheck_mutex.c and prim_recursive_mutex.c show the
 *           mutex types that handle this.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m;
static int counter;

static void increment(void)
{
    pthread_mutex_lock(&m); /* BUG: the caller already holds m */
    counter++;
    pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    increment();
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL);
    pthread_mutex_init(&m, &attr);
    pthread_mutexattr_destroy(&attr);

    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("counter = %d\n", counter);
    return 0;
}
