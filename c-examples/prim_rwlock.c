/*
 * prim_rwlock.c - pthread_rwlock_t: shared readers, exclusive writer.
 *
 * Two readers take the lock shared (one with rdlock, one with tryrdlock,
 * falling back to rdlock on EBUSY) and read a pair (a, b); one writer takes
 * it exclusively and sets both halves.  Readers assert they never see a
 * half-written pair.
 *
 * Usage:    ./prim_rwlock
 * Expected: no bug, no data race.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int a, b;

static void *reader(void *arg)
{
    if (arg) {
        int rc = pthread_rwlock_tryrdlock(&rw);
        if (rc == EBUSY)
            rc = pthread_rwlock_rdlock(&rw);
        assert(rc == 0);
    } else {
        pthread_rwlock_rdlock(&rw);
    }
    assert(a == b);
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&rw);
    a = 1;
    b = 1;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

int main(void)
{
    pthread_t r1, r2, w;
    pthread_create(&r1, NULL, reader, NULL);
    pthread_create(&r2, NULL, reader, (void *)1);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(r1, NULL);
    pthread_join(r2, NULL);
    pthread_join(w, NULL);
    assert(a == 1 && b == 1);
    pthread_rwlock_destroy(&rw);
    return 0;
}
