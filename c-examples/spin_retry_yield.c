/*
 * spin_retry_yield.c - a lock whose retry loop writes the thread's own
 * bookkeeping and yields (the shape of CHESS's work-stealing queue tests).
 *
 * Each of THREADS threads (default 2) takes the lock with a
 * compare-and-swap; a failed attempt counts itself in a per-thread
 * statistic (state the iteration changes, so it is an ordinary loop, not
 * an await) and calls sched_yield(). A yielding thread hands the
 * processor to another one, so the holder runs and releases: no false
 * hang, and every execution ends.
 *
 * Usage:    ./spin_retry_yield [THREADS]
 * Expected: no bug; the search completes.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_int lock;
static int counter;
static long retries[4];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long tries = 0;
    int expected = 0;
    while (!atomic_compare_exchange_strong(&lock, &expected, 1)) {
        expected = 0;
        tries++;
        sched_yield();
    }
    counter++;
    atomic_store(&lock, 0);
    retries[id] = tries;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    if (threads < 1 || threads > 4)
        return 2;
    pthread_t t[4];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads);
    return 0;
}
