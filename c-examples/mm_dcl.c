/*
 * mm_dcl.c - double-checked locking: two threads get a lazily built
 * configuration; the first to find none takes the lock, builds it and
 * publishes the pointer, the other uses the published pointer without
 * the lock.  The configuration's field is a relaxed atomic so the model
 * sees it (a real one would be plain memory).
 *
 * With ORDER relaxed the pointer is published and read `relaxed`: a
 * thread that sees the pointer without taking the lock may read the
 * field's initial 0 under RC11.  With ORDER acquire (release store,
 * acquire load of the pointer) it sees 42.
 *
 * Usage:    ./mm_dcl [relaxed|acquire]   (default relaxed)
 * Expected: relaxed: assertion failure under --memory-model rc11;
 *           acquire: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct config {
    atomic_int answer;
};

static _Atomic(struct config *) instance;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int acquire;

static struct config *get_config(void)
{
    struct config *c = atomic_load_explicit(
        &instance, acquire ? memory_order_acquire : memory_order_relaxed);
    if (c)
        return c;
    pthread_mutex_lock(&lock);
    c = atomic_load_explicit(&instance, memory_order_relaxed);
    if (!c) {
        c = calloc(1, sizeof *c);
        assert(c);
        atomic_store_explicit(&c->answer, 42, memory_order_relaxed);
        atomic_store_explicit(&instance, c,
                              acquire ? memory_order_release : memory_order_relaxed);
    }
    pthread_mutex_unlock(&lock);
    return c;
}

static void *user(void *arg)
{
    (void)arg;
    assert(atomic_load_explicit(&get_config()->answer, memory_order_relaxed) == 42);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "relaxed") != 0 &&
                     strcmp(argv[1], "acquire") != 0)) {
        fprintf(stderr, "usage: mm_dcl [relaxed|acquire]\n");
        return 2;
    }
    acquire = argc == 2 && strcmp(argv[1], "acquire") == 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, user, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    free(atomic_load(&instance));
    return 0;
}
