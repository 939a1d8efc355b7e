/*
 * branch_pool.c - a connection pool whose check-then-act race hides
 * behind one branch.
 *
 * Three clients each try to borrow the single pooled connection.  The
 * check and the take happen in one critical section, so the pool itself is
 * consistent; but a client that finds the pool empty counts the miss in
 * `misses` without taking the lock.  Only interleavings in which two
 * clients both find the pool empty make two threads write `misses`: the
 * inconsistent locking is behind the outcome of the `if (got)` branch,
 * which depends on the order of the clients' critical sections.
 *
 * Usage:    ./branch_pool
 * Expected: BUG - data race on `misses` (two clients miss; lockset race,
 *           and a happens-before race), exit 0 natively.
 */
#include <pthread.h>
#include <stdio.h>

#define CLIENTS 3

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int available = 1;
static int served;
static int misses;

static void *client(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool_lock);
    int got = available > 0;
    if (got)
        available--;
    pthread_mutex_unlock(&pool_lock);
    if (got) {
        pthread_mutex_lock(&pool_lock);
        served++;
        available++;
        pthread_mutex_unlock(&pool_lock);
    } else {
        misses++; /* BUG: counted without the pool lock */
    }
    return NULL;
}

int main(void)
{
    pthread_t t[CLIENTS];
    for (int i = 0; i < CLIENTS; i++)
        pthread_create(&t[i], NULL, client, NULL);
    for (int i = 0; i < CLIENTS; i++)
        pthread_join(t[i], NULL);
    pthread_mutex_lock(&pool_lock);
    printf("served %d, missed %d\n", served, misses);
    pthread_mutex_unlock(&pool_lock);
    return 0;
}
