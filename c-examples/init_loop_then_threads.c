/*
 * init_loop_then_threads.c - a long set-up loop before any thread starts.
 *
 * main allocates an array of LOCKS mutexes and initialises them in a loop
 * whose bound and array pointer are globals, re-read on every iteration
 * (nothing else in the loop is visible: pthread_mutex_init records no
 * event).  Only then does it start three workers: two add to a counter
 * under lock 0, the third to another counter under the last lock.  A
 * thread that is the only one alive makes progress however often it
 * re-reads the same locations: the set-up loop is not a spin loop.
 *
 * Usage:    ./init_loop_then_threads [LOCKS]   (default 2048, 2..8000)
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int nlocks = 2048;
static pthread_mutex_t *locks;
static int shared_count;
static int last_count;

static void *worker(void *arg)
{
    long id = (long)arg;
    pthread_mutex_t *m = id < 2 ? &locks[0] : &locks[nlocks - 1];
    int *count = id < 2 ? &shared_count : &last_count;
    pthread_mutex_lock(m);
    *count += 1;
    pthread_mutex_unlock(m);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        char *end;
        long n = strtol(argv[1], &end, 10);
        if (*end != '\0' || n < 2 || n > 8000) {
            fprintf(stderr, "usage: %s [LOCKS (2..8000)]\n", argv[0]);
            return 2;
        }
        nlocks = (int)n;
    }
    locks = malloc(sizeof *locks * (size_t)nlocks);
    if (locks == NULL)
        return 1;
    for (int i = 0; i < nlocks; i++)
        pthread_mutex_init(&locks[i], NULL);

    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    assert(shared_count == 2 && last_count == 1);

    for (int i = 0; i < nlocks; i++)
        pthread_mutex_destroy(&locks[i]);
    free(locks);
    return 0;
}
