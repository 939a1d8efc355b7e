/*
 * hidden_parker.c - a thread parker whose state changes partly in code the
 * instrumentation does not see.
 *
 * main starts two workers and waits until both have finished, parking
 * between checks as Rust's std::thread::scope does. The parker is a futex
 * word: EMPTY (0), NOTIFIED (1) or PARKED (-1). Parking takes the word down
 * by one and sleeps on it unless a notification was there; unparking sets
 * NOTIFIED and wakes a parked thread. The two functions that park are built
 * without instrumentation, as a precompiled standard library is: their
 * atomic accesses are not steps, so main's path depends on memory no step
 * of its shows. The program is deterministic under every schedule, and
 * correct: a search that predicts main's steps from another order of the
 * workers' unparks may find main asleep where it expected a step, which is
 * the search's blind spot, never the program's nondeterminism. main reads
 * random bytes first without branching on them, as Rust's std does for its
 * hash maps: that they were read does not make the program
 * nondeterministic either.
 *
 * Usage:    ./hidden_parker
 * Expected: no bug.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { EMPTY = 0, NOTIFIED = 1, PARKED = -1 };

static atomic_int parker = EMPTY;
static atomic_int running = 2;

/* Built without instrumentation: takes the parker's word down by one. */
__attribute__((section(".text.reach_noinstr"), noinline)) static int park_take(void)
{
    return atomic_fetch_sub(&parker, 1);
}

/* Built without instrumentation: consumes a notification, if one came. */
__attribute__((section(".text.reach_noinstr"), noinline)) static int park_consume(void)
{
    int notified = NOTIFIED;
    return atomic_compare_exchange_strong(&parker, &notified, EMPTY);
}

static void park(void)
{
    if (park_take() == NOTIFIED)
        return;
    for (;;) {
        syscall(SYS_futex, &parker, FUTEX_WAIT_PRIVATE, PARKED, NULL, NULL, 0);
        if (park_consume())
            return;
    }
}

static void unpark(void)
{
    if (atomic_exchange(&parker, NOTIFIED) == PARKED)
        syscall(SYS_futex, &parker, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *worker(void *arg)
{
    (void)arg;
    atomic_fetch_sub(&running, 1);
    unpark();
    return NULL;
}

int main(void)
{
    unsigned seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = 0;
    (void)seed;
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&threads[i], NULL, worker, NULL);
    while (atomic_load(&running) != 0)
        park();
    for (int i = 0; i < 2; i++)
        pthread_detach(threads[i]);
    return 0;
}
