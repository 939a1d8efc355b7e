/*
 * oracle_fetch_add.c - ticket dispenser with atomic_fetch_add.
 *
 * Three threads each take a ticket with fetch_add(&next, 1) and record it in
 * their own slot.  The tickets are always a permutation of 0, 1, 2.
 *
 * Usage:    ./oracle_fetch_add
 * Expected: no bug.  6 Mazurkiewicz traces (3! orders of the read-modify-
 *           writes on `next`).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static atomic_int next;
static int ticket[3];

static void *take(void *arg)
{
    int id = (int)(intptr_t)arg;
    ticket[id] = atomic_fetch_add(&next, 1);
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, take, (void *)(intptr_t)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        assert(ticket[i] >= 0 && ticket[i] < 3);
        seen |= 1 << ticket[i];
    }
    assert(seen == 7);
    assert(atomic_load(&next) == 3);
    return 0;
}
