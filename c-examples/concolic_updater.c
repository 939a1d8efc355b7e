// reach: symbolic
// Updater: two threads update shared values from the inputs `a` and `b`,
// two threads read them and, depending on what they read, read the other
// value too. Each reader releases its first lock before taking the second,
// so no interleaving deadlocks (compare concolic_updater_deadlock.c).
#include <pthread.h>
#include <reach.h>
#include <stdio.h>

static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t my = PTHREAD_MUTEX_INITIALIZER;
static int x, y;
static int a, b;

static void *update_x(void *arg) {
    (void)arg;
    if (a > 5) {
        pthread_mutex_lock(&mx);
        x = a;
        pthread_mutex_unlock(&mx);
    }
    return 0;
}

static void *update_y(void *arg) {
    (void)arg;
    if (b < 0) {
        pthread_mutex_lock(&my);
        y = -b;
        pthread_mutex_unlock(&my);
    }
    return 0;
}

static void *read_x_then_y(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mx);
    int vx = x;
    pthread_mutex_unlock(&mx);
    if (vx > 8) {
        pthread_mutex_lock(&my);
        int vy = y;
        pthread_mutex_unlock(&my);
        printf("x %d y %d\n", vx, vy);
    }
    return 0;
}

static void *read_y_then_x(void *arg) {
    (void)arg;
    pthread_mutex_lock(&my);
    int vy = y;
    pthread_mutex_unlock(&my);
    if (vy > 2) {
        pthread_mutex_lock(&mx);
        int vx = x;
        pthread_mutex_unlock(&mx);
        printf("y %d x %d\n", vy, vx);
    }
    return 0;
}

int main(void) {
    a = reach_input_int("a", 0, 10);
    b = reach_input_int("b", -10, 10);
    pthread_t t[4];
    pthread_create(&t[0], 0, update_x, 0);
    pthread_create(&t[1], 0, update_y, 0);
    pthread_create(&t[2], 0, read_x_then_y, 0);
    pthread_create(&t[3], 0, read_y_then_x, 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], 0);
    return 0;
}
