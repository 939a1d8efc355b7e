/* Two threads and ten visible operations: the smallest interesting
 * execution, for the per-execution cost. */
#include <pthread.h>

int x, y;

static void *worker(void *arg) {
    (void)arg;
    x = 1;
    y = x + 1;
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    y = 2;
    x = y + 1;
    pthread_join(t, 0);
    return 0;
}
