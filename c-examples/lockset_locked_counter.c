/*
 * lockset_locked_counter.c - a correctly locked program whose shared data
 * is initialised before the threads start.
 *
 * Main fills in a configuration and a counter without any lock, then
 * starts WORKERS workers and one reader.  Each worker reads the
 * configuration under the read lock of a reader-writer lock and adds to
 * the counter under a mutex; the reader reads the counter under the mutex.
 * Main reads the result with the mutex held after joining.
 *
 * Initialisation by one thread before any sharing is not a race (Eraser's
 * exclusive state), and every later access holds the lock that protects
 * its location: neither detector reports anything.
 *
 * Usage:    ./lockset_locked_counter [WORKERS]   (default 2, 1..4)
 * Expected: no bug with --race-detector hb, lockset or both.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t config_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct {
    int step;
    int limit;
} config;             /* written by main before the threads, read under config_lock */
static long counter;  /* protected by m */
static long observed; /* protected by m */

static void *worker(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&config_lock);
    int step = config.step;
    int limit = config.limit;
    pthread_rwlock_unlock(&config_lock);
    pthread_mutex_lock(&m);
    if (counter + step <= limit)
        counter += step;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    observed = counter;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    int workers = argc > 1 ? atoi(argv[1]) : 2;
    if (workers < 1 || workers > 4) {
        fprintf(stderr, "usage: %s [WORKERS 1..4]\n", argv[0]);
        return 2;
    }
    config.step = 2;
    config.limit = 100;
    counter = 0;
    observed = -1;
    pthread_t t[5];
    for (int i = 0; i < workers; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    pthread_create(&t[workers], NULL, reader, NULL);
    for (int i = 0; i <= workers; i++)
        pthread_join(t[i], NULL);
    pthread_mutex_lock(&m);
    long total = counter;
    pthread_mutex_unlock(&m);
    printf("counter = %ld\n", total);
    return total == 2L * workers ? 0 : 1;
}
