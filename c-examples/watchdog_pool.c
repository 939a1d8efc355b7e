/*
 * watchdog_pool.c - a pool of 100 workers in two stages and an eager
 * watchdog.
 *
 * WORKERS threads (100 by default, or argv[1], at most 250) each run two
 * stages: stage one marks the worker started and adds its share to a
 * total under a mutex; stage two marks it done. A watchdog, started with
 * the pool, scans the started marks once and declares the pool stuck
 * (abort) if no worker has started. The watchdog is wrong to decide after
 * one scan: the abort happens only if it overtakes all WORKERS workers,
 * every one of them still before its first mark.
 *
 * Depth 1: PCT with --depth 1 finds it when the watchdog has the highest
 * priority of the WORKERS + 1 threads after the start gate (probability
 * about 1/(WORKERS + 1) per execution). Random walks and depth-first
 * searches almost never do (2^WORKERS orders of the scan against the
 * marks).
 *
 * Usage:    ./watchdog_pool [WORKERS]
 * Expected: BUG - assertion failure (abort: "pool stuck").
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_WORKERS 250

static int workers = 100;
static atomic_int started[MAX_WORKERS];
static atomic_int done[MAX_WORKERS];
static long total;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void wait_for_gate(void)
{
    pthread_mutex_lock(&gate_lock);
    while (!gate_open)
        pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    wait_for_gate();
    /* stage one */
    atomic_store(&started[id], 1);
    pthread_mutex_lock(&total_lock);
    total += id;
    pthread_mutex_unlock(&total_lock);
    /* stage two */
    atomic_store(&done[id], 1);
    return NULL;
}

static void *watchdog(void *arg)
{
    (void)arg;
    wait_for_gate();
    int any = 0;
    for (int i = 0; i < workers; i++)
        any |= atomic_load(&started[i]);
    if (!any) {
        fprintf(stderr, "watchdog: pool stuck, no worker started\n");
        abort();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        workers = atoi(argv[1]);
    if (workers < 1 || workers > MAX_WORKERS) {
        fprintf(stderr, "usage: %s [WORKERS 1..%d]\n", argv[0], MAX_WORKERS);
        return 2;
    }
    pthread_t t[MAX_WORKERS + 1];
    for (int i = 0; i < workers; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    pthread_create(&t[workers], NULL, watchdog, NULL);
    pthread_mutex_lock(&gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
    for (int i = 0; i <= workers; i++)
        pthread_join(t[i], NULL);
    long expected = (long)workers * (workers - 1) / 2;
    return total == expected ? 0 : 1;
}
