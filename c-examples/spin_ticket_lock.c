/*
 * spin_ticket_lock.c - a ticket lock: take a ticket with fetch-and-add,
 * spin until `now_serving` shows it, pass the lock on by incrementing it.
 *
 * THREADS threads (default 3) each enter a critical section ROUNDS times
 * (default 2). The spin reads `now_serving` and does nothing until the
 * holder moves it on. The behaviours are the orders in which tickets are
 * drawn: with 3 threads of 2 rounds, 90.
 *
 * Usage:    ./spin_ticket_lock [THREADS [ROUNDS]]
 * Expected: no bug; 90 behaviours with 3 threads of 2 rounds.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_uint next_ticket;
static atomic_uint now_serving;
static int counter;
static int rounds = 2;

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        unsigned mine = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
        while (atomic_load_explicit(&now_serving, memory_order_acquire) != mine)
            ;
        counter++;
        atomic_store_explicit(&now_serving, mine + 1, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 3;
    rounds = argc > 2 ? atoi(argv[2]) : 2;
    if (threads < 1 || threads > 8 || rounds < 1)
        return 2;
    pthread_t t[8];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads * rounds);
    return 0;
}
