/* casrot(N): N threads each try once to move a shared atomic value from
 * their own index to the next one with compare-and-swap; only a chain of
 * threads in index order succeeds.  main returns without joining.  Build
 * with -DN=5, 7 (default) or 9.  Behaviours: the orders of the successful
 * compare-and-swaps with the failed ones that read between them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef N
#define N 7
#endif

static atomic_int value;

static void *rotate(void *arg)
{
    int k = (int)(intptr_t)arg;
    int expected = k;
    atomic_compare_exchange_strong(&value, &expected, k + 1);
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (intptr_t k = 0; k < N; k++)
        pthread_create(&t[k], NULL, rotate, (void *)k);
    return 0;
}
