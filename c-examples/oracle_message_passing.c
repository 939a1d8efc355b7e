/*
 * oracle_message_passing.c - message passing through an atomic flag.
 *
 * The producer writes a plain `data` and then publishes it with a release
 * store to an atomic `ready` flag.  The consumer does one acquire load of the
 * flag and reads `data` only if the flag was set, so the plain accesses are
 * ordered by the release/acquire pair and never race.  No spinning: the
 * consumer looks once and may simply find nothing yet.
 *
 * Usage:    ./oracle_message_passing
 * Expected: no bug, no data race.  2 Mazurkiewicz traces: the consumer's
 *           load of `ready` before or after the producer's store.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static int data;
static atomic_int ready;
static int received = -1;

static void *producer(void *arg)
{
    (void)arg;
    data = 42;
    atomic_store_explicit(&ready, 1, memory_order_release);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    if (atomic_load_explicit(&ready, memory_order_acquire)) {
        received = data;
        assert(received == 42);
    }
    return NULL;
}

int main(void)
{
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    assert(received == -1 || received == 42);
    return 0;
}
