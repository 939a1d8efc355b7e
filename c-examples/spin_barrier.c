/*
 * spin_barrier.c - a sense-reversing spin barrier.
 *
 * THREADS threads (default 3) pass PHASES barriers (default 2). The last
 * to arrive resets the count and flips the global sense; the others spin
 * until the sense matches their own. Between barriers each thread writes
 * its slot and reads its neighbour's, which the barrier orders.
 *
 * Usage:    ./spin_barrier [THREADS [PHASES]]
 * Expected: no bug (no data race: the barrier orders the slots' accesses).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_int count;
static atomic_bool sense;
static int threads = 3;
static int phases = 2;
static int slot[8];

static void barrier(bool *local_sense)
{
    *local_sense = !*local_sense;
    if (atomic_fetch_sub_explicit(&count, 1, memory_order_acq_rel) == 1) {
        atomic_store_explicit(&count, threads, memory_order_relaxed);
        atomic_store_explicit(&sense, *local_sense, memory_order_release);
    } else {
        while (atomic_load_explicit(&sense, memory_order_acquire) != *local_sense)
            ;
    }
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    bool local_sense = false;
    for (int p = 0; p < phases; p++) {
        slot[id] = p;
        barrier(&local_sense);
        assert(slot[(id + 1) % threads] == p);
        barrier(&local_sense);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    threads = argc > 1 ? atoi(argv[1]) : 3;
    phases = argc > 2 ? atoi(argv[2]) : 2;
    if (threads < 1 || threads > 8 || phases < 1)
        return 2;
    atomic_store(&count, threads);
    pthread_t t[8];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return 0;
}
