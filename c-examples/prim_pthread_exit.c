/*
 * prim_pthread_exit.c - pthread_exit from a thread and from main.
 *
 * Thread 1 leaves through pthread_exit((void *)42) from inside a nested
 * call; main joins it and checks the value.  Then main starts thread 2 and
 * itself calls pthread_exit(NULL): the process keeps running until thread 2
 * finishes, and then exits with status 0.
 *
 * Usage:    ./prim_pthread_exit
 * Expected: no bug; exit status 0.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int steps;

static void leave_early(int code)
{
    pthread_mutex_lock(&m);
    steps++;
    pthread_mutex_unlock(&m);
    pthread_exit((void *)(intptr_t)code);
}

static void *first(void *arg)
{
    (void)arg;
    leave_early(42);
    return NULL; /* not reached */
}

static void *last(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    steps++;
    assert(steps == 2);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    void *ret = NULL;
    pthread_create(&t1, NULL, first, NULL);
    pthread_join(t1, &ret);
    assert((intptr_t)ret == 42);

    pthread_create(&t2, NULL, last, NULL);
    fflush(stdout);
    pthread_exit(NULL); /* main ends; the process lives on until t2 ends */
}
