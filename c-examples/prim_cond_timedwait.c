/*
 * prim_cond_timedwait.c - pthread_cond_timedwait: signalled or timed out.
 *
 * The waiter waits (in a loop) for `ready` with a deadline 50 ms ahead and
 * stops early on ETIMEDOUT; the signaller sets `ready` and signals.  The
 * waiter may see the flag, be woken by the signal, or time out first.
 *
 * Usage:    ./prim_cond_timedwait
 * Expected: no bug.  Both outcomes are reachable under systematic testing;
 *           the assertions hold in both: on return from the wait loop,
 *           either ready == 1 or the wait timed out, and after both
 *           threads finish ready == 1.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static int timed_out;

static void *waiter(void *arg)
{
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += 50 * 1000 * 1000;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m);
    while (!ready) {
        int rc = pthread_cond_timedwait(&cv, &m, &deadline);
        if (rc == ETIMEDOUT) {
            timed_out = 1;
            break;
        }
        assert(rc == 0);
    }
    assert(ready || timed_out);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t w, s;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&s, NULL, signaller, NULL);
    pthread_join(w, NULL);
    pthread_join(s, NULL);
    assert(ready == 1);
    return 0;
}
