/*
 * branch_flag_loop.c - a loop that re-reads a flag.
 *
 * The consumer spins on `ready` (yielding) and then reads `data` under the
 * lock; the producer writes `data` without the lock and then sets `ready`.
 * How many times the loop runs depends on the interleaving, but every
 * iteration after the first ends with no lock held and repeats the same
 * accesses ("equivalent iterations"), so the number of iterations does
 * not change which lockset races exist.
 *
 * Usage:    ./branch_flag_loop
 * Expected: BUG - data race on `data` (written without the lock, read with
 *           it) and on `ready` (no lock at all).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int ready;
static int data;

static void *producer(void *arg)
{
    (void)arg;
    data = 42; /* BUG: written without the lock the consumer takes */
    ready = 1; /* BUG: a plain flag */
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    while (!ready)
        sched_yield();
    pthread_mutex_lock(&m);
    int seen = data;
    pthread_mutex_unlock(&m);
    printf("consumed %d\n", seen);
    return NULL;
}

int main(void)
{
    pthread_t p, c;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    return 0;
}
