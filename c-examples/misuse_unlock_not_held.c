/*
 * misuse_unlock_not_held.c - unlocking a mutex the caller does not hold.
 *
 * The worker locks the mutex, updates a counter, unlocks it - and then
 * unlocks it a second time.  POSIX leaves this undefined for a default
 * mutex (glibc silently accepts it and corrupts the mutex's user count).
 *
 * Usage:    ./misuse_unlock_not_held
 * Expected: BUG - pthread misuse: pthread_mutex_unlock of a mutex that is
 *           not locked by the calling thread, in every execution.
 *           Natively it exits 0.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m); /* BUG: not held any more */
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("counter = %d\n", counter);
    return 0;
}
