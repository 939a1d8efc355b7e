/*
 * bounded_buffer.c - a mutex + condition-variable bounded buffer, the
 * "Bounded Buffer" container benchmark of Saarikivi, Kahkonen and Heljanko,
 * "Improving Dynamic Partial Order Reductions for Concolic Testing"
 * (Section V; the container there is a textbook monitor example).
 *
 * A circular buffer of CAPACITY slots guarded by one mutex, with two
 * condition variables: producers wait on `not_full`, consumers on
 * `not_empty`, always in while loops.  Each of P producers puts ITEMS items;
 * the P*ITEMS items are split as evenly as possible among the C consumers.
 * main checks that every item was consumed exactly once (by sum and count).
 * All shared state is only touched under the mutex.
 *
 * Usage:    ./bounded_buffer [P [C [CAPACITY [ITEMS]]]]
 *           defaults: P = 2 producers, C = 2 consumers, CAPACITY = 1,
 *           ITEMS = 1 item per producer (limits: P, C <= 8, CAPACITY <= 16)
 * Expected: no bug, no deadlock.
 * Published figures (LCT, Fig. 8), test executions for Bounded Buffer
 *   (DPOR / DPOR-CR / DPOR-CR + sleep sets / jCUTE): 64.4 / 67.2 / 16 / 8.
 *   (The paper's exact configuration is not given; counts here differ.)
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PC 8
#define MAX_CAP 16

static int capacity, items_per_producer, nproducers, nconsumers;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int buf[MAX_CAP];
static int head, tail, count;

static long consumed_sum[MAX_PC];
static int consumed_count[MAX_PC];

static void put(int v)
{
    pthread_mutex_lock(&m);
    while (count == capacity)
        pthread_cond_wait(&not_full, &m);
    buf[tail] = v;
    tail = (tail + 1) % capacity;
    count++;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&m);
}

static int take(void)
{
    pthread_mutex_lock(&m);
    while (count == 0)
        pthread_cond_wait(&not_empty, &m);
    int v = buf[head];
    head = (head + 1) % capacity;
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&m);
    return v;
}

static void *producer(void *arg)
{
    int id = (int)(intptr_t)arg;
    int items = items_per_producer;
    for (int k = 0; k < items; k++)
        put(id * 100 + k + 1);
    return NULL;
}

static void *consumer(void *arg)
{
    int id = (int)(intptr_t)arg;
    int total = nproducers * items_per_producer;
    int mine = total / nconsumers + (id < total % nconsumers ? 1 : 0);
    long sum = 0;
    for (int k = 0; k < mine; k++)
        sum += take();
    consumed_sum[id] = sum;
    consumed_count[id] = mine;
    return NULL;
}

int main(int argc, char **argv)
{
    nproducers = argc > 1 ? atoi(argv[1]) : 2;
    nconsumers = argc > 2 ? atoi(argv[2]) : 2;
    capacity = argc > 3 ? atoi(argv[3]) : 1;
    items_per_producer = argc > 4 ? atoi(argv[4]) : 1;
    if (nproducers < 1 || nproducers > MAX_PC || nconsumers < 1 || nconsumers > MAX_PC ||
        capacity < 1 || capacity > MAX_CAP || items_per_producer < 0 || items_per_producer > 99) {
        fprintf(stderr, "usage: %s [P 1..%d [C 1..%d [CAPACITY 1..%d [ITEMS 0..99]]]]\n",
                argv[0], MAX_PC, MAX_PC, MAX_CAP);
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
    assert(n == nproducers * items_per_producer);
    assert(got == expected);
    assert(count == 0);
    printf("bounded buffer: %d items moved\n", n);
    return 0;
}
