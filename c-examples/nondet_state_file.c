/*
 * nondet_state_file.c - a program whose path depends on a file it keeps
 * outside the working directory.
 *
 * main reads the file named by its argument, stores to a flag once per
 * byte in it, then appends a byte, before it starts a thread that races
 * with it on another variable: each execution finds the file one byte
 * longer than the one before and takes another path. reach-native
 * compares the working directory only; the runtime notes the files the
 * program opens, and the report names this one, changed during the run,
 * as the likely cause.
 *
 * Usage:    ./nondet_state_file FILE
 * Expected: nondeterminism (likely cause: the file FILE changed during the
 *           run).
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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    int bytes = 0;
    FILE *state = fopen(argv[1], "r");
    if (state) {
        while (fgetc(state) != EOF)
            bytes++;
        fclose(state);
    }
    for (int i = 0; i < bytes; i++)
        atomic_store(&flag, i);
    state = fopen(argv[1], "a");
    if (state) {
        fputc('x', state);
        fclose(state);
    }
    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    atomic_store(&shared, 2);
    pthread_join(thread, NULL);
    return atomic_load(&shared) + atomic_load(&flag) > 1000000;
}
