/*
 * crash_abort.c - a thread calls abort() while another thread runs.
 *
 * The checker thread takes the mutex, finds the shared state inconsistent
 * (it always is: the invariant is deliberately broken) and calls abort();
 * the other thread is doing mutex-protected updates at the same time.
 *
 * Usage:    ./crash_abort
 * Expected: BUG - crash: SIGABRT from abort() in `checker`, in every
 *           execution (the first execution already finds it).
 */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int left = 1, right = 2; /* invariant (broken): left == right */

static void *updater(void *arg)
{
    (void)arg;
    for (int k = 0; k < 2; k++) {
        pthread_mutex_lock(&m);
        left++;
        right++;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *checker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    if (left != right)
        abort();
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, updater, NULL);
    pthread_create(&t2, NULL, checker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
