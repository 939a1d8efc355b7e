/*
 * prim_sleep_yield.c - sleeping and yielding threads.
 *
 * The threads call usleep, nanosleep, sleep(0) and sched_yield around
 * mutex-protected updates.  Sleeping changes timing only, never the set of
 * possible interleavings: a systematic tester may treat every such call as
 * a plain scheduling point.
 *
 * Usage:    ./prim_sleep_yield
 * Expected: no bug.  2 Mazurkiewicz traces (order of the critical sections).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int value;

static void *sleeper(void *arg)
{
    (void)arg;
    usleep(1000);
    struct timespec ts = {0, 500 * 1000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&m);
    value += 1;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *yielder(void *arg)
{
    (void)arg;
    sched_yield();
    sleep(0);
    pthread_mutex_lock(&m);
    value += 2;
    pthread_mutex_unlock(&m);
    sched_yield();
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, sleeper, NULL);
    pthread_create(&t2, NULL, yielder, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(value == 3);
    return 0;
}
