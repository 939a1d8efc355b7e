/*
 * oracle_read_read_write.c - two readers and one writer: where commuting
 * reads pay off.
 *
 * Threads 1 and 2 each load x once; thread 3 stores 1 into x.
 *
 * Usage:    ./oracle_read_read_write
 * Expected: no bug.  4 Mazurkiewicz traces with reads commuting (each load
 *           is either before or after the store); 6 if the two loads were
 *           treated as conflicting.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;
static int seen1 = -1, seen2 = -1;

static void *read1(void *arg) { (void)arg; seen1 = atomic_load(&x); return NULL; }
static void *read2(void *arg) { (void)arg; seen2 = atomic_load(&x); return NULL; }
static void *write1(void *arg) { (void)arg; atomic_store(&x, 1); return NULL; }

int main(void)
{
    pthread_t t1, t2, t3;
    pthread_create(&t1, NULL, read1, NULL);
    pthread_create(&t2, NULL, read2, NULL);
    pthread_create(&t3, NULL, write1, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_join(t3, NULL);
    assert((seen1 == 0 || seen1 == 1) && (seen2 == 0 || seen2 == 1));
    return 0;
}
