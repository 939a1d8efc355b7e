/*
 * unf_updater.c - two updaters and two readers (the "Updater" programs of
 * unfolding-based testing, with fixed values where the original reads
 * inputs). Each updater adds its value ROUNDS times to a (under lock_a) and to b
 * (under lock_b); each reader takes both locks and checks that the sum it
 * sees is one the updates can produce. With DEADLOCK=1 the second reader
 * takes the locks in the other order.
 *
 * Build:    reach-cc [-DROUNDS=1] [-DDEADLOCK=1] -o unf_updater unf_updater.c
 * Expected: no bug; with -DDEADLOCK=1 a deadlock (reader 1 holds lock_a
 *           and waits for lock_b, reader 2 holds lock_b and waits for
 *           lock_a).
 */
#include <assert.h>
#include <pthread.h>

#ifndef ROUNDS
#define ROUNDS 1
#endif
#ifndef DEADLOCK
#define DEADLOCK 0
#endif

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int a, b;

static void *updater(void *arg) {
    int value = (int)(long)arg;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&lock_a);
        a += value;
        pthread_mutex_unlock(&lock_a);
        pthread_mutex_lock(&lock_b);
        b += value;
        pthread_mutex_unlock(&lock_b);
    }
    return NULL;
}

static void *reader(void *arg) {
    int reversed = DEADLOCK && arg != NULL;
    pthread_mutex_t *first = reversed ? &lock_b : &lock_a;
    pthread_mutex_t *second = reversed ? &lock_a : &lock_b;
    pthread_mutex_lock(first);
    pthread_mutex_lock(second);
    int sum = a + b;
    /* a and b are sums of 3s and 5s, at most ROUNDS of each. */
    assert(sum <= 2 * ROUNDS * (3 + 5));
    pthread_mutex_unlock(second);
    pthread_mutex_unlock(first);
    return NULL;
}

int main(void) {
    pthread_t t[4];
    pthread_create(&t[0], NULL, updater, (void *)3L);
    pthread_create(&t[1], NULL, updater, (void *)5L);
    pthread_create(&t[2], NULL, reader, NULL);
    pthread_create(&t[3], NULL, reader, (void *)1L);
    for (int i = 0; i < 4; i++)
        pthread_detach(t[i]);
    pthread_exit(NULL);
}
