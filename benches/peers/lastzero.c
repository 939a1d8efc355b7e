/* lastzero(N): one thread scans an array from its end for the last zero
 * while N threads each set one cell to one more than the cell before it.
 * main returns without joining.  Build with -DN=5 (default), 10 or 15.
 * Behaviours: the orders of the scanner's reads with the writers' reads and
 * writes.  No bug. */
#include <pthread.h>
#include <stdint.h>

#ifndef N
#define N 5
#endif

static int cells[N + 1];

static void *scanner(void *arg)
{
    (void)arg;
    int i = N;
    while (i > 0 && cells[i] != 0)
        i--;
    return NULL;
}

static void *setter(void *arg)
{
    intptr_t j = (intptr_t)arg;
    cells[j] = cells[j - 1] + 1;
    return NULL;
}

int main(void)
{
    pthread_t t[N + 1];
    pthread_create(&t[0], NULL, scanner, NULL);
    for (intptr_t j = 1; j <= N; j++)
        pthread_create(&t[j], NULL, setter, (void *)j);
    return 0;
}
