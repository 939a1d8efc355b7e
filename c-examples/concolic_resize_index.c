// reach: symbolic
// A writer stores at an index it reads as input, after checking it against
// the buffer's capacity, while another thread grows the buffer from 4 to 8
// slots. The resize publishes the new capacity before the new buffer, so a
// writer that runs in between sees capacity 8 with the old 4-slot buffer:
// the bounds assertion fails, but only for an index in 4..7 and only in that
// interleaving. Every shared access is atomic (no data race).
#include <assert.h>
#include <pthread.h>
#include <reach.h>
#include <stdlib.h>

// A buffer's first slot holds its capacity; the items follow.
static int *buffer;
static int capacity;

static int *new_buffer(int slots) {
    int *b = calloc((size_t)slots + 1, sizeof(int));
    if (!b)
        abort();
    b[0] = slots;
    return b + 1;
}

static void *resize(void *arg) {
    (void)arg;
    int *old = __atomic_load_n(&buffer, __ATOMIC_SEQ_CST);
    int *grown = new_buffer(8);
    for (int i = 0; i < 4; i++)
        grown[i] = old[i];
    __atomic_store_n(&capacity, 8, __ATOMIC_SEQ_CST);
    __atomic_store_n(&buffer, grown, __ATOMIC_SEQ_CST);
    return 0;
}

static void *writer(void *arg) {
    int index = *(int *)arg;
    if (index < __atomic_load_n(&capacity, __ATOMIC_SEQ_CST)) {
        int *b = __atomic_load_n(&buffer, __ATOMIC_SEQ_CST);
        assert(index < b[-1]);
        __atomic_store_n(&b[index], 1, __ATOMIC_SEQ_CST);
    }
    return 0;
}

int main(void) {
    buffer = new_buffer(4);
    capacity = 4;
    int index = reach_input_int("index", 0, 15);
    pthread_t w, r;
    pthread_create(&r, 0, resize, 0);
    pthread_create(&w, 0, writer, &index);
    pthread_join(r, 0);
    pthread_join(w, 0);
    return 0;
}
