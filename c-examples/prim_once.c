/*
 * prim_once.c - pthread_once from two threads.
 *
 * Both threads call pthread_once on the same control; the initialiser runs
 * exactly once, and both callers see its effect when pthread_once returns
 * (the one that did not run it waits for it to finish).
 *
 * Usage:    ./prim_once
 * Expected: no bug, no data race.
 */
#include <assert.h>
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_calls;
static int table[4];

static void init(void)
{
    init_calls++;
    for (int k = 0; k < 4; k++)
        table[k] = k * k;
}

static void *user(void *arg)
{
    (void)arg;
    pthread_once(&once, init);
    assert(table[3] == 9);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, user, NULL);
    pthread_create(&t2, NULL, user, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(init_calls == 1);
    return 0;
}
