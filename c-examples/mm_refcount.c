/*
 * mm_refcount.c - a reference-counted object shared by two threads, freed
 * by whichever drops the last reference: the shape of Rust's Arc drop and
 * C++'s shared_ptr.  Each thread records its last use of the object, then
 * decrements the count with `release`; the thread that takes it to 0
 * destroys the object, and the destructor checks that both uses are
 * visible (the object's fields are relaxed atomics, so the model sees
 * them; a real destructor would read or free plain memory).
 *
 * ORDER relaxed decrements `relaxed`; release decrements `release` but
 * destroys without an acquire.  Either way nothing orders the other
 * thread's last use before the destruction: under RC11 the destructor may
 * read its use's initial 0 (in a real program: free memory still in use).
 * arc is Arc's drop: a `release` decrement, and `fence(Acquire)` before
 * destroying, which synchronises with the other thread's decrement.
 *
 * Usage:    ./mm_refcount [relaxed|release|arc]   (default relaxed)
 * Expected: relaxed, release: assertion failure under --memory-model rc11;
 *           arc: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct object {
    atomic_int refs;
    atomic_int used[2];
};

enum { RELAXED, RELEASE, ARC };
static int order;

static void destroy(struct object *o)
{
    assert(atomic_load_explicit(&o->used[0], memory_order_relaxed) == 1);
    assert(atomic_load_explicit(&o->used[1], memory_order_relaxed) == 1);
    free(o);
}

static void drop_ref(struct object *o)
{
    memory_order o_dec = order == RELAXED ? memory_order_relaxed : memory_order_release;
    if (atomic_fetch_sub_explicit(&o->refs, 1, o_dec) != 1)
        return;
    if (order == ARC)
        atomic_thread_fence(memory_order_acquire);
    destroy(o);
}

static struct object *shared;

static void *user(void *arg)
{
    int me = (int)(intptr_t)arg;
    struct object *o = shared;
    atomic_store_explicit(&o->used[me], 1, memory_order_relaxed);
    drop_ref(o);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *name = argc == 2 ? argv[1] : "relaxed";
    if (argc > 2 || (strcmp(name, "relaxed") != 0 && strcmp(name, "release") != 0 &&
                     strcmp(name, "arc") != 0)) {
        fprintf(stderr, "usage: mm_refcount [relaxed|release|arc]\n");
        return 2;
    }
    order = strcmp(name, "relaxed") == 0 ? RELAXED : strcmp(name, "release") == 0 ? RELEASE : ARC;
    shared = calloc(1, sizeof *shared);
    if (!shared)
        return 1;
    atomic_init(&shared->refs, 2);
    pthread_t t[2];
    for (intptr_t i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, user, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
