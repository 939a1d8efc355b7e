/*
 * lockfree_stack_giveup.c - a lock-free stack of slot indices whose pop
 * gives up after a few tries.
 *
 * A fixed pool of SLOTS slots forms a stack linked by index. Pop reads the
 * head, unlinks the slot by exchanging its `next` with a "taken" mark (an
 * exchange that may write the mark already there), and swings the head with
 * a compare-and-swap; if the swap fails it puts the `next` back. A caller
 * tries TRIES times (default 2), with sched_yield() between tries, and
 * otherwise goes without a slot this round. Push links the slot and swings
 * the head with a compare-and-swap. THREADS threads (default 3) each take a
 * slot, claim it, release it and push it back, ROUNDS times (default 1). An
 * index taken by two threads at once would trip the assertion on the
 * slot's owner.
 *
 * A waiter that yields between tries is held back by the runtime until
 * what it read changes, or until nothing else can run: in another order
 * of the other threads the same retry is held back where it ran before,
 * and optimal DPOR once asked for it there (a false nondeterminism).
 *
 * Usage:    ./lockfree_stack_giveup [THREADS [ROUNDS [TRIES]]]
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define SLOTS 2
#define NONE (-1)
#define TAKEN (-2)

static atomic_int head;
static atomic_int next[SLOTS];
static atomic_int owner[SLOTS];
static int rounds = 1;
static int tries = 2;

static int try_pop(void)
{
    int top = atomic_load(&head);
    if (top == NONE)
        return NONE;
    int after = atomic_exchange(&next[top], TAKEN);
    if (after == TAKEN)
        return NONE; /* another thread is unlinking it */
    int slot = top;
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
        int slot = try_pop();
        for (int t = 1; slot == NONE && t < tries; t++) {
            sched_yield();
            slot = try_pop();
        }
        if (slot == NONE)
            continue; /* no slot this round */
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
    rounds = argc > 2 ? atoi(argv[2]) : 1;
    tries = argc > 3 ? atoi(argv[3]) : 2;
    if (threads < 1 || threads > 8 || rounds < 1 || tries < 1)
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
