/* Per-thread char slots in one array: each of 4 threads counts in its own
 * slot, reading and writing it, and main sums the slots after joining
 * them all.
 * Neighbouring slots share granules but never a byte: no data race.
 *
 * Expected: no bug; the search completes.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define THREADS 4

static char slots[THREADS];

static void *worker(void *arg) {
    intptr_t i = (intptr_t)arg;
    for (int k = 0; k < 2; k++)
        slots[i]++;
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    int sum = 0;
    for (int i = 0; i < THREADS; i++)
        sum += slots[i];
    printf("%d\n", sum);
    return sum == 2 * THREADS ? 0 : 1;
}
