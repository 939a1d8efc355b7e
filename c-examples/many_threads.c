/*
 * many_threads.c - 200 threads, one mutex-protected increment each.
 *
 * A stress test for the thread table and thread handoff, not for
 * exploration: the number of interleavings is astronomical (N! orders of the
 * critical sections), so run it with an execution limit.
 *
 * Usage:    ./many_threads [N]    N default 200 (1..1000)
 * Expected: no bug; counter == N.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 1000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static pthread_t threads[MAX_THREADS];

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n < 1 || n > MAX_THREADS) {
        fprintf(stderr, "usage: %s [N 1..%d]\n", argv[0], MAX_THREADS);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        int rc = pthread_create(&threads[i], NULL, worker, NULL);
        assert(rc == 0);
    }
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    assert(counter == n);
    printf("counter = %d\n", counter);
    return 0;
}
