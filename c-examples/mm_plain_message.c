/*
 * mm_plain_message.c - a writer fills a plain (non-atomic) buffer and
 * raises an atomic flag; a reader that sees the flag reads the buffer.
 *
 * The flag's ordering decides whether the buffer is handed over.  With
 * ORDER relaxed nothing orders the writer's plain stores before the
 * reader's plain loads: under the C11 memory model (RC11) that is a data
 * race, undefined behaviour, whatever values the reader happens to see.
 * (The reader writes the buffer: a store under `if (seen)` cannot be
 * hoisted above the flag's load by the compiler, as a load could be.)
 * With ORDER release (a release store, an acquire load) or fences (a
 * release fence before a relaxed store, an acquire fence after a relaxed
 * load) the flag synchronises and there is no race.  Under sequential
 * consistency (--memory-model sc) every atomic synchronises: no race.
 *
 * Usage:    ./mm_plain_message [relaxed|release|fences]   (default relaxed)
 * Expected: relaxed: data race on `buffer` under --memory-model rc11;
 *           release, fences: no bug.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static int buffer[2];
static atomic_int flag;
static int order = 0; /* 0 relaxed, 1 release, 2 fences */

static void *writer(void *arg)
{
    (void)arg;
    buffer[0] = 1;
    buffer[1] = 2;
    if (order == 1) {
        atomic_store_explicit(&flag, 1, memory_order_release);
    } else {
        if (order == 2)
            atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&flag, 1, memory_order_relaxed);
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    int seen;
    if (order == 1) {
        seen = atomic_load_explicit(&flag, memory_order_acquire);
    } else {
        seen = atomic_load_explicit(&flag, memory_order_relaxed);
        if (order == 2)
            atomic_thread_fence(memory_order_acquire);
    }
    if (seen)
        buffer[0] += buffer[1];
    return NULL;
}

int main(int argc, char **argv)
{
    const char *names[] = {"relaxed", "release", "fences"};
    if (argc > 2) {
        fprintf(stderr, "usage: mm_plain_message [relaxed|release|fences]\n");
        return 2;
    }
    if (argc == 2) {
        order = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(argv[1], names[i]) == 0)
                order = i;
        if (order < 0) {
            fprintf(stderr, "usage: mm_plain_message [relaxed|release|fences]\n");
            return 2;
        }
    }
    pthread_t w, r;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    return 0;
}
