/*
 * prim_semaphore.c - POSIX unnamed semaphores as a completion signal.
 *
 * The worker computes a result and posts `done`; main waits on `done` and
 * then reads the result (ordered by the semaphore).  A second semaphore,
 * initially 1, is used with sem_trywait by both threads: exactly one of
 * them gets the token.
 *
 * Usage:    ./prim_semaphore
 * Expected: no bug.  2 traces for the token (who takes it first).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

static sem_t done;
static sem_t token;
static int result;
static int worker_got_token;

static void *worker(void *arg)
{
    (void)arg;
    result = 6 * 7;
    sem_post(&done);
    worker_got_token = sem_trywait(&token) == 0;
    return NULL;
}

int main(void)
{
    sem_init(&done, 0, 0);
    sem_init(&token, 0, 1);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);

    sem_wait(&done);
    assert(result == 42);
    int rc = sem_trywait(&token);
    int main_got_token = rc == 0;
    assert(rc == 0 || errno == EAGAIN);

    pthread_join(t, NULL);
    assert(main_got_token + worker_got_token == 1);
    int v = -1;
    sem_getvalue(&token, &v);
    assert(v == 0);
    sem_destroy(&done);
    sem_destroy(&token);
    return 0;
}
