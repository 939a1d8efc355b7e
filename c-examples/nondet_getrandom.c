/*
 * nondet_getrandom.c - a program whose path depends on getrandom(2).
 *
 * main asks getrandom for a byte and stores to a flag as many times as
 * the byte says before it starts a thread that races with it on another
 * variable: the steps of a schedule depend on the byte, so a re-run of
 * the same schedule takes another path. This is the program's nondeterminism, and
 * the report names getrandom, with its line, as the likely cause.
 *
 * Usage:    ./nondet_getrandom
 * Expected: nondeterminism (likely cause: the program called getrandom).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/random.h>

static atomic_int flag, shared;

static void *writer(void *arg)
{
    (void)arg;
    atomic_store(&shared, 1);
    return NULL;
}

int main(void)
{
    unsigned char byte = 0;
    if (getrandom(&byte, 1, 0) != 1)
        byte = 0;
    for (int i = 0; i < byte; i++)
        atomic_store(&flag, i);
    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    atomic_store(&shared, 2);
    pthread_join(thread, NULL);
    return atomic_load(&shared) + atomic_load(&flag) > 1000;
}
