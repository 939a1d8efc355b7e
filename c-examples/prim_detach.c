/*
 * prim_detach.c - detached threads.
 *
 * One thread is created detached (pthread_attr_setdetachstate), another is
 * created joinable and then detached with pthread_detach.  Since they cannot
 * be joined, each reports completion through a mutex + condition variable,
 * and main waits for both reports before exiting.
 *
 * Usage:    ./prim_detach
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int finished;
static int work;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    work++;
    finished++;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t1, t2;
    pthread_create(&t1, &attr, worker, NULL);
    pthread_attr_destroy(&attr);

    pthread_create(&t2, NULL, worker, NULL);
    pthread_detach(t2);

    pthread_mutex_lock(&m);
    while (finished < 2)
        pthread_cond_wait(&cv, &m);
    assert(work == 2);
    pthread_mutex_unlock(&m);
    return 0;
}
