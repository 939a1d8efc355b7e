/*
 * ainc.c - N threads each add 1 to one atomic counter, not looking at the
 * value fetch_add returns; main joins them and checks the total.
 *
 * Build:    reach-cc -O1 -g -DN=4 ainc.c -o ainc    (N threads, default 4)
 * Usage:    ./ainc
 * Expected: no bug.  With --commute-rmws 1 Mazurkiewicz trace (the
 *           increments commute); without it N! (every order of the
 *           read-modify-writes).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 4
#endif

static atomic_int counter;

static void *add_one(void *arg)
{
    (void)arg;
    atomic_fetch_add(&counter, 1);
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, add_one, NULL);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    assert(atomic_load(&counter) == N);
    return 0;
}
