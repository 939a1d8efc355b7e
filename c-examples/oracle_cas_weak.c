/*
 * oracle_cas_weak.c - compare_exchange_weak in a retry loop.
 *
 * Two threads each double-and-add into an atomic value (v = 2*v + id) with a
 * weak CAS loop.  A weak CAS may also fail spuriously; the loop tolerates it.
 * The final value depends on the order: 0 -> (2*0+1) -> (2*1+2) = 4, or
 * 0 -> 2 -> (2*2+1) = 5.
 *
 * Usage:    ./oracle_cas_weak
 * Expected: no bug; the final value is 4 or 5.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static atomic_int value;

static void *update(void *arg)
{
    int id = (int)(intptr_t)arg;
    int old = atomic_load_explicit(&value, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&value, &old, 2 * old + id,
                                                  memory_order_acq_rel,
                                                  memory_order_relaxed))
        ; /* `old` was refreshed by the failed CAS */
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, update, (void *)1);
    pthread_create(&t2, NULL, update, (void *)2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    int v = atomic_load(&value);
    assert(v == 4 || v == 5);
    return 0;
}
