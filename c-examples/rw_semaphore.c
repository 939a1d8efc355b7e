/*
 * rw_semaphore.c - readers/writers with semaphores (RW-Semaphore of Lei &
 * Carver, "A New Algorithm for Reachability Testing of Concurrent
 * Programs", Table 1).
 *
 * The classic readers-preference solution: `wrt` (initially 1) gives
 * exclusive access to a writer or to the group of readers; `mutex`
 * (initially 1) protects the reader count.  The first reader in takes `wrt`
 * for the group, the last reader out releases it.
 *
 *   reader:  P(mutex); if (++readcount == 1) P(wrt); V(mutex);
 *            read the data;
 *            P(mutex); if (--readcount == 0) V(wrt); V(mutex);
 *   writer:  P(wrt); write the data; V(wrt);
 *
 * The data is a pair (a, b) that writers always set to equal values; a
 * reader asserts it never sees a half-written pair.  Each reader reads
 * ACCESSES times and each writer writes ACCESSES times (default 1).
 *
 * Usage:    ./rw_semaphore [R [W [ACCESSES]]]
 *           defaults: 2 readers, 2 writers, 1 access each (limits: R, W <= 8)
 * Expected: no bug, no deadlock.
 * Published figures: RichTest (Java): 2R + 2W: 608 SYN-sequences;
 *   2R + 3W: 12816; 3R + 2W: 21744.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RW 8

static int accesses;
static sem_t mutex, wrt;
static int readcount;
static int data_a, data_b;

static void *reader(void *arg)
{
    (void)arg;
    int n = accesses;
    for (int k = 0; k < n; k++) {
        sem_wait(&mutex);
        if (++readcount == 1)
            sem_wait(&wrt);
        sem_post(&mutex);

        int a = data_a, b = data_b; /* read */
        assert(a == b);

        sem_wait(&mutex);
        if (--readcount == 0)
            sem_post(&wrt);
        sem_post(&mutex);
    }
    return NULL;
}

static void *writer(void *arg)
{
    int id = (int)(intptr_t)arg;
    int n = accesses;
    for (int k = 0; k < n; k++) {
        sem_wait(&wrt);
        data_a = id * 100 + k + 1; /* write */
        data_b = id * 100 + k + 1;
        sem_post(&wrt);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nr = argc > 1 ? atoi(argv[1]) : 2;
    int nw = argc > 2 ? atoi(argv[2]) : 2;
    accesses = argc > 3 ? atoi(argv[3]) : 1;
    if (nr < 0 || nr > MAX_RW || nw < 0 || nw > MAX_RW || accesses < 0 || accesses > 99) {
        fprintf(stderr, "usage: %s [R 0..%d [W 0..%d [ACCESSES 0..99]]]\n", argv[0], MAX_RW, MAX_RW);
        return 2;
    }
    sem_init(&mutex, 0, 1);
    sem_init(&wrt, 0, 1);
    pthread_t r[MAX_RW], w[MAX_RW];
    for (int i = 0; i < nr; i++)
        pthread_create(&r[i], NULL, reader, (void *)(intptr_t)i);
    for (int i = 0; i < nw; i++)
        pthread_create(&w[i], NULL, writer, (void *)(intptr_t)i);
    for (int i = 0; i < nr; i++)
        pthread_join(r[i], NULL);
    for (int i = 0; i < nw; i++)
        pthread_join(w[i], NULL);
    assert(readcount == 0 && data_a == data_b);
    sem_destroy(&mutex);
    sem_destroy(&wrt);
    printf("rw_semaphore: %d readers, %d writers done\n", nr, nw);
    return 0;
}
