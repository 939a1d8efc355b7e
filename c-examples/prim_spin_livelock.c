/*
 * prim_spin_livelock.c - a busy-wait nobody can release.
 *
 * The waiter spins until `flag` becomes 2, but the only other thread sets
 * it to 1.  The spin never ends; no thread is blocked in the pthread sense,
 * so this is not a deadlock but a livelock / hang.
 *
 * Usage:    ./prim_spin_livelock
 * Expected: BUG - hang/livelock (over the step or time bound) in every
 *           execution.  Natively it runs forever: run it under `timeout`.
 */
#include <pthread.h>
#include <stdatomic.h>

static atomic_int flag;

static void *waiter(void *arg)
{
    (void)arg;
    while (atomic_load(&flag) != 2)
        ; /* spins forever */
    return NULL;
}

static void *setter(void *arg)
{
    (void)arg;
    atomic_store(&flag, 1); /* the wrong value */
    return NULL;
}

int main(void)
{
    pthread_t w, s;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&s, NULL, setter, NULL);
    pthread_join(s, NULL);
    pthread_join(w, NULL);
    return 0;
}
