/*
 * misuse_destroy_locked.c - destroying a locked mutex.
 *
 * The worker holds the mutex while it calls pthread_mutex_destroy on it.
 * POSIX makes this undefined; glibc returns EBUSY.
 *
 * Usage:    ./misuse_destroy_locked
 * Expected: BUG - pthread misuse: pthread_mutex_destroy of a locked mutex,
 *           in every execution.  Natively it exits 0.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static int destroy_rc;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    counter++;
    destroy_rc = pthread_mutex_destroy(&m); /* BUG: still locked */
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("counter = %d, destroy returned %d\n", counter, destroy_rc);
    return 0;
}
