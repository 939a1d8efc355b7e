/*
 * prim_errorcheck_mutex.c - PTHREAD_MUTEX_ERRORCHECK.
 *
 * Two threads each lock an error-checking mutex, then try to lock it again:
 * the relock must fail with EDEADLK instead of deadlocking.  This is a
 * defined, reported error, not a bug in the program.
 *
 * Usage:    ./prim_errorcheck_mutex
 * Expected: no bug (not a deadlock, not a misuse).  2 Mazurkiewicz traces.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>

static pthread_mutex_t m;
static int counter;

static void *worker(void *arg)
{
    (void)arg;
    int rc = pthread_mutex_lock(&m);
    assert(rc == 0);
    rc = pthread_mutex_lock(&m); /* relock by the owner */
    assert(rc == EDEADLK);
    counter++;
    rc = pthread_mutex_unlock(&m);
    assert(rc == 0);
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &attr);
    pthread_mutexattr_destroy(&attr);

    pthread_t t1, t2;
    pthread_create(&t1, NULL, worker, NULL);
    pthread_create(&t2, NULL, worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(counter == 2);
    pthread_mutex_destroy(&m);
    return 0;
}
