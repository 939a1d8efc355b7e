/*
 * mutex_counter.c - racy_counter.c fixed with a mutex.
 *
 * Each thread increments a shared counter once inside a critical section;
 * main joins the threads and asserts that no update was lost.
 *
 * Usage:    ./mutex_counter [THREADS]     THREADS defaults to 2 (max 16)
 * Expected: no bug.  With 2 threads there are 2 Mazurkiewicz traces (the two
 *           orders of the critical sections); with n threads, n!.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

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
    int n = argc > 1 ? atoi(argv[1]) : 2;
    if (n < 1 || n > MAX_THREADS) {
        fprintf(stderr, "usage: %s [THREADS 1..%d]\n", argv[0], MAX_THREADS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    assert(counter == n);
    printf("counter = %d\n", counter);
    return 0;
}
