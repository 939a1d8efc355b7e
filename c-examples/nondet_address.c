/*
 * nondet_address.c - a program whose path depends on an address.
 *
 * main allocates a block and stores to a flag once more than the low
 * byte of its page number says before it starts a thread that races with
 * it on another variable (at least once, so that two processes' first
 * steps are both that store, to the flag's address in each). Where the kernel randomises addresses (ASLR) the
 * block's page differs from process to process, and so do the steps of a
 * schedule. reach-native turns address randomisation off for the
 * programs it runs, so the addresses, and the program, are the same in
 * every execution: the search completes. Where the system forbids that
 * (a container's seccomp profile can), a run started with a fresh
 * process per execution (--no-fork-server) reports nondeterminism with
 * address randomisation as the likely cause.
 *
 * Usage:    ./nondet_address
 * Expected: no bug (nondeterminism, likely cause: address randomisation,
 *           where it cannot be turned off).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_int flag, shared;

static void *writer(void *arg)
{
    (void)arg;
    atomic_store(&shared, 1);
    return NULL;
}

int main(void)
{
    void *block = malloc(16);
    unsigned page = (unsigned)((uintptr_t)block >> 12);
    for (unsigned i = 0; i <= (page & 0xff); i++)
        atomic_store(&flag, i);
    free(block);
    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    atomic_store(&shared, 2);
    pthread_join(thread, NULL);
    return atomic_load(&shared) + atomic_load(&flag) > 1000;
}
