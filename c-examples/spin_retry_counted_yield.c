/*
 * spin_retry_counted_yield.c - a lock whose retry loop counts each failed
 * attempt in a per-thread statistic in global memory and sleeps for zero
 * time (the shape of CHESS's work-stealing queue tests, whose retry loop
 * updates the thread's own bookkeeping and calls Sleep(0)).
 *
 * Each of THREADS threads (default 2) takes the lock ROUNDS times (default
 * 1) with an exchange. Every failed attempt stores to memory (its count in
 * `attempts[id]`), so it is progress, not an iteration where nothing
 * happens: the loop is an ordinary one. The sleep hands the processor to
 * another thread, so the holder runs and releases: no false hang.
 *
 * Usage:    ./spin_retry_counted_yield [THREADS [ROUNDS]]
 * Expected: no bug; the search completes.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int lock;
static int counter;
static int rounds = 1;
static long attempts[4];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int r = 0; r < rounds; r++) {
        while (atomic_exchange(&lock, 1)) {
            attempts[id]++;
            usleep(0);
        }
        counter++;
        atomic_store(&lock, 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    rounds = argc > 2 ? atoi(argv[2]) : 1;
    if (threads < 1 || threads > 4 || rounds < 1)
        return 2;
    pthread_t t[4];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads * rounds);
    return 0;
}
