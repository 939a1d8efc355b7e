/*
 * mm_message_passing.c - a writer publishes a value and raises a flag; a
 * reader that sees the flag reads the value.
 *
 * With ORDER relaxed the flag's store and load do not synchronise: under
 * the C11 memory model (RC11) the reader may see flag = 1 and still read
 * the value's initial 0, and its assertion fails.  With ORDER release
 * (release store, acquire load) the flag carries the value: no bug.  Under
 * sequential consistency (--memory-model sc) neither fails.
 *
 * Usage:    ./mm_message_passing [relaxed|release]   (default relaxed)
 * Expected: relaxed: assertion failure under --memory-model rc11;
 *           release: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int value;
static atomic_int flag;
static int release = 0;

static void *writer(void *arg)
{
    (void)arg;
    atomic_store_explicit(&value, 42, memory_order_relaxed);
    if (release)
        atomic_store_explicit(&flag, 1, memory_order_release);
    else
        atomic_store_explicit(&flag, 1, memory_order_relaxed);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    int seen = release ? atomic_load_explicit(&flag, memory_order_acquire)
                       : atomic_load_explicit(&flag, memory_order_relaxed);
    if (seen)
        assert(atomic_load_explicit(&value, memory_order_relaxed) == 42);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "relaxed") != 0 &&
                     strcmp(argv[1], "release") != 0)) {
        fprintf(stderr, "usage: mm_message_passing [relaxed|release]\n");
        return 2;
    }
    release = argc == 2 && strcmp(argv[1], "release") == 0;
    pthread_t w, r;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    return 0;
}
