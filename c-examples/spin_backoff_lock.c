/*
 * spin_backoff_lock.c - an exchange spin lock that backs off between tries,
 * its back-off in the locking function's frame and counted by a function it
 * calls (the shape of crossbeam's `Backoff` in an unoptimised build).
 *
 * THREADS threads (default 3) each enter a critical section ROUNDS times
 * (default 2). A failed exchange writes the 1 already there; `snooze`
 * spins 2^step times and then yields, and counts `step` up to a limit in
 * the caller's frame. The step only decides how the loop waits, never what
 * follows it, so a failed try is no behaviour whatever the step: the
 * behaviours are the orders of the critical sections, 6! / (2! 2! 2!) = 90
 * with 3 threads of 2 rounds, as for spin_xchg_lock.c, at -O0 as at -O1.
 *
 * Usage:    ./spin_backoff_lock [THREADS [ROUNDS]]
 * Expected: no bug; 90 behaviours with 3 threads of 2 rounds.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SPIN_LIMIT 3
#define YIELD_LIMIT 6

struct backoff {
    unsigned step;
};

static atomic_int lock;
static int counter;
static int rounds = 2;

/* Waits a little longer each time, up to a limit. */
__attribute__((noinline)) static void snooze(struct backoff *b)
{
    if (b->step <= SPIN_LIMIT) {
        for (unsigned i = 0; i < (1u << b->step); i++)
            __builtin_ia32_pause();
    } else {
        sched_yield();
    }
    if (b->step <= YIELD_LIMIT)
        b->step++;
}

static void acquire(void)
{
    struct backoff b = { 0 };
    while (atomic_exchange_explicit(&lock, 1, memory_order_acquire))
        snooze(&b);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        acquire();
        counter++;
        atomic_store_explicit(&lock, 0, memory_order_release);
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
