/*
 * unf_pairs.c - N independent pairs of threads (the "Pairs" program of
 * unfolding-based testing, Fig. 3 / Fig. 12): pair i has a reader of x[i]
 * and a writer of x[i], and no pair touches another's variable.
 *
 * The accesses are atomic (the race is the point, not a bug). main creates
 * the threads, detaches them and ends with pthread_exit: it joins none (a
 * join would make main's steps depend on every pair's history).
 *
 * Build:    reach-cc -DN=4 -o unf_pairs unf_pairs.c     (N pairs, default 4)
 * Expected: no bug. Mazurkiewicz traces: 2^N (each pair: read first or
 *           write first); unfold covers every local state in 2 executions
 *           whatever N.
 */
#include <pthread.h>
#include <stdio.h>

#ifndef N
#define N 4
#endif

static int x[N];
static int seen[N];

static void *reader(void *arg) {
    long i = (long)arg;
    int v = __atomic_load_n(&x[i], __ATOMIC_SEQ_CST);
    __atomic_store_n(&seen[i], v + 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *writer(void *arg) {
    long i = (long)arg;
    __atomic_store_n(&x[i], 1, __ATOMIC_SEQ_CST);
    return NULL;
}

int main(void) {
    pthread_t t[2 * N];
    for (long i = 0; i < N; i++) {
        pthread_create(&t[2 * i], NULL, reader, (void *)i);
        pthread_create(&t[2 * i + 1], NULL, writer, (void *)i);
    }
    for (int i = 0; i < 2 * N; i++)
        pthread_detach(t[i]);
    pthread_exit(NULL);
}
