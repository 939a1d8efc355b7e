/* Emulates instrumented code by calling the hooks by hand. */
#include <pthread.h>
#include <sched.h>
#include <string.h>

extern void __reach_load(unsigned long, const void *, unsigned long) __attribute__((weak));
extern void __reach_store(unsigned long, const void *, unsigned long) __attribute__((weak));
extern void __reach_cmpxchg(unsigned long, const void *, unsigned long, unsigned long, unsigned) __attribute__((weak));
extern void __reach_call_site(unsigned long) __attribute__((weak));

#define LOAD(site, p) (__reach_load ? __reach_load(site, p, sizeof *(p)) : (void)0)
#define STORE(site, p) (__reach_store ? __reach_store(site, p, sizeof *(p)) : (void)0)

static volatile int flag, x;

static void *setter(void *a) {
    STORE(1, &x); x = 1;
    STORE(2, &flag); flag = 1;
    return a;
}

static void *never_set(void *a) { return a; }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    pthread_t t;
    if (!strcmp(mode, "spin")) {
        /* Spin until the other thread sets the flag. */
        pthread_create(&t, 0, setter, 0);
        for (;;) { LOAD(3, &flag); if (flag) break; }
        LOAD(4, &x);
        int r = x;
        pthread_join(t, 0);
        return r == 1 ? 0 : 1;
    }
    if (!strcmp(mode, "spin-forever")) {
        pthread_create(&t, 0, never_set, 0);
        for (;;) { LOAD(3, &flag); if (flag) break; }
        return 0;
    }
    if (!strcmp(mode, "yield-spin")) {
        pthread_create(&t, 0, setter, 0);
        while (!flag) sched_yield();
        pthread_join(t, 0);
        return 0;
    }
    if (!strcmp(mode, "cas")) {
        static int v = 5;
        __reach_cmpxchg(5, &v, 4, 7, 5);
        __sync_bool_compare_and_swap(&v, 7, 8);
        __reach_cmpxchg(6, &v, 4, 5, 5);
        __sync_bool_compare_and_swap(&v, 5, 6);
        return v == 6 ? 0 : 1;
    }
    if (!strcmp(mode, "race")) {
        pthread_create(&t, 0, setter, 0);
        LOAD(7, &x);
        int r = x;
        __reach_call_site(99);
        pthread_join(t, 0);
        return r;
    }
    return 99;
}
