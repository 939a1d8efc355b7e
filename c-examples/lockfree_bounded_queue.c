/*
 * lockfree_bounded_queue.c - a lock-free bounded queue of cells with
 * sequence numbers.
 *
 * Each cell has a sequence number: a cell is free for the enqueuer whose
 * position equals it, and full for the dequeuer whose position is one
 * more. An enqueuer reads the tail position and its cell's sequence; if
 * the cell is free it claims the position with a compare-and-swap on the
 * tail, writes the value and publishes the cell with the next sequence. A
 * dequeuer does the same on the head. A failed compare-and-swap (another
 * thread claimed the position) and a full or empty queue are followed by
 * sched_yield() and a retry. PRODUCERS producers (default 2) each enqueue
 * ITEMS values (default 1) into a queue of CAPACITY cells (default 2), and
 * as many consumers dequeue them; the sum must be right.
 *
 * Usage:    ./lockfree_bounded_queue [PRODUCERS [ITEMS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef CAPACITY
#define CAPACITY 2
#endif

struct cell {
    atomic_uint sequence;
    int value;
};

static struct cell cells[CAPACITY];
static atomic_uint enqueue_at;
static atomic_uint dequeue_at;
static atomic_int total;
static int items = 1;

static bool try_enqueue(int value)
{
    unsigned at = atomic_load(&enqueue_at);
    struct cell *c = &cells[at % CAPACITY];
    unsigned sequence = atomic_load(&c->sequence);
    if (sequence != at)
        return false; /* full, or another enqueuer is ahead */
    if (!atomic_compare_exchange_strong(&enqueue_at, &at, at + 1))
        return false;
    c->value = value;
    atomic_store(&c->sequence, at + 1);
    return true;
}

static bool try_dequeue(int *value)
{
    unsigned at = atomic_load(&dequeue_at);
    struct cell *c = &cells[at % CAPACITY];
    unsigned sequence = atomic_load(&c->sequence);
    if (sequence != at + 1)
        return false; /* empty, or another dequeuer is ahead */
    if (!atomic_compare_exchange_strong(&dequeue_at, &at, at + 1))
        return false;
    *value = c->value;
    atomic_store(&c->sequence, at + CAPACITY);
    return true;
}

static void *producer(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < items; i++)
        while (!try_enqueue(id * 10 + i + 1))
            sched_yield();
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < items; i++) {
        int value;
        while (!try_dequeue(&value))
            sched_yield();
        atomic_fetch_add(&total, value);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int producers = argc > 1 ? atoi(argv[1]) : 2;
    items = argc > 2 ? atoi(argv[2]) : 1;
    if (producers < 1 || producers > 4 || items < 1)
        return 2;
    for (unsigned i = 0; i < CAPACITY; i++)
        atomic_store(&cells[i].sequence, i);
    pthread_t t[8];
    for (int i = 0; i < producers; i++) {
        pthread_create(&t[2 * i], NULL, producer, (void *)(intptr_t)i);
        pthread_create(&t[2 * i + 1], NULL, consumer, NULL);
    }
    int expected = 0;
    for (int i = 0; i < producers; i++)
        for (int k = 0; k < items; k++)
            expected += i * 10 + k + 1;
    for (int i = 0; i < 2 * producers; i++)
        pthread_join(t[i], NULL);
    assert(atomic_load(&total) == expected);
    return 0;
}
