/*
 * oracle_commute_race.c - a data race that an order of two commuting
 * additions would hide.
 *
 * One thread reads `data` and then adds to `done`; the other adds to
 * `done` and then writes `data`.  Neither looks at what fetch_add returns,
 * so nothing orders the read before the write: when the reader's addition
 * comes first the two accesses race.  With --commute-rmws the additions
 * commute and only one of their orders runs; the race detector does not
 * let additions of one run synchronise with each other, so the race is
 * reported whichever order ran.
 *
 * Usage:    ./oracle_commute_race
 * Expected: data race on `data`, with and without --commute-rmws.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int done;
static int data;
static int seen;

static void *reader(void *arg)
{
    (void)arg;
    seen = data;
    atomic_fetch_add(&done, 1);
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    atomic_fetch_add(&done, 1);
    data = 1;
    return NULL;
}

int main(void)
{
    pthread_t r, w;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(r, NULL);
    pthread_join(w, NULL);
    printf("seen %d\n", seen);
    return 0;
}
