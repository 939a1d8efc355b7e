/*
 * ck_ring.c - Concurrency Kit's bounded ring buffer (ck_ring.h) as a
 * program uses it: a producer enqueues 1, 2, 3 into a ring of four slots
 * (three usable), retrying while it is full; a consumer dequeues three
 * values, retrying while it is empty, and checks that they come in order.
 *
 *   spsc  one producer, ck_ring_enqueue_spsc / ck_ring_dequeue_spsc
 *   mpsc  two producers both calling ck_ring_enqueue_spsc (the
 *         single-producer enqueue used by two threads): they can claim the
 *         same slot, so a value is overwritten or read half-written
 *
 * Usage:    ./ck_ring [spsc|mpsc]
 * Expected: spsc: no bug; mpsc: a data race on a slot (or the tail).
 */
#include <assert.h>
#include <ck_pr.h>
#include <ck_ring.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define SLOTS 4

static ck_ring_t ring;
static ck_ring_buffer_t buffer[SLOTS];
static int producers = 1;

static void *producer(void *arg)
{
    uintptr_t first = (uintptr_t)arg;
    uintptr_t count = producers == 1 ? 3 : 1;
    for (uintptr_t v = first; v < first + count; v++) {
        while (!ck_ring_enqueue_spsc(&ring, buffer, (void *)v))
            ck_pr_stall();
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    uintptr_t last = 0, sum = 0;
    for (int n = 0; n < (producers == 1 ? 3 : 2); n++) {
        void *v;
        while (!ck_ring_dequeue_spsc(&ring, buffer, &v))
            ck_pr_stall();
        if (producers == 1)
            assert((uintptr_t)v == last + 1);
        last = (uintptr_t)v;
        sum += last;
    }
    assert(producers == 1 || sum == 3);
    return NULL;
}

int main(int argc, char **argv)
{
    producers = argc > 1 && !strcmp(argv[1], "mpsc") ? 2 : 1;
    ck_ring_init(&ring, SLOTS);
    pthread_t p[2], c;
    pthread_create(&c, NULL, consumer, NULL);
    for (int i = 0; i < producers; i++)
        pthread_create(&p[i], NULL, producer, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < producers; i++)
        pthread_join(p[i], NULL);
    pthread_join(c, NULL);
    return 0;
}
