/*
 * spin_seqlock.c - a sequence lock: one writer updates a pair of values
 * UPDATES times (default 2), READERS readers (default 2) each take one
 * consistent snapshot, retrying while the sequence number is odd or
 * changed under them.
 *
 * A retry after a torn read does nothing: the reader awaits the writer's
 * next sequence update. The behaviours are which version each reader
 * returns: with 2 updates and 2 readers, 3 * 3 = 9.
 *
 * Usage:    ./spin_seqlock [UPDATES [READERS]]
 * Expected: no bug (every snapshot is consistent); 9 behaviours by default.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_uint seq;
static atomic_int a, b;
static int updates = 2;

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= updates; i++) {
        unsigned s = atomic_load_explicit(&seq, memory_order_relaxed);
        atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
        atomic_store_explicit(&a, i, memory_order_relaxed);
        atomic_store_explicit(&b, i, memory_order_relaxed);
        atomic_store_explicit(&seq, s + 2, memory_order_release);
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    unsigned s1, s2;
    int x, y;
    do {
        s1 = atomic_load_explicit(&seq, memory_order_acquire);
        x = atomic_load_explicit(&a, memory_order_relaxed);
        y = atomic_load_explicit(&b, memory_order_relaxed);
        s2 = atomic_load_explicit(&seq, memory_order_acquire);
    } while ((s1 & 1) || s1 != s2);
    assert(x == y);
    return NULL;
}

int main(int argc, char **argv)
{
    updates = argc > 1 ? atoi(argv[1]) : 2;
    int readers = argc > 2 ? atoi(argv[2]) : 2;
    if (updates < 1 || readers < 1 || readers > 7)
        return 2;
    pthread_t w, r[7];
    pthread_create(&w, NULL, writer, NULL);
    for (int i = 0; i < readers; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    pthread_join(w, NULL);
    for (int i = 0; i < readers; i++)
        pthread_join(r[i], NULL);
    return 0;
}
