/*
 * oracle_mutex_two_locks.c - lock operations conflict only on the same mutex.
 *
 * Threads 1 and 2 each increment `a` under mutex m1; thread 3 increments `b`
 * under a different mutex m2.  Thread 3 is independent of the other two.
 *
 * Usage:    ./oracle_mutex_two_locks
 * Expected: no bug.  2 Mazurkiewicz traces (the order of the two m1
 *           critical sections); thread 3's position does not matter.
 */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static int a, b;

static void *inc_a(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m1);
    a++;
    pthread_mutex_unlock(&m1);
    return NULL;
}

static void *inc_b(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m2);
    b++;
    pthread_mutex_unlock(&m2);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2, t3;
    pthread_create(&t1, NULL, inc_a, NULL);
    pthread_create(&t2, NULL, inc_a, NULL);
    pthread_create(&t3, NULL, inc_b, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_join(t3, NULL);
    assert(a == 2 && b == 1);
    return 0;
}
