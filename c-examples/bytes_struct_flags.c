/* A struct of byte flags: the producer sets `ready` and `more`, the
 * consumer sets `seen` and reads its own `seen` back; main reads them all
 * after joining. The fields share one granule but no byte: no data race.
 *
 * Expected: no bug; the search completes.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

static struct {
    bool ready;
    unsigned char more;
    bool seen;
    char pad;
} flags;

static void *producer(void *arg) {
    (void)arg;
    flags.ready = true;
    flags.more = 2;
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    flags.seen = true;
    return (void *)(long)flags.seen;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, producer, NULL);
    pthread_create(&b, NULL, consumer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%d %d %d\n", flags.ready, flags.more, flags.seen);
    return flags.ready && flags.seen ? 0 : 1;
}
