/*
 * prim_spin_wait.c - a busy-wait that another thread releases.
 *
 * The waiter spins on `while (!atomic_load(&flag)) ;` and then reads the
 * data published before the flag.  The releaser writes the data and sets
 * the flag.  Correct, but a systematic tester that keeps choosing the
 * spinning thread would never finish: it must notice the spin (the loop
 * repeats the same load without any other thread writing) and run another
 * thread.
 *
 * Usage:    ./prim_spin_wait
 * Expected: no bug, no data race; must terminate under systematic testing.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int flag;
static int data;

static void *waiter(void *arg)
{
    (void)arg;
    while (!atomic_load(&flag))
        ; /* spin */
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
