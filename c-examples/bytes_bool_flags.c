/* Two threads each set their own bool flag; the flags are adjacent
 * globals, so they share a 4-byte granule. Distinct memory locations
 * never race (C11 5.1.2.4): no data race, whatever the order.
 *
 * Expected: no bug; the search completes.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

bool succ1, succ2;

static void *first(void *arg) {
    (void)arg;
    succ1 = true;
    return NULL;
}

static void *second(void *arg) {
    (void)arg;
    succ2 = true;
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, first, NULL);
    pthread_create(&b, NULL, second, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%d %d\n", succ1, succ2);
    return succ1 && succ2 ? 0 : 1;
}
