/*
 * late_auditor.c - workers that announce a shared table in two steps, and
 * an auditor that looks between them.
 *
 * WORKERS threads (14 by default, or argv[1], at most 60) each fill their
 * own row of a results table, STEPS cells (8 by default, or argv[2], at
 * most 200): long runs of steps no other thread touches. Then each one
 * announces the table, marking it ready and then sealed (every worker
 * writes the same marks; the first to get there announces it). An
 * auditor, started after the workers, checks once that a ready table is
 * sealed. It is wrong only in the window between the first "ready" and
 * the first "sealed": one worker must be preempted between its two marks
 * and the auditor must run then, before any other worker seals.
 *
 * One preemption, found by PCT with --depth 2 in a few hundred
 * executions. A depth-first search starts with the auditor last (it has
 * the highest thread id) and first explores the orders of the workers'
 * marks against each other, WORKERS! of them, before it moves the
 * auditor's reads in front of all of them.
 *
 * Usage:    ./late_auditor [WORKERS [STEPS]]
 * Expected: BUG - assertion failure (table ready but not sealed).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_WORKERS 60
#define MAX_STEPS 200

static int workers = 14;
static int steps = 8;
static atomic_int table[MAX_WORKERS][MAX_STEPS];
static atomic_int ready;
static atomic_int sealed;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (int i = 0; i < steps; i++)
        atomic_store_explicit(&table[id][i], id * steps + i, memory_order_relaxed);
    atomic_store(&ready, 1);
    atomic_store(&sealed, 1);
    return NULL;
}

static void *auditor(void *arg)
{
    (void)arg;
    int is_ready = atomic_load(&ready);
    int is_sealed = atomic_load(&sealed);
    assert((!is_ready || is_sealed) && "the table is ready but not sealed");
    return NULL;
}

static int parse(const char *text, int max)
{
    int value = atoi(text);
    return value >= 1 && value <= max ? value : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        workers = parse(argv[1], MAX_WORKERS);
    if (argc > 2)
        steps = parse(argv[2], MAX_STEPS);
    if (argc > 3 || workers == 0 || steps == 0) {
        fprintf(stderr, "usage: %s [WORKERS 1..%d [STEPS 1..%d]]\n", argv[0], MAX_WORKERS,
                MAX_STEPS);
        return 2;
    }
    pthread_t t[MAX_WORKERS + 1];
    for (int i = 0; i < workers; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    pthread_create(&t[workers], NULL, auditor, NULL);
    for (int i = 0; i <= workers; i++)
        pthread_join(t[i], NULL);
    return 0;
}
