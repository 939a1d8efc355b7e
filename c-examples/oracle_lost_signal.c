/*
 * oracle_lost_signal.c - a lost wake-up.
 *
 * The waiter calls pthread_cond_wait without first checking a predicate.
 * If the signaller runs its signal before the waiter starts waiting, the
 * signal goes to nobody and the waiter sleeps forever.
 *
 * Usage:    ./oracle_lost_signal
 * Expected: BUG - deadlock: the waiter blocks on the condition variable and
 *           no live thread can signal it (main waits in pthread_join).
 *           Found when the signaller's critical section runs first.
 *           The fix is oracle_condvar_signal.c.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_cond_wait(&cv, &m); /* BUG: no predicate, no loop */
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    done = 1;
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
    printf("done = %d\n", done);
    return 0;
}
