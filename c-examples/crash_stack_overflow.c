/*
 * crash_stack_overflow.c - unbounded recursion in a thread.
 *
 * A worker thread recurses without end (each frame holds a 1 KiB buffer),
 * until it runs off its stack into the guard page: SIGSEGV.  main is
 * blocked joining it.  A tester must catch the fault even though the
 * faulting thread has no stack left (signal handlers need an alternate
 * stack).
 *
 * Usage:    ./crash_stack_overflow
 * Expected: BUG - crash: SIGSEGV (stack overflow) in `recurse`, in every
 *           execution.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int stop_depth = -1; /* never reached: recursion is unbounded */

static int recurse(int depth)
{
    volatile char frame[1024];
    memset((char *)frame, depth & 0xff, sizeof frame);
    if (depth == stop_depth)
        return frame[0];
    return recurse(depth + 1) + frame[depth % sizeof frame];
}

static void *worker(void *arg)
{
    (void)arg;
    printf("%d\n", recurse(0));
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return 0;
}
