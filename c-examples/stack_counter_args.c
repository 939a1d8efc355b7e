/*
 * stack_counter_args.c - a lost update on a counter in main's stack frame,
 * armed by the arguments.
 *
 * Main keeps the counter in a local variable and hands its address to
 * THREADS threads that each increment it without a lock; the second
 * argument must be the words "two words" (one argument with a space) or no
 * thread touches the counter.  The racing accesses name a stack address,
 * so a replay must start main at the same stack address as the recording
 * and pass the same arguments: the test of replaying from another shell,
 * another directory and an environment of another size.
 *
 * Usage:    ./stack_counter_args THREADS MODE   (THREADS 1..8; MODE "two words")
 * Expected: BUG - data race on `T0 stack (main: counter)` with the
 *           arguments `2 "two words"`; no bug with any other MODE.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int armed;

static void *worker(void *arg)
{
    int *counter = arg;
    if (armed)
        *counter += 1; /* unprotected read-modify-write of main's local */
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (argc != 3 || n < 1 || n > 8) {
        fprintf(stderr, "usage: %s THREADS(1..8) MODE\n", argv[0]);
        return 2;
    }
    armed = strcmp(argv[2], "two words") == 0;
    int counter = 0;
    pthread_t t[8];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, &counter);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    printf("counter = %d\n", counter);
    return 0;
}
