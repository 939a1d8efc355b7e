/*
 * exit_handler_race.c - an exit handler frees what a running thread uses.
 *
 * main starts a detached logger that keeps reading a shared buffer pointer,
 * registers an atexit handler that frees the buffer and clears the pointer,
 * and returns without waiting for the logger.  The handler runs while the
 * logger may still run: its store to the pointer races with the logger's
 * loads (and the logger may read freed memory).
 *
 * Usage:    ./exit_handler_race
 * Expected: data race (the handler's store against the logger's load).
 */
#include <pthread.h>
#include <stdlib.h>

static int *buffer;
static long total;

static void release_buffer(void)
{
    free(buffer);
    buffer = NULL;
}

static void *logger(void *arg)
{
    (void)arg;
    for (int k = 0; k < 2; k++) {
        int *b = buffer;
        if (b)
            total += b[k];
    }
    return NULL;
}

int main(void)
{
    buffer = calloc(4, sizeof *buffer);
    if (!buffer)
        return 1;
    atexit(release_buffer);
    pthread_t t;
    if (pthread_create(&t, NULL, logger, NULL) != 0)
        return 1;
    pthread_detach(t);
    return 0;
}
