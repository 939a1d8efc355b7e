/* A real race on one byte next to bytes that do not race: two threads
 * each set their own flag, and both also write the shared `owner` byte
 * between them without a lock. The race is on `owner`, and the report
 * names it (not a neighbour in its granule).
 *
 * Expected: data race on owner.
 */
#include <pthread.h>
#include <stdio.h>

/* Not static: the compiler would split a static struct into one global per
 * field. */
struct {
    char flag1;
    char owner;
    char flag2;
} state;

static void *first(void *arg) {
    (void)arg;
    state.flag1 = 1;
    state.owner = 1;
    return NULL;
}

static void *second(void *arg) {
    (void)arg;
    state.flag2 = 1;
    state.owner = 2;
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, first, NULL);
    pthread_create(&b, NULL, second, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%d\n", state.owner);
    return 0;
}
