/*
 * private_worker_state.c - workers that compute on state of their own on the
 * heap and publish one result under a lock.
 *
 * Each of THREADS workers allocates its own table, fills and mixes it
 * (ROUNDS passes of plain loads and stores that no other thread touches),
 * then adds its checksum to a shared total under a mutex. Main checks the
 * total after joining them. Every access to a worker's table is to memory
 * only that worker has touched: none of them is a scheduling point, so an
 * execution is a handful of steps (the lock, the total, the joins) instead
 * of thousands (compare `--every-access`).
 *
 * Usage:    ./private_worker_state [THREADS [ROUNDS]]
 * Expected: no bug; THREADS! executions (the orders of the lock sections).
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define CELLS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned total;
static int rounds = 4;

static unsigned mix(unsigned seed)
{
    unsigned *table = malloc(CELLS * sizeof *table);
    assert(table);
    for (int i = 0; i < CELLS; i++)
        table[i] = seed * 2654435761u + (unsigned)i;
    for (int r = 0; r < rounds; r++)
        for (int i = 1; i < CELLS; i++)
            table[i] ^= table[i - 1] >> 3;
    unsigned sum = 0;
    for (int i = 0; i < CELLS; i++)
        sum += table[i];
    free(table);
    return sum;
}

static void *worker(void *arg)
{
    unsigned sum = mix((unsigned)(uintptr_t)arg);
    pthread_mutex_lock(&lock);
    total += sum;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    rounds = argc > 2 ? atoi(argv[2]) : 4;
    if (threads < 1 || threads > 8 || rounds < 0)
        return 2;
    pthread_t t[8];
    unsigned expected = 0;
    for (int i = 0; i < threads; i++)
        expected += mix((unsigned)i + 1);
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(total == expected);
    return 0;
}
