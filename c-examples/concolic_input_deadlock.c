// reach: symbolic
// Two threads take two locks in opposite orders, but the first takes the
// second lock only when the input `mode` is 3: the deadlock needs both
// that input and an interleaving where each thread holds its first lock.
#include <pthread.h>

int reach_input_int(const char *name, int lo, int hi);

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int mode;

static void *first(void *arg) {
    (void)arg;
    pthread_mutex_lock(&a);
    if (mode == 3) {
        pthread_mutex_lock(&b);
        pthread_mutex_unlock(&b);
    }
    pthread_mutex_unlock(&a);
    return 0;
}

static void *second(void *arg) {
    (void)arg;
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
    return 0;
}

int main(void) {
    mode = reach_input_int("mode", 0, 10);
    pthread_t t1, t2;
    pthread_create(&t1, 0, first, 0);
    pthread_create(&t2, 0, second, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
