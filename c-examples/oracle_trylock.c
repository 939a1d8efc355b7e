/*
 * oracle_trylock.c - pthread_mutex_trylock succeeding or failing.
 *
 * Thread 1 takes the mutex with pthread_mutex_lock and sets x = 1.  Thread 2
 * tries once with pthread_mutex_trylock: it gets the lock (before thread 1
 * locks or after it unlocks) or EBUSY (while thread 1 holds it).
 *
 * Usage:    ./oracle_trylock
 * Expected: no bug.  3 Mazurkiewicz traces: trylock before thread 1's lock
 *           (succeeds, sees x == 0), while thread 1 holds the lock (EBUSY),
 *           after thread 1's unlock (succeeds, sees x == 1).
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int x;
static int outcome = -1; /* 0: got the lock and saw x == 0, 1: saw x == 1, 2: EBUSY */

static void *locker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    x = 1;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *trier(void *arg)
{
    (void)arg;
    int rc = pthread_mutex_trylock(&m);
    if (rc == 0) {
        outcome = x;
        pthread_mutex_unlock(&m);
    } else {
        assert(rc == EBUSY);
        outcome = 2;
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, locker, NULL);
    pthread_create(&t2, NULL, trier, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(outcome >= 0 && outcome <= 2);
    assert(x == 1);
    return 0;
}
