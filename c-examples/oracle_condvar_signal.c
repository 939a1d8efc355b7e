/*
 * oracle_condvar_signal.c - the correct condition-variable handshake.
 *
 * The waiter holds the mutex, and waits in a while loop until `ready` is
 * set; the signaller sets `ready` under the mutex and signals.  Whichever
 * runs first, the waiter never misses the event (compare oracle_lost_signal.c).
 *
 * Usage:    ./oracle_condvar_signal
 * Expected: no bug.  The waiter either finds ready == 1 and never waits, or
 *           waits and is woken by the signal.
 */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static int payload;
static int got;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&cv, &m);
    got = payload;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    payload = 7;
    ready = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t w, s;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&s, NULL, signaller, NULL);
    pthread_join(w, NULL);
    pthread_join(s, NULL);
    assert(got == 7);
    return 0;
}
