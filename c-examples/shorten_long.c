/* An assertion failure at the end of a long execution: two workers count
 * STEPS (15000) times each on counters of their own; the first then sets a
 * flag the second asserts is still clear. The failing execution is found
 * first; shortening it must stay small in memory (a candidate schedule for
 * every step, each as long as the trace, once took gigabytes) and give up
 * once its re-runs stop making the schedule shorter.
 *
 * Usage: shorten_long [STEPS]
 * Expected: assertion failure at execution 1.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int flag;
static atomic_long count_a, count_b;
static long steps = 15000;

static void *setter(void *arg) {
    (void)arg;
    for (long i = 0; i < steps; i++)
        atomic_fetch_add(&count_a, 1);
    atomic_store(&flag, 1);
    return NULL;
}

static void *checker(void *arg) {
    (void)arg;
    for (long i = 0; i < steps; i++)
        atomic_fetch_add(&count_b, 1);
    assert(atomic_load(&flag) == 0);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        char *end;
        steps = strtol(argv[1], &end, 10);
        if (*end != '\0' || steps < 1) {
            fprintf(stderr, "usage: shorten_long [STEPS >= 1]\n");
            return 2;
        }
    }
    pthread_t a, b;
    pthread_create(&a, NULL, setter, NULL);
    pthread_create(&b, NULL, checker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
