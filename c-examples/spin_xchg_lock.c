/*
 * spin_xchg_lock.c - an exchange spin lock: while (xchg(&lock, 1)) ;
 *
 * THREADS threads (default 3) each enter a critical section ROUNDS times
 * (default 2) under a lock taken by atomic exchange and released by an
 * atomic store. A failed exchange writes the 1 that is already there: the
 * iteration does nothing, and the thread awaits the holder's release.
 * The behaviours are the orders of the critical sections: with 3 threads
 * of 2 rounds, 6! / (2! 2! 2!) = 90.
 *
 * Usage:    ./spin_xchg_lock [THREADS [ROUNDS]]
 * Expected: no bug; 90 behaviours with 3 threads of 2 rounds.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int lock;
static int counter;
static int rounds = 2;

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        while (atomic_exchange_explicit(&lock, 1, memory_order_acquire))
            ;
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
