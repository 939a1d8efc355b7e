/*
 * branch_free.c - threads whose branches do not depend on the
 * interleaving.
 *
 * Each worker walks its own slice of a table written by main before the
 * threads start, branching on the values it reads, and adds what it found
 * to two shared totals: `checked` under the lock, `odd` without it.  No
 * branch condition reads anything another thread writes while the
 * workers run, so every interleaving takes the same paths and shows the
 * same lockset race (the unprotected `odd`); one execution covers it.
 *
 * Usage:    ./branch_free
 * Expected: BUG - data race on `odd` (unprotected update by both workers).
 */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 2
#define SLICE 4

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int table[WORKERS * SLICE];
static int checked;
static int odd;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    int mine = 0;
    for (int i = id * SLICE; i < (id + 1) * SLICE; i++) {
        if (table[i] % 2)
            mine++;
    }
    pthread_mutex_lock(&m);
    checked += SLICE;
    pthread_mutex_unlock(&m);
    if (mine > 0)
        odd += mine; /* BUG: no lock */
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS * SLICE; i++)
        table[i] = i * 3 + 1;
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("checked %d, odd %d\n", checked, odd);
    return 0;
}
