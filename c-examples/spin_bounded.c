/*
 * spin_bounded.c - spin a while, then yield: the waiting shape of std's
 * futex mutex, parking_lot and most back-offs.
 *
 * THREADS threads (default 3) each enter a critical section ROUNDS times
 * (default 2). A waiter that fails its compare-and-swap re-reads the lock
 * at most SPINS times (a retry count only the loop uses), pausing, then
 * yields and tries again. The bounded spin differs from one iteration to
 * the next only in its count: its first iteration is a behaviour, the rest
 * run without scheduling points until it ends.
 *
 * Usage:    ./spin_bounded [THREADS [ROUNDS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SPINS 100

static atomic_int lock;
static int counter;
static int rounds = 2;

static void acquire(void)
{
    for (;;) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&lock, &expected, 1))
            return;
        for (int i = 0; i < SPINS && atomic_load_explicit(&lock, memory_order_relaxed); i++)
            _mm_pause();
        sched_yield();
    }
}

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        acquire();
        counter++;
        atomic_store(&lock, 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 3;
    rounds = argc > 2 ? atoi(argv[2]) : 2;
    if (threads < 1 || threads > 8 || rounds < 1)
        return 2;
    pthread_t t[8];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads * rounds);
    return 0;
}
