// Two producers append to a shared ring without a lock: the slot index
// `ring.tail` is read and written by both (a data race). Used to check that
// reports name objects by field and element (`ring.tail`, `ring.slots[1]`).
#include <pthread.h>
#include <stdio.h>

struct ring {
    int slots[4];
    int tail;
};

static struct ring ring;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void *producer(void *arg) {
    int value = (int)(long)arg;
    int at = ring.tail;
    ring.slots[at % 4] = value;
    ring.tail = at + 1;
    pthread_mutex_lock(&print_lock);
    printf("put %d at %d\n", value, at);
    pthread_mutex_unlock(&print_lock);
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, producer, (void *)1L);
    pthread_create(&b, NULL, producer, (void *)2L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("tail = %d\n", ring.tail);
    return 0;
}
