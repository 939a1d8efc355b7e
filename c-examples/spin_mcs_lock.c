/*
 * spin_mcs_lock.c - an MCS queue lock (Mellor-Crummey and Scott): each
 * acquisition enqueues its node with an exchange on the tail and spins on
 * its own node's flag; the release hands the lock to the successor, or
 * empties the queue with a compare-and-swap, waiting for a successor that
 * has swapped the tail but not yet linked itself.
 *
 * THREADS threads (default 2) each enter a critical section ROUNDS times
 * (default 1). Both waits do nothing until another thread writes what
 * they read; the behaviours are the orders of the critical sections times
 * the ways a release races with the next enqueue.
 *
 * Usage:    ./spin_mcs_lock [THREADS [ROUNDS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct node {
    struct node *_Atomic next;
    atomic_int locked;
};

static struct node *_Atomic tail;
static struct node nodes[4];
static int counter;
static int rounds = 1;

static void lock(struct node *me)
{
    atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
    atomic_store_explicit(&me->locked, 1, memory_order_relaxed);
    struct node *prev = atomic_exchange(&tail, me);
    if (prev) {
        atomic_store(&prev->next, me);
        while (atomic_load(&me->locked))
            ;
    }
}

static void unlock(struct node *me)
{
    struct node *next = atomic_load(&me->next);
    if (!next) {
        struct node *expected = me;
        if (atomic_compare_exchange_strong(&tail, &expected, NULL))
            return;
        while (!(next = atomic_load(&me->next)))
            ;
    }
    atomic_store(&next->locked, 0);
}

static void *worker(void *arg)
{
    struct node *me = &nodes[(intptr_t)arg];
    for (int r = 0; r < rounds; r++) {
        lock(me);
        counter++;
        unlock(me);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    rounds = argc > 2 ? atoi(argv[2]) : 1;
    if (threads < 1 || threads > 4 || rounds < 1)
        return 2;
    pthread_t t[4];
    for (intptr_t i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads * rounds);
    return 0;
}
