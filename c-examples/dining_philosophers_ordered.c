/*
 * dining_philosophers_ordered.c - dining philosophers without deadlock.
 *
 * Same table as dining_philosophers.c, but every philosopher picks up the
 * lower-numbered of its two forks first (resource ordering).  The last
 * philosopher therefore reaches for fork 0 before fork N-1, which breaks the
 * circular wait.
 *
 * Usage:    ./dining_philosophers_ordered [N]   N defaults to 3 (2..32)
 * Expected: no bug; main asserts every philosopher ate exactly once.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PHIL 32

static int n;
static pthread_mutex_t fork_lock[MAX_PHIL];
static int meals[MAX_PHIL];

static void *philosopher(void *arg)
{
    int i = (int)(intptr_t)arg;
    int left = i, right = (i + 1) % n;
    int first = left < right ? left : right;
    int second = left < right ? right : left;

    pthread_mutex_lock(&fork_lock[first]);
    pthread_mutex_lock(&fork_lock[second]);
    meals[i]++; /* eat */
    pthread_mutex_unlock(&fork_lock[second]);
    pthread_mutex_unlock(&fork_lock[first]);
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atoi(argv[1]) : 3;
    if (n < 2 || n > MAX_PHIL) {
        fprintf(stderr, "usage: %s [N 2..%d]\n", argv[0], MAX_PHIL);
        return 2;
    }
    pthread_t t[MAX_PHIL];
    for (int i = 0; i < n; i++)
        pthread_mutex_init(&fork_lock[i], NULL);
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, philosopher, (void *)(intptr_t)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < n; i++)
        assert(meals[i] == 1);
    printf("all %d philosophers ate\n", n);
    return 0;
}
