/*
 * misuse_join_detached.c - joining a detached thread.
 *
 * main detaches the worker and then tries to join it.  To keep the native
 * behaviour defined (glibc returns EINVAL while the thread still exists),
 * the worker waits on a semaphore that main posts only after the join
 * attempt, and reports its completion on a second semaphore.
 *
 * Usage:    ./misuse_join_detached
 * Expected: BUG - pthread misuse: pthread_join of a detached thread, in
 *           every execution.  Natively it exits 0.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t go, finished;

static void *worker(void *arg)
{
    (void)arg;
    sem_wait(&go);
    sem_post(&finished);
    return NULL;
}

int main(void)
{
    sem_init(&go, 0, 0);
    sem_init(&finished, 0, 0);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_detach(t);
    int rc = pthread_join(t, NULL); /* BUG: t is detached */
    sem_post(&go);
    sem_wait(&finished);
    printf("join of a detached thread returned %d\n", rc);
    return 0;
}
