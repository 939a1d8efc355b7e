/*
 * indexer.c - the Indexer benchmark of Flanagan & Godefroid, "Dynamic
 * Partial-Order Reduction for Model Checking Software" (POPL 2005).
 *
 * N threads insert messages into a shared hash table of 128 slots.  Thread
 * `tid` inserts 4 messages, the m-th being  w = m*11 + tid  (m = 1..4),
 * at slot  h = (w*7) % 128,  using compare-and-swap insertion: CAS the slot
 * from 0 (empty) to w, and on failure probe the next slot (linear probing).
 *
 * Since 7 is invertible mod 128, two messages hash to the same slot only if
 * they are equal.  With N <= 11 all messages are distinct (m*11 + tid is a
 * base-11 numeral), so no two threads ever touch the same slot.  From N = 12
 * on, thread 11+k's messages 2..4 equal thread k's messages 3..4 plus one
 * more, giving 3 colliding CAS pairs per extra thread.
 *
 * Usage:    ./indexer [N]       N threads, default 12 (1..32)
 * Expected: no bug.  main checks every message is in the table exactly once.
 * Published figures:
 *   Mazurkiewicz traces (reads commuting, SC), as an optimal DPOR counts
 *   them for the C version: N = 12/13/14/15 -> 8 / 64 / 512 / 4096
 *   (= 2^(3*(N-11))); N <= 11 -> 1.
 *   Saarikivi et al. (LCT, Fig. 8), test executions for Indexer(12):
 *   DPOR 8614.6, DPOR-CR 154, DPOR-CR + sleep sets 27, jCUTE 8;
 *   Indexer(13): DPOR-CR + sleep sets 722.4, jCUTE 343.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 128      /* hash table slots */
#define MAX 4         /* messages per thread */
#define MAX_THREADS 32 /* 32 * 4 = 128 messages fill the table exactly */

static atomic_int table[SIZE]; /* 0 = empty slot */

static int getmsg(int tid, int m) { return m * 11 + tid; }
static int hash(int w) { return (w * 7) % SIZE; }

static void *indexer_thread(void *arg)
{
    int tid = (int)(intptr_t)arg;
    for (int m = 1; m <= MAX; m++) {
        int w = getmsg(tid, m);
        int h = hash(w);
        int expected = 0;
        while (!atomic_compare_exchange_strong(&table[h], &expected, w)) {
            expected = 0;          /* slot taken: probe the next one */
            h = (h + 1) % SIZE;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 12;
    if (n < 1 || n > MAX_THREADS) {
        fprintf(stderr, "usage: %s [N 1..%d]\n", argv[0], MAX_THREADS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, indexer_thread, (void *)(intptr_t)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);

    /* Every message must be stored exactly once (duplicate values are
     * legitimate: equal messages from different threads each get a slot). */
    int used = 0;
    for (int s = 0; s < SIZE; s++)
        if (atomic_load_explicit(&table[s], memory_order_relaxed) != 0)
            used++;
    assert(used == n * MAX);
    printf("indexer: %d threads, %d messages stored\n", n, used);
    return 0;
}
