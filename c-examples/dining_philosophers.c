/*
 * dining_philosophers.c - Dijkstra's dining philosophers, deadlocking version.
 *
 * N philosophers sit round a table with one fork (mutex) between each pair.
 * Philosopher i picks up its left fork (i), then its right fork ((i+1) % N),
 * eats once, and puts both forks down.  If every philosopher holds its left
 * fork, nobody can get a right fork: a circular wait.
 *
 * Usage:    ./dining_philosophers [N]      N defaults to 3 (2..32)
 * Expected: BUG - deadlock (the cycle fork0 -> fork1 -> ... -> fork0).
 *           Natively it usually completes.
 * See dining_philosophers_ordered.c for the fix and dp_monitor.c for the
 * monitor solution measured by Lei & Carver.
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

    pthread_mutex_lock(&fork_lock[left]);
    pthread_mutex_lock(&fork_lock[right]);
    meals[i]++; /* eat */
    pthread_mutex_unlock(&fork_lock[right]);
    pthread_mutex_unlock(&fork_lock[left]);
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
