/*
 * misuse_destroy_cond_waiters.c - destroying a condition variable that a
 * thread is blocked on.
 *
 * The waiter announces (under the mutex) that it is about to wait, then
 * blocks in pthread_cond_timedwait on `cv`.  main waits for the
 * announcement on a second condition variable; since the waiter released
 * the mutex only by starting to wait on `cv`, when main gets the mutex back
 * the waiter is blocked on `cv`.  main then destroys `cv`.
 *
 * The timed wait (deadline 100 ms ahead) is there only so the program ends
 * natively: glibc's pthread_cond_destroy waits for the blocked waiter to
 * leave, which it does when its deadline passes.
 *
 * Usage:    ./misuse_destroy_cond_waiters
 * Expected: BUG - pthread misuse: pthread_cond_destroy of a condition
 *           variable with a blocked waiter.  Natively it exits 0 after
 *           about 100 ms.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t announce = PTHREAD_COND_INITIALIZER;
static int waiting;
static int go;

static void *waiter(void *arg)
{
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += 100 * 1000 * 1000;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m);
    waiting = 1;
    pthread_cond_signal(&announce);
    while (!go) {
        if (pthread_cond_timedwait(&cv, &m, &deadline) != 0)
            break; /* timed out */
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t w;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_mutex_lock(&m);
    while (!waiting)
        pthread_cond_wait(&announce, &m);
    /* the waiter is now blocked on cv */
    int rc = pthread_cond_destroy(&cv); /* BUG: a thread is waiting on cv */
    pthread_mutex_unlock(&m);
    pthread_join(w, NULL);
    printf("pthread_cond_destroy returned %d\n", rc);
    return 0;
}
