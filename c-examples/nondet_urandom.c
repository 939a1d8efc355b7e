/*
 * nondet_urandom.c - a program whose path depends on /dev/urandom.
 *
 * main reads a byte from /dev/urandom and stores to a flag as many times
 * as the byte says before it starts a thread that races with it on
 * another variable: the steps of a schedule depend on the byte, so a
 * replay of the same schedule takes another path. This is the program's
 * nondeterminism, not the tool's: re-run, it does not repeat itself (one
 * byte in 256 does), and the report names /dev/urandom, with its line, as
 * the likely cause.
 *
 * Usage:    ./nondet_urandom
 * Expected: nondeterminism (likely cause: the program read /dev/urandom).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

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
    FILE *random = fopen("/dev/urandom", "rb");
    if (random) {
        if (fread(&byte, 1, 1, random) != 1)
            byte = 0;
        fclose(random);
    }
    for (int i = 0; i < byte; i++)
        atomic_store(&flag, i);
    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    atomic_store(&shared, 2);
    pthread_join(thread, NULL);
    return atomic_load(&shared) + atomic_load(&flag) > 1000;
}
