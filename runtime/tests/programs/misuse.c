#include <pthread.h>
#include <stdlib.h>
#include <string.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *nothing(void *x) { return x; }
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static void *cond_waiter(void *x) {
    pthread_mutex_lock(&m);
    pthread_cond_wait(&c, &m);
    return x;
}
static void *unlocker(void *x) { pthread_mutex_unlock(&m); return x; }
int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    pthread_t t;
    if (!strcmp(what, "unlock-unheld")) { pthread_mutex_unlock(&m); }
    if (!strcmp(what, "unlock-other")) { pthread_mutex_lock(&m); pthread_create(&t, 0, unlocker, 0); pthread_join(t, 0); }
    if (!strcmp(what, "relock")) { pthread_mutex_lock(&m); pthread_mutex_lock(&m); }
    if (!strcmp(what, "destroy-locked")) { pthread_mutex_lock(&m); pthread_mutex_destroy(&m); }
    if (!strcmp(what, "join-twice")) { pthread_create(&t, 0, nothing, 0); pthread_join(t, 0); pthread_join(t, 0); }
    if (!strcmp(what, "join-detached")) { pthread_create(&t, 0, nothing, 0); pthread_detach(t); pthread_join(t, 0); }
    if (!strcmp(what, "join-detached-blocked")) {
        pthread_mutex_lock(&m);
        pthread_create(&t, 0, unlocker, 0);
        pthread_detach(t);
        pthread_join(t, 0);
    }
    if (!strcmp(what, "join-self")) { pthread_join(pthread_self(), 0); }
    if (!strcmp(what, "cond-destroy")) {
        pthread_create(&t, 0, cond_waiter, 0);
        pthread_cond_destroy(&c);
    }
    return 0;
}
