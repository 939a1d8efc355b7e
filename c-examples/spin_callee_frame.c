/*
 * spin_callee_frame.c - waiters poll a flag through a helper that keeps a
 * count in its own local variable, whose address it hands to another
 * function (so, unoptimised, the count is a stack slot written through a
 * pointer, as a back-off's step counter is in a debug build).
 *
 * The count lives in the helper's frame, which is gone by the time the
 * waiter's loop goes round: its writes are not progress of the loop, so
 * an iteration that finds the flag clear does nothing, and the waiter
 * awaits the store that sets it. Optimised, the helper's count is a
 * register and the loop awaits the same way.
 *
 * Usage:    ./spin_callee_frame [WAITERS]   (default 2, 1..3)
 * Expected: no bug; the search completes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int flag;

__attribute__((noinline)) static void count_poll(int *polls)
{
    *polls += 1;
}

__attribute__((noinline)) static int flag_is_set(void)
{
    int polls = 0;
    count_poll(&polls);
    return atomic_load(&flag) && polls == 1;
}

static void *waiter(void *arg)
{
    (void)arg;
    while (!flag_is_set()) {
    }
    return NULL;
}

static void *setter(void *arg)
{
    (void)arg;
    atomic_store(&flag, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    int waiters = argc > 1 ? atoi(argv[1]) : 2;
    if (waiters < 1 || waiters > 3)
        return 2;
    pthread_t t[4];
    for (int i = 0; i < waiters; i++)
        pthread_create(&t[i], NULL, waiter, NULL);
    pthread_create(&t[waiters], NULL, setter, NULL);
    for (int i = 0; i <= waiters; i++)
        pthread_join(t[i], NULL);
    return 0;
}
