/*
 * racy_counter.c - the smallest lost-update bug.
 *
 * Two threads each increment an unprotected global counter once; main joins
 * them and asserts counter == 2.  "counter++" is a load followed by a store,
 * so if both threads load 0 before either stores, one update is lost.
 *
 * Usage:    ./racy_counter [THREADS]      THREADS defaults to 2 (max 16)
 * Expected: BUG - data race on `counter`, and an assertion failure
 *           (counter == 1) in the interleavings where both loads come first.
 *           Natively it almost always passes.
 * Traces:   with 2 threads, 4 Mazurkiewicz traces of (load, store) x 2
 *           (reads commuting), 2 of which fail the assertion.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16

static int counter;

static void *worker(void *arg)
{
    (void)arg;
    counter++; /* unprotected read-modify-write */
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
