/*
 * oracle_commute_families.c - additions of one family commute, other
 * families and reads do not.
 *
 * Two threads add to a counter and one sets a bit in it with fetch_or,
 * none looking at the old value; a fourth thread reads the counter once.
 * With --commute-rmws the two additions commute with each other (and only
 * with each other): the order of the or and the read among them matters.
 *
 * Usage:    ./oracle_commute_families
 * Expected: no bug.  18 Mazurkiewicz traces with --commute-rmws (of the 24
 *           orders of the four operations, those where the additions are
 *           next to each other count once); 24 without.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static atomic_int counter;
static int seen;

static void *add(void *arg)
{
    atomic_fetch_add(&counter, (int)(intptr_t)arg);
    return NULL;
}

static void *set_bit(void *arg)
{
    (void)arg;
    atomic_fetch_or(&counter, 0x100);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    seen = atomic_load(&counter);
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    pthread_create(&t[0], NULL, add, (void *)(intptr_t)1);
    pthread_create(&t[1], NULL, set_bit, NULL);
    pthread_create(&t[2], NULL, add, (void *)(intptr_t)2);
    pthread_create(&t[3], NULL, reader, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return seen > 0x103;
}
