/*
 * mm_peterson.c - one attempt at Peterson's or Dekker's mutual exclusion
 * by each of two threads: raise my flag (Peterson: and give the other the
 * turn), then enter only if the other's flag is down (Peterson: or the
 * turn is mine).  Both in the critical section at once is the bug.
 *
 * The flags and the turn are stored `release` and loaded `acquire`, which
 * is not enough: a thread's store and its later load of the other flag
 * are store buffering, and RC11 lets both loads read the flags' initial
 * 0.  For Dekker a `seq_cst` fence between the stores and the loads
 * (`fence`) forbids it.  For Peterson it does not: the fence orders the
 * flags, but a thread may still read the other's turn store as the later
 * one although its own ran after it (the reach-rc11 oracle finds 2 such
 * outcomes).  Giving the turn with an `acq_rel` exchange (`xchg`) orders
 * the two turn stores and fixes it.  Under sequential consistency
 * (--memory-model sc) none fails.
 *
 * Usage:    ./mm_peterson dekker [fence] | peterson [fence|xchg]
 * Expected: assertion failure under --memory-model rc11 for dekker,
 *           peterson and peterson fence; no bug for dekker fence and
 *           peterson xchg.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static atomic_int flag[2];
static atomic_int turn;
static atomic_int inside;
static int peterson, fence, xchg;

static void *attempt(void *arg)
{
    int me = (int)(intptr_t)arg, other = 1 - me;
    atomic_store_explicit(&flag[me], 1, memory_order_release);
    if (peterson && xchg)
        atomic_exchange_explicit(&turn, other, memory_order_acq_rel);
    else if (peterson)
        atomic_store_explicit(&turn, other, memory_order_release);
    if (fence)
        atomic_thread_fence(memory_order_seq_cst);
    int enter = !atomic_load_explicit(&flag[other], memory_order_acquire);
    if (peterson && !enter)
        enter = atomic_load_explicit(&turn, memory_order_acquire) == me;
    if (enter) {
        /* The critical section: nobody else may be in it. */
        assert(atomic_fetch_add_explicit(&inside, 1, memory_order_relaxed) == 0);
        atomic_fetch_sub_explicit(&inside, 1, memory_order_relaxed);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    peterson = argc >= 2 && strcmp(argv[1], "peterson") == 0;
    fence = argc == 3 && strcmp(argv[2], "fence") == 0;
    xchg = argc == 3 && peterson && strcmp(argv[2], "xchg") == 0;
    if (argc < 2 || argc > 3 || (!peterson && strcmp(argv[1], "dekker") != 0) ||
        (argc == 3 && !fence && !xchg)) {
        fprintf(stderr, "usage: mm_peterson dekker [fence] | peterson [fence|xchg]\n");
        return 2;
    }
    pthread_t t[2];
    for (intptr_t i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, attempt, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
