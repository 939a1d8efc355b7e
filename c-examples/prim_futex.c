/*
 * prim_futex.c - a tiny futex-based mutex built on raw futex system calls.
 *
 * The lock word is 0 (free), 1 (locked, no waiters) or 2 (locked, maybe
 * waiters) - the classic three-state futex mutex.
 *
 *   lock:   CAS 0 -> 1; on failure, swap in 2 and, while the old value was
 *           not 0, FUTEX_WAIT(word, 2) and swap in 2 again.
 *   unlock: fetch_sub 1; if the old value was 2 (someone may wait), store 0
 *           and FUTEX_WAKE one waiter.
 *
 * Two threads each increment a plain counter twice under this lock; the
 * counter accesses are ordered by the lock word's atomics.
 *
 * Usage:    ./prim_futex
 * Expected: no bug, no data race, no lost wake-up (counter == 4).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int word;
static int counter;

static void futex_wait(atomic_int *addr, int expected)
{
    /* sleeps only if *addr still equals expected; EAGAIN/EINTR just retry */
    syscall(SYS_futex, (int *)addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(atomic_int *addr, int n)
{
    syscall(SYS_futex, (int *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static void futex_lock(void)
{
    int c = 0;
    if (atomic_compare_exchange_strong(&word, &c, 1))
        return; /* uncontended */
    if (c != 2)
        c = atomic_exchange(&word, 2);
    while (c != 0) {
        futex_wait(&word, 2);
        c = atomic_exchange(&word, 2);
    }
}

static void futex_unlock(void)
{
    if (atomic_fetch_sub(&word, 1) != 1) {
        atomic_store(&word, 0);
        futex_wake(&word, 1);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    for (int k = 0; k < 2; k++) {
        futex_lock();
        counter++;
        futex_unlock();
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, worker, NULL);
    pthread_create(&t2, NULL, worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(counter == 4);
    assert(atomic_load(&word) == 0);
    return 0;
}
