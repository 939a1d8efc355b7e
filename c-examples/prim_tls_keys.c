/*
 * prim_tls_keys.c - thread-specific data: pthread_key_create with a
 * destructor, and C11 _Thread_local variables.
 *
 * Each of two threads stores a heap object under a key; the key's
 * destructor frees it at thread exit and counts the call.  Each thread also
 * increments its own _Thread_local counter, which must not be shared.
 *
 * Usage:    ./prim_tls_keys
 * Expected: no bug; after both joins the destructor has run twice.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static pthread_key_t key;
static atomic_int destructor_calls;
static _Thread_local int per_thread_counter;

static void destroy_value(void *p)
{
    assert(*(int *)p == 100);
    free(p);
    atomic_fetch_add(&destructor_calls, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    int *v = malloc(sizeof *v);
    assert(v != NULL);
    *v = 100;
    pthread_setspecific(key, v);
    for (int k = 0; k < 3; k++)
        per_thread_counter++;
    assert(per_thread_counter == 3);
    assert(pthread_getspecific(key) == v);
    return NULL; /* destroy_value(v) runs now */
}

int main(void)
{
    pthread_key_create(&key, destroy_value);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, worker, NULL);
    pthread_create(&t2, NULL, worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(atomic_load(&destructor_calls) == 2);
    assert(per_thread_counter == 0); /* main's own copy was never touched */
    assert(pthread_getspecific(key) == NULL);
    pthread_key_delete(key);
    return 0;
}
