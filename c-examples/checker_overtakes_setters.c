/*
 * checker_overtakes_setters.c - a checker racing with many setters.
 *
 * SETTERS threads (16 by default, or argv[1], at most 200) and one checker
 * wait at a start gate (a condition variable) that the main thread opens. Each setter raises its own flag; the
 * checker scans every flag and asserts that some setter had started. The
 * assertion fails only if the checker overtakes every setter: it must
 * scan all SETTERS flags before any of them is raised.
 *
 * Depth 1 (one ordering constraint: the checker before all setters): PCT
 * with --depth 1 hits it whenever the checker gets the highest priority
 * of the SETTERS + 1 workers. A random walk must pick the checker SETTERS
 * times in a row; a depth-first search starts with the checker last (it
 * has the highest thread id) and must reverse each of the SETTERS
 * load/store races: 2^SETTERS orders of the scan against the flags.
 *
 * Usage:    ./checker_overtakes_setters [SETTERS]
 * Expected: BUG - assertion failure (checker saw no flag raised).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_SETTERS 200

static int setters = 16;
static atomic_int flag[MAX_SETTERS];
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

static void *setter(void *arg)
{
    int id = (int)(long)arg;
    wait_for_gate();
    atomic_store(&flag[id], 1);
    return NULL;
}

static void *checker(void *arg)
{
    (void)arg;
    wait_for_gate();
    int raised = 0;
    for (int i = 0; i < setters; i++)
        raised += atomic_load(&flag[i]);
    assert(raised > 0 && "the checker ran before every setter");
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        setters = atoi(argv[1]);
    if (setters < 1 || setters > MAX_SETTERS) {
        fprintf(stderr, "usage: %s [SETTERS 1..%d]\n", argv[0], MAX_SETTERS);
        return 2;
    }
    pthread_t t[MAX_SETTERS + 1];
    for (int i = 0; i < setters; i++)
        pthread_create(&t[i], NULL, setter, (void *)(long)i);
    pthread_create(&t[setters], NULL, checker, NULL);
    pthread_mutex_lock(&gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
    for (int i = 0; i <= setters; i++)
        pthread_join(t[i], NULL);
    return 0;
}
