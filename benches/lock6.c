/* Six threads, one lock section each: 6! = 720 orders of the sections, the
 * per-execution cost of a program with a few threads and little work. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void *worker(void *arg) {
    pthread_mutex_lock(&m);
    total += (int)(long)arg;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t t[6];
    for (long i = 0; i < 6; i++)
        pthread_create(&t[i], 0, worker, (void *)(i + 1));
    for (int i = 0; i < 6; i++)
        pthread_join(t[i], 0);
    return total == 21 ? 0 : 1;
}
