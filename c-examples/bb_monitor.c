/*
 * bb_monitor.c - bounded buffer as a monitor (BB-MonitorSC of Lei & Carver,
 * "A New Algorithm for Reachability Testing of Concurrent Programs",
 * Table 1).
 *
 * The monitor is one mutex plus two condition variables, with POSIX's
 * signal-and-continue semantics: a signalled thread must re-acquire the
 * mutex and compete with threads entering for the first time, so every wait
 * is in a while loop that re-checks its condition.
 *
 *   deposit(v):  enter; while (full) wait(not_full);  store v; signal(not_empty); exit
 *   withdraw():  enter; while (empty) wait(not_empty); take v;  signal(not_full);  exit
 *
 * Each producer deposits ITEMS items (default 1).  The P*ITEMS items are
 * split as evenly as possible among the consumers, so with the default
 * 3P + 3C each consumer withdraws exactly 1 item.  main checks that every
 * item arrived exactly once.
 *
 * Usage:    ./bb_monitor [P [C [S [ITEMS]]]]
 *           defaults: 3 producers, 3 consumers, 2 slots, 1 item per producer
 *           (limits: P, C <= 8, S <= 16, ITEMS <= 99)
 * Expected: no bug, no deadlock.
 * Published figures: RichTest (Java), 3P + 3C + 2S: BB-MonitorSC 12096
 *   SYN-sequences (BB-MonitorSU, signal-and-urgent-wait: 720).
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PC 8
#define MAX_SLOTS 16

static int nslots, nproducers, nconsumers, items_per_producer;

/* the monitor */
static pthread_mutex_t mon = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int buf[MAX_SLOTS];
static int in, out, count;

static long consumed_sum[MAX_PC];
static int consumed_count[MAX_PC];

static void deposit(int v)
{
    pthread_mutex_lock(&mon);
    while (count == nslots)
        pthread_cond_wait(&not_full, &mon);
    buf[in] = v;
    in = (in + 1) % nslots;
    count++;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&mon);
}

static int withdraw(void)
{
    pthread_mutex_lock(&mon);
    while (count == 0)
        pthread_cond_wait(&not_empty, &mon);
    int v = buf[out];
    out = (out + 1) % nslots;
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&mon);
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
    assert(n == nproducers * items_per_producer && got == expected && count == 0);
    printf("bb_monitor: %d items moved\n", n);
    return 0;
}
