/*
 * rw_monitor.c - readers/writers as a monitor (RW-MonitorSC of Lei &
 * Carver, "A New Algorithm for Reachability Testing of Concurrent
 * Programs", Table 1).
 *
 * One mutex and two condition variables, POSIX signal-and-continue
 * semantics, every wait in a while loop.  The monitor tracks the number of
 * active readers and whether a writer is active; readers share, writers
 * exclude everybody.
 *
 *   start_read:  while (writing) wait(ok_to_read); readers++;
 *   end_read:    if (--readers == 0) signal(ok_to_write);
 *   start_write: while (writing || readers > 0) wait(ok_to_write); writing = 1;
 *   end_write:   writing = 0; broadcast(ok_to_read); signal(ok_to_write);
 *
 * The data is a pair (a, b) that writers always set to equal values,
 * outside the monitor; a reader asserts it never sees a half-written pair.
 * Each reader reads ACCESSES times and each writer writes ACCESSES times
 * (default 1).
 *
 * Usage:    ./rw_monitor [R [W [ACCESSES]]]
 *           defaults: 3 readers, 2 writers (the paper's configuration),
 *           1 access each (limits: R, W <= 8).  2 1 is a quick configuration.
 * Expected: no bug, no deadlock.
 * Published figures: RichTest (Java), 3R + 2W: RW-MonitorSC 70020
 *   SYN-sequences (RW-MonitorSU: 13320).
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RW 8

static int accesses;

/* the monitor */
static pthread_mutex_t mon = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ok_to_read = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ok_to_write = PTHREAD_COND_INITIALIZER;
static int readers;
static int writing;

/* the protected data, accessed outside the monitor */
static int data_a, data_b;

static void start_read(void)
{
    pthread_mutex_lock(&mon);
    while (writing)
        pthread_cond_wait(&ok_to_read, &mon);
    readers++;
    pthread_mutex_unlock(&mon);
}

static void end_read(void)
{
    pthread_mutex_lock(&mon);
    if (--readers == 0)
        pthread_cond_signal(&ok_to_write);
    pthread_mutex_unlock(&mon);
}

static void start_write(void)
{
    pthread_mutex_lock(&mon);
    while (writing || readers > 0)
        pthread_cond_wait(&ok_to_write, &mon);
    writing = 1;
    pthread_mutex_unlock(&mon);
}

static void end_write(void)
{
    pthread_mutex_lock(&mon);
    writing = 0;
    pthread_cond_broadcast(&ok_to_read);
    pthread_cond_signal(&ok_to_write);
    pthread_mutex_unlock(&mon);
}

static void *reader(void *arg)
{
    (void)arg;
    int n = accesses;
    for (int k = 0; k < n; k++) {
        start_read();
        int a = data_a, b = data_b;
        assert(a == b);
        end_read();
    }
    return NULL;
}

static void *writer(void *arg)
{
    int id = (int)(intptr_t)arg;
    int n = accesses;
    for (int k = 0; k < n; k++) {
        start_write();
        data_a = id * 100 + k + 1;
        data_b = id * 100 + k + 1;
        end_write();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nr = argc > 1 ? atoi(argv[1]) : 3;
    int nw = argc > 2 ? atoi(argv[2]) : 2;
    accesses = argc > 3 ? atoi(argv[3]) : 1;
    if (nr < 0 || nr > MAX_RW || nw < 0 || nw > MAX_RW || accesses < 0 || accesses > 99) {
        fprintf(stderr, "usage: %s [R 0..%d [W 0..%d [ACCESSES 0..99]]]\n", argv[0], MAX_RW, MAX_RW);
        return 2;
    }
    pthread_t r[MAX_RW], w[MAX_RW];
    for (int i = 0; i < nr; i++)
        pthread_create(&r[i], NULL, reader, (void *)(intptr_t)i);
    for (int i = 0; i < nw; i++)
        pthread_create(&w[i], NULL, writer, (void *)(intptr_t)i);
    for (int i = 0; i < nr; i++)
        pthread_join(r[i], NULL);
    for (int i = 0; i < nw; i++)
        pthread_join(w[i], NULL);
    assert(readers == 0 && !writing && data_a == data_b);
    printf("rw_monitor: %d readers, %d writers done\n", nr, nw);
    return 0;
}
