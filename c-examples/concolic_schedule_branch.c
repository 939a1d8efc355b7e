// reach: symbolic
// One branch, two meanings: main compares the input with a value another
// thread may or may not have changed yet, so the same branch tests
// `key == 5` in one interleaving and `key == 6` in the other. The assertion
// fails only for key 6 when the setter ran first; a search that identified
// the branch without the schedule before it would flip it only once.
#include <assert.h>
#include <pthread.h>
#include <reach.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int base;

static void *setter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    base = 1;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    int key = reach_input_int("key", 0, 10);
    pthread_t t;
    pthread_create(&t, 0, setter, 0);
    pthread_mutex_lock(&m);
    int seen = base;
    pthread_mutex_unlock(&m);
    if (key == seen + 5)
        assert(seen == 0);
    pthread_join(t, 0);
    return 0;
}
