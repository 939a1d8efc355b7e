/*
 * oracle_cas_claim.c - a single compare_exchange_strong that can fail.
 *
 * Two threads each try once to claim ownership: CAS owner from 0 to their id.
 * Exactly one succeeds; the other's CAS fails and reports the winner.
 *
 * Usage:    ./oracle_cas_claim
 * Expected: no bug.  2 Mazurkiewicz traces (which CAS comes first).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static atomic_int owner;
static int won[3];
static int saw[3];

static void *claim(void *arg)
{
    int id = (int)(intptr_t)arg;
    int expected = 0;
    if (atomic_compare_exchange_strong(&owner, &expected, id))
        won[id] = 1;
    else
        saw[id] = expected; /* the id of the thread that got there first */
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, claim, (void *)1);
    pthread_create(&t2, NULL, claim, (void *)2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(won[1] + won[2] == 1);
    int w = atomic_load(&owner);
    assert(won[w] == 1);
    int loser = 3 - w;
    assert(saw[loser] == w);
    return 0;
}
