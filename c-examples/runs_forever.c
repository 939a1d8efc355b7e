/*
 * runs_forever.c - a thread that never stops and never synchronises.
 *
 * The spinner loops forever incrementing a local variable: no shared
 * access, no pthread call, so it never reaches a scheduling point.  main
 * waits for it in pthread_join.  Only a wall-clock bound can end this
 * execution (a step bound cannot: no steps are taken).
 *
 * Usage:    ./runs_forever
 * Expected: BUG - hang (wall-clock limit exceeded) in the first execution.
 *           Natively it runs forever: run it under `timeout`.
 */
#include <pthread.h>

static void *spinner(void *arg)
{
    (void)arg;
    volatile unsigned long counter = 0; /* volatile: the loop stays a real loop */
    for (;;)
        counter++;
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    pthread_join(t, NULL);
    return 0;
}
