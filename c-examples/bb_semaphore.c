/*
 * bb_semaphore.c - bounded buffer with POSIX semaphores (BB-Semaphore of
 * Lei & Carver, "A New Algorithm for Reachability Testing of Concurrent
 * Programs", Table 1).
 *
 * The textbook semaphore solution: counting semaphores `empty_slots`
 * (initially S) and `full_slots` (initially 0) count free and filled slots;
 * two binary semaphores serialise depositors (`mutex_d`) and withdrawers
 * (`mutex_w`) separately, so a deposit and a withdrawal can overlap.
 *
 *   deposit(v):  P(empty_slots); P(mutex_d); buf[in] = v; in = (in+1) % S;
 *                V(mutex_d); V(full_slots);
 *   withdraw():  P(full_slots); P(mutex_w); v = buf[out]; out = (out+1) % S;
 *                V(mutex_w); V(empty_slots);
 *
 * Each producer deposits ITEMS items (default 1).  The P*ITEMS items are
 * split as evenly as possible among the consumers, so with the default
 * 3P + 3C each consumer withdraws exactly 1 item.  main checks that every
 * item arrived exactly once.
 *
 * Usage:    ./bb_semaphore [P [C [S [ITEMS]]]]
 *           defaults: 3 producers, 3 consumers, 2 slots, 1 item per producer
 *           (limits: P, C <= 8, S <= 16, ITEMS <= 99)
 * Expected: no bug, no deadlock.
 * Published figure: RichTest (Java), 3P + 3C + 2S: 324 SYN-sequences.
 *   (Those count semaphore operations only; this C version also has the
 *   buffer's memory accesses, ordered by the semaphores.)
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PC 8
#define MAX_SLOTS 16

static int nslots, nproducers, nconsumers, items_per_producer;
static sem_t empty_slots, full_slots, mutex_d, mutex_w;
static int buf[MAX_SLOTS];
static int in, out;
static long consumed_sum[MAX_PC];
static int consumed_count[MAX_PC];

static void deposit(int v)
{
    sem_wait(&empty_slots);
    sem_wait(&mutex_d);
    buf[in] = v;
    in = (in + 1) % nslots;
    sem_post(&mutex_d);
    sem_post(&full_slots);
}

static int withdraw(void)
{
    sem_wait(&full_slots);
    sem_wait(&mutex_w);
    int v = buf[out];
    out = (out + 1) % nslots;
    sem_post(&mutex_w);
    sem_post(&empty_slots);
    return v;
}

static void *producer(void *arg)
{
    int id = (int)(intptr_t)arg;
    int items = items_per_producer;
    for (int k = 0; k < items; k++)
        deposit(id * 100 + k + 1);
    return NULL;
}

static void *consumer(void *arg)
{
    int id = (int)(intptr_t)arg;
    int total = nproducers * items_per_producer;
    int mine = total / nconsumers + (id < total % nconsumers ? 1 : 0);
    long sum = 0;
    for (int k = 0; k < mine; k++)
        sum += withdraw();
    consumed_sum[id] = sum;
    consumed_count[id] = mine;
    return NULL;
}

int main(int argc, char **argv)
{
    nproducers = argc > 1 ? atoi(argv[1]) : 3;
    nconsumers = argc > 2 ? atoi(argv[2]) : 3;
    nslots = argc > 3 ? atoi(argv[3]) : 2;
    items_per_producer = argc > 4 ? atoi(argv[4]) : 1;
    if (nproducers < 1 || nproducers > MAX_PC || nconsumers < 1 || nconsumers > MAX_PC ||
        nslots < 1 || nslots > MAX_SLOTS || items_per_producer < 0 || items_per_producer > 99) {
        fprintf(stderr, "usage: %s [P 1..%d [C 1..%d [S 1..%d [ITEMS 0..99]]]]\n",
                argv[0], MAX_PC, MAX_PC, MAX_SLOTS);
        return 2;
    }
    sem_init(&empty_slots, 0, (unsigned)nslots);
    sem_init(&full_slots, 0, 0);
    sem_init(&mutex_d, 0, 1);
    sem_init(&mutex_w, 0, 1);

    pthread_t p[MAX_PC], c[MAX_PC];
    for (int i = 0; i < nproducers; i++)
        pthread_create(&p[i], NULL, producer, (void *)(intptr_t)i);
    for (int i = 0; i < nconsumers; i++)
        pthread_create(&c[i], NULL, consumer, (void *)(intptr_t)i);
    for (int i = 0; i < nproducers; i++)
        pthread_join(p[i], NULL);
    for (int i = 0; i < nconsumers; i++)
        pthread_join(c[i], NULL);

    long expected = 0, got = 0;
    int n = 0;
    for (int i = 0; i < nproducers; i++)
        for (int k = 0; k < items_per_producer; k++)
            expected += i * 100 + k + 1;
    for (int i = 0; i < nconsumers; i++) {
        got += consumed_sum[i];
        n += consumed_count[i];
    }
    assert(n == nproducers * items_per_producer && got == expected);
    sem_destroy(&empty_slots);
    sem_destroy(&full_slots);
    sem_destroy(&mutex_d);
    sem_destroy(&mutex_w);
    printf("bb_semaphore: %d items moved\n", n);
    return 0;
}
