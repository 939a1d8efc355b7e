/*
 * oracle_commute_used.c - two threads add to a counter without looking at
 * the old value; a third adds and checks whether it came first.
 *
 * The third thread uses fetch_add's result, so its addition is a write that
 * is ordered against each of the others; the first two commute with
 * --commute-rmws.
 *
 * Usage:    ./oracle_commute_used
 * Expected: no bug.  4 Mazurkiewicz traces with --commute-rmws (the checker
 *           first, last, or between the two others in either order); 6
 *           without (3! orders).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int counter;
static int checker_first;

static void *add_one(void *arg)
{
    (void)arg;
    atomic_fetch_add(&counter, 1);
    return NULL;
}

static void *add_and_check(void *arg)
{
    (void)arg;
    if (atomic_fetch_add(&counter, 1) == 0)
        checker_first = 1;
    return NULL;
}

int main(void)
{
    pthread_t a, b, c;
    pthread_create(&a, NULL, add_one, NULL);
    pthread_create(&b, NULL, add_one, NULL);
    pthread_create(&c, NULL, add_and_check, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_join(c, NULL);
    assert(atomic_load(&counter) == 3);
    printf("checker first: %d\n", checker_first);
    return 0;
}
