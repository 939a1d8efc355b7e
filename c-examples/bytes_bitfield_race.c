/* Adjacent bit-fields are one memory location (C11 3.14): two threads
 * that each write their own bit-field of one byte race, because each
 * write reads and writes the whole byte (one thread's update can undo the
 * other's).
 *
 * Expected: data race on bits.
 */
#include <pthread.h>
#include <stdio.h>

struct {
    unsigned low : 4;
    unsigned high : 4;
} bits;

static void *first(void *arg) {
    (void)arg;
    bits.low = 3;
    return NULL;
}

static void *second(void *arg) {
    (void)arg;
    bits.high = 5;
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, first, NULL);
    pthread_create(&b, NULL, second, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%u %u\n", bits.low, bits.high);
    return 0;
}
