/*
 * prim_recursive_mutex.c - PTHREAD_MUTEX_RECURSIVE.
 *
 * Two threads each take a recursive mutex twice (the second time from a
 * nested helper), update a counter, and release it twice.  The mutex stays
 * held until the outermost unlock, so the other thread cannot get in
 * between.
 *
 * Usage:    ./prim_recursive_mutex
 * Expected: no bug.  2 Mazurkiewicz traces (order of the outer critical
 *           sections).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m;
static int counter;

static void add_one_locked(void)
{
    pthread_mutex_lock(&m); /* second acquisition by the owner: allowed */
    counter++;
    pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    int before = counter;
    add_one_locked();
    assert(counter == before + 1); /* still held: nobody else ran in between */
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
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
