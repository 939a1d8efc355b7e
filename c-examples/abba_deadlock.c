/*
 * abba_deadlock.c - the classic lock-order inversion.
 *
 * Thread 1 locks A then B; thread 2 locks B then A.  If each takes its first
 * lock before the other takes its second, both wait forever.
 *
 * Usage:    ./abba_deadlock
 * Expected: BUG - deadlock: thread 1 holds A and waits for B, thread 2 holds
 *           B and waits for A.  Natively it usually completes.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *ab(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    shared += 1;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    return NULL;
}

static void *ba(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    shared += 2;
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, ab, NULL);
    pthread_create(&t2, NULL, ba, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared = %d\n", shared);
    return 0;
}
