/*
 * prim_barrier.c - pthread_barrier_t with three threads.
 *
 * Each thread writes its own slot, waits at the barrier, and then reads all
 * slots: after the barrier every write is visible.  Exactly one thread gets
 * PTHREAD_BARRIER_SERIAL_THREAD.
 *
 * Usage:    ./prim_barrier
 * Expected: no bug, no data race.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

#define N 3

static pthread_barrier_t barrier;
static int slot[N];
static int serial[N];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    slot[id] = id + 1;
    int rc = pthread_barrier_wait(&barrier);
    assert(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    serial[id] = rc == PTHREAD_BARRIER_SERIAL_THREAD;
    for (int k = 0; k < N; k++)
        assert(slot[k] == k + 1);
    return NULL;
}

int main(void)
{
    pthread_barrier_init(&barrier, NULL, N);
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    assert(serial[0] + serial[1] + serial[2] == 1);
    pthread_barrier_destroy(&barrier);
    return 0;
}
