/*
 * ck_spinlocks.c - Concurrency Kit's spin locks as a program uses them.
 *
 * THREADS threads (default 3) each enter a critical section ROUNDS times
 * (default 2) under one of Concurrency Kit's spin locks (ck_spinlock.h):
 *
 *   fas       ck_spinlock_fas: exchange, then test while locked
 *   cas       ck_spinlock_cas: compare-and-swap, then test while locked
 *   ticket    ck_spinlock_ticket: fetch-and-add a ticket, spin on the
 *             position
 *   mcs       ck_spinlock_mcs: a queue of per-acquisition nodes, each
 *             waiter spinning on its own node
 *   clh       ck_spinlock_clh: a queue of per-thread nodes, each waiter
 *             spinning on its predecessor's
 *   anderson  ck_spinlock_anderson: an array of slots, one per thread
 *   dec       ck_spinlock_dec: atomic decrement, spin while negative
 *
 * Every lock orders the critical sections; the behaviours are their
 * orders (6! / (2! 2! 2!) = 90 for 3 threads of 2) times the lock's own
 * ways of handing over. The critical section is a plain increment, so a
 * lock that does not exclude is a data race.
 *
 * Usage:    ./ck_spinlocks LOCK [THREADS [ROUNDS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <ck_spinlock.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 4

static int counter;
static int rounds = 2;
static const char *kind;

static ck_spinlock_fas_t fas = CK_SPINLOCK_FAS_INITIALIZER;
static ck_spinlock_cas_t cas = CK_SPINLOCK_CAS_INITIALIZER;
static ck_spinlock_ticket_t ticket = CK_SPINLOCK_TICKET_INITIALIZER;
static ck_spinlock_mcs_t mcs = CK_SPINLOCK_MCS_INITIALIZER;
static ck_spinlock_clh_t *clh;
static ck_spinlock_clh_t clh_unowned;
static ck_spinlock_clh_t clh_nodes[MAX_THREADS];
static ck_spinlock_anderson_t anderson;
static ck_spinlock_anderson_thread_t anderson_slots[MAX_THREADS];
static ck_spinlock_dec_t dec = CK_SPINLOCK_DEC_INITIALIZER;

static void critical_section(void)
{
    counter++;
}

static void *worker(void *arg)
{
    long id = (long)arg;
    ck_spinlock_clh_t *clh_node = &clh_nodes[id];
    for (int r = 0; r < rounds; r++) {
        if (!strcmp(kind, "fas")) {
            ck_spinlock_fas_lock(&fas);
            critical_section();
            ck_spinlock_fas_unlock(&fas);
        } else if (!strcmp(kind, "cas")) {
            ck_spinlock_cas_lock(&cas);
            critical_section();
            ck_spinlock_cas_unlock(&cas);
        } else if (!strcmp(kind, "ticket")) {
            ck_spinlock_ticket_lock(&ticket);
            critical_section();
            ck_spinlock_ticket_unlock(&ticket);
        } else if (!strcmp(kind, "mcs")) {
            ck_spinlock_mcs_context_t node;
            ck_spinlock_mcs_lock(&mcs, &node);
            critical_section();
            ck_spinlock_mcs_unlock(&mcs, &node);
        } else if (!strcmp(kind, "clh")) {
            ck_spinlock_clh_lock(&clh, clh_node);
            critical_section();
            ck_spinlock_clh_unlock(&clh_node);
        } else if (!strcmp(kind, "anderson")) {
            ck_spinlock_anderson_thread_t *slot;
            ck_spinlock_anderson_lock(&anderson, &slot);
            critical_section();
            ck_spinlock_anderson_unlock(&anderson, slot);
        } else {
            ck_spinlock_dec_lock(&dec);
            critical_section();
            ck_spinlock_dec_unlock(&dec);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    kind = argc > 1 ? argv[1] : "fas";
    int threads = argc > 2 ? atoi(argv[2]) : 3;
    rounds = argc > 3 ? atoi(argv[3]) : 2;
    if (threads < 1 || threads > MAX_THREADS || rounds < 1)
        return 2;
    ck_spinlock_clh_init(&clh, &clh_unowned);
    /* Anderson's lock needs a power of two slots, one per thread or more. */
    ck_spinlock_anderson_init(&anderson, anderson_slots, MAX_THREADS);
    pthread_t t[MAX_THREADS];
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads * rounds);
    return 0;
}
