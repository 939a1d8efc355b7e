/*
 * mm_spsc_ring.c - a single-producer single-consumer ring of one slot:
 * the producer writes a slot, then advances `head`; the consumer reads
 * `head`, then the slot, then advances `tail`.  Each side tries twice and
 * gives up when the ring is full or empty; the second push reuses the
 * slot.  Push i writes i + 1 (the slot is a relaxed atomic so the model
 * sees it).
 *
 * With ORDER relaxed the indices are stored and loaded `relaxed`: the
 * consumer may see `head` advanced and still read the slot's old value
 * under RC11.  With ORDER release (release stores, acquire loads of the
 * other side's index) the index carries the slot.
 *
 * Usage:    ./mm_spsc_ring [relaxed|release]   (default relaxed)
 * Expected: relaxed: assertion failure under --memory-model rc11;
 *           release: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define SLOTS 1u

static atomic_int slot[SLOTS];
static atomic_uint head, tail;
static memory_order publish = memory_order_relaxed, observe = memory_order_relaxed;

static void *producer(void *arg)
{
    (void)arg;
    for (int tries = 0; tries < 2; tries++) {
        unsigned h = atomic_load_explicit(&head, memory_order_relaxed);
        if (h - atomic_load_explicit(&tail, observe) == SLOTS)
            continue;
        atomic_store_explicit(&slot[h % SLOTS], (int)h + 1, memory_order_relaxed);
        atomic_store_explicit(&head, h + 1, publish);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int tries = 0; tries < 2; tries++) {
        unsigned t = atomic_load_explicit(&tail, memory_order_relaxed);
        if (atomic_load_explicit(&head, observe) == t)
            continue;
        assert(atomic_load_explicit(&slot[t % SLOTS], memory_order_relaxed) == (int)t + 1);
        atomic_store_explicit(&tail, t + 1, publish);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "relaxed") != 0 &&
                     strcmp(argv[1], "release") != 0)) {
        fprintf(stderr, "usage: mm_spsc_ring [relaxed|release]\n");
        return 2;
    }
    if (argc == 2 && strcmp(argv[1], "release") == 0) {
        publish = memory_order_release;
        observe = memory_order_acquire;
    }
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    return 0;
}
