/*
 * xchg_spinlock.c - a test-and-set spinlock built from atomic exchanges.
 *
 * THREADS threads each add to a plain counter under a user-level spinlock.
 * Even-numbered threads acquire it with
 * `while (atomic_exchange_explicit(&lock, 1, memory_order_acquire)) ;` and
 * release it with an atomic store; odd-numbered threads use the GCC
 * builtins `__sync_lock_test_and_set` / `__sync_lock_release`.  A thread
 * that finds the lock taken exchanges 1 for 1: it changes nothing and only
 * waits for the holder, which must be run for the loop to end.
 *
 * Usage:    ./xchg_spinlock [THREADS]   (default 2, 1..3)
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
    if (id % 2 == 0) {
        while (atomic_exchange_explicit(&lock, 1, memory_order_acquire))
            ; /* spin: the lock is taken */
    } else {
        while (__sync_lock_test_and_set((int *)&lock, 1))
            ; /* spin: the lock is taken */
    }
}

static void release(int id)
{
    if (id % 2 == 0)
        atomic_store_explicit(&lock, 0, memory_order_release);
    else
        __sync_lock_release((int *)&lock);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    acquire(id);
    counter += 1;
    release(id);
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
