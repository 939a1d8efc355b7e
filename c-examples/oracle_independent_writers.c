/*
 * oracle_independent_writers.c - three fully independent threads.
 *
 * Each of three threads writes (twice) a variable no other thread touches
 * before main joins them.  No two operations of different threads conflict.
 *
 * Usage:    ./oracle_independent_writers
 * Expected: no bug, no data race.  Exactly 1 Mazurkiewicz trace.
 */
#include <assert.h>
#include <pthread.h>

static int x, y, z;

static void *write_x(void *arg) { (void)arg; x = 1; x = x + 1; return NULL; }
static void *write_y(void *arg) { (void)arg; y = 1; y = y + 1; return NULL; }
static void *write_z(void *arg) { (void)arg; z = 1; z = z + 1; return NULL; }

int main(void)
{
    pthread_t t1, t2, t3;
    pthread_create(&t1, NULL, write_x, NULL);
    pthread_create(&t2, NULL, write_y, NULL);
    pthread_create(&t3, NULL, write_z, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_join(t3, NULL);
    assert(x == 2 && y == 2 && z == 2);
    return 0;
}
