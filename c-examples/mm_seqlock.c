/*
 * mm_seqlock.c - a sequence lock: the writer makes the sequence odd,
 * writes two data words, and makes it even again (release); a reader
 * reads the sequence (acquire), both words, and the sequence again, and
 * keeps the words only if the sequence was even and unchanged: then they
 * must be equal.  The data words are relaxed atomics, as C11 asks.
 *
 * The reader's second sequence load is ordered after the data loads only
 * by an acquire fence, and that fence sees the writer's odd sequence only
 * through a release fence the writer puts after making it odd (Boehm,
 * "Can seqlocks get along with programming language memory models?",
 * 2012).  ORDER fenced has both fences; no-write-fence and no-read-fence
 * leave one out, and under RC11 the reader may then keep a torn pair.
 *
 * Usage:    ./mm_seqlock [fenced|no-write-fence|no-read-fence]
 *           (default fenced)
 * Expected: no-write-fence, no-read-fence: assertion failure under
 *           --memory-model rc11; fenced: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_uint seq;
static atomic_int data[2];
static int write_fence = 1, read_fence = 1;

static void *writer(void *arg)
{
    (void)arg;
    unsigned s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
    if (write_fence)
        atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&data[0], 1, memory_order_relaxed);
    atomic_store_explicit(&data[1], 1, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 2, memory_order_release);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    unsigned s1 = atomic_load_explicit(&seq, memory_order_acquire);
    int a = atomic_load_explicit(&data[0], memory_order_relaxed);
    int b = atomic_load_explicit(&data[1], memory_order_relaxed);
    if (read_fence)
        atomic_thread_fence(memory_order_acquire);
    unsigned s2 = atomic_load_explicit(&seq, memory_order_relaxed);
    if (s1 == s2 && s1 % 2 == 0)
        assert(a == b);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc == 2 ? argv[1] : "fenced";
    if (argc > 2 || (strcmp(mode, "fenced") != 0 && strcmp(mode, "no-write-fence") != 0 &&
                     strcmp(mode, "no-read-fence") != 0)) {
        fprintf(stderr, "usage: mm_seqlock [fenced|no-write-fence|no-read-fence]\n");
        return 2;
    }
    write_fence = strcmp(mode, "no-write-fence") != 0;
    read_fence = strcmp(mode, "no-read-fence") != 0;
    pthread_t w, r;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    return 0;
}
