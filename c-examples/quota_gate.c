/*
 * quota_gate.c - an admission check that is not atomic, in a pool of
 * workers with long runs of their own.
 *
 * WORKERS threads (12 by default, or argv[1], at most 60) each prepare
 * STEPS cells of their own row (10 by default, or argv[2], at most 200),
 * then ask to enter a section that admits one worker at a time: they
 * read the count of workers inside and, if it is zero, add themselves
 * (a load, then a separate fetch-and-add), work there STEPS steps on
 * their row again, and leave. Each worker asserts it is alone once
 * inside. A worker preempted between its check and its add lets another
 * one in; the assertion fails if that one is still inside (preempted in
 * its work) when the first adds itself: two preemptions.
 *
 * Usage:    ./quota_gate [WORKERS [STEPS]]
 * Expected: BUG - assertion failure (two workers inside).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_WORKERS 60
#define MAX_STEPS 200

static int workers = 12;
static int steps = 10;
static atomic_int cells[MAX_WORKERS][MAX_STEPS];
static atomic_int inside;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (int i = 0; i < steps; i++)
        atomic_store_explicit(&cells[id][i], i + 1, memory_order_relaxed);
    if (atomic_load(&inside) == 0) {
        int before = atomic_fetch_add(&inside, 1);
        assert(before == 0 && "two workers inside the section");
        for (int i = 0; i < steps; i++)
            atomic_fetch_add_explicit(&cells[id][i], 1, memory_order_relaxed);
        atomic_fetch_sub(&inside, 1);
    }
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
    pthread_t t[MAX_WORKERS];
    for (int i = 0; i < workers; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < workers; i++)
        pthread_join(t[i], NULL);
    return 0;
}
