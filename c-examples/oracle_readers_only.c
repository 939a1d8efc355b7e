/*
 * oracle_readers_only.c - read-only sharing: reads commute.
 *
 * main initialises two shared globals before creating any thread; then three
 * threads only read them.  Every pair of accesses from different threads is
 * a read/read pair, so all interleavings are equivalent.
 *
 * Usage:    ./oracle_readers_only
 * Expected: no bug, no data race.  Exactly 1 Mazurkiewicz trace when reads
 *           commute (plain DPOR without commuting reads explores many more).
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

static int config_a;
static int config_b;
static int seen[3]; /* each thread writes only its own slot */

static void *reader(void *arg)
{
    int id = (int)(intptr_t)arg;
    int a = config_a;
    int b = config_b;
    seen[id] = a + b;
    return NULL;
}

int main(void)
{
    config_a = 40;
    config_b = 2;
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, reader, (void *)(intptr_t)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 3; i++)
        assert(seen[i] == 42);
    return 0;
}
