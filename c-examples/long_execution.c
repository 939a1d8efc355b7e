/* Executions of more than a million steps whose race is a million steps
 * wide: the first worker writes a flag and then counts on its own; the
 * second counts on its own and then reads the flag; the main thread counts
 * after joining them. Reversing the race puts the second worker's whole
 * count before the write, a sequence as long as the execution, and the
 * search, its analyses and its reports must not recurse that deep (a drop
 * of the search tree one level per step overflowed the stack).
 *
 * Usage: long_execution [ROUNDS]   (default 300000: about 1,200,000 steps,
 * the last 200,000 past the default --max-recorded-steps)
 * Expected: no bug; the search is large, so it is run with
 * --max-executions.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int flag;
static atomic_long count_a, count_b, count_main;
static long rounds = 300000;

static void *writer(void *arg) {
    (void)arg;
    atomic_store_explicit(&flag, 1, memory_order_relaxed);
    for (long i = 0; i < 2 * rounds; i++)
        atomic_fetch_add_explicit(&count_a, 1, memory_order_relaxed);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    for (long i = 0; i < rounds; i++)
        atomic_fetch_add_explicit(&count_b, 1, memory_order_relaxed);
    return (void *)(long)atomic_load_explicit(&flag, memory_order_relaxed);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        char *end;
        rounds = strtol(argv[1], &end, 10);
        if (*end != '\0' || rounds < 1) {
            fprintf(stderr, "usage: long_execution [ROUNDS >= 1]\n");
            return 2;
        }
    }
    pthread_t a, b;
    pthread_create(&a, NULL, writer, NULL);
    pthread_create(&b, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    for (long i = 0; i < rounds; i++)
        atomic_fetch_add_explicit(&count_main, 1, memory_order_relaxed);
    return atomic_load(&count_a) + atomic_load(&count_b) == 3 * rounds ? 0 : 1;
}
