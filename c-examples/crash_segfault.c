/*
 * crash_segfault.c - an initialisation-order race that ends in a NULL
 * dereference.
 *
 * The initialiser thread allocates a config object and publishes it through
 * an atomic pointer; the user thread reads the pointer and dereferences it
 * without checking.  If the user runs first, it writes through NULL.  (The
 * pointer is atomic so the crash, not a data race, is the bug.)
 *
 * Usage:    ./crash_segfault
 * Expected: BUG - crash: SIGSEGV in use_config, in the interleavings where
 *           the load of `config` precedes the store (1 of 2 traces).
 *           Natively it usually passes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

struct config {
    int verbose;
    int level;
};

static struct config the_config;
static _Atomic(struct config *) config; /* NULL until initialised */
static int level_seen;

static void *init_config(void *arg)
{
    (void)arg;
    the_config.verbose = 0;
    the_config.level = 3;
    atomic_store(&config, &the_config);
    return NULL;
}

static void *use_config(void *arg)
{
    (void)arg;
    struct config *c = atomic_load(&config);
    level_seen = c->level; /* BUG: c may still be NULL */
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, init_config, NULL);
    pthread_create(&t2, NULL, use_config, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("level = %d\n", level_seen);
    return 0;
}
