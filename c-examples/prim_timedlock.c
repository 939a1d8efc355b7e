/*
 * prim_timedlock.c - pthread_mutex_timedlock: acquired or timed out.
 *
 * The holder locks the mutex, updates `x` and unlocks.  The other thread
 * calls pthread_mutex_timedlock with a deadline 50 ms ahead: it either gets
 * the lock (possibly after waiting) or gives up with ETIMEDOUT.  Both
 * outcomes are legal; the program checks only what holds in both.
 *
 * Usage:    ./prim_timedlock
 * Expected: no bug.  Under systematic testing both outcomes (acquired,
 *           ETIMEDOUT while the holder has the lock) are possible.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int x;
static int got_lock = -1;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    x += 1;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *timed(void *arg)
{
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += 50 * 1000 * 1000;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    int rc = pthread_mutex_timedlock(&m, &deadline);
    if (rc == 0) {
        got_lock = 1;
        x += 10;
        pthread_mutex_unlock(&m);
    } else {
        assert(rc == ETIMEDOUT);
        got_lock = 0;
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, holder, NULL);
    pthread_create(&t2, NULL, timed, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(got_lock == 0 || got_lock == 1);
    assert(x == (got_lock ? 11 : 1));
    return 0;
}
