/*
 * private_worker_state.c - workers that compute on state of their own on the
 * heap and publish one result under a lock.
 *
 * Each of THREADS workers allocates its own array of SAMPLES numbers, fills
 * it (rand_r with a seed of its own), sorts it with qsort, scans it up to
 * its median and adds the median to a shared total under a mutex; main
 * checks the total after joining them. Every access to a worker's array
 * (the comparator's loads, the fill's stores, the scan's loads) is to
 * memory only that worker has touched: none is a scheduling point, so an
 * execution is a few dozen steps instead of tens of thousands
 * (--no-private-accesses).
 *
 * Usage:    ./private_worker_state [THREADS [SAMPLES]]
 * Expected: no bug; THREADS! executions (the orders of the lock sections).
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int samples = 200;

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The median of `samples` numbers drawn with `seed`. */
static int median(unsigned seed)
{
    int *values = malloc((size_t)samples * sizeof *values);
    assert(values);
    for (int i = 0; i < samples; i++)
        values[i] = rand_r(&seed) % 1000;
    qsort(values, (size_t)samples, sizeof *values, by_value);
    int m = values[samples / 2];
    /* A read-only scan (a loop whose iterations may write nothing). */
    int below = 0;
    while (below < samples && values[below] < m)
        below++;
    assert(below <= samples / 2);
    free(values);
    return m;
}

static void *worker(void *arg)
{
    int m = median((unsigned)(uintptr_t)arg);
    pthread_mutex_lock(&lock);
    total += m;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    samples = argc > 2 ? atoi(argv[2]) : 200;
    if (threads < 1 || threads > 8 || samples < 1)
        return 2;
    long expected = 0;
    for (int i = 0; i < threads; i++)
        expected += median((unsigned)i + 1);
    pthread_t t[8];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(total == expected);
    return 0;
}
