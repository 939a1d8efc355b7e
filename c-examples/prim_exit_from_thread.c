/*
 * prim_exit_from_thread.c - exit(0) called by a thread while others run.
 *
 * A worker does a few mutex-protected increments while another thread
 * calls exit(0).  main is blocked joining them.  Whatever the interleaving,
 * the process ends with status 0 as soon as exit runs; the worker may or may
 * not have finished.
 *
 * Usage:    ./prim_exit_from_thread
 * Expected: no bug; exit status 0 in every interleaving.
 */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg)
{
    (void)arg;
    for (int k = 0; k < 3; k++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *exiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    int seen = counter;
    pthread_mutex_unlock(&m);
    exit(seen >= 0 ? 0 : 1); /* always 0 */
}

int main(void)
{
    pthread_t w, e;
    pthread_create(&w, NULL, worker, NULL);
    pthread_create(&e, NULL, exiter, NULL);
    pthread_join(w, NULL);
    pthread_join(e, NULL); /* never returns: exiter ends the process */
    return 1;
}
