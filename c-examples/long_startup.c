/*
 * long_startup.c - a correct program with a long single execution.
 *
 * Real programs do a lot before and beside their concurrency: a start-up
 * that fills tables, parses configuration or builds caches. Here main
 * fills a table of N entries (N stores and N loads to globals) before it
 * starts two workers, and sums a second table while they run; each worker
 * increments a shared counter inside a critical section. With
 * --no-private-accesses every access of main's loops is a visible
 * operation, so one execution has about 4 N of them (about 320,000 with
 * the default N); by default the tables are memory only main touches, and
 * its accesses to them are none.
 *
 * Usage:    ./long_startup [N]     N defaults to 80000 (1..1000000)
 * Expected: no bug.  2 Mazurkiewicz traces (the two orders of the critical
 *           sections); main's tables are touched by main only.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_N 1000000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static unsigned table[MAX_N];
static unsigned scratch[MAX_N];

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 80000;
    if (n < 1 || n > MAX_N) {
        fprintf(stderr, "usage: %s [N 1..%d]\n", argv[0], MAX_N);
        return 2;
    }
    /* Start-up: fill the table (n stores), then check it (n loads). */
    for (long i = 0; i < n; i++)
        table[i] = (unsigned)(i * 2654435761u);
    unsigned check = 0;
    for (long i = 0; i < n; i++)
        check ^= table[i];

    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    /* While the workers run: n loads and n stores of main's own table. */
    for (long i = 0; i < n; i++)
        scratch[i] = table[i] ^ check;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(counter == 2);
    printf("counter = %d, check = %u, last = %u\n", counter, check, scratch[n - 1]);
    return 0;
}
