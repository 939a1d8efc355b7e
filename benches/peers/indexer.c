/* indexer(N): N threads each insert four keys (m * 11 + thread id, m = 1..4)
 * into a shared open-addressing hash table of 128 atomic slots with
 * compare-and-swap, probing linearly past occupied slots.  main joins them.
 * Build with -DN=12, 13 (default), 14 or 15.  Behaviours: the orders of the
 * compare-and-swaps on slots that two keys hash to. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef N
#define N 13
#endif
#define SLOTS 128
#define KEYS 4

static atomic_int table[SLOTS];

static void *insert_keys(void *arg)
{
    int tid = (int)(intptr_t)arg;
    for (int w = 0; w < KEYS; w++) {
        int key = (w + 1) * 11 + tid;
        int h = (key * 7) % SLOTS;
        for (;;) {
            int empty = 0;
            if (atomic_compare_exchange_strong(&table[h], &empty, key))
                break;
            h = (h + 1) % SLOTS;
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (intptr_t k = 0; k < N; k++)
        pthread_create(&t[k], NULL, insert_keys, (void *)k);
    for (int k = 0; k < N; k++)
        pthread_join(t[k], NULL);
    return 0;
}
