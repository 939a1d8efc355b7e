/*
 * parallel_pi.c - the Parallel Pi benchmark of Saarikivi, Kahkonen and
 * Heljanko, "Improving Dynamic Partial Order Reductions for Concolic
 * Testing" (Section V).
 *
 * pi = integral of 4/(1+x^2) over [0,1], by the midpoint rule with
 * INTERVALS rectangles.  Thread t sums the rectangles t, t+N, t+2N, ...
 * into a local variable, then adds its partial sum to the shared total
 * inside a mutex.  The only interleaving choice is the order of the N
 * critical sections; main checks the total is close to pi (the tolerance
 * absorbs the rounding differences between summation orders).
 *
 * Usage:    ./parallel_pi [N [INTERVALS]]   N threads, default 3 (1..64);
 *                                           INTERVALS default 1000
 * Expected: no bug.  N! Mazurkiewicz traces (3 -> 6, 5 -> 120).
 * Published figures (LCT, Fig. 8), test executions
 *   (DPOR / DPOR-CR / DPOR-CR + sleep sets / jCUTE):
 *   Parallel Pi(3): >10000 / 3217.8 / 19.2 / 6;
 *   Parallel Pi(5): >10000 / >10000 / 1220.6 / 120.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64
#define PI 3.14159265358979323846

static int nthreads;
static int intervals;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static double pi_sum;

static void *pi_thread(void *arg)
{
    int tid = (int)(intptr_t)arg;
    int n = nthreads;       /* read the parameters once ... */
    int steps = intervals;
    double width = 1.0 / steps;
    double local = 0.0;     /* ... and compute in thread-local variables */

    for (int i = tid; i < steps; i += n) {
        double x = (i + 0.5) * width;
        local += 4.0 / (1.0 + x * x);
    }

    pthread_mutex_lock(&sum_lock);
    pi_sum += local * width;
    pthread_mutex_unlock(&sum_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 3;
    intervals = argc > 2 ? atoi(argv[2]) : 1000;
    if (nthreads < 1 || nthreads > MAX_THREADS || intervals < 1) {
        fprintf(stderr, "usage: %s [N 1..%d [INTERVALS >= 1]]\n", argv[0], MAX_THREADS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, pi_thread, (void *)(intptr_t)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);

    double err = pi_sum - PI;
    if (err < 0)
        err = -err;
    /* midpoint-rule error is about 1/(12*INTERVALS^2); allow much more */
    assert(err < 1.0 / intervals);
    printf("pi ~= %.12f (%d threads, %d intervals)\n", pi_sum, nthreads, intervals);
    return 0;
}
