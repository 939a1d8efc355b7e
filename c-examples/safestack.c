/*
 * safestack.c - a lock-free stack of array slots in the shape of the
 * classic "safe stack" test.
 *
 * Slots are linked by index through `link`; `count` says how many slots
 * are on the stack. Pop gives up when at most one slot is left (the
 * caller retries after sched_yield()); otherwise it takes the head's link
 * by exchanging it with -1 (a slot being unlinked) and swings the head
 * with a compare-and-swap; when the swap fails it exchanges the link
 * back, yields and tries again. Push links the slot to the head and
 * swings the head with a compare-and-swap. THREADS threads (default 3)
 * each pop a slot, write their id into it, check it and push it back,
 * ROUNDS times (default 2).
 *
 * A slot whose link a pop has exchanged for -1 cannot be unlinked by any
 * other pop until the link is back, so under sequential consistency no
 * slot is ever owned twice. Three threads make a search too large to
 * finish in a minute; two threads finish in seconds.
 *
 * Usage:    ./safestack [THREADS [ROUNDS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define SLOTS 3

static atomic_int head;
static atomic_int count;
static atomic_int link_of[SLOTS];
static int value[SLOTS];
static int rounds = 2;

static int pop(void)
{
    while (atomic_load(&count) > 1) {
        int top = atomic_load(&head);
        int after = atomic_exchange(&link_of[top], -1);
        if (after >= 0) {
            int seen = top;
            if (atomic_compare_exchange_strong(&head, &seen, after)) {
                atomic_fetch_sub(&count, 1);
                return top;
            }
            atomic_exchange(&link_of[top], after);
        }
        sched_yield();
    }
    return -1;
}

static void push(int slot)
{
    int top = atomic_load(&head);
    do {
        atomic_store(&link_of[slot], top);
    } while (!atomic_compare_exchange_strong(&head, &top, slot));
    atomic_fetch_add(&count, 1);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg + 1;
    for (int r = 0; r < rounds; r++) {
        int slot;
        while ((slot = pop()) < 0)
            sched_yield();
        value[slot] = id;
        assert(value[slot] == id);
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
        atomic_store(&link_of[i], i + 1 < SLOTS ? i + 1 : -1);
    atomic_store(&head, 0);
    atomic_store(&count, SLOTS);
    pthread_t t[8];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return 0;
}
