/*
 * unf_single_lock.c - THREADS threads, each entering ROUNDS critical
 * sections under one mutex and touching a different pair of shared
 * variables in each (the "Single lock" program of unfolding-based
 * testing): every interleaving of the lock operations is a different
 * behaviour, so every strategy runs the same number of executions.
 *
 * Build:    reach-cc -DTHREADS=3 -DROUNDS=2 -o unf_single_lock unf_single_lock.c
 * Expected: no bug; (THREADS*ROUNDS)! / (ROUNDS!)^THREADS executions
 *           (3 threads, 2 rounds: 90).
 */
#include <assert.h>
#include <pthread.h>

#ifndef THREADS
#define THREADS 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int shared[THREADS + 1];
static int total;

static void *work(void *arg) {
    long id = (long)arg;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&lock);
        shared[id] += 1;
        shared[(id + 1) % (THREADS + 1)] += shared[id];
        total += 1;
        assert(total <= THREADS * ROUNDS);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_detach(t[i]);
    pthread_exit(NULL);
}
