/*
 * xchg_spinlock_lost_unlock.c - a spinlock left taken on one path.
 *
 * Two threads add to a counter under a test-and-set spinlock
 * (`atomic_exchange`).  The first thread returns early without releasing
 * the lock when it finds the counter still zero.  If it runs first, the
 * second thread's exchanges find the lock taken forever: it spins, and the
 * only threads that could release it have finished or wait for it.
 *
 * Usage:    ./xchg_spinlock_lost_unlock
 * Expected: BUG - hang/livelock (the second thread spins on the lock that
 *           is never released).  Natively it hangs whenever the first
 *           thread takes the lock first: run it under `timeout`.
 */
#include <pthread.h>
#include <stdatomic.h>

static atomic_int lock;
static int counter;

static void acquire(void)
{
    while (atomic_exchange(&lock, 1))
        ; /* spin: the lock is taken */
}

static void release(void)
{
    atomic_store(&lock, 0);
}

static void *first(void *arg)
{
    (void)arg;
    acquire();
    if (counter == 0) {
        counter = 1;
        return NULL; /* BUG: the lock is never released on this path */
    }
    counter += 1;
    release();
    return NULL;
}

static void *second(void *arg)
{
    (void)arg;
    acquire();
    counter += 10;
    release();
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, first, NULL);
    pthread_create(&b, NULL, second, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
