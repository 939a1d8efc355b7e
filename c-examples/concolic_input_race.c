// reach: symbolic
// A data race only for one input: the writer touches `shared` without the
// lock only when `key` is 42; otherwise both threads use the lock.
#include <pthread.h>
#include <stdio.h>

int reach_input_int(const char *name, int lo, int hi);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared;
static int key;

static void *writer(void *arg) {
    (void)arg;
    if (key == 42) {
        shared = 1; // unprotected
    } else {
        pthread_mutex_lock(&m);
        shared = 2;
        pthread_mutex_unlock(&m);
    }
    return 0;
}

int main(void) {
    key = reach_input_int("key", 0, 1000);
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    pthread_mutex_lock(&m);
    int seen = shared;
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    printf("%d\n", seen);
    return 0;
}
