/*
 * thread_stack_race.c - a data race on a variable in a thread's own stack.
 *
 * The owner thread keeps a counter in its stack frame, publishes its
 * address and reads it; the visitor increments it without synchronisation
 * with that read.  The racing accesses name an address in the owner's
 * stack, which lies elsewhere with user-level threads than with kernel
 * threads: a schedule file must be replayed in the thread mode it was
 * recorded in.
 *
 * Usage:    ./thread_stack_race
 * Expected: BUG - data race on the owner's `counter`.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

static int *_Atomic published;
static atomic_int visited;

static void *owner(void *arg)
{
    (void)arg;
    int counter = 0;
    atomic_store(&published, &counter);
    long seen = counter; /* races with the visitor's increment */
    while (!atomic_load(&visited))
        ; /* keeps the frame alive until the visitor is done */
    return (void *)seen;
}

static void *visitor(void *arg)
{
    (void)arg;
    int *counter;
    while (!(counter = atomic_load(&published)))
        ;
    *counter += 1;
    atomic_store(&visited, 1);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, owner, NULL);
    pthread_create(&b, NULL, visitor, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
