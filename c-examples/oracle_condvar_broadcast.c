/*
 * oracle_condvar_broadcast.c - one broadcast wakes every waiter.
 *
 * Two waiters wait (in while loops) for a `go` flag; a third thread sets it
 * and broadcasts.  Any waiter that is already waiting is woken; one that
 * arrives later sees go == 1 and does not wait.
 *
 * Usage:    ./oracle_condvar_broadcast
 * Expected: no bug; both waiters pass the barrier.  (With pthread_cond_signal
 *           instead of broadcast, one waiter could sleep forever: a deadlock.)
 */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;
static int passed;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!go)
        pthread_cond_wait(&cv, &m);
    passed++;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *starter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    go = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t w1, w2, s;
    pthread_create(&w1, NULL, waiter, NULL);
    pthread_create(&w2, NULL, waiter, NULL);
    pthread_create(&s, NULL, starter, NULL);
    pthread_join(w1, NULL);
    pthread_join(w2, NULL);
    pthread_join(s, NULL);
    assert(passed == 2);
    return 0;
}
