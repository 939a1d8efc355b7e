/*
 * nondet_urandom.c - a program whose path depends on /dev/urandom.
 *
 * main reads a byte from /dev/urandom and, for each set bit, stores to a
 * flag before it starts a thread that races with it on another variable:
 * the steps of a schedule depend on the byte, so a replay of the same
 * schedule takes another path. This is the program's nondeterminism, not
 * the tool's: re-run, it does not repeat itself.
 *
 * Usage:    ./nondet_urandom
 * Expected: nondeterminism.
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
    for (int bit = 0; bit < 8; bit++)
        if (byte >> bit & 1)
            atomic_store(&flag, bit);
    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    atomic_store(&shared, 2);
    pthread_join(thread, NULL);
    return atomic_load(&shared) + atomic_load(&flag) > 100;
}
