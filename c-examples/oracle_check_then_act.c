/*
 * oracle_check_then_act.c - an atomicity violation without a data race.
 *
 * Two threads each withdraw 10 from a balance of 10.  Each checks the
 * balance in one critical section and subtracts in another, so both can pass
 * the check before either subtracts.  Every access is protected by the
 * mutex: there is no data race, only a broken invariant.
 *
 * Usage:    ./oracle_check_then_act
 * Expected: BUG - assertion failure (balance == -10) when both checks run
 *           before either withdrawal.
 */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance = 10;

static void *withdraw(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    int enough = balance >= 10; /* check ... */
    pthread_mutex_unlock(&m);
    if (enough) {
        pthread_mutex_lock(&m);
        balance -= 10; /* ... then act, on a possibly stale check */
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, withdraw, NULL);
    pthread_create(&t2, NULL, withdraw, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(balance >= 0);
    return 0;
}
