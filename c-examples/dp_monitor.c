/*
 * dp_monitor.c - dining philosophers with a monitor (DP-MonitorSU of Lei &
 * Carver, "A New Algorithm for Reachability Testing of Concurrent
 * Programs", Table 1), deadlock-free.
 *
 * The classic monitor solution: the monitor keeps each philosopher's state
 * (THINKING, HUNGRY, EATING) and one condition variable per philosopher.  A
 * hungry philosopher may eat only when neither neighbour is eating; it
 * never holds one fork while waiting for the other, so there is no circular
 * wait.
 *
 *   pickup(i):  state[i] = HUNGRY; test(i); while (state[i] != EATING) wait(self[i]);
 *   putdown(i): state[i] = THINKING; test(left(i)); test(right(i));
 *   test(k):    if (state[k] == HUNGRY && neither neighbour EATING)
 *                   { state[k] = EATING; signal(self[k]); }
 *
 * POSIX condition variables are signal-and-continue, not signal-and-urgent-
 * wait as in the paper; the while loop makes the solution correct under
 * either.  Each philosopher eats MEALS times (default 1); under the monitor
 * it asserts neither neighbour is eating.
 *
 * Usage:    ./dp_monitor [N [MEALS]]    N default 3 (3..16), MEALS default 1
 * Expected: no bug, no deadlock.
 * Published figures: RichTest (Java), DP-MonitorSU: 3 / 4 / 5 philosophers
 *   -> 30 / 624 / 19330 SYN-sequences (5 philosophers took 7 minutes).
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PHIL 16

enum { THINKING, HUNGRY, EATING };

static int n, meals_each;

/* the monitor */
static pthread_mutex_t mon = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t self[MAX_PHIL];
static int state[MAX_PHIL];

static int meals[MAX_PHIL]; /* philosopher i writes only meals[i] */

static int left(int i) { return (i + n - 1) % n; }
static int right(int i) { return (i + 1) % n; }

static void test(int k) /* called with the monitor held */
{
    if (state[k] == HUNGRY && state[left(k)] != EATING && state[right(k)] != EATING) {
        state[k] = EATING;
        pthread_cond_signal(&self[k]);
    }
}

static void pickup(int i)
{
    pthread_mutex_lock(&mon);
    state[i] = HUNGRY;
    test(i);
    while (state[i] != EATING)
        pthread_cond_wait(&self[i], &mon);
    assert(state[left(i)] != EATING && state[right(i)] != EATING);
    pthread_mutex_unlock(&mon);
}

static void putdown(int i)
{
    pthread_mutex_lock(&mon);
    state[i] = THINKING;
    test(left(i));
    test(right(i));
    pthread_mutex_unlock(&mon);
}

static void *philosopher(void *arg)
{
    int i = (int)(intptr_t)arg;
    int times = meals_each;
    for (int k = 0; k < times; k++) {
        pickup(i);
        meals[i]++; /* eat */
        putdown(i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atoi(argv[1]) : 3;
    meals_each = argc > 2 ? atoi(argv[2]) : 1;
    if (n < 3 || n > MAX_PHIL || meals_each < 0 || meals_each > 99) {
        fprintf(stderr, "usage: %s [N 3..%d [MEALS 0..99]]\n", argv[0], MAX_PHIL);
        return 2;
    }
    for (int i = 0; i < n; i++)
        pthread_cond_init(&self[i], NULL);
    pthread_t t[MAX_PHIL];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, philosopher, (void *)(intptr_t)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < n; i++)
        assert(meals[i] == meals_each && state[i] == THINKING);
    printf("dp_monitor: %d philosophers ate %d meal(s) each\n", n, meals_each);
    return 0;
}
