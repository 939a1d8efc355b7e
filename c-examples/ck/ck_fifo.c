/*
 * ck_fifo.c - Concurrency Kit's single-producer single-consumer FIFO
 * (ck_fifo.h) as a program uses it: a producer enqueues two entries, a
 * consumer dequeues them, retrying while the FIFO is empty, and checks
 * their order.
 *
 *   spsc   one consumer
 *   spmc   two consumers both calling ck_fifo_spsc_dequeue (the
 *          single-consumer dequeue used by two threads): both can take the
 *          same entry
 *
 * Usage:    ./ck_fifo [spsc|spmc]
 * Expected: spsc: no bug; spmc: a data race on the head (or an entry taken
 *           twice).
 */
#include <assert.h>
#include <ck_fifo.h>
#include <ck_pr.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static ck_fifo_spsc_t fifo;
static ck_fifo_spsc_entry_t stub, entries[2];
static int consumers = 1;
static unsigned int taken[3];

static void *producer(void *arg)
{
    (void)arg;
    for (uintptr_t v = 1; v <= 2; v++)
        ck_fifo_spsc_enqueue(&fifo, &entries[v - 1], (void *)v);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    uintptr_t last = 0;
    for (int n = 0; n < (consumers == 1 ? 2 : 1); n++) {
        void *v;
        while (!ck_fifo_spsc_dequeue(&fifo, &v))
            ck_pr_stall();
        assert((uintptr_t)v > last);
        last = (uintptr_t)v;
        ck_pr_inc_uint(&taken[last]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    consumers = argc > 1 && !strcmp(argv[1], "spmc") ? 2 : 1;
    ck_fifo_spsc_init(&fifo, &stub);
    pthread_t p, c[2];
    for (int i = 0; i < consumers; i++)
        pthread_create(&c[i], NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_join(p, NULL);
    for (int i = 0; i < consumers; i++)
        pthread_join(c[i], NULL);
    assert(ck_pr_load_uint(&taken[1]) <= 1 && ck_pr_load_uint(&taken[2]) <= 1);
    return 0;
}
