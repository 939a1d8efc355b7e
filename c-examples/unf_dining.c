/*
 * unf_dining.c - N philosophers, each eating twice (the "Dining" programs
 * of unfolding-based testing: 4, 5 and 6 philosophers). A philosopher
 * takes its left fork, then its right one, eats, and puts them back.
 * With ORDERED=1 every philosopher takes the lower-numbered fork first,
 * which breaks the cycle.
 *
 * Build:    reach-cc -DN=4 [-DORDERED=1] -o unf_dining unf_dining.c
 * Expected: deadlock (every philosopher holds its left fork and waits for
 *           its right one); with -DORDERED=1 no bug.
 */
#include <pthread.h>

#ifndef N
#define N 4
#endif
#ifndef ORDERED
#define ORDERED 0
#endif

static pthread_mutex_t fork_[N];
static int meals[N];

static void *philosopher(void *arg) {
    long i = (long)arg;
    int first = (int)i, second = (int)((i + 1) % N);
    if (ORDERED && first > second) {
        int t = first;
        first = second;
        second = t;
    }
    for (int round = 0; round < 2; round++) {
        pthread_mutex_lock(&fork_[first]);
        pthread_mutex_lock(&fork_[second]);
        meals[i] += 1;
        pthread_mutex_unlock(&fork_[second]);
        pthread_mutex_unlock(&fork_[first]);
    }
    return NULL;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&fork_[i], NULL);
    for (long i = 0; i < N; i++)
        pthread_create(&t[i], NULL, philosopher, (void *)i);
    for (int i = 0; i < N; i++)
        pthread_detach(t[i]);
    pthread_exit(NULL);
}
