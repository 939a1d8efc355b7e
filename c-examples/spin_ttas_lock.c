/*
 * spin_ttas_lock.c - a test-and-test-and-set spin lock.
 *
 * THREADS threads (default 3) each enter a critical section ROUNDS times
 * (default 2). A waiter spins on a plain atomic load until the lock looks
 * free, then tries an exchange; a failed exchange (the lock was taken in
 * between) sends it back to the loads. Both loops can do nothing: the
 * inner one when the lock is held, the outer one when its exchange fails.
 *
 * Usage:    ./spin_ttas_lock [THREADS [ROUNDS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

static atomic_bool lock;
static int counter;
static int rounds = 2;

static void acquire(void)
{
    for (;;) {
        while (atomic_load_explicit(&lock, memory_order_relaxed))
            ;
        if (!atomic_exchange_explicit(&lock, true, memory_order_acquire))
            return;
    }
}

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        acquire();
        counter++;
        atomic_store_explicit(&lock, false, memory_order_release);
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
