/*
 * prim_pause_wait.c - a busy-wait that says it waits.
 *
 * As prim_spin_wait.c, but the waiter's loop executes the x86 `pause`
 * hint (`_mm_pause`), as spin-wait loops in real code do.  A systematic
 * tester that knows the hint holds the waiter back from its first
 * re-read until the flag is written: the release falls before the first
 * read or after it, two behaviours, however many rounds the spin would
 * take (prim_spin_wait.c, without the hint, explores one order per place
 * of the release among up to --spin-threshold re-reads).
 *
 * Usage:    ./prim_pause_wait
 * Expected: no bug, no data race; 2 behaviours.
 */
#include <assert.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int flag;
static int data;

static void *waiter(void *arg)
{
    (void)arg;
    while (!atomic_load(&flag))
        _mm_pause();
    assert(data == 42);
    return NULL;
}

static void *releaser(void *arg)
{
    (void)arg;
    data = 42;
    atomic_store(&flag, 1);
    return NULL;
}

int main(void)
{
    pthread_t w, r;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&r, NULL, releaser, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    return 0;
}
