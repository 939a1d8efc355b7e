/*
 * asm_operand_race.c - inline-assembly atomics next to a real data race.
 *
 * Both threads count themselves with `lock incl` on `hits` (a memory operand
 * of inline assembly, the only access to `hits`).  Afterwards the writer
 * stores a plain `result` and the reader loads it, with nothing ordering the
 * two: the increments synchronise only what comes before them, so the plain
 * accesses that follow race in every interleaving.
 *
 * Usage:    ./asm_operand_race
 * Expected: BUG - data race on `result` (the atomics on `hits` must not hide
 *           it).  Natively it always passes.
 */
#include <pthread.h>
#include <stdio.h>

static int hits;   /* only touched by inline assembly */
static int result; /* plain, unsynchronised */

static void count_hit(void)
{
    __asm__ __volatile__("lock; incl %0" : "+m"(hits));
}

static void *writer(void *arg)
{
    (void)arg;
    count_hit();
    result = 42;
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    count_hit();
    return (void *)(long)result;
}

int main(void)
{
    pthread_t w, r;
    void *seen;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, &seen);
    printf("hits = %d, reader saw %ld\n", hits, (long)seen);
    return 0;
}
