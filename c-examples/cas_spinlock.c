/*
 * cas_spinlock.c - a spinlock built from compare-and-exchange.
 *
 * THREADS threads each add to a plain counter under a user-level spinlock.
 * Even-numbered threads retry a weak CAS 0 -> 1,
 * `while (!atomic_compare_exchange_weak(&lock, &zero, 1)) zero = 0;`;
 * odd-numbered threads use test-and-test-and-set: they wait with plain
 * atomic loads until the lock looks free, then try a strong CAS.  A failed
 * CAS changes nothing: the thread only waits for the holder, which must be
 * run for the loop to end.
 *
 * Usage:    ./cas_spinlock [THREADS]   (default 2, 1..3)
 * Expected: no bug, no data race; must terminate under systematic testing.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int lock;
static int counter;
static int threads = 2;

static void acquire(int id)
{
    int zero = 0;
    if (id % 2 == 0) {
        while (!atomic_compare_exchange_weak(&lock, &zero, 1))
            zero = 0; /* the failed CAS stored the value it saw */
        return;
    }
    for (;;) {
        while (atomic_load_explicit(&lock, memory_order_relaxed) != 0)
            ; /* spin until the lock looks free */
        zero = 0;
        if (atomic_compare_exchange_strong_explicit(&lock, &zero, 1,
                                                    memory_order_acquire,
                                                    memory_order_relaxed))
            return;
    }
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    acquire(id);
    counter += 1;
    atomic_store_explicit(&lock, 0, memory_order_release);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        char *end;
        long n = strtol(argv[1], &end, 10);
        if (*end != '\0' || n < 1 || n > 3) {
            fprintf(stderr, "usage: %s [THREADS (1..3)]\n", argv[0]);
            return 2;
        }
        threads = (int)n;
    }
    pthread_t t[3];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads);
    return 0;
}
