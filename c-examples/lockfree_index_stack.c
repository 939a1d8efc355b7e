/*
 * lockfree_index_stack.c - a lock-free stack of slot indices.
 *
 * A fixed pool of slots forms a stack linked by index. Pop reads the head,
 * unlinks the slot by exchanging its `next` with a "taken" mark, and
 * swings the head with a compare-and-swap; if the swap fails it puts the
 * `next` back and the caller retries after sched_yield(). Push links the
 * slot and swings the head with a compare-and-swap. THREADS threads
 * (default 3) each pop a slot, write its value, and push it back, ROUNDS
 * times (default 2). An index taken by two threads at once would trip
 * the assertion on the slot's owner.
 *
 * Usage:    ./lockfree_index_stack [THREADS [ROUNDS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef SLOTS
#define SLOTS 4
#endif
#define NONE (-1)
#define TAKEN (-2)

static atomic_int head;
static atomic_int next[SLOTS];
static atomic_int owner[SLOTS];
static int rounds = 2;

static int try_pop(void)
{
    int top = atomic_load(&head);
    if (top == NONE)
        return NONE;
    int after = atomic_exchange(&next[top], TAKEN);
    if (after == TAKEN)
        return NONE; /* another thread is unlinking it */
    int slot = top; /* a failed swap overwrites `top` with the head it saw */
    if (atomic_compare_exchange_strong(&head, &top, after))
        return slot;
    atomic_store(&next[slot], after); /* lost the race: put it back */
    return NONE;
}

static void push(int slot)
{
    int top = atomic_load(&head);
    do {
        atomic_store(&next[slot], top);
    } while (!atomic_compare_exchange_strong(&head, &top, slot));
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg + 1;
    for (int r = 0; r < rounds; r++) {
        int slot;
        while ((slot = try_pop()) == NONE)
            sched_yield();
        int expected = 0;
        assert(atomic_compare_exchange_strong(&owner[slot], &expected, id));
        atomic_store(&owner[slot], 0);
        push(slot);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 3;
    rounds = argc > 2 ? atoi(argv[2]) : 2;
    if (threads < 1 || threads > 8 || rounds < 1)
        return 2;
    for (int i = 0; i < SLOTS; i++)
        atomic_store(&next[i], i + 1 < SLOTS ? i + 1 : NONE);
    atomic_store(&head, 0);
    pthread_t t[8];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return 0;
}
