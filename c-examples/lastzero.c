/*
 * lastzero.c - the "lastzero" benchmark (Abdulla, Aronis, Jonsson and
 * Sagonas, "Optimal Dynamic Partial Order Reduction", POPL 2014).
 *
 * A shared array[0..N] of ints, all zero.  One reader thread scans from the
 * end for the last zero:  for (k = N; array[k] != 0; k--) ;
 * and N writer threads, writer j (1..N), each do  array[j] = array[j-1] + 1.
 * The reader always stops (array[0] is never written), so the program is
 * correct; it is a benchmark for the number of traces, which grows with the
 * many ways the scan can overtake the writers.
 *
 * Usage:    ./lastzero [N]     N default 5 (1..64)
 * Expected: no bug.  (The accesses are plain, so a race detector reports
 *           data races on array[]; the trace counts below are for exactly
 *           these plain reads and writes.)
 * Published figures: Mazurkiewicz traces (reads commuting, SC), as an
 *   optimal DPOR counts them: N = 5 -> 64; N = 10 -> 3,328.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_N 64

static int array[MAX_N + 1];
static int found = -1;

static void *reader(void *arg)
{
    int n = (int)(intptr_t)arg;
    int k;
    for (k = n; array[k] != 0; k--)
        ;
    assert(k >= 0 && k <= n);
    found = k;
    return NULL;
}

static void *writer(void *arg)
{
    int j = (int)(intptr_t)arg;
    array[j] = array[j - 1] + 1;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    if (n < 1 || n > MAX_N) {
        fprintf(stderr, "usage: %s [N 1..%d]\n", argv[0], MAX_N);
        return 2;
    }
    pthread_t r, w[MAX_N + 1];
    pthread_create(&r, NULL, reader, (void *)(intptr_t)n);
    for (int j = 1; j <= n; j++)
        pthread_create(&w[j], NULL, writer, (void *)(intptr_t)j);
    pthread_join(r, NULL);
    for (int j = 1; j <= n; j++)
        pthread_join(w[j], NULL);
    printf("last zero seen at index %d\n", found);
    return 0;
}
